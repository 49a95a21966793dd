//! The kernel unit's walk over the OFM elements (TRM §4.6; digest `shared/spec/ethos-u65.md`
//! §2.2): the element (`y`, `x`, `c`) in NHWC order, the channels innermost (the order in
//! which consecutive elements share IFM, IFM2 and OFM words: the word caches and the OFM write
//! buffer rely on it), whether it is the kernel's last, and whether the previous element's
//! OFM byte is still to be taken (`deferred`: an element with an IFM2 byte, but the last,
//! leaves its OFM byte to the next element's READ_A, which takes it beside its read when the
//! memory side can, `taken`; it is dropped when the unit leaves READ_A otherwise, after a
//! failed write: docs/ethos.md "Elementwise unit timing"). A sub-block of
//! [`super::Elementwise`], apart so that the state machine's file stays a readable size; the
//! model is `model/src/ethos/elementwise.rs` (`advance`, `last`).
//!
//! Ports: `clear` (CHECK passed) starts at element (0, 0, 0); `step` moves to the next
//! element (y stays after the last: the unit then leaves the loop), `defer` with the OFM
//! byte deferred; `read_a` (the unit is in READ_A) and `taken`; the OFM's sides; `lanes` (a
//! pool runs word lanes: `step` moves to the next word, past the word's last channel, and
//! `last` is the kernel's last word; issue 19, the pool's drain in `pool_taps.rs`).
use crate::primitives::constant as k;
use crate::primitives::Reg;
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
    pub lanes: Signal<In, Bit>,
    /// The element's last channel: its word's last lane with `lanes`, else `c`.
    c_top: Signal<Local, Bits<16>>,
    deferred_reg: Reg<Bit>,
    y_reg: Reg<Bits<16>>,
    x_reg: Reg<Bits<16>>,
    c_reg: Reg<Bits<16>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    seven16: Constant<Bits<16>>,
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
            lanes: Default::default(),
            c_top: Default::default(),
            deferred_reg: Default::default(),
            y_reg: Default::default(),
            x_reg: Default::default(),
            c_reg: Default::default(),
            zero16: k(0),
            one16: k(1),
            seven16: k(7),
        }
    }
}

impl Logic for ElementwiseWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, y_reg, x_reg, c_reg, deferred_reg);
        self.deferred_reg.reset.next = self.reset.val();
        self.y_reg.reset.next = self.reset.val();
        self.x_reg.reset.next = self.reset.val();
        self.c_reg.reset.next = self.reset.val();
        self.y.next = self.y_reg.q.val();
        self.x.next = self.x_reg.q.val();
        self.c.next = self.c_reg.q.val();
        self.c_top.next = self.c_reg.q.val();
        if self.lanes.val() {
            self.c_top.next = self.c_reg.q.val() | self.seven16.val();
        }
        // (`last` apart from `c_top`, which the step reads: Verilator splits them, no loop
        // through the unit's `step`.)
        self.last.next = (self.c_reg.q.val() == self.ofm_depth_m1.val())
            & (self.x_reg.q.val() == self.ofm_width_m1.val())
            & (self.y_reg.q.val() == self.ofm_height_m1.val());
        if self.lanes.val() {
            self.last.next = ((self.c_reg.q.val() | self.seven16.val()) >= self.ofm_depth_m1.val())
                & (self.x_reg.q.val() == self.ofm_width_m1.val())
                & (self.y_reg.q.val() == self.ofm_height_m1.val());
        }
        // Kept until READ_A takes it (dropped when the unit leaves READ_A otherwise). The
        // outputs are read nowhere here (they follow registers only, so that Verilator splits
        // them from the inputs the unit derives from them: no combinational loop).
        self.deferred.next = self.read_a.val() & self.deferred_reg.q.val();
        self.deferred_reg.d.next = self.defer.val() | (self.read_a.val() & self.deferred_reg.q.val() & !self.taken.val());
        if self.step.val() {
            self.c_reg.d.next = self.c_top.val() + self.one16.val();
            if self.c_top.val() >= self.ofm_depth_m1.val() {
                self.c_reg.d.next = self.zero16.val();
                if self.x_reg.q.val() == self.ofm_width_m1.val() {
                    self.x_reg.d.next = self.zero16.val();
                    if self.y_reg.q.val() != self.ofm_height_m1.val() {
                        self.y_reg.d.next = self.y_reg.q.val() + self.one16.val();
                    }
                } else {
                    self.x_reg.d.next = self.x_reg.q.val() + self.one16.val();
                }
            }
        }
        if self.clear.val() {
            self.y_reg.d.next = self.zero16.val();
            self.x_reg.d.next = self.zero16.val();
            self.c_reg.d.next = self.zero16.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseWalk::default, "elementwise_walk");
}
