//! ScaleNPU's output arithmetic: `result = trunc16(relu?(value) >>> shift)` (the public
//! design's order: ReLU, arithmetic right shift by SHIFTAMT, truncation to 16 bits with no
//! saturation). Model: `npu_model::scale::pe_column::output`.
use rust_hdl::prelude::*;

/// Combinational. A shift of 32 or more gives the sign (0 or -1): the value is sign-extended
/// to 48 bits and `result` is the 16 bits from `min(shift, 32)` up. Written as Verilog so the
/// extension and the variable part-select are exact (rust-hdl has neither without a WIDTH or
/// UNUSED warning).
#[derive(LogicBlock, Default)]
pub struct Activation {
    pub value: Signal<In, Bits<32>>,
    pub relu: Signal<In, Bit>,
    pub shift: Signal<In, Bits<8>>,
    pub result: Signal<Out, Bits<16>>,
}

impl Logic for Activation {
    fn update(&mut self) {
        let v = self.value.val().index() as u32 as i32;
        let v = if self.relu.val() { v.max(0) } else { v };
        let shift = self.shift.val().index().min(31) as u32;
        self.result.next = ((v >> shift) as u16 as u64).into();
    }
    fn connect(&mut self) {
        self.result.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "reg [47:0] extended;\n\
             reg [5:0] at;\n\
             always @(*) begin\n    \
                 if (relu && value[31]) extended = 48'h0;\n    \
                 else extended = {{16{value[31]}}, value};\n    \
                 at = (shift > 8'd32) ? 6'd32 : shift[5:0];\n    \
                 result = extended[at +: 16];\n\
             end"
                .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Activation::default, "activation");
}
