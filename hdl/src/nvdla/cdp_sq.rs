//! CDP's input converter and square sum on a 16-channel window (seeds/001 "Channel Data
//! Processor"; the widths and rounding are NVIDIA's C model's, docs/nvdla.md "CDP datapath").
//! Combinational; the arithmetic is Verilog for its exact signed widths, as in
//! [`super::convert::Convert`]. Model: `npu_model::nvdla::cdp_dp::stage1`.
//!
//! - Each of the 16 channels x (int8) is converted to 9 bits: `(x - DATIN_OFFSET[7:0])`
//!   (9 bits, exact) times DATIN_SCALE (int16: 25 bits, exact), shifted right by
//!   DATIN_SHIFTER rounding half away from zero, saturated to -256..255 (a shift of 25 or
//!   more gives 0: the product is below 2^23, and `half` no longer fits). The C model takes
//!   only the offset's low byte, as a signed 8-bit value.
//! - Output lane c (window channel c + 4) sums the squares (18 bits) of the NORMALZ_LEN
//!   (0..3: 3, 5, 7, 9) channels centred on it into 22 bits (at most 9 x 2^16: no overflow),
//!   or with SQSUM_BYPASS takes the converted channel itself, sign-extended.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CdpSq {
    /// 16 int8 channels, lane k in bits 8k+7..8k.
    pub window: Signal<In, Bits<128>>,
    pub datin_offset: Signal<In, Bits<16>>,
    pub datin_scale: Signal<In, Bits<16>>,
    pub datin_shifter: Signal<In, Bits<5>>,
    pub normalz_len: Signal<In, Bits<2>>,
    pub sqsum_bypass: Signal<In, Bit>,
    /// Lane c's sum, 22-bit signed, in bits 22c+21..22c.
    pub sums: Signal<Out, Bits<176>>,
    /// Lane c's converted channel (window channel c + 4), 9-bit signed, in bits 9c+8..9c.
    pub centres: Signal<Out, Bits<72>>,
}

impl Logic for CdpSq {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::cdp_dp`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.sums.connect();
        self.centres.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from(
            "wire unused_offset_high = ^datin_offset[15:8];\n\
             wire signed [8:0] offset9 = {datin_offset[7], datin_offset[7:0]};\n\
             wire signed [24:0] scale25 = {{9{datin_scale[15]}}, datin_scale};\n\
             wire [24:0] half = datin_shifter == 5'd0 ? 25'h0 : 25'h1 << (datin_shifter - 5'd1);\n",
        );
        for k in 0..16 {
            let (hi, lo) = (8 * k + 7, 8 * k);
            body += &format!(
                "wire signed [8:0] d{k} = {{window[{hi}], window[{hi}:{lo}]}} - offset9;\n\
                 wire signed [24:0] p{k} = {{{{16{{d{k}[8]}}}}, d{k}}} * scale25;\n\
                 wire signed [24:0] floor{k} = p{k} >>> datin_shifter;\n\
                 wire [24:0] rest{k} = p{k} - (floor{k} <<< datin_shifter);\n\
                 wire up{k} = datin_shifter != 5'd0 && (rest{k} > half || (rest{k} == half && !p{k}[24]));\n\
                 wire signed [24:0] r{k} = floor{k} + {{24'h0, up{k}}};\n\
                 wire signed [8:0] x{k} = datin_shifter >= 5'd25 ? 9'sd0 : r{k} > 25'sd255 ? 9'sd255 : r{k} < -25'sd256 ? -9'sd256 : r{k}[8:0];\n\
                 wire signed [17:0] xx{k} = {{{{9{{x{k}[8]}}}}, x{k}}};\n\
                 wire signed [17:0] sq{k} = xx{k} * xx{k};\n\
                 wire [21:0] s{k} = {{4'h0, sq{k}}};\n"
            );
        }
        let (mut sums, mut centres) = (Vec::new(), Vec::new());
        for c in 0..8 {
            let m = c + 4;
            body += &format!(
                "wire [21:0] sum{c} = s{m} + s{} + s{} + (normalz_len >= 2'd1 ? s{} + s{} : 22'h0) + (normalz_len >= 2'd2 ? s{} + s{} : 22'h0) + (normalz_len == 2'd3 ? s{} + s{} : 22'h0);\n\
                 wire [21:0] lane{c} = sqsum_bypass ? {{{{13{{x{m}[8]}}}}, x{m}}} : sum{c};\n",
                m - 1,
                m + 1,
                m - 2,
                m + 2,
                m - 3,
                m + 3,
                m - 4,
                m + 4
            );
            sums.push(format!("lane{c}"));
            centres.push(format!("x{m}"));
        }
        sums.reverse();
        centres.reverse();
        Verilog::Custom(format!("{body}always @(*) sums = {{{}}};\nalways @(*) centres = {{{}}};", sums.join(", "), centres.join(", ")))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdpSq::default, "nvdla_cdp_sq");
}
