//! SDP's output converter on the 8 32-bit lanes of an atom (seeds/001 "Single Data Point Processor"; the
//! rounding and saturation of NVDLA's shift-right-saturate): per int8 lane,
//! `(x - offset) * scale` (32-bit x and offset: 33 bits; times 16: exact in 49), shifted right by `shift` rounding half
//! away from zero, saturated to int8; a shift of 49 or more gives 0. Combinational; the
//! arithmetic is Verilog for its exact signed widths. Model: `npu_model::nvdla::convert::convert`.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Convert {
    /// Lane k in bits 32k+31..32k.
    pub lanes: Signal<In, Bits<256>>,
    pub offset: Signal<In, Bits<32>>,
    pub scale: Signal<In, Bits<16>>,
    pub shift: Signal<In, Bits<6>>,
    pub converted: Signal<Out, Bits<64>>,
}

impl Logic for Convert {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::convert::convert`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.converted.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from("wire signed [32:0] offset_wide = {offset[31], offset};\n");
        let mut out = Vec::new();
        for k in 0..8 {
            let (hi, lo) = (32 * k + 31, 32 * k);
            body += &format!(
                "wire signed [32:0] sub{k} = {{lanes[{hi}], lanes[{hi}:{lo}]}} - offset_wide;\n\
                 wire signed [48:0] product{k} = sub{k} * $signed(scale);\n\
                 wire signed [48:0] floor{k} = product{k} >>> shift;\n\
                 wire [48:0] rest{k} = product{k} - (floor{k} <<< shift);\n\
                 wire up{k} = shift != 6'd0 && (rest{k} > half || (rest{k} == half && !product{k}[48]));\n\
                 wire signed [48:0] rounded{k} = floor{k} + {{48'h0, up{k}}};\n\
                 wire [7:0] lane{k} = shift >= 6'd49 ? 8'h00 : rounded{k} > 49'sd127 ? 8'h7f : rounded{k} < -49'sd128 ? 8'h80 : rounded{k}[7:0];\n"
            );
            out.push(format!("lane{k}"));
        }
        out.reverse();
        Verilog::Custom(format!(
            "wire [48:0] half = shift == 6'd0 ? 49'h0 : 49'h1 << (shift - 6'd1);\n{body}always @(*) converted = {{{}}};",
            out.join(", ")
        ))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Convert::default(), "nvdla_convert");
}
