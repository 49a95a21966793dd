//! The kernel unit's walk over the OFM elements (TRM §4.6; digest `shared/spec/ethos-u65.md`
//! §2.2): the element (`y`, `x`, `c`) in NHWC order, the channels innermost (the order in
//! which consecutive elements share IFM, IFM2 and OFM words: the word caches and the OFM write
//! buffer rely on it), whether it is the kernel's last, and whether the previous element's
//! OFM byte is still to be taken (`deferred`: an element with an IFM2 byte, but the last,
//! leaves its OFM byte to the next element's READ_A, which takes it beside its read when the
//! memory side can, `taken`; it is dropped when the unit leaves READ_A otherwise, after a
//! failed write: docs/ethos.md "Elementwise unit timing"). A sub-block of
//! [`super::Elementwise`], apart so that the state machine's file stays a readable size; the
//! model is `model/src/ethos/elementwise_walk.rs` (`advance`, `last`).
//!
//! Ports: `clear` (CHECK passed) starts at element (0, 0, 0); `step` moves to the next
//! element (y stays after the last: the unit then leaves the loop), `defer` with the OFM
//! byte deferred; `read_a` (the unit is in READ_A) and `taken`; the OFM's sides. `word`: an
//! ELEMENTWISE a word of channels at a time (issue 19): the element is channels c..c+7 (c a
//! multiple of 8), a step moves to the next word, and `strb` has the OFM strobes of the
//! element's lanes (fewer than 8 in the map's last, partial word). A pool with word lanes
//! walks the same way (`word` set by the unit; its drain in `pool_taps.rs`).
use crate::primitives::constant as k;
use crate::primitives::{Concat, Reg, RegSelect};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ElementwiseWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub step: Signal<In, Bit>,
    pub ofm_height_m1: Signal<In, Bits<16>>,
    pub ofm_width_m1: Signal<In, Bits<16>>,
    pub ofm_depth_m1: Signal<In, Bits<16>>,
    pub y: Signal<Out, Bits<16>>,
    pub x: Signal<Out, Bits<16>>,
    pub c: Signal<Out, Bits<16>>,
    pub last: Signal<Out, Bit>,
    pub defer: Signal<In, Bit>,
    pub read_a: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    /// READ_A holds the previous element's OFM byte.
    pub deferred: Signal<Out, Bit>,
    pub word: Signal<In, Bit>,
    pub strb: Signal<Out, Bits<8>>,
    /// The element's channel (its word's, in word mode) is the map's last.
    c_end: Signal<Local, Bit>,
    /// The same for the step (a variable of its own: `last` must not share one with the
    /// step's logic, or Verilator orders `step` before `last`, a combinational loop through
    /// the unit).
    c_wrap: Signal<Local, Bit>,
    rem: Signal<Local, Bits<16>>,
    seven16: Constant<Bits<16>>,
    eight16: Constant<Bits<16>>,
    seven3: Constant<Bits<3>>,
    ff8: Constant<Bits<8>>,
    deferred_reg: Reg<Bit>,
    /// The element {y, x, c}, one register with an enable (`step` and `clear` follow the
    /// memory's response, so `d = q` copies and the step's arithmetic would run on every
    /// `eval`): the next element, from registers only (`*_next`), or 0 with `clear` (issue 19).
    pos: RegSelect<Bits<48>>,
    pos_yx: Concat<16, 16, 32>,
    pos_yxc: Concat<32, 16, 48>,
    zero48: Constant<Bits<48>>,
    y_next: Signal<Local, Bits<16>>,
    x_next: Signal<Local, Bits<16>>,
    c_next: Signal<Local, Bits<16>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
}

