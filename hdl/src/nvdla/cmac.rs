//! CMAC, nv_small's MAC array (seeds/001 "Convolution MAC"): atomic-C 8 x atomic-K 8 = 64
//! int8 multipliers in 8 MAC cells, one per kernel, with a shadow and an active weight bank.
//! Model: `npu_model::nvdla::cmac`; interface (agreed with CSC and CACC) and timing:
//! docs/nvdla.md "CMAC".
//!
//! - `wt_valid`: `wt_data` (8 int8 weights, channel c in bits 8c+7..8c) into the SHADOW
//!   weights of cell `wt_kernel`.
//! - `dat_valid`: an atomic op, one pixel's 8 int8 channels (`dat_data`) and its tags. With
//!   `dat_stripe_first` the shadow bank is copied into the active bank on this edge, before
//!   the op multiplies; a weight load in the same cycle lands in the shadow after the copy.
//! - [`CMAC_LATENCY`] cycles after `dat_valid`: `psum_valid`, the 8 partial sums
//!   (`psum_lo` cells 0..3, `psum_hi` 4..7, [`PSUM_BITS`] each) and the op's tags. Stage 1
//!   registers the op, stage 2 the sums ([`CmacCells`]); both hold between ops.
#[path = "cmac_cells.rs"]
pub mod cmac_cells;
pub use cmac_cells::CmacCells;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Cycles from an op on `dat_valid` to its partial sums on `psum_valid`.
pub const CMAC_LATENCY: usize = 2;
/// Bits of one partial sum (two's complement): the sums need 19, one spare.
pub const PSUM_BITS: usize = 20;

#[derive(LogicBlock)]
pub struct Cmac {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wt_valid: Signal<In, Bit>,
    pub wt_kernel: Signal<In, Bits<3>>,
    pub wt_data: Signal<In, Bits<64>>,
    pub dat_valid: Signal<In, Bit>,
    pub dat_data: Signal<In, Bits<64>>,
    pub dat_stripe_first: Signal<In, Bit>,
    pub dat_acc_first: Signal<In, Bit>,
    pub dat_acc_last: Signal<In, Bit>,
    pub dat_layer_last: Signal<In, Bit>,
    pub psum_valid: Signal<Out, Bit>,
    pub psum_lo: Signal<Out, Bits<80>>,
    pub psum_hi: Signal<Out, Bits<80>>,
    pub psum_stripe_first: Signal<Out, Bit>,
    pub psum_acc_first: Signal<Out, Bit>,
    pub psum_acc_last: Signal<Out, Bit>,
    pub psum_layer_last: Signal<Out, Bit>,
    shadow: [Reg<Bits<64>>; 8],
    active: [Reg<Bits<64>>; 8],
    cells: CmacCells,
    /// Stage 1: the op.
    valid1: Reg<Bit>,
    data1: Reg<Bits<64>>,
    stripe_first1: Reg<Bit>,
    acc_first1: Reg<Bit>,
    acc_last1: Reg<Bit>,
    layer_last1: Reg<Bit>,
    /// Stage 2: its sums.
    valid2: Reg<Bit>,
    lo2: Reg<Bits<80>>,
    hi2: Reg<Bits<80>>,
    stripe_first2: Reg<Bit>,
    acc_first2: Reg<Bit>,
    acc_last2: Reg<Bit>,
    layer_last2: Reg<Bit>,
    one: Constant<Bits<8>>,
    /// One-hot: the cell a weight load writes.
    load: Signal<Local, Bits<8>>,
}

impl Default for Cmac {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wt_valid: Default::default(),
            wt_kernel: Default::default(),
            wt_data: Default::default(),
            dat_valid: Default::default(),
            dat_data: Default::default(),
            dat_stripe_first: Default::default(),
            dat_acc_first: Default::default(),
            dat_acc_last: Default::default(),
            dat_layer_last: Default::default(),
            psum_valid: Default::default(),
            psum_lo: Default::default(),
            psum_hi: Default::default(),
            psum_stripe_first: Default::default(),
            psum_acc_first: Default::default(),
            psum_acc_last: Default::default(),
            psum_layer_last: Default::default(),
            shadow: Default::default(),
            active: Default::default(),
            cells: Default::default(),
            valid1: Default::default(),
            data1: Default::default(),
            stripe_first1: Default::default(),
            acc_first1: Default::default(),
            acc_last1: Default::default(),
            layer_last1: Default::default(),
            valid2: Default::default(),
            lo2: Default::default(),
            hi2: Default::default(),
            stripe_first2: Default::default(),
            acc_first2: Default::default(),
            acc_last2: Default::default(),
            layer_last2: Default::default(),
            one: Constant::new(1.into()),
            load: Default::default(),
        }
    }
}

