//! CDP's datapath (seeds/001 "Channel Data Processor": local response normalization across
//! channels), int8 as nv_small runs it, one atom a cycle; the arithmetic is that of NVIDIA's
//! C model (docs/nvdla.md "CDP datapath"). RTL: `npu_hdl::nvdla::cdp_dp::CdpDp`.
//!
//! Per output channel c of the atom (lane k of the 16-channel window is channel c - 4 + k):
//! 1. input converter: `x' = sat9(round((x - DATIN_OFFSET[7:0]) * DATIN_SCALE / 2^DATIN_SHIFTER))`;
//! 2. square sum of the NORMALZ_LEN (3, 5, 7, 9) converted channels centred on c, or `x'(c)`
//!    itself with SQSUM_BYPASS;
//! 3. the LE and LO table lookups of the sum ([`lookup`]) and the choice between them;
//! 4. times `x'(c)` unless MUL_BYPASS;
//! 5. output converter: `sat8(round((v - DATOUT_OFFSET[24:0]) * DATOUT_SCALE / 2^DATOUT_SHIFTER))`.
//!
//! Rounding is half away from zero everywhere. Stage 1 (converter, squares, sum) is
//! registered on the edge the window is taken; stage 2 (lookups, multiply, output converter)
//! on the next: the atom comes out [`CDP_DP_LATENCY`] cycles after its window went in.
use super::convert::shift_right_saturate;
use crate::Block;
pub use npu_hdl::nvdla::cdp_dp::CDP_DP_LATENCY;

/// Entries of the LE (raw) and LO (density) tables.
pub const LE_ENTRIES: usize = 65;
pub const LO_ENTRIES: usize = 257;
/// The exponent-underflow term `2^LE_INDEX_OFFSET` is taken as at most `2^40`: every larger
/// one gives the same saturated result (the sum minus the start is within +-2^38 + 2^21, so
/// the difference is below -2^39 either way; times a non-zero slope and shifted right by at
/// most 15 it is beyond int16).
pub const UFLOW_OFFSET_CAP: u32 = 40;

/// Every input port (the rust-hdl names); the configuration is held during a layer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub reset: bool,
    pub in_valid: bool,
    /// 16 int8 channels, lane k in bits 8k+7..8k: 4 before the atom, its 8, 4 after.
    pub in_window: u128,
    /// D_LRN_CFG.NORMALZ_LEN: 0..3 for 3, 5, 7, 9 channels.
    pub normalz_len: u8,
    pub datin_offset: u16,
    pub datin_scale: u16,
    pub datin_shifter: u8,
    pub datout_offset: u32,
    pub datout_scale: u16,
    pub datout_shifter: u8,
    pub sqsum_bypass: bool,
    pub mul_bypass: bool,
    /// S_LUT_CFG: LE function 1 linear, 0 exponent; the priorities 1 LO, 0 LE.
    pub lut_le_function: bool,
    pub lut_uflow_priority: bool,
    pub lut_oflow_priority: bool,
    pub lut_hybrid_priority: bool,
    /// S_LUT_INFO: LE_INDEX_OFFSET (int8), and bits 5..0 of each INDEX_SELECT (signed).
    pub lut_le_index_offset: u8,
    pub lut_le_index_select: u8,
    pub lut_lo_index_select: u8,
    /// {S_LUT_*_HIGH (6 bits), S_LUT_*_LOW (32)}: 38-bit signed.
    pub lut_le_start: u64,
    pub lut_le_end: u64,
    pub lut_lo_start: u64,
    pub lut_lo_end: u64,
    /// Slope scales (int16) and shifts (5-bit signed: a negative shift multiplies).
    pub lut_le_slope_uflow_scale: u16,
    pub lut_le_slope_oflow_scale: u16,
    pub lut_lo_slope_uflow_scale: u16,
    pub lut_lo_slope_oflow_scale: u16,
    pub lut_le_slope_uflow_shift: u8,
    pub lut_le_slope_oflow_shift: u8,
    pub lut_lo_slope_uflow_shift: u8,
    pub lut_lo_slope_oflow_shift: u8,
    /// LUT write port: table 0 LE, 1 LO; an address past the table's end is ignored.
    pub lut_we: bool,
    pub lut_table: bool,
    pub lut_addr: u16,
    pub lut_wdata: u16,
    /// LUT read port (combinational; 0 past the table's end).
    pub lut_rtable: bool,
    pub lut_raddr: u16,
}

/// Every output port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub out_valid: bool,
    /// 8 int8 results, lane k in bits 8k+7..8k.
    pub out_atom: u64,
    pub lut_rdata: u16,
    /// With `out_valid`: how many of the atom's 8 lookups were underflows of both tables,
    /// overflows of both, LE hits only, LO hits only, the rest (hybrid: D_PERF_LUT_*), and
    /// how many output conversions saturated (D_OUT_SATURATION's rule, [`convert_out`]).
    pub perf_uflow: u8,
    pub perf_oflow: u8,
    pub perf_le_hit: u8,
    pub perf_lo_hit: u8,
    pub perf_hybrid: u8,
    pub perf_saturation: u8,
}

