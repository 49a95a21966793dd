//! Eight 9-bit lanes on the diagonal of an 8x8 lane matrix (Ethos-U65 depthwise weights).
use rust_hdl::prelude::*;

/// `matrix[72o + 9i + 8 : 72o + 9i]` is lane `o` of `lanes` when `i == o`, else 0: the
/// weight-buffer row of a depthwise kernel element, where OFM channel `o`'s single weight
/// sits in lane `o` of its 72-bit weight word. Verilog: rust-hdl has no concatenation.
#[derive(LogicBlock, Default)]
pub struct Diagonal {
    pub lanes: Signal<In, Bits<72>>,
    pub matrix: Signal<Out, Bits<576>>,
}

impl Logic for Diagonal {
    fn update(&mut self) {
        let mut matrix: Bits<576> = Bits::default();
        for o in 0..8 {
            let lane = self.lanes.val().get_bits::<9>(9 * o);
            matrix = matrix | (bit_cast::<576, 9>(lane) << (81 * o as u64));
        }
        self.matrix.next = matrix;
    }
    fn connect(&mut self) {
        self.matrix.connect();
    }
    fn hdl(&self) -> Verilog {
        let parts: Vec<String> = (0..8).rev().map(|o| format!("lanes[{}:{}]", 9 * o + 8, 9 * o)).collect();
        Verilog::Custom(format!("always @(*) matrix = {{{}}};", parts.join(", 72'd0, ")))
    }
}
