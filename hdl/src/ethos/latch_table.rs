//! The LATCH table of the kernel units (TRM §4.6; docs/ethos.md, "Kernel unit" and
//! "Convolution unit"): the scalar registers a kernel unit keeps (module [`scalar`]), which
//! register-file entry LATCH reads at each step and where the value goes, and the two ROMs
//! generated from it for [`super::latch_sequencer::LatchSequencer`]. Plain Rust: the one source
//! of the sequence, which the models read as well.
use super::command_set::{register, register_count};
use super::feature_map::{BASEP_LOW, SLOTS};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The scalar registers the unit keeps (ids; the regions first, as the BASEP reads at the end
/// of LATCH need them).
pub mod scalar {
    pub const IFM_REGION: usize = 0;
    pub const IFM2_REGION: usize = 1;
    pub const OFM_REGION: usize = 2;
    pub const IFM_ZERO_POINT: usize = 3;
    pub const IFM2_ZERO_POINT: usize = 4;
    pub const OFM_ZERO_POINT: usize = 5;
    pub const IFM_PRECISION: usize = 6;
    pub const IFM2_PRECISION: usize = 7;
    pub const OFM_PRECISION: usize = 8;
    pub const IFM2_BROADCAST: usize = 9;
    pub const IFM2_SCALAR: usize = 10;
    pub const OPA_SCALE: usize = 11;
    pub const OPB_SCALE: usize = 12;
    pub const OFM_SCALE: usize = 13;
    pub const ACTIVATION: usize = 14;
    pub const ACTIVATION_MIN: usize = 15;
    pub const ACTIVATION_MAX: usize = 16;
    pub const ACC_FORMAT: usize = 17;
    pub const IFM_UPSCALE: usize = 18;
    pub const OFM_HEIGHT_M1: usize = 19;
    pub const OFM_WIDTH_M1: usize = 20;
    pub const OFM_DEPTH_M1: usize = 21;
    pub const KERNEL_HEIGHT_M1: usize = 22;
    pub const KERNEL_WIDTH_M1: usize = 23;
    pub const KERNEL_STRIDE: usize = 24;
    pub const IFM_PAD_TOP: usize = 25;
    pub const IFM_PAD_LEFT: usize = 26;
    pub const IFM_PAD_BOTTOM: usize = 27;
    pub const IFM_PAD_RIGHT: usize = 28;
    pub const IFM_DEPTH_M1: usize = 29;
    pub const OFM_BLK_DEPTH_M1: usize = 30;
    pub const WEIGHT_REGION: usize = 31;
    pub const SCALE_REGION: usize = 32;
    pub const WEIGHT_BASE: usize = 33;
    pub const WEIGHT_LENGTH: usize = 34;
    pub const SCALE_BASE: usize = 35;
    pub const SCALE_LENGTH: usize = 36;
    /// Also in the IFM's feature-map block; the convolution unit checks it.
    pub const IFM_STRIDE_C: usize = 37;
    /// The `NPU_SET_*` register of each id, in id order.
    pub const NAMES: [&str; 38] = ["IFM_REGION", "IFM2_REGION", "OFM_REGION", "IFM_ZERO_POINT", "IFM2_ZERO_POINT", "OFM_ZERO_POINT", "IFM_PRECISION", "IFM2_PRECISION", "OFM_PRECISION", "IFM2_BROADCAST", "IFM2_SCALAR", "OPA_SCALE", "OPB_SCALE", "OFM_SCALE", "ACTIVATION", "ACTIVATION_MIN", "ACTIVATION_MAX", "ACC_FORMAT", "IFM_UPSCALE", "OFM_HEIGHT_M1", "OFM_WIDTH_M1", "OFM_DEPTH_M1", "KERNEL_HEIGHT_M1", "KERNEL_WIDTH_M1", "KERNEL_STRIDE", "IFM_PAD_TOP", "IFM_PAD_LEFT", "IFM_PAD_BOTTOM", "IFM_PAD_RIGHT", "IFM_DEPTH_M1", "OFM_BLK_DEPTH_M1", "WEIGHT_REGION", "SCALE_REGION", "WEIGHT_BASE", "WEIGHT_LENGTH", "SCALE_BASE", "SCALE_LENGTH", "IFM_STRIDE_C"];
    /// Ids past the table: the BASEP pairs of the weight and scale regions (low, high), which
    /// the last LATCH steps write.
    pub const WEIGHT_BASEP_LOW: usize = 38;
    pub const WEIGHT_BASEP_HIGH: usize = 39;
    pub const SCALE_BASEP_LOW: usize = 40;
    pub const SCALE_BASEP_HIGH: usize = 41;
    /// All ids.
    pub const COUNT: usize = 42;
    /// The region register of each BASEP pair LATCH reads, in order (IFM, IFM2, OFM maps, then
    /// the weight and scale streams).
    pub const BASEP_REGIONS: [usize; 5] = [IFM_REGION, IFM2_REGION, OFM_REGION, WEIGHT_REGION, SCALE_REGION];
}

/// Where BASEP step `j` (0 .. 2 x [`scalar::BASEP_REGIONS`]) goes: `kind << 6 | slot` (kinds 1-3:
/// slot `BASEP_LOW + (j & 1)` of the IFM, IFM2, OFM block; kind 0: the weight and scale BASEP ids).
pub fn basep_target(j: usize) -> u8 {
    match j >> 1 {
        m @ 0..=2 => ((m + 1) << 6 | (BASEP_LOW + (j & 1))) as u8,
        3 => (scalar::WEIGHT_BASEP_LOW + (j & 1)) as u8,
        _ => (scalar::SCALE_BASEP_LOW + (j & 1)) as u8,
    }
}

/// The BASEP steps of LATCH (a low and a high word per region of [`scalar::BASEP_REGIONS`]).
pub const BASEP_STEPS: usize = 2 * scalar::BASEP_REGIONS.len();

/// The maps, in target-code order (kind 1, 2, 3).
pub const MAPS: [&str; 3] = ["IFM", "IFM2", "OFM"];

/// What LATCH reads before the BASEPs: (register-file index, target), the target
/// `kind << 6 | slot` with kind 0 a scalar id, 1-3 a slot of the IFM, IFM2, OFM block.
pub fn latch_table() -> &'static [(u8, u8)] {
    static TABLE: std::sync::OnceLock<Vec<(u8, u8)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let index = |name: String| {
            (0..register_count()).find(|&i| register(i).is_some_and(|c| c.name == name)).unwrap_or_else(|| panic!("{name} is not a SET command")) as u8
        };
        let scalars = scalar::NAMES.iter().enumerate().map(|(id, n)| (index(format!("NPU_SET_{n}")), id as u8));
        let maps = MAPS.iter().enumerate().flat_map(|(m, map)| SLOTS.iter().enumerate().map(move |(s, slot)| (format!("NPU_SET_{map}_{slot}"), ((m + 1) << 6 | s) as u8)));
        scalars.chain(maps.map(|(name, target)| (index(name), target))).collect()
    })
}

/// LATCH's cycles: the table, the BASEP reads, and the cycle the last value arrives.
pub const LATCH_STEPS: usize = scalar::NAMES.len() + 3 * SLOTS.len() + BASEP_STEPS + 1;

/// LATCH's read ROM: at step k (< the table's length) the unit reads register-file entry
/// `index_rom()[k]` through the debug port.
pub(super) fn index_rom() -> BTreeMap<Bits<7>, Bits<7>> {
    latch_table().iter().enumerate().map(|(k, &(index, _))| ((k as u64).into(), u64::from(index).into())).collect()
}

/// LATCH's write ROM: the value read at step k arrives at step k + 1 and goes to
/// `target_rom()[k]`: [`latch_table`]'s target, then for the BASEP steps j [`basep_target`].
pub(super) fn target_rom() -> BTreeMap<Bits<7>, Bits<8>> {
    let basep = (0..BASEP_STEPS).map(|j| u64::from(basep_target(j)));
    latch_table().iter().map(|&(_, target)| u64::from(target)).chain(basep).enumerate().map(|(k, t)| ((k as u64).into(), t.into())).collect()
}
