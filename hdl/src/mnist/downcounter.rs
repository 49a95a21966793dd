//! The FSM's 16-bit downcounter (seeds/002 §8, Figure 4).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// On each rising edge, unless `freeze` holds it: `reset` → 0; `load` (FSM_ACC in BIAS) →
/// `start` (CTR[15:0] = {DB, DD}, an integer); `count_down` (FSM_ACC in ACC) → count - 1,
/// holding at 0. `ctr_out` is high while the count is 0, so ACC lasts `start` + 1 cycles.
#[derive(LogicBlock)]
pub struct Downcounter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub freeze: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub count_down: Signal<In, Bit>,
    pub start: Signal<In, Bits<16>>,
    pub ctr_out: Signal<Out, Bit>,
    count: Reg<Bits<16>>,
    zero: Constant<Bits<16>>,
    one: Constant<Bits<16>>,
}

impl Default for Downcounter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            freeze: Default::default(),
            load: Default::default(),
            count_down: Default::default(),
            start: Default::default(),
            ctr_out: Default::default(),
            count: Default::default(),
            zero: Constant::new(0.into()),
            one: Constant::new(1.into()),
        }
    }
}

impl Logic for Downcounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        self.count.reset.next = self.reset.val();
        if !self.freeze.val() {
            if self.load.val() {
                self.count.d.next = self.start.val();
            } else if self.count_down.val() & (self.count.q.val() != self.zero.val()) {
                self.count.d.next = self.count.q.val() - self.one.val();
            }
        }
        self.ctr_out.next = self.count.q.val() == self.zero.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Downcounter::default, "downcounter");
}
