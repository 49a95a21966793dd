//! NVDLA nv_small as built so far (seeds/001; docs/nvdla.md has the block diagram): the CSB
//! and register files ([`Csb`]: GLB, CDMA, CSC, CMAC_A, CMAC_B, CACC, SDP_RDMA, SDP,
//! PDP_RDMA, PDP, CDP_RDMA, CDP), the convolution engine ([`ConvCore`]: CDMA, CBUF, CSC, CMAC,
//! CACC) whose atoms SDP takes in flying mode, the SDP engine with its read DMA ([`Sdp`]), the
//! PDP engine with its read DMA ([`Pdp`]) and the CDP engine with its read DMA ([`Cdp`]) and
//! datapath ([`CdpDp`]), sharing one memory port through an arbiter. Model:
//! `npu_model::nvdla::nv_small`.
//!
//! Memory arbiter (docs/nvdla.md "Memory port"): each engine drives a registered request;
//! the port takes the first asking engine in the order SDP, PDP, CDP, CDMA starting at
//! `prefer`, and after every request taken `prefer` moves to the engine after the one granted
//! (round robin: an engine waits for at most three others' requests; CDMA only reads, and
//! while it does not ask the grant is the three others' round robin, cycle for cycle). A read
//! is granted only while no read is
//! outstanding, so read data comes back for the one engine that asked (recorded with the
//! read) and the port keeps at most one read outstanding.
//!
//! Ports: the CSB as seeds/001 Tables 1-3 name it (`csb2nvdla_*` as `csb_*` inputs,
//! `nvdla2csb_*` as `csb_rvalid`, `csb_rdata`, `csb_wr_complete`), `irq`
//! (`nvdla2core_interrupt`), and the memory port (DBB-style valid/ready, one 8-byte atom per
//! request; its AXI4 mapping is in docs/nvdla.md): `dbb_req_valid`, `dbb_req_write`,
//! `dbb_req_addr`, `dbb_req_wdata` out, `dbb_req_ready` in; read data in `dbb_resp_valid`,
//! `dbb_resp_data`, in order, at most one read outstanding.
use super::cdp::Cdp;
use super::cdp_dp::CdpDp;
use super::conv_core::ConvCore;
use super::csb::Csb;
use super::pdp::Pdp;
use super::sdp::Sdp;
use super::sdp_lut::SdpLut;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct NvSmall {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub csb_valid: Signal<In, Bit>,
    pub csb_addr: Signal<In, Bits<16>>,
    pub csb_wdat: Signal<In, Bits<32>>,
    pub csb_write: Signal<In, Bit>,
    pub csb_nposted: Signal<In, Bit>,
    pub dbb_req_ready: Signal<In, Bit>,
    pub dbb_resp_valid: Signal<In, Bit>,
    pub dbb_resp_data: Signal<In, Bits<64>>,
    pub csb_ready: Signal<Out, Bit>,
    pub csb_rvalid: Signal<Out, Bit>,
    pub csb_rdata: Signal<Out, Bits<32>>,
    pub csb_wr_complete: Signal<Out, Bit>,
    pub irq: Signal<Out, Bit>,
    pub dbb_req_valid: Signal<Out, Bit>,
    pub dbb_req_write: Signal<Out, Bit>,
    pub dbb_req_addr: Signal<Out, Bits<64>>,
    pub dbb_req_wdata: Signal<Out, Bits<64>>,
    csb: Csb,
    sdp: Sdp,
    pdp: Pdp,
    cdp: Cdp,
    cdp_dp: CdpDp,
    sdp_lut: SdpLut,
    conv: ConvCore,
    /// A read is outstanding; `owner` is whose (0 SDP, 1 PDP, 2 CDP, 3 CDMA).
    outstanding: Reg<Bit>,
    owner: Reg<Bits<2>>,
    /// The engine first in line: the one after the engine last granted (round robin).
    prefer: Reg<Bits<2>>,
    sdp_asks: Signal<Local, Bit>,
    pdp_asks: Signal<Local, Bit>,
    cdp_asks: Signal<Local, Bit>,
    cdma_asks: Signal<Local, Bit>,
    grant_sdp: Signal<Local, Bit>,
    grant_pdp: Signal<Local, Bit>,
    grant_cdp: Signal<Local, Bit>,
    grant_cdma: Signal<Local, Bit>,
    granted_write: Signal<Local, Bit>,
    sdp_id: Constant<Bits<2>>,
    pdp_id: Constant<Bits<2>>,
    cdp_id: Constant<Bits<2>>,
    cdma_id: Constant<Bits<2>>,
    zero64: Constant<Bits<64>>,
}

