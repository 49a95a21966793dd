//! A RAM of tile rows written and read in order: the storage of the result buffer
//! (`result_buffer.rs`) and of the X buffer (the engine's: a layer's X kept on chip for its
//! column tiles after the first). RTL: `hdl/src/scale/tile_ram.rs`; docs/scale.md, "REINPUTS and
//! the result buffer" and "X kept on chip".
//!
//! One simple dual-port RAM (one write port, one registered read port; block RAM on any FPGA,
//! no reset of its contents) of `WORDS` words of one tile row (`16·SIZE` bits), a write pointer
//! and a read pointer that restart at a given word and step by one. A matrix of ROWS x COLS
//! int16 takes ROWS x ceil(COLS/SIZE) words (one word per tile row and tile) and fits if that is
//! at most `CAPACITY`; stores of a matrix that does not fit are ignored.
use super::SIZE;

/// Controls of one cycle.
#[derive(Clone, Debug, Default)]
pub struct In {
    /// The shape of the matrix stored (for `fits`).
    pub rows: u8,
    pub cols: u8,
    /// The write pointer goes to `write_base`.
    pub write_restart: bool,
    pub write_base: usize,
    /// The read pointer goes to `read_base`.
    pub read_restart: bool,
    pub read_base: usize,
    /// Read the next word; it is on `read_data` with `read_valid` the next cycle.
    pub read: bool,
    /// Store `word` as the next word (ignored if the matrix does not fit).
    pub store: bool,
    pub word: u128,
}

#[derive(Clone, Debug)]
pub struct TileRam<const WORDS: usize, const CAPACITY: usize> {
    ram: Vec<u128>,
    write_ptr: usize,
    read_ptr: usize,
    read_done: bool,
    read_data: u128,
    /// `fits` of the shape, registered.
    fit: bool,
}

impl<const WORDS: usize, const CAPACITY: usize> Default for TileRam<WORDS, CAPACITY> {
    fn default() -> Self {
        Self { ram: vec![0; WORDS], write_ptr: 0, read_ptr: 0, read_done: false, read_data: 0, fit: false }
    }
}

/// A ROWS x COLS matrix of int16 takes at most `capacity` words.
pub fn fits(rows: u8, cols: u8, capacity: usize) -> bool {
    usize::from(rows) * usize::from(cols).div_ceil(SIZE) <= capacity
}

impl<const WORDS: usize, const CAPACITY: usize> TileRam<WORDS, CAPACITY> {
    /// Synchronous reset: every register and the read port's output, not the RAM.
    pub fn reset(&mut self) {
        let ram = std::mem::take(&mut self.ram);
        *self = Self { ram, ..Self::default() };
    }

    /// The matrix fits (registered: right from CHECK on, since the shape registers cannot
    /// change while the unit is busy).
    pub fn fits(&self) -> bool {
        self.fit
    }

    /// The word the next store goes to.
    pub fn write_ptr(&self) -> usize {
        self.write_ptr
    }

    /// The word read the cycle before, if one was.
    pub fn read_valid(&self) -> bool {
        self.read_done
    }

    pub fn read_data(&self) -> u128 {
        self.read_data
    }

    /// The rising edge.
    pub fn clock(&mut self, i: &In) {
        let fitted = self.fit;
        self.fit = fits(i.rows, i.cols, CAPACITY);
        if i.read {
            self.read_data = self.ram[self.read_ptr];
        }
        if i.store && fitted {
            self.ram[self.write_ptr] = i.word;
        }
        if i.write_restart {
            self.write_ptr = i.write_base;
        } else if i.store && fitted {
            self.write_ptr = (self.write_ptr + 1) % WORDS;
        }
        if i.read_restart {
            self.read_ptr = i.read_base;
        } else if i.read {
            self.read_ptr = (self.read_ptr + 1) % WORDS;
        }
        self.read_done = i.read;
    }
}
