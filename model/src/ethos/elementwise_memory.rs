//! The kernel unit's memory side (RTL `hdl/src/ethos/elementwise_memory.rs`, whose comment has
//! the cache decision): the element's IFM, IFM2 and OFM byte addresses from the LATCHed maps
//! and one operand's word cache ([`Cache`], `hdl/src/ethos/word_cache.rs`), and the OFM write
//! buffer ([`WriteBuffer`]). A part of the [`super::elementwise`] model, which drives the read
//! and write ports from these.
use super::feature_map::{address, brick, Slots, BASEP_LOW};
use super::kernel_registers::{scalar, KernelRegisters};

/// The IFM address of element (y, x, c), or for a pool (`pool`) of its `tap` (the tap's IFM
/// row, column and whether it is inside: [`super::elementwise_datapath::tap`]).
pub fn ifm_address(regs: &KernelRegisters, pool: bool, (y, x, c): (u16, u16, u16), tap: (u16, u16, bool)) -> u64 {
    if pool {
        // IFM_UPSCALE 1 (nearest): the tap lies in the IFM upscaled 2x2, element (iy / 2, ix / 2).
        let (iy, ix, _) = tap;
        let up = u32::from(regs.param(scalar::IFM_UPSCALE) == 1);
        address(&regs.maps[0], iy >> up, ix >> up, c)
    } else {
        address(&regs.maps[0], y, x, c)
    }
}

/// The IFM2 address of element (y, x, c), broadcast along the axes IFM2_BROADCAST[2:0] names.
pub fn ifm2_address(regs: &KernelRegisters, (y, x, c): (u16, u16, u16)) -> u64 {
    let b = regs.param(scalar::IFM2_BROADCAST);
    let at = |bit: u16, v: u16| if b & bit != 0 { 0 } else { v };
    address(&regs.maps[1], at(1, y), at(2, x), at(4, c))
}

/// The OFM address of element (y, x, c).
pub fn ofm_address(regs: &KernelRegisters, (y, x, c): (u16, u16, u16)) -> u64 {
    address(&regs.maps[2], y, x, c)
}

/// The map lays channel c of every element at byte lane c mod 8 of its word
/// (`hdl/src/ethos/lane_layout.rs`, whose comment has the decision): the four tile bases,
/// STRIDE_X, STRIDE_Y and the region's BASEP multiples of 8, and STRIDE_C 1 in NHWC or a
/// multiple of 8 in NHCWB16. A pool whose IFM and OFM both do runs a word of channels at a
/// time.
pub fn lanes(slot: &Slots) -> bool {
    let aligned = |k: usize| slot[k] & 7 == 0;
    [0, 1, 2, 3, 4, 5, BASEP_LOW].into_iter().all(aligned) && if brick(slot) { aligned(6) } else { slot[6] == 1 }
}

/// A pool runs a word of channels at a time: the IFM and the OFM lay channel c at lane c mod 8.
pub fn word_lanes(regs: &KernelRegisters) -> bool {
    lanes(&regs.maps[0]) && lanes(&regs.maps[2])
}

/// An ELEMENTWISE runs a word of channels at a time (issue 19, word mode; the RTL's `word` in
/// `hdl/src/ethos/elementwise.rs`): the IFM and the OFM lay channel c at lane c mod 8, and so
/// does the IFM2 map unless the operand is the scalar; an IFM2 broadcast along the channels
/// (every lane the same byte) runs an element at a time.
pub fn word_mode(regs: &KernelRegisters, pool: bool) -> bool {
    let b = regs.param(scalar::IFM2_BROADCAST);
    !pool && word_lanes(regs) && (b & 0x80 != 0 || (lanes(&regs.maps[1]) && b & 4 == 0))
}

/// One operand's word cache (`hdl/src/ethos/word_cache.rs`): the aligned address and the
/// word, and (for coverage only) whether the unit's OFM write changed the word since its read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cache {
    pub valid: bool,
    pub tag: u64,
    pub data: u64,
    pub written: bool,
}

/// The byte mask of the strobes `strb`.
pub fn byte_mask(strb: u8) -> u64 {
    (0..8).filter(|i| strb >> i & 1 != 0).fold(0u64, |m, i| m | 0xff << (8 * i))
}

impl Cache {
    /// The byte at `addr` when its word is the cached one.
    pub fn byte(&self, addr: u64) -> Option<u8> {
        self.word(addr).map(|w| w as u8)
    }

    /// The cached word shifted so that the byte at `addr` is its lane 0, when it is the word.
    pub fn word(&self, addr: u64) -> Option<u64> {
        (self.valid && self.tag == addr & !7).then_some(self.data >> (8 * (addr & 7)))
    }

    /// The unit's write of `data` with `strb` at the aligned `addr`, merged when it hits.
    pub fn write(&mut self, addr: u64, data: u64, strb: u8) {
        if self.valid && self.tag == addr {
            let mask = byte_mask(strb);
            self.data = self.data & !mask | data & mask;
            self.written = true;
        }
    }
}

/// The OFM write buffer (the RTL's part of `hdl/src/ethos/elementwise_memory.rs`; docs/ethos.md
/// "OFM write buffer"): the word being gathered and the write port, which writes one word at a
/// time (address, then response) beside the element loop.
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
