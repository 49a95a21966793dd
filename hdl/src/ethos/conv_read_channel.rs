//! The convolution unit's read channel (`conv_unit.rs`; docs/ethos.md, "Convolution unit"):
//! one read in flight for the whole unit, the stream reader's first (`grant`, with its
//! address, its stream, 0 weights or 1 scales, and whether the stream's last word), else the
//! IFM server's (`request`, stream 2); `state` 0 idle, 1 address valid, 2 waiting for the
//! data. The answer goes to the one that asked (`reader_response` with `response_scale` and
//! `response_last`, or `server_response`); a read error is `read_error` for the cycle of its
//! response, with the unit's error code for its stream (`error_code`: IFM, weights or
//! scales), which the unit keeps. Why a block of its own: its registers are the unit's only
//! ones whose next value reads the read channel's inputs, beside the error, and it keeps the
//! unit's file under 500 lines (docs/ethos.md, "Verilated speed", NPU step 3). Same
//! registers, same cycles: the model is inside `npu_model::ethos::conv_unit`.
use super::conv_unit::{ERROR_IFM, ERROR_SCALE, ERROR_WEIGHTS};
use crate::primitives::constant as k;
use crate::primitives::RegEn;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ConvReadChannel {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub grant: Signal<In, Bit>,
    pub reader_addr: Signal<In, Bits<40>>,
    pub reader_stream: Signal<In, Bits<2>>,
    pub reader_last: Signal<In, Bit>,
    pub request: Signal<In, Bit>,
    pub server_addr: Signal<In, Bits<40>>,
    pub ar_ready: Signal<In, Bit>,
    pub r_valid: Signal<In, Bit>,
    pub r_error: Signal<In, Bit>,
    pub state: Signal<Out, Bits<2>>,
    pub ar_valid: Signal<Out, Bit>,
    pub ar_addr: Signal<Out, Bits<40>>,
    pub reader_response: Signal<Out, Bit>,
    pub response_scale: Signal<Out, Bit>,
    pub response_last: Signal<Out, Bit>,
    pub server_response: Signal<Out, Bit>,
    pub read_error: Signal<Out, Bit>,
    pub error_code: Signal<Out, Bits<4>>,
    /// The read channel: 0 idle, 1 address, 2 data; its address, what it is for (0 weights,
    /// 1 scales, 2 IFM) and whether the stream's last word. Enabled registers: only `rd`'s
    /// enable reads the top's inputs (`ar_ready`, `r_valid`), so only it runs in Verilator's
    /// input region; the next values and the address's copy are from registers, once a cycle.
    rd: RegEn<Bits<2>>,
    rd_addr: RegEn<Bits<40>>,
    rd_for: RegEn<Bits<2>>,
    rd_last: RegEn<Bit>,
    answer: Signal<Local, Bit>,
    e_ifm: Constant<Bits<4>>,
    e_weights: Constant<Bits<4>>,
    e_scale: Constant<Bits<4>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
}

impl Default for ConvReadChannel {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            grant: Default::default(),
            reader_addr: Default::default(),
            reader_stream: Default::default(),
            reader_last: Default::default(),
            request: Default::default(),
            server_addr: Default::default(),
            ar_ready: Default::default(),
            r_valid: Default::default(),
            r_error: Default::default(),
            state: Default::default(),
            ar_valid: Default::default(),
            ar_addr: Default::default(),
            reader_response: Default::default(),
            response_scale: Default::default(),
            response_last: Default::default(),
            server_response: Default::default(),
            read_error: Default::default(),
            error_code: Default::default(),
            rd: Default::default(),
            rd_addr: Default::default(),
            rd_for: Default::default(),
            rd_last: Default::default(),
            answer: Default::default(),
            e_ifm: k(ERROR_IFM.into()),
            e_weights: k(ERROR_WEIGHTS.into()),
            e_scale: k(ERROR_SCALE.into()),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
        }
    }
}

impl Logic for ConvReadChannel {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, rd, rd_addr, rd_for, rd_last);
        self.rd.reset.next = self.reset.val();
        self.rd_addr.reset.next = self.reset.val();
        self.rd_for.reset.next = self.reset.val();
        self.rd_last.reset.next = self.reset.val();
        self.state.next = self.rd.q.val();
        self.ar_valid.next = self.rd.q.val() == self.one2.val();
        self.ar_addr.next = self.rd_addr.q.val();
        self.response_scale.next = self.rd_for.q.val() == self.one2.val();
        self.response_last.next = self.rd_last.q.val();
        // The answer only while waiting for it (a branch Verilator skips in the other cycles).
        self.answer.next = false;
        self.reader_response.next = false;
        self.server_response.next = false;
        self.read_error.next = false;
        if self.rd.q.val() == self.two2.val() {
            self.answer.next = self.r_valid.val() & !self.r_error.val();
            self.reader_response.next = self.answer.val() & (self.rd_for.q.val() != self.two2.val());
            self.server_response.next = self.answer.val() & (self.rd_for.q.val() == self.two2.val());
            self.read_error.next = self.r_valid.val() & self.r_error.val();
        }
        self.error_code.next = self.e_ifm.val();
        if self.rd_for.q.val() == self.zero2.val() {
            self.error_code.next = self.e_weights.val();
        }
        if self.rd_for.q.val() == self.one2.val() {
            self.error_code.next = self.e_scale.val();
        }
        // 0 -> 1 (a grant or a request: both only while idle), 1 -> 2 (the address taken),
        // 2 -> 0 (the answer).
        self.rd.d.next = self.zero2.val();
        if self.rd.q.val() == self.zero2.val() {
            self.rd.d.next = self.one2.val();
        }
        if self.rd.q.val() == self.one2.val() {
            self.rd.d.next = self.two2.val();
        }
        self.rd.enable.next = ((self.rd.q.val() == self.one2.val()) & self.ar_ready.val())
            | ((self.rd.q.val() == self.two2.val()) & self.r_valid.val())
            | self.grant.val()
            | self.request.val();
        // The read's address and stream, at a grant (the stream reader first) or a request.
        self.rd_addr.enable.next = self.grant.val() | self.request.val();
        self.rd_for.enable.next = self.grant.val() | self.request.val();
        self.rd_last.enable.next = self.grant.val();
        self.rd_addr.d.next = self.server_addr.val();
        self.rd_for.d.next = self.two2.val();
        if self.grant.val() {
            self.rd_addr.d.next = self.reader_addr.val();
            self.rd_for.d.next = self.reader_stream.val();
        }
        self.rd_last.d.next = self.reader_last.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvReadChannel::default, "conv_read_channel");
}
