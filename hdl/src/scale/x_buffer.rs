//! ScaleNPU's X buffer: the on-chip copy of a layer's X, written by the first column tile's
//! STREAM phases as X arrives from memory and read by the later column tiles instead of
//! memory, so X crosses the memory port once per layer. Model and the decisions:
//! `model/src/scale/x_buffer.rs`; docs/scale.md, "Timing".
use super::pe_column::VECTOR;
use super::{SIZE, X_WORDS};
use crate::primitives::{Ram, Reg, ZeroExtend};
use rust_hdl::prelude::*;

const ADDR_BITS: usize = X_WORDS.trailing_zeros() as usize;

/// One simple dual-port RAM of `X_WORDS` words (a word is one tile row of X as memory holds
/// it). Word `t * INROWS + r` is word `t` of row `r`: the order STREAM takes X in, K tile by K
/// tile, row by row.
#[derive(LogicBlock)]
pub struct XBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    pub incols: Signal<In, Bits<8>>,
    /// A layer starts (PLAN): the write pointer goes to word 0.
    pub layer_start: Signal<In, Bit>,
    /// A column tile starts (NSTART): the read pointer goes to word 0.
    pub read_restart: Signal<In, Bit>,
    /// Read the next word; it is on `read_data` with `read_valid` the next cycle.
    pub read: Signal<In, Bit>,
    /// Store `word` as the next word (ignored if X does not fit).
    pub store: Signal<In, Bit>,
    pub word: Signal<In, Bits<VECTOR>>,
    /// This layer's INROWS x ceil(INCOLS/SIZE) words fit (registered: right from CHECK on,
    /// since the shape registers cannot change while the unit is busy).
    pub fits: Signal<Out, Bit>,
    pub read_valid: Signal<Out, Bit>,
    pub read_data: Signal<Out, Bits<VECTOR>>,

    ram: Ram<VECTOR, ADDR_BITS>,
    write_ptr: Reg<Bits<ADDR_BITS>>,
    read_ptr: Reg<Bits<ADDR_BITS>>,
    read_done: Reg<Bit>,
    fit: Reg<Bit>,
    inrows16: ZeroExtend<8, 16>,
    incols16: ZeroExtend<8, 16>,
    zero: Constant<Bits<ADDR_BITS>>,
    one: Constant<Bits<ADDR_BITS>>,
    size_m1: Constant<Bits<16>>,
    log2_size: Constant<Bits<16>>,
    capacity: Constant<Bits<32>>,
    tiles: Signal<Local, Bits<16>>,
    words: Signal<Local, Bits<32>>,
}

impl Default for XBuffer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inrows: Default::default(),
            incols: Default::default(),
            layer_start: Default::default(),
            read_restart: Default::default(),
            read: Default::default(),
            store: Default::default(),
            word: Default::default(),
            fits: Default::default(),
            read_valid: Default::default(),
            read_data: Default::default(),
            ram: Default::default(),
            write_ptr: Default::default(),
            read_ptr: Default::default(),
            read_done: Default::default(),
            fit: Default::default(),
            inrows16: Default::default(),
            incols16: Default::default(),
            zero: Constant::new(0.into()),
            one: Constant::new(1.into()),
            size_m1: Constant::new((SIZE as u64 - 1).into()),
            log2_size: Constant::new(u64::from(SIZE.trailing_zeros()).into()),
            capacity: Constant::new((X_WORDS as u64).into()),
            tiles: Default::default(),
            words: Default::default(),
        }
    }
}

impl Logic for XBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_ptr, read_ptr, read_done, fit);
        self.write_ptr.reset.next = self.reset.val();
        self.read_ptr.reset.next = self.reset.val();
        self.read_done.reset.next = self.reset.val();
        self.fit.reset.next = self.reset.val();
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        self.inrows16.narrow.next = self.inrows.val();
        self.incols16.narrow.next = self.incols.val();
        self.tiles.next = (self.incols16.wide.val() + self.size_m1.val()) >> self.log2_size.val();
        self.words.next = self.inrows16.wide.val() * self.tiles.val();
        self.fit.d.next = self.words.val() <= self.capacity.val();
        self.fits.next = self.fit.q.val();

        if self.layer_start.val() {
            self.write_ptr.d.next = self.zero.val();
        } else if self.store.val() & self.fit.q.val() {
            self.write_ptr.d.next = self.write_ptr.q.val() + self.one.val();
        }
        self.ram.write_enable.next = self.store.val() & self.fit.q.val();
        self.ram.write_address.next = self.write_ptr.q.val();
        self.ram.write_data.next = self.word.val();
        if self.read_restart.val() {
            self.read_ptr.d.next = self.zero.val();
        } else if self.read.val() {
            self.read_ptr.d.next = self.read_ptr.q.val() + self.one.val();
        }
        self.ram.read_enable.next = self.read.val();
        self.ram.read_address.next = self.read_ptr.q.val();
        self.read_done.d.next = self.read.val();
        self.read_valid.next = self.read_done.q.val();
        self.read_data.next = self.ram.read_data.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(XBuffer::default(), "x_buffer");
}
