//! ScaleNPU's weight-stationary systolic array: input skew, `SIZE` [`PeColumn`]s and the
//! output word. Model and timing: `model/src/scale/systolic.rs`; docs/scale.md.
use super::pe_column::{PeColumn, VECTOR, VECTOR_INDEX};
use super::SIZE;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// The array and its skew. An input row (a memory response word) enters `skew[0]`; lane `t`
/// of `skew[t]` feeds array row `t`, so row `t` sees the row `t` cycles after row 0 does,
/// together with the partial sum from above. Columns pass activations to the right. Each row
/// carries its weight bank and its first-K-tile bit along (skewed with its lanes), so rows of
/// two K tiles can be in the array at once, and its last-K-tile and last-column-tile bits (with
/// the last row's lane, as the first-K-tile bit): a row of a last K tile leaves its final
/// results in the columns' final registers, which the deskew gathers into one result word
/// (column `j`'s taken `SIZE - 1 - j` cycles after it is loaded, the input skew reversed).
#[derive(LogicBlock)]
pub struct Systolic {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub row_valid: Signal<In, Bit>,
    pub word: Signal<In, Bits<VECTOR>>,
    /// The word weight rows and bias/sums words come in (the memory response), apart from the
    /// input row's `word`: a weight row loaded ahead arrives while an X row streams on chip.
    pub w_word: Signal<In, Bits<VECTOR>>,
    /// The entering row's weight bank and first-K-tile bit.
    pub row_bank: Signal<In, Bit>,
    pub row_first: Signal<In, Bit>,
    pub row_last: Signal<In, Bit>,
    pub row_tail: Signal<In, Bit>,
    /// The bank `w_clear` and `w_load` change.
    pub w_bank: Signal<In, Bit>,
    pub w_clear: Signal<In, Bit>,
    pub w_load: Signal<In, Bit>,
    pub w_row: Signal<In, Bits<SIZE>>,
    pub base_clear: Signal<In, Bit>,
    pub base_add: Signal<In, Bit>,
    pub base_half: Signal<In, Bit>,
    pub rows_clear: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    /// Columns of the last column tile.
    pub tail_lanes: Signal<In, Bits<8>>,
    pub relu: Signal<In, Bit>,
    pub shift: Signal<In, Bits<8>>,
    /// The result word of a row, lane `j` = column `j`'s final register, deskewed; valid with
    /// `out_valid`, `2·SIZE + 1` cycles after the row's response.
    pub out_word: Signal<Out, Bits<VECTOR>>,
    pub out_valid: Signal<Out, Bit>,
    /// A row of a first K tile is in the array (the columns' base is in use).
    pub first_active: Signal<Out, Bit>,
    /// An input row is still in the array (its products not all accumulated, or its result
    /// word out in this cycle).
    pub active: Signal<Out, Bit>,
    /// A row of weight bank 0 (1) is still in the array: that bank may not change yet.
    /// (Per bank, from registers only: an output that followed `w_bank` would close a
    /// combinational loop through the engine.)
    pub bank0_active: Signal<Out, Bit>,
    pub bank1_active: Signal<Out, Bit>,

