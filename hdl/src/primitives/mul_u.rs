//! Unsigned multiplier with a result width of choice.
use rust_hdl::prelude::*;

/// `product = a * b` modulo `2^P`, all unsigned (`P >= A, B`). rust-hdl multiplies only
/// 16x16 bits, and Verilator reports a product of narrower operands as WIDTH.
#[derive(LogicBlock, Default)]
pub struct MulU<const A: usize, const B: usize, const P: usize> {
    pub a: Signal<In, Bits<A>>,
    pub b: Signal<In, Bits<B>>,
    pub product: Signal<Out, Bits<P>>,
}

impl<const A: usize, const B: usize, const P: usize> Logic for MulU<A, B, P> {
    fn update(&mut self) {
        let product = u128::from(self.a.val().to_u64()) * u128::from(self.b.val().to_u64());
        self.product.next = ((product & ((1u128 << P) - 1)) as u64).into();
    }
    fn connect(&mut self) {
        assert!(P >= A && P >= B && P <= 64, "MulU widths");
        self.product.connect();
    }
    fn hdl(&self) -> Verilog {
        let widen = |name: &str, width: usize| {
            if width == P {
                name.to_string()
            } else {
                format!("{{{}'d0, {name}}}", P - width)
            }
        };
        Verilog::Custom(format!("always @(*) product = {} * {};", widen("a", A), widen("b", B)))
    }
}