impl Default for NvSmall {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            csb_valid: Default::default(),
            csb_addr: Default::default(),
            csb_wdat: Default::default(),
            csb_write: Default::default(),
            csb_nposted: Default::default(),
            dbb_req_ready: Default::default(),
            dbb_resp_valid: Default::default(),
            dbb_resp_data: Default::default(),
            csb_ready: Default::default(),
            csb_rvalid: Default::default(),
            csb_rdata: Default::default(),
            csb_wr_complete: Default::default(),
            irq: Default::default(),
            dbb_req_valid: Default::default(),
            dbb_req_write: Default::default(),
            dbb_req_addr: Default::default(),
            dbb_req_wdata: Default::default(),
            csb: Default::default(),
            sdp: Default::default(),
            pdp: Default::default(),
            cdp: Default::default(),
            cdp_dp: Default::default(),
            sdp_lut: Default::default(),
            conv: Default::default(),
            outstanding: Default::default(),
            owner: Default::default(),
            prefer: Default::default(),
            sdp_asks: Default::default(),
            pdp_asks: Default::default(),
            cdp_asks: Default::default(),
            cdma_asks: Default::default(),
            grant_sdp: Default::default(),
            grant_pdp: Default::default(),
            grant_cdp: Default::default(),
            grant_cdma: Default::default(),
            granted_write: Default::default(),
            sdp_id: Constant::new(0.into()),
            pdp_id: Constant::new(1.into()),
            cdp_id: Constant::new(2.into()),
            cdma_id: Constant::new(3.into()),
            zero64: Constant::new(0.into()),
        }
    }
}

