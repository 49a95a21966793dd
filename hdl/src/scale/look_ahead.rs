//! ScaleNPU's look-ahead weight load, a sub-block of the layer engine (`engine.rs`): the counts
//! and the address of the second request generator on the memory port, which fetches the
//! weights of the K tile that follows in the walk into the other bank while STREAM reads X on
//! chip and while DRAIN waits (docs/scale.md, "Where the cycles go now", 1). The engine decides
//! when it starts and when it offers a request; this block keeps what it has done. Model:
//! `model/src/scale/look_ahead.rs`, which has the decisions.
//!
//! Its outputs are registers, or depend only on them and the tile sequencer's target address
//! (`ptr`, itself from registers), so that Verilator sees no loop through the engine's state
//! logic (docs/scale.md, the rule below the sub-block table).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LookAhead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// It starts now: `rows` weight rows from `ptr` (the tile sequencer's target).
    pub start: Signal<In, Bit>,
    /// It offers a request; the memory port takes requests.
    pub valid: Signal<In, Bit>,
    pub req_ready: Signal<In, Bit>,
    /// A memory response is its.
    pub resp: Signal<In, Bit>,
    /// A K tile takes the weights loaded ahead, or a layer starts: free for the next one
    /// (after this cycle's other changes).
    pub free: Signal<In, Bit>,
    pub rows: Signal<In, Bits<9>>,
    pub ptr: Signal<In, Bits<32>>,
    /// Address step between weight rows.
    pub stride: Signal<In, Bits<32>>,
    /// Started, and not yet taken by a K tile; started with rows left to request.
    pub on: Signal<Out, Bit>,
    pub more: Signal<Out, Bit>,
    /// A request was offered and not taken: it stays offered, unchanged.
    pub held: Signal<Out, Bit>,
    /// Responses are outstanding: the next memory response is its.
    pub pending: Signal<Out, Bit>,
    /// The weights of the next K tile are in the other bank.
    pub ready: Signal<Out, Bit>,
    /// Responses taken: the bank row the next one loads.
    pub index: Signal<Out, Bits<9>>,
    /// The address of its next request (`ptr` before it starts).
    pub addr: Signal<Out, Bits<32>>,

    started: Reg<Bit>,
    left: Reg<Bits<9>>,
    outstanding: Reg<Bits<9>>,
    responses: Reg<Bits<9>>,
    next_addr: Reg<Bits<32>>,
    offered: Reg<Bit>,
    one9: Constant<Bits<9>>,
    zero9: Constant<Bits<9>>,
    accept: Signal<Local, Bit>,
    left_now: Signal<Local, Bits<9>>,
    addr_now: Signal<Local, Bits<32>>,
}

impl Default for LookAhead {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            valid: Default::default(),
            req_ready: Default::default(),
            resp: Default::default(),
            free: Default::default(),
            rows: Default::default(),
            ptr: Default::default(),
            stride: Default::default(),
            on: Default::default(),
            more: Default::default(),
            held: Default::default(),
            pending: Default::default(),
            ready: Default::default(),
            index: Default::default(),
            addr: Default::default(),
            started: Default::default(),
            left: Default::default(),
            outstanding: Default::default(),
            responses: Default::default(),
            next_addr: Default::default(),
            offered: Default::default(),
            one9: Constant::new(1.into()),
            zero9: Constant::new(0.into()),
            accept: Default::default(),
            left_now: Default::default(),
            addr_now: Default::default(),
        }
    }
}

impl Logic for LookAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, started, left, outstanding, responses, next_addr, offered);
        self.started.reset.next = self.reset.val();
        self.left.reset.next = self.reset.val();
        self.outstanding.reset.next = self.reset.val();
        self.responses.reset.next = self.reset.val();
        self.next_addr.reset.next = self.reset.val();
        self.offered.reset.next = self.reset.val();

        self.on.next = self.started.q.val();
        self.more.next = self.started.q.val() & (self.left.q.val() != self.zero9.val());
        self.held.next = self.offered.q.val();
        self.pending.next = self.outstanding.q.val() != self.zero9.val();
        self.ready.next = self.started.q.val()
            & (self.left.q.val() == self.zero9.val())
            & (self.outstanding.q.val() == self.zero9.val());
        self.index.next = self.responses.q.val();
        self.addr.next = self.ptr.val();
        if self.started.q.val() {
            self.addr.next = self.next_addr.q.val();
        }

        // Rows left and address this cycle (the target's as it starts).
        self.left_now.next = self.rows.val();
        self.addr_now.next = self.ptr.val();
        if self.started.q.val() {
            self.left_now.next = self.left.q.val();
            self.addr_now.next = self.next_addr.q.val();
        }
        self.accept.next = self.valid.val() & self.req_ready.val();
        if self.start.val() {
            self.started.d.next = true;
            self.left.d.next = self.left_now.val();
            self.next_addr.d.next = self.addr_now.val();
        }
        if self.accept.val() {
            self.left.d.next = self.left_now.val() - self.one9.val();
            self.next_addr.d.next = self.addr_now.val() + self.stride.val();
        }
        self.offered.d.next = self.valid.val() & !self.req_ready.val();
        if self.accept.val() & !self.resp.val() {
            self.outstanding.d.next = self.outstanding.q.val() + self.one9.val();
        }
        if !self.accept.val() & self.resp.val() {
            self.outstanding.d.next = self.outstanding.q.val() - self.one9.val();
        }
        if self.resp.val() {
            self.responses.d.next = self.responses.q.val() + self.one9.val();
        }
        if self.free.val() {
            self.started.d.next = false;
            self.left.d.next = self.zero9.val();
            self.responses.d.next = self.zero9.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(LookAhead::default, "look_ahead");
}
