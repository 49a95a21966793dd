//! The weight-stationary systolic array: input skew, `SIZE` columns ([`PeColumn`]) and the
//! output word. RTL: `hdl/src/scale/systolic.rs`.
//!
//! An input row (one memory word, lane `k` = element `k` of the K tile) enters the skew
//! registers the edge after its memory response; lane `i` reaches array row `i` after `i + 1`
//! cycles, so that row `i` of column `j` sees it `i + j + 1` cycles after the response, just
//! as the partial sum of row `i - 1` arrives from above. The row's dot product with column
//! `j` leaves the column `SIZE + j + 1` cycles after the response, and is accumulated in the
//! column's memory the edge after. The output word is the columns' output registers, lane
//! `j` = column `j`.
use super::pe_column::PeColumn;
use super::SIZE;

/// Control of the array for one cycle (the engine's outputs to it).
#[derive(Clone, Debug, Default)]
pub struct In {
    /// A memory response to enter the skew as an input row.
    pub row_valid: bool,
    pub word: u128,
    /// The word weight rows and bias/sums words come in (the memory response), apart from the
    /// input row's `word`: a weight row loaded ahead arrives while an X row streams from the X
    /// buffer or the result buffer.
    pub w_word: u128,
    /// The weight bank the entering row is multiplied with, and whether it belongs to the
    /// first K tile (its sums start from the column's base).
    pub row_bank: bool,
    pub row_first: bool,
    /// The bank `w_clear` and `w_load` change, and whose rows `bank_active` looks for.
    pub w_bank: bool,
    pub w_clear: bool,
    pub w_load: bool,
    pub w_row: usize,
    pub base_clear: bool,
    pub base_add: bool,
    pub base_half: usize,
    pub rows_clear: bool,
    /// Rows per K tile: the columns' row counters wrap to 0 after this many.
    pub inrows: u8,
    pub out_phase: bool,
    pub out_read: bool,
    pub out_row: usize,
    pub out_load: bool,
    /// Columns `j < lanes_on` are inside WGHTCOLS.
    pub lanes_on: usize,
    pub relu: bool,
    pub shift: u8,
}

#[derive(Clone, Debug)]
pub struct Systolic {
    /// `skew[t]` is the input row `t + 1` cycles after its response; lane `t` of it feeds row `t`.
    skew: [u128; SIZE],
    skew_valid: [bool; SIZE],
    /// The bank and first-K-tile bits of the row in `skew[t]`.
    skew_bank: [bool; SIZE],
    skew_first: [bool; SIZE],
    pub columns: Vec<PeColumn>,
}

impl Default for Systolic {
    fn default() -> Self {
        Self {
            skew: [0; SIZE],
            skew_valid: [false; SIZE],
            skew_bank: [false; SIZE],
            skew_first: [false; SIZE],
            columns: (0..SIZE).map(PeColumn::new).collect(),
        }
    }
}

impl Systolic {
    pub fn reset(&mut self) {
        self.skew = [0; SIZE];
        self.skew_valid = [false; SIZE];
        self.skew_bank = [false; SIZE];
        self.skew_first = [false; SIZE];
        self.columns.iter_mut().for_each(PeColumn::reset);
    }

    /// A row of weight bank `bank` is still in the array: that bank may not change yet.
    pub fn bank_active(&self, bank: bool) -> bool {
        self.skew_valid.iter().zip(self.skew_bank).any(|(&v, b)| v && b == bank)
            || self.columns.iter().any(|c| c.v && c.bank[SIZE - 1] == bank)
    }

    /// The output word: lane `j` is column `j`'s output register.
    pub fn word(&self) -> u128 {
        self.columns.iter().enumerate().fold(0, |w, (j, c)| w | u128::from(c.result as u16) << (16 * j))
    }

    /// An input row is still in the array: in the skew, or a column's valid bit is set.
    pub fn active(&self) -> bool {
        self.skew_valid.iter().any(|&v| v) || self.columns.iter().any(|c| c.v)
    }

    /// The rising edge; returns how many columns accumulated a row.
    pub fn clock(&mut self, i: &In) -> usize {
        let mut a_in: [i16; SIZE] = std::array::from_fn(|r| (self.skew[r] >> (16 * r)) as u16 as i16);
        let mut bank_in = self.skew_bank;
        let (mut v_in, mut first_in) = (self.skew_valid[SIZE - 1], self.skew_first[SIZE - 1]);
        let mut accumulated = 0;
        for column in &mut self.columns {
            let next = (column.a, column.bank, column.v, column.first);
            accumulated += usize::from(column.clock(a_in, bank_in, v_in, first_in, i));
            (a_in, bank_in, v_in, first_in) = next;
        }
        for t in (1..SIZE).rev() {
            self.skew[t] = self.skew[t - 1];
            self.skew_valid[t] = self.skew_valid[t - 1];
            self.skew_bank[t] = self.skew_bank[t - 1];
            self.skew_first[t] = self.skew_first[t - 1];
        }
        self.skew[0] = if i.row_valid { i.word } else { 0 };
        self.skew_valid[0] = i.row_valid;
        self.skew_bank[0] = i.row_valid && i.row_bank;
        self.skew_first[0] = i.row_valid && i.row_first;
        accumulated
    }
}
