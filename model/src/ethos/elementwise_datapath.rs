//! The kernel unit's arithmetic for one OFM element (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §2.2-§2.3; RTL `hdl/src/ethos/elementwise_datapath.rs`): the
//! operands minus their zero points combined by the elementwise ALU ([`combine`],
//! `hdl/src/ethos/elementwise_alu.rs`), a pool's tap and its max, sum or average over padding
//! ([`tap`], [`accumulate_lanes`], [`average_over_padding`], `hdl/src/ethos/pooling_alu.rs`,
//! `pool_lanes.rs`), then the OFM scale,
//! zero point and clamp. Functions of the LATCHed registers and the unit's registers; a part
//! of the [`super::elementwise`] model. The reference executor calls [`combine`] and
//! [`average_over_padding`] as well.
use super::kernel_registers::{scalar, KernelRegisters};
use super::output_unit::{apply_scale, Rounding};

/// Average pooling over padding: the sum over the taps inside the IFM divided by their count,
/// rounded half away from zero (TFLite's `AveragePool`; OFM_SCALE, which assumes a full
/// window, is not used: digest §2.2 "average pool with pad=0"); 0 for no tap.
pub fn average_over_padding(sum: i64, count: i64) -> i64 {
    if count == 0 {
        return 0;
    }
    let half = count / 2;
    if sum >= 0 {
        (sum + half) / count
    } else {
        (sum - half) / count
    }
}

/// The operands `a` and `b` (minus their zero points) combined by ELEMENTWISE `mode` (0 MUL,
/// 1 ADD, 2 SUB, 3 MIN, 4 MAX) with the IFM scale mode and OPA_SCALE (shift, scale) and
/// OPB_SCALE's scale, before the OFM scale (formulas in `hdl/src/ethos/elementwise_alu.rs`).
pub fn combine(mode: u16, scale_mode: u16, a: i64, b: i64, opa: (u16, u32), opb_scale: u32) -> i64 {
    let (opa_shift, opa_scale) = opa;
    let scaled = |v: i64| apply_scale(v << 20, opa_scale, (opa_shift & 0x3f) as u8 + 20, Rounding::Tfl) as i64;
    let (sa, sb) = match scale_mode {
        0 => (a * i64::from(opa_scale & 0xffff), b * i64::from(opb_scale & 0xffff)),
        1 => (scaled(a), b << 19),
        _ => (a << 19, scaled(b)),
    };
    match mode {
        0 => a * b,
        1 => sa + sb,
        2 => sa - sb,
        3 => a.min(b),
        _ => a.max(b),
    }
}

/// The pool's tap (`ky`, `kx`) of OFM element (`y`, `x`): its IFM row and column (16 bits)
/// and whether it is inside the IFM.
pub fn tap(regs: &KernelRegisters, (y, x): (u16, u16), (ky, kx): (u16, u16)) -> (u16, u16, bool) {
    let p = |id| i64::from(regs.param(id));
    let s = p(scalar::KERNEL_STRIDE);
    let (sy, sx) = ((((s >> 9) & 7) << 1 | (s >> 1) & 1) + 1, (((s >> 6) & 7) << 1 | s & 1) + 1);
    let iy = i64::from(y) * sy + i64::from(ky) - p(scalar::IFM_PAD_TOP);
    let ix = i64::from(x) * sx + i64::from(kx) - p(scalar::IFM_PAD_LEFT);
    let h = p(scalar::OFM_HEIGHT_M1) * sy + p(scalar::KERNEL_HEIGHT_M1) + 1 - p(scalar::IFM_PAD_TOP) - p(scalar::IFM_PAD_BOTTOM);
    let w = p(scalar::OFM_WIDTH_M1) * sx + p(scalar::KERNEL_WIDTH_M1) + 1 - p(scalar::IFM_PAD_LEFT) - p(scalar::IFM_PAD_RIGHT);
    (iy as u16, ix as u16, (0..h).contains(&iy) && (0..w).contains(&ix))
}

