//! The weight-stationary systolic array: input skew, `SIZE` columns ([`PeColumn`]) and the
//! output word. RTL: `hdl/src/scale/systolic.rs`.
//!
//! An input row (one memory word, lane `k` = element `k` of the K tile) enters the skew
//! registers the edge after its memory response; lane `i` reaches array row `i` after `i + 1`
//! cycles, so that row `i` of column `j` sees it `i + j + 1` cycles after the response, just
//! as the partial sum of row `i - 1` arrives from above. The row's dot product with column
//! `j` leaves the column `SIZE + j + 1` cycles after the response, and is accumulated in the
//! column's memory the edge after. A row of a column tile's last K tile leaves its final
//! result in column `j`'s final register at that edge; the deskew delays column `j`'s by
//! `SIZE - 1 - j` more cycles (the input skew reversed), so the whole result word of the row,
//! lane `j` = column `j`, is on `word()` with `out_valid()` `2·SIZE + 1` cycles after the
//! response (docs/scale.md, "Where the cycles go now", 2).
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
    /// The entering row belongs to its column tile's last K tile (its sums are final), and to
    /// the layer's last column tile (columns `j >= tail_lanes` are beyond WGHTCOLS).
    pub row_last: bool,
    pub row_tail: bool,
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
    /// Columns of the last column tile: `(WGHTCOLS - 1) % SIZE + 1`.
    pub tail_lanes: usize,
    pub relu: bool,
    pub shift: u8,
}

/// What a row carries beside its lanes (with the lane of the last array row): valid, first K
/// tile, last K tile, last column tile.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tag {
    pub v: bool,
    pub first: bool,
    pub last: bool,
    pub tail: bool,
}

#[derive(Clone, Debug)]
pub struct Systolic {
    /// `skew[t]` is the input row `t + 1` cycles after its response; lane `t` of it feeds row `t`.
    skew: [u128; SIZE],
    skew_valid: [bool; SIZE],
    /// The bank and first-K-tile bits of the row in `skew[t]`.
    skew_bank: [bool; SIZE],
    skew_first: [bool; SIZE],
    skew_last: [bool; SIZE],
    skew_tail: [bool; SIZE],
    pub columns: Vec<PeColumn>,
    /// `deskew[j][d]`: column `j`'s final result `d + 1` cycles after its final register
    /// (`SIZE - 1 - j` stages for column `j`).
    deskew: Vec<Vec<i16>>,
}

impl Default for Systolic {
    fn default() -> Self {
        Self {
            skew: [0; SIZE],
            skew_valid: [false; SIZE],
            skew_bank: [false; SIZE],
            skew_first: [false; SIZE],
            skew_last: [false; SIZE],
            skew_tail: [false; SIZE],
            columns: (0..SIZE).map(PeColumn::new).collect(),
            deskew: (0..SIZE).map(|j| vec![0; SIZE - 1 - j]).collect(),
        }
    }
}

impl Systolic {
    pub fn reset(&mut self) {
        self.skew = [0; SIZE];
        self.skew_valid = [false; SIZE];
        self.skew_bank = [false; SIZE];
        self.skew_first = [false; SIZE];
        self.skew_last = [false; SIZE];
        self.skew_tail = [false; SIZE];
        self.columns.iter_mut().for_each(PeColumn::reset);
        self.deskew.iter_mut().for_each(|d| d.fill(0));
    }

    /// A row of weight bank `bank` is still in the array: that bank may not change yet.
    pub fn bank_active(&self, bank: bool) -> bool {
        self.skew_valid.iter().zip(self.skew_bank).any(|(&v, b)| v && b == bank)
            || self.columns.iter().any(|c| c.v && c.bank[SIZE - 1] == bank)
    }

    /// The result word: lane `j` is column `j`'s final result, deskewed.
    pub fn word(&self) -> u128 {
        (0..SIZE).fold(0, |w, j| {
            let lane = self.deskew[j].last().copied().unwrap_or(self.columns[j].fin);
            w | u128::from(lane as u16) << (16 * j)
        })
    }

    /// A result word is on `word()` (the last column's final register was loaded at the last
    /// edge).
    pub fn out_valid(&self) -> bool {
        self.columns[SIZE - 1].fin_v
    }

    /// A row of a first K tile is in the array: the columns' base (bias and sums) is in use.
    pub fn first_active(&self) -> bool {
        self.skew_valid.iter().zip(self.skew_first).any(|(&v, f)| v && f) || self.columns.iter().any(|c| c.v && c.first)
    }

    /// An input row is still in the array: in the skew, a column's valid bit is set, or a
    /// final register was loaded at the last edge (the last one's word is out in this cycle).
    pub fn active(&self) -> bool {
        self.skew_valid.iter().any(|&v| v) || self.columns.iter().any(|c| c.v || c.fin_v)
    }

    /// The rising edge; returns how many columns accumulated a row.
    pub fn clock(&mut self, i: &In) -> usize {
        let mut a_in: [i16; SIZE] = std::array::from_fn(|r| (self.skew[r] >> (16 * r)) as u16 as i16);
        let mut bank_in = self.skew_bank;
        let l = SIZE - 1;
        let mut tag = Tag { v: self.skew_valid[l], first: self.skew_first[l], last: self.skew_last[l], tail: self.skew_tail[l] };
        for j in 0..SIZE - 1 {
            let d = &mut self.deskew[j];
            d.rotate_right(1);
            d[0] = self.columns[j].fin;
        }
        let mut accumulated = 0;
        for column in &mut self.columns {
            let next = (column.a, column.bank, Tag { v: column.v, first: column.first, last: column.last, tail: column.tail });
            accumulated += usize::from(column.clock(a_in, bank_in, tag, i));
            (a_in, bank_in, tag) = next;
        }
        for t in (1..SIZE).rev() {
            self.skew[t] = self.skew[t - 1];
            self.skew_valid[t] = self.skew_valid[t - 1];
            self.skew_bank[t] = self.skew_bank[t - 1];
            self.skew_first[t] = self.skew_first[t - 1];
            self.skew_last[t] = self.skew_last[t - 1];
            self.skew_tail[t] = self.skew_tail[t - 1];
        }
        self.skew[0] = if i.row_valid { i.word } else { 0 };
        self.skew_valid[0] = i.row_valid;
        self.skew_bank[0] = i.row_valid && i.row_bank;
        self.skew_first[0] = i.row_valid && i.row_first;
        self.skew_last[0] = i.row_valid && i.row_last;
        self.skew_tail[0] = i.row_valid && i.row_tail;
        accumulated
    }
}
