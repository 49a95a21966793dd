//! One of SDP's X stages, BS or BN (seeds/001 "Single Data Point Processor"), on the 8
//! 32-bit lanes of an atom: an ALU (max, min or sum with a shifted operand), a multiplier
//! (or PReLU) with its truncation, and a ReLU, each part bypassable, the whole stage too.
//! Combinational; the arithmetic is Verilog for its exact signed widths. Model and the widths'
//! reasons: `npu_model::nvdla::sdp_x`; docs/nvdla.md, "SDP's BS and BN stages".
//!
//! Widths as NVDLA's int8 pipeline: input and output 32 bits, the shifted ALU operand
//! saturated to 32, the ALU result 33 (sum of two 32-bit values), the product 49 (33 x 16),
//! the truncation back to 32 (shift right rounding half away from zero, saturated; a shift
//! of 49 or more gives 0).
use super::convert::{rounding_half, rounding_shift};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SdpX {
    /// Lane k in bits 32k+31..32k.
    pub data_in: Signal<In, Bits<256>>,
    /// D_DP_xx_CFG bits 6..0: BYPASS, ALU_BYPASS, ALU_ALGO (2), MUL_BYPASS, MUL_PRELU,
    /// RELU_BYPASS.
    pub cfg: Signal<In, Bits<7>>,
    pub alu_src: Signal<In, Bit>,
    pub alu_shift: Signal<In, Bits<6>>,
    pub alu_operand: Signal<In, Bits<16>>,
    pub mul_src: Signal<In, Bit>,
    /// The low 6 bits of MUL_SHIFT_VALUE: all NVDLA's truncation takes.
    pub mul_shift: Signal<In, Bits<6>>,
    pub mul_operand: Signal<In, Bits<16>>,
    /// The operands read from memory (SDP_RDMA's BRDMA or NRDMA, laid out by
    /// [`super::sdp_operands::SdpOperands`]), lane k's in bits 16k+15..16k: the ALU's and the
    /// multiplier's, used by the part whose `alu_src` or `mul_src` is set.
    pub alu_operands: Signal<In, Bits<128>>,
    pub mul_operands: Signal<In, Bits<128>>,
    pub data_out: Signal<Out, Bits<256>>,
}

impl Logic for SdpX {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::sdp_x`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.data_out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from(
            "wire bypass = cfg[0], alu_bypass = cfg[1], mul_bypass = cfg[4], prelu = cfg[5], relu_bypass = cfg[6];\n\
             wire [1:0] algo = cfg[3:2];\n",
        ) + &rounding_half(49, "mul_shift");
        let mut out = Vec::new();
        for k in 0..8 {
            let (hi, lo, ohi, olo, round) = (32 * k + 31, 32 * k, 16 * k + 15, 16 * k, rounding_shift(k, 49, "mul_shift"));
            body += &format!(
                "wire signed [31:0] x{k} = data_in[{hi}:{lo}];\n\
                 wire signed [15:0] aop{k} = alu_src ? alu_operands[{ohi}:{olo}] : alu_operand;\n\
                 wire signed [78:0] aop_wide{k} = {{{{63{{aop{k}[15]}}}}, aop{k}}} <<< alu_shift;\n\
                 wire aop_sat{k} = aop_wide{k}[78:31] != {{48{{aop{k}[15]}}}};\n\
                 wire signed [32:0] operand{k} = aop_sat{k} ? (aop{k}[15] ? -33'sh80000000 : 33'sh7fffffff) : aop_wide{k}[32:0];\n\
                 wire signed [32:0] xe{k} = {{x{k}[31], x{k}}};\n\
                 wire signed [32:0] alu{k} = alu_bypass ? xe{k} : algo == 2'd0 ? (xe{k} > operand{k} ? xe{k} : operand{k}) : algo == 2'd1 ? (xe{k} < operand{k} ? xe{k} : operand{k}) : xe{k} + operand{k};\n\
                 wire signed [15:0] mop{k} = mul_src ? mul_operands[{ohi}:{olo}] : mul_operand;\n\
                 wire keep{k} = !mul_bypass && prelu && !alu{k}[32];\n\
                 wire signed [48:0] alu_wide{k} = {{{{16{{alu{k}[32]}}}}, alu{k}}};\n\
                 wire signed [48:0] mul{k} = alu{k} * mop{k};\n\
                 wire signed [48:0] product{k} = mul_bypass ? alu_wide{k} : mul{k};\n\
                 {round}\
                 wire [31:0] trt{k} = keep{k} ? alu{k}[31:0] : mul_shift >= 6'd49 ? 32'h0 : rounded{k} > 49'sh7fffffff ? 32'h7fffffff : rounded{k} < -49'sh80000000 ? 32'h80000000 : rounded{k}[31:0];\n\
                 wire [31:0] lane{k} = bypass ? x{k} : (!relu_bypass && trt{k}[31]) ? 32'h0 : trt{k};\n"
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
    crate::synth_check::assert_synthesizes(SdpX::default, "nvdla_sdp_x");
}
