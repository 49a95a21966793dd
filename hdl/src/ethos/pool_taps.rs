//! The kernel unit's walk over a POOL's kernel taps (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §2.2): the tap (`ky`, `kx`), row by row, the running max or sum
//! of the taps inside the IFM in 8 lanes (`pool_lanes.rs`: lane i from byte i of the IFM word
//! `word`, taken with `word_load`) and their number (`count`). A sub-block of
//! [`super::Elementwise`] (its tap loop READ_A, WAIT_A); the tap's IFM position and
//! whether it is inside are the datapath's (`elementwise_datapath.rs`, `pooling_alu.rs`). The
//! model is part of `model/src/ethos/elementwise.rs` (`tap_taken`, `next_tap`).
//!
//! Word lanes (issue 19, docs/ethos.md "Pooling timing", decision): when the IFM and OFM both
//! lay channel c at lane c mod 8 of its word (`lanes`, from the maps' LATCH loads:
//! `lane_layout.rs`), one read of the IFM word at a tap feeds the 8 lanes of channels c..c+7
//! (the element's c a multiple of 8, the tap, whether it is inside and the count shared),
//! and the lanes' results go out one a cycle from the drain (below); else one channel at a
//! time, in lane 0 (the memory side shifts the element's byte there).
//!
//! The drain (issue 19, docs/ethos.md "Pooling timing", decision): when a word's last tap is
//! taken (`drain_load`), its lanes and count move to the drain registers, the tap walk starts
//! afresh and reads the next word's taps while the drain hands one lane a cycle to the pooling
//! ALU, ScaleProduct and Requantize (`drain_acc`, `drain_count`, `drain_lane`: the memory side
//! gathers the byte at the drain's OFM address plus the lane, `drain_take`). The drain holds
//! lanes 0 to `min(7, OFM depth - 1 - c)` with word lanes, lane 0 else. `drain_free`: it is
//! empty or takes its last lane this cycle (a word whose taps end while the drain is busy waits
//! in CALC, the taps kept).
//!
//! Ports: the unit's `state`; `skip`, READ_A steps past a tap in the padding (the
//! datapath's verdict on the tap, `elementwise_datapath.rs`); `issue`; the IFM zero point
//! and `mode` (0 max); the element's channel `c` and the OFM depth; the maps' LATCH loads.
//! Out: the tap, `word_lanes`, `last` (the tap is the kernel's last), `flight_last` and the
//! drain's registers. The outputs follow registers only (no loop through the datapath and the
//! memory side, which drive `drain_take`), but `drain_free`, which the unit's state machine
//! reads.
//! The tap's word counts in the cycle it comes (issue 19: no cycle of its own); the walk steps
//! as the tap's read is taken (`issue`), so that WAIT_A can offer the next tap's read in the
//! cycle this one's data come (issue 19, docs/ethos.md "Pooling timing": an inside tap a cycle
//! on a memory that answers in one), `flight_last` marking the word's last read in flight; a
//! tap from the cache or in the padding steps in READ_A, which reads nothing for a tap in the
//! padding (issue 19: no POOL_TAP cycle before each tap). Outside
//! the tap loop (READ_A, WAIT_A, and CALC, where a word waits for the drain) the walk starts
//! afresh at 0, and so it does when the drain loads.
use super::elementwise::state;
use super::lane_layout::LaneLayout;
use super::pool_lanes::PoolLanes;
use crate::primitives::constant as k;
use crate::primitives::{Concat, Reg, RegEn, RegSelect};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PoolTaps {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub state: Signal<In, Bits<4>>,
    /// The word's taps move to the drain (the walk starts afresh).
    pub drain_load: Signal<In, Bit>,
    /// The memory side takes the drain's lane this cycle.
    pub drain_take: Signal<In, Bit>,
    /// The drain forgets its word (CHECK).
    pub drain_clear: Signal<In, Bit>,
    /// READ_A's tap lies in the padding: the walk steps past it, nothing taken.
    pub skip: Signal<In, Bit>,
    /// The tap's read is taken (READ_A's, or WAIT_A's of the next tap): the walk steps at once
    /// (issue 19: the taps do not depend on data, so the next tap's read can be offered while
    /// this one's data come); `flight_last` keeps whether the read in flight is the word's last.
    pub issue: Signal<In, Bit>,
    /// The IFM word of the tap (the element's byte in lane 0 unless `lanes`), taken into the
    /// lanes when `word_load` (a pool's READ_A or WAIT_A takes its IFM byte).
    pub word: Signal<In, Bits<64>>,
    pub word_load: Signal<In, Bit>,
    pub zero_point: Signal<In, Bits<16>>,
    pub mode: Signal<In, Bits<3>>,
    pub kernel_height_m1: Signal<In, Bits<16>>,
    pub kernel_width_m1: Signal<In, Bits<16>>,
    pub c: Signal<In, Bits<16>>,
    pub ofm_depth_m1: Signal<In, Bits<16>>,
    pub ifm_load: Signal<In, Bit>,
    pub ofm_load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub ky: Signal<Out, Bits<16>>,
    pub kx: Signal<Out, Bits<16>>,
    /// The IFM and OFM allow word lanes (`lane_layout.rs`).
    pub word_lanes: Signal<Out, Bit>,
    /// The read in flight (WAIT_A) is the word's last tap: its data end the word.
    pub flight_last: Signal<Out, Bit>,
    /// The drain holds a word's lanes (`drain_acc`, `drain_count`), lane `drain_lane` next.
    pub drain_valid: Signal<Out, Bit>,
    pub drain_acc: Signal<Out, Bits<256>>,
    pub drain_count: Signal<Out, Bits<17>>,
    pub drain_lane: Signal<Out, Bits<3>>,
    pub last: Signal<Out, Bit>,
    /// The drain is empty or takes its last lane this cycle: it may load.
    pub drain_free: Signal<Out, Bit>,
    /// The tap, its count and the drain's lane, count and last lane with enables, their next
    /// values from registers only (`*_step`): their loads follow the memory's response, so
    /// `d = q` copies and the arithmetic would run on every `eval` (issue 19).
    /// {ky, kx}: one register, one enable (read as its bits: a local shared by `last` and
    /// `f_last` would be a false loop through `issue`).
    tap_reg: RegSelect<Bits<32>>,
    tap_next: Concat<16, 16, 32>,
    ky_step: Signal<Local, Bits<16>>,
    kx_step: Signal<Local, Bits<16>>,
    /// The lanes (and the drain's copy) with enables rather than `d = q`, and the choice of
    /// their next value in their clocked process: 256 bits each that the logic reading the
    /// memory's response would otherwise copy on every `eval` (issue 19).
    acc_reg: RegSelect<Bits<256>>,
    count_reg: RegSelect<Bits<17>>,
    d_valid: Reg<Bit>,
    d_acc: RegSelect<Bits<256>>,
    d_count: RegSelect<Bits<17>>,
    d_lane: RegSelect<Bits<3>>,
    d_last: RegEn<Bits<3>>,
    f_last: Reg<Bit>,
    /// The drain's last lane for the word at `c`.
    lanes_m1: Signal<Local, Bits<3>>,
    depth_left: Signal<Local, Bits<16>>,
    /// The tap moves on: its word taken, or it lies in the padding (`skip`).
    step: Signal<Local, Bit>,
    lanes: PoolLanes,
    ifm_layout: LaneLayout,
    ofm_layout: LaneLayout,
    in_taps: Signal<Local, Bit>,
    s_read_a: Constant<Bits<4>>,
    s_wait_a: Constant<Bits<4>>,
    s_calc: Constant<Bits<4>>,
    zero3: Constant<Bits<3>>,
    one3: Constant<Bits<3>>,
    seven3: Constant<Bits<3>>,
    seven16: Constant<Bits<16>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero17: Constant<Bits<17>>,
    one17: Constant<Bits<17>>,
    zero256: Constant<Bits<256>>,
    zero32: Constant<Bits<32>>,
}

