//! One column of the weight-stationary systolic array, with its accumulator memory and its
//! output stage. RTL: `hdl/src/scale/pe_column.rs`; the array is `systolic.rs`.
//!
//! Column `j` holds two banks of weights `w[b][i]` of tile column `j` (one per array row `i`):
//! the engine loads one K tile's weights into one bank while the rows of the K tile before
//! still use the other (docs/scale.md "Timing"). In every cycle it takes the activation
//! vector `a_in` (lane `i` for row `i`, already skewed) with each lane's bank `bank_in[i]`
//! (the bank of the input row the lane belongs to), and registers `psum[0] = a_in[0]·w[b0][0]`,
//! `psum[i] = psum[i-1] + a_in[i]·w[bi][i]` (16x16 → 32-bit products, sums wrapping at 32
//! bits); `a_in`, `bank_in`, and the valid bit `v_in` and first-K-tile bit `first_in` of the
//! last row's lane are registered and passed to the next column. When the registered valid
//! bit is set, `psum[SIZE-1]` is the dot product of one input row with the column, and is
//! accumulated into `acc[row]` (the row counter counts these, wrapping to 0 after INROWS rows,
//! so the next K tile's rows can follow without a stop): `acc = base + psum` for a row of the
//! first K tile (`base` = bias + sums of the column), else `acc += psum`.
//!
//! The accumulator memory has one registered read port, which reads the row that arrives
//! next, so the sum is ready when its product arrives. A row of the column tile's last K tile
//! (`last`) writes the final sum: the same edge registers `trunc16(relu?(sum) >>> SHIFTAMT)`
//! in the final register `fin` (zero for a column beyond WGHTCOLS: a row of the last column
//! tile, `tail`, and `j >= tail_lanes`), with `fin_v`; the array deskews the columns' final
//! registers into one result word (docs/scale.md, "Where the cycles go now", 2). The
//! accumulators are not read again, so the next column tile's rows may follow at once.
use super::systolic::{In, Tag};
use super::SIZE;

/// Depth of the accumulator memory: one entry per input row (INROWS ≤ 255).
pub const ROWS: usize = 256;

#[derive(Clone, Debug)]
pub struct PeColumn {
    pub index: usize,
    pub w: [[i16; SIZE]; 2],
    pub psum: [i32; SIZE],
    pub a: [i16; SIZE],
    /// The bank of each lane of `a`.
    pub bank: [bool; SIZE],
    pub v: bool,
    /// The row with `v` belongs to the first K tile; to the last K tile; to the last column
    /// tile.
    pub first: bool,
    pub last: bool,
    pub tail: bool,
    pub base: i32,
    pub row: usize,
    pub acc: Vec<i32>,
    pub read_data: i32,
    /// The final result of the last row of a last K tile that passed, and whether it passed
    /// at the last edge.
    pub fin: i16,
    pub fin_v: bool,
}

/// `relu?(acc) >>> shift`, truncated to 16 bits: the output arithmetic of ScaleNPU.
pub fn output(acc: i32, relu: bool, shift: u8) -> i16 {
    let acc = if relu { acc.max(0) } else { acc };
    (acc >> shift.min(31)) as i16
}

impl PeColumn {
    pub fn new(index: usize) -> Self {
        Self {
            index,
            w: [[0; SIZE]; 2],
            psum: [0; SIZE],
            a: [0; SIZE],
            bank: [false; SIZE],
            v: false,
            first: false,
            last: false,
            tail: false,
            base: 0,
            row: 0,
            acc: vec![0; ROWS],
            read_data: 0,
            fin: 0,
            fin_v: false,
        }
    }

    /// Synchronous reset: every register, not the accumulator memory (which has no reset).
    pub fn reset(&mut self) {
        let acc = std::mem::take(&mut self.acc);
        *self = Self { acc, ..Self::new(self.index) };
    }

    /// The rising edge, with the activations `a_in` (lane `i` for row `i`, skewed), their
    /// banks, and the valid, first-K-tile, last-K-tile and last-column-tile bits of the last
    /// row's lane from the column before (`tag`), and the array's controls `i` (the memory
    /// response `w_word` carries weight rows and bias/sums words). Returns whether a row was
    /// accumulated.
    pub fn clock(&mut self, a_in: [i16; SIZE], bank_in: [bool; SIZE], tag: Tag, i: &In) -> bool {
        let j = self.index;
        let lane16 = (i.w_word >> (16 * j)) as u16 as i16;
        let lane32 = (i.w_word >> (32 * (j % (SIZE / 2)))) as u32 as i32;
        // Accumulator memory: the write and the registered read of this edge (old contents).
        let accumulate = self.v;
        let write = accumulate.then(|| {
            let sum = if self.first { self.base } else { self.read_data };
            (self.row, sum.wrapping_add(self.psum[SIZE - 1]))
        });
        let next_row = if i.rows_clear {
            0
        } else if accumulate && self.row + 1 == usize::from(i.inrows) {
            0
        } else {
            self.row + usize::from(accumulate)
        };
        self.read_data = self.acc[next_row % ROWS];
        self.fin_v = false;
        if let Some((row, value)) = write {
            self.acc[row % ROWS] = value;
            if self.last {
                self.fin_v = true;
                self.fin = if !self.tail || j < i.tail_lanes { output(value, i.relu, i.shift) } else { 0 };
            }
        }
        self.row = next_row;
        // The array.
        for r in (0..SIZE).rev() {
            let product = i32::from(a_in[r]) * i32::from(self.w[usize::from(bank_in[r])][r]);
            self.psum[r] = if r == 0 { product } else { self.psum[r - 1].wrapping_add(product) };
        }
        self.a = a_in;
        self.bank = bank_in;
        (self.v, self.first, self.last, self.tail) = (tag.v, tag.first, tag.last, tag.tail);
        // Weights (of bank `w_bank`) and base.
        let loaded = &mut self.w[usize::from(i.w_bank)];
        if i.w_clear {
            *loaded = [0; SIZE];
        } else if i.w_load {
            loaded[i.w_row] = lane16;
        }
        if i.base_clear {
            self.base = 0;
        } else if i.base_add && i.base_half == j / (SIZE / 2) {
            self.base = self.base.wrapping_add(lane32);
        }
        accumulate
    }
}
