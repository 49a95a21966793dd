//! The convolution core as one engine (seeds/001, "Convolution core"): CDMA ([`Cdma`]), CBUF
//! and CSC ([`CscCbuf`]), CMAC ([`Cmac`]) and CACC ([`Cacc`]) wired together, their fields from
//! the register groups of CDMA, CSC and CACC (the CSB's ports), CDMA on the top's memory
//! arbiter, CACC's atoms to SDP in flying mode. Model: `npu_model::nvdla::conv_core`;
//! docs/nvdla.md "Convolution engine" has the timing and the decisions.
//!
//! A layer, from the cycle t in which `layer_ready` is high and the engine is idle: CDMA takes
//! `start` in t, checks the layer in t + 1 and gives its verdict (`error`) in t + 2. A refused
//! layer ends in t + 2 (`refused` and `done`): nothing fetched, nothing delivered. Otherwise
//! CSC takes `start` in t + 2 and waits for CDMA's kernel groups; CSC's `hold` is CACC's
//! `busy_full` of the cycle before (a register); the layer ends in the cycle SDP takes CACC's
//! atom tagged `out_layer_last`. Every output is a sub-block's register or depends only on
//! registers (the state, CACC's queue, SDP's `sdp_ready`), so the top has no combinational
//! path through the engine.
use super::cacc::Cacc;
use super::cdma::Cdma;
use super::cmac::Cmac;
use super::csc_cbuf::CscCbuf;
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ConvCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// All five units' consumer groups are enabled (the CSB's `conv_layer_ready`).
    pub layer_ready: Signal<In, Bit>,
    /// CDMA's fields (its consumer group; the kernel width and height are CSC's).
    pub cdma_width: Signal<In, Bits<13>>,
    pub cdma_height: Signal<In, Bits<13>>,
    pub cdma_channel: Signal<In, Bits<13>>,
    pub cdma_feature_base: Signal<In, Bits<64>>,
    pub cdma_line_stride: Signal<In, Bits<32>>,
    pub cdma_surface_stride: Signal<In, Bits<32>>,
    pub cdma_weight_base: Signal<In, Bits<64>>,
    pub cdma_kernels: Signal<In, Bits<13>>,
    pub cdma_data_bank: Signal<In, Bits<5>>,
    pub cdma_weight_bank: Signal<In, Bits<5>>,
    pub cdma_cvt_en: Signal<In, Bit>,
    pub cdma_cvt_truncate: Signal<In, Bits<6>>,
    pub cdma_cvt_offset: Signal<In, Bits<16>>,
    pub cdma_cvt_scale: Signal<In, Bits<16>>,
    /// CSC's fields (its consumer group).
    pub csc_datain_width_ext: Signal<In, Bits<13>>,
    pub csc_datain_height_ext: Signal<In, Bits<13>>,
    pub csc_datain_channel_ext: Signal<In, Bits<13>>,
    pub csc_weight_width_ext: Signal<In, Bits<5>>,
    pub csc_weight_height_ext: Signal<In, Bits<5>>,
    pub csc_weight_kernel: Signal<In, Bits<13>>,
    pub csc_conv_x_stride_ext: Signal<In, Bits<3>>,
    pub csc_conv_y_stride_ext: Signal<In, Bits<3>>,
    pub csc_x_dilation_ext: Signal<In, Bits<5>>,
    pub csc_y_dilation_ext: Signal<In, Bits<5>>,
    pub csc_pad_left: Signal<In, Bits<5>>,
    pub csc_pad_top: Signal<In, Bits<5>>,
    pub csc_dataout_width: Signal<In, Bits<13>>,
    pub csc_dataout_height: Signal<In, Bits<13>>,
    pub csc_pad_value: Signal<In, Bits<16>>,
    pub csc_data_bank: Signal<In, Bits<5>>,
    /// CACC's D_CLIP_CFG.CLIP_TRUNCATE.
    pub clip_truncate: Signal<In, Bits<5>>,
    /// CDMA's side of the memory port (reads only), through the top's arbiter.
    pub dbb_req_ready: Signal<In, Bit>,
    pub dbb_resp_valid: Signal<In, Bit>,
    pub dbb_resp_data: Signal<In, Bits<64>>,
    /// SDP waits for an atom (flying mode): CACC's `out_ready`.
    pub sdp_ready: Signal<In, Bit>,
    pub dbb_req_valid: Signal<Out, Bit>,
    pub dbb_req_addr: Signal<Out, Bits<64>>,
    /// CACC's first atom towards SDP (8 int32 lanes, 0..3 in `out_data_lo`); SDP takes it in a cycle with `sdp_ready`.
    pub out_valid: Signal<Out, Bit>,
    pub out_data_lo: Signal<Out, Bits<128>>,
    pub out_data_hi: Signal<Out, Bits<128>>,
    /// CDMA's fetches ended (GLB's CDMA_DAT_DONE, CDMA_WT_DONE of CDMA's group).
    pub dat_done: Signal<Out, Bit>,
    pub wt_done: Signal<Out, Bit>,
    /// The layer ends: SDP takes the atom tagged `out_layer_last`, or CDMA refused the layer (`refused`, with `done`).
    pub done: Signal<Out, Bit>,
    pub refused: Signal<Out, Bit>,
    /// Working on a layer (the five units' S_STATUS RUNNING).
    pub running: Signal<Out, Bit>,
    cdma: Cdma,
    csc: CscCbuf,
    cmac: Cmac,
    cacc: Cacc,
    /// Idle, CDMA checking (t + 1), its verdict (t + 2), running.
    state: Reg<Bits<2>>,
    /// CACC's `busy_full` of the cycle before: CSC's `hold`.
    hold: Reg<Bit>,
    /// Outputs of the sub-blocks the engine does not use (error code, their own running,
    /// CSC's kernel group, CACC's saturation count).
    unused: Signal<Local, Bit>,
    s_idle: Constant<Bits<2>>,
    s_check: Constant<Bits<2>>,
    s_verdict: Constant<Bits<2>>,
    s_running: Constant<Bits<2>>,
}

