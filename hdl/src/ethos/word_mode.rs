//! Whether an ELEMENTWISE runs a word of channels at a time (issue 19, word mode; TRM §4.6
//! feature-map registers; docs/ethos.md "Elementwise unit timing", *Word mode*): the IFM2
//! map's lane layout (`lane_layout.rs`, watching the IFM2's LATCH loads), the decision and the
//! unit's `word` register. A sub-block of [`super::Elementwise`]; the model is
//! `npu_model::ethos::elementwise_memory::word_mode`.
//!
//! Decision: word mode when the IFM and OFM lay channel c at lane c mod 8 (`word_lanes`, the
//! pool's condition, from `pool_taps.rs`), and so does the IFM2 unless the operand is the
//! scalar (`scalar_operand`, IFM2_BROADCAST[7]); an IFM2 broadcast along the channels
//! (`broadcast_c`, IFM2_BROADCAST[2]: every lane the same byte) runs an element at a time, as
//! does a POOL (its own word lanes: `pool_taps.rs`). Then the unit runs a word of 8 channels an
//! element through the 8 lanes (`elementwise_lanes.rs`); other maps run an element at a time.
//! Decided in CHECK (`decide`) and kept in a register, so that the element loop's logic reads a
//! register only.
use super::lane_layout::LaneLayout;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct WordMode {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The IFM2 map's LATCH loads.
    pub ifm2_load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub pool: Signal<In, Bit>,
    pub word_lanes: Signal<In, Bit>,
    pub scalar_operand: Signal<In, Bit>,
    pub broadcast_c: Signal<In, Bit>,
    /// CHECK passes: the kernel's element loop starts.
    pub decide: Signal<In, Bit>,
    /// The kernel runs in word mode (a register, set in CHECK).
    pub word: Signal<Out, Bit>,
    word_reg: Reg<Bit>,
    ifm2_layout: LaneLayout,
    qualifies: Signal<Local, Bit>,
}

impl Logic for WordMode {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word_reg);
        self.word_reg.reset.next = self.reset.val();
        self.ifm2_layout.clock.next = self.clock.val();
        self.ifm2_layout.reset.next = self.reset.val();
        self.ifm2_layout.load.next = self.ifm2_load.val();
        self.ifm2_layout.load_slot.next = self.load_slot.val();
        self.ifm2_layout.load_value.next = self.load_value.val();
        self.qualifies.next =
            !self.pool.val() & self.word_lanes.val() & (self.scalar_operand.val() | (self.ifm2_layout.lanes.val() & !self.broadcast_c.val()));
        if self.decide.val() {
            self.word_reg.d.next = self.qualifies.val();
        }
        self.word.next = self.word_reg.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WordMode::default, "word_mode");
}
