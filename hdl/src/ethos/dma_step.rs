//! The DMA's next step, computed from its registers alone (TRM §4.6 NPU_OP_DMA_START; digest
//! `shared/spec/ethos-u65.md` §3): the bytes of the step (from the source address to the end
//! of its 64-bit word, of the destination's, or what is left, whichever is least), the shifts
//! and byte strobes that place them, the addresses and count after the step, and the BASEP
//! indices of the two regions. A sub-block of [`super::Dma`], whose one `always @(*)` reads the
//! read and write channels: computed there, this arithmetic ran in Verilator's input region
//! twice a cycle and once more after the edge; here it runs once a cycle (docs/ethos.md,
//! "Verilated speed", NPU step 3). Same values in the same cycles.
//!
//! `busy` (the DMA's state is not IDLE, from its register): every output is computed only
//! while busy, 0 otherwise, a branch that Verilator skips in the cycles of an idle DMA, most of
//! a network's (NPU step 5). Decision: the DMA reads a step's values only in BASE (the BASEP
//! indices), READ_WAIT (shifts, strobes) and WRITE_WAIT (the addresses and count after), and
//! its BASEP read port's address only with the read enabled, which is BASE's.
use crate::primitives::constant as k;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct DmaStep {
    pub busy: Signal<In, Bit>,
    pub src_addr: Signal<In, Bits<40>>,
    pub dst_addr: Signal<In, Bits<40>>,
    pub remaining: Signal<In, Bits<40>>,
    pub src_region: Signal<In, Bits<4>>,
    pub dst_region: Signal<In, Bits<4>>,
    /// Bit shifts of the read word down to its first byte and up to the destination's.
    pub read_shift: Signal<Out, Bits<40>>,
    pub write_shift: Signal<Out, Bits<40>>,
    pub strb: Signal<Out, Bits<8>>,
    pub src_after: Signal<Out, Bits<40>>,
    pub dst_after: Signal<Out, Bits<40>>,
    pub remaining_after: Signal<Out, Bits<40>>,
    /// The step copies what is left.
    pub last: Signal<Out, Bit>,
    /// BASEP index 2r and 2r + 1 of each region r.
    pub src_twice: Signal<Out, Bits<4>>,
    pub dst_twice: Signal<Out, Bits<4>>,
    pub src_twice1: Signal<Out, Bits<4>>,
    pub dst_twice1: Signal<Out, Bits<4>>,
    src_off: Signal<Local, Bits<40>>,
    dst_off: Signal<Local, Bits<40>>,
    chunk: Signal<Local, Bits<40>>,
    src_2: Signal<Local, Bits<4>>,
    dst_2: Signal<Local, Bits<4>>,
    one4: Constant<Bits<4>>,
    seven40: Constant<Bits<40>>,
    eight40: Constant<Bits<40>>,
    three40: Constant<Bits<40>>,
    ff8: Constant<Bits<8>>,
    zero4: Constant<Bits<4>>,
    zero8: Constant<Bits<8>>,
    zero40: Constant<Bits<40>>,
}

impl Default for DmaStep {
    fn default() -> Self {
        Self {
            busy: Default::default(),
            src_addr: Default::default(),
            dst_addr: Default::default(),
            remaining: Default::default(),
            src_region: Default::default(),
            dst_region: Default::default(),
            read_shift: Default::default(),
            write_shift: Default::default(),
            strb: Default::default(),
            src_after: Default::default(),
            dst_after: Default::default(),
            remaining_after: Default::default(),
            last: Default::default(),
            src_twice: Default::default(),
            dst_twice: Default::default(),
            src_twice1: Default::default(),
            dst_twice1: Default::default(),
            src_off: Default::default(),
            dst_off: Default::default(),
            chunk: Default::default(),
            src_2: Default::default(),
            dst_2: Default::default(),
            one4: k(1),
            seven40: k(7),
            eight40: k(8),
            three40: k(3),
            ff8: k(0xff),
            zero4: k(0),
            zero8: k(0),
            zero40: k(0),
        }
    }
}

impl Logic for DmaStep {
    #[hdl_gen]
    fn update(&mut self) {
        self.src_off.next = self.zero40.val();
        self.dst_off.next = self.zero40.val();
        self.chunk.next = self.zero40.val();
        self.read_shift.next = self.zero40.val();
        self.write_shift.next = self.zero40.val();
        self.strb.next = self.zero8.val();
        self.src_after.next = self.zero40.val();
        self.dst_after.next = self.zero40.val();
        self.remaining_after.next = self.zero40.val();
        self.src_2.next = self.zero4.val();
        self.dst_2.next = self.zero4.val();
        self.src_twice.next = self.zero4.val();
        self.dst_twice.next = self.zero4.val();
        self.src_twice1.next = self.zero4.val();
        self.dst_twice1.next = self.zero4.val();
        self.last.next = false;
        if self.busy.val() {
            self.src_off.next = self.src_addr.val() & self.seven40.val();
            self.dst_off.next = self.dst_addr.val() & self.seven40.val();
            self.chunk.next = self.eight40.val() - self.src_off.val();
            if (self.eight40.val() - self.dst_off.val()) < self.chunk.val() {
                self.chunk.next = self.eight40.val() - self.dst_off.val();
            }
            if self.remaining.val() < self.chunk.val() {
                self.chunk.next = self.remaining.val();
            }
            self.read_shift.next = self.src_off.val() << self.three40.val();
            self.write_shift.next = self.dst_off.val() << self.three40.val();
            self.strb.next = (self.ff8.val() >> (self.eight40.val() - self.chunk.val())) << self.dst_off.val();
            self.src_after.next = self.src_addr.val() + self.chunk.val();
            self.dst_after.next = self.dst_addr.val() + self.chunk.val();
            self.remaining_after.next = self.remaining.val() - self.chunk.val();
            self.last.next = self.remaining.val() == self.chunk.val();
            self.src_2.next = self.src_region.val() + self.src_region.val();
            self.dst_2.next = self.dst_region.val() + self.dst_region.val();
            self.src_twice.next = self.src_2.val();
            self.dst_twice.next = self.dst_2.val();
            self.src_twice1.next = self.src_2.val() + self.one4.val();
            self.dst_twice1.next = self.dst_2.val() + self.one4.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DmaStep::default, "dma_step");
}
