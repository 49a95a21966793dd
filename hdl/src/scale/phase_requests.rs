//! ScaleNPU's phase request generator, a sub-block of the layer engine (`engine.rs`): the counts
//! and the address of the first request generator on the memory port's read channel, which
//! reads the rows of the current phase (BIAS, SUMS, WLOAD, STREAM; STREAM's rows on chip from
//! the X buffer or the result buffer count as requests too). The engine decides what the phase
//! is, when a request is offered and taken and whose a response is; this block keeps what the
//! phase has done. Model: `model/src/scale/phase_requests.rs`.
//!
//! Its outputs are registers, so that Verilator sees no loop through the engine's state logic
//! (docs/scale.md, the rule below the sub-block table).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PhaseRequests {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A request is taken (or a row read on chip); a response for the phase came.
    pub requested: Signal<In, Bit>,
    pub response: Signal<In, Bit>,
    /// Address step between the phase's requests.
    pub stride: Signal<In, Bits<32>>,
    /// A request is offered and the read channel does not take it.
    pub stalled: Signal<In, Bit>,
    /// A phase starts (or STREAM's next K tile on chip): the counts start at 0 (after this
    /// cycle's request and response), and with `load` the address at `first_addr`.
    pub clear: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub first_addr: Signal<In, Bits<32>>,
    /// The address of the next request.
    pub addr: Signal<Out, Bits<32>>,
    /// Requests taken, requests without their response, responses taken (in this phase).
    pub issued: Signal<Out, Bits<9>>,
    pub outstanding: Signal<Out, Bits<9>>,
    pub responses: Signal<Out, Bits<9>>,
    /// A request was offered and not taken: it stays offered, unchanged.
    pub held: Signal<Out, Bit>,

    req_addr: Reg<Bits<32>>,
    issued_r: Reg<Bits<9>>,
    outstanding_r: Reg<Bits<9>>,
    responses_r: Reg<Bits<9>>,
    held_r: Reg<Bit>,
    one9: Constant<Bits<9>>,
    zero9: Constant<Bits<9>>,
}

impl Default for PhaseRequests {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            requested: Default::default(),
            response: Default::default(),
            stride: Default::default(),
            stalled: Default::default(),
            clear: Default::default(),
            load: Default::default(),
            first_addr: Default::default(),
            addr: Default::default(),
            issued: Default::default(),
            outstanding: Default::default(),
            responses: Default::default(),
            held: Default::default(),
            req_addr: Default::default(),
            issued_r: Default::default(),
            outstanding_r: Default::default(),
            responses_r: Default::default(),
            held_r: Default::default(),
            one9: Constant::new(1u64.into()),
            zero9: Constant::new(0u64.into()),
        }
    }
}

impl Logic for PhaseRequests {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, req_addr, issued_r, outstanding_r, responses_r, held_r);
        self.req_addr.reset.next = self.reset.val();
        self.issued_r.reset.next = self.reset.val();
        self.outstanding_r.reset.next = self.reset.val();
        self.responses_r.reset.next = self.reset.val();
        self.held_r.reset.next = self.reset.val();
        self.addr.next = self.req_addr.q.val();
        self.issued.next = self.issued_r.q.val();
        self.outstanding.next = self.outstanding_r.q.val();
        self.responses.next = self.responses_r.q.val();
        self.held.next = self.held_r.q.val();
        if self.requested.val() {
            self.issued_r.d.next = self.issued_r.q.val() + self.one9.val();
            self.req_addr.d.next = self.req_addr.q.val() + self.stride.val();
        }
        self.held_r.d.next = self.stalled.val();
        if self.requested.val() & !self.response.val() {
            self.outstanding_r.d.next = self.outstanding_r.q.val() + self.one9.val();
        }
        if !self.requested.val() & self.response.val() {
            self.outstanding_r.d.next = self.outstanding_r.q.val() - self.one9.val();
        }
        if self.response.val() {
            self.responses_r.d.next = self.responses_r.q.val() + self.one9.val();
        }
        if self.clear.val() {
            self.issued_r.d.next = self.zero9.val();
            self.responses_r.d.next = self.zero9.val();
        }
        if self.load.val() {
            self.req_addr.d.next = self.first_addr.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PhaseRequests::default, "phase_requests");
}
