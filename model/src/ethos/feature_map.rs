//! The feature-map address generator (`hdl/src/ethos/feature_map.rs`, whose comment has the
//! formula and the decisions): one map's registers and the byte address of an element. The
//! reference executor addresses its maps through [`address`] too.
pub use npu_hdl::ethos::feature_map::{BASEP_HIGH, BASEP_LOW, SLOTS};

const MASK40: u64 = (1 << 40) - 1;

/// A map's slots as loaded (40 bits each; slots 13-15 unused).
pub type Slots = [u64; 16];

/// The map's channels are consecutive bytes in NHWC: STRIDE_C is 1 (the RTL's
/// `FeatureMapLayout::contiguous`).
pub fn contiguous(slot: &Slots) -> bool {
    slot[6] == 1
}

/// The map is NHCWB16, 16 channels a brick: `PRECISION[7:6] = 1` (the RTL's
/// `FeatureMapLayout::brick`).
pub fn brick(slot: &Slots) -> bool {
    (slot[10] >> 6) & 3 == 1
}

/// The byte address of element (y, x, c), modulo 2^40.
pub fn address(slot: &Slots, y: u16, x: u16, c: u16) -> u64 {
    let field = |k: usize| (slot[k] & 0xffff) as u16;
    let (h0, h1, w0) = (field(7), field(8), field(9));
    let (tile, ty, tx) = match (x <= w0, y <= if x <= w0 { h0 } else { h1 }) {
        (true, true) => (0, y, x),
        (true, false) => (2, y.wrapping_sub(h0).wrapping_sub(1), x),
        (false, true) => (1, y, x.wrapping_sub(w0).wrapping_sub(1)),
        (false, false) => (3, y.wrapping_sub(h1).wrapping_sub(1), x.wrapping_sub(w0).wrapping_sub(1)),
    };
    let (sx, sy, sc) = (slot[4], slot[5], slot[6]);
    let channel = if brick(slot) { u64::from(c >> 4).wrapping_mul(sc).wrapping_add(u64::from(c & 15)) } else { u64::from(c).wrapping_mul(sc) };
    let region = ((slot[BASEP_HIGH] & 0xff) << 32) | (slot[BASEP_LOW] & 0xffff_ffff);
    region
        .wrapping_add(slot[tile])
        .wrapping_add(u64::from(ty).wrapping_mul(sy))
        .wrapping_add(u64::from(tx).wrapping_mul(sx))
        .wrapping_add(channel)
        & MASK40
}
