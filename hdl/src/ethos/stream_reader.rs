//! The convolution unit's weight and scale stream reader (`conv_unit.rs`; docs/ethos.md,
//! "Convolution unit", weight and scale readers; TRM §4.6 WEIGHT_* and SCALE_* registers,
//! digest `shared/spec/ethos-u65.md` §1.9): it reads the scale stream, then the weight stream
//! (`BASEP[WEIGHT_REGION] + WEIGHT_BASE`, WEIGHT_LENGTH bytes), one
//! aligned 64-bit word at a time, and shows each word on the datapath's 32-bit `w_*` / `sb_*`
//! port as two words, low half first (`last` on the stream's last), through
//! [`super::conv_ports::StreamPort`], so that those outputs are registers and logic on
//! registers only (a datapath input computed from its outputs is a loop for Verilator). The
//! model is inside `npu_model::ethos::conv_unit`.
//!
//! The unit owns the read channel (one read in flight for the whole unit): the reader asks
//! (`wants`, with `addr`, `stream` and `last_word`) and the unit grants (`grant`); the answer
//! comes back as `response` with the data. `taken`: the word shown left the buffer (the
//! datapath took it, or the unit dropped a weight word after the decoder).
use super::conv_ports::StreamPort;
use crate::primitives::constant as k;
use crate::primitives::{Reg, RegEn};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamReader {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The unit's CHECK: the buffer empties.
    pub check: Signal<In, Bit>,
    /// The layer starts (CHECK passed): the scale stream is next, then the weights (the
    /// datapath loads its parameters first, so that its MAC phase overlaps the decoding).
    pub start: Signal<In, Bit>,
    pub weight_start: Signal<In, Bits<40>>,
    pub weight_words: Signal<In, Bits<29>>,
    pub scale_start: Signal<In, Bits<40>>,
    pub scale_words: Signal<In, Bits<29>>,
    /// The unit runs (RUN): the buffered word is shown.
    pub running: Signal<In, Bit>,
    /// The unit may start a read now (it runs, no error, the read channel idle).
    pub can_read: Signal<In, Bit>,
    /// The read asked for is issued this cycle.
    pub grant: Signal<In, Bit>,
    /// A read of this reader's was answered without error: its data, whether scales and
    /// whether its stream's last word.
    pub response: Signal<In, Bit>,
    pub response_data: Signal<In, Bits<64>>,
    pub response_scale: Signal<In, Bit>,
    pub response_last: Signal<In, Bit>,
    pub taken: Signal<In, Bit>,
    pub wants: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<40>>,
    /// The stream of the word asked for: 0 weights, 1 scales.
    pub stream: Signal<Out, Bits<2>>,
    pub last_word: Signal<Out, Bit>,
    pub w_valid: Signal<Out, Bit>,
    pub sb_valid: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<32>>,
    pub last: Signal<Out, Bit>,
    port: StreamPort,
    /// The stream read next (0 weights, 1 scales, 2 none), its next word's address and the
    /// words left to ask for; the buffered word, its halves left (2, 1, 0), whether scales
    /// and whether its stream's last.
    sr_stream: Reg<Bits<2>>,
    sr_addr: Reg<Bits<40>>,
    sr_words: Reg<Bits<29>>,
    /// The buffer's registers are enabled: only their enables read the response (the top's
    /// inputs), so only those run in Verilator's input region; the next values are the
    /// response's fields as they are and, for `sr_halves`, from registers.
    sr_buf: RegEn<Bits<64>>,
    sr_halves: RegEn<Bits<2>>,
    sr_buf_scale: RegEn<Bit>,
    sr_buf_last: RegEn<Bit>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    zero29: Constant<Bits<29>>,
    one29: Constant<Bits<29>>,
    eight40: Constant<Bits<40>>,
}

