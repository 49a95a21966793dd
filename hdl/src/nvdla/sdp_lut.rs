//! SDP's lookup table, the last part of the EW stage (seeds/001 "Single Data Point
//! Processor": Y's LUT; registers S_LUT_* of RDL NVDLA_SDP), on the 8 32-bit lanes the EW
//! ALU gives, combinational like the rest of SDP's datapath. The tables and their CSB port
//! are CDP's ([`super::cdp_dp::cdp_lut::TABLES`]); the lookup is NVIDIA's C model's for SDP
//! (`cmod/hls/sdp/sdp_y_idx.cpp`, `sdp_y_inp.cpp`), which differs from CDP's in its widths
//! and roundings (docs/nvdla.md "SDP's LUT"). The arithmetic is Verilog for its exact signed
//! widths. Model and the rules: `npu_model::nvdla::sdp_lut`.
//!
//! Per lane: the LE lookup (linear or exponent) and the LO lookup (linear) say under, hit or
//! over and give an index and a 35-bit fraction; the table taken is chosen as CDP's (both
//! under: UFLOW_PRIORITY, both over: OFLOW_PRIORITY, one hit: that one, else
//! HYBRID_PRIORITY); only that table's value is computed: a hit interpolates its entries,
//! rounding the whole value once; a miss adds its slope to its first or last entry.
use super::cdp_dp::cdp_lut::{entry, round_function, saturate_function, TABLES};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SdpLut {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The LUT port, as CDP's: table 0 LE, 1 LO; past a table's end nothing is written, 0 read.
    pub lut_we: Signal<In, Bit>,
    pub lut_table: Signal<In, Bit>,
    pub lut_addr: Signal<In, Bits<10>>,
    pub lut_wdata: Signal<In, Bits<16>>,
    pub lut_rtable: Signal<In, Bit>,
    pub lut_raddr: Signal<In, Bits<10>>,
    pub lut_rdata: Signal<Out, Bits<16>>,
    /// The LUT runs (EW_BYPASS and EW_LUT_BYPASS both 0); otherwise the lanes pass.
    pub on: Signal<In, Bit>,
    /// S_LUT_CFG bits 6..0, S_LUT_INFO bits 23..0, and the other S_LUT_* registers whole.
    pub cfg: Signal<In, Bits<7>>,
    pub info: Signal<In, Bits<24>>,
    pub le_start: Signal<In, Bits<32>>,
    pub le_end: Signal<In, Bits<32>>,
    pub lo_start: Signal<In, Bits<32>>,
    pub lo_end: Signal<In, Bits<32>>,
    pub le_slope_scale: Signal<In, Bits<32>>,
    pub le_slope_shift: Signal<In, Bits<10>>,
    pub lo_slope_scale: Signal<In, Bits<32>>,
    pub lo_slope_shift: Signal<In, Bits<10>>,
    /// Lane k in bits 32k+31..32k.
    pub lanes_in: Signal<In, Bits<256>>,
    pub lanes_out: Signal<Out, Bits<256>>,
}

/// Functions of every lane (after `sat32`, `round50` and `round55`): floor(log2) of 32 bits,
/// a linear table's lookup ({over, index, fraction}), a slope outside a table, the
/// interpolation.
const FUNCTIONS: &str = "\
function automatic [4:0] log2_floor(input [31:0] v);
    integer i;
    begin
        log2_floor = 5'd0;
        for (i = 0; i < 32; i = i + 1) if (v[i]) log2_floor = i[4:0];
    end
