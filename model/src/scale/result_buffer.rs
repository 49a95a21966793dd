//! The result buffer: the on-chip copy of a layer's int16 results that the next layer takes
//! as X with REINPUTS. RTL: `hdl/src/scale/result_buffer.rs`; docs/scale.md, "REINPUTS and
//! the result buffer".
//!
//! Decisions (seeds/004 says only that REINPUTS uses "the results of the previous layer
//! calculation as the input matrix" and that SAVEOUT saves them):
//! - The results are kept whether or not SAVEOUT writes them to memory, as in the public
//!   ScaleNPU, whose output FIFOs keep them and feed them back. A REINPUTS layer reads none
//!   of the memory (no X section at BASE), so overwriting the old RESULT region is harmless.
//! - Storage: a simple dual-port RAM (one write port for the output stage, one registered
//!   read port for the input rows; block RAM on any FPGA, no reset of its contents) of two
//!   banks of `RESULT_WORDS` words, a word being one tile row of results as the output stage
//!   writes it (`16·SIZE` bits; lanes past WGHTCOLS zero, as X's padding in memory). The
//!   original keeps one tile (8 columns) of at most BUFFER_SIZE = 16 rows in its output FIFOs
//!   and refuses a larger INROWS outright; here a layer may be tiled, and the limit is on its
//!   results only: INROWS x ceil(WGHTCOLS/SIZE) <= RESULT_WORDS (1024: 255 rows of 32 columns,
//!   or 128 rows of 64, ...).
//! - Two banks: the kept results stay in one while a layer writes the other, so a REINPUTS
//!   layer with several column tiles still reads all of X for each, and a layer that fails
//!   half way spoils nothing. The banks swap when a layer ends with SUCCESS.
//! - What is kept: the results of the last layer that ended with SUCCESS. A failed layer
//!   (any other exit code) leaves them as they were. A successful layer whose results do not
//!   fit writes none of them and leaves nothing kept: a REINPUTS after it is CPU_ERR (an older
//!   layer's results would not be "the previous layer calculation"). After reset nothing is kept.
//! - REINPUTS is allowed if results are kept and they are INROWS x INCOLS; else CPU_ERR.
//!
//! Word `t·INROWS + r` of a bank is row `r` of column tile `t`: the output stage writes the
//! column tiles one after the other, rows in order; a REINPUTS layer with the same INROWS
//! reads K tile `t` (= the previous column tile `t`) rows in order, from the start again for
//! each of its own column tiles.
use super::tile_ram::{self, TileRam};
use super::RESULT_WORDS;

/// Controls of one cycle (the engine's outputs to the buffer).
#[derive(Clone, Debug, Default)]
pub struct In {
    pub inrows: u8,
    pub incols: u8,
    pub wghtcols: u8,
    pub layer_start: bool,
    pub read_restart: bool,
    pub read: bool,
    pub store: bool,
    pub word: u128,
    pub commit: bool,
}

#[derive(Clone, Debug, Default)]
pub struct ResultBuffer {
    /// Two banks: words 0.. and RESULT_WORDS...
    ram: TileRam<{ 2 * RESULT_WORDS }, RESULT_WORDS>,
    /// The bank of the kept results.
    bank: bool,
    kept: bool,
    kept_rows: u8,
    kept_cols: u8,
}

/// A layer's INROWS x ceil(WGHTCOLS/SIZE) result words fit in a bank.
pub fn results_fit(inrows: u8, wghtcols: u8) -> bool {
    tile_ram::fits(inrows, wghtcols, RESULT_WORDS)
}

impl ResultBuffer {
    /// Synchronous reset: every register and the read port's output, not the RAM.
    pub fn reset(&mut self) {
        let mut ram = std::mem::take(&mut self.ram);
        ram.reset();
        *self = Self { ram, ..Self::default() };
    }

    /// Kept results of INROWS x INCOLS: a REINPUTS layer of this shape may take them.
    pub fn reinput_ok(&self, inrows: u8, incols: u8) -> bool {
        self.kept && self.kept_rows == inrows && self.kept_cols == incols
    }

    /// This layer's results fit in a bank (registered: right from CHECK on, since the shape
    /// registers cannot change while the unit is busy).
    pub fn fits(&self) -> bool {
        self.ram.fits()
    }

    /// The word read the cycle before, if one was.
    pub fn read_valid(&self) -> bool {
        self.ram.read_valid()
    }

    pub fn read_data(&self) -> u128 {
        self.ram.read_data()
    }

    /// The rising edge.
    pub fn clock(&mut self, i: &In) {
        let bank_base = |bank: bool| if bank { RESULT_WORDS } else { 0 };
        let fits = self.ram.fits();
        // Writes go to the free bank, reads come from the kept one.
        self.ram.clock(&tile_ram::In {
            rows: i.inrows,
            cols: i.wghtcols,
            write_restart: i.layer_start,
            write_base: bank_base(!self.bank),
            read_restart: i.read_restart,
            read_base: bank_base(self.bank),
            read: i.read,
            store: i.store,
            word: i.word,
        });
        if i.commit {
            self.bank = !self.bank;
            (self.kept, self.kept_rows, self.kept_cols) = (fits, i.inrows, i.wghtcols);
        }
    }
}
