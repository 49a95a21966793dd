//! One column of ScaleNPU's weight-stationary systolic array, with its accumulator memory
//! and output stage. Model and timing: `model/src/scale/pe_column.rs`; docs/scale.md.
use super::{Activation, SIZE};
use crate::primitives::{MulS16, Ram, Reg, ZeroExtend};
use rust_hdl::prelude::*;

/// Bits of a memory word / activation vector: one int16 lane per array row.
pub const VECTOR: usize = 16 * SIZE;
const LAST_ROW: usize = SIZE - 1;
/// Bits of a bit index into a vector (Verilator wants part-select indexes exactly this wide).
pub const VECTOR_INDEX: usize = VECTOR.trailing_zeros() as usize;

/// Column `index` of the array: `SIZE` processing elements (two banks of one weight, 16x16
/// multiplier, 32-bit partial-sum register) stacked from row 0 to row `SIZE - 1`, the
/// column's accumulator memory (256 x 32 bits, one word per input row) and its final
/// register, loaded with the output arithmetic of the sum a row of a last K tile writes. Each
/// activation lane comes with the weight bank of its input row, so one K tile's rows can
/// follow the one before while the engine loads the other bank.
#[derive(LogicBlock)]
pub struct PeColumn {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Activations, lane `i` for row `i` (skewed), and the valid bit of the last row's lane.
    pub a_in: Signal<In, Bits<VECTOR>>,
    pub v_in: Signal<In, Bit>,
    /// The weight bank of each lane of `a_in`.
    pub bank_in: Signal<In, Bits<SIZE>>,
    /// The row the registered `v` marks belongs to the first K tile (its sum starts from
    /// `base`); the array registers it alongside `v`.
    pub first: Signal<In, Bit>,
    /// The same row belongs to its column tile's last K tile (its sum is final), and to the
    /// layer's last column tile (the column is off if `index >= tail_lanes`).
    pub last: Signal<In, Bit>,
    pub tail: Signal<In, Bit>,
    /// This column's lanes of the memory response word: int16 lane `index` (a weight), and
    /// int32 lane `index % (SIZE / 2)` (a bias or sums value, if the word is `base_half`).
    pub w_lane: Signal<In, Bits<16>>,
    pub b_lane: Signal<In, Bits<32>>,
    /// The bank `w_clear` and `w_load` change.
    pub w_bank: Signal<In, Bit>,
    pub w_clear: Signal<In, Bit>,
    pub w_load: Signal<In, Bit>,
    pub w_row: Signal<In, Bits<SIZE>>,
    pub base_clear: Signal<In, Bit>,
    pub base_add: Signal<In, Bit>,
    pub base_half: Signal<In, Bit>,
    pub rows_clear: Signal<In, Bit>,
    /// Rows per K tile: the row counter wraps to 0 after this many.
    pub inrows: Signal<In, Bits<8>>,
    /// Columns of the last column tile: `(WGHTCOLS - 1) % SIZE + 1`.
    pub tail_lanes: Signal<In, Bits<8>>,
    pub relu: Signal<In, Bit>,
    pub shift: Signal<In, Bits<8>>,
    /// Registered `v_in`: for the next column, and the array's in-flight flag.
    pub v_out: Signal<Out, Bit>,
    /// The bank of the row `v_out` marks.
    pub bank_out: Signal<Out, Bit>,
    /// The final register (`trunc16(relu?(sum) >>> SHIFTAMT)` of the last final sum), and
    /// whether it was loaded at the last edge.
    pub fin_v: Signal<Out, Bit>,
    /// The final register in this column's lane of a word, zero elsewhere.
    pub placed: Signal<Out, Bits<VECTOR>>,

    w0: [Reg<Bits<16>>; SIZE],
    w1: [Reg<Bits<16>>; SIZE],
    psum: [Reg<Bits<32>>; SIZE],
    mul: [MulS16; SIZE],
    v: Reg<Bit>,
    v_bank: Reg<Bit>,
    base: Reg<Bits<32>>,
    row: Reg<Bits<8>>,
    acc: Ram<32, 8>,
    activation: Activation,
    fin: Reg<Bits<16>>,
    fin_valid: Reg<Bit>,
    result_wide: ZeroExtend<16, VECTOR>,

    lane16_shift: Constant<Bits<VECTOR_INDEX>>,
    half: Constant<Bit>,
    index: Constant<Bits<8>>,
    one: Constant<Bits<8>>,
    zero8: Constant<Bits<8>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,

    next_row: Signal<Local, Bits<8>>,
    /// Each PE's weight from its lane's bank.
    w_used: [Signal<Local, Bits<16>>; SIZE],
    dot: Signal<Local, Bits<32>>,
    /// The sum written to the accumulator memory this cycle.
    sum: Signal<Local, Bits<32>>,
}

