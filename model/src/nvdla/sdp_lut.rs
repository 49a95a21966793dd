//! SDP's lookup table, the last part of the EW stage (seeds/001 "Single Data Point
//! Processor": Y's LUT; the registers S_LUT_* of RDL NVDLA_SDP), on the 32-bit lanes the EW
//! ALU gives, int8 as nv_small runs it. The arithmetic is NVIDIA's C model's
//! (`cmod/hls/sdp/sdp_y_idx.cpp`, `sdp_y_inp.cpp` and `cmod/hls_wrapper/sdp_hls_wrapper.cpp`,
//! read for their behaviour); docs/nvdla.md "SDP's LUT" says how it differs from CDP's.
//! RTL: `npu_hdl::nvdla::sdp_lut::SdpLut`.
//!
//! Per lane x (int32):
//! - LE table (65 entries): linear (LE_FUNCTION 1): `x <= START` underflows, else
//!   `u = x - START` (1 .. 2^32 - 1), index `u >> SEL` (SEL = LE_INDEX_SELECT, all 8 bits
//!   signed; a negative SEL shifts left), an index of 64 or more overflows, else a hit with
//!   the 35-bit fraction `(u mod 2^SEL) * 2^35 / 2^SEL` (truncated; 0 for a negative SEL).
//!   Exponent (0): `x <= START` underflows; else `log = floor(log2 u)`; `log < LE_INDEX_OFFSET`
//!   (int8) underflows; `log - OFFSET >= 64` overflows; else a hit at index `log - OFFSET`
//!   with the fraction `(u - 2^log) * 2^35 / 2^log`.
//! - LO table (257 entries): linear as LE's, with LO's START and SEL; 256 or more overflows.
//! - The table taken: [`choose`] (as CDP's).
//! - Its value: a hit interpolates `round((y0 * (2^35 - f) + y1 * f) / 2^35)` (entries index
//!   and index + 1); an underflow is `sat32(y0 + sat32(round((x - (bias + START)) * UFLOW_SCALE
//!   / 2^UFLOW_SHIFT)))` with entry 0 as y0, an overflow the same with END, the OFLOW slope
//!   and the last entry. `bias` is `2^LE_INDEX_OFFSET` for an exponent LE underflow with an
//!   offset of 1..31, else 0. The shift is 5-bit signed (negative: a left shift); every
//!   rounding is half away from zero.
use super::cdp_dp::{choose, LutTables, Place, LE_ENTRIES, LO_ENTRIES};
use super::convert::round_shift_saturate;
use super::csb::Csb;
use npu_hdl::nvdla::regmap;

/// Bits of the interpolation fraction (the C model's `yLutFracSize`).
pub const FRACTION_BITS: u32 = 35;

/// One table's slope outside it: scale (int16) and shift (5-bit signed) of the underflow and
/// the overflow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slopes {
    pub uflow_scale: i16,
    pub uflow_shift: i8,
    pub oflow_scale: i16,
    pub oflow_shift: i8,
}

/// The LUT's configuration: SDP's S_LUT_* registers (single, not grouped) and whether the EW
/// stage runs its LUT (D_DP_EW_CFG: EW_BYPASS and EW_LUT_BYPASS both 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LutConfig {
    pub on: bool,
    /// LE_FUNCTION: true linear, false exponent.
    pub le_linear: bool,
    /// UFLOW, OFLOW, HYBRID priorities: true LO.
    pub priorities: [bool; 3],
    pub le_index_offset: i8,
    pub le_index_select: i8,
    pub lo_index_select: i8,
    pub le_start: i32,
    pub le_end: i32,
    pub lo_start: i32,
    pub lo_end: i32,
    pub le: Slopes,
    pub lo: Slopes,
}

/// A 5-bit signed shift field.
fn shift5(value: u32) -> i8 {
    ((value as u8) << 3) as i8 >> 3
}

