//! CDMA, the convolution DMA (seeds/001 "Convolution DMA"), direct convolution of int8
//! features: reads the feature cube's 8-byte atoms and the kernel groups' weights over the
//! DBB-style memory port and writes them into CBUF through its write port (`cbuf_wr_*`,
//! entry = bank * 512 + entry), as `npu_model::nvdla::cdma::CdmaLayer::place_features` and
//! `place_weights` place them (docs/nvdla.md "CSC's sequence and CBUF placement", "CDMA").
//!
//! - A layer starts with `start` in idle (its parameters held until it ends, as a consumer
//!   register group holds them). The first cycle checks it ([`CdmaCheck`]): a layer CBUF
//!   cannot hold ends there with `error` high one cycle and its `error_code`, no read and no
//!   CBUF write.
//! - Features: the cube walked x fastest, then lines, then surfaces ([`CubeWalk`], strides 8,
//!   LINE_STRIDE, SURF_STRIDE); the walk's order is CBUF's, so the entry counts from 0. Each
//!   atom: the read request (held while the port is not ready), its data (any latency), the
//!   input converter and the lane mask of a partial last surface ([`CdmaCvt`]), registered
//!   into the CBUF write: 2 cycles an atom with a memory answering the next cycle. `dat_done`
//!   is high with the last feature write.
//! - Weights, a kernel group at a time, when CSC asks (`wants_weights`): one atom per
//!   (channel block, tap, kernel of the group) in entry order from the weight banks' start.
//!   NVIDIA's packed layout stores a group's weights in exactly that order with no padding
//!   (docs/nvdla.md "Data in memory"), so one running byte pointer reads them: an atom of a
//!   block with Cb channels is the 8 bytes at the pointer, masked to Cb lanes, and the
//!   pointer moves by Cb. Kernels past the last (in a partial last group) are written 0
//!   without a read, one a cycle. The groups follow each other in memory, so the pointer
//!   runs on from group to group. After a group's last write, `weights_ready` is high one
//!   cycle (with `wt_done` for the last group, and the layer ends).
//! - One read outstanding at most, as the port allows; `running` while not idle.
//!
//! Model: `npu_model::nvdla::cdma::Cdma`.
use super::cdma_check::CdmaCheck;
use super::cdma_cvt::CdmaCvt;
use super::cube_walk::CubeWalk;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Cdma {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    /// The feature cube: counts minus 1 (D_DATAIN_SIZE_0/1), base, strides.
    pub width: Signal<In, Bits<13>>,
    pub height: Signal<In, Bits<13>>,
    pub channel: Signal<In, Bits<13>>,
    pub feature_base: Signal<In, Bits<64>>,
    pub line_stride: Signal<In, Bits<32>>,
    pub surface_stride: Signal<In, Bits<32>>,
    /// The weights: base, kernel size (CSC's WEIGHT_WIDTH_EXT, WEIGHT_HEIGHT_EXT) and count
    /// (WEIGHT_KERNEL), minus 1.
    pub weight_base: Signal<In, Bits<64>>,
    pub kernel_width: Signal<In, Bits<5>>,
    pub kernel_height: Signal<In, Bits<5>>,
    pub kernels: Signal<In, Bits<13>>,
    /// D_BANK: data and weight banks, minus 1.
    pub data_bank: Signal<In, Bits<5>>,
    pub weight_bank: Signal<In, Bits<5>>,
    /// D_CVT_CFG.CVT_EN, CVT_TRUNCATE, D_CVT_OFFSET, D_CVT_SCALE.
    pub cvt_en: Signal<In, Bit>,
    pub cvt_offset: Signal<In, Bits<16>>,
    pub cvt_scale: Signal<In, Bits<16>>,
    pub cvt_truncate: Signal<In, Bits<6>>,
    pub dbb_req_ready: Signal<In, Bit>,
    pub dbb_resp_valid: Signal<In, Bit>,
    pub dbb_resp_data: Signal<In, Bits<64>>,
    /// CSC waits for the next kernel group's weights (the previous group is done with).
    pub wants_weights: Signal<In, Bit>,
    pub dbb_req_valid: Signal<Out, Bit>,
    pub dbb_req_addr: Signal<Out, Bits<64>>,
    pub cbuf_wr_valid: Signal<Out, Bit>,
    pub cbuf_wr_entry: Signal<Out, Bits<14>>,
    pub cbuf_wr_data: Signal<Out, Bits<64>>,
    pub weights_ready: Signal<Out, Bit>,
    pub dat_done: Signal<Out, Bit>,
    pub wt_done: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    /// Why the last layer was refused (1 banks, 2 features, 3 weights), 0 after a start.
    pub error_code: Signal<Out, Bits<2>>,
    pub running: Signal<Out, Bit>,
    check: CdmaCheck,
    cvt: CdmaCvt,
    walk: CubeWalk,
    line64: ZeroExtend<32, 64>,
    surface64: ZeroExtend<32, 64>,
    data_bank14: ZeroExtend<5, 14>,
    cb_m1_64: ZeroExtend<3, 64>,
    unused_walk: Signal<Local, Bit>,
    state: Reg<Bits<3>>,
    /// The feature surface being read (for the partial last surface's lane mask).
    surface: Reg<Bits<13>>,
    entry: Reg<Bits<14>>,
    /// The weight atom: channel block, tap (row r, column s), kernel k of group `group`.
    block: Reg<Bits<13>>,
    tap_r: Reg<Bits<5>>,
    tap_s: Reg<Bits<5>>,
    k: Reg<Bits<3>>,
    group: Reg<Bits<13>>,
    pointer: Reg<Bits<64>>,
    wr_valid: Reg<Bit>,
    wr_entry: Reg<Bits<14>>,
    dat_done_r: Reg<Bit>,
    error_r: Reg<Bit>,
    error_code_r: Reg<Bits<2>>,
    last_surface: Signal<Local, Bit>,
    last_block: Signal<Local, Bit>,
    last_group: Signal<Local, Bit>,
    channel_low: Signal<Local, Bits<3>>,
    kernel_low: Signal<Local, Bits<3>>,
    /// The current weight block's and group's last lane and kernel.
    cb_m1: Signal<Local, Bits<3>>,
    kg_m1: Signal<Local, Bits<3>>,
    /// The weight atom is of a kernel of the layer (else 0, not read).
    kernel_exists: Signal<Local, Bit>,
    last_atom: Signal<Local, Bit>,
    advance: Signal<Local, Bit>,
    s_idle: Constant<Bits<3>>,
    s_check: Constant<Bits<3>>,
    s_feature_request: Constant<Bits<3>>,
    s_feature_wait: Constant<Bits<3>>,
    s_wait_csc: Constant<Bits<3>>,
    s_weight_atom: Constant<Bits<3>>,
    s_weight_wait: Constant<Bits<3>>,
    s_ready: Constant<Bits<3>>,
    seven: Constant<Bits<3>>,
    atom_bytes: Constant<Bits<64>>,
    one64: Constant<Bits<64>>,
    one14: Constant<Bits<14>>,
    one13: Constant<Bits<13>>,
    one5: Constant<Bits<5>>,
    one3: Constant<Bits<3>>,
    zero14: Constant<Bits<14>>,
    zero13: Constant<Bits<13>>,
    zero5: Constant<Bits<5>>,
    zero3: Constant<Bits<3>>,
    zero2: Constant<Bits<2>>,
}