impl Logic for NvSmall {
    #[hdl_gen]
    fn update(&mut self) {
        self.csb.clock.next = self.clock.val();
        self.csb.reset.next = self.reset.val();
        self.sdp.clock.next = self.clock.val();
        self.sdp.reset.next = self.reset.val();
        self.pdp.clock.next = self.clock.val();
        self.pdp.reset.next = self.reset.val();
        self.cdp.clock.next = self.clock.val();
        self.cdp.reset.next = self.reset.val();
        self.cdp_dp.clock.next = self.clock.val();
        self.cdp_dp.reset.next = self.reset.val();
        self.conv.clock.next = self.clock.val();
        self.conv.reset.next = self.reset.val();
        dff_setup!(self, clock, outstanding, owner, prefer);
        self.outstanding.reset.next = self.reset.val();
        self.owner.reset.next = self.reset.val();
        self.prefer.reset.next = self.reset.val();
        self.csb.csb_valid.next = self.csb_valid.val();
        self.csb.csb_addr.next = self.csb_addr.val();
        self.csb.csb_wdat.next = self.csb_wdat.val();
        self.csb.csb_write.next = self.csb_write.val();
        self.csb.csb_nposted.next = self.csb_nposted.val();
        self.csb_ready.next = self.csb.csb_ready.val();
        self.csb_rvalid.next = self.csb.csb_rvalid.val();
        self.csb_rdata.next = self.csb.csb_rdata.val();
        self.csb_wr_complete.next = self.csb.csb_wr_complete.val();
        self.irq.next = self.csb.irq.val();
        // Registers to the engine, its status back.
        self.sdp.layer_ready.next = self.csb.layer_ready.val();
        self.sdp.width.next = self.csb.width.val();
        self.sdp.height.next = self.csb.height.val();
        self.sdp.last_surface.next = self.csb.last_surface.val();
        self.sdp.src_base.next = self.csb.src_base.val();
        self.sdp.src_line.next = self.csb.src_line.val();
        self.sdp.src_surface.next = self.csb.src_surface.val();
        self.sdp.dst_base.next = self.csb.dst_base.val();
        self.sdp.dst_line.next = self.csb.dst_line.val();
        self.sdp.dst_surface.next = self.csb.dst_surface.val();
        self.sdp.brdma_cfg.next = self.csb.brdma_cfg.val();
        self.sdp.bs_base.next = self.csb.bs_base.val();
        self.sdp.bs_line.next = self.csb.bs_line.val();
        self.sdp.bs_surface.next = self.csb.bs_surface.val();
        self.sdp.nrdma_cfg.next = self.csb.nrdma_cfg.val();
        self.sdp.bn_base.next = self.csb.bn_base.val();
        self.sdp.bn_line.next = self.csb.bn_line.val();
        self.sdp.bn_surface.next = self.csb.bn_surface.val();
        self.sdp.cvt_offset.next = self.csb.cvt_offset.val();
        self.sdp.cvt_scale.next = self.csb.cvt_scale.val();
        self.sdp.cvt_shift.next = self.csb.cvt_shift.val();
        self.sdp.bs_cfg.next = self.csb.bs_cfg.val();
        self.sdp.bs_alu_src.next = self.csb.bs_alu_src.val();
        self.sdp.bs_alu_shift.next = self.csb.bs_alu_shift.val();
        self.sdp.bs_alu_operand.next = self.csb.bs_alu_operand.val();
        self.sdp.bs_mul_src.next = self.csb.bs_mul_src.val();
        self.sdp.bs_mul_shift.next = self.csb.bs_mul_shift.val();
        self.sdp.bs_mul_operand.next = self.csb.bs_mul_operand.val();
        self.sdp.bn_cfg.next = self.csb.bn_cfg.val();
        self.sdp.bn_alu_src.next = self.csb.bn_alu_src.val();
        self.sdp.bn_alu_shift.next = self.csb.bn_alu_shift.val();
        self.sdp.bn_alu_operand.next = self.csb.bn_alu_operand.val();
        self.sdp.bn_mul_src.next = self.csb.bn_mul_src.val();
        self.sdp.bn_mul_shift.next = self.csb.bn_mul_shift.val();
        self.sdp.bn_mul_operand.next = self.csb.bn_mul_operand.val();
        self.sdp.ew_cfg.next = self.csb.ew_cfg.val();
        self.sdp.ew_alu_operand.next = self.csb.ew_alu_operand.val();
        self.sdp.ew_mul_operand.next = self.csb.ew_mul_operand.val();
        self.sdp.ew_truncate.next = self.csb.ew_truncate.val();
        // SDP's EW LUT between the EW stage and the converter; its LUT port from the CSB.
        self.sdp_lut.clock.next = self.clock.val();
        self.sdp_lut.reset.next = self.reset.val();
        self.sdp_lut.lanes_in.next = self.sdp.ew_lanes.val();
        self.sdp.lut_lanes.next = self.sdp_lut.lanes_out.val();
        self.sdp_lut.on.next = !self.csb.ew_cfg.val().get_bit(0) & !self.csb.ew_lut_bypass.val();
        self.sdp_lut.cfg.next = self.csb.sdp_lut_cfg.val();
        self.sdp_lut.info.next = self.csb.sdp_lut_info.val();
        self.sdp_lut.le_start.next = self.csb.sdp_lut_le_start.val();
        self.sdp_lut.le_end.next = self.csb.sdp_lut_le_end.val();
        self.sdp_lut.lo_start.next = self.csb.sdp_lut_lo_start.val();
        self.sdp_lut.lo_end.next = self.csb.sdp_lut_lo_end.val();
        self.sdp_lut.le_slope_scale.next = self.csb.sdp_lut_le_slope_scale.val();
        self.sdp_lut.le_slope_shift.next = self.csb.sdp_lut_le_slope_shift.val();
        self.sdp_lut.lo_slope_scale.next = self.csb.sdp_lut_lo_slope_scale.val();
        self.sdp_lut.lo_slope_shift.next = self.csb.sdp_lut_lo_slope_shift.val();
        self.sdp_lut.lut_we.next = self.csb.sdp_lut_we.val();
        self.sdp_lut.lut_table.next = self.csb.sdp_lut_table.val();
        self.sdp_lut.lut_addr.next = self.csb.sdp_lut_addr.val();
        self.sdp_lut.lut_wdata.next = self.csb.sdp_lut_wdata.val();
        self.sdp_lut.lut_rtable.next = self.csb.sdp_lut_table.val();
        self.sdp_lut.lut_raddr.next = self.csb.sdp_lut_addr.val();
        self.csb.sdp_lut_rdata.next = self.sdp_lut.lut_rdata.val();
        self.csb.done.next = self.sdp.done.val();
        self.csb.running.next = self.sdp.running.val();
        // SDP on the fly: its mode and cube, CACC's atoms, the convolution's refusal.
        self.sdp.flying_mode.next = self.csb.sdp_flying_mode.val();
        self.sdp.fly_width.next = self.csb.sdp_width.val();
        self.sdp.fly_height.next = self.csb.sdp_height.val();
        self.sdp.fly_last_surface.next = self.csb.sdp_last_surface.val();
        self.sdp.atom_valid.next = self.conv.out_valid.val();
        self.sdp.atom_lo.next = self.conv.out_data_lo.val();
        self.sdp.atom_hi.next = self.conv.out_data_hi.val();
        self.sdp.refused.next = self.conv.refused.val();
        self.csb.sdp_flying.next = self.sdp.flying.val();
        // The convolution engine: its fields, its status back, SDP's readiness.
        self.conv.layer_ready.next = self.csb.conv_layer_ready.val();
        self.conv.cdma_width.next = self.csb.cdma_width.val();
        self.conv.cdma_height.next = self.csb.cdma_height.val();
        self.conv.cdma_channel.next = self.csb.cdma_channel.val();
        self.conv.cdma_feature_base.next = self.csb.cdma_feature_base.val();
        self.conv.cdma_line_stride.next = self.csb.cdma_line_stride.val();
        self.conv.cdma_surface_stride.next = self.csb.cdma_surface_stride.val();
        self.conv.cdma_weight_base.next = self.csb.cdma_weight_base.val();
        self.conv.cdma_kernels.next = self.csb.cdma_kernels.val();
        self.conv.cdma_data_bank.next = self.csb.cdma_data_bank.val();
        self.conv.cdma_weight_bank.next = self.csb.cdma_weight_bank.val();
        self.conv.cdma_cvt_en.next = self.csb.cdma_cvt_en.val();
        self.conv.cdma_cvt_truncate.next = self.csb.cdma_cvt_truncate.val();
        self.conv.cdma_cvt_offset.next = self.csb.cdma_cvt_offset.val();
        self.conv.cdma_cvt_scale.next = self.csb.cdma_cvt_scale.val();
        self.conv.csc_datain_width_ext.next = self.csb.csc_datain_width_ext.val();
        self.conv.csc_datain_height_ext.next = self.csb.csc_datain_height_ext.val();
        self.conv.csc_datain_channel_ext.next = self.csb.csc_datain_channel_ext.val();
        self.conv.csc_weight_width_ext.next = self.csb.csc_weight_width_ext.val();
        self.conv.csc_weight_height_ext.next = self.csb.csc_weight_height_ext.val();
        self.conv.csc_weight_kernel.next = self.csb.csc_weight_kernel.val();
        self.conv.csc_conv_x_stride_ext.next = self.csb.csc_conv_x_stride_ext.val();
        self.conv.csc_conv_y_stride_ext.next = self.csb.csc_conv_y_stride_ext.val();
        self.conv.csc_x_dilation_ext.next = self.csb.csc_x_dilation_ext.val();
        self.conv.csc_y_dilation_ext.next = self.csb.csc_y_dilation_ext.val();
        self.conv.csc_pad_left.next = self.csb.csc_pad_left.val();
        self.conv.csc_pad_top.next = self.csb.csc_pad_top.val();
        self.conv.csc_dataout_width.next = self.csb.csc_dataout_width.val();
        self.conv.csc_dataout_height.next = self.csb.csc_dataout_height.val();
        self.conv.csc_pad_value.next = self.csb.csc_pad_value.val();
        self.conv.csc_data_bank.next = self.csb.csc_data_bank.val();
        self.conv.clip_truncate.next = self.csb.cacc_clip_truncate.val();
        self.conv.sdp_ready.next = self.sdp.fly_ready.val();
        self.csb.conv_done.next = self.conv.done.val();
        self.csb.conv_running.next = self.conv.running.val();
        self.csb.conv_dat_done.next = self.conv.dat_done.val();
        self.csb.conv_wt_done.next = self.conv.wt_done.val();
        self.pdp.layer_ready.next = self.csb.pdp_layer_ready.val();
        self.pdp.width.next = self.csb.pdp_width.val();
        self.pdp.height.next = self.csb.pdp_height.val();
        self.pdp.last_surface.next = self.csb.pdp_last_surface.val();
        self.pdp.src_base.next = self.csb.pdp_src_base.val();
        self.pdp.src_line.next = self.csb.pdp_src_line.val();
        self.pdp.src_surface.next = self.csb.pdp_src_surface.val();
        self.pdp.out_width.next = self.csb.pdp_out_width.val();
        self.pdp.out_height.next = self.csb.pdp_out_height.val();
        self.pdp.method.next = self.csb.pdp_method.val();
        self.pdp.kernel_width.next = self.csb.pdp_kernel_width.val();
        self.pdp.kernel_height.next = self.csb.pdp_kernel_height.val();
        self.pdp.stride_width.next = self.csb.pdp_stride_width.val();
        self.pdp.stride_height.next = self.csb.pdp_stride_height.val();
        self.pdp.pad_left.next = self.csb.pdp_pad_left.val();
        self.pdp.pad_top.next = self.csb.pdp_pad_top.val();
        self.pdp.recip_width.next = self.csb.pdp_recip_width.val();
        self.pdp.recip_height.next = self.csb.pdp_recip_height.val();
        self.pdp.pad_value1.next = self.csb.pdp_pad_value1.val();
        self.pdp.pad_value2.next = self.csb.pdp_pad_value2.val();
        self.pdp.pad_value3.next = self.csb.pdp_pad_value3.val();
        self.pdp.pad_value4.next = self.csb.pdp_pad_value4.val();
        self.pdp.pad_value5.next = self.csb.pdp_pad_value5.val();
        self.pdp.pad_value6.next = self.csb.pdp_pad_value6.val();
        self.pdp.pad_value7.next = self.csb.pdp_pad_value7.val();
        self.pdp.dst_base.next = self.csb.pdp_dst_base.val();
        self.pdp.dst_line.next = self.csb.pdp_dst_line.val();
        self.pdp.dst_surface.next = self.csb.pdp_dst_surface.val();
        self.csb.pdp_done.next = self.pdp.done.val();
        self.csb.pdp_running.next = self.pdp.running.val();
        self.cdp.layer_ready.next = self.csb.cdp_layer_ready.val();
        self.cdp.width.next = self.csb.cdp_width.val();
        self.cdp.height.next = self.csb.cdp_height.val();
        self.cdp.channel.next = self.csb.cdp_channel.val();
        self.cdp.src_base.next = self.csb.cdp_src_base.val();
        self.cdp.src_line.next = self.csb.cdp_src_line.val();
        self.cdp.src_surface.next = self.csb.cdp_src_surface.val();
        self.cdp.dst_base.next = self.csb.cdp_dst_base.val();
        self.cdp.dst_line.next = self.csb.cdp_dst_line.val();
        self.cdp.dst_surface.next = self.csb.cdp_dst_surface.val();
        self.cdp.datin_offset.next = self.csb.cdp_datin_offset.val();
        self.csb.cdp_done.next = self.cdp.done.val();
        self.csb.cdp_running.next = self.cdp.running.val();
        // CDP's datapath: the engine's windows in, its atoms back; the registers; the LUT
        // port from the CSB (reads and writes at the entry S_LUT_ACCESS_CFG points at).
        self.cdp_dp.in_valid.next = self.cdp.dp_valid.val();
        self.cdp_dp.in_window.next = self.cdp.dp_window.val();
        self.cdp.dp_out_valid.next = self.cdp_dp.out_valid.val();
        self.cdp.dp_out_atom.next = self.cdp_dp.out_atom.val();
        self.cdp_dp.normalz_len.next = self.csb.cdp_normalz_len.val();
        self.cdp_dp.datin_offset.next = self.csb.cdp_datin_offset.val();
        self.cdp_dp.datin_scale.next = self.csb.cdp_datin_scale.val();
        self.cdp_dp.datin_shifter.next = self.csb.cdp_datin_shifter.val();
        self.cdp_dp.datout_offset.next = self.csb.cdp_datout_offset.val();
        self.cdp_dp.datout_scale.next = self.csb.cdp_datout_scale.val();
        self.cdp_dp.datout_shifter.next = self.csb.cdp_datout_shifter.val();
        self.cdp_dp.sqsum_bypass.next = self.csb.cdp_sqsum_bypass.val();
        self.cdp_dp.mul_bypass.next = self.csb.cdp_mul_bypass.val();
        self.cdp_dp.lut_le_function.next = self.csb.cdp_lut_le_function.val();
        self.cdp_dp.lut_uflow_priority.next = self.csb.cdp_lut_uflow_priority.val();
        self.cdp_dp.lut_oflow_priority.next = self.csb.cdp_lut_oflow_priority.val();
        self.cdp_dp.lut_hybrid_priority.next = self.csb.cdp_lut_hybrid_priority.val();
        self.cdp_dp.lut_le_index_offset.next = self.csb.cdp_lut_le_index_offset.val();
        self.cdp_dp.lut_le_index_select.next = self.csb.cdp_lut_le_index_select.val();
        self.cdp_dp.lut_lo_index_select.next = self.csb.cdp_lut_lo_index_select.val();
        self.cdp_dp.lut_le_start.next = self.csb.cdp_lut_le_start.val();
        self.cdp_dp.lut_le_end.next = self.csb.cdp_lut_le_end.val();
        self.cdp_dp.lut_lo_start.next = self.csb.cdp_lut_lo_start.val();
        self.cdp_dp.lut_lo_end.next = self.csb.cdp_lut_lo_end.val();
        self.cdp_dp.lut_le_slope_uflow_scale.next = self.csb.cdp_lut_le_slope_uflow_scale.val();
        self.cdp_dp.lut_le_slope_oflow_scale.next = self.csb.cdp_lut_le_slope_oflow_scale.val();
        self.cdp_dp.lut_lo_slope_uflow_scale.next = self.csb.cdp_lut_lo_slope_uflow_scale.val();
        self.cdp_dp.lut_lo_slope_oflow_scale.next = self.csb.cdp_lut_lo_slope_oflow_scale.val();
        self.cdp_dp.lut_le_slope_uflow_shift.next = self.csb.cdp_lut_le_slope_uflow_shift.val();
        self.cdp_dp.lut_le_slope_oflow_shift.next = self.csb.cdp_lut_le_slope_oflow_shift.val();
        self.cdp_dp.lut_lo_slope_uflow_shift.next = self.csb.cdp_lut_lo_slope_uflow_shift.val();
        self.cdp_dp.lut_lo_slope_oflow_shift.next = self.csb.cdp_lut_lo_slope_oflow_shift.val();
        self.cdp_dp.lut_we.next = self.csb.cdp_lut_we.val();
        self.cdp_dp.lut_table.next = self.csb.cdp_lut_table.val();
        self.cdp_dp.lut_addr.next = self.csb.cdp_lut_addr.val();
        self.cdp_dp.lut_wdata.next = self.csb.cdp_lut_wdata.val();
        self.cdp_dp.lut_rtable.next = self.csb.cdp_lut_table.val();
        self.cdp_dp.lut_raddr.next = self.csb.cdp_lut_addr.val();
        self.csb.cdp_lut_rdata.next = self.cdp_dp.lut_rdata.val();
        self.csb.cdp_perf_valid.next = self.cdp_dp.out_valid.val();
        self.csb.cdp_perf_uflow.next = self.cdp_dp.perf_uflow.val();
        self.csb.cdp_perf_oflow.next = self.cdp_dp.perf_oflow.val();
        self.csb.cdp_perf_hybrid.next = self.cdp_dp.perf_hybrid.val();
        self.csb.cdp_perf_le_hit.next = self.cdp_dp.perf_le_hit.val();
        self.csb.cdp_perf_lo_hit.next = self.cdp_dp.perf_lo_hit.val();
        self.csb.cdp_perf_saturation.next = self.cdp_dp.perf_saturation.val();
        // Memory: the arbiter, round robin from `prefer` (SDP, PDP, CDP, CDMA, SDP, ...): an
        // engine is granted when it asks and no engine from `prefer` up to it does.
        self.sdp_asks.next = self.sdp.dbb_req_valid.val() & (self.sdp.dbb_req_write.val() | !self.outstanding.q.val());
        self.pdp_asks.next = self.pdp.dbb_req_valid.val() & (self.pdp.dbb_req_write.val() | !self.outstanding.q.val());
        self.cdp_asks.next = self.cdp.dbb_req_valid.val() & (self.cdp.dbb_req_write.val() | !self.outstanding.q.val());
        self.cdma_asks.next = self.conv.dbb_req_valid.val() & !self.outstanding.q.val();
        self.grant_sdp.next = self.sdp_asks.val()
            & ((self.prefer.q.val() == self.sdp_id.val())
                | ((self.prefer.q.val() == self.pdp_id.val()) & !self.pdp_asks.val() & !self.cdp_asks.val() & !self.cdma_asks.val())
                | ((self.prefer.q.val() == self.cdp_id.val()) & !self.cdp_asks.val() & !self.cdma_asks.val())
                | ((self.prefer.q.val() == self.cdma_id.val()) & !self.cdma_asks.val()));
        self.grant_pdp.next = self.pdp_asks.val()
            & ((self.prefer.q.val() == self.pdp_id.val())
                | ((self.prefer.q.val() == self.cdp_id.val()) & !self.cdp_asks.val() & !self.cdma_asks.val() & !self.sdp_asks.val())
                | ((self.prefer.q.val() == self.cdma_id.val()) & !self.cdma_asks.val() & !self.sdp_asks.val())
                | ((self.prefer.q.val() == self.sdp_id.val()) & !self.sdp_asks.val()));
        self.grant_cdp.next = self.cdp_asks.val()
            & ((self.prefer.q.val() == self.cdp_id.val())
                | ((self.prefer.q.val() == self.cdma_id.val()) & !self.cdma_asks.val() & !self.sdp_asks.val() & !self.pdp_asks.val())
                | ((self.prefer.q.val() == self.sdp_id.val()) & !self.sdp_asks.val() & !self.pdp_asks.val())
                | ((self.prefer.q.val() == self.pdp_id.val()) & !self.pdp_asks.val()));
        self.grant_cdma.next = self.cdma_asks.val() & !self.grant_sdp.val() & !self.grant_pdp.val() & !self.grant_cdp.val();
        self.sdp.dbb_req_ready.next = self.dbb_req_ready.val() & self.grant_sdp.val();
        self.pdp.dbb_req_ready.next = self.dbb_req_ready.val() & self.grant_pdp.val();
        self.cdp.dbb_req_ready.next = self.dbb_req_ready.val() & self.grant_cdp.val();
        self.conv.dbb_req_ready.next = self.dbb_req_ready.val() & self.grant_cdma.val();
        self.sdp.dbb_resp_valid.next = self.dbb_resp_valid.val() & (self.owner.q.val() == self.sdp_id.val());
        self.pdp.dbb_resp_valid.next = self.dbb_resp_valid.val() & (self.owner.q.val() == self.pdp_id.val());
        self.cdp.dbb_resp_valid.next = self.dbb_resp_valid.val() & (self.owner.q.val() == self.cdp_id.val());
        self.conv.dbb_resp_valid.next = self.dbb_resp_valid.val() & (self.owner.q.val() == self.cdma_id.val());
        self.sdp.dbb_resp_data.next = self.dbb_resp_data.val();
        self.pdp.dbb_resp_data.next = self.dbb_resp_data.val();
        self.cdp.dbb_resp_data.next = self.dbb_resp_data.val();
        self.conv.dbb_resp_data.next = self.dbb_resp_data.val();
        self.dbb_req_valid.next = self.grant_sdp.val() | self.grant_pdp.val() | self.grant_cdp.val() | self.grant_cdma.val();
        self.dbb_req_write.next = self.sdp.dbb_req_write.val();
        self.dbb_req_addr.next = self.sdp.dbb_req_addr.val();
        self.dbb_req_wdata.next = self.sdp.dbb_req_wdata.val();
        if self.grant_pdp.val() {
            self.dbb_req_write.next = self.pdp.dbb_req_write.val();
            self.dbb_req_addr.next = self.pdp.dbb_req_addr.val();
            self.dbb_req_wdata.next = self.pdp.dbb_req_wdata.val();
        }
        if self.grant_cdp.val() {
            self.dbb_req_write.next = self.cdp.dbb_req_write.val();
            self.dbb_req_addr.next = self.cdp.dbb_req_addr.val();
            self.dbb_req_wdata.next = self.cdp.dbb_req_wdata.val();
        }
        if self.grant_cdma.val() {
            self.dbb_req_write.next = false;
            self.dbb_req_addr.next = self.conv.dbb_req_addr.val();
            self.dbb_req_wdata.next = self.zero64.val();
        }
        self.granted_write.next = (self.grant_sdp.val() & self.sdp.dbb_req_write.val())
            | (self.grant_pdp.val() & self.pdp.dbb_req_write.val())
            | (self.grant_cdp.val() & self.cdp.dbb_req_write.val());
        if self.dbb_resp_valid.val() {
            self.outstanding.d.next = false;
        }
        if self.dbb_req_ready.val() & self.dbb_req_valid.val() {
            self.prefer.d.next = self.pdp_id.val();
            if self.grant_pdp.val() {
                self.prefer.d.next = self.cdp_id.val();
            }
            if self.grant_cdp.val() {
                self.prefer.d.next = self.cdma_id.val();
            }
            if self.grant_cdma.val() {
                self.prefer.d.next = self.sdp_id.val();
            }
            if !self.granted_write.val() {
                self.outstanding.d.next = true;
                self.owner.d.next = self.sdp_id.val();
                if self.grant_pdp.val() {
                    self.owner.d.next = self.pdp_id.val();
                }
                if self.grant_cdp.val() {
                    self.owner.d.next = self.cdp_id.val();
                }
                if self.grant_cdma.val() {
                    self.owner.d.next = self.cdma_id.val();
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(NvSmall::default, "nv_small");
}
