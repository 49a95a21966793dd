//! The kernel unit's walk over the OFM elements (RTL `hdl/src/ethos/elementwise_walk.rs`, whose
//! comment has the order and the deferred OFM byte): the next element in NHWC order, whether
//! it is the kernel's last, the IFM2 byte's end of an element, and the OFM strobes of the
//! element (in word mode its word's lanes). A part of the [`super::Elementwise`] model (a child
//! module, for the unit's fields).
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
}
