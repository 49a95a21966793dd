//! The kernel unit's OFM write buffer (TRM §4.6; digest `shared/spec/ethos-u65.md` §2.3;
//! docs/ethos.md "OFM write buffer"): the OFM word being gathered (`g_*`: its aligned address,
//! bytes and strobes) and the write port (`w_*`), which writes one word at a time (address,
//! then response) beside the element loop. A sub-block of `elementwise_memory.rs`, which takes
//! the OFM bytes (`take`) and decides when a read conflicts with the gathered or written word;
//! the model is `model/src/ethos/ofm_write_buffer.rs` (`WriteBuffer`).
//!
//! Decision: the gathered word is handed to the write port (`handoff`) when the port is idle
//! and a byte of another word is taken, at the kernel's end (`flush`), or when a read misses
//! the gathered word (`read_miss`, `read_addr`); in word mode (`eager`) as soon as the port is
//! free, also in the cycle its previous write's response comes (`port_free`; into registers
//! only), so that a word's write starts before the next word is taken (issue 19: a write every
//! 2 cycles, not 3). Nothing is handed over after a failed write (`error`, sticky until
//! `clear`, the unit's CHECK) or with `discard` (the unit's error).
//!
//! Ports: `take` with the taken word's aligned address `take_word`, data, byte mask and
//! strobes; `flush`, `read_miss`, `read_addr`, `eager`, `discard`, `drain` (a pool's drain
//! offers a byte), `clear`, and the write channels' `mem_aw_ready`, `mem_b_valid`,
//! `mem_b_error`; out: the write request, `gathered`/`gathered_addr`, `idle` (no write in
//! flight), `write_addr`, `error` and `drained` (no write in flight, and nothing gathered or
//! in the drain that is still to be written). The outputs follow registers only (`drained`
//! also `discard` and `drain`).
use crate::primitives::{Reg, RegEn, RegSelect};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct OfmWriteBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub take: Signal<In, Bit>,
    pub take_word: Signal<In, Bits<40>>,
    pub take_data: Signal<In, Bits<64>>,
    pub take_mask: Signal<In, Bits<64>>,
    pub take_strb: Signal<In, Bits<8>>,
    pub flush: Signal<In, Bit>,
    pub read_miss: Signal<In, Bit>,
    pub read_addr: Signal<In, Bits<40>>,
    pub eager: Signal<In, Bit>,
    pub discard: Signal<In, Bit>,
    pub drain: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    pub gathered: Signal<Out, Bit>,
    pub gathered_addr: Signal<Out, Bits<40>>,
    pub idle: Signal<Out, Bit>,
    pub write_addr: Signal<Out, Bits<40>>,
    pub error: Signal<Out, Bit>,
    pub drained: Signal<Out, Bit>,
    /// The OFM word being gathered: its aligned address, bytes and strobes.
    /// (The wide registers with enables, the choice of the next word in their clocked process:
    /// `take` and `handoff` follow the memory's response, so `d = q` copies here would run on
    /// every `eval`; issue 19.)
    g_valid: Reg<Bit>,
    g_addr: RegEn<Bits<40>>,
    g_data: RegSelect<Bits<64>>,
    g_strb: RegSelect<Bits<8>>,
    /// The write port: a word handed over from the gather, its address not yet taken
    /// (`w_pending`) or its response awaited (`w_wait`); a failed response (`w_error`).
    w_pending: Reg<Bit>,
    w_wait: Reg<Bit>,
    w_error: Reg<Bit>,
    w_addr: RegEn<Bits<40>>,
    w_data: RegEn<Bits<64>>,
    w_strb: RegEn<Bits<8>>,
    handoff: Signal<Local, Bit>,
    port_free: Signal<Local, Bit>,
}