    skew: [Reg<Bits<VECTOR>>; SIZE],
    skew_valid: [Reg<Bit>; SIZE],
    skew_bank: [Reg<Bit>; SIZE],
    skew_first: [Reg<Bit>; SIZE],
    skew_last: [Reg<Bit>; SIZE],
    skew_tail: [Reg<Bit>; SIZE],
    lane_bit: [Constant<Bits<SIZE>>; SIZE],
    zero_lanes: Constant<Bits<SIZE>>,
    lane_mask: [Constant<Bits<VECTOR>>; SIZE],
    /// Bit offsets of column `j`'s int16 and int32 lanes in a word.
    w_lane_at: [Constant<Bits<VECTOR_INDEX>>; SIZE],
    b_lane_at: [Constant<Bits<VECTOR_INDEX>>; SIZE],
    zero: Constant<Bits<VECTOR>>,
    columns: [PeColumn; SIZE],
    /// `a_pipe[j]`: the activations column `j + 1` takes (column `j`'s, a cycle later).
    a_pipe: [Reg<Bits<VECTOR>>; LAST],
    /// `bank_pipe[j]`: the lanes' banks column `j + 1` takes.
    bank_pipe: [Reg<Bits<SIZE>>; LAST],
    /// `first_at[j]`: the first-K-tile bit of the row column `j`'s valid bit marks.
    first_at: [Reg<Bit>; SIZE],
    last_at: [Reg<Bit>; SIZE],
    tail_at: [Reg<Bit>; SIZE],
    /// `deskew[j]`: lanes `0..=j` of a result word, column `j`'s final register taken the
    /// cycle after column `j - 1`'s.
    deskew: [Reg<Bits<VECTOR>>; LAST],
    /// Rows of a first K tile in `skew[0..=t]`, and in the columns `0..=j`.
    first_skew: [Signal<Local, Bit>; SIZE],
    first_column: [Signal<Local, Bit>; SIZE],
    /// Valid bits in `skew_valid[0..=t]`, and in the columns `0..=j`.
    any_skew: [Signal<Local, Bit>; SIZE],
    any_column: [Signal<Local, Bit>; SIZE],
    /// The same, of rows of bank 0 and of bank 1.
    bank0_skew: [Signal<Local, Bit>; SIZE],
    bank0_column: [Signal<Local, Bit>; SIZE],
    bank1_skew: [Signal<Local, Bit>; SIZE],
    bank1_column: [Signal<Local, Bit>; SIZE],
    /// `skewed_bank[t]`: lanes `0..=t` of the skewed bank vector.
    skewed_bank: [Signal<Local, Bits<SIZE>>; SIZE],
    /// `skewed[t]`: lanes `0..=t` of the skewed activation vector.
    skewed: [Signal<Local, Bits<VECTOR>>; SIZE],
}

impl Default for Systolic {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            row_valid: Default::default(),
            word: Default::default(),
            w_word: Default::default(),
            row_bank: Default::default(),
            row_first: Default::default(),
            row_last: Default::default(),
            row_tail: Default::default(),
            w_bank: Default::default(),
            w_clear: Default::default(),
            w_load: Default::default(),
            w_row: Default::default(),
            base_clear: Default::default(),
            base_add: Default::default(),
            base_half: Default::default(),
            rows_clear: Default::default(),
            inrows: Default::default(),
            tail_lanes: Default::default(),
            relu: Default::default(),
            shift: Default::default(),
            out_word: Default::default(),
            out_valid: Default::default(),
            first_active: Default::default(),
            active: Default::default(),
            bank0_active: Default::default(),
            bank1_active: Default::default(),
            skew: Default::default(),
            skew_valid: Default::default(),
            skew_bank: Default::default(),
            skew_first: Default::default(),
            skew_last: Default::default(),
            skew_tail: Default::default(),
            lane_bit: std::array::from_fn(|t| Constant::new((1u64 << t).into())),
            zero_lanes: Constant::new(0.into()),
            lane_mask: std::array::from_fn(|t| {
                let mut mask = Bits::<VECTOR>::default();
                mask.set_bits::<16>(16 * t, 0xFFFFu64.into());
                Constant::new(mask)
            }),
            w_lane_at: std::array::from_fn(|j| Constant::new(((16 * j) as u64).into())),
            b_lane_at: std::array::from_fn(|j| Constant::new(((32 * (j % (SIZE / 2))) as u64).into())),
            zero: Constant::new(0.into()),
            columns: std::array::from_fn(PeColumn::new),
            a_pipe: Default::default(),
            bank_pipe: Default::default(),
            first_at: Default::default(),
            last_at: Default::default(),
            tail_at: Default::default(),
            deskew: Default::default(),
            first_skew: Default::default(),
            first_column: Default::default(),
            any_skew: Default::default(),
            any_column: Default::default(),
            bank0_skew: Default::default(),
            bank0_column: Default::default(),
            bank1_skew: Default::default(),
            bank1_column: Default::default(),
            skewed_bank: Default::default(),
            skewed: Default::default(),
        }
    }
}

