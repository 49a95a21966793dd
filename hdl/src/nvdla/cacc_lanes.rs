//! CACC's arithmetic on one op's 8 kernels (seeds/001 "Convolution Accumulator"; rounding and
//! saturation as NVIDIA's C model, docs/nvdla.md "CACC"), combinational. Verilog for its
//! exact signed widths and part-selects, as [`super::cdp_sq::CdpSq`]. Model:
//! `npu_model::nvdla::cacc`.
//!
//! Per kernel k: the 20-bit partial sum sign-extended to [`super::ASSEMBLY_BITS`] = 48 bits,
//! stored (`acc_first`) or added to the entry's old sum (wrapping at 48 bits); the new sum
//! divided by 2^`clip` rounding half away from zero (`floor + 1` when the rest is above half,
//! or equal to half for a non-negative sum), saturated to int32; `saturated` counts the
//! kernels that saturated; `entry` is the atom with the op's `layer_last` tag.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CaccLanes {
    /// The entry's 8 sums before this op, kernel k in bits 48k+47..48k.
    pub old: Signal<In, Bits<384>>,
    /// CMAC's partial sums, kernels 0..3 and 4..7, 20 bits each.
    pub psum_lo: Signal<In, Bits<80>>,
    pub psum_hi: Signal<In, Bits<80>>,
    pub acc_first: Signal<In, Bit>,
    pub layer_last: Signal<In, Bit>,
    pub clip: Signal<In, Bits<5>>,
    /// The entry's new sums.
    pub sum: Signal<Out, Bits<384>>,
    /// The delivery buffer's entry: the new sums truncated and saturated, int32 each, kernel
    /// k in bits 32k+31..32k, and `layer_last` in bit 256.
    pub entry: Signal<Out, Bits<257>>,
    pub saturated: Signal<Out, Bits<4>>,
}

impl Logic for CaccLanes {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::cacc`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.sum.connect();
        self.entry.connect();
        self.saturated.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from("wire [47:0] half = clip == 5'd0 ? 48'h0 : 48'h1 << (clip - 5'd1);\n");
        for k in 0..8 {
            let (word, lo) = if k < 4 { ("psum_lo", 20 * k) } else { ("psum_hi", 20 * (k - 4)) };
            let (hi, olo, ohi) = (lo + 19, 48 * k, 48 * k + 47);
            body += &format!(
                "wire signed [47:0] p{k} = {{{{28{{{word}[{hi}]}}}}, {word}[{hi}:{lo}]}};\n\
                 wire signed [47:0] s{k} = acc_first ? p{k} : old[{ohi}:{olo}] + p{k};\n\
                 wire signed [47:0] floor{k} = s{k} >>> clip;\n\
                 wire [47:0] rest{k} = s{k} - (floor{k} <<< clip);\n\
                 wire up{k} = clip != 5'd0 && (rest{k} > half || (rest{k} == half && !s{k}[47]));\n\
                 wire signed [47:0] r{k} = floor{k} + {{47'h0, up{k}}};\n\
                 wire over{k} = r{k} > 48'sd2147483647;\n\
                 wire under{k} = r{k} < -48'sd2147483648;\n\
                 wire [31:0] v{k} = over{k} ? 32'h7fffffff : under{k} ? 32'h80000000 : r{k}[31:0];\n\
                 wire [3:0] n{k} = {{3'h0, over{k} | under{k}}};\n"
            );
        }
        body += "always @(*) sum = {s7, s6, s5, s4, s3, s2, s1, s0};\n\
                 always @(*) entry = {layer_last, v7, v6, v5, v4, v3, v2, v1, v0};\n\
                 always @(*) saturated = n0 + n1 + n2 + n3 + n4 + n5 + n6 + n7;";
        Verilog::Custom(body)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CaccLanes::default, "nvdla_cacc_lanes");
}
