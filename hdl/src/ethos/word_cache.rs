//! The kernel unit's one-word operand cache (one for the IFM, one for IFM2): the last 64-bit
//! memory word read for the operand, its aligned address and a valid bit. With NHWC and the
//! channels innermost, consecutive elements (and a pool's neighbouring taps) mostly lie in the
//! same word, so the unit takes their bytes from here instead of reading the word again. A
//! sub-block of `elementwise_memory.rs`; the model is `npu_model::ethos::elementwise_memory`'s
//! `Cache`; docs/ethos.md, "NPU top and the kernel unit", has the argument why it stays
//! coherent with memory.
//!
//! Ports: `hit` and `read_word` follow `address` (a byte address) combinationally: the word
//! holding it is the cached one, and the word shifted so that its byte is lane 0. At the clock edge, in this order of
//! priority:
//! `clear` forgets the word (a kernel starts); `fill` takes `fill_data`, the word read at
//! `address`; `write` merges the unit's own OFM write (`write_addr` aligned, `write_data`
//! under `write_mask`, 8 bits a strobed byte: one byte an element, or a word's lanes in an
//! ELEMENTWISE a word at a time) into the cached word when it is the same word, so that an
//! in-place operation reads what it wrote, as from memory. The read outputs already show a
//! write of the cycle (forwarded: the word as it will be at the edge), so a read in the cycle
//! after the unit took an OFM byte or word sees it (issue 19: the kernel unit's bypass of one
//! byte became this, for whole words).
use crate::primitives::{Reg, RegEn, RegSelect};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WordCache {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub address: Signal<In, Bits<40>>,
    pub fill: Signal<In, Bit>,
    pub fill_data: Signal<In, Bits<64>>,
    pub write: Signal<In, Bit>,
    pub write_addr: Signal<In, Bits<40>>,
    pub write_data: Signal<In, Bits<64>>,
    pub write_mask: Signal<In, Bits<64>>,
    pub hit: Signal<Out, Bit>,
    /// The cached word shifted right so that `address`'s byte is its lane 0 (a pool's lanes).
    pub read_word: Signal<Out, Bits<64>>,
    valid: Reg<Bit>,
    /// The tag and the word with enables and the word's choice (filled or merged) in its
    /// clocked process: the fill follows the memory's response, so `d = q` copies here would
    /// run on every `eval` (issue 19).
    tag: RegEn<Bits<40>>,
    data: RegSelect<Bits<64>>,
    shifted: Signal<Local, Bits<64>>,
    /// The cached word with this cycle's write merged.
    merged: Signal<Local, Bits<64>>,
    written: Signal<Local, Bit>,
    align_mask: Constant<Bits<40>>,
    seven40: Constant<Bits<40>>,
    three40: Constant<Bits<40>>,
}

impl Default for WordCache {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            address: Default::default(),
            fill: Default::default(),
            fill_data: Default::default(),
            write: Default::default(),
            write_addr: Default::default(),
            write_data: Default::default(),
            write_mask: Default::default(),
            hit: Default::default(),
            read_word: Default::default(),
            valid: Default::default(),
            tag: Default::default(),
            data: Default::default(),
            shifted: Default::default(),
            merged: Default::default(),
            written: Default::default(),
            align_mask: Constant::new((((1u64 << 40) - 1) & !7).into()),
            seven40: Constant::new(7u64.into()),
            three40: Constant::new(3u64.into()),
        }
    }
}

impl Logic for WordCache {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid);
        self.tag.clock.next = self.clock.val();
        self.data.clock.next = self.clock.val();
        self.valid.reset.next = self.reset.val();
        self.tag.reset.next = self.reset.val();
        self.data.reset.next = self.reset.val();
        self.hit.next = self.valid.q.val() & (self.tag.q.val() == (self.address.val() & self.align_mask.val()));
        // The read side from registers alone; the update below recomputes the merge rather than
        // share these locals with it: it reads `fill` and `fill_data` (the memory's response),
        // and Verilator would put every statement sharing a local with it in its input region,
        // run on each of the bridge's `eval`s (issue 19).
        self.written.next = self.write.val() & self.valid.q.val() & (self.tag.q.val() == self.write_addr.val());
        self.merged.next = self.data.q.val();
        if self.written.val() {
            self.merged.next = (self.data.q.val() & !self.write_mask.val()) | (self.write_data.val() & self.write_mask.val());
        }
        self.shifted.next = self.merged.val() >> ((self.address.val() & self.seven40.val()) << self.three40.val());
        self.read_word.next = self.shifted.val();
        if self.clear.val() {
            self.valid.d.next = false;
        } else if self.fill.val() {
            self.valid.d.next = true;
        }
        self.tag.enable.next = !self.clear.val() & self.fill.val();
        self.tag.d.next = self.address.val() & self.align_mask.val();
        // (The write's test written out: a local shared with `merged` would join its statements
        // to this one, which follows the response.)
        self.data.enable.next = !self.clear.val()
            & (self.fill.val() | (self.write.val() & self.valid.q.val() & (self.tag.q.val() == self.write_addr.val())));
        self.data.select.next = self.fill.val();
        self.data.d1.next = self.fill_data.val();
        self.data.d0.next = self.merged.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WordCache::default, "word_cache");
}