/// Where a lookup landed in one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Under,
    Hit,
    Over,
}

/// Which result a lookup took, counted in the perf outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Uflow,
    Oflow,
    LeHit,
    LoHit,
    Hybrid,
}

fn signed(value: u64, bits: u32) -> i64 {
    ((value << (64 - bits)) as i64) >> (64 - bits)
}

/// The input converter on one int8 channel: 9-bit signed.
pub fn convert_in(x: i8, input: &In) -> i16 {
    let difference = i64::from(x) - i64::from(input.datin_offset as u8 as i8);
    shift_right_saturate(difference * i64::from(input.datin_scale as i16), u32::from(input.datin_shifter & 31), 9) as i16
}

/// Stage 1 of the 8 lanes: the value the lookups take (the square sum, or the converted
/// channel with SQSUM_BYPASS) and the converted channel the result is multiplied by.
pub fn stage1(window: u128, input: &In) -> ([i32; 8], [i16; 8]) {
    let converted: [i16; 16] = std::array::from_fn(|k| convert_in((window >> (8 * k)) as u8 as i8, input));
    let half = 1 + usize::from(input.normalz_len & 3);
    let sums = std::array::from_fn(|c| {
        if input.sqsum_bypass {
            i32::from(converted[c + 4])
        } else {
            converted[c + 4 - half..=c + 4 + half].iter().map(|&v| i32::from(v) * i32::from(v)).sum()
        }
    });
    (sums, std::array::from_fn(|c| converted[c + 4]))
}

/// `value / 2^shift` rounded half away from zero, or `value * 2^-shift` for a negative shift.
fn scale_shift(value: i64, shift: i32) -> i64 {
    if shift < 0 {
        value << -shift
    } else {
        value.signum() * ((value.abs() + ((1i64 << shift) >> 1)) >> shift)
    }
}

