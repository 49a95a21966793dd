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
    pub w_clear: bool,
    pub w_load: bool,
    pub w_row: usize,
    pub base_clear: bool,
    pub base_add: bool,
    pub base_half: usize,
    pub rows_clear: bool,
    pub first_k: bool,
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
    pub columns: Vec<PeColumn>,
}

impl Default for Systolic {
    fn default() -> Self {
        Self { skew: [0; SIZE], skew_valid: [false; SIZE], columns: (0..SIZE).map(PeColumn::new).collect() }
    }
}

impl Systolic {
    pub fn reset(&mut self) {
        self.skew = [0; SIZE];
        self.skew_valid = [false; SIZE];
        self.columns.iter_mut().for_each(PeColumn::reset);
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
        let mut v_in = self.skew_valid[SIZE - 1];
        let mut accumulated = 0;
        for column in &mut self.columns {
            let (a_next, v_next) = (column.a, column.v);
            accumulated += usize::from(column.clock(a_in, v_in, i));
            (a_in, v_in) = (a_next, v_next);
        }
        for t in (1..SIZE).rev() {
            self.skew[t] = self.skew[t - 1];
            self.skew_valid[t] = self.skew_valid[t - 1];
        }
        self.skew[0] = if i.row_valid { i.word } else { 0 };
        self.skew_valid[0] = i.row_valid;
        accumulated
    }
}
