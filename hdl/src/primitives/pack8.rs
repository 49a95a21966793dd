//! Eight bits into a byte.
use rust_hdl::prelude::*;

/// `word = {b7, b6, b5, b4, b3, b2, b1, b0}`. rust-hdl has no concatenation operator, and
/// building a byte with shifts and `bit_cast` exports expressions Verilator reports as WIDTH.
#[derive(LogicBlock, Default)]
pub struct Pack8 {
    pub b7: Signal<In, Bit>,
    pub b6: Signal<In, Bit>,
    pub b5: Signal<In, Bit>,
    pub b4: Signal<In, Bit>,
    pub b3: Signal<In, Bit>,
    pub b2: Signal<In, Bit>,
    pub b1: Signal<In, Bit>,
    pub b0: Signal<In, Bit>,
    pub word: Signal<Out, Bits<8>>,
}

impl Logic for Pack8 {
    fn update(&mut self) {
        let bits = [self.b0.val(), self.b1.val(), self.b2.val(), self.b3.val(), self.b4.val(), self.b5.val(), self.b6.val(), self.b7.val()];
        self.word.next = bits.iter().enumerate().fold(0u64, |w, (k, &b)| w | u64::from(b) << k).into();
    }
    fn connect(&mut self) {
        self.word.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) word = {b7, b6, b5, b4, b3, b2, b1, b0};".into())
    }
}
