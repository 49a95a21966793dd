//! A ScaleNPU layer as software sees it: register values, the matrices, their memory image
//! at BASE (docs/scale.md, "Memory layout") and the plain integer matrix reference.
use npu_model::scale::engine::{words, WORD_BYTES};
use npu_model::scale::SIZE;

/// The configuration registers of one layer (seeds/004), as the CSR model keeps them.
pub use npu_model::scale::csr::Config as Registers;

/// A layer: registers and the data its sections at BASE hold. `x` is INROWS x INCOLS and
/// `w` WGHTROWS x WGHTCOLS, row major; each is ignored when REINPUTS / REWEIGHTS say the
/// unit takes it from the previous layer.
#[derive(Clone, Debug, Default)]
pub struct Layer {
    pub regs: Registers,
    pub x: Vec<i16>,
    pub w: Vec<i16>,
    pub bias: Vec<i32>,
    pub sums: Vec<i32>,
}

/// Byte size of a matrix of `rows` x `cols` int16 with every row starting on a memory word.
pub fn matrix_bytes(rows: u8, cols: u8) -> u32 {
    u32::from(rows) * words(cols) * WORD_BYTES
}

/// Byte size of a bias or sums vector of `cols` int32 (`SIZE` per two words).
pub fn vector_bytes(cols: u8) -> u32 {
    words(cols) * 2 * WORD_BYTES
}

/// Writes a row-major int16 matrix at `addr`, rows padded with zeros to whole words.
pub fn put_matrix(mem: &mut [u8], addr: u32, rows: u8, cols: u8, data: &[i16]) {
    let stride = (words(cols) * WORD_BYTES) as usize;
    for r in 0..usize::from(rows) {
        let row = addr as usize + r * stride;
        mem[row..row + stride].fill(0);
        for c in 0..usize::from(cols) {
            let v = data[r * usize::from(cols) + c].to_le_bytes();
            mem[row + 2 * c..row + 2 * c + 2].copy_from_slice(&v);
        }
    }
}

/// Reads a matrix written by [`put_matrix`] (or by the unit's SAVEOUT).
pub fn get_matrix(mem: &[u8], addr: u32, rows: u8, cols: u8) -> Vec<i16> {
    let stride = (words(cols) * WORD_BYTES) as usize;
    let mut out = Vec::with_capacity(usize::from(rows) * usize::from(cols));
    for r in 0..usize::from(rows) {
        for c in 0..usize::from(cols) {
            let at = addr as usize + r * stride + 2 * c;
            out.push(i16::from_le_bytes([mem[at], mem[at + 1]]));
        }
    }
    out
}

/// Writes an int32 vector at `addr`, padded with zeros to whole tiles.
pub fn put_vector(mem: &mut [u8], addr: u32, cols: u8, data: &[i32]) {
    let at = addr as usize;
    mem[at..at + vector_bytes(cols) as usize].fill(0);
    for (c, v) in data.iter().take(usize::from(cols)).enumerate() {
        mem[at + 4 * c..at + 4 * c + 4].copy_from_slice(&v.to_le_bytes());
    }
}

impl Layer {
    /// Writes the sections at BASE, in order: X (unless REINPUTS), W (unless REWEIGHTS),
    /// bias (if USEBIAS), sums (if USESUMM). An image that does not fit in `mem` is not
    /// written (the unit refuses such a layer with MEM_ERR).
    pub fn place(&self, mem: &mut [u8]) {
        let r = &self.regs;
        if u64::from(r.base) + u64::from(self.image_bytes()) > mem.len() as u64 {
            return;
        }
        let mut at = r.base;
        if !r.reinputs {
            put_matrix(mem, at, r.inrows, r.incols, &self.x);
            at += matrix_bytes(r.inrows, r.incols);
        }
        if !r.reweights {
            put_matrix(mem, at, r.wghtrows, r.wghtcols, &self.w);
            at += matrix_bytes(r.wghtrows, r.wghtcols);
        }
        for (used, v) in [(r.usebias, &self.bias), (r.usesumm, &self.sums)] {
            if used {
                put_vector(mem, at, r.wghtcols, v);
                at += vector_bytes(r.wghtcols);
            }
        }
    }

    /// Bytes from BASE to the end of the layer's last section.
    pub fn image_bytes(&self) -> u32 {
        let r = &self.regs;
        let mut n = 0;
        if !r.reinputs {
            n += matrix_bytes(r.inrows, r.incols);
        }
        if !r.reweights {
            n += matrix_bytes(r.wghtrows, r.wghtcols);
        }
        n + (u32::from(r.usebias) + u32::from(r.usesumm)) * vector_bytes(r.wghtcols)
    }
}

/// The plain integer reference of one layer: `trunc16(relu?(X·W + bias + sums) >>> shift)`,
/// X `m` x `k`, W `k` x `n`, sums wrapping at 32 bits. `bias` and `sums` may be empty.
#[allow(clippy::too_many_arguments)]
pub fn reference(x: &[i16], w: &[i16], m: usize, k: usize, n: usize, bias: &[i32], sums: &[i32], relu: bool, shift: u8) -> Vec<i16> {
    let mut out = Vec::with_capacity(m * n);
    for r in 0..m {
        for c in 0..n {
            let mut acc = bias.get(c).copied().unwrap_or(0).wrapping_add(sums.get(c).copied().unwrap_or(0));
            for i in 0..k {
                acc = acc.wrapping_add(i32::from(x[r * k + i]) * i32::from(w[i * n + c]));
            }
            if relu {
                acc = acc.max(0);
            }
            out.push((acc >> u32::from(shift).min(31)) as i16);
        }
    }
    out
}

/// Cycles an ideal array would need for `m` x `k` x `n`: every MAC slot busy, plus the
/// pipeline's fill and drain (`2·SIZE`).
pub fn ideal_cycles(m: usize, k: usize, n: usize) -> u64 {
    let macs = (m * k * n) as u64;
    macs.div_ceil((SIZE * SIZE) as u64) + 2 * SIZE as u64
}
