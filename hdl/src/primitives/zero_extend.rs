//! Zero extension of a bit vector to a wider one.
use rust_hdl::prelude::*;

/// `wide` is `narrow` with `M - N` zero bits on top (`M > N`). rust-hdl's `bit_cast` exports
/// a mask expression whose width Verilator reports as WIDTH; the concatenation is exact.
#[derive(LogicBlock, Default)]
pub struct ZeroExtend<const N: usize, const M: usize> {
    pub narrow: Signal<In, Bits<N>>,
    pub wide: Signal<Out, Bits<M>>,
}

impl<const N: usize, const M: usize> Logic for ZeroExtend<N, M> {
    fn update(&mut self) {
        self.wide.next = bit_cast::<M, N>(self.narrow.val());
    }
    fn connect(&mut self) {
        assert!(M > N, "ZeroExtend must widen");
        self.wide.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!("always @(*) wide = {{{{{}{{1'b0}}}}, narrow}};", M - N))
    }
}
