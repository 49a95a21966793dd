//! CACC, the convolution accumulator (seeds/001 "Convolution Accumulator"), int8 as nv_small
//! runs it: the assembly buffer, CACC_D_CLIP_CFG's truncation with its rounding, the int32
//! saturation D_OUT_SATURATION counts, and the delivery buffer towards SDP. RTL:
//! `npu_hdl::nvdla::cacc::Cacc`; interface, timing and decisions: docs/nvdla.md "CACC".
//!
//! Each cycle with `psum_valid` (an atomic op's 8 partial sums from CMAC):
//! - its output pixel's index in the stripe: 0 with `psum_stripe_first`, else one more than
//!   the op before (mod [`STRIPE_MAX`]);
//! - assembly entry `index` (8 kernels x [`ASSEMBLY_BITS`]) takes the sums (`psum_acc_first`:
//!   the pixel's first contribution) or adds them (wrapping at 48 bits: no layer the
//!   registers allow comes near, |sum| <= 2^37);
//! - with `psum_acc_last` the pixel is complete: each kernel's sum is divided by
//!   2^CLIP_TRUNCATE rounding half away from zero and saturated to int32 ([`truncate`], as
//!   NVIDIA's C model), and the atom joins the delivery buffer, unless it is full (then the
//!   atom is dropped: CSC's protocol, [`BUSY_FULL_ABOVE`], never lets that happen).
//!   `sat_count` says in the next cycle how many of its 8 values saturated.
//! - The delivery buffer's first atom is on `out_valid`/`out_data_*`/`out_layer_last`
//!   (zeros when empty) and leaves on a cycle with `out_ready`. `busy_full` is high while the
//!   buffer holds more than [`BUSY_FULL_ABOVE`] atoms.
use super::cmac::unpack_psums;
use super::convert::round_shift_saturate;
pub use npu_hdl::nvdla::cacc::{ASSEMBLY_BITS, BUSY_FULL_ABOVE, CACC_IN_FLIGHT, DELIVERY_DEPTH, STRIPE_MAX};
use std::collections::VecDeque;

/// Every input port (the rust-hdl names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub reset: bool,
    pub psum_valid: bool,
    /// CMAC's partial sums, kernels 0..3 and 4..7, 20 bits each (`cmac::Out`).
    pub psum_lo: u128,
    pub psum_hi: u128,
    pub psum_stripe_first: bool,
    pub psum_acc_first: bool,
    pub psum_acc_last: bool,
    pub psum_layer_last: bool,
    /// CACC_D_CLIP_CFG.CLIP_TRUNCATE (5 bits), held during a layer.
    pub clip_truncate: u8,
    /// SDP takes the atom on `out_data_*` this cycle.
    pub out_ready: bool,
}

/// Every output port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub out_valid: bool,
    /// Output channels 0..3 (`lo`) and 4..7 (`hi`) of one output pixel, int32 each, channel
    /// c in bits 32(c mod 4)+31..32(c mod 4).
    pub out_data_lo: u128,
    pub out_data_hi: u128,
    /// The atom is the last of its layer (its op carried `layer_last`).
    pub out_layer_last: bool,
    pub busy_full: bool,
    /// Saturated values (0..8) of the atom truncated in the cycle before.
    pub sat_count: u8,
}

/// One kernel's assembled sum truncated: `value / 2^clip` rounded half away from zero,
/// saturated to int32, and whether it saturated (NVIDIA's C model: through a double, exact
/// for 48-bit values). CLIP_TRUNCATE's RDL range is 0..16, at which the C model stops; 17..31
/// are computed the same way here (a 48-bit value then never saturates).
pub fn truncate(value: i64, clip: u8) -> (i32, bool) {
    let rounded = round_shift_saturate(value, u32::from(clip & 31), 64);
    let clamped = rounded.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
    (clamped as i32, clamped != rounded)
}

/// The 8 int32 values as the two output words.
pub fn pack_atom(values: [i32; 8]) -> (u128, u128) {
    let word = |k0: usize| (0..4).fold(0u128, |w, k| w | (u128::from(values[k0 + k] as u32) << (32 * k)));
    (word(0), word(4))
}

/// The 8 int32 values of the two output words.
pub fn unpack_atom(lo: u128, hi: u128) -> [i32; 8] {
    std::array::from_fn(|c| ((if c < 4 { lo } else { hi }) >> (32 * (c % 4))) as u32 as i32)
}

fn wrap48(value: i64) -> i64 {
    let spare = 64 - ASSEMBLY_BITS as u32;
    (value << spare) >> spare
}

pub struct Cacc {
    assembly: [[i64; 8]; STRIPE_MAX],
    /// The index the next op takes unless it starts a stripe.
    next_index: usize,
    /// Atoms and their layer-last tags, first out first.
    delivery: VecDeque<([i32; 8], bool)>,
    sat_count: u8,
    events: Vec<&'static str>,
}

impl Default for Cacc {
    fn default() -> Self {
        Self { assembly: [[0; 8]; STRIPE_MAX], next_index: 0, delivery: VecDeque::with_capacity(DELIVERY_DEPTH), sat_count: 0, events: Vec::new() }
    }
}

impl Cacc {
    /// The outputs of this cycle (before the edge).
    pub fn outputs(&self) -> Out {
        let (atom, last) = self.delivery.front().copied().unwrap_or(([0; 8], false));
        let (lo, hi) = pack_atom(atom);
        Out {
            out_valid: !self.delivery.is_empty(),
            out_data_lo: lo,
            out_data_hi: hi,
            out_layer_last: last,
            busy_full: self.delivery.len() > BUSY_FULL_ABOVE,
            sat_count: self.sat_count,
        }
    }

