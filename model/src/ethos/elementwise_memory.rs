//! The kernel unit's memory side (RTL `hdl/src/ethos/elementwise_memory.rs`, whose comment has
//! the cache decision): the element's IFM, IFM2 and OFM byte addresses from the LATCHed maps
//! and one operand's word cache ([`Cache`], `hdl/src/ethos/word_cache.rs`); the OFM write
//! buffer is `ofm_write_buffer.rs` beside this file. A part of the [`super::elementwise`]
//! model, which drives the read and write ports from these.
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
