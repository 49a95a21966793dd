//! ScaleNPU's engine read channel, a sub-block of the layer engine (`engine.rs`): which of the
//! two request generators offers a request on the memory port's read channel (the phase's,
//! `phase_requests.rs`, or the look-ahead weight load's, `look_ahead.rs`; never both), where
//! STREAM's rows come from (memory, the X buffer, or with REINPUTS the result buffer), the
//! output FIFO's room check that holds a last K tile's STREAM, and whose a read response is
//! (docs/scale.md, "Memory master port and the AXI4 bridge" and "Where the cycles go now").
//! Model: `model/src/scale/engine/read_channel.rs`, which has the decisions.
//!
//! Why a block of its own: the engine was 533 lines after the state machine left it. Its inputs
//! are registers (the state decode of the state machine's, the sub-blocks' counts), the
//! configuration ports and the memory port's inputs, each wired by a single assignment, and
//! no output feeds back into them in the same cycle, so Verilator sees no loop through the
//! engine (docs/scale.md, the rule below the sub-block table).
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

const OUT_WORDS: u64 = super::OUT_WORDS as u64;

#[derive(LogicBlock)]
pub struct ReadChannel {
    /// The state decode (`state_decode.rs`): the state, the phase issues requests, its request
    /// count; the state machine's stop register.
    pub in_stream: Signal<In, Bit>,
    pub in_drain: Signal<In, Bit>,
    pub in_nextn: Signal<In, Bit>,
    pub issues: Signal<In, Bit>,
    pub total: Signal<In, Bits<9>>,
    pub stop: Signal<In, Bit>,
    pub reinputs: Signal<In, Bit>,
    pub saveout: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    /// The tile sequencer's: the first column tile, another K tile follows, a look-ahead target
    /// exists.
    pub first_n: Signal<In, Bit>,
    pub more_k: Signal<In, Bit>,
    pub tiles_ahead: Signal<In, Bit>,
    /// X fits the X buffer; INROWS words fit the output FIFO (`tile_ram.rs`).
    pub x_fits: Signal<In, Bit>,
    pub out_fits: Signal<In, Bit>,
    /// The phase request generator: requests taken, a request held, its address.
    pub issued: Signal<In, Bits<9>>,
    pub req_held: Signal<In, Bit>,
    pub req_addr: Signal<In, Bits<32>>,
    /// The output writer's rows reserved in the output FIFO.
    pub reserved: Signal<In, Bits<9>>,
    /// The look-ahead: started, rows left to request, a request held, reads outstanding, its
    /// address.
    pub ahead_on: Signal<In, Bit>,
    pub ahead_more: Signal<In, Bit>,
    pub ahead_held: Signal<In, Bit>,
    pub ahead_pending: Signal<In, Bit>,
    pub ahead_addr: Signal<In, Bits<32>>,
    /// The weight loader's other bank has no row left in the array.
    pub other_free: Signal<In, Bit>,
    /// The result buffer and the X buffer answer a read (the cycle after it).
    pub results_valid: Signal<In, Bit>,
    pub xbuf_valid: Signal<In, Bit>,
    /// The memory port's read channel.
    pub req_ready: Signal<In, Bit>,
    pub resp_valid: Signal<In, Bit>,

    /// The phase's generator offers a request.
    pub main_valid: Signal<Out, Bit>,
    /// STREAM reads a row on chip now: from the result buffer (REINPUTS), from the X buffer.
    pub buffer_read: Signal<Out, Bit>,
    pub x_read: Signal<Out, Bit>,
    /// The phase took a request (from memory or on chip); a response is the phase's (from
    /// memory: `mem_response`, or on chip).
    pub requested: Signal<Out, Bit>,
    pub mem_response: Signal<Out, Bit>,
    pub response: Signal<Out, Bit>,
    /// STREAM reads X on chip: the port is free for the look-ahead.
    pub stream_on_chip: Signal<Out, Bit>,
    /// STREAM, DRAIN or NEXTN: the look-ahead's responses load weights.
    pub ahead_region: Signal<Out, Bit>,
    /// The look-ahead starts now; it offers a request; a response is its.
    pub ahead_start: Signal<Out, Bit>,
    pub ahead_valid: Signal<Out, Bit>,
    pub ahead_resp: Signal<Out, Bit>,
    /// The read channel's request.
    pub mem_valid: Signal<Out, Bit>,
    pub mem_addr: Signal<Out, Bits<32>>,

    inrows9: ZeroExtend<8, 9>,
    zero9: Constant<Bits<9>>,
    out_words: Constant<Bits<9>>,
    /// The phase's request is taken.
    accept: Signal<Local, Bit>,
    x_on_chip: Signal<Local, Bit>,
    on_chip: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    room_need: Signal<Local, Bits<9>>,
    stream_more: Signal<Local, Bit>,
    ahead_phase: Signal<Local, Bit>,
}