impl Logic for OfmWriteBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, g_valid, w_pending, w_wait, w_error);
        clock!(self, clock, g_addr, g_data, g_strb, w_addr, w_data, w_strb);
        self.g_valid.reset.next = self.reset.val();
        self.g_addr.reset.next = self.reset.val();
        self.g_data.reset.next = self.reset.val();
        self.g_strb.reset.next = self.reset.val();
        self.w_pending.reset.next = self.reset.val();
        self.w_wait.reset.next = self.reset.val();
        self.w_error.reset.next = self.reset.val();
        self.w_addr.reset.next = self.reset.val();
        self.w_data.reset.next = self.reset.val();
        self.w_strb.reset.next = self.reset.val();
        // The outputs the memory side reads to form `take` come from registers in statements
        // of their own (Verilator splits them from those reading `take`: no loop).
        self.idle.next = !self.w_pending.q.val() & !self.w_wait.q.val();
        self.gathered.next = self.g_valid.q.val();
        self.gathered_addr.next = self.g_addr.q.val();
        self.write_addr.next = self.w_addr.q.val();
        self.error.next = self.w_error.q.val();
        self.port_free.next = !self.w_pending.q.val() & (!self.w_wait.q.val() | (self.mem_b_valid.val() & !self.mem_b_error.val()));
        self.handoff.next = self.g_valid.q.val()
            & !self.w_error.q.val()
            & !self.discard.val()
            & ((!self.w_pending.q.val()
                & !self.w_wait.q.val()
                & ((self.take.val() & (self.g_addr.q.val() != self.take_word.val()))
                    | self.flush.val()
                    | (self.read_miss.val() & (self.g_addr.q.val() == self.read_addr.val()))))
                | (self.eager.val() & self.port_free.val()));
        self.drained.next = !self.w_pending.q.val()
            & !self.w_wait.q.val()
            & (!self.g_valid.q.val() | self.w_error.q.val() | self.discard.val())
            & (!self.drain.val() | self.w_error.q.val() | self.discard.val());
        // The handed-over word to the write port; a taken byte (word) starts a new word after
        // a handoff or when none is gathered, else merges into the gathered one.
        self.w_addr.enable.next = self.handoff.val();
        self.w_data.enable.next = self.handoff.val();
        self.w_strb.enable.next = self.handoff.val();
        self.w_addr.d.next = self.g_addr.q.val();
        self.w_data.d.next = self.g_data.q.val();
        self.w_strb.d.next = self.g_strb.q.val();
        if self.handoff.val() {
            self.w_pending.d.next = true;
            self.g_valid.d.next = false;
        }
        self.g_addr.enable.next = self.take.val();
        self.g_data.enable.next = self.take.val();
        self.g_strb.enable.next = self.take.val();
        self.g_addr.d.next = self.take_word.val();
        self.g_data.select.next = self.handoff.val() | !self.g_valid.q.val();
        self.g_strb.select.next = self.handoff.val() | !self.g_valid.q.val();
        self.g_data.d1.next = self.take_data.val() & self.take_mask.val();
        self.g_data.d0.next = (self.g_data.q.val() & !self.take_mask.val()) | (self.take_data.val() & self.take_mask.val());
        self.g_strb.d1.next = self.take_strb.val();
        self.g_strb.d0.next = self.g_strb.q.val() | self.take_strb.val();
        if self.take.val() {
            self.g_valid.d.next = true;
        }
        // The write port: the address, then the response.
        if self.w_pending.q.val() & self.mem_aw_ready.val() {
            self.w_pending.d.next = false;
            self.w_wait.d.next = true;
        }
        if self.w_wait.q.val() & self.mem_b_valid.val() {
            self.w_wait.d.next = false;
            if self.mem_b_error.val() {
                self.w_error.d.next = true;
            }
        }
        if self.clear.val() {
            self.g_valid.d.next = false;
            self.w_error.d.next = false;
        }
        self.mem_aw_valid.next = self.w_pending.q.val();
        self.mem_aw_addr.next = self.w_addr.q.val();
        self.mem_w_data.next = self.w_data.q.val();
        self.mem_w_strb.next = self.w_strb.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OfmWriteBuffer::default, "ofm_write_buffer");
}