impl Default for ConvCore {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            layer_ready: Default::default(),
            cdma_width: Default::default(),
            cdma_height: Default::default(),
            cdma_channel: Default::default(),
            cdma_feature_base: Default::default(),
            cdma_line_stride: Default::default(),
            cdma_surface_stride: Default::default(),
            cdma_weight_base: Default::default(),
            cdma_kernels: Default::default(),
            cdma_data_bank: Default::default(),
            cdma_weight_bank: Default::default(),
            cdma_cvt_en: Default::default(),
            cdma_cvt_truncate: Default::default(),
            cdma_cvt_offset: Default::default(),
            cdma_cvt_scale: Default::default(),
            csc_datain_width_ext: Default::default(),
            csc_datain_height_ext: Default::default(),
            csc_datain_channel_ext: Default::default(),
            csc_weight_width_ext: Default::default(),
            csc_weight_height_ext: Default::default(),
            csc_weight_kernel: Default::default(),
            csc_conv_x_stride_ext: Default::default(),
            csc_conv_y_stride_ext: Default::default(),
            csc_x_dilation_ext: Default::default(),
            csc_y_dilation_ext: Default::default(),
            csc_pad_left: Default::default(),
            csc_pad_top: Default::default(),
            csc_dataout_width: Default::default(),
            csc_dataout_height: Default::default(),
            csc_pad_value: Default::default(),
            csc_data_bank: Default::default(),
            clip_truncate: Default::default(),
            dbb_req_ready: Default::default(),
            dbb_resp_valid: Default::default(),
            dbb_resp_data: Default::default(),
            sdp_ready: Default::default(),
            dbb_req_valid: Default::default(),
            dbb_req_addr: Default::default(),
            out_valid: Default::default(),
            out_data_lo: Default::default(),
            out_data_hi: Default::default(),
            dat_done: Default::default(),
            wt_done: Default::default(),
            done: Default::default(),
            refused: Default::default(),
            running: Default::default(),
            cdma: Default::default(),
            csc: Default::default(),
            cmac: Default::default(),
            cacc: Default::default(),
            state: Default::default(),
            hold: Default::default(),
            unused: Default::default(),
            s_idle: k(0),
            s_check: k(1),
            s_verdict: k(2),
            s_running: k(3),
        }
    }
}

