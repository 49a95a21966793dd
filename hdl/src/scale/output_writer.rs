//! ScaleNPU's output writer, a sub-block of the layer engine (`engine.rs`): the third request
//! generator on the memory port, which writes the result words of the output FIFO (the
//! engine's `TileRam`), with its counts and its address. Model and decisions:
//! `model/src/scale/output_writer.rs`; docs/scale.md, "Where the cycles go now", 2.
//!
//! Every output is a register or depends on registers only: the engine decides from them
//! whether a write is offered, taken, and whether the FIFO is read (no output may follow an
//! input the engine's request logic drives in the same cycle, or Verilator sees the two
//! blocks as one loop).
use super::tile_sequencer::WORD_BYTES;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct OutputWriter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A layer ends (DONE): empty (a stopped layer's words are never written by the next
    /// one). A layer starts (PLAN): at `result`.
    pub restart: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub result: Signal<In, Bits<32>>,
    /// A row of a last K tile is issued (with SAVEOUT); a result word goes into the FIFO; the
    /// FIFO's next word is read into its read register; a word is in that register (read at the
    /// last edge, or kept since).
    pub reserve: Signal<In, Bit>,
    pub store: Signal<In, Bit>,
    pub read: Signal<In, Bit>,
    pub loaded: Signal<In, Bit>,
    /// The write is offered; the memory port takes it; a memory response is a write's.
    pub valid: Signal<In, Bit>,
    pub accept: Signal<In, Bit>,
    pub resp: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    /// Bytes per result row in memory.
    pub ncw_bytes: Signal<In, Bits<32>>,
    /// Rows of last K tiles issued whose words have not left the FIFO.
    pub reserved: Signal<Out, Bits<9>>,
    /// Words are in the FIFO.
    pub any: Signal<Out, Bit>,
    /// A word read from the FIFO before the last edge is still to be written (the engine's
    /// `loaded` is this or the FIFO's `read_valid`).
    pub kept: Signal<Out, Bit>,
    /// A write was offered and not taken.
    pub held: Signal<Out, Bit>,
    /// Writes are outstanding (the next memory response is a write's).
    pub pending: Signal<Out, Bit>,
    /// Nothing reserved, held or outstanding (with no word loaded: nothing left to write).
    pub idle: Signal<Out, Bit>,
    pub addr: Signal<Out, Bits<32>>,

    reserved_r: Reg<Bits<9>>,
    words: Reg<Bits<9>>,
    kept_r: Reg<Bit>,
    held_r: Reg<Bit>,
    outstanding: Reg<Bits<9>>,
    addr_r: Reg<Bits<32>>,
    row: Reg<Bits<9>>,
    tile_ptr: Reg<Bits<32>>,
    inrows9: ZeroExtend<8, 9>,
    one9: Constant<Bits<9>>,
    zero9: Constant<Bits<9>>,
    zero32: Constant<Bits<32>>,
    word_bytes: Constant<Bits<32>>,
}

impl Default for OutputWriter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            start: Default::default(),
            result: Default::default(),
            reserve: Default::default(),
            store: Default::default(),
            read: Default::default(),
            valid: Default::default(),
            accept: Default::default(),
            resp: Default::default(),
            inrows: Default::default(),
            ncw_bytes: Default::default(),
            reserved: Default::default(),
            any: Default::default(),
            loaded: Default::default(),
            kept: Default::default(),
            held: Default::default(),
            pending: Default::default(),
            idle: Default::default(),
            addr: Default::default(),
            reserved_r: Default::default(),
            words: Default::default(),
            kept_r: Default::default(),
            held_r: Default::default(),
            outstanding: Default::default(),
            addr_r: Default::default(),
            row: Default::default(),
            tile_ptr: Default::default(),
            inrows9: Default::default(),
            one9: Constant::new(1.into()),
            zero9: Constant::new(0.into()),
            zero32: Constant::new(0.into()),
            word_bytes: Constant::new(WORD_BYTES.into()),
        }
    }
}

impl Logic for OutputWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, reserved_r, words, kept_r, held_r, outstanding, addr_r, row, tile_ptr);
        self.reserved_r.reset.next = self.reset.val();
        self.words.reset.next = self.reset.val();
        self.kept_r.reset.next = self.reset.val();
        self.held_r.reset.next = self.reset.val();
        self.outstanding.reset.next = self.reset.val();
        self.addr_r.reset.next = self.reset.val();
        self.row.reset.next = self.reset.val();
        self.tile_ptr.reset.next = self.reset.val();
        self.inrows9.narrow.next = self.inrows.val();

        self.reserved.next = self.reserved_r.q.val();
        self.any.next = self.words.q.val() != self.zero9.val();
        self.kept.next = self.kept_r.q.val();
        self.held.next = self.held_r.q.val();
        self.pending.next = self.outstanding.q.val() != self.zero9.val();
        self.idle.next = (self.reserved_r.q.val() == self.zero9.val())
            & !self.held_r.q.val()
            & (self.outstanding.q.val() == self.zero9.val());
        self.addr.next = self.addr_r.q.val();

        if self.reserve.val() & !self.read.val() {
            self.reserved_r.d.next = self.reserved_r.q.val() + self.one9.val();
        }
        if !self.reserve.val() & self.read.val() {
            self.reserved_r.d.next = self.reserved_r.q.val() - self.one9.val();
        }
        if self.store.val() & !self.read.val() {
            self.words.d.next = self.words.q.val() + self.one9.val();
        }
        if !self.store.val() & self.read.val() {
            self.words.d.next = self.words.q.val() - self.one9.val();
        }
        self.kept_r.d.next = self.loaded.val() & !self.accept.val();
        self.held_r.d.next = self.valid.val() & !self.accept.val();
        if self.accept.val() & !self.resp.val() {
            self.outstanding.d.next = self.outstanding.q.val() + self.one9.val();
        }
        if !self.accept.val() & self.resp.val() {
            self.outstanding.d.next = self.outstanding.q.val() - self.one9.val();
        }
        // The address: RESULT + r·ncw + n·WORD_BYTES, row by row, column tile by column tile.
        if self.accept.val() {
            if self.row.q.val() + self.one9.val() == self.inrows9.wide.val() {
                self.row.d.next = self.zero9.val();
                self.tile_ptr.d.next = self.tile_ptr.q.val() + self.word_bytes.val();
                self.addr_r.d.next = self.tile_ptr.q.val() + self.word_bytes.val();
            } else {
                self.row.d.next = self.row.q.val() + self.one9.val();
                self.addr_r.d.next = self.addr_r.q.val() + self.ncw_bytes.val();
            }
        }
        if self.start.val() {
            self.row.d.next = self.zero9.val();
            self.addr_r.d.next = self.result.val();
            self.tile_ptr.d.next = self.result.val();
        }
        if self.restart.val() {
            self.reserved_r.d.next = self.zero9.val();
            self.words.d.next = self.zero9.val();
            self.kept_r.d.next = false;
            self.held_r.d.next = false;
            self.outstanding.d.next = self.zero9.val();
            self.row.d.next = self.zero9.val();
            self.addr_r.d.next = self.zero32.val();
            self.tile_ptr.d.next = self.zero32.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputWriter::default, "output_writer");
}
