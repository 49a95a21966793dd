//! ScaleNPU's result buffer: the on-chip copy of a layer's int16 results that the next layer
//! takes as X with REINPUTS (seeds/004: "use the results of the previous layer calculation as
//! the input matrix"), whether or not SAVEOUT wrote them to memory. Model and the decisions:
//! `model/src/scale/result_buffer.rs`; docs/scale.md, "REINPUTS and the result buffer".
use super::pe_column::VECTOR;
use super::{TileRam, RESULT_WORDS};
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Address bits of the RAM (two banks).
const ADDR_BITS: usize = RESULT_WORDS.trailing_zeros() as usize + 1;

/// A RAM of two banks of `RESULT_WORDS` words (a word is one tile row of results, as the
/// output stage writes it). The bank `bank` holds the kept results; a layer writes the other
/// one, and only a successful layer (`commit`) swaps them, so a layer that fails, or a
/// REINPUTS layer reading the kept results while writing its own, never spoils the kept ones.
/// Word `t * INROWS + r` of a bank is row `r` of column tile `t`: the order the output stage
/// writes and the order a REINPUTS layer reads (K tile by K tile, row by row).
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
    /// Results are kept, INROWS x INCOLS: this layer may take them with REINPUTS.
    pub reinput_ok: Signal<Out, Bit>,
    pub read_valid: Signal<Out, Bit>,
    pub read_data: Signal<Out, Bits<VECTOR>>,

    ram: TileRam<ADDR_BITS, RESULT_WORDS>,
    bank: Reg<Bit>,
    kept: Reg<Bit>,
    kept_rows: Reg<Bits<8>>,
    kept_cols: Reg<Bits<8>>,
    bank_base: Constant<Bits<ADDR_BITS>>,
    zero_base: Constant<Bits<ADDR_BITS>>,
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
            reinput_ok: Default::default(),
            read_valid: Default::default(),
            read_data: Default::default(),
            ram: Default::default(),
            bank: Default::default(),
            kept: Default::default(),
            kept_rows: Default::default(),
            kept_cols: Default::default(),
            bank_base: Constant::new((RESULT_WORDS as u64).into()),
            zero_base: Constant::new(0.into()),
        }
    }
}

impl Logic for ResultBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bank, kept, kept_rows, kept_cols);
        self.bank.reset.next = self.reset.val();
        self.kept.reset.next = self.reset.val();
        self.kept_rows.reset.next = self.reset.val();
        self.kept_cols.reset.next = self.reset.val();
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        self.ram.rows.next = self.inrows.val();
        self.ram.cols.next = self.wghtcols.val();
        self.reinput_ok.next = self.kept.q.val()
            & (self.kept_rows.q.val() == self.inrows.val())
            & (self.kept_cols.q.val() == self.incols.val());

        // Writes go to the free bank, reads come from the kept one.
        self.ram.write_restart.next = self.layer_start.val();
        self.ram.write_base.next = self.bank_base.val();
        self.ram.read_base.next = self.zero_base.val();
        if self.bank.q.val() {
            self.ram.write_base.next = self.zero_base.val();
            self.ram.read_base.next = self.bank_base.val();
        }
        self.ram.read_restart.next = self.read_restart.val();
        self.ram.read.next = self.read.val();
        self.ram.store.next = self.store.val();
        self.ram.word.next = self.word.val();
        self.read_valid.next = self.ram.read_valid.val();
        self.read_data.next = self.ram.read_data.val();

        if self.commit.val() {
            self.bank.d.next = !self.bank.q.val();
            self.kept.d.next = self.ram.fits.val();
            self.kept_rows.d.next = self.inrows.val();
            self.kept_cols.d.next = self.wghtcols.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ResultBuffer::default, "result_buffer");
}
