//! Concatenation of two bit vectors.
use rust_hdl::prelude::*;

/// `joined = {high, low}` (`H + L == W`). rust-hdl has no concatenation operator, and
/// widening with `bit_cast` exports a mask expression that Verilator reports as WIDTH.
#[derive(LogicBlock, Default)]
pub struct Concat<const H: usize, const L: usize, const W: usize> {
    pub high: Signal<In, Bits<H>>,
    pub low: Signal<In, Bits<L>>,
    pub joined: Signal<Out, Bits<W>>,
}

impl<const H: usize, const L: usize, const W: usize> Logic for Concat<H, L, W> {
    fn update(&mut self) {
        let shift: Bits<32> = (L as u64).into();
        self.joined.next = (bit_cast::<W, H>(self.high.val()) << shift) | bit_cast::<W, L>(self.low.val());
    }
    fn connect(&mut self) {
        assert_eq!(H + L, W, "Concat widths");
        self.joined.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) joined = {high, low};".into())
    }
}
