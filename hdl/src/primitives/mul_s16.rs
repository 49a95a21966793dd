//! 16x16 two's-complement multiplier with the full 32-bit product (ScaleNPU's PE).
use rust_hdl::prelude::*;

/// `product = a * b` with `a`, `b` and `product` read as two's complement: exact, as
/// -32768 · -32768 = 2^30 fits 32 signed bits. The ports are `Bits` because the datapath
/// around it is (sums wrap at 32 bits either way); the Verilog multiplies `$signed` operands.
#[derive(LogicBlock, Default)]
pub struct MulS16 {
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<16>>,
    pub product: Signal<Out, Bits<32>>,
}

impl Logic for MulS16 {
    fn update(&mut self) {
        let a = self.a.val().index() as u16 as i16 as i64;
        let b = self.b.val().index() as u16 as i16 as i64;
        self.product.next = ((a * b) as u32 as u64).into();
    }
    fn connect(&mut self) {
        self.product.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) product = $signed(a) * $signed(b);".into())
    }
}