impl Default for ReadChannel {
    fn default() -> Self {
        Self {
            in_stream: Default::default(),
            in_drain: Default::default(),
            in_nextn: Default::default(),
            issues: Default::default(),
            total: Default::default(),
            stop: Default::default(),
            reinputs: Default::default(),
            saveout: Default::default(),
            inrows: Default::default(),
            first_n: Default::default(),
            more_k: Default::default(),
            tiles_ahead: Default::default(),
            x_fits: Default::default(),
            out_fits: Default::default(),
            issued: Default::default(),
            req_held: Default::default(),
            req_addr: Default::default(),
            reserved: Default::default(),
            ahead_on: Default::default(),
            ahead_more: Default::default(),
            ahead_held: Default::default(),
            ahead_pending: Default::default(),
            ahead_addr: Default::default(),
            other_free: Default::default(),
            results_valid: Default::default(),
            xbuf_valid: Default::default(),
            req_ready: Default::default(),
            resp_valid: Default::default(),
            main_valid: Default::default(),
            accept: Default::default(),
            buffer_read: Default::default(),
            x_read: Default::default(),
            requested: Default::default(),
            mem_response: Default::default(),
            response: Default::default(),
            stream_on_chip: Default::default(),
            ahead_region: Default::default(),
            ahead_start: Default::default(),
            ahead_valid: Default::default(),
            ahead_resp: Default::default(),
            mem_valid: Default::default(),
            mem_addr: Default::default(),
            inrows9: Default::default(),
            zero9: k(0),
            out_words: k(OUT_WORDS),
            x_on_chip: Default::default(),
            on_chip: Default::default(),
            room: Default::default(),
            room_need: Default::default(),
            stream_more: Default::default(),
            ahead_phase: Default::default(),
        }
    }
}

impl Logic for ReadChannel {
    #[hdl_gen]
    fn update(&mut self) {
        self.inrows9.narrow.next = self.inrows.val();
        // A last K tile's STREAM issues its first row only when the output FIFO has room for all
        // its rows (with SAVEOUT; `out_fits`: the FIFO's own check that INROWS words fit, true
        // for every INROWS).
        self.room_need.next = self.reserved.val() + self.inrows9.wide.val();
        self.room.next = !self.saveout.val()
            | self.more_k.val()
            | (self.issued.val() != self.zero9.val())
            | ((self.room_need.val() <= self.out_words.val()) & self.out_fits.val());
        // With REINPUTS, STREAM reads the result buffer, after the first column tile the X
        // buffer if X fits (both always ready, answering the next cycle).
        self.x_on_chip.next = !self.reinputs.val() & !self.first_n.val() & self.x_fits.val();
        self.on_chip.next = self.reinputs.val() | self.x_on_chip.val();
        self.stream_on_chip.next = self.in_stream.val() & self.on_chip.val();
        self.stream_more.next =
            self.in_stream.val() & (self.issued.val() != self.total.val()) & !self.stop.val() & self.room.val();
        self.buffer_read.next = self.stream_more.val() & self.reinputs.val();
        self.x_read.next = self.stream_more.val() & self.x_on_chip.val();
        // The phase's generator offers a new request while its phase has requests left, except
        // STREAM on chip; a request offered and not taken stays offered.
        self.main_valid.next = self.req_held.val()
            | (self.issues.val()
                & (self.issued.val() != self.total.val())
                & !self.stop.val()
                & !self.stream_on_chip.val()
                & (!self.in_stream.val() | self.room.val()));
        // The look-ahead weight load: the next K tile's weights, into the other bank, while the
        // port is free (STREAM reading X on chip, NEXTN, DRAIN), once no row of that bank is left.
        self.ahead_phase.next = self.stream_on_chip.val() | self.in_drain.val() | self.in_nextn.val();
        self.ahead_region.next = self.in_stream.val() | self.in_drain.val() | self.in_nextn.val();
        self.ahead_start.next =
            self.ahead_phase.val() & self.tiles_ahead.val() & !self.ahead_on.val() & !self.stop.val() & self.other_free.val();
        self.ahead_valid.next = self.ahead_held.val()
            | (self.ahead_phase.val() & self.ahead_more.val() & !self.stop.val())
            | self.ahead_start.val();
        self.accept.next = self.main_valid.val() & self.req_ready.val();
        self.requested.next = self.accept.val() | self.buffer_read.val() | self.x_read.val();
        // Whose a response is: the look-ahead's while it has reads outstanding, else the phase's
        // (the two never have reads outstanding together).
        self.ahead_resp.next = self.resp_valid.val() & self.ahead_pending.val();
        self.mem_response.next = self.resp_valid.val() & !self.ahead_pending.val();
        self.response.next = self.mem_response.val() | self.results_valid.val() | self.xbuf_valid.val();
        self.mem_valid.next = self.main_valid.val() | self.ahead_valid.val();
        self.mem_addr.next = self.req_addr.val();
        if self.ahead_valid.val() {
            self.mem_addr.next = self.ahead_addr.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ReadChannel::default, "read_channel");
}
