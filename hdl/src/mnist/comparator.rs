//! Auto comparator (seeds/002 §6.7, §9.5).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Keeps the largest ReLU result seen and its index.
///
/// `trig` is EN_ReLU; the comparator acts one cycle later (`trig_q`), when the ReLU registers
/// hold the values EN_ReLU captured. On each rising edge, unless `freeze` (EN_PISO_DEB) holds
/// everything: `reset` or `rst_comp` → index 0, largest 0x8000, no neuron seen; else with
/// `trig_q` and `en_comp` the frame's neurons get the next indices (ReLU1 the first, ReLU2
/// the second; ReLU1 only when `single`, in manual mode), and the larger of them (ReLU1 on a
/// tie) replaces the stored one if it is strictly larger or nothing was stored yet. Indices
/// saturate at 255. See `npu_model::mnist::comparator` and docs/mnist.md.
#[derive(LogicBlock)]
pub struct Comparator {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub freeze: Signal<In, Bit>,
    pub trig: Signal<In, Bit>,
    pub en_comp: Signal<In, Bit>,
    pub rst_comp: Signal<In, Bit>,
    pub single: Signal<In, Bit>,
    pub relu1: Signal<In, Signed<16>>,
    pub relu2: Signal<In, Signed<16>>,
    pub index: Signal<Out, Bits<8>>,
    pub largest: Signal<Out, Signed<16>>,
    trig_q: Reg<Bit>,
    seen: Reg<Bits<8>>,
    stored_index: Reg<Bits<8>>,
    stored_value: Reg<Signed<16>>,
    first_index: Signal<Local, Bits<8>>,
    second_index: Signal<Local, Bits<8>>,
    candidate_index: Signal<Local, Bits<8>>,
    candidate_value: Signal<Local, Signed<16>>,
    index_none: Constant<Bits<8>>,
    index_one: Constant<Bits<8>>,
    index_two: Constant<Bits<8>>,
    index_max: Constant<Bits<8>>,
    index_max_less_one: Constant<Bits<8>>,
    smallest: Constant<Signed<16>>,
}

impl Default for Comparator {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            freeze: Default::default(),
            trig: Default::default(),
            en_comp: Default::default(),
            rst_comp: Default::default(),
            single: Default::default(),
            relu1: Default::default(),
            relu2: Default::default(),
            index: Default::default(),
            largest: Default::default(),
            trig_q: Default::default(),
            seen: Default::default(),
            stored_index: Default::default(),
            stored_value: Reg::new(Signed::<16>::from(i16::MIN as i64)),
            first_index: Default::default(),
            second_index: Default::default(),
            candidate_index: Default::default(),
            candidate_value: Default::default(),
            index_none: Constant::new(0.into()),
            index_one: Constant::new(1.into()),
            index_two: Constant::new(2.into()),
            index_max: Constant::new(255.into()),
            index_max_less_one: Constant::new(254.into()),
            smallest: Constant::new(Signed::<16>::from(i16::MIN as i64)),
        }
    }
}

impl Logic for Comparator {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, trig_q, seen, stored_index, stored_value);
        self.trig_q.reset.next = self.reset.val();
        self.seen.reset.next = self.reset.val();
        self.stored_index.reset.next = self.reset.val();
        self.stored_value.reset.next = self.reset.val();
        // Saturating seen + 1 and seen + 2.
        self.first_index.next = self.seen.q.val() + self.index_one.val();
        if self.seen.q.val() == self.index_max.val() {
            self.first_index.next = self.index_max.val();
        }
        self.second_index.next = self.seen.q.val() + self.index_two.val();
        if self.seen.q.val() >= self.index_max_less_one.val() {
            self.second_index.next = self.index_max.val();
        }
        self.candidate_index.next = self.first_index.val();
        self.candidate_value.next = self.relu1.val();
        if !self.single.val() & (self.relu2.val() > self.relu1.val()) {
            self.candidate_index.next = self.second_index.val();
            self.candidate_value.next = self.relu2.val();
        }
        if !self.freeze.val() {
            self.trig_q.d.next = self.trig.val();
            if self.rst_comp.val() {
                self.seen.d.next = self.index_none.val();
                self.stored_index.d.next = self.index_none.val();
                self.stored_value.d.next = self.smallest.val();
            } else if self.trig_q.q.val() & self.en_comp.val() {
                if self.single.val() {
                    self.seen.d.next = self.first_index.val();
                } else {
                    self.seen.d.next = self.second_index.val();
                }
                if (self.stored_index.q.val() == self.index_none.val()) | (self.candidate_value.val() > self.stored_value.q.val()) {
                    self.stored_index.d.next = self.candidate_index.val();
                    self.stored_value.d.next = self.candidate_value.val();
                }
            }
        }
        self.index.next = self.stored_index.q.val();
        self.largest.next = self.stored_value.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Comparator::default, "comparator");
}