impl Logic for Cmac {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, valid1, data1, stripe_first1, acc_first1, acc_last1, layer_last1, valid2, lo2, hi2, stripe_first2, acc_first2, acc_last2,
            layer_last2
        );
        self.valid1.reset.next = self.reset.val();
        self.data1.reset.next = self.reset.val();
        self.stripe_first1.reset.next = self.reset.val();
        self.acc_first1.reset.next = self.reset.val();
        self.acc_last1.reset.next = self.reset.val();
        self.layer_last1.reset.next = self.reset.val();
        self.valid2.reset.next = self.reset.val();
        self.lo2.reset.next = self.reset.val();
        self.hi2.reset.next = self.reset.val();
        self.stripe_first2.reset.next = self.reset.val();
        self.acc_first2.reset.next = self.reset.val();
        self.acc_last2.reset.next = self.reset.val();
        self.layer_last2.reset.next = self.reset.val();

        // The banks: the copy takes the shadow as it was before this cycle's load.
        self.load.next = self.one.val() << self.wt_kernel.val();
        for k in 0..8 {
            self.shadow[k].clock.next = self.clock.val();
            self.shadow[k].reset.next = self.reset.val();
            self.active[k].clock.next = self.clock.val();
            self.active[k].reset.next = self.reset.val();
            self.shadow[k].d.next = self.shadow[k].q.val();
            if self.wt_valid.val() & self.load.val().get_bit(k) {
                self.shadow[k].d.next = self.wt_data.val();
            }
            self.active[k].d.next = self.active[k].q.val();
            if self.dat_valid.val() & self.dat_stripe_first.val() {
                self.active[k].d.next = self.shadow[k].q.val();
            }
        }

        // Stage 1: the op.
        self.valid1.d.next = self.dat_valid.val();
        if self.dat_valid.val() {
            self.data1.d.next = self.dat_data.val();
            self.stripe_first1.d.next = self.dat_stripe_first.val();
            self.acc_first1.d.next = self.dat_acc_first.val();
            self.acc_last1.d.next = self.dat_acc_last.val();
            self.layer_last1.d.next = self.dat_layer_last.val();
        }

        // Stage 2: the sums with the active bank.
        self.cells.data.next = self.data1.q.val();
        self.cells.w0.next = self.active[0].q.val();
        self.cells.w1.next = self.active[1].q.val();
        self.cells.w2.next = self.active[2].q.val();
        self.cells.w3.next = self.active[3].q.val();
        self.cells.w4.next = self.active[4].q.val();
        self.cells.w5.next = self.active[5].q.val();
        self.cells.w6.next = self.active[6].q.val();
        self.cells.w7.next = self.active[7].q.val();
        self.valid2.d.next = self.valid1.q.val();
        if self.valid1.q.val() {
            self.lo2.d.next = self.cells.psum_lo.val();
            self.hi2.d.next = self.cells.psum_hi.val();
            self.stripe_first2.d.next = self.stripe_first1.q.val();
            self.acc_first2.d.next = self.acc_first1.q.val();
            self.acc_last2.d.next = self.acc_last1.q.val();
            self.layer_last2.d.next = self.layer_last1.q.val();
        }

        self.psum_valid.next = self.valid2.q.val();
        self.psum_lo.next = self.lo2.q.val();
        self.psum_hi.next = self.hi2.q.val();
        self.psum_stripe_first.next = self.stripe_first2.q.val();
        self.psum_acc_first.next = self.acc_first2.q.val();
        self.psum_acc_last.next = self.acc_last2.q.val();
        self.psum_layer_last.next = self.layer_last2.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Cmac::default, "nvdla_cmac");
}
