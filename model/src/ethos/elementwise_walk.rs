//! The kernel unit's walk over the OFM elements (RTL `hdl/src/ethos/elementwise_walk.rs`, whose
//! comment has the order and the deferred OFM byte): the next element in NHWC order, whether
//! it is the kernel's last, the IFM2 byte's end of an element, and the OFM strobes of the
//! element (in word mode its word's lanes), and READ_A's IFM2 byte from its cache beside the
//! IFM byte. A part of the [`super::Elementwise`] model (a child module, for the unit's fields).
use super::{lanes, memory, scalar, state, Elementwise};

impl Elementwise {
    /// The next element in NHWC order (c innermost) and its first state; after the last, FLUSH.
    pub(super) fn advance(&mut self) {
        self.state = state::READ_A;
        if self.c_end() {
            self.c = 0;
            if self.x == self.param(scalar::OFM_WIDTH_M1) {
                self.x = 0;
                if self.y == self.param(scalar::OFM_HEIGHT_M1) {
                    self.state = state::FLUSH;
                } else {
                    self.y += 1;
                }
            } else {
                self.x += 1;
            }
        } else {
            self.c += if self.word_walk() { 8 } else { 1 };
        }
    }

    /// The walk goes a word of channels at a time: word mode, or a pool with word lanes (its
    /// drain: `pool_taps.rs`).
    pub(super) fn word_walk(&self) -> bool {
        self.word || (self.pool && memory::word_lanes(&self.regs))
    }

    /// The element's channel (in word mode its word's) is the map's last.
    pub(super) fn c_end(&self) -> bool {
        let depth_m1 = self.param(scalar::OFM_DEPTH_M1);
        if self.word_walk() {
            (self.c | 7) >= depth_m1
        } else {
            self.c == depth_m1
        }
    }

    /// The element is the kernel's last.
    pub(super) fn last(&self) -> bool {
        self.c_end() && self.x == self.param(scalar::OFM_WIDTH_M1) && self.y == self.param(scalar::OFM_HEIGHT_M1)
    }

    /// The IFM2 byte taken: CALC for the kernel's last element; else the next element's READ_A,
    /// which takes this element's OFM byte beside its read (the byte's address kept now).
    pub(super) fn after_b(&mut self) {
        if self.last() {
            self.state = state::CALC;
        } else {
            let addr = self.ofm_address();
            self.pending = Some((addr, self.strobes(addr)));
            self.advance();
        }
    }

    /// The OFM strobes of the element at `addr`: its byte, or in word mode its word's lanes.
    pub(super) fn strobes(&self, addr: u64) -> u8 {
        if self.word {
            lanes::strobes(self.c, self.param(scalar::OFM_DEPTH_M1))
        } else {
            1 << (addr & 7)
        }
    }

    /// READ_A took its IFM byte from the cache (`ifm_event`): the IFM2 byte too when its word
    /// is cached (the two caches are read in the same cycle, issue 19), unless it is the
    /// deferred OFM byte `taken` in this cycle (the RTL's cache has it from the next: READ_B).
    pub(super) fn ifm2_beside(&mut self, taken: Option<u64>, ifm_event: &'static str) -> &'static str {
        let a2 = self.ifm2_address();
        match self.cached(1, a2) {
            Some(_) if taken == Some(a2) => {
                self.events.push("IFM2 byte is the OFM byte taken beside: read next cycle");
                ifm_event
            }
            Some((word, written)) => {
                if ifm_event != "IFM word from the cache" {
                    self.events.push(ifm_event);
                }
                if written {
                    self.events.push("IFM2 word from the cache after an OFM write into it");
                }
                self.second_entry(a2);
                self.ifm2_word = word;
                self.after_b();
                "IFM and IFM2 words from the caches in one cycle"
            }
            None => {
                self.events.push("IFM word from the cache, IFM2 word missed");
                ifm_event
            }
        }
    }
}