impl Logic for Systolic {
    #[hdl_gen]
    fn update(&mut self) {
        for t in 0..SIZE {
            self.skew[t].clock.next = self.clock.val();
            self.skew[t].reset.next = self.reset.val();
            self.skew_valid[t].clock.next = self.clock.val();
            self.skew_valid[t].reset.next = self.reset.val();
            self.skew_bank[t].clock.next = self.clock.val();
            self.skew_bank[t].reset.next = self.reset.val();
            self.skew_first[t].clock.next = self.clock.val();
            self.skew_first[t].reset.next = self.reset.val();
            self.skew_last[t].clock.next = self.clock.val();
            self.skew_last[t].reset.next = self.reset.val();
            self.skew_tail[t].clock.next = self.clock.val();
            self.skew_tail[t].reset.next = self.reset.val();
        }
        self.skew_valid[0].d.next = self.row_valid.val();
        self.skew_bank[0].d.next = self.row_valid.val() & self.row_bank.val();
        self.skew_first[0].d.next = self.row_valid.val() & self.row_first.val();
        self.skew_last[0].d.next = self.row_valid.val() & self.row_last.val();
        self.skew_tail[0].d.next = self.row_valid.val() & self.row_tail.val();
        self.skew[0].d.next = self.zero.val();
        if self.row_valid.val() {
            self.skew[0].d.next = self.word.val();
        }
        for t in 1..SIZE {
            self.skew[t].d.next = self.skew[t - 1].q.val();
            self.skew_valid[t].d.next = self.skew_valid[t - 1].q.val();
            self.skew_bank[t].d.next = self.skew_bank[t - 1].q.val();
            self.skew_first[t].d.next = self.skew_first[t - 1].q.val();
            self.skew_last[t].d.next = self.skew_last[t - 1].q.val();
            self.skew_tail[t].d.next = self.skew_tail[t - 1].q.val();
        }
        self.skewed[0].next = self.skew[0].q.val() & self.lane_mask[0].val();
        for t in 1..SIZE {
            self.skewed[t].next = self.skewed[t - 1].val() | (self.skew[t].q.val() & self.lane_mask[t].val());
        }
        self.skewed_bank[0].next = self.zero_lanes.val();
        if self.skew_bank[0].q.val() {
            self.skewed_bank[0].next = self.lane_bit[0].val();
        }
        for t in 1..SIZE {
            self.skewed_bank[t].next = self.skewed_bank[t - 1].val();
            if self.skew_bank[t].q.val() {
                self.skewed_bank[t].next = self.skewed_bank[t - 1].val() | self.lane_bit[t].val();
            }
        }

        for j in 0..SIZE {
            self.columns[j].clock.next = self.clock.val();
            self.columns[j].reset.next = self.reset.val();
            self.columns[j].w_lane.next = self.w_word.val().get_bits::<16>(self.w_lane_at[j].val().index());
            self.columns[j].b_lane.next = self.w_word.val().get_bits::<32>(self.b_lane_at[j].val().index());
            self.columns[j].w_bank.next = self.w_bank.val();
            self.columns[j].w_clear.next = self.w_clear.val();
            self.columns[j].w_load.next = self.w_load.val();
            self.columns[j].w_row.next = self.w_row.val();
            self.columns[j].base_clear.next = self.base_clear.val();
            self.columns[j].base_add.next = self.base_add.val();
            self.columns[j].base_half.next = self.base_half.val();
            self.columns[j].rows_clear.next = self.rows_clear.val();
            self.columns[j].inrows.next = self.inrows.val();
            self.columns[j].tail_lanes.next = self.tail_lanes.val();
            self.columns[j].relu.next = self.relu.val();
            self.columns[j].shift.next = self.shift.val();
        }
        // (One-pass loops: rust-hdl evaluates array indexes with loop variables only.)
        for t in LAST..SIZE {
            self.columns[0].a_in.next = self.skewed[t].val();
            self.columns[0].v_in.next = self.skew_valid[t].q.val();
            self.columns[0].bank_in.next = self.skewed_bank[t].val();
            self.first_at[0].d.next = self.skew_first[t].q.val();
            self.last_at[0].d.next = self.skew_last[t].q.val();
            self.tail_at[0].d.next = self.skew_tail[t].q.val();
            self.a_pipe[0].d.next = self.skewed[t].val();
            self.bank_pipe[0].d.next = self.skewed_bank[t].val();
        }
        for j in 0..LAST {
            self.a_pipe[j].clock.next = self.clock.val();
            self.a_pipe[j].reset.next = self.reset.val();
            self.bank_pipe[j].clock.next = self.clock.val();
            self.bank_pipe[j].reset.next = self.reset.val();
        }
        for j in 0..SIZE {
            self.first_at[j].clock.next = self.clock.val();
            self.first_at[j].reset.next = self.reset.val();
            self.columns[j].first.next = self.first_at[j].q.val();
            self.last_at[j].clock.next = self.clock.val();
            self.last_at[j].reset.next = self.reset.val();
            self.columns[j].last.next = self.last_at[j].q.val();
            self.tail_at[j].clock.next = self.clock.val();
            self.tail_at[j].reset.next = self.reset.val();
            self.columns[j].tail.next = self.tail_at[j].q.val();
        }
        for j in 1..SIZE {
            self.first_at[j].d.next = self.first_at[j - 1].q.val();
            self.last_at[j].d.next = self.last_at[j - 1].q.val();
            self.tail_at[j].d.next = self.tail_at[j - 1].q.val();
        }
        for j in 1..LAST {
            self.a_pipe[j].d.next = self.a_pipe[j - 1].q.val();
            self.bank_pipe[j].d.next = self.bank_pipe[j - 1].q.val();
        }
        for j in 1..SIZE {
            self.columns[j].a_in.next = self.a_pipe[j - 1].q.val();
            self.columns[j].v_in.next = self.columns[j - 1].v_out.val();
            self.columns[j].bank_in.next = self.bank_pipe[j - 1].q.val();
        }
        self.any_skew[0].next = self.skew_valid[0].q.val();
        for t in 1..SIZE {
            self.any_skew[t].next = self.any_skew[t - 1].val() | self.skew_valid[t].q.val();
        }
        self.any_column[0].next = self.columns[0].v_out.val() | self.columns[0].fin_v.val();
        for j in 1..SIZE {
            self.any_column[j].next = self.any_column[j - 1].val() | self.columns[j].v_out.val() | self.columns[j].fin_v.val();
        }
        self.bank0_skew[0].next = self.skew_valid[0].q.val() & !self.skew_bank[0].q.val();
        self.bank1_skew[0].next = self.skew_valid[0].q.val() & self.skew_bank[0].q.val();
        for t in 1..SIZE {
            self.bank0_skew[t].next = self.bank0_skew[t - 1].val() | (self.skew_valid[t].q.val() & !self.skew_bank[t].q.val());
            self.bank1_skew[t].next = self.bank1_skew[t - 1].val() | (self.skew_valid[t].q.val() & self.skew_bank[t].q.val());
        }
        self.bank0_column[0].next = self.columns[0].v_out.val() & !self.columns[0].bank_out.val();
        self.bank1_column[0].next = self.columns[0].v_out.val() & self.columns[0].bank_out.val();
        for j in 1..SIZE {
            self.bank0_column[j].next =
                self.bank0_column[j - 1].val() | (self.columns[j].v_out.val() & !self.columns[j].bank_out.val());
            self.bank1_column[j].next =
                self.bank1_column[j - 1].val() | (self.columns[j].v_out.val() & self.columns[j].bank_out.val());
        }
        self.first_skew[0].next = self.skew_valid[0].q.val() & self.skew_first[0].q.val();
        for t in 1..SIZE {
            self.first_skew[t].next = self.first_skew[t - 1].val() | (self.skew_valid[t].q.val() & self.skew_first[t].q.val());
        }
        self.first_column[0].next = self.columns[0].v_out.val() & self.first_at[0].q.val();
        for j in 1..SIZE {
            self.first_column[j].next = self.first_column[j - 1].val() | (self.columns[j].v_out.val() & self.first_at[j].q.val());
        }
        // Deskew: column `j`'s final register joins the word the cycle after column `j - 1`'s.
        for j in 0..LAST {
            self.deskew[j].clock.next = self.clock.val();
            self.deskew[j].reset.next = self.reset.val();
        }
        self.deskew[0].d.next = self.columns[0].placed.val();
        for j in 1..LAST {
            self.deskew[j].d.next = self.deskew[j - 1].q.val() | self.columns[j].placed.val();
        }
        for j in LAST..SIZE {
            self.out_word.next = self.deskew[j - 1].q.val() | self.columns[j].placed.val();
            self.out_valid.next = self.columns[j].fin_v.val();
            self.first_active.next = self.first_skew[j].val() | self.first_column[j].val();
            self.active.next = self.any_skew[j].val() | self.any_column[j].val();
            self.bank0_active.next = self.bank0_skew[j].val() | self.bank0_column[j].val();
            self.bank1_active.next = self.bank1_skew[j].val() | self.bank1_column[j].val();
        }
    }
}

const LAST: usize = SIZE - 1;

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Systolic::default, "systolic");
}