impl Default for StreamReader {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            check: Default::default(),
            start: Default::default(),
            weight_start: Default::default(),
            weight_words: Default::default(),
            scale_start: Default::default(),
            scale_words: Default::default(),
            running: Default::default(),
            can_read: Default::default(),
            grant: Default::default(),
            response: Default::default(),
            response_data: Default::default(),
            response_scale: Default::default(),
            response_last: Default::default(),
            taken: Default::default(),
            wants: Default::default(),
            addr: Default::default(),
            stream: Default::default(),
            last_word: Default::default(),
            w_valid: Default::default(),
            sb_valid: Default::default(),
            data: Default::default(),
            last: Default::default(),
            port: Default::default(),
            sr_stream: Default::default(),
            sr_addr: Default::default(),
            sr_words: Default::default(),
            sr_buf: Default::default(),
            sr_halves: Default::default(),
            sr_buf_scale: Default::default(),
            sr_buf_last: Default::default(),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
            zero29: k(0),
            one29: k(1),
            eight40: k(8),
        }
    }
}

impl Logic for StreamReader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sr_stream, sr_addr, sr_words);
        clock!(self, clock, sr_buf, sr_halves, sr_buf_scale, sr_buf_last);
        self.sr_stream.reset.next = self.reset.val();
        self.sr_addr.reset.next = self.reset.val();
        self.sr_words.reset.next = self.reset.val();
        self.sr_buf.reset.next = self.reset.val();
        self.sr_halves.reset.next = self.reset.val();
        self.sr_buf_scale.reset.next = self.reset.val();
        self.sr_buf_last.reset.next = self.reset.val();

        // The buffered word on the datapath's stream ports.
        self.port.running.next = self.running.val();
        self.port.sr_buf.next = self.sr_buf.q.val();
        self.port.sr_halves.next = self.sr_halves.q.val();
        self.port.sr_buf_scale.next = self.sr_buf_scale.q.val();
        self.port.sr_buf_last.next = self.sr_buf_last.q.val();
        self.w_valid.next = self.port.w_valid.val();
        self.sb_valid.next = self.port.sb_valid.val();
        self.data.next = self.port.data.val();
        self.last.next = self.port.last.val();

        // The next read: when the buffer is empty and words are left.
        self.wants.next = self.can_read.val()
            & (self.sr_stream.q.val() < self.two2.val())
            & (self.sr_halves.q.val() == self.zero2.val())
            & (self.sr_words.q.val() != self.zero29.val());
        self.addr.next = self.sr_addr.q.val();
        self.stream.next = self.sr_stream.q.val();
        self.last_word.next = self.sr_words.q.val() == self.one29.val();
        // A word in fills the buffer (2 halves: a read is asked for only when it is empty, and
        // none is in flight in CHECK); a half taken leaves it (only when it holds one); CHECK
        // empties it.
        self.sr_buf.d.next = self.response_data.val();
        self.sr_buf_scale.d.next = self.response_scale.val();
        self.sr_buf_last.d.next = self.response_last.val();
        self.sr_buf.enable.next = self.response.val();
        self.sr_buf_scale.enable.next = self.response.val();
        self.sr_buf_last.enable.next = self.response.val();
        self.sr_halves.enable.next = self.response.val() | self.taken.val() | self.check.val();
        self.sr_halves.d.next = self.sr_halves.q.val() - self.one2.val();
        if self.sr_halves.q.val() == self.zero2.val() {
            self.sr_halves.d.next = self.two2.val();
        }
        if self.grant.val() {
            self.sr_words.d.next = self.sr_words.q.val() - self.one29.val();
            self.sr_addr.d.next = self.sr_addr.q.val() + self.eight40.val();
            if self.sr_words.q.val() == self.one29.val() {
                self.sr_stream.d.next = self.two2.val();
                if self.sr_stream.q.val() == self.one2.val() {
                    self.sr_stream.d.next = self.zero2.val();
                    self.sr_addr.d.next = self.weight_start.val();
                    self.sr_words.d.next = self.weight_words.val();
                }
            }
        }
        if self.check.val() {
            self.sr_halves.d.next = self.zero2.val();
        }
        if self.start.val() {
            self.sr_stream.d.next = self.one2.val();
            self.sr_addr.d.next = self.scale_start.val();
            self.sr_words.d.next = self.scale_words.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(StreamReader::default, "stream_reader");
}
