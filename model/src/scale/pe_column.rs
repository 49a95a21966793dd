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
//! The accumulator memory has one registered read port: in the streaming phase it reads the
//! row that arrives next, so the sum is ready when its product arrives; in the output phase
//! it reads the row the engine asks for, and the output register takes
//! `trunc16(relu?(acc) >>> SHIFTAMT)` (zero for a column beyond WGHTCOLS).
use super::systolic::In;
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
    /// The row with `v` belongs to the first K tile.
    pub first: bool,
    pub base: i32,
    pub row: usize,
    pub acc: Vec<i32>,
    pub read_data: i32,
    pub result: i16,
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
            base: 0,
            row: 0,
            acc: vec![0; ROWS],
            read_data: 0,
            result: 0,
        }
    }

    /// Synchronous reset: every register, not the accumulator memory (which has no reset).
    pub fn reset(&mut self) {
        let acc = std::mem::take(&mut self.acc);
        *self = Self { acc, ..Self::new(self.index) };
    }

    /// The rising edge, with the activations `a_in` (lane `i` for row `i`, skewed), their
    /// banks, and the valid and first-K-tile bits of the last row's lane from the column
    /// before, and the array's controls `i` (the memory response `w_word` carries weight rows
    /// and bias/sums words). Returns whether a row was accumulated.
    pub fn clock(&mut self, a_in: [i16; SIZE], bank_in: [bool; SIZE], v_in: bool, first_in: bool, i: &In) -> bool {
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
        let old_read = self.read_data;
        if i.out_phase {
            if i.out_read {
                self.read_data = self.acc[i.out_row];
            }
        } else {
            self.read_data = self.acc[next_row % ROWS];
        }
        if let Some((row, value)) = write {
            self.acc[row % ROWS] = value;
        }
        self.row = next_row;
        if i.out_load {
            self.result = if j < i.lanes_on { output(old_read, i.relu, i.shift) } else { 0 };
        }
        // The array.
        for r in (0..SIZE).rev() {
            let product = i32::from(a_in[r]) * i32::from(self.w[usize::from(bank_in[r])][r]);
            self.psum[r] = if r == 0 { product } else { self.psum[r - 1].wrapping_add(product) };
        }
        self.a = a_in;
        self.bank = bank_in;
        self.v = v_in;
        self.first = first_in;
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
