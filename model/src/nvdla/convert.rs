//! SDP's output converter (seeds/001 "Single Data Point Processor"; the rounding and
//! saturation are NVDLA's shift-right-saturate). RTL: `npu_hdl::nvdla::convert::Convert`.

/// Bytes per memory atom: nv_small's 8 int8 channels (seeds/001 "Data Formats": the atom is
/// the memory access unit; nv_small's is 8 bytes).
pub const ATOM: u64 = 8;

/// One lane: `(x - offset) * scale`, shifted right by `shift` rounding half away from zero,
/// saturated to int8; a shift of 49 or more (the product's width) gives 0.
pub fn convert(x: i8, offset: i32, scale: i16, shift: u32) -> i8 {
    let product = (i64::from(x) - i64::from(offset)) * i64::from(scale);
    if shift >= 49 {
        return 0;
    }
    let floor = product >> shift;
    let rest = product - (floor << shift);
    let half = if shift == 0 { 0 } else { 1i64 << (shift - 1) };
    // Round up above half; at exactly half, up for positive values (away from zero), down
    // (the floor, also away from zero) for negative ones.
    let rounded = floor + i64::from(shift > 0 && (rest > half || (rest == half && product >= 0)));
    rounded.clamp(i64::from(i8::MIN), i64::from(i8::MAX)) as i8
}

/// The 8 lanes of an atom (lane k in byte k).
pub fn convert_atom(atom: u64, offset: i32, scale: i16, shift: u32) -> u64 {
    let mut out = 0u64;
    for lane in 0..ATOM {
        let x = (atom >> (8 * lane)) as u8 as i8;
        out |= u64::from(convert(x, offset, scale, shift) as u8) << (8 * lane);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::convert;

    /// Hand-worked values of the converter.
    #[test]
    fn converter_rounds_half_away_from_zero_and_saturates() {
        assert_eq!(convert(5, 0, 1, 0), 5);
        assert_eq!(convert(5, 0, 1, 1), 3); // 2.5 -> 3
        assert_eq!(convert(-5, 0, 1, 1), -3); // -2.5 -> -3
        assert_eq!(convert(-5, 0, 3, 2), -4); // -3.75 -> -4
        assert_eq!(convert(-3, 0, 3, 2), -2); // -2.25 -> -2
        assert_eq!(convert(100, -100, 2, 0), 127);
        assert_eq!(convert(1, 0x558f_bb6e, 0x16cc, 10), -128);
        assert_eq!(convert(-128, 0, 1, 49), 0);
    }
}
