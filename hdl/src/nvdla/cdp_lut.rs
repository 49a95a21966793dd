//! CDP's lookup tables and their lookups (seeds/001 "Channel Data Processor", the LE and LO
//! tables of S_LUT_*; the arithmetic is NVIDIA's C model's, docs/nvdla.md "CDP datapath"):
//! the two tables (65 LE and 257 LO entries of 16 bits, reset to 0) with a write port and a
//! combinational read port for the CSB, and the lookup of each of 8 lanes' sums in both tables
//! with the choice between them. The arithmetic is Verilog for its exact signed widths, as
//! in [`super::convert::Convert`]. Model: `npu_model::nvdla::cdp_dp::lookup`.
//!
//! - Linear table of N entries (LO always, LE when LE_FUNCTION is 1): `d = sum - START`
//!   (38-bit signed START: 39 bits). `d <= 0` is an underflow; else the index is `d >> SEL`
//!   (SEL = INDEX_SELECT[5:0], signed; a negative SEL shifts left and leaves no fraction), an
//!   index of N - 1 or more an overflow, else a hit interpolating entries index and index + 1
//!   with the 16-bit fraction (the bits below SEL, aligned to 16).
//! - Exponent LE (LE_FUNCTION 0): `i = floor(log2 d) - LE_INDEX_OFFSET` (int8); `d <= 0` or
//!   `i < 0` an underflow (its distance `d - 2^LE_INDEX_OFFSET`, the power taken as 1 for a
//!   negative offset and capped at 2^40, which gives the same saturated result as any
//!   larger one), `i >= 64` an overflow, else a hit with the fraction `d - 2^floor(log2 d)`
//!   aligned to 16 bits.
//! - Underflow: `entry[0] + round(distance * UFLOW_SCALE / 2^UFLOW_SHIFT)`, overflow:
//!   `entry[N - 1] + round((sum - END) * OFLOW_SCALE / 2^OFLOW_SHIFT)`, the shift 5-bit signed
//!   (negative: a left shift), the product clamped to +-2^34 (the result saturates beyond);
//!   hit: `entry[i] + round((entry[i + 1] - entry[i]) * fraction / 2^16)`. Rounding half
//!   away from zero, results saturated to int16.
//! - Both underflow: UFLOW_PRIORITY picks (1 LO, 0 LE); both overflow: OFLOW_PRIORITY; one
//!   hit only: that one; otherwise (both hit, or one under and one over): HYBRID_PRIORITY.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CdpLut {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Table 0 LE, 1 LO; an address past the table's end writes nothing and reads 0.
    pub lut_we: Signal<In, Bit>,
    pub lut_table: Signal<In, Bit>,
    pub lut_addr: Signal<In, Bits<10>>,
    pub lut_wdata: Signal<In, Bits<16>>,
    pub lut_rtable: Signal<In, Bit>,
    pub lut_raddr: Signal<In, Bits<10>>,
    pub lut_rdata: Signal<Out, Bits<16>>,
    /// Lane c's sum, 22-bit signed, in bits 22c+21..22c.
    pub sums: Signal<In, Bits<176>>,
    pub le_function: Signal<In, Bit>,
    pub uflow_priority: Signal<In, Bit>,
    pub oflow_priority: Signal<In, Bit>,
    pub hybrid_priority: Signal<In, Bit>,
    pub le_index_offset: Signal<In, Bits<8>>,
    pub le_index_select: Signal<In, Bits<8>>,
    pub lo_index_select: Signal<In, Bits<8>>,
    pub le_start: Signal<In, Bits<38>>,
    pub le_end: Signal<In, Bits<38>>,
    pub lo_start: Signal<In, Bits<38>>,
    pub lo_end: Signal<In, Bits<38>>,
    pub le_uflow_scale: Signal<In, Bits<16>>,
    pub le_oflow_scale: Signal<In, Bits<16>>,
    pub lo_uflow_scale: Signal<In, Bits<16>>,
    pub lo_oflow_scale: Signal<In, Bits<16>>,
    pub le_uflow_shift: Signal<In, Bits<5>>,
    pub le_oflow_shift: Signal<In, Bits<5>>,
    pub lo_uflow_shift: Signal<In, Bits<5>>,
    pub lo_oflow_shift: Signal<In, Bits<5>>,
    /// Lane c's chosen result, int16, in bits 16c+15..16c.
    pub results: Signal<Out, Bits<128>>,
    /// How many of the 8 lanes underflowed both tables, overflowed both, hit LE only, LO
    /// only, or none of those (hybrid).
    pub uflow: Signal<Out, Bits<4>>,
    pub oflow: Signal<Out, Bits<4>>,
    pub le_hit: Signal<Out, Bits<4>>,
    pub lo_hit: Signal<Out, Bits<4>>,
    pub hybrid: Signal<Out, Bits<4>>,
}