impl LutConfig {
    /// From SDP's registers as the CSB holds them (the S_LUT_* registers have one copy; the
    /// EW configuration is the consumer group's).
    pub fn from_registers(csb: &Csb) -> Self {
        let sdp = csb.unit("SDP");
        let get = |register: &str, field: &str| {
            let f = regmap::field("SDP", register, field);
            let value = if register.starts_with("D_") { sdp.consumed(register) } else { sdp.get(0, register) };
            (value & f.mask()) >> f.lsb
        };
        let slopes = |table: &str| {
            let scale = |kind: &str| get(&format!("S_LUT_{table}_SLOPE_SCALE"), &format!("LUT_{table}_SLOPE_{kind}_SCALE")) as u16 as i16;
            let shift = |kind: &str| shift5(get(&format!("S_LUT_{table}_SLOPE_SHIFT"), &format!("LUT_{table}_SLOPE_{kind}_SHIFT")));
            Slopes { uflow_scale: scale("UFLOW"), uflow_shift: shift("UFLOW"), oflow_scale: scale("OFLOW"), oflow_shift: shift("OFLOW") }
        };
        LutConfig {
            on: get("D_DP_EW_CFG", "EW_BYPASS") == 0 && get("D_DP_EW_CFG", "EW_LUT_BYPASS") == 0,
            le_linear: get("S_LUT_CFG", "LUT_LE_FUNCTION") != 0,
            priorities: ["UFLOW", "OFLOW", "HYBRID"].map(|p| get("S_LUT_CFG", &format!("LUT_{p}_PRIORITY")) != 0),
            le_index_offset: get("S_LUT_INFO", "LUT_LE_INDEX_OFFSET") as u8 as i8,
            le_index_select: get("S_LUT_INFO", "LUT_LE_INDEX_SELECT") as u8 as i8,
            lo_index_select: get("S_LUT_INFO", "LUT_LO_INDEX_SELECT") as u8 as i8,
            le_start: get("S_LUT_LE_START", "LUT_LE_START") as i32,
            le_end: get("S_LUT_LE_END", "LUT_LE_END") as i32,
            lo_start: get("S_LUT_LO_START", "LUT_LO_START") as i32,
            lo_end: get("S_LUT_LO_END", "LUT_LO_END") as i32,
            le: slopes("LE"),
            lo: slopes("LO"),
        }
    }

    /// One lane: the LUT's result, or `x` when the LUT is off.
    pub fn lane(&self, x: i32, tables: &LutTables) -> i32 {
        if !self.on {
            return x;
        }
        let le = if self.le_linear { linear(x, self.le_start, self.le_index_select, LE_ENTRIES) } else { self.exponent(x) };
        let lo = linear(x, self.lo_start, self.lo_index_select, LO_ENTRIES);
        let (take_lo, _) = choose(le.0, lo.0, self.priorities);
        let ((place, index, fraction), entries, slopes, start, end) =
            if take_lo { (lo, &tables.lo[..], self.lo, self.lo_start, self.lo_end) } else { (le, &tables.le[..], self.le, self.le_start, self.le_end) };
        match place {
            Place::Hit => interpolate(entries[index], entries[index + 1], fraction),
            Place::Under => {
                let bias = if !take_lo && !self.le_linear && (1..32).contains(&self.le_index_offset) { 1i64 << self.le_index_offset } else { 0 };
                slope(entries[0], i64::from(x) - bias - i64::from(start), slopes.uflow_scale, slopes.uflow_shift)
            }
            Place::Over => slope(entries[entries.len() - 1], i64::from(x) - i64::from(end), slopes.oflow_scale, slopes.oflow_shift),
        }
    }

    /// The exponent LE lookup: where it lands, the index and the 35-bit fraction.
    fn exponent(&self, x: i32) -> (Place, usize, u64) {
        if x <= self.le_start {
            return (Place::Under, 0, 0);
        }
        let u = (i64::from(x) - i64::from(self.le_start)) as u64;
        let log = 63 - i64::from(u.leading_zeros());
        let index = log - i64::from(self.le_index_offset);
        if index < 0 {
            (Place::Under, 0, 0)
        } else if index >= LE_ENTRIES as i64 - 1 {
            (Place::Over, 0, 0)
        } else {
            (Place::Hit, index as usize, (u - (1 << log)) << (FRACTION_BITS as i64 - log))
        }
    }
}

/// A linear table of `entries` entries: where `x` lands, the index and the 35-bit fraction.
fn linear(x: i32, start: i32, select: i8, entries: usize) -> (Place, usize, u64) {
    if x <= start {
        return (Place::Under, 0, 0);
    }
    let u = (i64::from(x) - i64::from(start)) as u128;
    let select = i32::from(select);
    let (index, fraction) = if select < 0 {
        // u >= 1: a left shift of 9 or more is past every table.
        (if select <= -9 { u128::MAX } else { u << -select }, 0)
    } else {
        // The bits below the select, aligned to 35 bits (truncated when the select is wider).
        (u >> select, (((u << FRACTION_BITS) >> select) & ((1 << FRACTION_BITS) - 1)) as u64)
    };
    if index >= entries as u128 - 1 {
        (Place::Over, 0, 0)
    } else {
        (Place::Hit, index as usize, fraction)
    }
}

