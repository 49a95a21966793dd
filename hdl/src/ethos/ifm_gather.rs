//! The IFM server's side that reads the memory's response (`ifm_server.rs`; docs/ethos.md,
//! "Convolution unit", IFM server): from the read channel's answer (`response` with
//! `response_data`, the top's inputs) and the server's registers, the enables of the server's
//! registers (its position, its word, `ready`, the first word of a group across two) and the
//! word written into the gathered bank. The registers' next values and everything else of the
//! server are computed from registers only, in the server's own process.
//!
//! Why a block of its own (Verilator 5.006): Verilator groups the statements of one
//! `always @(*)` that share a written local, and runs a group that reads a top input in its
//! input region, on every eval and again after the edge. In the server's process the response
//! shared `serving` and the position's selection with the request, the address and the
//! feature map, which all ran there, three times a cycle. Here only these few enables and the
//! word's shifts do; the word and the first word only while the server serves (0 otherwise),
//! a branch Verilator skips when the convolution unit is idle. Same registers, same
//! assignments, same cycles: the model is inside `npu_model::ethos::conv_unit`.
use crate::primitives::constant as k;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IfmGather {
    /// The read channel answered the server without error, with this data.
    pub response: Signal<In, Bit>,
    pub response_data: Signal<In, Bits<64>>,
    /// The server's registers and the logic on them (`ifm_server.rs`): it serves a tap; the
    /// position served needs two words; the first word's shift; its second word is next
    /// (`word_q`), with the first, shifted (`first_q`); the position is the last (3); it is an
    /// inserted zero (`sel_zero`, gathered as `zero_word`).
    pub serving: Signal<In, Bit>,
    pub two_words: Signal<In, Bit>,
    pub shift: Signal<In, Bits<7>>,
    pub word_q: Signal<In, Bit>,
    pub first_q: Signal<In, Bits<64>>,
    pub p_last: Signal<In, Bit>,
    pub sel_zero: Signal<In, Bit>,
    pub zero_word: Signal<In, Bits<64>>,
    /// A position that does not read is passed this cycle (registers only).
    pub pass: Signal<In, Bit>,
    /// A release or the unit's CHECK: the position, the word and `ready` restart.
    pub restart: Signal<In, Bit>,
    pub write_enable: Signal<Out, Bit>,
    pub write_data: Signal<Out, Bits<64>>,
    pub first_enable: Signal<Out, Bit>,
    pub first_d: Signal<Out, Bits<64>>,
    pub p_enable: Signal<Out, Bit>,
    pub ready_enable: Signal<Out, Bit>,
    pub word_enable: Signal<Out, Bit>,
    advance: Signal<Local, Bit>,
    sixty_four7: Constant<Bits<7>>,
    zero64: Constant<Bits<64>>,
}

impl Default for IfmGather {
    fn default() -> Self {
        Self {
            response: Default::default(),
            response_data: Default::default(),
            serving: Default::default(),
            two_words: Default::default(),
            shift: Default::default(),
            word_q: Default::default(),
            first_q: Default::default(),
            p_last: Default::default(),
            sel_zero: Default::default(),
            zero_word: Default::default(),
            pass: Default::default(),
            restart: Default::default(),
            write_enable: Default::default(),
            write_data: Default::default(),
            first_enable: Default::default(),
            first_d: Default::default(),
            p_enable: Default::default(),
            ready_enable: Default::default(),
            word_enable: Default::default(),
            advance: Default::default(),
            sixty_four7: k(64),
            zero64: k(0),
        }
    }
}

impl Logic for IfmGather {
    #[hdl_gen]
    fn update(&mut self) {
        // Only while the server serves (a branch Verilator skips in the other cycles, all of
        // them when the convolution unit is idle): a word in, the first of two (kept,
        // shifted), or the position's last (written, and the next position, or `ready` after
        // the fourth); a position passed without a read advances too (`pass`; an inserted
        // zero's word written as it is). `pass` needs the channel idle, so it never meets a
        // response, and a release or CHECK (`restart`) never meets either (the server serves
        // neither while `ready` nor outside RUN).
        self.first_enable.next = false;
        self.write_enable.next = false;
        self.p_enable.next = self.restart.val();
        self.ready_enable.next = self.restart.val();
        self.word_enable.next = self.restart.val();
        self.advance.next = false;
        self.first_d.next = self.zero64.val();
        self.write_data.next = self.zero64.val();
        if self.serving.val() {
            self.first_enable.next = self.response.val() & !self.word_q.val() & self.two_words.val();
            self.advance.next = (self.response.val() & !(!self.word_q.val() & self.two_words.val())) | self.pass.val();
            self.write_enable.next =
                (self.response.val() & !(!self.word_q.val() & self.two_words.val())) | (self.pass.val() & self.sel_zero.val());
            self.p_enable.next = self.restart.val() | (self.advance.val() & !self.p_last.val());
            self.ready_enable.next = self.restart.val() | (self.advance.val() & self.p_last.val());
            self.word_enable.next = self.restart.val() | self.response.val();
            self.first_d.next = self.response_data.val() >> self.shift.val();
            self.write_data.next = self.response_data.val() >> self.shift.val();
            if self.word_q.val() {
                self.write_data.next = self.first_q.val() | (self.response_data.val() << (self.sixty_four7.val() - self.shift.val()));
            }
            if self.sel_zero.val() {
                self.write_data.next = self.zero_word.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(IfmGather::default, "ifm_gather");
}
