//! Sign extension of a two's-complement bit vector held in `Bits`.
use rust_hdl::prelude::*;

/// `wide` is `narrow` with its top bit repeated up to `M` bits (`M > N`): [`super::SignExtend`]
/// for datapaths that keep two's-complement values in `Bits`.
#[derive(LogicBlock, Default)]
pub struct SignExtendBits<const N: usize, const M: usize> {
    pub narrow: Signal<In, Bits<N>>,
    pub wide: Signal<Out, Bits<M>>,
}

impl<const N: usize, const M: usize> Logic for SignExtendBits<N, M> {
    fn update(&mut self) {
        let v = self.narrow.val();
        let mut wide: Bits<M> = bit_cast::<M, N>(v);
        if v.get_bit(N - 1) {
            for i in N..M {
                wide = wide.replace_bit(i, true);
            }
        }
        self.wide.next = wide;
    }
    fn connect(&mut self) {
        assert!(M > N, "SignExtendBits must widen");
        self.wide.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!("always @(*) wide = {{{{{}{{narrow[{}]}}}}, narrow}};", M - N, N - 1))
    }
}
