//! ScaleNPU's RAM of tile rows written and read in order: the storage of the result buffer
//! (`result_buffer.rs`, REINPUTS) and the engine's X buffer (a layer's X kept on chip for its
//! column tiles after the first). Model and the decisions: `model/src/scale/tile_ram.rs` and
//! `model/src/scale/engine.rs` (`Engine::xbuf`); docs/scale.md, "X kept on chip".
use super::pe_column::VECTOR;
use super::SIZE;
use crate::primitives::{Ram, Reg, ZeroExtend};
use rust_hdl::prelude::*;

/// One simple dual-port RAM of `2^A` words (a word is one tile row, `16·SIZE` bits), a write
/// pointer and a read pointer that restart at a given word and step by one. A ROWS x COLS
/// matrix takes ROWS x ceil(COLS/SIZE) words and fits if that is at most `CAPACITY`; stores of
/// a matrix that does not fit are ignored.
#[derive(LogicBlock)]
pub struct TileRam<const A: usize, const CAPACITY: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The shape of the matrix stored (for `fits`).
    pub rows: Signal<In, Bits<8>>,
    pub cols: Signal<In, Bits<8>>,
    /// The write pointer goes to `write_base`.
    pub write_restart: Signal<In, Bit>,
    pub write_base: Signal<In, Bits<A>>,
    /// The read pointer goes to `read_base`.
    pub read_restart: Signal<In, Bit>,
    pub read_base: Signal<In, Bits<A>>,
    /// Read the next word; it is on `read_data` with `read_valid` the next cycle.
    pub read: Signal<In, Bit>,
    /// Store `word` as the next word (ignored if the matrix does not fit).
    pub store: Signal<In, Bit>,
    pub word: Signal<In, Bits<VECTOR>>,
    /// The matrix fits (registered: right from CHECK on, since the shape registers cannot
    /// change while the unit is busy).
    pub fits: Signal<Out, Bit>,
    pub read_valid: Signal<Out, Bit>,
    pub read_data: Signal<Out, Bits<VECTOR>>,

    ram: Ram<VECTOR, A>,
    write_ptr: Reg<Bits<A>>,
    read_ptr: Reg<Bits<A>>,
    read_done: Reg<Bit>,
    fit: Reg<Bit>,
    rows16: ZeroExtend<8, 16>,
    cols16: ZeroExtend<8, 16>,
    one: Constant<Bits<A>>,
    size_m1: Constant<Bits<16>>,
    log2_size: Constant<Bits<16>>,
    capacity: Constant<Bits<32>>,
    tiles: Signal<Local, Bits<16>>,
    words: Signal<Local, Bits<32>>,
}

impl<const A: usize, const CAPACITY: usize> Default for TileRam<A, CAPACITY> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            write_restart: Default::default(),
            write_base: Default::default(),
            read_restart: Default::default(),
            read_base: Default::default(),
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
            rows16: Default::default(),
            cols16: Default::default(),
            one: Constant::new(1.into()),
            size_m1: Constant::new((SIZE as u64 - 1).into()),
            log2_size: Constant::new(u64::from(SIZE.trailing_zeros()).into()),
            capacity: Constant::new((CAPACITY as u64).into()),
            tiles: Default::default(),
            words: Default::default(),
        }
    }
}

impl<const A: usize, const CAPACITY: usize> Logic for TileRam<A, CAPACITY> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_ptr, read_ptr, read_done, fit);
        self.write_ptr.reset.next = self.reset.val();
        self.read_ptr.reset.next = self.reset.val();
        self.read_done.reset.next = self.reset.val();
        self.fit.reset.next = self.reset.val();
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        self.rows16.narrow.next = self.rows.val();
        self.cols16.narrow.next = self.cols.val();
        self.tiles.next = (self.cols16.wide.val() + self.size_m1.val()) >> self.log2_size.val();
        self.words.next = self.rows16.wide.val() * self.tiles.val();
        self.fit.d.next = self.words.val() <= self.capacity.val();
        self.fits.next = self.fit.q.val();

        if self.write_restart.val() {
            self.write_ptr.d.next = self.write_base.val();
        } else if self.store.val() & self.fit.q.val() {
            self.write_ptr.d.next = self.write_ptr.q.val() + self.one.val();
        }
        self.ram.write_enable.next = self.store.val() & self.fit.q.val();
        self.ram.write_address.next = self.write_ptr.q.val();
        self.ram.write_data.next = self.word.val();
        if self.read_restart.val() {
            self.read_ptr.d.next = self.read_base.val();
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
    // The X buffer's shape.
    crate::synth_check::assert_synthesizes(TileRam::<10, 1024>::default, "tile_ram");
}
