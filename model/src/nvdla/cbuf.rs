//! The convolution buffer (seeds/001, "Convolution buffer"), nv_small's size (NVIDIA's
//! `spec/defs/nv_small.spec`): 32 banks of 512 entries of 8 bytes, one 8-byte atom an entry.
//! CDMA writes it, CSC reads it (a data port and a weight port). The banks from 0 to
//! D_BANK.DATA_BANK hold the feature cube, the next D_BANK.WEIGHT_BANK + 1 banks the weights
//! (docs/nvdla.md, "Direct convolution").

pub const BANKS: usize = 32;
pub const BANK_ENTRIES: usize = 512;
pub const ENTRIES: usize = BANKS * BANK_ENTRIES;

/// The buffer's entries. Reads and writes address an entry modulo [`ENTRIES`], as a
/// 14-bit index does in hardware.
#[derive(Clone, Debug)]
pub struct Cbuf {
    entries: Vec<u64>,
}

impl Default for Cbuf {
    fn default() -> Self {
        Cbuf { entries: vec![0; ENTRIES] }
    }
}

impl Cbuf {
    pub fn read(&self, entry: usize) -> u64 {
        self.entries[entry % ENTRIES]
    }

    pub fn write(&mut self, entry: usize, atom: u64) {
        self.entries[entry % ENTRIES] = atom;
    }
}
