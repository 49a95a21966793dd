//! ReLU1/ReLU2 (seeds/002 §6.3, Eqn. 1), one instance per MAC.
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// A 16-bit register that captures `max(x, 0)`, or `x` when `bypass` (BYPASS_ReLU1/2 from the
/// SSFR) is high, on each rising edge with `en_relu` high, and holds otherwise; `reset` → 0.
///
/// Registered, not combinational: FSM_ACC raises EN_ReLU for the one cycle in which the MAC
/// holds the finished sum (LAST, or BIAS of the next frame), and FSM_OUT loads PISO_OUT in the
/// cycle after it, when EN_ReLU is low again. See docs/mnist.md, "frame timing".
#[derive(LogicBlock)]
pub struct Relu {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en_relu: Signal<In, Bit>,
    pub bypass: Signal<In, Bit>,
    pub x: Signal<In, Signed<16>>,
    pub y: Signal<Out, Signed<16>>,
    held: Reg<Signed<16>>,
    zero: Constant<Signed<16>>,
}

impl Default for Relu {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en_relu: Default::default(),
            bypass: Default::default(),
            x: Default::default(),
            y: Default::default(),
            held: Default::default(),
            zero: Constant::new(0.into()),
        }
    }
}

impl Logic for Relu {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held);
        self.held.reset.next = self.reset.val();
        if self.en_relu.val() {
            if self.bypass.val() | !self.x.val().get_bit(15) {
                self.held.d.next = self.x.val();
            } else {
                self.held.d.next = self.zero.val();
            }
        }
        self.y.next = self.held.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Relu::default, "relu");
}
