//! Whether a feature map lays channel c of every element at byte lane c mod 8 of its 64-bit
//! word (TRM §4.6 feature-map registers; `feature_map.rs` has the address): the condition of
//! a POOL a word of channels at a time (issue 19; `pool_taps.rs`, docs/ethos.md "Pooling
//! timing"). It watches the map's LATCH loads (the same `load`, `load_slot`, `load_value` as
//! the map's `FeatureMap`) and keeps, per slot, whether the value is a multiple of 8.
//!
//! Decision: `lanes` when the four tile bases, STRIDE_X, STRIDE_Y and the region's BASEP
//! (its low word; the high byte adds multiples of 2^32) are multiples of 8, and either the map
//! is NHWC with STRIDE_C 1 (channels in consecutive bytes) or NHCWB16 with STRIDE_C a multiple
//! of 8 (c mod 16 inside the brick). Then the address of (y, x, c) is 8·k + c mod 8 for every
//! y, x: channels 8j..8j+7 of one element lie in one word, lane c mod 8. The four bases are
//! all asked, whether the map uses its tiles or not: one rule, no tile arithmetic. The model is
//! `npu_model::ethos::elementwise_memory::lanes`.
use super::feature_map::BASEP_LOW;
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Slots that must hold multiples of 8: BASE0-3, STRIDE_X, STRIDE_Y and BASEP low.
const ALIGNED_SLOTS: u64 = 0b11_1111 | (1 << BASEP_LOW);

#[derive(LogicBlock)]
pub struct LaneLayout {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub lanes: Signal<Out, Bit>,
    /// Per slot: its value is a multiple of 8.
    aligned: Reg<Bits<16>>,
    /// STRIDE_C is 1; PRECISION[7:6] = 1 (NHCWB16).
    stride_c_one: Reg<Bit>,
    brick: Reg<Bit>,
    slot_bit: Signal<Local, Bits<16>>,
    stride_c_ok: Signal<Local, Bit>,
    need: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    seven40: Constant<Bits<40>>,
    zero40: Constant<Bits<40>>,
    one40: Constant<Bits<40>>,
    slot_stride_c: Constant<Bits<4>>,
    slot_precision: Constant<Bits<4>>,
    brick_code: Constant<Bits<2>>,
}

impl Default for LaneLayout {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            load_slot: Default::default(),
            load_value: Default::default(),
            lanes: Default::default(),
            aligned: Default::default(),
            stride_c_one: Default::default(),
            brick: Default::default(),
            slot_bit: Default::default(),
            stride_c_ok: Default::default(),
            need: k(ALIGNED_SLOTS),
            one16: k(1),
            seven40: k(7),
            zero40: k(0),
            one40: k(1),
            slot_stride_c: k(6),
            slot_precision: k(10),
            brick_code: k(1),
        }
    }
}

impl Logic for LaneLayout {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, aligned, stride_c_one, brick);
        self.aligned.reset.next = self.reset.val();
        self.stride_c_one.reset.next = self.reset.val();
        self.brick.reset.next = self.reset.val();
        self.slot_bit.next = self.one16.val() << self.load_slot.val();
        if self.load.val() {
            if (self.load_value.val() & self.seven40.val()) == self.zero40.val() {
                self.aligned.d.next = self.aligned.q.val() | self.slot_bit.val();
            } else {
                self.aligned.d.next = self.aligned.q.val() & !self.slot_bit.val();
            }
            if self.load_slot.val() == self.slot_stride_c.val() {
                self.stride_c_one.d.next = self.load_value.val() == self.one40.val();
            }
            if self.load_slot.val() == self.slot_precision.val() {
                self.brick.d.next = self.load_value.val().get_bits::<2>(6) == self.brick_code.val();
            }
        }
        self.stride_c_ok.next = self.stride_c_one.q.val();
        if self.brick.q.val() {
            self.stride_c_ok.next = self.aligned.q.val().get_bit(6);
        }
        self.lanes.next = ((self.aligned.q.val() & self.need.val()) == self.need.val()) & self.stride_c_ok.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(LaneLayout::default, "lane_layout");
}
