//! ScaleNPU's result buffer: the on-chip copy of a layer's int16 results that the next layer
//! takes as X with REINPUTS (seeds/004: "use the results of the previous layer calculation as
//! the input matrix"), whether or not SAVEOUT wrote them to memory. Model and the decisions:
//! `model/src/scale/result_buffer.rs`; docs/scale.md, "REINPUTS and the result buffer".
use super::pe_column::VECTOR;
use super::{RESULT_WORDS, SIZE};
use crate::primitives::{Ram, Reg, ZeroExtend};
use rust_hdl::prelude::*;

/// Address bits of one bank, and of the RAM (two banks).
const BANK_BITS: usize = RESULT_WORDS.trailing_zeros() as usize;
const ADDR_BITS: usize = BANK_BITS + 1;

/// One simple dual-port RAM of two banks of `RESULT_WORDS` words (a word is one tile row of
/// results, as the output stage writes it). The bank `bank` holds the kept results; a layer
/// writes the other one, and only a successful layer (`commit`) swaps them, so a layer that
/// fails, or a REINPUTS layer reading the kept results while writing its own, never spoils
/// the kept ones. Word `t * INROWS + r` is row `r` of column tile `t`: the order the output
/// stage writes and the order a REINPUTS layer reads (K tile by K tile, row by row).
#[derive(LogicBlock)]
pub struct ResultBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    pub incols: Signal<In, Bits<8>>,
    pub wghtcols: Signal<In, Bits<8>>,
    /// A layer starts (PLAN): the write pointer goes to the free bank's first word.
    pub layer_start: Signal<In, Bit>,
    /// A column tile starts (NSTART): the read pointer goes to the kept bank's first word.
    pub read_restart: Signal<In, Bit>,
    /// Read the next word; it is on `read_data` with `read_valid` the next cycle.
    pub read: Signal<In, Bit>,
    /// Store `word` as the next result word (ignored if the layer's results do not fit).
    pub store: Signal<In, Bit>,
    pub word: Signal<In, Bits<VECTOR>>,
    /// The layer ended with SUCCESS: its results (if they fit) become the kept ones.
    pub commit: Signal<In, Bit>,
    /// This layer's INROWS x ceil(WGHTCOLS/SIZE) result words fit in a bank (registered:
    /// right from CHECK on, since the shape registers cannot change while the unit is busy).
    pub fits: Signal<Out, Bit>,
    /// Results are kept, INROWS x INCOLS: this layer may take them with REINPUTS.
    pub reinput_ok: Signal<Out, Bit>,
    pub read_valid: Signal<Out, Bit>,
    pub read_data: Signal<Out, Bits<VECTOR>>,

    ram: Ram<VECTOR, ADDR_BITS>,
    bank: Reg<Bit>,
    kept: Reg<Bit>,
    kept_rows: Reg<Bits<8>>,
    kept_cols: Reg<Bits<8>>,
    write_ptr: Reg<Bits<ADDR_BITS>>,
    read_ptr: Reg<Bits<ADDR_BITS>>,
    read_done: Reg<Bit>,
    fit: Reg<Bit>,
    inrows16: ZeroExtend<8, 16>,
    wghtcols16: ZeroExtend<8, 16>,
    bank_base: Constant<Bits<ADDR_BITS>>,
    zero_base: Constant<Bits<ADDR_BITS>>,
    one: Constant<Bits<ADDR_BITS>>,
    size_m1: Constant<Bits<16>>,
    log2_size: Constant<Bits<16>>,
    capacity: Constant<Bits<32>>,
    tiles: Signal<Local, Bits<16>>,
    words: Signal<Local, Bits<32>>,
}

impl Default for ResultBuffer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            inrows: Default::default(),
            incols: Default::default(),
            wghtcols: Default::default(),
            layer_start: Default::default(),
            read_restart: Default::default(),
            read: Default::default(),
            store: Default::default(),
            word: Default::default(),
            commit: Default::default(),
            fits: Default::default(),
            reinput_ok: Default::default(),
            read_valid: Default::default(),
            read_data: Default::default(),
            ram: Default::default(),
            bank: Default::default(),
            kept: Default::default(),
            kept_rows: Default::default(),
            kept_cols: Default::default(),
            write_ptr: Default::default(),
            read_ptr: Default::default(),
            read_done: Default::default(),
            fit: Default::default(),
            tiles: Default::default(),
            words: Default::default(),
            inrows16: Default::default(),
            wghtcols16: Default::default(),
            bank_base: Constant::new((RESULT_WORDS as u64).into()),
            zero_base: Constant::new(0.into()),
            one: Constant::new(1.into()),
            size_m1: Constant::new((SIZE as u64 - 1).into()),
            log2_size: Constant::new(u64::from(SIZE.trailing_zeros()).into()),
            capacity: Constant::new((RESULT_WORDS as u64).into()),
        }
    }
}

impl Logic for ResultBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bank, kept, kept_rows, kept_cols, write_ptr, read_ptr, read_done, fit);
        self.bank.reset.next = self.reset.val();
        self.kept.reset.next = self.reset.val();
        self.kept_rows.reset.next = self.reset.val();
        self.kept_cols.reset.next = self.reset.val();
        self.write_ptr.reset.next = self.reset.val();
        self.read_ptr.reset.next = self.reset.val();
        self.read_done.reset.next = self.reset.val();
        self.fit.reset.next = self.reset.val();
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        self.inrows16.narrow.next = self.inrows.val();
        self.wghtcols16.narrow.next = self.wghtcols.val();
        self.tiles.next = (self.wghtcols16.wide.val() + self.size_m1.val()) >> self.log2_size.val();
        self.words.next = self.inrows16.wide.val() * self.tiles.val();
        self.fit.d.next = self.words.val() <= self.capacity.val();
        self.fits.next = self.fit.q.val();
        self.reinput_ok.next = self.kept.q.val()
            & (self.kept_rows.q.val() == self.inrows.val())
            & (self.kept_cols.q.val() == self.incols.val());

        // Writes go to the free bank, reads come from the kept one.
        if self.layer_start.val() {
            self.write_ptr.d.next = self.bank_base.val();
            if self.bank.q.val() {
                self.write_ptr.d.next = self.zero_base.val();
            }
        } else if self.store.val() & self.fit.q.val() {
            self.write_ptr.d.next = self.write_ptr.q.val() + self.one.val();
        }
        self.ram.write_enable.next = self.store.val() & self.fit.q.val();
        self.ram.write_address.next = self.write_ptr.q.val();
        self.ram.write_data.next = self.word.val();
        if self.read_restart.val() {
            self.read_ptr.d.next = self.zero_base.val();
            if self.bank.q.val() {
                self.read_ptr.d.next = self.bank_base.val();
            }
        } else if self.read.val() {
            self.read_ptr.d.next = self.read_ptr.q.val() + self.one.val();
        }
        self.ram.read_enable.next = self.read.val();
        self.ram.read_address.next = self.read_ptr.q.val();
        self.read_done.d.next = self.read.val();
        self.read_valid.next = self.read_done.q.val();
        self.read_data.next = self.ram.read_data.val();

        if self.commit.val() {
            self.bank.d.next = !self.bank.q.val();
            self.kept.d.next = self.fit.q.val();
            self.kept_rows.d.next = self.inrows.val();
            self.kept_cols.d.next = self.wghtcols.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ResultBuffer::default(), "result_buffer");
}
