//! SDP's Y stage, EW (seeds/001 "Single Data Point Processor"), on the 8 32-bit lanes of an
//! atom, operands from the registers: a multiplier with its truncation, then an ALU (max,
//! min, sum, or NVIDIA's EQL compare), each bypassable, the whole stage too. Combinational;
//! the arithmetic is Verilog for its exact signed widths. Model and the widths' reasons (NVIDIA's
//! C model): `npu_model::nvdla::sdp_y`; docs/nvdla.md, "SDP's EW stage".
//!
//! Widths: input, operands and output 32 bits; the product 64 (32 x 32, exact); the
//! truncation shifts it right by EW_TRUNCATE (10 bits: any shift of 64 or more gives 0, as
//! the product's magnitude is at most 2^62), rounding half away from zero, saturated to 32;
//! the ALU's sum 33, saturated to 32.
use super::convert::{rounding_half, rounding_shift};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SdpY {
    /// Lane k in bits 32k+31..32k.
    pub data_in: Signal<In, Bits<256>>,
    /// D_DP_EW_CFG bits 5..0: BYPASS, ALU_BYPASS, ALU_ALGO (2), MUL_BYPASS, MUL_PRELU (bit 6,
    /// LUT_BYPASS, is not taken: no LUT is built).
    pub cfg: Signal<In, Bits<6>>,
    pub alu_operand: Signal<In, Bits<32>>,
    pub mul_operand: Signal<In, Bits<32>>,
    pub truncate: Signal<In, Bits<10>>,
    pub data_out: Signal<Out, Bits<256>>,
}

impl Logic for SdpY {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::sdp_y`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.data_out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from(
            "wire bypass = cfg[0], alu_bypass = cfg[1], mul_bypass = cfg[4], prelu = cfg[5];\n\
             wire [1:0] algo = cfg[3:2];\n\
             wire zero = truncate >= 10'd64;\n\
             wire [5:0] shift = truncate[5:0];\n\
             wire signed [63:0] mop = {{32{mul_operand[31]}}, mul_operand};\n\
             wire signed [32:0] aop = {alu_operand[31], alu_operand};\n",
        ) + &rounding_half(64, "shift");
        let mut out = Vec::new();
        for k in 0..8 {
            let (hi, lo, round) = (32 * k + 31, 32 * k, rounding_shift(k, 64, "shift"));
            body += &format!(
                "wire signed [31:0] x{k} = data_in[{hi}:{lo}];\n\
                 wire signed [63:0] xe{k} = {{{{32{{x{k}[31]}}}}, x{k}}};\n\
                 wire signed [63:0] product{k} = xe{k} * mop;\n\
                 {round}\
                 wire [31:0] trt{k} = zero ? 32'h0 : rounded{k} > 64'sh7fffffff ? 32'h7fffffff : rounded{k} < -64'sh80000000 ? 32'h80000000 : rounded{k}[31:0];\n\
                 wire [31:0] mul{k} = (mul_bypass || (prelu && !x{k}[31])) ? x{k} : trt{k};\n\
                 wire signed [32:0] a{k} = {{mul{k}[31], mul{k}}};\n\
                 wire signed [32:0] alu{k} = algo == 2'd0 ? (a{k} > aop ? a{k} : aop) : algo == 2'd1 ? (a{k} < aop ? a{k} : aop) : algo == 2'd3 ? {{32'h0, a{k} != aop}} : a{k} + aop;\n\
                 wire [31:0] sat{k} = alu{k} > 33'sh7fffffff ? 32'h7fffffff : alu{k} < -33'sh80000000 ? 32'h80000000 : alu{k}[31:0];\n\
                 wire [31:0] lane{k} = bypass ? x{k} : alu_bypass ? mul{k} : sat{k};\n"
            );
            out.push(format!("lane{k}"));
        }
        out.reverse();
        Verilog::Custom(format!("{body}always @(*) data_out = {{{}}};", out.join(", ")))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SdpY::default, "nvdla_sdp_y");
}