/// Functions shared by every lane: int16 saturation, a slope outside a table, the
/// interpolation between two entries, a fraction aligned to 16 bits, floor(log2).
const FUNCTIONS: &str = "\
function automatic [15:0] slope_value(input [15:0] entry, input [41:0] distance, input [15:0] scale, input [4:0] shift);
    reg signed [57:0] product;
    reg signed [35:0] clamped;
    reg [35:0] rounded;
    reg signed [52:0] moved;
    begin
        product = $signed({{16{distance[41]}}, distance}) * $signed({{42{scale[15]}}, scale});
        clamped = product > 58'sh4_0000_0000 ? 36'sh4_0000_0000 : product < -58'sh4_0000_0000 ? -36'sh4_0000_0000 : product[35:0];
        rounded = round36(clamped, shift[3:0]);
        if (shift[4]) moved = $signed({{17{clamped[35]}}, clamped}) <<< (5'd0 - shift);
        else moved = $signed({{17{rounded[35]}}, rounded});
        slope_value = sat16(moved + {{37{entry[15]}}, entry});
    end
endfunction
function automatic [15:0] interpolate(input [15:0] low, input [15:0] high, input [15:0] fraction);
    reg signed [33:0] product;
    reg signed [33:0] step;
    begin
        product = ($signed({{18{high[15]}}, high}) - $signed({{18{low[15]}}, low})) * $signed({18'h0, fraction});
        step = round34(product, 5'd16);
        interpolate = sat16({{19{step[33]}}, step} + {{37{low[15]}}, low});
    end
endfunction
function automatic [15:0] fraction16(input [38:0] rest, input [5:0] bits);
    reg [38:0] aligned_unused_above_15;
    begin
        aligned_unused_above_15 = bits > 6'd16 ? rest >> (bits - 6'd16) : rest << (6'd16 - bits);
        fraction16 = aligned_unused_above_15[15:0];
    end
endfunction
function automatic [5:0] log2_floor(input [38:0] v);
    integer i;
    begin
        log2_floor = 6'd0;
        for (i = 0; i < 39; i = i + 1) if (v[i]) log2_floor = i[5:0];
    end
endfunction
wire unused_selects = ^{le_index_select[7:6], lo_index_select[7:6]};
wire [41:0] uflow_power = le_index_offset[7] ? 42'h0 : 42'h1 << (le_index_offset[6:0] > 7'd40 ? 7'd40 : le_index_offset[6:0]);
";

/// The LE (65) and LO (257) tables of 16-bit entries with their write port (`lut_we`,
/// `lut_table`, `lut_addr`, `lut_wdata`) and combinational read port (`lut_rtable`,
/// `lut_raddr` -> `lut_rdata`); an address past a table's end writes nothing and reads 0.
/// CDP's and SDP's LUTs (`super::super::sdp_lut::SdpLut`) alike; [`entry`] reads them.
pub const TABLES: &str = "\
// The tables read 0 until written after a reset: one written bit per entry is reset, not
// the entries (a memory array has no reset).
reg [15:0] le_mem [0:64];
reg [15:0] lo_mem [0:256];
reg [64:0] le_written;
reg [256:0] lo_written;
always @(posedge clock) begin
    if (reset) begin
        le_written <= 65'h0;
        lo_written <= 257'h0;
    end else if (lut_we) begin
        if (!lut_table && lut_addr < 10'd65) begin
            le_mem[lut_addr[6:0]] <= lut_wdata;
            le_written[lut_addr[6:0]] <= 1'b1;
        end
        if (lut_table && lut_addr < 10'd257) begin
            lo_mem[lut_addr[8:0]] <= lut_wdata;
            lo_written[lut_addr[8:0]] <= 1'b1;
        end
    end
end
always @(*) lut_rdata = lut_rtable ? (lut_raddr < 10'd257 ? (lo_written[lut_raddr[8:0]] ? lo_mem[lut_raddr[8:0]] : 16'h0) : 16'h0) : (lut_raddr < 10'd65 ? (le_written[lut_raddr[6:0]] ? le_mem[lut_raddr[6:0]] : 16'h0) : 16'h0);
";

/// Verilog function `sat{to}`: a signed `from`-bit value saturated to `to` bits (CDP's and
/// SDP's LUTs).
pub fn saturate_function(from: u32, to: u32) -> String {
    let max = (1u64 << (to - 1)) - 1;
    format!(
        "function automatic [{t}:0] sat{to}(input [{f}:0] v);\n    sat{to} = $signed(v) > {from}'sd{max} ? {to}'h{max:x} : $signed(v) < -{from}'sd{min} ? {to}'h{min:x} : v[{t}:0];\nendfunction\n",
        t = to - 1,
        f = from - 1,
        min = max + 1,
    )
}

/// Verilog function `round{width}(v, shift)`: the signed `width`-bit `v` divided by
/// 2^`shift` (a `shift_bits`-bit amount), rounded half away from zero (the magnitude
/// rounded, the sign put back), `width` bits (CDP's and SDP's LUTs).
pub fn round_function(width: u32, shift_bits: u32) -> String {
    format!(
        "function automatic [{m}:0] round{width}(input [{m}:0] v, input [{s}:0] shift);\n    \
         reg [{m}:0] magnitude;\n    reg [{m}:0] rounded;\n    begin\n        \
         magnitude = v[{m}] ? -v : v;\n        \
         rounded = (magnitude + (({width}'h1 << shift) >> 1)) >> shift;\n        \
         round{width} = v[{m}] ? -rounded : rounded;\n    end\nendfunction\n",
        m = width - 1,
        s = shift_bits - 1,
    )
}

/// The per-table wires of a linear lookup shared by the lanes: the select's sign, its
/// left shift, the largest `d` whose left-shifted index is still in the table, the mask of
/// the fraction bits.
fn linear_table(t: &str, last: u32) -> String {
    format!(
        "wire {t}_neg = {t}_index_select[5];\n\
         wire [5:0] {t}_sel = {t}_index_select[5:0];\n\
         wire [5:0] {t}_left = 6'd0 - {t}_sel;\n\
         wire [38:0] {t}_limit = 39'd{} >> {t}_left;\n\
         wire [38:0] {t}_mask = (39'h1 << {t}_sel[4:0]) - 39'h1;\n\
         wire signed [38:0] {t}_start_wide = $signed({{{t}_start[37], {t}_start}});\n\
         wire signed [38:0] {t}_end_wide = $signed({{{t}_end[37], {t}_end}});\n",
        last - 1
    )
}

/// Lane `c`'s linear lookup in table `t` of `last + 1` entries, indexed with `iw` bits.
fn linear_lane(t: &str, c: usize, last: u32, iw: u32) -> String {
    format!(
        "wire signed [38:0] {t}_d{c} = sum{c} - {t}_start_wide;\n\
         wire {t}_pos{c} = {t}_d{c} > 39'sd0;\n\
         wire [38:0] {t}_ud{c} = {t}_d{c};\n\
         wire [38:0] {t}_right{c} = {t}_ud{c} >> {t}_sel;\n\
         wire [38:0] {t}_index_wide{c} = {t}_neg ? {t}_ud{c} << {t}_left : {t}_right{c};\n\
         wire [{ih}:0] {t}_index{c} = {t}_index_wide{c}[{ih}:0];\n\
         wire unused_{t}_index{c} = ^{t}_index_wide{c}[38:{iw}];\n\
         wire {t}_lin_over{c} = {t}_pos{c} && ({t}_neg ? {t}_ud{c} > {t}_limit : {t}_right{c} >= 39'd{last});\n\
         wire [15:0] {t}_frac{c} = {t}_neg ? 16'h0 : fraction16({t}_ud{c} & {t}_mask, {t}_sel);\n\
         wire [{iw}:0] {t}_next{c} = {{1'b0, {t}_index{c}}} + {iw1}'d1;\n\
         wire [15:0] {t}_lin_hit_v{c} = interpolate({}, {}, {t}_frac{c});\n\
         wire [15:0] {t}_under_v{c} = slope_value({}, {{{{3{{{t}_d{c}[38]}}}}, {t}_d{c}}}, {t}_uflow_scale, {t}_uflow_shift);\n\
         wire signed [38:0] {t}_above{c} = sum{c} - {t}_end_wide;\n\
         wire [15:0] {t}_over_v{c} = slope_value({}, {{{{3{{{t}_above{c}[38]}}}}, {t}_above{c}}}, {t}_oflow_scale, {t}_oflow_shift);\n",
        entry(t, &format!("{{1'b0, {t}_index{c}}}")),
        entry(t, &format!("{t}_next{c}")),
        entry(t, "0"),
        entry(t, &last.to_string()),
        ih = iw - 1,
        iw1 = iw + 1,
    )
}

/// Entry `index` of table `t` (`le` or `lo`): its value when written since the reset, else 0.
pub fn entry(t: &str, index: &str) -> String {
    format!("({t}_written[{index}] ? {t}_mem[{index}] : 16'h0)")
}

impl Logic for CdpLut {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::cdp_dp`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.lut_rdata.connect();
        self.results.connect();
        self.uflow.connect();
        self.oflow.connect();
        self.le_hit.connect();
        self.lo_hit.connect();
        self.hybrid.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = saturate_function(53, 16) + &round_function(36, 4) + &round_function(34, 5) + FUNCTIONS + TABLES;
        body += &linear_table("le", 64);
        body += &linear_table("lo", 256);
        let mut results = Vec::new();
        let mut counts: [Vec<String>; 5] = Default::default();
        for c in 0..8 {
            let (hi, lo) = (22 * c + 21, 22 * c);
            body += &format!("wire signed [38:0] sum{c} = $signed({{{{17{{sums[{hi}]}}}}, sums[{hi}:{lo}]}});\n");
            body += &linear_lane("le", c, 64, 6);
            body += &linear_lane("lo", c, 256, 8);
            body += &format!(
                "wire [5:0] e_log{c} = log2_floor(le_ud{c});\n\
                 wire signed [9:0] e_index{c} = $signed({{4'h0, e_log{c}}}) - $signed({{{{2{{le_index_offset[7]}}}}, le_index_offset}});\n\
                 wire e_under{c} = !le_pos{c} || e_index{c}[9];\n\
                 wire e_over{c} = !e_under{c} && e_index{c} >= 10'sd64;\n\
                 wire [41:0] e_distance{c} = {{{{3{{le_d{c}[38]}}}}, le_d{c}}} - uflow_power;\n\
                 wire [15:0] e_under_v{c} = slope_value({le0}, e_distance{c}, le_uflow_scale, le_uflow_shift);\n\
                 wire [38:0] e_rest{c} = le_ud{c} - (39'h1 << e_log{c});\n\
                 wire [6:0] e_next{c} = {{1'b0, e_index{c}[5:0]}} + 7'd1;\n\
                 wire [15:0] e_hit_v{c} = interpolate({e_low}, {e_high}, fraction16(e_rest{c}, e_log{c}));\n\
                 wire le_under{c} = le_function ? !le_pos{c} : e_under{c};\n\
                 wire le_over{c} = le_function ? le_lin_over{c} : e_over{c};\n\
                 wire le_hits{c} = !le_under{c} && !le_over{c};\n\
                 wire [15:0] le_v{c} = le_under{c} ? (le_function ? le_under_v{c} : e_under_v{c}) : le_over{c} ? le_over_v{c} : le_function ? le_lin_hit_v{c} : e_hit_v{c};\n\
                 wire lo_under{c} = !lo_pos{c};\n\
                 wire lo_hits{c} = lo_pos{c} && !lo_lin_over{c};\n\
                 wire [15:0] lo_v{c} = lo_under{c} ? lo_under_v{c} : lo_lin_over{c} ? lo_over_v{c} : lo_lin_hit_v{c};\n\
                 wire is_uflow{c} = le_under{c} && lo_under{c};\n\
                 wire is_oflow{c} = le_over{c} && lo_lin_over{c};\n\
                 wire is_le{c} = !is_uflow{c} && !is_oflow{c} && le_hits{c} && !lo_hits{c};\n\
                 wire is_lo{c} = !is_uflow{c} && !is_oflow{c} && lo_hits{c} && !le_hits{c};\n\
                 wire is_hybrid{c} = !is_uflow{c} && !is_oflow{c} && !is_le{c} && !is_lo{c};\n\
                 wire take_lo{c} = is_uflow{c} ? uflow_priority : is_oflow{c} ? oflow_priority : is_le{c} ? 1'b0 : is_lo{c} ? 1'b1 : hybrid_priority;\n\
                 wire [15:0] result{c} = take_lo{c} ? lo_v{c} : le_v{c};\n",
                le0 = entry("le", "0"),
                e_low = entry("le", &format!("{{1'b0, e_index{c}[5:0]}}")),
                e_high = entry("le", &format!("e_next{c}")),
            );
            results.push(format!("result{c}"));
            for (k, kind) in ["is_uflow", "is_oflow", "is_le", "is_lo", "is_hybrid"].iter().enumerate() {
                counts[k].push(format!("{{3'h0, {kind}{c}}}"));
            }
        }
        results.reverse();
        body += &format!("always @(*) results = {{{}}};\n", results.join(", "));
        for (k, port) in ["uflow", "oflow", "le_hit", "lo_hit", "hybrid"].iter().enumerate() {
            body += &format!("always @(*) {port} = {};\n", counts[k].join(" + "));
        }
        Verilog::Custom(body)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdpLut::default, "nvdla_cdp_lut");
}