    /// Atoms waiting in the delivery buffer.
    pub fn delivery_len(&self) -> usize {
        self.delivery.len()
    }

    fn clock(&mut self, input: &In) {
        let out = self.outputs();
        self.events.clear();
        if input.reset {
            *self = Self::default();
            return;
        }
        if out.busy_full {
            self.events.push("busy_full");
        }
        let full = self.delivery.len() == DELIVERY_DEPTH;
        if out.out_valid {
            if input.out_ready {
                self.delivery.pop_front();
                self.events.push("deliver");
            } else {
                self.events.push("SDP stall");
            }
        }
        self.sat_count = 0;
        if input.psum_valid {
            let index = if input.psum_stripe_first { 0 } else { self.next_index };
            self.next_index = (index + 1) % STRIPE_MAX;
            let psums = unpack_psums(input.psum_lo, input.psum_hi);
            let entry = &mut self.assembly[index];
            for (sum, psum) in entry.iter_mut().zip(psums) {
                *sum = if input.psum_acc_first { i64::from(psum) } else { wrap48(*sum + i64::from(psum)) };
            }
            self.events.push(if input.psum_acc_first { "store" } else { "add" });
            if input.psum_acc_last {
                let mut atom = [0; 8];
                for (value, &sum) in atom.iter_mut().zip(entry.iter()) {
                    let (v, saturated) = truncate(sum, input.clip_truncate);
                    *value = v;
                    if saturated {
                        self.sat_count += 1;
                        self.events.push(if sum > 0 { "saturation +" } else { "saturation -" });
                    }
                }
                if full {
                    self.events.push("delivery full: atom dropped");
                } else {
                    self.delivery.push_back((atom, input.psum_layer_last));
                    self.events.push("atom to the delivery buffer");
                }
            }
        }
    }
}

crate::sequential_block!(Cacc, events);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Block;
    use crate::nvdla::cmac::pack_psums;

    /// Hand-worked truncations: ties go away from zero, saturation both ways.
    #[test]
    fn truncation_rounds_half_away_from_zero_and_saturates() {
        assert_eq!(truncate(5, 1), (3, false)); // 2.5
        assert_eq!(truncate(-5, 1), (-3, false)); // -2.5
        assert_eq!(truncate(-7, 2), (-2, false)); // -1.75
        assert_eq!(truncate(-6, 2), (-2, false)); // -1.5
        assert_eq!(truncate(-5, 2), (-1, false)); // -1.25
        assert_eq!(truncate(1, 1), (1, false)); // 0.5
        assert_eq!(truncate(-1, 1), (-1, false)); // -0.5
        assert_eq!(truncate(1 << 31, 0), (i32::MAX, true));
        assert_eq!(truncate(-(1 << 31), 0), (i32::MIN, false));
        assert_eq!(truncate(-(1 << 31) - 1, 0), (i32::MIN, true));
        assert_eq!(truncate((1 << 32) - 1, 1), (i32::MAX, true)); // 2^31 - 0.5 rounds up
        assert_eq!(truncate((1 << 47) - 1, 31), (65536, false));
    }

    fn op(psums: [i32; 8], stripe_first: bool, acc_first: bool, acc_last: bool) -> In {
        let (lo, hi) = pack_psums(psums);
        In { psum_valid: true, psum_lo: lo, psum_hi: hi, psum_stripe_first: stripe_first, psum_acc_first: acc_first, psum_acc_last: acc_last, ..In::default() }
    }

    /// Two stripes of two pixels: store, then add and deliver; SDP stalls one cycle.
    #[test]
    fn stores_adds_and_delivers_in_op_order() {
        let mut cacc = Cacc::default();
        cacc.step(&Cacc::reset_input().unwrap());
        cacc.step(&op([1, 2, 3, 4, 5, 6, 7, 8], true, true, false));
        cacc.step(&op([10; 8], false, true, false));
        assert!(!cacc.step(&op([100; 8], true, false, true)).out_valid);
        let out = cacc.step(&op([-1000; 8], false, false, true));
        assert!(out.out_valid);
        assert_eq!(unpack_atom(out.out_data_lo, out.out_data_hi), [101, 102, 103, 104, 105, 106, 107, 108]);
        let out = cacc.step(&In { out_ready: false, ..In::default() });
        assert_eq!(unpack_atom(out.out_data_lo, out.out_data_hi)[0], 101, "held while SDP is not ready");
        cacc.step(&In { out_ready: true, ..In::default() });
        let out = cacc.step(&In { out_ready: true, ..In::default() });
        assert_eq!(unpack_atom(out.out_data_lo, out.out_data_hi), [-990; 8]);
        assert!(!cacc.step(&In::default()).out_valid);
    }

    /// busy_full above BUSY_FULL_ABOVE atoms; the atom past DELIVERY_DEPTH is dropped.
    #[test]
    fn busy_full_and_a_full_buffer() {
        let mut cacc = Cacc::default();
        cacc.step(&Cacc::reset_input().unwrap());
        for n in 0..=DELIVERY_DEPTH {
            let out = cacc.step(&op([n as i32; 8], true, true, true));
            assert_eq!(out.busy_full, n > BUSY_FULL_ABOVE);
        }
        assert_eq!(cacc.delivery_len(), DELIVERY_DEPTH);
        assert_eq!(cacc.events(), ["busy_full", "SDP stall", "store", "delivery full: atom dropped"]);
    }
}
