//! The X buffer: the on-chip copy of a layer's X, so that X is read from memory once per
//! layer instead of once per column tile. RTL: `hdl/src/scale/x_buffer.rs`; docs/scale.md,
//! "Timing" ("X kept on chip").
//!
//! Decisions (seeds/004 says nothing of how the unit tiles a layer):
//! - Why: the unit walks column tiles outside and K tiles inside, and every column tile needs
//!   all of X. Re-reading it from memory made X most of a layer's memory requests (64x64x64:
//!   4096 of 5136) on the one memory port, which bounded the layer at 79.8 % MAC utilisation
//!   whatever the overlap of phases. With X on chip the port carries X once (512 words).
//! - What is stored: the X rows as the first column tile's STREAM phases receive them from
//!   memory, K tile by K tile, row by row: word `t·INROWS + r` is word `t` of row `r`. The later
//!   column tiles stream the same words in the same order from the buffer (always ready,
//!   answering the next cycle, as the result buffer does for REINPUTS).
//! - Size: `X_WORDS` = 1024 words of one tile row (`16·SIZE` bits): 16 KiB, like one bank of the
//!   result buffer (4 Xilinx RAMB36); it holds X for INROWS x ceil(INCOLS/SIZE) <= 1024 (255
//!   rows of 32 columns, 128 of 64, 64 of 128).
//! - A larger X is not refused: the layer re-reads X from memory for every column tile, as before
//!   the buffer, so no layer that ran before is refused now; it costs only cycles. (MNIST's first
//!   layer, 255 x 196, needs 6375 words and re-reads; a buffer for every layer the 8-bit
//!   registers describe would need 255 x 32 = 8160 words, 128 KiB.)
//! - REINPUTS layers already stream X from the result buffer and do not use this one.
//! - The buffer keeps nothing between layers: PLAN starts a layer's writes at word 0, and only the
//!   first column tile writes; a layer that fails leaves words that the next layer overwrites
//!   before it reads them.
use super::{SIZE, X_WORDS};

/// Controls of one cycle (the engine's outputs to the buffer).
#[derive(Clone, Debug, Default)]
pub struct In {
    pub inrows: u8,
    pub incols: u8,
    /// PLAN: the write pointer goes to word 0.
    pub layer_start: bool,
    /// NSTART: the read pointer goes to word 0.
    pub read_restart: bool,
    /// Read the next word; it is on `read_data` with `read_valid` the next cycle.
    pub read: bool,
    /// Store `word` as the next word (ignored if X does not fit).
    pub store: bool,
    pub word: u128,
}

#[derive(Clone, Debug)]
pub struct XBuffer {
    ram: Vec<u128>,
    write_ptr: usize,
    read_ptr: usize,
    read_done: bool,
    read_data: u128,
    /// `x_fits` of the shape registers, registered.
    fit: bool,
}

impl Default for XBuffer {
    fn default() -> Self {
        Self { ram: vec![0; X_WORDS], write_ptr: 0, read_ptr: 0, read_done: false, read_data: 0, fit: false }
    }
}

/// A layer's INROWS x ceil(INCOLS/SIZE) words of X fit in the buffer.
pub fn x_fits(inrows: u8, incols: u8) -> bool {
    usize::from(inrows) * usize::from(incols).div_ceil(SIZE) <= X_WORDS
}

impl XBuffer {
    /// Synchronous reset: every register and the read port's output, not the RAM.
    pub fn reset(&mut self) {
        let ram = std::mem::take(&mut self.ram);
        *self = Self { ram, ..Self::default() };
    }

    /// This layer's X fits (registered: right from CHECK on, since the shape registers cannot
    /// change while the unit is busy).
    pub fn fits(&self) -> bool {
        self.fit
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
        let fits = self.fit;
        self.fit = x_fits(i.inrows, i.incols);
        if i.read {
            self.read_data = self.ram[self.read_ptr];
        }
        if i.store && fits {
            self.ram[self.write_ptr] = i.word;
        }
        if i.layer_start {
            self.write_ptr = 0;
        } else if i.store && fits {
            self.write_ptr = (self.write_ptr + 1) % X_WORDS;
        }
        if i.read_restart {
            self.read_ptr = 0;
        } else if i.read {
            self.read_ptr = (self.read_ptr + 1) % X_WORDS;
        }
        self.read_done = i.read;
    }
}