impl Default for ElementwiseWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            step: Default::default(),
            ofm_height_m1: Default::default(),
            ofm_width_m1: Default::default(),
            ofm_depth_m1: Default::default(),
            y: Default::default(),
            x: Default::default(),
            c: Default::default(),
            last: Default::default(),
            defer: Default::default(),
            read_a: Default::default(),
            taken: Default::default(),
            deferred: Default::default(),
            word: Default::default(),
            strb: Default::default(),
            c_end: Default::default(),
            c_wrap: Default::default(),
            rem: Default::default(),
            seven16: k(7),
            eight16: k(8),
            seven3: k(7),
            ff8: k(0xff),
            deferred_reg: Default::default(),
            pos: Default::default(),
            pos_yx: Default::default(),
            pos_yxc: Default::default(),
            zero48: k(0),
            y_next: Default::default(),
            x_next: Default::default(),
            c_next: Default::default(),
            zero16: k(0),
            one16: k(1),
        }
    }
}

impl Logic for ElementwiseWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, deferred_reg);
        self.pos.clock.next = self.clock.val();
        self.deferred_reg.reset.next = self.reset.val();
        self.pos.reset.next = self.reset.val();
        self.y.next = self.pos.q.val().get_bits::<16>(32);
        self.x.next = self.pos.q.val().get_bits::<16>(16);
        self.c.next = self.pos.q.val().get_bits::<16>(0);
        self.c_end.next = self.pos.q.val().get_bits::<16>(0) == self.ofm_depth_m1.val();
        if self.word.val() {
            self.c_end.next = !((self.pos.q.val().get_bits::<16>(0) | self.seven16.val()) < self.ofm_depth_m1.val());
        }
        self.rem.next = self.ofm_depth_m1.val() - self.pos.q.val().get_bits::<16>(0);
        self.strb.next = self.ff8.val();
        if self.rem.val() < self.seven16.val() {
            self.strb.next = self.ff8.val() >> (self.seven3.val() - self.rem.val().get_bits::<3>(0));
        }
        self.last.next = self.c_end.val()
            & (self.pos.q.val().get_bits::<16>(16) == self.ofm_width_m1.val())
            & (self.pos.q.val().get_bits::<16>(32) == self.ofm_height_m1.val());
        // Kept until READ_A takes it (dropped when the unit leaves READ_A otherwise). The
        // outputs are read nowhere here (they follow registers only, so that Verilator splits
        // them from the inputs the unit derives from them: no combinational loop).
        self.deferred.next = self.read_a.val() & self.deferred_reg.q.val();
        self.deferred_reg.d.next = self.defer.val() | (self.read_a.val() & self.deferred_reg.q.val() & !self.taken.val());
        self.c_wrap.next = self.pos.q.val().get_bits::<16>(0) == self.ofm_depth_m1.val();
        if self.word.val() {
            self.c_wrap.next = !((self.pos.q.val().get_bits::<16>(0) | self.seven16.val()) < self.ofm_depth_m1.val());
        }
        self.c_next.next = self.pos.q.val().get_bits::<16>(0) + self.one16.val();
        if self.word.val() {
            self.c_next.next = self.pos.q.val().get_bits::<16>(0) + self.eight16.val();
        }
        self.x_next.next = self.pos.q.val().get_bits::<16>(16);
        self.y_next.next = self.pos.q.val().get_bits::<16>(32);
        if self.c_wrap.val() {
            self.c_next.next = self.zero16.val();
            if self.pos.q.val().get_bits::<16>(16) == self.ofm_width_m1.val() {
                self.x_next.next = self.zero16.val();
                if self.pos.q.val().get_bits::<16>(32) != self.ofm_height_m1.val() {
                    self.y_next.next = self.pos.q.val().get_bits::<16>(32) + self.one16.val();
                }
            } else {
                self.x_next.next = self.pos.q.val().get_bits::<16>(16) + self.one16.val();
            }
        }
        self.pos_yx.high.next = self.y_next.val();
        self.pos_yx.low.next = self.x_next.val();
        self.pos_yxc.high.next = self.pos_yx.joined.val();
        self.pos_yxc.low.next = self.c_next.val();
        self.pos.enable.next = self.step.val() | self.clear.val();
        self.pos.select.next = self.clear.val();
        self.pos.d0.next = self.pos_yxc.joined.val();
        self.pos.d1.next = self.zero48.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseWalk::default, "elementwise_walk");
}
