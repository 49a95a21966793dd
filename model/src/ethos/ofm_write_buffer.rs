//! The kernel unit's OFM write buffer (RTL `hdl/src/ethos/ofm_write_buffer.rs`, a sub-block of
//! `elementwise_memory.rs`; their comments have the decisions): [`WriteBuffer`], the word being
//! gathered and the write port, and the unit's take of its OFM byte (or word) into it. A part
//! of the [`super::Elementwise`] model (a child module, for the unit's fields).
use super::memory::byte_mask;
use super::{datapath, lanes, state, Elementwise};

/// The OFM write buffer (the RTL's `OfmWriteBuffer`; docs/ethos.md "OFM write buffer"): the
/// word being gathered and the write port, which writes one word at a time (address, then
/// response) beside the element loop.
#[derive(Clone, Debug, Default)]
pub struct WriteBuffer {
    /// The OFM word being gathered: aligned address, bytes, strobes.
    pub g: Option<(u64, u64, u8)>,
    /// The word handed over, its address not yet taken (`pending`), its response awaited
    /// (`wait`), a failed response this kernel (`error`).
    pub pending: bool,
    pub wait: bool,
    pub error: bool,
    pub addr: u64,
    pub data: u64,
    pub strb: u8,
}

impl WriteBuffer {
    /// No write in flight.
    pub fn idle(&self) -> bool {
        !self.pending && !self.wait
    }

    /// A read of the word at `addr` (a miss) must wait: its OFM bytes are gathered or being
    /// written, and memory holds the old bytes until the write's response.
    pub fn conflict(&self, addr: u64) -> bool {
        let word = addr & !7;
        self.g.is_some_and(|(a, _, _)| a == word) || (!self.idle() && self.addr == word)
    }

    /// The OFM byte at `addr` can be gathered: into the gathered word, or a new one when the
    /// write port is idle to take the gathered word.
    pub fn can_take(&self, addr: u64) -> bool {
        !self.g.is_some_and(|(a, _, _)| a != addr & !7) || self.idle()
    }

    /// Hands the gathered word to the idle write port (none after a failed write or an error).
    pub fn handoff(&mut self, events: &mut Vec<&'static str>) {
        if let Some((a, d, m)) = self.g.take() {
            (self.pending, self.addr, self.data, self.strb) = (true, a, d, m);
            events.push("OFM word handed to the write port");
        }
    }

    /// Gathers the byte lanes `strb` of `v` (the byte at `addr`, or a word's lanes in word
    /// mode) into its word, the gathered word of another word handed to the write port first
    /// ([`Self::can_take`]); the event names which.
    pub fn gather(&mut self, addr: u64, v: u64, strb: u8, events: &mut Vec<&'static str>) -> &'static str {
        let word = addr & !7;
        if self.g.is_some_and(|(a, _, _)| a != word) {
            self.handoff(events);
        }
        let mask = byte_mask(strb);
        if let Some((_, d, m)) = &mut self.g {
            (*d, *m) = (*d & !mask | v & mask, *m | strb);
            "OFM byte gathered"
        } else {
            self.g = Some((word, v & mask, strb));
            "calc"
        }
    }

    /// The write port's edge, on what it held before the edge (`held`: pending, wait; a word
    /// handed over at this edge is offered from the next cycle).
    pub fn port(&mut self, held: (bool, bool), aw_ready: bool, b_valid: bool, b_error: bool, events: &mut Vec<&'static str>) {
        let (pending, wait) = held;
        if pending {
            if aw_ready {
                (self.pending, self.wait) = (false, true);
                events.push("OFM word write");
            } else {
                events.push("OFM word write stalled");
            }
        }
        if wait && b_valid {
            self.wait = false;
            if b_error {
                self.error = true;
                events.push("OFM word write error");
            } else {
                events.push("OFM word written");
            }
        }
    }
}

impl Elementwise {
    /// The OFM byte of the operands now held ([`datapath`]) in every lane; in word mode the 8
    /// lanes' bytes ([`lanes`]). (A pool's bytes come from its drain: `pool_taps.rs`.)
    pub(super) fn result(&self) -> u64 {
        if self.word {
            return lanes::values(&self.regs, self.mode, self.ifm_word, self.ifm2_word);
        }
        u64::from_le_bytes([datapath::value(&self.regs, self.mode, self.ifm_word as u8, self.ifm2_word as u8); 8])
    }

    /// A read of `addr` (a miss) must wait: [`WriteBuffer::conflict`], or READ_A's deferred OFM byte
    /// cannot be taken this cycle or is taken into the word read.
    pub(super) fn blocked(&self, addr: u64) -> bool {
        self.out.conflict(addr)
            || (self.state == state::READ_A && self.pending.is_some_and(|(p, _)| !self.out.can_take(p) || p & !7 == addr & !7))
    }

    /// Gathers the element's OFM byte at `addr` (the operands held now), or in word mode its
    /// word's lanes `strb`, into its word ([`Self::gather`]).
    pub(super) fn take(&mut self, addr: u64, strb: u8) -> &'static str {
        if self.word && strb != 0xff {
            self.events.push("word: partial last word");
        }
        self.gather(addr, self.result(), strb)
    }

    /// Gathers the bytes `v` under `strb` into the word at `addr` ([`WriteBuffer::gather`]; a
    /// pool's drain, one byte).
    pub(super) fn gather(&mut self, addr: u64, v: u64, strb: u8) -> &'static str {
        let word = addr & !7;
        let event = self.out.gather(addr, v, strb, &mut self.events);
        // The byte updates a cached word it hits (an in-place operation).
        for cache in &mut self.cache {
            cache.write(word, v, strb);
        }
        event
    }
}
