//! The phase request generator, a sub-block of the layer engine (`engine.rs`): the counts and
//! the address of the first request generator on the memory port's read channel, which reads
//! the rows of the current phase (BIAS, SUMS, WLOAD, STREAM; STREAM's rows on chip from the X
//! buffer or the result buffer count as requests too). RTL: `hdl/src/scale/phase_requests.rs`.
//! The engine decides what the phase is, when a request is offered and taken and whose a
//! response is; this block keeps what the phase has done.

/// What the engine does with the phase's requests in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// A request is taken (or a row read on chip); a response for the phase came.
    pub requested: bool,
    pub response: bool,
    /// Address step between the phase's requests.
    pub stride: u32,
    /// A request is offered and the read channel does not take it.
    pub stalled: bool,
}

#[derive(Clone, Debug, Default)]
pub struct PhaseRequests {
    /// The address of the next request.
    pub addr: u32,
    /// Requests taken, requests without their response, responses taken (in this phase).
    pub issued: u32,
    pub outstanding: u32,
    pub responses: u32,
    /// A request was offered and not taken: it stays offered, unchanged.
    pub held: bool,
}

impl PhaseRequests {
    /// The requests and responses of a cycle.
    pub fn clock(&mut self, s: &Step) {
        if s.requested {
            self.issued += 1;
            self.addr = self.addr.wrapping_add(s.stride);
        }
        self.held = s.stalled;
        match (s.requested, s.response) {
            (true, false) => self.outstanding += 1,
            (false, true) => self.outstanding -= 1,
            _ => {}
        }
        self.responses += u32::from(s.response);
    }

    /// A phase starts (or STREAM's next K tile on chip): the counts start at 0 (after this
    /// cycle's request and response), and the address at `first_addr` if given.
    pub fn start(&mut self, first_addr: Option<u32>) {
        self.issued = 0;
        self.responses = 0;
        if let Some(addr) = first_addr {
            self.addr = addr;
        }
    }
}