fn sat16(value: i64) -> i16 {
    value.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// A slope outside the table: `entry + scale_shift(distance * slope, shift)`, saturated. The
/// product is clamped to +-2^34 first (beyond that the result saturates whatever the shift).
fn slope(entry: i16, distance: i64, slope: u16, shift: u8) -> i16 {
    let product = (distance * i64::from(slope as i16)).clamp(-(1 << 34), 1 << 34);
    sat16(i64::from(entry) + scale_shift(product, signed(u64::from(shift), 5) as i32))
}

/// Interpolation between two entries with a 16-bit fraction.
fn interpolate(table: &[i16], index: usize, fraction: i64) -> i16 {
    let (low, high) = (i64::from(table[index]), i64::from(table[index + 1]));
    sat16(low + scale_shift((high - low) * fraction, 16))
}

/// The fraction below `2^bits`, as 16 bits.
fn fraction16(rest: i64, bits: i32) -> i64 {
    if bits > 16 {
        rest >> (bits - 16)
    } else {
        rest << (16 - bits)
    }
}

/// A linear table of `table.len()` entries: index `(sum - start) >> select` (a negative
/// select shifts left and interpolates nothing).
#[allow(clippy::too_many_arguments)]
fn linear(table: &[i16], sum: i64, start: u64, end: u64, select: u8, slopes: (u16, u8, u16, u8)) -> (i16, Place) {
    let last = table.len() - 1;
    let below = sum - signed(start, 38);
    let select = signed(u64::from(select), 6) as i32;
    if below <= 0 {
        return (slope(table[0], below, slopes.0, slopes.1), Place::Under);
    }
    let index = if select < 0 { i128::from(below) << -select } else { i128::from(below >> select) };
    if index >= last as i128 {
        return (slope(table[last], sum - signed(end, 38), slopes.2, slopes.3), Place::Over);
    }
    let fraction = if select < 0 { 0 } else { fraction16(below & ((1i64 << select) - 1), select) };
    (interpolate(table, index as usize, fraction), Place::Hit)
}

/// The LE table with the exponent function: index `floor(log2(sum - start)) - LE_INDEX_OFFSET`.
fn exponent(table: &[i16], sum: i64, input: &In) -> (i16, Place) {
    let below = sum - signed(input.lut_le_start, 38);
    let offset = i64::from(input.lut_le_index_offset as i8);
    let log = if below > 0 { 63 - i64::from(below.leading_zeros()) } else { 0 };
    let index = log - offset;
    if below <= 0 || index < 0 {
        let uflow_offset = if offset < 0 { 0 } else { 1i64 << offset.min(i64::from(UFLOW_OFFSET_CAP)) };
        return (slope(table[0], below - uflow_offset, input.lut_le_slope_uflow_scale, input.lut_le_slope_uflow_shift), Place::Under);
    }
    if index >= 64 {
        return (slope(table[64], sum - signed(input.lut_le_end, 38), input.lut_le_slope_oflow_scale, input.lut_le_slope_oflow_shift), Place::Over);
    }
    let fraction = fraction16(below - (1i64 << log), log as i32);
    (interpolate(table, index as usize, fraction), Place::Hit)
}

/// Both lookups of one sum and the result chosen by the priorities of S_LUT_CFG.
pub fn lookup(sum: i32, input: &In, le: &[i16], lo: &[i16]) -> (i16, Choice) {
    let sum = i64::from(sum);
    let (le_value, le_place) = if input.lut_le_function {
        let slopes = (input.lut_le_slope_uflow_scale, input.lut_le_slope_uflow_shift, input.lut_le_slope_oflow_scale, input.lut_le_slope_oflow_shift);
        linear(le, sum, input.lut_le_start, input.lut_le_end, input.lut_le_index_select, slopes)
    } else {
        exponent(le, sum, input)
    };
    let slopes = (input.lut_lo_slope_uflow_scale, input.lut_lo_slope_uflow_shift, input.lut_lo_slope_oflow_scale, input.lut_lo_slope_oflow_shift);
    let (lo_value, lo_place) = linear(lo, sum, input.lut_lo_start, input.lut_lo_end, input.lut_lo_index_select, slopes);
    let priorities = [input.lut_uflow_priority, input.lut_oflow_priority, input.lut_hybrid_priority];
    let (take_lo, choice) = choose(le_place, lo_place, priorities);
    (if take_lo { lo_value } else { le_value }, choice)
}

/// The table a lookup takes (true: LO) and which case it is, from where it landed in each
/// table and S_LUT_CFG's priorities [UFLOW, OFLOW, HYBRID] (1 LO, 0 LE): both under: UFLOW's;
/// both over: OFLOW's; one hit only: that one; both hit, or one under and one over: HYBRID's.
/// CDP's and SDP's LUTs choose alike (NVIDIA's C model, `cmod/cdp` and `sdp_y_idx.cpp`).
pub fn choose(le: Place, lo: Place, priorities: [bool; 3]) -> (bool, Choice) {
    match (le, lo) {
        (Place::Under, Place::Under) => (priorities[0], Choice::Uflow),
        (Place::Over, Place::Over) => (priorities[1], Choice::Oflow),
        (Place::Hit, Place::Under | Place::Over) => (false, Choice::LeHit),
        (Place::Under | Place::Over, Place::Hit) => (true, Choice::LoHit),
        _ => (priorities[2], Choice::Hybrid),
    }
}

/// The LE and LO tables of 16-bit entries, reset to 0 (CDP's and SDP's alike); an address
/// past a table's end writes nothing and reads 0.
#[derive(Clone, Debug)]
pub struct LutTables {
    pub le: [i16; LE_ENTRIES],
    pub lo: [i16; LO_ENTRIES],
}

impl Default for LutTables {
    fn default() -> Self {
        Self { le: [0; LE_ENTRIES], lo: [0; LO_ENTRIES] }
    }
}

impl LutTables {
    /// Entry `addr` of table `table` (false LE, true LO).
    pub fn read(&self, table: bool, addr: u16) -> u16 {
        let entries: &[i16] = if table { &self.lo } else { &self.le };
        entries.get(usize::from(addr)).map_or(0, |&v| v as u16)
    }

    pub fn write(&mut self, table: bool, addr: u16, data: u16) {
        let entries: &mut [i16] = if table { &mut self.lo } else { &mut self.le };
        if let Some(entry) = entries.get_mut(usize::from(addr)) {
            *entry = data as i16;
        }
    }
}

/// The output converter on one lane's 25-bit value: the int8 result, and whether it counts
/// as saturated (the C model counts it when the result is more than 1 from the value's
/// floor shift).
pub fn convert_out(value: i32, input: &In) -> (i8, bool) {
    let product = (i64::from(value) - signed(u64::from(input.datout_offset), 25)) * i64::from(input.datout_scale as i16);
    let shift = u32::from(input.datout_shifter & 63);
    let result = shift_right_saturate(product, shift, 8);
    (result as i8, (result - (product >> shift)).abs() > 1)
}

/// The CDP datapath: its two tables and two pipeline stages.
pub struct CdpDp {
    tables: LutTables,
    /// Stage 1: valid, sums, converted centre channels.
    stage1: (bool, [i32; 8], [i16; 8]),
    out: Out,
    events: Vec<&'static str>,
}

impl Default for CdpDp {
    fn default() -> Self {
        Self { tables: LutTables::default(), stage1: (false, [0; 8], [0; 8]), out: Out::default(), events: Vec::new() }
    }
}

impl CdpDp {
    /// Stage 2 of the registered stage 1, with `input`'s configuration: the next outputs.
    fn stage2(&self, input: &In) -> Out {
        let (valid, sums, centres) = self.stage1;
        let mut out = Out { out_valid: valid, lut_rdata: 0, ..Out::default() };
        for lane in 0..8 {
            let (result, choice) = lookup(sums[lane], input, &self.tables.le, &self.tables.lo);
            let value = if input.mul_bypass { i32::from(result) } else { i32::from(result) * i32::from(centres[lane]) };
            let (byte, saturated) = convert_out(value, input);
            out.out_atom |= u64::from(byte as u8) << (8 * lane);
            let counter = match choice {
                Choice::Uflow => &mut out.perf_uflow,
                Choice::Oflow => &mut out.perf_oflow,
                Choice::LeHit => &mut out.perf_le_hit,
                Choice::LoHit => &mut out.perf_lo_hit,
                Choice::Hybrid => &mut out.perf_hybrid,
            };
            *counter += 1;
            out.perf_saturation += u8::from(saturated);
        }
        out
    }
}

impl Block for CdpDp {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, input: &In) -> Out {
        let out = Out { lut_rdata: self.tables.read(input.lut_rtable, input.lut_raddr), ..self.out.clone() };
        self.events.clear();
        if input.reset {
            *self = Self::default();
            return out;
        }
        self.events.push(match (input.in_valid, self.stage1.0, input.lut_we) {
            (_, _, true) => "lut write",
            (true, _, _) => "window in",
            (false, true, _) => "atom out",
            _ => "idle",
        });
        self.out = self.stage2(input);
        let (sums, centres) = stage1(input.in_window, input);
        self.stage1 = (input.in_valid, sums, centres);
        if input.lut_we {
            self.tables.write(input.lut_table, input.lut_addr, input.lut_wdata);
        }
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked values of the converters and both kinds of table.
    #[test]
    fn hand_worked_lookups_and_conversions() {
        let half = In { datin_scale: 1, datin_shifter: 1, ..In::default() };
        assert_eq!(convert_in(5, &half), 3); // 2.5 -> 3
        assert_eq!(convert_in(-5, &half), -3); // -2.5 -> -3
        let wide = In { datin_offset: 0xff80, datin_scale: 2, ..In::default() }; // offset -128
        assert_eq!(convert_in(127, &wide), 255); // 510 saturates to 9 bits
        assert_eq!(convert_in(-128, &wide), 0);

        let lo: Vec<i16> = (0..LO_ENTRIES as i16).map(|i| 100 * i).collect();
        let le: Vec<i16> = (0..LE_ENTRIES as i16).map(|i| -10 * i).collect();
        // LO linear from 0, 4 per entry (select 2); LE exponent from 0, offset 0.
        let cfg = In { lut_lo_index_select: 2, lut_lo_end: 1024, lut_lo_slope_oflow_scale: 3, lut_lo_slope_oflow_shift: 1, lut_hybrid_priority: true, ..In::default() };
        // 10 = entry 2 and a half: 200 + 50 in LO; log2(10) = 3, 2/8 of the way from -30 to
        // -40 in LE (-32.5 -> -33); both hit: hybrid, LO chosen.
        assert_eq!(lookup(10, &cfg, &le, &lo), (250, Choice::Hybrid));
        assert_eq!(lookup(10, &In { lut_hybrid_priority: false, ..cfg.clone() }, &le, &lo), (-33, Choice::Hybrid));
        // 0: both underflow (slopes 0): LE's entry 0 (UFLOW_PRIORITY 0).
        assert_eq!(lookup(0, &cfg, &le, &lo), (0, Choice::Uflow));
        // 1030: LO overflows (index 257); LE hits entry 10 (log2 1030 = 10), 6/1024 of the way
        // to -110 (rounds to -100); one hit only: LE's.
        assert_eq!(lookup(1030, &cfg, &le, &lo), (-100, Choice::LeHit));
        // LE underflow with offset 4 (log2 10 = 3 < 4), LO hit: LO's 250.
        assert_eq!(lookup(10, &In { lut_le_index_offset: 4, ..cfg.clone() }, &le, &lo), (250, Choice::LoHit));

        // Output: (v - 0) * 1 >> 0, saturated; more than 1 away from the floor counts.
        let out = In { datout_scale: 1, ..In::default() };
        assert_eq!(convert_out(100, &out), (100, false));
        assert_eq!(convert_out(128, &out), (127, false)); // 1 away: the C model does not count it
        assert_eq!(convert_out(-200, &out), (-128, true));
        assert_eq!(convert_out(5, &In { datout_shifter: 1, ..out.clone() }), (3, false)); // 2.5 -> 3
    }
}
