//! SDP's output converter (seeds/001 "Single Data Point Processor"; the rounding and
//! saturation are NVDLA's shift-right-saturate). RTL: `npu_hdl::nvdla::convert::Convert`.

/// Bytes per memory atom: nv_small's 8 int8 channels (seeds/001 "Data Formats": the atom is
/// the memory access unit; nv_small's is 8 bytes).
pub const ATOM: u64 = 8;

/// NVDLA's shift-right-saturate on a value of up to 49 bits: `value` shifted right by
/// `shift`, rounded half away from zero, saturated to a `bits`-bit signed number; a shift of
/// 49 or more (the value's width) gives 0. The converter and the X stages' truncation.
pub fn shift_right_saturate(value: i64, shift: u32, bits: u32) -> i64 {
    if shift >= 49 {
        return 0;
    }
    round_shift_saturate(value, shift, bits)
}

/// `value` shifted right by any `shift`, rounded half away from zero, saturated to a
/// `bits`-bit signed number: exact, as NVIDIA's C model's fixed-point shift (`IntShiftRight`,
/// rounding AC_RND_INF, saturating) computes it. The EW stage's truncation of its 64-bit
/// product.
pub fn round_shift_saturate(value: i64, shift: u32, bits: u32) -> i64 {
    // Past 64 every i64 is below a quarter in magnitude: 0. In i128 the steps are exact.
    let (value, shift) = (i128::from(value), shift.min(65));
    let floor = value >> shift;
    let rest = value - (floor << shift);
    let half = if shift == 0 { 0 } else { 1i128 << (shift - 1) };
    // Round up above half; at exactly half, up for positive values (away from zero), down
    // (the floor, also away from zero) for negative ones.
    let rounded = floor + i128::from(shift > 0 && (rest > half || (rest == half && value >= 0)));
    rounded.clamp(-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) as i64
}

/// One lane: `(x - offset) * scale` (33 x 16 bits, exact in 49), shifted right by `shift`
/// rounding half away from zero, saturated to int8.
pub fn convert(x: i32, offset: i32, scale: i16, shift: u32) -> i8 {
    shift_right_saturate((i64::from(x) - i64::from(offset)) * i64::from(scale), shift, 8) as i8
}

/// The 8 converted lanes as an atom (lane k in byte k).
pub fn convert_lanes(lanes: [i32; ATOM as usize], offset: i32, scale: i16, shift: u32) -> u64 {
    lanes.iter().enumerate().fold(0, |out, (lane, &x)| out | u64::from(convert(x, offset, scale, shift) as u8) << (8 * lane))
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
        assert_eq!(convert(i32::MIN, i32::MAX, i16::MIN, 0), 127); // the 33 x 16-bit extreme
        assert_eq!(convert(300, 0, 1, 1), 127);
    }
}