endfunction
// u = x - START (> 0), SEL 8-bit signed: index u >> SEL (a negative SEL shifts left: 9 or
// more is past any table), fraction the bits below SEL aligned to 35 (0 for a negative SEL).
function automatic [44:0] linear_lookup(input [31:0] u, input [7:0] sel, input [8:0] last);
    reg [7:0] left;
    reg [40:0] up;
    reg [66:0] wide;
    begin
        left = 8'd0 - sel;
        up = {9'h0, u} << left[3:0];
        wide = {u, 35'h0} >> sel;
        if (sel[7]) linear_lookup = {left >= 8'd9 || up >= {32'h0, last}, up[8:0], 35'h0};
        else linear_lookup = {wide[66:35] >= {23'h0, last}, wide[43:0]};
    end
endfunction
// sat32(y0 + sat32(round(a * scale / 2^shift))), the shift 5-bit signed (negative: left).
function automatic [31:0] slope_value(input [15:0] y0, input [33:0] a, input [15:0] scale, input [4:0] shift);
    reg signed [49:0] product;
    reg [49:0] rounded;
    reg signed [66:0] moved;
    reg [31:0] scaled;
    reg signed [33:0] sum;
    begin
        product = $signed({{16{a[33]}}, a}) * $signed({{34{scale[15]}}, scale});
        rounded = round50(product, shift[3:0]);
        if (shift[4]) moved = $signed({{17{product[49]}}, product}) <<< (5'd0 - shift);
        else moved = $signed({{17{rounded[49]}}, rounded});
        scaled = sat32(moved);
        sum = $signed({{18{y0[15]}}, y0}) + $signed({{2{scaled[31]}}, scaled});
        slope_value = sat32({{33{sum[33]}}, sum});
    end
endfunction
// round((y0 * (2^35 - f) + y1 * f) / 2^35), half away from zero: the whole value rounded once.
function automatic [31:0] interpolate35(input [15:0] y0, input [15:0] y1, input [34:0] f);
    reg signed [54:0] value;
    reg [54:0] rounded_unused_above_31;
    begin
        value = $signed({{4{y0[15]}}, y0, 35'h0}) + ($signed({{39{y1[15]}}, y1}) - $signed({{39{y0[15]}}, y0})) * $signed({20'h0, f});
        rounded_unused_above_31 = round55(value, 6'd35);
        interpolate35 = rounded_unused_above_31[31:0];
    end
endfunction
wire le_linear = cfg[0], uflow_priority = cfg[4], oflow_priority = cfg[5], hybrid_priority = cfg[6];
wire unused_cfg = ^cfg[3:1];
wire [7:0] le_offset = info[7:0], le_sel = info[15:8], lo_sel = info[23:16];
// The exponent underflow's bias: 2^LE_INDEX_OFFSET for an offset of 1..31, else 0.
wire [31:0] exp_bias = (!le_linear && !le_offset[7] && le_offset != 8'd0 && le_offset < 8'd32) ? 32'h1 << le_offset[4:0] : 32'h0;
";

/// Lane `c`'s lookup.
fn lane(c: usize) -> String {
    let (hi, lo) = (32 * c + 31, 32 * c);
    format!(
        "wire [31:0] x{c} = lanes_in[{hi}:{lo}];\n\
         wire signed [32:0] le_d{c} = $signed({{x{c}[31], x{c}}}) - $signed({{le_start[31], le_start}});\n\
         wire signed [32:0] lo_d{c} = $signed({{x{c}[31], x{c}}}) - $signed({{lo_start[31], lo_start}});\n\
         wire le_pos{c} = le_d{c} > 33'sd0, lo_pos{c} = lo_d{c} > 33'sd0;\n\
         wire [31:0] le_u{c} = le_d{c}[31:0], lo_u{c} = lo_d{c}[31:0];\n\
         wire unused_d{c} = le_d{c}[32] ^ lo_d{c}[32];\n\
         wire [44:0] le_lin{c} = linear_lookup(le_u{c}, le_sel, 9'd64);\n\
         wire [44:0] lo_lin{c} = linear_lookup(lo_u{c}, lo_sel, 9'd256);\n\
         wire [4:0] e_log{c} = log2_floor(le_u{c});\n\
         wire signed [9:0] e_index{c} = $signed({{5'h0, e_log{c}}}) - $signed({{{{2{{le_offset[7]}}}}, le_offset}});\n\
         wire e_under{c} = !le_pos{c} || e_index{c}[9];\n\
         wire e_over{c} = !e_under{c} && e_index{c} >= 10'sd64;\n\
         wire [34:0] e_frac{c} = {{3'h0, le_u{c} - (32'h1 << e_log{c})}} << (6'd35 - {{1'b0, e_log{c}}});\n\
         wire le_under{c} = !le_pos{c} || (!le_linear && e_under{c});\n\
         wire le_over{c} = le_linear ? le_pos{c} && le_lin{c}[44] : e_over{c};\n\
         wire lo_under{c} = !lo_pos{c};\n\
         wire lo_over{c} = lo_pos{c} && lo_lin{c}[44];\n\
         wire le_hit{c} = !le_under{c} && !le_over{c}, lo_hit{c} = !lo_under{c} && !lo_over{c};\n\
         wire take_lo{c} = (le_under{c} && lo_under{c}) ? uflow_priority : (le_over{c} && lo_over{c}) ? oflow_priority : (le_hit{c} && !lo_hit{c}) ? 1'b0 : (lo_hit{c} && !le_hit{c}) ? 1'b1 : hybrid_priority;\n\
         wire under{c} = take_lo{c} ? lo_under{c} : le_under{c};\n\
         wire over{c} = take_lo{c} ? lo_over{c} : le_over{c};\n\
         wire [8:0] hit_index{c} = take_lo{c} ? lo_lin{c}[43:35] : le_linear ? le_lin{c}[43:35] : {{3'h0, e_index{c}[5:0]}};\n\
         wire [8:0] index{c} = under{c} ? 9'd0 : over{c} ? (take_lo{c} ? 9'd256 : 9'd64) : hit_index{c};\n\
         wire [8:0] next{c} = (under{c} || over{c}) ? index{c} : index{c} + 9'd1;\n\
         wire [34:0] frac{c} = take_lo{c} ? lo_lin{c}[34:0] : le_linear ? le_lin{c}[34:0] : e_frac{c};\n\
         wire [15:0] y0_{c} = take_lo{c} ? {lo0} : {le0};\n\
         wire [15:0] y1_{c} = take_lo{c} ? {lo1} : {le1};\n\
         wire [31:0] bias{c} = (!take_lo{c} && under{c}) ? exp_bias : 32'h0;\n\
         wire [31:0] origin{c} = take_lo{c} ? (over{c} ? lo_end : lo_start) : (over{c} ? le_end : le_start);\n\
         wire [33:0] distance{c} = $signed({{{{2{{x{c}[31]}}}}, x{c}}}) - ($signed({{2'h0, bias{c}}}) + $signed({{{{2{{origin{c}[31]}}}}, origin{c}}}));\n\
         wire [31:0] scales{c} = take_lo{c} ? lo_slope_scale : le_slope_scale;\n\
         wire [9:0] shifts{c} = take_lo{c} ? lo_slope_shift : le_slope_shift;\n\
         wire [15:0] scale{c} = over{c} ? scales{c}[31:16] : scales{c}[15:0];\n\
         wire [4:0] shift{c} = over{c} ? shifts{c}[9:5] : shifts{c}[4:0];\n\
         wire [31:0] lane{c} = !on ? x{c} : (under{c} || over{c}) ? slope_value(y0_{c}, distance{c}, scale{c}, shift{c}) : interpolate35(y0_{c}, y1_{c}, frac{c});\n",
        lo0 = entry("lo", &format!("index{c}")),
        le0 = entry("le", &format!("index{c}[6:0]")),
        lo1 = entry("lo", &format!("next{c}")),
        le1 = entry("le", &format!("next{c}[6:0]")),
    )
}

impl Logic for SdpLut {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::sdp_lut`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.lut_rdata.connect();
        self.lanes_out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = saturate_function(67, 32) + &round_function(50, 4) + &round_function(55, 6) + FUNCTIONS + TABLES;
        let mut lanes = Vec::new();
        for c in 0..8 {
            body += &lane(c);
            lanes.push(format!("lane{c}"));
        }
        lanes.reverse();
        body += &format!("always @(*) lanes_out = {{{}}};\n", lanes.join(", "));
        Verilog::Custom(body)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SdpLut::default, "nvdla_sdp_lut");
}
