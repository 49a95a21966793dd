//! PDP's arithmetic on one 8-lane atom (seeds/001 "Planar Data Processor"; the exact rules are
//! NVIDIA's C model's, docs/nvdla.md "PDP"). RTL: `npu_hdl::nvdla::pool::Pool`.
use super::convert::ATOM;
use npu_hdl::nvdla::PAD_SIGN_BIT;

/// D_OPERATION_MODE_CFG.POOLING_METHOD.
pub const AVERAGE: u32 = 0;
pub const MAX: u32 = 1;
pub const MIN: u32 = 2;

/// PAD_VALUE_<n>X (`values[n - 1]`) sign-extended from its sign bit; 0 for n = 0 or n > 7.
pub fn pad_value(values: &[u32; 7], n: u64) -> i16 {
    match n {
        1..=7 => {
            let sign = PAD_SIGN_BIT[n as usize - 1];
            let v = values[n as usize - 1] & ((2 << sign) - 1);
            (if v >> sign & 1 != 0 { v as i32 - (2 << sign) } else { v as i32 }) as i16
        }
        _ => 0,
    }
}

/// One pooling step on 8 lanes: from `lanes`, or from the method's identity when `start`;
/// max and min take the atom's lanes when `take`, average adds them and `pad`.
pub fn step(lanes: [i16; 8], atom: Option<u64>, method: u32, start: bool, pad: i16) -> [i16; 8] {
    std::array::from_fn(|k| {
        let base = if !start {
            lanes[k]
        } else {
            match method {
                MAX => -128,
                MIN => 127,
                _ => 0,
            }
        };
        let x = atom.map(|a| i16::from((a >> (8 * k)) as u8 as i8));
        match (method, x) {
            (MAX, Some(x)) => base.max(x),
            (MIN, Some(x)) => base.min(x),
            (AVERAGE, x) => base.wrapping_add(x.unwrap_or(0)).wrapping_add(pad),
            _ => base,
        }
    })
}

/// `p / 2^16` rounded half away from zero.
fn round16(p: i64) -> i64 {
    p.signum() * ((p.abs() + (1 << 15)) >> 16)
}

/// The pooled atom: max and min lanes' low bytes; average's sum times the two reciprocals,
/// each product rounded, and its low byte.
pub fn pooled(lanes: [i16; 8], method: u32, recip_width: u32, recip_height: u32) -> u64 {
    (0..ATOM as usize).fold(0, |out, k| {
        let v = if method == AVERAGE { round16(round16(i64::from(lanes[k]) * i64::from(recip_width)) * i64::from(recip_height)) } else { i64::from(lanes[k]) };
        out | u64::from(v as u8) << (8 * k)
    })
}
