//! CDMA's input converter and lane mask on an 8-byte atom (seeds/001 "Convolution DMA";
//! RDL NVDLA_CDMA D_CVT_CFG, D_CVT_OFFSET, D_CVT_SCALE; the arithmetic as NVIDIA's C model,
//! docs/nvdla.md "Arithmetic"): with `enable`, each int8 lane becomes `(x - offset) * scale`
//! (17 x 16 bits, exact in 33, carried in 34), shifted right by `truncate` rounding half away
//! from zero (the rounding of [`super::convert`], shared), saturated to int8; a shift of 34
//! or more gives 0 (every product is below 2^31 in magnitude, so from 32 on the result is 0
//! anyway). Weight atoms (`feature` low) and features without `enable` pass. Lanes past the
//! cube's last channel are 0 either way. The result is registered (`data`, CDMA's CBUF write
//! data) on an edge with `load`, 0 with `zero` (a weight atom of a kernel past the last): a
//! combinational output read back by CDMA's one `always` block would be a loop for
//! Verilator. The arithmetic is Verilog for its exact signed widths. Model:
//! `npu_model::nvdla::cdma` (`Converter::apply`, the lane mask).
use super::convert::{rounding_half, rounding_shift};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CdmaCvt {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub zero: Signal<In, Bit>,
    /// Lane k in bits 8k+7..8k.
    pub atom: Signal<In, Bits<64>>,
    pub enable: Signal<In, Bit>,
    /// A feature atom (else a weight atom: not converted).
    pub feature: Signal<In, Bit>,
    /// The feature atom is of the last surface, the weight atom of the last channel block:
    /// its lanes above `channel_low` (channels minus 1, modulo 8) are past the cube.
    pub last_surface: Signal<In, Bit>,
    pub last_block: Signal<In, Bit>,
    pub channel_low: Signal<In, Bits<3>>,
    pub offset: Signal<In, Bits<16>>,
    pub scale: Signal<In, Bits<16>>,
    pub truncate: Signal<In, Bits<6>>,
    pub data: Signal<Out, Bits<64>>,
}

impl Logic for CdmaCvt {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::cdma`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.data.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from(
            "wire signed [16:0] offset_wide = {offset[15], offset};\n\
             wire [2:0] lanes_m1 = (feature ? last_surface : last_block) ? channel_low : 3'd7;\n\
             wire convert = feature & enable;\n",
        );
        let mut out = Vec::new();
        for k in 0..8 {
            let (hi, lo, round) = (8 * k + 7, 8 * k, rounding_shift(k, 34, "truncate"));
            body += &format!(
                "wire signed [16:0] sub{k} = {{{{9{{atom[{hi}]}}}}, atom[{hi}:{lo}]}} - offset_wide;\n\
                 wire signed [33:0] product{k} = {{{{17{{sub{k}[16]}}}}, sub{k}}} * {{{{18{{scale[15]}}}}, scale}};\n\
                 {round}\
                 wire [7:0] cvt{k} = truncate >= 6'd34 ? 8'h00 : rounded{k} > 34'sd127 ? 8'h7f : rounded{k} < -34'sd128 ? 8'h80 : rounded{k}[7:0];\n\
                 wire [7:0] lane{k} = {masked}convert ? cvt{k} : atom[{hi}:{lo}];\n",
                // Lane 0 is always inside the cube (comparing with 0 would be constant).
                masked = if k == 0 { String::new() } else { format!("lanes_m1 < 3'd{k} ? 8'h00 : ") }
            );
            out.push(format!("lane{k}"));
        }
        out.reverse();
        Verilog::Custom(format!(
            "{}{body}always @(posedge clock) begin\n    if (reset) data <= 64'h0;\n    else if (load) data <= zero ? 64'h0 : {{{}}};\nend",
            rounding_half(34, "truncate"),
            out.join(", ")
        ))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdmaCvt::default, "nvdla_cdma_cvt");
}