impl Default for Cdma {
    fn default() -> Self {
        fn c<const N: usize>(value: u64) -> Constant<Bits<N>> {
            Constant::new(value.into())
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            width: Default::default(),
            height: Default::default(),
            channel: Default::default(),
            feature_base: Default::default(),
            line_stride: Default::default(),
            surface_stride: Default::default(),
            weight_base: Default::default(),
            kernel_width: Default::default(),
            kernel_height: Default::default(),
            kernels: Default::default(),
            data_bank: Default::default(),
            weight_bank: Default::default(),
            cvt_en: Default::default(),
            cvt_offset: Default::default(),
            cvt_scale: Default::default(),
            cvt_truncate: Default::default(),
            dbb_req_ready: Default::default(),
            dbb_resp_valid: Default::default(),
            dbb_resp_data: Default::default(),
            wants_weights: Default::default(),
            dbb_req_valid: Default::default(),
            dbb_req_addr: Default::default(),
            cbuf_wr_valid: Default::default(),
            cbuf_wr_entry: Default::default(),
            cbuf_wr_data: Default::default(),
            weights_ready: Default::default(),
            dat_done: Default::default(),
            wt_done: Default::default(),
            error: Default::default(),
            error_code: Default::default(),
            running: Default::default(),
            check: Default::default(),
            cvt: Default::default(),
            walk: Default::default(),
            line64: Default::default(),
            surface64: Default::default(),
            data_bank14: Default::default(),
            cb_m1_64: Default::default(),
            unused_walk: Default::default(),
            state: Default::default(),
            surface: Default::default(),
            entry: Default::default(),
            block: Default::default(),
            tap_r: Default::default(),
            tap_s: Default::default(),
            k: Default::default(),
            group: Default::default(),
            pointer: Default::default(),
            wr_valid: Default::default(),
            wr_entry: Default::default(),
            dat_done_r: Default::default(),
            error_r: Default::default(),
            error_code_r: Default::default(),
            last_surface: Default::default(),
            last_block: Default::default(),
            last_group: Default::default(),
            channel_low: Default::default(),
            kernel_low: Default::default(),
            cb_m1: Default::default(),
            kg_m1: Default::default(),
            kernel_exists: Default::default(),
            last_atom: Default::default(),
            advance: Default::default(),
            s_idle: c(0),
            s_check: c(1),
            s_feature_request: c(2),
            s_feature_wait: c(3),
            s_wait_csc: c(4),
            s_weight_atom: c(5),
            s_weight_wait: c(6),
            s_ready: c(7),
            seven: c(7),
            atom_bytes: c(8),
            one64: c(1),
            one14: c(1),
            one13: c(1),
            one5: c(1),
            one3: c(1),
            zero14: c(0),
            zero13: c(0),
            zero5: c(0),
            zero3: c(0),
            zero2: c(0),
        }
    }
}

