//! Output FIFO, 128 x 8 (seeds/002 §6.6, §9.4). RTL: `hdl/src/mnist/fifo.rs`.
//!
//! Synchronous, one clock. `rd_data` is a register: a read in cycle n shows the byte in
//! cycle n+1 and holds it until the next read. FULL blocks writes and EMPTY blocks reads in
//! the FIFO itself, whatever WR_EN and RD_EN say (§6.6): a write when full is dropped and a
//! read when empty returns nothing new, and the stored bytes are untouched by either.
//! When full, a simultaneous read and write reads only (FULL gates WR_EN, as §6.6 says).
use std::collections::VecDeque;

pub const DEPTH: usize = 128;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    /// SSFR[8]: low holds the FIFO (no write, no read).
    pub en_fifo: bool,
    /// SSFR[7]: empties the FIFO (both pointers to 0); acts without EN_FIFO. `rd_data` keeps
    /// its value.
    pub rst_fifo: bool,
    pub wr_en: bool,
    pub rd_en: bool,
    pub wr_data: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub rd_data: u8,
    pub full: bool,
    pub empty: bool,
}

#[derive(Default)]
pub struct Fifo {
    bytes: VecDeque<u8>,
    rd_data: u8,
    event: &'static str,
}

impl Fifo {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { rd_data: self.rd_data, full: self.bytes.len() == DEPTH, empty: self.bytes.is_empty() }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let now = self.outputs();
        if i.reset {
            self.bytes.clear();
            self.rd_data = 0;
            "reset"
        } else if i.rst_fifo {
            self.bytes.clear();
            "rst_fifo"
        } else if !i.en_fifo {
            "disabled"
        } else {
            let write = i.wr_en && !now.full;
            let read = i.rd_en && !now.empty;
            if read {
                self.rd_data = self.bytes.pop_front().expect("not empty");
            }
            if write {
                self.bytes.push_back(i.wr_data);
            }
            match (i.wr_en, i.rd_en, write, read) {
                (true, _, false, _) => "write when full dropped",
                (_, true, _, false) => "read when empty ignored",
                (_, _, true, true) => "write and read",
                (_, _, true, false) => if self.bytes.len() == DEPTH { "write fills" } else { "write" },
                (_, _, false, true) => if self.bytes.is_empty() { "read last" } else { "read" },
                _ => "idle",
            }
        }
    }
}

crate::sequential_block!(Fifo);