impl PeColumn {
    pub fn new(index: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            a_in: Default::default(),
            v_in: Default::default(),
            bank_in: Default::default(),
            first: Default::default(),
            last: Default::default(),
            tail: Default::default(),
            w_lane: Default::default(),
            b_lane: Default::default(),
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
            v_out: Default::default(),
            bank_out: Default::default(),
            fin_v: Default::default(),
            placed: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            psum: Default::default(),
            mul: Default::default(),
            v: Default::default(),
            v_bank: Default::default(),
            base: Default::default(),
            row: Default::default(),
            acc: Default::default(),
            activation: Default::default(),
            fin: Default::default(),
            fin_valid: Default::default(),
            result_wide: Default::default(),
            lane16_shift: Constant::new(((16 * index) as u64).into()),
            half: Constant::new(index >= SIZE / 2),
            index: Constant::new((index as u64).into()),
            one: Constant::new(1.into()),
            zero8: Constant::new(0.into()),
            zero16: Constant::new(0.into()),
            zero32: Constant::new(0.into()),
            next_row: Default::default(),
            w_used: Default::default(),
            dot: Default::default(),
            sum: Default::default(),
        }
    }
}

impl Logic for PeColumn {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, v, v_bank, base, row, fin, fin_valid);
        self.v.reset.next = self.reset.val();
        self.v_bank.reset.next = self.reset.val();
        self.base.reset.next = self.reset.val();
        self.row.reset.next = self.reset.val();
        self.fin.reset.next = self.reset.val();
        self.fin_valid.reset.next = self.reset.val();
        self.acc.clock.next = self.clock.val();
        self.acc.reset.next = self.reset.val();

        // Processing elements: psum[i] = psum[i-1] + a[i]·w[bank of lane i][i], weights loaded
        // by row into bank `w_bank`.
        for i in 0..SIZE {
            self.w0[i].clock.next = self.clock.val();
            self.w0[i].reset.next = self.reset.val();
            self.w1[i].clock.next = self.clock.val();
            self.w1[i].reset.next = self.reset.val();
            self.w0[i].d.next = self.w0[i].q.val();
            self.w1[i].d.next = self.w1[i].q.val();
            if self.w_clear.val() {
                if self.w_bank.val() {
                    self.w1[i].d.next = self.zero16.val();
                } else {
                    self.w0[i].d.next = self.zero16.val();
                }
            } else if self.w_load.val() & self.w_row.val().get_bit(i) {
                if self.w_bank.val() {
                    self.w1[i].d.next = self.w_lane.val();
                } else {
                    self.w0[i].d.next = self.w_lane.val();
                }
            }
            self.psum[i].clock.next = self.clock.val();
            self.psum[i].reset.next = self.reset.val();
            self.w_used[i].next = self.w0[i].q.val();
            if self.bank_in.val().get_bit(i) {
                self.w_used[i].next = self.w1[i].q.val();
            }
            self.mul[i].a.next = self.a_in.val().get_bits::<16>(i * 16);
            self.mul[i].b.next = self.w_used[i].val();
        }
        self.psum[0].d.next = self.mul[0].product.val();
        for i in 1..SIZE {
            self.psum[i].d.next = self.psum[i - 1].q.val() + self.mul[i].product.val();
        }
        self.v.d.next = self.v_in.val();
        self.v_out.next = self.v.q.val();
        // (A one-pass loop: rust-hdl names a constant index instead of its value.)
        for i in LAST_ROW..SIZE {
            self.v_bank.d.next = self.bank_in.val().get_bit(i);
        }
        self.bank_out.next = self.v_bank.q.val();

        if self.base_clear.val() {
            self.base.d.next = self.zero32.val();
        } else if self.base_add.val() & (self.base_half.val() == self.half.val()) {
            self.base.d.next = self.base.q.val() + self.b_lane.val();
        }

        // Accumulator memory: a row's dot product arrives with `v`; its running sum was read
        // the cycle before (the read address is the row counter's next value). The counter
        // wraps after INROWS rows, where the next K tile's rows start.
        self.next_row.next = self.row.q.val();
        if self.rows_clear.val() {
            self.next_row.next = self.zero8.val();
        } else if self.v.q.val() {
            self.next_row.next = self.row.q.val() + self.one.val();
            if (self.row.q.val() + self.one.val()) == self.inrows.val() {
                self.next_row.next = self.zero8.val();
            }
        }
        self.row.d.next = self.next_row.val();
        self.acc.write_enable.next = self.v.q.val();
        self.acc.write_address.next = self.row.q.val();
        // (A one-pass loop: rust-hdl evaluates array indexes with loop variables only.)
        for i in LAST_ROW..SIZE {
            self.dot.next = self.psum[i].q.val();
        }
        if self.first.val() {
            self.sum.next = self.base.q.val() + self.dot.val();
        } else {
            self.sum.next = self.acc.read_data.val() + self.dot.val();
        }
        self.acc.write_data.next = self.sum.val();
        self.acc.read_enable.next = true;
        self.acc.read_address.next = self.next_row.val();

        // Final register: a row of a last K tile writes the final sum; the output arithmetic
        // takes it at the same edge (the accumulators are not read again).
        self.activation.value.next = self.sum.val();
        self.activation.relu.next = self.relu.val();
        self.activation.shift.next = self.shift.val();
        self.fin_valid.d.next = self.v.q.val() & self.last.val();
        if self.v.q.val() & self.last.val() {
            if !self.tail.val() | (self.tail_lanes.val() > self.index.val()) {
                self.fin.d.next = self.activation.result.val();
            } else {
                self.fin.d.next = self.zero16.val();
            }
        }
        self.fin_v.next = self.fin_valid.q.val();
        self.result_wide.narrow.next = self.fin.q.val();
        self.placed.next = self.result_wide.wide.val() << self.lane16_shift.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(|| PeColumn::new(SIZE - 1), "pe_column");
}