impl Logic for Cdma {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, surface, entry, block, tap_r, tap_s, k, group, pointer, wr_valid, wr_entry, dat_done_r, error_r, error_code_r);
        self.state.reset.next = self.reset.val();
        self.surface.reset.next = self.reset.val();
        self.entry.reset.next = self.reset.val();
        self.block.reset.next = self.reset.val();
        self.tap_r.reset.next = self.reset.val();
        self.tap_s.reset.next = self.reset.val();
        self.k.reset.next = self.reset.val();
        self.group.reset.next = self.reset.val();
        self.pointer.reset.next = self.reset.val();
        self.wr_valid.reset.next = self.reset.val();
        self.wr_entry.reset.next = self.reset.val();
        self.dat_done_r.reset.next = self.reset.val();
        self.error_r.reset.next = self.reset.val();
        self.error_code_r.reset.next = self.reset.val();
        self.line64.narrow.next = self.line_stride.val();
        self.surface64.narrow.next = self.surface_stride.val();
        self.data_bank14.narrow.next = self.data_bank.val();
        self.check.width.next = self.width.val();
        self.check.height.next = self.height.val();
        self.check.channel.next = self.channel.val();
        self.check.kernel_width.next = self.kernel_width.val();
        self.check.kernel_height.next = self.kernel_height.val();
        self.check.data_bank.next = self.data_bank.val();
        self.check.weight_bank.next = self.weight_bank.val();
        // The feature walk: x fastest, then lines, then surfaces.
        self.walk.clock.next = self.clock.val();
        self.walk.reset.next = self.reset.val();
        self.walk.start.next = (self.state.q.val() == self.s_idle.val()) & self.start.val();
        self.walk.step.next = (self.state.q.val() == self.s_feature_wait.val()) & self.dbb_resp_valid.val();
        self.walk.base.next = self.feature_base.val();
        self.walk.stride0.next = self.atom_bytes.val();
        self.walk.stride1.next = self.line64.wide.val();
        self.walk.stride2.next = self.surface64.wide.val();
        self.walk.last0.next = self.width.val();
        self.walk.last1.next = self.height.val();
        self.walk.last2.next = self.channel.val() >> 3;
        self.unused_walk.next = self.walk.next_addr.val().any() | self.walk.index0.val().any();
        // Where the walks are.
        self.channel_low.next = self.channel.val().get_bits::<3>(0);
        self.kernel_low.next = self.kernels.val().get_bits::<3>(0);
        self.last_surface.next = self.surface.q.val() == (self.channel.val() >> 3);
        self.last_block.next = self.block.q.val() == (self.channel.val() >> 3);
        self.last_group.next = self.group.q.val() == (self.kernels.val() >> 3);
        self.cb_m1.next = self.seven.val();
        if self.last_block.val() {
            self.cb_m1.next = self.channel_low.val();
        }
        self.kg_m1.next = self.seven.val();
        if self.last_group.val() {
            self.kg_m1.next = self.kernel_low.val();
        }
        self.cb_m1_64.narrow.next = self.cb_m1.val();
        self.kernel_exists.next = self.k.q.val() <= self.kg_m1.val();
        self.last_atom.next = (self.k.q.val() == self.seven.val()) & (self.tap_s.q.val() == self.kernel_width.val()) & (self.tap_r.q.val() == self.kernel_height.val()) & self.last_block.val();
        self.advance.next = ((self.state.q.val() == self.s_weight_atom.val()) & !self.kernel_exists.val()) | ((self.state.q.val() == self.s_weight_wait.val()) & self.dbb_resp_valid.val());
        // The converter on features only; the lane mask of the surface or block.
        self.cvt.clock.next = self.clock.val();
        self.cvt.reset.next = self.reset.val();
        self.cvt.load.next = ((self.state.q.val() == self.s_feature_wait.val()) & self.dbb_resp_valid.val()) | self.advance.val();
        self.cvt.zero.next = self.state.q.val() == self.s_weight_atom.val();
        self.cvt.atom.next = self.dbb_resp_data.val();
        self.cvt.enable.next = self.cvt_en.val();
        self.cvt.feature.next = self.state.q.val() == self.s_feature_wait.val();
        self.cvt.last_surface.next = self.last_surface.val();
        self.cvt.last_block.next = self.last_block.val();
        self.cvt.channel_low.next = self.channel.val().get_bits::<3>(0);
        self.cvt.offset.next = self.cvt_offset.val();
        self.cvt.scale.next = self.cvt_scale.val();
        self.cvt.truncate.next = self.cvt_truncate.val();
        // Outputs (all from registers).
        // `dbb_req_valid` from registers and inputs only, not through `kernel_exists`: a
        // signal written in this `always` block and read with `dbb_req_ready` would make the
        // top's arbiter (grant from `dbb_req_valid`, `dbb_req_ready` from the grant) a loop for
        // Verilator (UNOPTFLAT; docs/nvdla.md "Convolution engine").
        self.dbb_req_valid.next = self.state.q.val() == self.s_feature_request.val();
        if self.state.q.val() == self.s_weight_atom.val() {
            self.dbb_req_valid.next = true;
            if (self.group.q.val() == (self.kernels.val() >> 3)) & (self.k.q.val() > self.kernels.val().get_bits::<3>(0)) {
                self.dbb_req_valid.next = false;
            }
        }
        self.dbb_req_addr.next = self.pointer.q.val();
        if self.state.q.val() == self.s_feature_request.val() {
            self.dbb_req_addr.next = self.walk.addr.val();
        }
        self.cbuf_wr_valid.next = self.wr_valid.q.val();
        self.cbuf_wr_entry.next = self.wr_entry.q.val();
        self.cbuf_wr_data.next = self.cvt.data.val();
        self.weights_ready.next = self.state.q.val() == self.s_ready.val();
        self.wt_done.next = (self.state.q.val() == self.s_ready.val()) & self.last_group.val();
        self.dat_done.next = self.dat_done_r.q.val();
        self.error.next = self.error_r.q.val();
        self.error_code.next = self.error_code_r.q.val();
        self.running.next = self.state.q.val() != self.s_idle.val();
        self.wr_valid.d.next = false;
        self.dat_done_r.d.next = false;
        self.error_r.d.next = false;
        // The weight atom's counters: kernel, tap column, tap row, channel block.
        if self.advance.val() {
            self.entry.d.next = self.entry.q.val() + self.one14.val();
            self.k.d.next = self.k.q.val() + self.one3.val();
            if self.k.q.val() == self.seven.val() {
                self.tap_s.d.next = self.tap_s.q.val() + self.one5.val();
                if self.tap_s.q.val() == self.kernel_width.val() {
                    self.tap_s.d.next = self.zero5.val();
                    self.tap_r.d.next = self.tap_r.q.val() + self.one5.val();
                    if self.tap_r.q.val() == self.kernel_height.val() {
                        self.tap_r.d.next = self.zero5.val();
                        self.block.d.next = self.block.q.val() + self.one13.val();
                        if self.last_block.val() {
                            self.block.d.next = self.zero13.val();
                        }
                    }
                }
            }
        }
        if self.state.q.val() == self.s_idle.val() {
            if self.start.val() {
                self.surface.d.next = self.zero13.val();
                self.entry.d.next = self.zero14.val();
                self.block.d.next = self.zero13.val();
                self.tap_r.d.next = self.zero5.val();
                self.tap_s.d.next = self.zero5.val();
                self.k.d.next = self.zero3.val();
                self.group.d.next = self.zero13.val();
                self.pointer.d.next = self.weight_base.val();
                self.error_code_r.d.next = self.zero2.val();
                self.state.d.next = self.s_check.val();
            }
        } else if self.state.q.val() == self.s_check.val() {
            if self.check.code.val() != self.zero2.val() {
                self.error_r.d.next = true;
                self.error_code_r.d.next = self.check.code.val();
                self.state.d.next = self.s_idle.val();
            } else {
                self.state.d.next = self.s_feature_request.val();
            }
        } else if self.state.q.val() == self.s_feature_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_feature_wait.val();
            }
        } else if self.state.q.val() == self.s_feature_wait.val() {
            if self.dbb_resp_valid.val() {
                self.wr_valid.d.next = true;
                self.wr_entry.d.next = self.entry.q.val();
                self.entry.d.next = self.entry.q.val() + self.one14.val();
                if self.walk.end0.val() & self.walk.end1.val() {
                    self.surface.d.next = self.surface.q.val() + self.one13.val();
                }
                if self.walk.last.val() {
                    self.dat_done_r.d.next = true;
                    self.state.d.next = self.s_wait_csc.val();
                } else {
                    self.state.d.next = self.s_feature_request.val();
                }
            }
        } else if self.state.q.val() == self.s_wait_csc.val() {
            if self.wants_weights.val() {
                // The group's first atom at the weight banks' first entry.
                self.entry.d.next = (self.data_bank14.wide.val() + self.one14.val()) << 9;
                self.state.d.next = self.s_weight_atom.val();
            }
        } else if self.state.q.val() == self.s_weight_atom.val() {
            if self.kernel_exists.val() {
                if self.dbb_req_ready.val() {
                    self.state.d.next = self.s_weight_wait.val();
                }
            } else {
                // A kernel past the last: 0, no read.
                self.wr_valid.d.next = true;
                self.wr_entry.d.next = self.entry.q.val();
                if self.last_atom.val() {
                    self.state.d.next = self.s_ready.val();
                }
            }
        } else if self.state.q.val() == self.s_weight_wait.val() {
            if self.dbb_resp_valid.val() {
                self.wr_valid.d.next = true;
                self.wr_entry.d.next = self.entry.q.val();
                self.pointer.d.next = self.pointer.q.val() + self.cb_m1_64.wide.val() + self.one64.val();
                if self.last_atom.val() {
                    self.state.d.next = self.s_ready.val();
                } else {
                    self.state.d.next = self.s_weight_atom.val();
                }
            }
        } else if self.state.q.val() == self.s_ready.val() {
            if self.last_group.val() {
                self.state.d.next = self.s_idle.val();
            } else {
                self.group.d.next = self.group.q.val() + self.one13.val();
                self.state.d.next = self.s_wait_csc.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Cdma::default, "nvdla_cdma");
}
