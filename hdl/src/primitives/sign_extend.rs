//! Sign extension of a signed value to a wider one.
use rust_hdl::prelude::*;

/// `wide` is `narrow` sign-extended from `N` to `M` bits (`M > N`).
///
/// rust-hdl exports `signed_bit_cast` as an assignment of a narrow `$signed()` to a wide
/// signal, which Verilator 5.006 reports as WIDTH; that class also covers real truncation
/// and may not be waived. The explicit concatenation here is exact and lint-clean.
#[derive(LogicBlock, Default)]
pub struct SignExtend<const N: usize, const M: usize> {
    pub narrow: Signal<In, Signed<N>>,
    pub wide: Signal<Out, Signed<M>>,
}

impl<const N: usize, const M: usize> Logic for SignExtend<N, M> {
    fn update(&mut self) {
        self.wide.next = signed_bit_cast::<M, N>(self.narrow.val());
    }
    fn connect(&mut self) {
        assert!(M > N, "SignExtend must widen");
        self.wide.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "always @(*) wide = {{{{{ext}{{narrow[{msb}]}}}}, narrow}};",
            ext = M - N,
            msb = N - 1
        ))
    }
}