impl Logic for ConvCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, hold);
        self.state.reset.next = self.reset.val();
        self.hold.reset.next = self.reset.val();
        self.cdma.clock.next = self.clock.val();
        self.cdma.reset.next = self.reset.val();
        self.csc.clock.next = self.clock.val();
        self.csc.reset.next = self.reset.val();
        self.cmac.clock.next = self.clock.val();
        self.cmac.reset.next = self.reset.val();
        self.cacc.clock.next = self.clock.val();
        self.cacc.reset.next = self.reset.val();
        // The layer's fields, live from the consumer groups (they cannot change while the
        // groups are enabled).
        self.cdma.width.next = self.cdma_width.val();
        self.cdma.height.next = self.cdma_height.val();
        self.cdma.channel.next = self.cdma_channel.val();
        self.cdma.feature_base.next = self.cdma_feature_base.val();
        self.cdma.line_stride.next = self.cdma_line_stride.val();
        self.cdma.surface_stride.next = self.cdma_surface_stride.val();
        self.cdma.weight_base.next = self.cdma_weight_base.val();
        self.cdma.kernels.next = self.cdma_kernels.val();
        self.cdma.data_bank.next = self.cdma_data_bank.val();
        self.cdma.weight_bank.next = self.cdma_weight_bank.val();
        self.cdma.cvt_en.next = self.cdma_cvt_en.val();
        self.cdma.cvt_truncate.next = self.cdma_cvt_truncate.val();
        self.cdma.cvt_offset.next = self.cdma_cvt_offset.val();
        self.cdma.cvt_scale.next = self.cdma_cvt_scale.val();
        self.cdma.kernel_width.next = self.csc_weight_width_ext.val();
        self.cdma.kernel_height.next = self.csc_weight_height_ext.val();
        self.csc.datain_width_ext.next = self.csc_datain_width_ext.val();
        self.csc.datain_height_ext.next = self.csc_datain_height_ext.val();
        self.csc.datain_channel_ext.next = self.csc_datain_channel_ext.val();
        self.csc.weight_width_ext.next = self.csc_weight_width_ext.val();
        self.csc.weight_height_ext.next = self.csc_weight_height_ext.val();
        self.csc.weight_kernel.next = self.csc_weight_kernel.val();
        self.csc.conv_x_stride_ext.next = self.csc_conv_x_stride_ext.val();
        self.csc.conv_y_stride_ext.next = self.csc_conv_y_stride_ext.val();
        self.csc.x_dilation_ext.next = self.csc_x_dilation_ext.val();
        self.csc.y_dilation_ext.next = self.csc_y_dilation_ext.val();
        self.csc.pad_left.next = self.csc_pad_left.val();
        self.csc.pad_top.next = self.csc_pad_top.val();
        self.csc.dataout_width.next = self.csc_dataout_width.val();
        self.csc.dataout_height.next = self.csc_dataout_height.val();
        self.csc.pad_value.next = self.csc_pad_value.val();
        self.csc.data_bank.next = self.csc_data_bank.val();
        self.cacc.clip_truncate.next = self.clip_truncate.val();
        // CDMA: started when the engine is idle and the layer ready; the memory port.
        self.cdma.start.next = (self.state.q.val() == self.s_idle.val()) & self.layer_ready.val();
        self.cdma.dbb_req_ready.next = self.dbb_req_ready.val();
        self.cdma.dbb_resp_valid.next = self.dbb_resp_valid.val();
        self.cdma.dbb_resp_data.next = self.dbb_resp_data.val();
        self.dbb_req_valid.next = self.cdma.dbb_req_valid.val();
        self.dbb_req_addr.next = self.cdma.dbb_req_addr.val();
        self.dat_done.next = self.cdma.dat_done.val();
        self.wt_done.next = self.cdma.wt_done.val();
        // CDMA into CBUF, kernel groups on CSC's demand; CSC started after CDMA's verdict.
        self.csc.wr_valid.next = self.cdma.cbuf_wr_valid.val();
        self.csc.wr_entry.next = self.cdma.cbuf_wr_entry.val();
        self.csc.wr_data.next = self.cdma.cbuf_wr_data.val();
        self.csc.weights_ready.next = self.cdma.weights_ready.val();
        self.cdma.wants_weights.next = self.csc.wants_weights.val();
        self.csc.start.next = (self.state.q.val() == self.s_verdict.val()) & !self.cdma.error.val();
        self.csc.hold.next = self.hold.q.val();
        // CSC's operations into CMAC, its partial sums into CACC.
        self.cmac.wt_valid.next = self.csc.wt_valid.val();
        self.cmac.wt_kernel.next = self.csc.wt_kernel.val();
        self.cmac.wt_data.next = self.csc.wt_data.val();
        self.cmac.dat_valid.next = self.csc.dat_valid.val();
        self.cmac.dat_data.next = self.csc.dat_data.val();
        self.cmac.dat_stripe_first.next = self.csc.dat_stripe_first.val();
        self.cmac.dat_acc_first.next = self.csc.dat_acc_first.val();
        self.cmac.dat_acc_last.next = self.csc.dat_acc_last.val();
        self.cmac.dat_layer_last.next = self.csc.dat_layer_last.val();
        self.cacc.psum_valid.next = self.cmac.psum_valid.val();
        self.cacc.psum_lo.next = self.cmac.psum_lo.val();
        self.cacc.psum_hi.next = self.cmac.psum_hi.val();
        self.cacc.psum_stripe_first.next = self.cmac.psum_stripe_first.val();
        self.cacc.psum_acc_first.next = self.cmac.psum_acc_first.val();
        self.cacc.psum_acc_last.next = self.cmac.psum_acc_last.val();
        self.cacc.psum_layer_last.next = self.cmac.psum_layer_last.val();
        self.hold.d.next = self.cacc.busy_full.val();
        // CACC's atoms to SDP.
        self.cacc.out_ready.next = self.sdp_ready.val();
        self.out_valid.next = self.cacc.out_valid.val();
        self.out_data_lo.next = self.cacc.out_data_lo.val();
        self.out_data_hi.next = self.cacc.out_data_hi.val();
        self.unused.next = self.cdma.error_code.val().any() | self.cdma.running.val() | self.csc.running.val() | self.csc.group.val().any() | self.cacc.sat_count.val().any();
        self.running.next = self.state.q.val() != self.s_idle.val();
        self.refused.next = (self.state.q.val() == self.s_verdict.val()) & self.cdma.error.val();
        self.done.next = self.refused.val()
            | ((self.state.q.val() == self.s_running.val()) & self.cacc.out_valid.val() & self.sdp_ready.val() & self.cacc.out_layer_last.val());
        if self.state.q.val() == self.s_idle.val() {
            if self.layer_ready.val() {
                self.state.d.next = self.s_check.val();
            }
        } else if self.state.q.val() == self.s_check.val() {
            self.state.d.next = self.s_verdict.val();
        } else if self.state.q.val() == self.s_verdict.val() {
            self.state.d.next = self.s_running.val();
            if self.cdma.error.val() {
                self.state.d.next = self.s_idle.val();
            }
        } else if self.done.val() {
            self.state.d.next = self.s_idle.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvCore::default, "nvdla_conv_core");
}
