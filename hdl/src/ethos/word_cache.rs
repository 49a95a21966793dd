//! The kernel unit's one-word operand cache (one for the IFM, one for IFM2): the last 64-bit
//! memory word read for the operand, its aligned address and a valid bit. With NHWC and the
//! channels innermost, consecutive elements (and a pool's neighbouring taps) mostly lie in the
//! same word, so the unit takes their bytes from here instead of reading the word again. A
//! sub-block of `elementwise_memory.rs`; the model is `npu_model::ethos::elementwise_memory`'s
//! `Cache`; docs/ethos.md, "NPU top and the kernel unit", has the argument why it stays
//! coherent with memory.
//!
//! Ports: `hit`, `read_byte` and `read_word` follow `address` (a byte address) combinationally: the word
//! holding it is the cached one, and its byte there. At the clock edge, in this order of
//! priority:
//! `clear` forgets the word (a kernel starts); `fill` takes `fill_data`, the word read at
//! `address`; `write` merges the unit's own OFM write (`write_addr` aligned, `write_data`, the
//! one-hot `write_strb`: the unit writes one byte a beat) into the cached word when it is the
//! same word, so that an in-place operation reads what it wrote, as from memory.
use crate::primitives::Reg;
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
    pub write_strb: Signal<In, Bits<8>>,
    pub hit: Signal<Out, Bit>,
    pub read_byte: Signal<Out, Bits<8>>,
    /// The cached word shifted right so that `address`'s byte is its lane 0 (a pool's lanes).
    pub read_word: Signal<Out, Bits<64>>,
    valid: Reg<Bit>,
    tag: Reg<Bits<40>>,
    data: Reg<Bits<64>>,
    shifted: Signal<Local, Bits<64>>,
    write_lane: Signal<Local, Bits<6>>,
    mask: Signal<Local, Bits<64>>,
    /// Bits read nowhere, named as lint expects.
    unused_bits: Signal<Local, Bit>,
    align_mask: Constant<Bits<40>>,
    seven40: Constant<Bits<40>>,
    three40: Constant<Bits<40>>,
    byte_mask: Constant<Bits<64>>,
    lane0: Constant<Bits<6>>,
    lane1: Constant<Bits<6>>,
    lane2: Constant<Bits<6>>,
    lane3: Constant<Bits<6>>,
    lane4: Constant<Bits<6>>,
    lane5: Constant<Bits<6>>,
    lane6: Constant<Bits<6>>,
    lane7: Constant<Bits<6>>,
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
            write_strb: Default::default(),
            hit: Default::default(),
            read_byte: Default::default(),
            read_word: Default::default(),
            valid: Default::default(),
            tag: Default::default(),
            data: Default::default(),
            shifted: Default::default(),
            write_lane: Default::default(),
            mask: Default::default(),
            unused_bits: Default::default(),
            align_mask: Constant::new((((1u64 << 40) - 1) & !7).into()),
            seven40: Constant::new(7u64.into()),
            three40: Constant::new(3u64.into()),
            byte_mask: Constant::new(0xffu64.into()),
            lane0: Constant::new(0u64.into()),
            lane1: Constant::new(8u64.into()),
            lane2: Constant::new(16u64.into()),
            lane3: Constant::new(24u64.into()),
            lane4: Constant::new(32u64.into()),
            lane5: Constant::new(40u64.into()),
            lane6: Constant::new(48u64.into()),
            lane7: Constant::new(56u64.into()),
        }
    }
}

impl Logic for WordCache {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, tag, data);
        self.valid.reset.next = self.reset.val();
        self.tag.reset.next = self.reset.val();
        self.data.reset.next = self.reset.val();
        self.hit.next = self.valid.q.val() & (self.tag.q.val() == (self.address.val() & self.align_mask.val()));
        self.shifted.next = self.data.q.val() >> ((self.address.val() & self.seven40.val()) << self.three40.val());
        self.read_byte.next = self.shifted.val().get_bits::<8>(0);
        self.read_word.next = self.shifted.val();
        self.unused_bits.next = self.write_strb.val().get_bit(0);
        // The written byte's lane (the strobe is one-hot) and its mask.
        self.write_lane.next = self.lane0.val();
        if self.write_strb.val().get_bit(1) {
            self.write_lane.next = self.lane1.val();
        }
        if self.write_strb.val().get_bit(2) {
            self.write_lane.next = self.lane2.val();
        }
        if self.write_strb.val().get_bit(3) {
            self.write_lane.next = self.lane3.val();
        }
        if self.write_strb.val().get_bit(4) {
            self.write_lane.next = self.lane4.val();
        }
        if self.write_strb.val().get_bit(5) {
            self.write_lane.next = self.lane5.val();
        }
        if self.write_strb.val().get_bit(6) {
            self.write_lane.next = self.lane6.val();
        }
        if self.write_strb.val().get_bit(7) {
            self.write_lane.next = self.lane7.val();
        }
        self.mask.next = self.byte_mask.val() << self.write_lane.val();
        if self.clear.val() {
            self.valid.d.next = false;
        } else if self.fill.val() {
            self.valid.d.next = true;
            self.tag.d.next = self.address.val() & self.align_mask.val();
            self.data.d.next = self.fill_data.val();
        } else if self.write.val() & self.valid.q.val() & (self.tag.q.val() == self.write_addr.val()) {
            self.data.d.next = (self.data.q.val() & !self.mask.val()) | (self.write_data.val() & self.mask.val());
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WordCache::default, "word_cache");
}