/// `round((y0 * (2^35 - f) + y1 * f) / 2^35)`: the whole value rounded once.
fn interpolate(y0: i16, y1: i16, fraction: u64) -> i32 {
    let (y0, y1, f) = (i64::from(y0), i64::from(y1), fraction as i64);
    round_shift_saturate((y0 << FRACTION_BITS) + (y1 - y0) * f, FRACTION_BITS, 32) as i32
}

/// `sat32(y0 + sat32(round(distance * scale / 2^shift)))`, a negative shift multiplying.
fn slope(y0: i16, distance: i64, scale: i16, shift: i8) -> i32 {
    let product = distance * i64::from(scale);
    let scaled = if shift < 0 {
        (i128::from(product) << -shift).clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i64
    } else {
        round_shift_saturate(product, shift as u32, 32)
    };
    (i64::from(y0) + scaled).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> LutTables {
        let mut t = LutTables::default();
        for (i, e) in t.le.iter_mut().enumerate() {
            *e = -10 * i as i16;
        }
        for (i, e) in t.lo.iter_mut().enumerate() {
            *e = 100 * i as i16;
        }
        t
    }

    /// Hand-worked lookups: each table's under, hit and over, the choice, the slopes.
    #[test]
    fn hand_worked_lookups() {
        let t = tables();
        let on = LutConfig { on: true, le_linear: true, lo_index_select: 2, le_index_select: 1, lo_end: 1024, le_end: 128, ..LutConfig::default() };
        assert_eq!(LutConfig { on: false, ..on }.lane(-77, &t), -77);
        // 10: LO index 2 and a half (250); LE index 5 (-50); both hit: hybrid, LE (priority 0).
        assert_eq!(on.lane(10, &t), -50);
        assert_eq!(LutConfig { priorities: [false, false, true], ..on }.lane(10, &t), 250);
        // 11: LE index 5 and a half: -55; rounding the whole: -55 exactly.
        assert_eq!(on.lane(11, &t), -55);
        // 3 in LO with select 2: 0.75 of 0..100 = 75. LE index 1 and a half, -15: take LO.
        assert_eq!(LutConfig { priorities: [false, false, true], ..on }.lane(3, &t), 75);
        // Rounding the whole value: y0 = 1, y1 = 0, half way: 0.5 -> 1 (a rounded step would give 0).
        let mut half = LutTables::default();
        half.lo[0] = 1;
        assert_eq!(LutConfig { priorities: [false, false, true], le_index_select: 0, lo_index_select: 1, ..on }.lane(1, &half), 1);
        // Both under (x <= 0): LE entry 0 plus the slope: (-4 - 0) * 3 / 2 = -6.
        let slopes = Slopes { uflow_scale: 3, uflow_shift: 1, oflow_scale: -2, oflow_shift: -1 };
        let s = LutConfig { le: slopes, ..on };
        assert_eq!(s.lane(-4, &t), -6);
        assert_eq!(s.lane(-5, &t), -8); // -7.5 -> -8
        // LE over (index 64 or more: x >= 129), LO hit: LO's.
        assert_eq!(s.lane(200, &t), 5000);
        // Both over: OFLOW priority 0: LE's last entry -640 + (2000 - 128) * -2 * 2.
        assert_eq!(s.lane(2000, &t), -640 - 1872 * 4);
        // Exponent LE: 10 - 0 = 10: log 3, index 3 - 1 = 2, fraction 2/8: -20 + -2.5 -> -23 (-22.5 away from zero).
        let e = LutConfig { le_linear: false, le_index_offset: 1, ..s };
        assert_eq!(e.lane(10, &t), -23);
        // Exponent underflow with offset 2: 3 has log 1 < 2: bias 4: (3 - 4) * 3 / 2 = -1.5 -> -2.
        let e2 = LutConfig { le_index_offset: 2, le: Slopes { uflow_scale: 3, uflow_shift: 1, ..slopes }, priorities: [false; 3], lo_start: 100, ..e };
        assert_eq!(e2.lane(3, &t), -2);
        // Offset 0: no bias (the C model adds 2^offset only for an offset above 0): 0 * ... + 0.
        assert_eq!(LutConfig { le_index_offset: 0, lo_start: 100, ..e }.lane(-6, &t), -9);
        // Negative select: u << 5; u = 1 hits index 32 (-320), u = 2 overflows.
        let neg = LutConfig { le_index_select: -5, le_start: 0, priorities: [false; 3], lo_start: 1000, ..s };
        assert_eq!(neg.lane(1, &t), -320);
        assert_eq!(neg.lane(2, &t), -640 + (2 - 128) * -4);
        // Saturation of the slope to int32.
        let big = LutConfig { le: Slopes { uflow_scale: i16::MAX, uflow_shift: -16, ..slopes }, ..on };
        assert_eq!(big.lane(i32::MIN, &t), i32::MIN);
    }
}
