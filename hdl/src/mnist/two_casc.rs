//! 16-bit two's-complement adder with saturation control, "2CASC" (seeds/002 §6.2, Figure 3).
use crate::primitives::SignExtend;
use rust_hdl::prelude::*;

/// `sum = a + b`, saturated to 0x7FFF / 0x8000.
///
/// Built as the datasheet draws it: both operands are sign-extended to 17 bits (the MSB is
/// duplicated), added by a plain 17-bit adder, and the two MSBs of that sum select the
/// result: `00`/`11` the low 16 bits, `01` the largest positive value, `10` the smallest
/// negative value. Purely combinational.
#[derive(LogicBlock)]
pub struct TwoCasc {
    pub a: Signal<In, Signed<16>>,
    pub b: Signal<In, Signed<16>>,
    pub sum: Signal<Out, Signed<16>>,
    extend_a: SignExtend<16, 17>,
    extend_b: SignExtend<16, 17>,
    sum17: Signal<Local, Signed<17>>,
    sum17_bits: Signal<Local, Bits<17>>,
    max_positive: Constant<Signed<16>>,
    min_negative: Constant<Signed<16>>,
}

impl TwoCasc {
    /// An adder that saturates to `max_positive` and `min_negative` instead of the
    /// datasheet's limits. Exists so the test bench can prove it catches a wrong constant.
    pub fn with_limits(max_positive: i64, min_negative: i64) -> Self {
        Self {
            a: Default::default(),
            b: Default::default(),
            sum: Default::default(),
            extend_a: Default::default(),
            extend_b: Default::default(),
            sum17: Default::default(),
            sum17_bits: Default::default(),
            max_positive: Constant::new(signed::<16>(max_positive)),
            min_negative: Constant::new(signed::<16>(min_negative)),
        }
    }
}

impl Default for TwoCasc {
    fn default() -> Self {
        Self::with_limits(0x7FFF, -0x8000)
    }
}

impl Logic for TwoCasc {
    #[hdl_gen]
    fn update(&mut self) {
        self.extend_a.narrow.next = self.a.val();
        self.extend_b.narrow.next = self.b.val();
        self.sum17.next = self.extend_a.wide.val() + self.extend_b.wide.val();
        self.sum17_bits.next = unsigned_cast(self.sum17.val());
        self.sum.next = signed_cast(self.sum17_bits.val().get_bits::<16>(0));
        if !self.sum17_bits.val().get_bit(16) & self.sum17_bits.val().get_bit(15) {
            self.sum.next = self.max_positive.val();
        }
        if self.sum17_bits.val().get_bit(16) & !self.sum17_bits.val().get_bit(15) {
            self.sum.next = self.min_negative.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(TwoCasc::default, "two_casc");
}