impl Default for PoolTaps {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            state: Default::default(),
            drain_load: Default::default(),
            drain_take: Default::default(),
            drain_clear: Default::default(),
            skip: Default::default(),
            issue: Default::default(),
            flight_last: Default::default(),
            f_last: Default::default(),
            word: Default::default(),
            word_load: Default::default(),
            zero_point: Default::default(),
            mode: Default::default(),
            kernel_height_m1: Default::default(),
            kernel_width_m1: Default::default(),
            c: Default::default(),
            ofm_depth_m1: Default::default(),
            ifm_load: Default::default(),
            ofm_load: Default::default(),
            load_slot: Default::default(),
            load_value: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            word_lanes: Default::default(),
            last: Default::default(),
            drain_valid: Default::default(),
            drain_acc: Default::default(),
            drain_count: Default::default(),
            drain_lane: Default::default(),
            drain_free: Default::default(),
            d_valid: Default::default(),
            d_acc: Default::default(),
            d_count: Default::default(),
            d_lane: Default::default(),
            d_last: Default::default(),
            lanes_m1: Default::default(),
            depth_left: Default::default(),
            tap_reg: Default::default(),
            tap_next: Default::default(),
            ky_step: Default::default(),
            kx_step: Default::default(),
            acc_reg: Default::default(),
            count_reg: Default::default(),
            step: Default::default(),
            lanes: Default::default(),
            ifm_layout: Default::default(),
            ofm_layout: Default::default(),
            in_taps: Default::default(),
            s_read_a: k(state::READ_A.into()),
            s_wait_a: k(state::WAIT_A.into()),
            s_calc: k(state::CALC.into()),
            zero3: k(0),
            one3: k(1),
            seven3: k(7),
            seven16: k(7),
            zero16: k(0),
            one16: k(1),
            zero17: k(0),
            one17: k(1),
            zero256: Constant::new(0u64.into()),
            zero32: k(0),
        }
    }
}