/// Whether any IFM_PAD register is set (an average then divides by the taps inside).
pub fn padded(regs: &KernelRegisters) -> bool {
    [scalar::IFM_PAD_TOP, scalar::IFM_PAD_LEFT, scalar::IFM_PAD_BOTTOM, scalar::IFM_PAD_RIGHT].iter().any(|&id| regs.param(id) != 0)
}

/// The OFM byte of ELEMENTWISE `mode` on the operands `ifm_byte` and `ifm2_byte` (or the
/// IFM2 scalar).
pub fn value(regs: &KernelRegisters, mode: u8, ifm_byte: u8, ifm2_byte: u8) -> u8 {
    let p = |id| regs.param(id);
    let broadcast = p(scalar::IFM2_BROADCAST);
    let ifm_zp = i64::from(p(scalar::IFM_ZERO_POINT) as i16);
    let ifm2_zp = if p(scalar::IFM2_PRECISION) & 1 != 0 { i64::from(p(scalar::IFM2_ZERO_POINT) as i16) } else { i64::from(p(scalar::IFM2_ZERO_POINT)) };
    let first = i64::from(ifm_byte as i8) - ifm_zp;
    let second = if broadcast & 0x80 != 0 { i64::from(p(scalar::IFM2_SCALAR) as i16) } else { i64::from(ifm2_byte as i8) } - ifm2_zp;
    let (a, b) = if broadcast & 0x40 != 0 { (second, first) } else { (first, second) };
    // 18-bit operands, as the RTL's ALU takes them.
    let wrap18 = |v: i64| (v << 46) >> 46;
    let opa = ((regs.scalar[scalar::OPA_SCALE] >> 32) as u16, regs.scalar[scalar::OPA_SCALE] as u32);
    let r = combine(u16::from(mode), (p(scalar::IFM_PRECISION) >> 8) & 3, wrap18(a), wrap18(b), opa, regs.scalar[scalar::OPB_SCALE] as u32);
    output(regs, (r << 24) >> 24, false) // the ALU's 40 bits
}

/// A pool's running max or sum of 8 lanes after a tap inside the IFM (`hdl/src/ethos/pool_lanes.rs`):
/// lane i takes byte i of `word` minus the IFM zero point; the first tap inside (`count` 0)
/// starts every lane afresh, mode 0 keeps the max, mode 1 sums. An element-at-a-time pool
/// uses lane 0 (its byte shifted there); lanes beyond a map's last channel are computed and
/// never read.
pub fn accumulate_lanes(regs: &KernelRegisters, mode: u8, acc: &mut [i32; 8], count: u32, word: u64) {
    let zero_point = i32::from(regs.param(scalar::IFM_ZERO_POINT) as i16);
    for (i, lane) in acc.iter_mut().enumerate() {
        let a = i32::from((word >> (8 * i)) as u8 as i8) - zero_point;
        *lane = match (count, mode) {
            (0, _) => a,
            (_, 0) => (*lane).max(a),
            _ => lane.wrapping_add(a),
        };
    }
}

/// The OFM byte of a pool (`mode` 0 max, 1 average) over its taps: the max or sum `acc` of
/// `count` taps inside, or their average over padding.
pub fn pool_value(regs: &KernelRegisters, mode: u8, acc: i32, count: u32) -> u8 {
    let unscaled = mode == 0 || padded(regs);
    let r = if mode != 0 && padded(regs) { average_over_padding(i64::from(acc), i64::from(count)) } else { i64::from(acc) };
    output(regs, r, unscaled)
}

/// `r` through the OFM scale (or unscaled: scale 1, shift 0), zero point and clamp.
fn output(regs: &KernelRegisters, r: i64, unscaled: bool) -> u8 {
    let p = |id| regs.param(id);
    let scale = if unscaled { 1 } else { regs.scalar[scalar::OFM_SCALE] };
    let rounding = Rounding::from_bits((p(scalar::OFM_PRECISION) >> 14) as u8);
    let v = apply_scale(r, scale as u32, ((scale >> 32) & 0x3f) as u8, rounding) + i128::from(p(scalar::OFM_ZERO_POINT) as i16);
    v.clamp(i128::from(p(scalar::ACTIVATION_MIN) as i16), i128::from(p(scalar::ACTIVATION_MAX) as i16)) as u8
}
