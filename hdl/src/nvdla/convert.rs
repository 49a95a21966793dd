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
            let (hi, lo, round) = (32 * k + 31, 32 * k, rounding_shift(k, 49, "shift"));
            body += &format!(
                "wire signed [32:0] sub{k} = {{lanes[{hi}], lanes[{hi}:{lo}]}} - offset_wide;\n\
                 wire signed [48:0] product{k} = sub{k} * $signed(scale);\n\
                 {round}\
                 wire [7:0] lane{k} = shift >= 6'd49 ? 8'h00 : rounded{k} > 49'sd127 ? 8'h7f : rounded{k} < -49'sd128 ? 8'h80 : rounded{k}[7:0];\n"
            );
            out.push(format!("lane{k}"));
        }
        out.reverse();
        Verilog::Custom(format!(
            "{}{body}always @(*) converted = {{{}}};",
            rounding_half(49, "shift"),
            out.join(", ")
        ))
    }
}

/// Verilog of `half`, half the step of a right shift by the 6-bit signal `shift` on a
/// `width`-bit value: what [`rounding_shift`] compares the rest with.
pub(super) fn rounding_half(width: u32, shift: &str) -> String {
    format!("wire [{m}:0] half = {shift} == 6'd0 ? {width}'h0 : {width}'h1 << ({shift} - 6'd1);\n", m = width - 1)
}

/// Verilog of lane `k`'s `rounded{k}`: the signed `width`-bit `product{k}` shifted right by
/// `shift`, rounded half away from zero (NVDLA's shift-right; the converter and the X and EW
/// stages' truncation). Saturating it is the caller's: each saturates to its own width.
pub(super) fn rounding_shift(k: usize, width: u32, shift: &str) -> String {
    let m = width - 1;
    format!(
        "wire signed [{m}:0] floor{k} = product{k} >>> {shift};\n\
         wire [{m}:0] rest{k} = product{k} - (floor{k} <<< {shift});\n\
         wire up{k} = {shift} != 6'd0 && (rest{k} > half || (rest{k} == half && !product{k}[{m}]));\n\
         wire signed [{m}:0] rounded{k} = floor{k} + {{{m}'h0, up{k}}};\n"
    )
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Convert::default, "nvdla_convert");
}