impl Logic for PoolTaps {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, d_valid, f_last);
        clock!(self, clock, tap_reg, count_reg, d_count, d_lane, d_last, acc_reg, d_acc);
        self.f_last.reset.next = self.reset.val();
        self.d_valid.reset.next = self.reset.val();
        self.d_acc.reset.next = self.reset.val();
        self.d_count.reset.next = self.reset.val();
        self.d_lane.reset.next = self.reset.val();
        self.d_last.reset.next = self.reset.val();
        self.tap_reg.reset.next = self.reset.val();
        self.acc_reg.reset.next = self.reset.val();
        self.count_reg.reset.next = self.reset.val();
        // The layout of the IFM and the OFM (LATCH): word lanes when both allow them.
        self.ifm_layout.clock.next = self.clock.val();
        self.ifm_layout.reset.next = self.reset.val();
        self.ifm_layout.load.next = self.ifm_load.val();
        self.ifm_layout.load_slot.next = self.load_slot.val();
        self.ifm_layout.load_value.next = self.load_value.val();
        self.ofm_layout.clock.next = self.clock.val();
        self.ofm_layout.reset.next = self.reset.val();
        self.ofm_layout.load.next = self.ofm_load.val();
        self.ofm_layout.load_slot.next = self.load_slot.val();
        self.ofm_layout.load_value.next = self.load_value.val();
        self.word_lanes.next = self.ifm_layout.lanes.val() & self.ofm_layout.lanes.val();
        // The lanes' next max or sum, and the element's lane for CALC.
        self.lanes.acc.next = self.acc_reg.q.val();
        self.lanes.word.next = self.word.val();
        self.lanes.zero_point.next = self.zero_point.val();
        self.lanes.first.next = self.count_reg.q.val() == self.zero17.val();
        self.lanes.max.next = self.mode.val() == self.zero3.val();
        self.lanes.enable.next = self.word_load.val();
        self.ky.next = self.tap_reg.q.val().get_bits::<16>(16);
        self.kx.next = self.tap_reg.q.val().get_bits::<16>(0);
        self.drain_valid.next = self.d_valid.q.val();
        self.flight_last.next = self.f_last.q.val();
        self.drain_acc.next = self.d_acc.q.val();
        self.drain_count.next = self.d_count.q.val();
        self.drain_lane.next = self.d_lane.q.val();
        self.drain_free.next = !self.d_valid.q.val() | (self.drain_take.val() & (self.d_lane.q.val() == self.d_last.q.val()));
        self.last.next = (self.tap_reg.q.val().get_bits::<16>(0) == self.kernel_width_m1.val()) & (self.tap_reg.q.val().get_bits::<16>(16) == self.kernel_height_m1.val());
        // The word at `c` (a multiple of 8 with word lanes) has lanes up to the map's depth.
        self.depth_left.next = self.ofm_depth_m1.val() - self.c.val();
        self.lanes_m1.next = self.zero3.val();
        if self.ifm_layout.lanes.val() & self.ofm_layout.lanes.val() {
            self.lanes_m1.next = self.seven3.val();
            if self.depth_left.val() < self.seven16.val() {
                self.lanes_m1.next = self.depth_left.val().get_bits::<3>(0);
            }
        }
        self.in_taps.next = (self.state.val() == self.s_read_a.val())
            | (self.state.val() == self.s_wait_a.val())
            | (self.state.val() == self.s_calc.val());
        // The lanes start afresh outside the tap loop and as the drain loads, else take the
        // tap's word (as `count_reg`, below).
        self.acc_reg.enable.next = !self.in_taps.val() | self.word_load.val() | self.drain_load.val();
        self.acc_reg.select.next = self.word_load.val() & !self.drain_load.val();
        self.acc_reg.d0.next = self.zero256.val();
        self.acc_reg.d1.next = self.lanes.accumulated.val();
        self.d_acc.enable.next = self.drain_load.val();
        self.d_acc.select.next = self.word_load.val();
        self.d_acc.d0.next = self.acc_reg.q.val();
        self.d_acc.d1.next = self.lanes.accumulated.val();
        // The tap's word taken (READ_A from the cache, WAIT_A from memory): it counts in every
        // lane. The walk steps to the next tap, row by row, as READ_A takes the tap's word from
        // the cache or skips a tap in the padding, and as a tap's read is taken (`issue`: its
        // word counts when it comes, the next tap's read may be offered meanwhile; issue 19).
        // After the last tap the unit moves the word to the drain or CALC, and the walk starts
        // afresh.
        self.step.next = (self.word_load.val() & (self.state.val() == self.s_read_a.val())) | self.skip.val() | self.issue.val();
        // (The tap's test again, not `last`: this statement reads `issue`, which follows the
        // read request; Verilator would join it to `last`'s readers, a false loop.)
        if self.issue.val() {
            self.f_last.d.next = (self.tap_reg.q.val().get_bits::<16>(0) == self.kernel_width_m1.val()) & (self.tap_reg.q.val().get_bits::<16>(16) == self.kernel_height_m1.val());
        }
        // The walk's next tap, row by row (outside the tap loop and as the drain loads: 0).
        self.kx_step.next = self.tap_reg.q.val().get_bits::<16>(0) + self.one16.val();
        self.ky_step.next = self.tap_reg.q.val().get_bits::<16>(16);
        if self.tap_reg.q.val().get_bits::<16>(0) == self.kernel_width_m1.val() {
            self.kx_step.next = self.zero16.val();
            if self.tap_reg.q.val().get_bits::<16>(16) != self.kernel_height_m1.val() {
                self.ky_step.next = self.tap_reg.q.val().get_bits::<16>(16) + self.one16.val();
            }
        }
        self.tap_next.high.next = self.ky_step.val();
        self.tap_next.low.next = self.kx_step.val();
        self.tap_reg.enable.next = !self.in_taps.val() | self.step.val() | self.drain_load.val();
        self.tap_reg.select.next = self.drain_load.val() | (!self.in_taps.val() & !self.step.val());
        self.tap_reg.d0.next = self.tap_next.joined.val();
        self.tap_reg.d1.next = self.zero32.val();
        self.count_reg.enable.next = !self.in_taps.val() | self.word_load.val() | self.drain_load.val();
        self.count_reg.select.next = self.drain_load.val() | (!self.in_taps.val() & !self.word_load.val());
        self.count_reg.d0.next = self.count_reg.q.val() + self.one17.val();
        self.count_reg.d1.next = self.zero17.val();
        // The drain: a lane a cycle as the memory side takes it; loaded with the word's lanes
        // (its last tap's word counted in) as the walk starts afresh.
        self.d_lane.enable.next = self.drain_take.val() | self.drain_load.val();
        self.d_lane.select.next = self.drain_load.val();
        self.d_lane.d0.next = self.d_lane.q.val() + self.one3.val();
        self.d_lane.d1.next = self.zero3.val();
        self.d_count.enable.next = self.drain_load.val();
        self.d_count.select.next = self.word_load.val();
        self.d_count.d0.next = self.count_reg.q.val();
        self.d_count.d1.next = self.count_reg.q.val() + self.one17.val();
        self.d_last.enable.next = self.drain_load.val();
        self.d_last.d.next = self.lanes_m1.val();
        if self.drain_take.val() & (self.d_lane.q.val() == self.d_last.q.val()) {
            self.d_valid.d.next = false;
        }
        if self.drain_load.val() {
            self.d_valid.d.next = true;
        }
        if self.drain_clear.val() {
            self.d_valid.d.next = false;
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PoolTaps::default, "pool_taps");
}
