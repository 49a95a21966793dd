//! The engine's read channel: which of the two request generators offers a request on the
//! memory port's read channel (the phase's, `phase_requests.rs`, or the look-ahead weight
//! load's, `look_ahead.rs`; never both), where STREAM's rows come from (memory, the X buffer, or
//! with REINPUTS the result buffer), the output FIFO's room check that holds a last K tile's
//! STREAM, and whose a read response is (docs/scale.md, "Memory master port and the AXI4
//! bridge" and "Where the cycles go now"). RTL: `hdl/src/scale/read_channel.rs`, a sub-block of
//! the engine whose outputs are the fields of `Reads`; here, as there, it reads only the
//! registers before the edge and the memory port's inputs.
use super::{Engine, In, State, OUT_WORDS};

/// The read channel's decisions this cycle (the RTL block's outputs).
pub(super) struct Reads {
    /// The phase's generator offers a request; it is taken (inside the RTL block: only this
    /// model's coverage events read it outside).
    pub main_valid: bool,
    pub accept: bool,
    /// STREAM reads a row on chip now: from the result buffer (REINPUTS), from the X buffer.
    pub buffer_read: bool,
    pub x_read: bool,
    /// The phase took a request (from memory or on chip).
    pub requested: bool,
    /// A memory response is the phase's; a response (from memory or on chip) is.
    pub mem_response: bool,
    pub response: bool,
    /// STREAM, DRAIN or NEXTN: the look-ahead's responses load weights.
    pub ahead_region: bool,
    /// The look-ahead starts now; it offers a request; a memory response is its.
    pub ahead_start: bool,
    pub ahead_valid: bool,
    pub ahead_resp: bool,
}

impl Engine {
    /// This column tile streams X from the X buffer (stored by the first column tile).
    fn x_on_chip(&self, c: &In) -> bool {
        !c.reinputs && !self.tiles.first_n && self.xbuf.fits()
    }

    /// STREAM reads X on chip (the X buffer, or the result buffer with REINPUTS): the read
    /// channel is free.
    pub(super) fn stream_on_chip(&self, c: &In) -> bool {
        self.state == State::Stream && (c.reinputs || self.x_on_chip(c))
    }

    /// The look-ahead weight load may use the port now: STREAM on chip, between column tiles
    /// (NEXTN), in the last DRAIN.
    pub(super) fn ahead_phase(&self, c: &In) -> bool {
        self.stream_on_chip(c) || matches!(self.state, State::Drain | State::NextN)
    }

    /// The look-ahead starts now: it clears the other bank, and offers its first request.
    fn ahead_start(&self, c: &In) -> bool {
        self.ahead_phase(c) && self.tiles.ahead() && !self.ahead.on() && !self.stop && self.weights.other_free(&self.systolic)
    }

    /// The look-ahead offers a request on the read channel.
    pub(super) fn ahead_valid(&self, c: &In) -> bool {
        self.ahead.held() || (self.ahead_phase(c) && self.ahead.more() && !self.stop) || self.ahead_start(c)
    }

    /// A last K tile's STREAM may issue its rows: with SAVEOUT, its first row only when the
    /// output FIFO has room for all of them (`output_writer.rs`).
    pub(super) fn room(&self, c: &In) -> bool {
        // (`ofifo.fits()`: the FIFO's own check that INROWS words fit, true for every INROWS.)
        !c.saveout || self.tiles.more_k() || self.requests.issued > 0 || (self.writer.reserved() + u32::from(c.inrows) <= OUT_WORDS as u32 && self.ofifo.fits())
    }

    /// The phase's generator offers a new read request.
    fn main_wants(&self, c: &In) -> bool {
        let (total, _) = self.phase(c);
        match self.state {
            // With REINPUTS, X comes from the result buffer; after the first column tile,
            // from the X buffer if it fits.
            State::Stream if c.reinputs || self.x_on_chip(c) => false,
            State::Stream => self.requests.issued < total && !self.stop && self.room(c),
            s => s.issues() && self.requests.issued < total && !self.stop,
        }
    }

    /// The phase's generator offers a read request.
    pub(super) fn main_valid(&self, c: &In) -> bool {
        self.requests.held || self.main_wants(c)
    }

    /// Reads are outstanding on the read channel (the main phase's STREAM on chip reads none).
    pub(super) fn reads_outstanding(&self, c: &In) -> bool {
        self.ahead.pending() || (self.requests.outstanding > 0 && !self.stream_on_chip(c))
    }

    /// The read channel's decisions this cycle.
    pub(super) fn reads(&self, i: &In) -> Reads {
        let main_valid = self.main_valid(i);
        let accept = main_valid && i.mem_rd_req_ready;
        let (total, _) = self.phase(i);
        // With REINPUTS, STREAM reads the result buffer, after the first column tile the X
        // buffer if X fits (both always ready, answering the next cycle).
        let stream_more = self.state == State::Stream && self.requests.issued < total && !self.stop && self.room(i);
        let buffer_read = stream_more && i.reinputs;
        let x_read = stream_more && self.x_on_chip(i);
        // Whose a read response is: the look-ahead's while it has reads outstanding, else the
        // phase's (the two never have reads outstanding together).
        let ahead_resp = i.mem_rd_resp_valid && self.ahead.pending();
        let mem_response = i.mem_rd_resp_valid && !ahead_resp;
        Reads {
            main_valid,
            accept,
            buffer_read,
            x_read,
            requested: accept || buffer_read || x_read,
            mem_response,
            response: mem_response || self.results.read_valid() || self.xbuf.read_valid(),
            ahead_region: matches!(self.state, State::Stream | State::Drain | State::NextN),
            ahead_start: self.ahead_start(i),
            ahead_valid: self.ahead_valid(i),
            ahead_resp,
        }
    }
}
