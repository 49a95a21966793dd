//! NVDLA's configuration space bus (seeds/001, "Configuration space bus") and the register
//! files behind it: GLB (interrupt mask, set, status and `irq`), and the single and ping-pong
//! register groups of CDMA, CSC, CMAC_A, CMAC_B, CACC, SDP_RDMA, SDP, PDP_RDMA, PDP, CDP_RDMA and CDP, with the fields the
//! engines run on as ports, and CDP's LUT access port and counters.
//! Model: `npu_model::nvdla::csb`.
//!
//! The Verilog is generated from the register map table ([`super::regmap`]): one 32-bit
//! register per stored register and group, the write decode, the read multiplexer and the
//! reset values, so a table change reaches the RTL without retyping.
//!
//! Timing: `csb_ready` is always 1 (a request is taken in the cycle it is valid). A read taken
//! in cycle `t` shows `csb_rvalid` and `csb_rdata` in `t+1` (the registers as they were in
//! `t`); `csb_rdata` keeps its value after. A write takes effect at the end of `t`; if it is
//! non-posted, `csb_wr_complete` is high in `t+1`. Unmapped addresses read 0 (seeds/001:
//! "Illegal reads ... will return zeroes") and writes to them change nothing, but are still
//! completed. Fields that are read-only hardware status (performance counters, NaN counts)
//! read 0: the units built here count nothing.
//!
//! Ping-pong (seeds/001): S_POINTER.PRODUCER picks the group the CSB reads and writes; a write
//! to a group whose D_OP_ENABLE is set is dropped. `done` (from the engine, in the cycle its
//! last write is taken) clears D_OP_ENABLE of both units' consumer groups, advances both
//! CONSUMER pointers and sets GLB's SDP_DONE_STATUS of SDP's consumer group; that set wins
//! over a write clearing the bit in the same cycle. S_STATUS reads, per group, 0 (idle) when
//! not enabled, 1 (running) while the engine runs on it, 2 (pending) when enabled and waiting.
//! GLB: S_INTR_STATUS bits clear when written with 1, S_INTR_SET bits set them, `irq` is
//! `|(status & ~mask)` (seeds/001, "Host interrupt": pending when set and not masked).
use super::csb_unit::CsbUnit;
use super::regmap::{self, Access, Group, Unit};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Csb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub csb_valid: Signal<In, Bit>,
    pub csb_addr: Signal<In, Bits<16>>,
    pub csb_wdat: Signal<In, Bits<32>>,
    pub csb_write: Signal<In, Bit>,
    pub csb_nposted: Signal<In, Bit>,
    /// The engine finished its layer (the cycle its last write is taken).
    pub done: Signal<In, Bit>,
    /// The engine is working on a layer.
    pub running: Signal<In, Bit>,
    pub csb_ready: Signal<Out, Bit>,
    pub csb_rvalid: Signal<Out, Bit>,
    pub csb_rdata: Signal<Out, Bits<32>>,
    pub csb_wr_complete: Signal<Out, Bit>,
    pub irq: Signal<Out, Bit>,
    /// Both units' consumer groups are enabled: the engine may start.
    pub layer_ready: Signal<Out, Bit>,
    // The consumer groups' fields the engine runs on (CONFIG below says which).
    pub width: Signal<Out, Bits<13>>,
    pub height: Signal<Out, Bits<13>>,
    pub last_surface: Signal<Out, Bits<10>>,
    pub src_base: Signal<Out, Bits<64>>,
    pub src_line: Signal<Out, Bits<64>>,
    pub src_surface: Signal<Out, Bits<64>>,
    pub dst_base: Signal<Out, Bits<64>>,
    pub dst_line: Signal<Out, Bits<64>>,
    pub dst_surface: Signal<Out, Bits<64>>,
    pub brdma_cfg: Signal<Out, Bits<5>>,
    pub bs_base: Signal<Out, Bits<64>>,
    pub bs_line: Signal<Out, Bits<64>>,
    pub bs_surface: Signal<Out, Bits<64>>,
    pub nrdma_cfg: Signal<Out, Bits<5>>,
    pub bn_base: Signal<Out, Bits<64>>,
    pub bn_line: Signal<Out, Bits<64>>,
    pub bn_surface: Signal<Out, Bits<64>>,
    pub cvt_offset: Signal<Out, Bits<32>>,
    pub cvt_scale: Signal<Out, Bits<16>>,
    pub cvt_shift: Signal<Out, Bits<6>>,
    pub bs_cfg: Signal<Out, Bits<7>>,
    pub bs_alu_src: Signal<Out, Bit>,
    pub bs_alu_shift: Signal<Out, Bits<6>>,
    pub bs_alu_operand: Signal<Out, Bits<16>>,
    pub bs_mul_src: Signal<Out, Bit>,
    pub bs_mul_shift: Signal<Out, Bits<6>>,
    pub bs_mul_operand: Signal<Out, Bits<16>>,
    pub bn_cfg: Signal<Out, Bits<7>>,
    pub bn_alu_src: Signal<Out, Bit>,
    pub bn_alu_shift: Signal<Out, Bits<6>>,
    pub bn_alu_operand: Signal<Out, Bits<16>>,
    pub bn_mul_src: Signal<Out, Bit>,
    pub bn_mul_shift: Signal<Out, Bits<6>>,
    pub bn_mul_operand: Signal<Out, Bits<16>>,
    pub ew_cfg: Signal<Out, Bits<6>>,
    pub ew_alu_operand: Signal<Out, Bits<32>>,
    pub ew_mul_operand: Signal<Out, Bits<32>>,
    pub ew_truncate: Signal<Out, Bits<10>>,
    /// SDP's EW LUT: D_DP_EW_CFG.EW_LUT_BYPASS and SDP's S_LUT_* registers, whole (fields
    /// as the RDL places them), for `SdpLut`; its LUT access port as CDP's ([`LUT_UNITS`]).
    pub ew_lut_bypass: Signal<Out, Bit>,
    pub sdp_lut_cfg: Signal<Out, Bits<7>>,
    pub sdp_lut_info: Signal<Out, Bits<24>>,
    pub sdp_lut_le_start: Signal<Out, Bits<32>>,
    pub sdp_lut_le_end: Signal<Out, Bits<32>>,
    pub sdp_lut_lo_start: Signal<Out, Bits<32>>,
    pub sdp_lut_lo_end: Signal<Out, Bits<32>>,
    pub sdp_lut_le_slope_scale: Signal<Out, Bits<32>>,
    pub sdp_lut_le_slope_shift: Signal<Out, Bits<10>>,
    pub sdp_lut_lo_slope_scale: Signal<Out, Bits<32>>,
    pub sdp_lut_lo_slope_shift: Signal<Out, Bits<10>>,
    pub sdp_lut_we: Signal<Out, Bit>,
    pub sdp_lut_table: Signal<Out, Bit>,
    pub sdp_lut_addr: Signal<Out, Bits<10>>,
    pub sdp_lut_wdata: Signal<Out, Bits<16>>,
    pub sdp_lut_rdata: Signal<In, Bits<16>>,
    /// PDP's engine: done, running, and both its units' consumer groups enabled.
    pub pdp_done: Signal<In, Bit>,
    pub pdp_running: Signal<In, Bit>,
    pub pdp_layer_ready: Signal<Out, Bit>,
    pub pdp_width: Signal<Out, Bits<13>>,
    pub pdp_height: Signal<Out, Bits<13>>,
    pub pdp_last_surface: Signal<Out, Bits<10>>,
    pub pdp_src_base: Signal<Out, Bits<64>>,
    pub pdp_src_line: Signal<Out, Bits<64>>,
    pub pdp_src_surface: Signal<Out, Bits<64>>,
    pub pdp_out_width: Signal<Out, Bits<13>>,
    pub pdp_out_height: Signal<Out, Bits<13>>,
    pub pdp_method: Signal<Out, Bits<2>>,
    pub pdp_kernel_width: Signal<Out, Bits<4>>,
    pub pdp_kernel_height: Signal<Out, Bits<4>>,
    pub pdp_stride_width: Signal<Out, Bits<4>>,
    pub pdp_stride_height: Signal<Out, Bits<4>>,
    pub pdp_pad_left: Signal<Out, Bits<3>>,
    pub pdp_pad_top: Signal<Out, Bits<3>>,
    pub pdp_recip_width: Signal<Out, Bits<17>>,
    pub pdp_recip_height: Signal<Out, Bits<17>>,
    pub pdp_pad_value1: Signal<Out, Bits<11>>,
    pub pdp_pad_value2: Signal<Out, Bits<11>>,
    pub pdp_pad_value3: Signal<Out, Bits<11>>,
    pub pdp_pad_value4: Signal<Out, Bits<11>>,
    pub pdp_pad_value5: Signal<Out, Bits<11>>,
    pub pdp_pad_value6: Signal<Out, Bits<11>>,
    pub pdp_pad_value7: Signal<Out, Bits<11>>,
    pub pdp_dst_base: Signal<Out, Bits<64>>,
    pub pdp_dst_line: Signal<Out, Bits<64>>,
    pub pdp_dst_surface: Signal<Out, Bits<64>>,
    /// CDP's engine: done, running, and both its units' consumer groups enabled.
    pub cdp_done: Signal<In, Bit>,
    pub cdp_running: Signal<In, Bit>,
    pub cdp_layer_ready: Signal<Out, Bit>,
    /// CDP's LUT access port (S_LUT_ACCESS_CFG, S_LUT_ACCESS_DATA; decisions in
    /// [`CDP_LUT_ENTRIES`]): the table and entry S_LUT_ACCESS_CFG points at (read address,
    /// and write address with `cdp_lut_we`), the data written, and the entry's value back.
    pub cdp_lut_we: Signal<Out, Bit>,
    pub cdp_lut_table: Signal<Out, Bit>,
    pub cdp_lut_addr: Signal<Out, Bits<10>>,
    pub cdp_lut_wdata: Signal<Out, Bits<16>>,
    pub cdp_lut_rdata: Signal<In, Bits<16>>,
    /// The datapath's atom is out, with its lookup and saturation counts ([`CDP_COUNTERS`]).
    pub cdp_perf_valid: Signal<In, Bit>,
    pub cdp_perf_uflow: Signal<In, Bits<4>>,
    pub cdp_perf_oflow: Signal<In, Bits<4>>,
    pub cdp_perf_hybrid: Signal<In, Bits<4>>,
    pub cdp_perf_le_hit: Signal<In, Bits<4>>,
    pub cdp_perf_lo_hit: Signal<In, Bits<4>>,
    pub cdp_perf_saturation: Signal<In, Bits<4>>,
    pub cdp_width: Signal<Out, Bits<13>>,
    pub cdp_height: Signal<Out, Bits<13>>,
    pub cdp_channel: Signal<Out, Bits<13>>,
    pub cdp_src_base: Signal<Out, Bits<64>>,
    pub cdp_src_line: Signal<Out, Bits<64>>,
    pub cdp_src_surface: Signal<Out, Bits<64>>,
    pub cdp_dst_base: Signal<Out, Bits<64>>,
    pub cdp_dst_line: Signal<Out, Bits<64>>,
    pub cdp_dst_surface: Signal<Out, Bits<64>>,
    pub cdp_normalz_len: Signal<Out, Bits<2>>,
    pub cdp_datin_offset: Signal<Out, Bits<16>>,
    pub cdp_datin_scale: Signal<Out, Bits<16>>,
    pub cdp_datin_shifter: Signal<Out, Bits<5>>,
    pub cdp_datout_offset: Signal<Out, Bits<32>>,
    pub cdp_datout_scale: Signal<Out, Bits<16>>,
    pub cdp_datout_shifter: Signal<Out, Bits<6>>,
    pub cdp_sqsum_bypass: Signal<Out, Bit>,
    pub cdp_mul_bypass: Signal<Out, Bit>,
    pub cdp_lut_le_function: Signal<Out, Bit>,
    pub cdp_lut_uflow_priority: Signal<Out, Bit>,
    pub cdp_lut_oflow_priority: Signal<Out, Bit>,
    pub cdp_lut_hybrid_priority: Signal<Out, Bit>,
    pub cdp_lut_le_index_offset: Signal<Out, Bits<8>>,
    pub cdp_lut_le_index_select: Signal<Out, Bits<8>>,
    pub cdp_lut_lo_index_select: Signal<Out, Bits<8>>,
    pub cdp_lut_le_start: Signal<Out, Bits<38>>,
    pub cdp_lut_le_end: Signal<Out, Bits<38>>,
    pub cdp_lut_lo_start: Signal<Out, Bits<38>>,
    pub cdp_lut_lo_end: Signal<Out, Bits<38>>,
    pub cdp_lut_le_slope_uflow_scale: Signal<Out, Bits<16>>,
    pub cdp_lut_le_slope_oflow_scale: Signal<Out, Bits<16>>,
    pub cdp_lut_lo_slope_uflow_scale: Signal<Out, Bits<16>>,
    pub cdp_lut_lo_slope_oflow_scale: Signal<Out, Bits<16>>,
    pub cdp_lut_le_slope_uflow_shift: Signal<Out, Bits<5>>,
    pub cdp_lut_le_slope_oflow_shift: Signal<Out, Bits<5>>,
    pub cdp_lut_lo_slope_uflow_shift: Signal<Out, Bits<5>>,
    pub cdp_lut_lo_slope_oflow_shift: Signal<Out, Bits<5>>,
    /// SDP in flying mode (docs/nvdla.md "Convolution engine"): the consumer group's
    /// FLYING_MODE and SDP's own cube; `sdp_flying` in while SDP runs a flying layer, which
    /// leaves SDP_RDMA's group alone ([`FLYING_SKIPS`]).
    pub sdp_flying_mode: Signal<Out, Bit>,
    pub sdp_width: Signal<Out, Bits<13>>,
    pub sdp_height: Signal<Out, Bits<13>>,
    pub sdp_last_surface: Signal<Out, Bits<10>>,
    pub sdp_flying: Signal<In, Bit>,
    /// The convolution engine (CDMA, CSC, CMAC_A, CMAC_B, CACC): all five consumer groups
    /// enabled, its done and running, CDMA's fetch dones (GLB's CDMA_DAT_DONE and
    /// CDMA_WT_DONE of CDMA's consumer group), and the fields its blocks run on.
    pub conv_layer_ready: Signal<Out, Bit>,
    pub conv_done: Signal<In, Bit>,
    pub conv_running: Signal<In, Bit>,
    pub conv_dat_done: Signal<In, Bit>,
    pub conv_wt_done: Signal<In, Bit>,
    pub cdma_width: Signal<Out, Bits<13>>,
    pub cdma_height: Signal<Out, Bits<13>>,
    pub cdma_channel: Signal<Out, Bits<13>>,
    pub cdma_feature_base: Signal<Out, Bits<64>>,
    pub cdma_line_stride: Signal<Out, Bits<32>>,
    pub cdma_surface_stride: Signal<Out, Bits<32>>,
    pub cdma_weight_base: Signal<Out, Bits<64>>,
    pub cdma_kernels: Signal<Out, Bits<13>>,
    pub cdma_data_bank: Signal<Out, Bits<5>>,
    pub cdma_weight_bank: Signal<Out, Bits<5>>,
    pub cdma_cvt_en: Signal<Out, Bit>,
    pub cdma_cvt_truncate: Signal<Out, Bits<6>>,
    pub cdma_cvt_offset: Signal<Out, Bits<16>>,
    pub cdma_cvt_scale: Signal<Out, Bits<16>>,
    pub csc_datain_width_ext: Signal<Out, Bits<13>>,
    pub csc_datain_height_ext: Signal<Out, Bits<13>>,
    pub csc_datain_channel_ext: Signal<Out, Bits<13>>,
    pub csc_weight_width_ext: Signal<Out, Bits<5>>,
    pub csc_weight_height_ext: Signal<Out, Bits<5>>,
    pub csc_weight_kernel: Signal<Out, Bits<13>>,
    pub csc_conv_x_stride_ext: Signal<Out, Bits<3>>,
    pub csc_conv_y_stride_ext: Signal<Out, Bits<3>>,
    pub csc_x_dilation_ext: Signal<Out, Bits<5>>,
    pub csc_y_dilation_ext: Signal<Out, Bits<5>>,
    pub csc_pad_left: Signal<Out, Bits<5>>,
    pub csc_pad_top: Signal<Out, Bits<5>>,
    pub csc_dataout_width: Signal<Out, Bits<13>>,
    pub csc_dataout_height: Signal<Out, Bits<13>>,
    pub csc_pad_value: Signal<Out, Bits<16>>,
    pub csc_data_bank: Signal<Out, Bits<5>>,
    pub cacc_clip_truncate: Signal<Out, Bits<5>>,
    /// The plain registers of each unit with fields in [`CONFIG`] (CMAC_A's and CMAC_B's,
    /// which have none, stay here): index into [`GROUPED`], config width.
    cdma_registers: CsbUnit<0, { config_width(GROUPED[0]) }>,
    csc_registers: CsbUnit<1, { config_width(GROUPED[1]) }>,
    cacc_registers: CsbUnit<4, { config_width(GROUPED[4]) }>,
    sdp_rdma_registers: CsbUnit<5, { config_width(GROUPED[5]) }>,
    sdp_registers: CsbUnit<6, { config_width(GROUPED[6]) }>,
    pdp_rdma_registers: CsbUnit<7, { config_width(GROUPED[7]) }>,
    pdp_registers: CsbUnit<8, { config_width(GROUPED[8]) }>,
    cdp_rdma_registers: CsbUnit<9, { config_width(GROUPED[9]) }>,
    cdp_registers: CsbUnit<10, { config_width(GROUPED[10]) }>,
}

/// The configuration ports: name, width, and the unit, register and its lowest bit they
/// show (a 64-bit port with a second register is `{HIGH, LOW}`, a 64-bit port of one 32-bit
/// register is zero-extended, a narrower one is bits `lsb + width - 1 ..= lsb`).
/// `last_surface` is the number of the cube's last 8-channel surface: CHANNEL / 8.
/// One configuration port: its name and width, the unit, the register (and the high half's
/// register), and the register bit the port's bit 0 is.
type ConfigPort = (&'static str, u32, &'static str, &'static str, u32, Option<&'static str>);

pub(super) const CONFIG: &[ConfigPort] = &[
    ("width", 13, "SDP_RDMA", "D_DATA_CUBE_WIDTH", 0, None),
    ("height", 13, "SDP_RDMA", "D_DATA_CUBE_HEIGHT", 0, None),
    ("last_surface", 10, "SDP_RDMA", "D_DATA_CUBE_CHANNEL", 3, None),
    ("src_base", 64, "SDP_RDMA", "D_SRC_BASE_ADDR_LOW", 0, Some("D_SRC_BASE_ADDR_HIGH")),
    ("src_line", 64, "SDP_RDMA", "D_SRC_LINE_STRIDE", 0, None),
    ("src_surface", 64, "SDP_RDMA", "D_SRC_SURFACE_STRIDE", 0, None),
    ("dst_base", 64, "SDP", "D_DST_BASE_ADDR_LOW", 0, Some("D_DST_BASE_ADDR_HIGH")),
    ("dst_line", 64, "SDP", "D_DST_LINE_STRIDE", 0, None),
    ("dst_surface", 64, "SDP", "D_DST_SURFACE_STRIDE", 0, None),
    ("brdma_cfg", 5, "SDP_RDMA", "D_BRDMA_CFG", 0, None),
    ("bs_base", 64, "SDP_RDMA", "D_BS_BASE_ADDR_LOW", 0, Some("D_BS_BASE_ADDR_HIGH")),
    ("bs_line", 64, "SDP_RDMA", "D_BS_LINE_STRIDE", 0, None),
    ("bs_surface", 64, "SDP_RDMA", "D_BS_SURFACE_STRIDE", 0, None),
    ("nrdma_cfg", 5, "SDP_RDMA", "D_NRDMA_CFG", 0, None),
    ("bn_base", 64, "SDP_RDMA", "D_BN_BASE_ADDR_LOW", 0, Some("D_BN_BASE_ADDR_HIGH")),
    ("bn_line", 64, "SDP_RDMA", "D_BN_LINE_STRIDE", 0, None),
    ("bn_surface", 64, "SDP_RDMA", "D_BN_SURFACE_STRIDE", 0, None),
    ("cvt_offset", 32, "SDP", "D_CVT_OFFSET", 0, None),
    ("cvt_scale", 16, "SDP", "D_CVT_SCALE", 0, None),
    ("cvt_shift", 6, "SDP", "D_CVT_SHIFT", 0, None),
    ("bs_cfg", 7, "SDP", "D_DP_BS_CFG", 0, None),
    ("bs_alu_src", 1, "SDP", "D_DP_BS_ALU_CFG", 0, None),
    ("bs_alu_shift", 6, "SDP", "D_DP_BS_ALU_CFG", 8, None),
    ("bs_alu_operand", 16, "SDP", "D_DP_BS_ALU_SRC_VALUE", 0, None),
    ("bs_mul_src", 1, "SDP", "D_DP_BS_MUL_CFG", 0, None),
    ("bs_mul_shift", 6, "SDP", "D_DP_BS_MUL_CFG", 8, None),
    ("bs_mul_operand", 16, "SDP", "D_DP_BS_MUL_SRC_VALUE", 0, None),
    ("bn_cfg", 7, "SDP", "D_DP_BN_CFG", 0, None),
    ("bn_alu_src", 1, "SDP", "D_DP_BN_ALU_CFG", 0, None),
    ("bn_alu_shift", 6, "SDP", "D_DP_BN_ALU_CFG", 8, None),
    ("bn_alu_operand", 16, "SDP", "D_DP_BN_ALU_SRC_VALUE", 0, None),
    ("bn_mul_src", 1, "SDP", "D_DP_BN_MUL_CFG", 0, None),
    ("bn_mul_shift", 6, "SDP", "D_DP_BN_MUL_CFG", 8, None),
    ("bn_mul_operand", 16, "SDP", "D_DP_BN_MUL_SRC_VALUE", 0, None),
    ("ew_cfg", 6, "SDP", "D_DP_EW_CFG", 0, None),
    ("ew_alu_operand", 32, "SDP", "D_DP_EW_ALU_SRC_VALUE", 0, None),
    ("ew_mul_operand", 32, "SDP", "D_DP_EW_MUL_SRC_VALUE", 0, None),
    ("ew_truncate", 10, "SDP", "D_DP_EW_TRUNCATE_VALUE", 0, None),
    ("ew_lut_bypass", 1, "SDP", "D_DP_EW_CFG", 6, None),
    ("sdp_lut_cfg", 7, "SDP", "S_LUT_CFG", 0, None),
    ("sdp_lut_info", 24, "SDP", "S_LUT_INFO", 0, None),
    ("sdp_lut_le_start", 32, "SDP", "S_LUT_LE_START", 0, None),
    ("sdp_lut_le_end", 32, "SDP", "S_LUT_LE_END", 0, None),
    ("sdp_lut_lo_start", 32, "SDP", "S_LUT_LO_START", 0, None),
    ("sdp_lut_lo_end", 32, "SDP", "S_LUT_LO_END", 0, None),
    ("sdp_lut_le_slope_scale", 32, "SDP", "S_LUT_LE_SLOPE_SCALE", 0, None),
    ("sdp_lut_le_slope_shift", 10, "SDP", "S_LUT_LE_SLOPE_SHIFT", 0, None),
    ("sdp_lut_lo_slope_scale", 32, "SDP", "S_LUT_LO_SLOPE_SCALE", 0, None),
    ("sdp_lut_lo_slope_shift", 10, "SDP", "S_LUT_LO_SLOPE_SHIFT", 0, None),
    ("pdp_width", 13, "PDP_RDMA", "D_DATA_CUBE_IN_WIDTH", 0, None),
    ("pdp_height", 13, "PDP_RDMA", "D_DATA_CUBE_IN_HEIGHT", 0, None),
    ("pdp_last_surface", 10, "PDP_RDMA", "D_DATA_CUBE_IN_CHANNEL", 3, None),
    ("pdp_src_base", 64, "PDP_RDMA", "D_SRC_BASE_ADDR_LOW", 0, Some("D_SRC_BASE_ADDR_HIGH")),
    ("pdp_src_line", 64, "PDP_RDMA", "D_SRC_LINE_STRIDE", 0, None),
    ("pdp_src_surface", 64, "PDP_RDMA", "D_SRC_SURFACE_STRIDE", 0, None),
    ("pdp_out_width", 13, "PDP", "D_DATA_CUBE_OUT_WIDTH", 0, None),
    ("pdp_out_height", 13, "PDP", "D_DATA_CUBE_OUT_HEIGHT", 0, None),
    ("pdp_method", 2, "PDP", "D_OPERATION_MODE_CFG", 0, None),
    ("pdp_kernel_width", 4, "PDP", "D_POOLING_KERNEL_CFG", 0, None),
    ("pdp_kernel_height", 4, "PDP", "D_POOLING_KERNEL_CFG", 8, None),
    ("pdp_stride_width", 4, "PDP", "D_POOLING_KERNEL_CFG", 16, None),
    ("pdp_stride_height", 4, "PDP", "D_POOLING_KERNEL_CFG", 20, None),
    ("pdp_pad_left", 3, "PDP", "D_POOLING_PADDING_CFG", 0, None),
    ("pdp_pad_top", 3, "PDP", "D_POOLING_PADDING_CFG", 4, None),
    ("pdp_recip_width", 17, "PDP", "D_RECIP_KERNEL_WIDTH", 0, None),
    ("pdp_recip_height", 17, "PDP", "D_RECIP_KERNEL_HEIGHT", 0, None),
    ("pdp_pad_value1", 11, "PDP", "D_POOLING_PADDING_VALUE_1_CFG", 0, None),
    ("pdp_pad_value2", 11, "PDP", "D_POOLING_PADDING_VALUE_2_CFG", 0, None),
    ("pdp_pad_value3", 11, "PDP", "D_POOLING_PADDING_VALUE_3_CFG", 0, None),
    ("pdp_pad_value4", 11, "PDP", "D_POOLING_PADDING_VALUE_4_CFG", 0, None),
    ("pdp_pad_value5", 11, "PDP", "D_POOLING_PADDING_VALUE_5_CFG", 0, None),
    ("pdp_pad_value6", 11, "PDP", "D_POOLING_PADDING_VALUE_6_CFG", 0, None),
    ("pdp_pad_value7", 11, "PDP", "D_POOLING_PADDING_VALUE_7_CFG", 0, None),
    ("pdp_dst_base", 64, "PDP", "D_DST_BASE_ADDR_LOW", 0, Some("D_DST_BASE_ADDR_HIGH")),
    ("pdp_dst_line", 64, "PDP", "D_DST_LINE_STRIDE", 0, None),
    ("pdp_dst_surface", 64, "PDP", "D_DST_SURFACE_STRIDE", 0, None),
    ("cdp_width", 13, "CDP_RDMA", "D_DATA_CUBE_WIDTH", 0, None),
    ("cdp_height", 13, "CDP_RDMA", "D_DATA_CUBE_HEIGHT", 0, None),
    ("cdp_channel", 13, "CDP_RDMA", "D_DATA_CUBE_CHANNEL", 0, None),
    ("cdp_src_base", 64, "CDP_RDMA", "D_SRC_BASE_ADDR_LOW", 0, Some("D_SRC_BASE_ADDR_HIGH")),
    ("cdp_src_line", 64, "CDP_RDMA", "D_SRC_LINE_STRIDE", 0, None),
    ("cdp_src_surface", 64, "CDP_RDMA", "D_SRC_SURFACE_STRIDE", 0, None),
    ("cdp_dst_base", 64, "CDP", "D_DST_BASE_ADDR_LOW", 0, Some("D_DST_BASE_ADDR_HIGH")),
    ("cdp_dst_line", 64, "CDP", "D_DST_LINE_STRIDE", 0, None),
    ("cdp_dst_surface", 64, "CDP", "D_DST_SURFACE_STRIDE", 0, None),
    ("cdp_normalz_len", 2, "CDP", "D_LRN_CFG", 0, None),
    ("cdp_datin_offset", 16, "CDP", "D_DATIN_OFFSET", 0, None),
    ("cdp_datin_scale", 16, "CDP", "D_DATIN_SCALE", 0, None),
    ("cdp_datin_shifter", 5, "CDP", "D_DATIN_SHIFTER", 0, None),
    ("cdp_datout_offset", 32, "CDP", "D_DATOUT_OFFSET", 0, None),
    ("cdp_datout_scale", 16, "CDP", "D_DATOUT_SCALE", 0, None),
    ("cdp_datout_shifter", 6, "CDP", "D_DATOUT_SHIFTER", 0, None),
    ("cdp_sqsum_bypass", 1, "CDP", "D_FUNC_BYPASS", 0, None),
    ("cdp_mul_bypass", 1, "CDP", "D_FUNC_BYPASS", 1, None),
    ("cdp_lut_le_function", 1, "CDP", "S_LUT_CFG", 0, None),
    ("cdp_lut_uflow_priority", 1, "CDP", "S_LUT_CFG", 4, None),
    ("cdp_lut_oflow_priority", 1, "CDP", "S_LUT_CFG", 5, None),
    ("cdp_lut_hybrid_priority", 1, "CDP", "S_LUT_CFG", 6, None),
    ("cdp_lut_le_index_offset", 8, "CDP", "S_LUT_INFO", 0, None),
    ("cdp_lut_le_index_select", 8, "CDP", "S_LUT_INFO", 8, None),
    ("cdp_lut_lo_index_select", 8, "CDP", "S_LUT_INFO", 16, None),
    ("cdp_lut_le_start", 38, "CDP", "S_LUT_LE_START_LOW", 0, Some("S_LUT_LE_START_HIGH")),
    ("cdp_lut_le_end", 38, "CDP", "S_LUT_LE_END_LOW", 0, Some("S_LUT_LE_END_HIGH")),
    ("cdp_lut_lo_start", 38, "CDP", "S_LUT_LO_START_LOW", 0, Some("S_LUT_LO_START_HIGH")),
    ("cdp_lut_lo_end", 38, "CDP", "S_LUT_LO_END_LOW", 0, Some("S_LUT_LO_END_HIGH")),
    ("cdp_lut_le_slope_uflow_scale", 16, "CDP", "S_LUT_LE_SLOPE_SCALE", 0, None),
    ("cdp_lut_le_slope_oflow_scale", 16, "CDP", "S_LUT_LE_SLOPE_SCALE", 16, None),
    ("cdp_lut_lo_slope_uflow_scale", 16, "CDP", "S_LUT_LO_SLOPE_SCALE", 0, None),
    ("cdp_lut_lo_slope_oflow_scale", 16, "CDP", "S_LUT_LO_SLOPE_SCALE", 16, None),
    ("cdp_lut_le_slope_uflow_shift", 5, "CDP", "S_LUT_LE_SLOPE_SHIFT", 0, None),
    ("cdp_lut_le_slope_oflow_shift", 5, "CDP", "S_LUT_LE_SLOPE_SHIFT", 5, None),
    ("cdp_lut_lo_slope_uflow_shift", 5, "CDP", "S_LUT_LO_SLOPE_SHIFT", 0, None),
    ("cdp_lut_lo_slope_oflow_shift", 5, "CDP", "S_LUT_LO_SLOPE_SHIFT", 5, None),
    ("sdp_flying_mode", 1, "SDP", "D_FEATURE_MODE_CFG", 0, None),
    ("sdp_width", 13, "SDP", "D_DATA_CUBE_WIDTH", 0, None),
    ("sdp_height", 13, "SDP", "D_DATA_CUBE_HEIGHT", 0, None),
    ("sdp_last_surface", 10, "SDP", "D_DATA_CUBE_CHANNEL", 3, None),
    // The convolution engine: CDMA's own registers, CSC's (CDMA's kernel width and height
    // too: CDMA has only the bytes per kernel), CACC's truncation.
    ("cdma_width", 13, "CDMA", "D_DATAIN_SIZE_0", 0, None),
    ("cdma_height", 13, "CDMA", "D_DATAIN_SIZE_0", 16, None),
    ("cdma_channel", 13, "CDMA", "D_DATAIN_SIZE_1", 0, None),
    ("cdma_feature_base", 64, "CDMA", "D_DAIN_ADDR_LOW_0", 0, Some("D_DAIN_ADDR_HIGH_0")),
    ("cdma_line_stride", 32, "CDMA", "D_LINE_STRIDE", 0, None),
    ("cdma_surface_stride", 32, "CDMA", "D_SURF_STRIDE", 0, None),
    ("cdma_weight_base", 64, "CDMA", "D_WEIGHT_ADDR_LOW", 0, Some("D_WEIGHT_ADDR_HIGH")),
    ("cdma_kernels", 13, "CDMA", "D_WEIGHT_SIZE_1", 0, None),
    ("cdma_data_bank", 5, "CDMA", "D_BANK", 0, None),
    ("cdma_weight_bank", 5, "CDMA", "D_BANK", 16, None),
    ("cdma_cvt_en", 1, "CDMA", "D_CVT_CFG", 0, None),
    ("cdma_cvt_truncate", 6, "CDMA", "D_CVT_CFG", 4, None),
    ("cdma_cvt_offset", 16, "CDMA", "D_CVT_OFFSET", 0, None),
    ("cdma_cvt_scale", 16, "CDMA", "D_CVT_SCALE", 0, None),
    ("csc_datain_width_ext", 13, "CSC", "D_DATAIN_SIZE_EXT_0", 0, None),
    ("csc_datain_height_ext", 13, "CSC", "D_DATAIN_SIZE_EXT_0", 16, None),
    ("csc_datain_channel_ext", 13, "CSC", "D_DATAIN_SIZE_EXT_1", 0, None),
    ("csc_weight_width_ext", 5, "CSC", "D_WEIGHT_SIZE_EXT_0", 0, None),
    ("csc_weight_height_ext", 5, "CSC", "D_WEIGHT_SIZE_EXT_0", 16, None),
    ("csc_weight_kernel", 13, "CSC", "D_WEIGHT_SIZE_EXT_1", 16, None),
    ("csc_conv_x_stride_ext", 3, "CSC", "D_CONV_STRIDE_EXT", 0, None),
    ("csc_conv_y_stride_ext", 3, "CSC", "D_CONV_STRIDE_EXT", 16, None),
    ("csc_x_dilation_ext", 5, "CSC", "D_DILATION_EXT", 0, None),
    ("csc_y_dilation_ext", 5, "CSC", "D_DILATION_EXT", 16, None),
    ("csc_pad_left", 5, "CSC", "D_ZERO_PADDING", 0, None),
    ("csc_pad_top", 5, "CSC", "D_ZERO_PADDING", 16, None),
    ("csc_dataout_width", 13, "CSC", "D_DATAOUT_SIZE_0", 0, None),
    ("csc_dataout_height", 13, "CSC", "D_DATAOUT_SIZE_0", 16, None),
    ("csc_pad_value", 16, "CSC", "D_ZERO_PADDING_VALUE", 0, None),
    ("csc_data_bank", 5, "CSC", "D_BANK", 0, None),
    ("cacc_clip_truncate", 5, "CACC", "D_CLIP_CFG", 0, None),
];

/// The bits a [`CONFIG`] entry takes in its unit's [`CsbUnit`]'s `fields`: a 64-bit port of
/// one register (zero-extended here) its 32, any other its width.
const fn raw_width(entry: &ConfigPort) -> u32 {
    match (entry.5, entry.1) {
        (None, 64) => 32,
        (_, width) => width,
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The width of `unit`'s [`CsbUnit`]'s `fields`: its [`CONFIG`] entries' bits (0: the unit
/// has no sub-block).
pub const fn config_width(unit: &str) -> usize {
    let (mut i, mut width) = (0, 0);
    while i < CONFIG.len() {
        if same(CONFIG[i].2, unit) {
            width += raw_width(&CONFIG[i]) as usize;
        }
        i += 1;
    }
    width
}

/// `unit`'s [`CONFIG`] entries in order, each with its lowest bit and width in the
/// sub-block's `fields`.
pub(super) fn config_entries(unit: &str) -> impl Iterator<Item = (&'static ConfigPort, u32, u32)> + '_ {
    CONFIG.iter().filter(move |e| e.2 == unit).scan(0, |at, e| {
        let place = (e, *at, raw_width(e));
        *at += raw_width(e);
        Some(place)
    })
}

/// The unit's registers live in a [`CsbUnit`] of their own.
fn has_sub_block(unit: &str) -> bool {
    config_width(unit) > 0
}

/// The units with ping-pong groups (GLB has none).
pub const GROUPED: [&str; 11] = ["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC", "SDP_RDMA", "SDP", "PDP_RDMA", "PDP", "CDP_RDMA", "CDP"];

/// An engine and the register groups it runs on: its ports (layer ready out, done and
/// running in), its units (read DMA first; the last one's consumer group names GLB's done status
/// bit), and GLB's done status field of each group.
pub struct Engine {
    layer_ready: &'static str,
    done: &'static str,
    running: &'static str,
    pub units: &'static [&'static str],
    pub done_fields: [&'static str; 2],
}

/// The engines: a layer starts when both units' consumer groups are enabled (off-flying
/// mode needs the read DMA and the unit), and its done ends both groups and sets the unit's
/// GLB done status (seeds/001 "Ping-pong Synchronization Mechanism", "Host interrupt").
///
/// Decision (docs/nvdla.md "Register groups"): the convolution core's five units are one
/// engine. seeds/001 programs a convolution layer by enabling all five (CDMA, CSC, CMAC_A,
/// CMAC_B, CACC; the dc traces write each D_OP_ENABLE), and none of them can run alone: CSC
/// waits on CDMA's CBUF, CMAC on CSC, CACC on CMAC. So the layer starts when all five
/// consumer groups are enabled and ends all five at once, when SDP has taken CACC's last
/// atom; its done sets CACC_DONE_STATUS (CDMA_DAT_DONE and CDMA_WT_DONE come from CDMA's
/// `conv_dat_done` and `conv_wt_done`).
pub const ENGINES: [Engine; 4] = [
    Engine { layer_ready: "layer_ready", done: "done", running: "running", units: &["SDP_RDMA", "SDP"], done_fields: ["SDP_DONE_STATUS0", "SDP_DONE_STATUS1"] },
    Engine { layer_ready: "pdp_layer_ready", done: "pdp_done", running: "pdp_running", units: &["PDP_RDMA", "PDP"], done_fields: ["PDP_DONE_STATUS0", "PDP_DONE_STATUS1"] },
    Engine { layer_ready: "cdp_layer_ready", done: "cdp_done", running: "cdp_running", units: &["CDP_RDMA", "CDP"], done_fields: ["CDP_DONE_STATUS0", "CDP_DONE_STATUS1"] },
    Engine {
        layer_ready: "conv_layer_ready",
        done: "conv_done",
        running: "conv_running",
        units: &["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"],
        done_fields: ["CACC_DONE_STATUS0", "CACC_DONE_STATUS1"],
    },
];

/// The unit a flying SDP layer leaves alone (docs/nvdla.md "Convolution engine"): with SDP's
/// consumer group in flying mode (`sdp_flying_mode`) the SDP engine's layer needs SDP's group
/// alone, and while it runs (`sdp_flying`) SDP_RDMA's group neither reads running nor ends.
pub const FLYING_SKIPS: &str = "SDP_RDMA";

/// GLB's status fields CDMA's fetches raise, in CDMA's consumer group, with their ports.
const CDMA_DONES: [(&str, [&str; 2]); 2] =
    [("conv_dat_done", ["CDMA_DAT_DONE_STATUS0", "CDMA_DAT_DONE_STATUS1"]), ("conv_wt_done", ["CDMA_WT_DONE_STATUS0", "CDMA_WT_DONE_STATUS1"])];

impl Engine {
    /// The unit whose consumer group names the GLB done status bit.
    fn last_unit(&self) -> &'static str {
        self.units[self.units.len() - 1]
    }
}

/// The units with a LUT access port (S_LUT_ACCESS_CFG, S_LUT_ACCESS_DATA): CDP and SDP, whose
/// ports are named `cdp_lut_*` and `sdp_lut_*`. Both work alike (NVIDIA's C model's register
/// models `cmod/cdp/gen/cdp_reg_model.cpp` and `cmod/sdp/gen/sdp_reg_model.cpp` are the same
/// code), on tables of the same sizes ([`CDP_LUT_ENTRIES`]).
pub const LUT_UNITS: [&str; 2] = ["CDP", "SDP"];

/// Entries of the two LUTs, LE (table 0) and LO (table 1) (RDL NVDLA_CDP and NVDLA_SDP
/// S_LUT_ACCESS_CFG), CDP's and SDP's alike.
///
/// LUT access (decisions from NVIDIA's C model, `cmod/cdp/gen/cdp_reg_model.cpp`, where the
/// RDL only marks LUT_ADDR and LUT_DATA `rwto` (SDP's LUT_ADDR `rwt`)): S_LUT_ACCESS_CFG holds the table, the entry
/// and the access type. With ACCESS_TYPE 1 (write) a write of S_LUT_ACCESS_DATA writes the
/// entry; with 0 (read) a read of S_LUT_ACCESS_DATA returns it. Each such access steps
/// LUT_ADDR by one, up to the table's last entry, where it stays. A data read while the type
/// is write reads 0; a data write while it is read changes nothing and does not step. An
/// address past the table's end is not stepped: the datapath writes nothing there and reads 0.
/// S_LUT_ACCESS_CFG reads back the table, the stepped address and the access type (the C
/// model returns the table id in the type's bit, taken as a slip).
pub const CDP_LUT_ENTRIES: [u32; 2] = [65, 257];

/// CDP's counters and the count ports feeding them. Decision (NVIDIA's C model,
/// `NV_NVDLA_cdp.cpp` `reset_stats_regs`/`update_stats_regs`): a group's counters clear when
/// a layer starts on it and count every output lane's lookup (underflow, overflow, hybrid, LE
/// hit, LO hit) and saturation while it runs, whether or not D_PERF_ENABLE.LUT_EN is set (the
/// C model's check of it is commented out); a read shows the producer group's.
pub const CDP_COUNTERS: [(&str, &str); 6] = [
    ("D_PERF_LUT_UFLOW", "cdp_perf_uflow"),
    ("D_PERF_LUT_OFLOW", "cdp_perf_oflow"),
    ("D_PERF_LUT_HYBRID", "cdp_perf_hybrid"),
    ("D_PERF_LUT_LE_HIT", "cdp_perf_le_hit"),
    ("D_PERF_LUT_LO_HIT", "cdp_perf_lo_hit"),
    ("D_OUT_SATURATION", "cdp_perf_saturation"),
];

/// CDP's counters' Verilog: declarations, reset, and the clear at a layer's start (the
/// engine idle with its layer ready) or the count of an atom out, in the consumer group.
fn cdp_counters() -> (String, String, String) {
    let (mut decl, mut reset, mut count) = (String::new(), String::new(), String::new());
    for (register, port) in CDP_COUNTERS {
        let id = ident("CDP", register);
        decl += &format!("reg [31:0] {id}_g0, {id}_g1;\n");
        reset += &format!("        {id}_g0 <= 32'h0;\n        {id}_g1 <= 32'h0;\n");
        for g in 0..2 {
            count += &format!(
                "        if (cdp_consumer == 1'b{g}) begin\n            if (cdp_layer_ready && !cdp_running) {id}_g{g} <= 32'h0;\n            \
                 else if (cdp_perf_valid) {id}_g{g} <= {id}_g{g} + {{28'h0, {port}}};\n        end\n"
            );
        }
    }
    (decl, reset, count)
}

/// The LUT access fields of `unit`'s S_LUT_ACCESS_CFG (a [`LUT_UNITS`] unit): entry, table,
/// type.
pub fn lut_fields(unit: &str) -> [&'static regmap::Field; 3] {
    ["LUT_ADDR", "LUT_TABLE_ID", "LUT_ACCESS_TYPE"].map(|f| regmap::field(unit, "S_LUT_ACCESS_CFG", f))
}

/// A LUT port's Verilog: the table and entry S_LUT_ACCESS_CFG points at, the write strobe
/// of a data write with the type write.
fn lut_port(unit: &str) -> String {
    let [entry, table, kind] = lut_fields(unit);
    let data = regmap::register(unit, "S_LUT_ACCESS_DATA");
    let cfg = ident(unit, "S_LUT_ACCESS_CFG");
    let p = unit.to_lowercase();
    format!(
        "always @(*) {p}_lut_table = {cfg}[{}];\n\
         always @(*) {p}_lut_addr = {cfg}[{}:{}];\n\
         always @(*) {p}_lut_we = wr && csb_addr == 16'h{:04x} && {cfg}[{}];\n\
         always @(*) {p}_lut_wdata = csb_wdat[15:0];\n",
        table.lsb,
        entry.lsb + entry.width - 1,
        entry.lsb,
        data.0.csb_address(data.1),
        kind.lsb,
    )
}

/// The Verilog stepping LUT_ADDR after a data access of the type S_LUT_ACCESS_CFG holds.
fn lut_step(unit: &str) -> String {
    let [entry, table, kind] = lut_fields(unit);
    let data = regmap::register(unit, "S_LUT_ACCESS_DATA");
    let cfg = ident(unit, "S_LUT_ACCESS_CFG");
    let msb = entry.lsb + entry.width - 1;
    format!(
        "        if (csb_valid && csb_addr == 16'h{:04x} && csb_write == {cfg}[{}] && {cfg}[{msb}:{}] < ({cfg}[{}] ? 10'd{} : 10'd{}))\n            \
         {cfg}[{msb}:{lsb}] <= {cfg}[{msb}:{lsb}] + 10'd1;\n",
        data.0.csb_address(data.1),
        kind.lsb,
        entry.lsb,
        table.lsb,
        CDP_LUT_ENTRIES[1] - 1,
        CDP_LUT_ENTRIES[0] - 1,
        lsb = entry.lsb,
    )
}

/// A [`LUT_UNITS`] unit's S_LUT_ACCESS_DATA is no register: its reads and writes reach the
/// LUTs.
pub fn is_lut_data(unit: &str, register: &str) -> bool {
    LUT_UNITS.contains(&unit) && register == "S_LUT_ACCESS_DATA"
}

/// What a register without stored bits reads: its reset value, except CDMA's
/// S_CBUF_FLUSH_STATUS, whose FLUSH_DONE reads 1. Decision (docs/nvdla.md "CSB"): NVDLA
/// clears CBUF after reset and sets FLUSH_DONE when done, and the dc traces poll for it before
/// their first layer; the CBUF built here needs no clearing (CSC reads only entries CDMA
/// wrote for the layer), so the flush is done from reset on.
pub fn read_only_value(unit: &str, register: &regmap::Register) -> u32 {
    if (unit, register.name) == ("CDMA", "S_CBUF_FLUSH_STATUS") {
        register.reset() | regmap::field("CDMA", "S_CBUF_FLUSH_STATUS", "FLUSH_DONE").mask()
    } else {
        register.reset()
    }
}

/// The engine whose groups `unit` holds.
pub fn engine_of(unit: &str) -> &'static Engine {
    ENGINES.iter().find(|e| e.units.contains(&unit)).expect("a grouped unit belongs to an engine")
}

pub(super) fn ident(unit: &str, register: &str) -> String {
    format!("{}_{}", unit.to_lowercase(), register.to_lowercase())
}

pub(super) fn hex32(v: u32) -> String {
    format!("32'h{v:08x}")
}

/// Registers with bits a CSB write stores (the rest read constants or status).
fn stored(unit: &Unit) -> impl Iterator<Item = &'static regmap::Register> + '_ {
    unit.registers.iter().filter(move |r| unit.name != "GLB" && r.name != "S_POINTER" && !is_lut_data(unit.name, r.name) && r.mask_where(Access::stores) != 0)
}

/// A stored register nothing but a CSB write changes: not D_OP_ENABLE (the engine's done
/// clears it), not a LUT unit's S_LUT_ACCESS_CFG (a LUT access steps it).
fn is_plain(unit: &str, register: &regmap::Register) -> bool {
    register.name != "D_OP_ENABLE" && !(LUT_UNITS.contains(&unit) && register.name == "S_LUT_ACCESS_CFG")
}

/// The unit's plain stored registers: a [`CsbUnit`]'s.
pub(super) fn plain_registers(unit: &Unit) -> impl Iterator<Item = &'static regmap::Register> + '_ {
    stored(unit).filter(move |r| is_plain(unit.name, r))
}

/// The register is in the unit's [`CsbUnit`], not in the CSB's own Verilog.
fn in_sub_block(unit: &str, register: &regmap::Register) -> bool {
    has_sub_block(unit) && stored(regmap::unit(unit).expect("unit")).any(|r| r.name == register.name) && is_plain(unit, register)
}

/// A stored register's Verilog, the CSB's or a [`CsbUnit`]'s: its declaration, its reset and
/// its write (a CSB write keeps the bits it does not store; a ping-pong register's write goes
/// to the `producer` group unless that group's OP_EN, `enabled[group]`, is set).
pub(super) fn stored_register(unit: &Unit, r: &regmap::Register, producer: &str, enabled: [&str; 2]) -> (String, String, String) {
    let id = ident(unit.name, r.name);
    let keep = hex32(!r.mask_where(Access::stores));
    let take = hex32(r.mask_where(Access::stores));
    let hit = format!("wr && csb_addr == 16'h{:04x}", unit.csb_address(r));
    let store = |reg: &str| format!("{reg} <= {reg} & {keep} | csb_wdat & {take};\n");
    match r.group {
        Group::Single => (
            format!("reg [31:0] {id};\n"),
            format!("        {id} <= {};\n", hex32(r.reset())),
            format!("        if ({hit}) {}", store(&id)),
        ),
        Group::PingPong => (
            format!("reg [31:0] {id}_g0, {id}_g1;\n"),
            format!("        {id}_g0 <= {r};\n        {id}_g1 <= {r};\n", r = hex32(r.reset())),
            format!(
                "        if ({hit} && !{producer} && !{}) {}        if ({hit} && {producer} && !{}) {}",
                enabled[0],
                store(&format!("{id}_g0")),
                enabled[1],
                store(&format!("{id}_g1")),
            ),
        ),
    }
}

/// The register file's Verilog, from the table.
fn verilog() -> String {
    let mut decl = String::new();
    let mut reset = String::new();
    let mut write = String::new();
    let mut read = String::new();
    let glb = regmap::unit("GLB").expect("GLB");
    let addr = |u: &Unit, name: &str| u.csb_address(u.register(name).expect("register"));
    let glb_mask = glb.register("S_INTR_MASK").expect("S_INTR_MASK");
    let glb_status = glb.register("S_INTR_STATUS").expect("S_INTR_STATUS");
    let glb_set = glb.register("S_INTR_SET").expect("S_INTR_SET");
    let mut done_status = String::new();
    for e in &ENGINES {
        let bit = |g: usize| hex32(regmap::field("GLB", "S_INTR_STATUS", e.done_fields[g]).mask());
        done_status += &format!("\n            | ({} ? ({}_consumer ? {} : {}) : 32'h0)", e.done, e.last_unit().to_lowercase(), bit(1), bit(0));
    }
    for (port, fields) in CDMA_DONES {
        let bit = |g: usize| hex32(regmap::field("GLB", "S_INTR_STATUS", fields[g]).mask());
        done_status += &format!("\n            | ({port} ? (cdma_consumer ? {} : {}) : 32'h0)", bit(1), bit(0));
    }
    decl += "reg [31:0] glb_mask, glb_status;\n";
    reset += &format!("        glb_mask <= {};\n        glb_status <= {};\n", hex32(glb_mask.reset()), hex32(glb_status.reset()));
    write += &format!(
        "        if (wr && csb_addr == 16'h{:04x}) glb_mask <= csb_wdat & {};\n        \
         glb_status <= (glb_status & ~((wr && csb_addr == 16'h{:04x}) ? csb_wdat & {} : 32'h0))\n            \
         | ((wr && csb_addr == 16'h{:04x}) ? csb_wdat & {} : 32'h0){done_status};\n",
        addr(glb, "S_INTR_MASK"),
        hex32(glb_mask.mask_where(Access::stores)),
        addr(glb, "S_INTR_STATUS"),
        hex32(glb_status.mask()),
        addr(glb, "S_INTR_SET"),
        hex32(glb_set.mask()),
    );
    for r in glb.registers {
        let value = match r.name {
            "S_INTR_MASK" => "glb_mask".to_string(),
            "S_INTR_STATUS" => "glb_status".to_string(),
            _ => hex32(r.reset()),
        };
        read += &format!("            16'h{:04x}: read_value = {value} & {};\n", glb.csb_address(r), hex32(r.mask_where(Access::readable)));
    }
    for name in GROUPED {
        let u = regmap::unit(name).expect("unit");
        let p = name.to_lowercase();
        let en = ident(name, "D_OP_ENABLE");
        let Engine { done, running, .. } = engine_of(name);
        let (done, running) = if name == FLYING_SKIPS {
            (format!("({done} && !sdp_flying)"), format!("({running} && !sdp_flying)"))
        } else {
            (done.to_string(), running.to_string())
        };
        decl += &format!("reg {p}_producer, {p}_consumer;\n");
        reset += &format!("        {p}_producer <= 1'b0;\n        {p}_consumer <= 1'b0;\n");
        write += &format!("        if (wr && csb_addr == 16'h{:04x}) {p}_producer <= csb_wdat[0];\n", addr(u, "S_POINTER"));
        write += &format!("        if ({done}) begin\n            {p}_consumer <= ~{p}_consumer;\n            if ({p}_consumer) {en}_g1[0] <= 1'b0; else {en}_g0[0] <= 1'b0;\n        end\n");
        for r in stored(u).filter(|r| !in_sub_block(name, r)) {
            let (d, rs, w) = stored_register(u, r, &format!("{p}_producer"), [&format!("{en}_g0[0]"), &format!("{en}_g1[0]")]);
            decl += &d;
            reset += &rs;
            write += &w;
        }
        for r in u.registers.iter().filter(|r| !in_sub_block(name, r)) {
            let id = ident(name, r.name);
            let value = match (r.name, r.group) {
                ("S_STATUS", _) => format!("{{14'h0, {p}_status1, 14'h0, {p}_status0}}"),
                ("S_POINTER", _) => format!("{{15'h0, {p}_consumer, 15'h0, {p}_producer}}"),
                _ if name == "CDP" && CDP_COUNTERS.iter().any(|&(c, _)| c == r.name) => format!("({p}_producer ? {id}_g1 : {id}_g0)"),
                _ if is_lut_data(name, r.name) => {
                    format!("({}[{}] ? 32'h0 : {{16'h0, {p}_lut_rdata}})", ident(name, "S_LUT_ACCESS_CFG"), lut_fields(name)[2].lsb)
                }
                _ if r.mask_where(Access::stores) == 0 => hex32(read_only_value(name, r)),
                (_, Group::Single) => id,
                (_, Group::PingPong) => format!("({p}_producer ? {id}_g1 : {id}_g0)"),
            };
            read += &format!("            16'h{:04x}: read_value = {value} & {};\n", u.csb_address(r), hex32(r.mask_where(Access::readable)));
        }
        // S_STATUS per group: idle, running, pending.
        for g in 0..2 {
            decl += &format!(
                "wire [1:0] {p}_status{g} = !{en}_g{g}[0] ? 2'd0 : ({running} && {p}_consumer == 1'b{g}) ? 2'd1 : 2'd2;\n"
            );
        }
    }
    for unit in LUT_UNITS {
        write += &lut_step(unit);
    }
    let (counter_decl, counter_reset, counter_count) = cdp_counters();
    decl += &counter_decl;
    reset += &counter_reset;
    write += &counter_count;
    let mut config = String::new();
    // Bits `msb..=lsb` of a register the engine runs on: a single register's, or the
    // consumer group's of a ping-pong one.
    let bits = |unit: &str, register: &str, msb: u32, lsb: u32| {
        let id = ident(unit, register);
        match regmap::register(unit, register).1.group {
            Group::Single => format!("{id}[{msb}:{lsb}]"),
            Group::PingPong => format!("({p}_consumer ? {id}_g1[{msb}:{lsb}] : {id}_g0[{msb}:{lsb}])", p = unit.to_lowercase()),
        }
    };
    // The sub-blocks: the CSB's write and pointers in, the engine's fields out of `fields`.
    let mut sub_reads = Vec::new();
    for name in GROUPED.into_iter().filter(|&u| has_sub_block(u)) {
        let (p, b) = (name.to_lowercase(), format!("{}_registers", name.to_lowercase()));
        config += &format!(
            "always @(*) {b}$clock = clock;\nalways @(*) {b}$reset = reset;\nalways @(*) {b}$wr = wr;\n\
             always @(*) {b}$csb_addr = csb_addr;\nalways @(*) {b}$csb_wdat = csb_wdat;\n\
             always @(*) {b}$producer = {p}_producer;\nalways @(*) {b}$consumer = {p}_consumer;\n\
             always @(*) {b}$enabled = {{{en}_g1[0], {en}_g0[0]}};\n",
            en = ident(name, "D_OP_ENABLE"),
        );
        for (&(port, width, _, _, _, high), at, raw) in config_entries(name) {
            let slice = format!("{b}$fields[{}:{at}]", at + raw - 1);
            let value = if high.is_none() && width == 64 { format!("{{32'h0, {slice}}}") } else { slice };
            config += &format!("always @(*) {port} = {value};\n");
        }
        sub_reads.push(format!("{b}$read_value"));
    }
    let enabled = |u: &str| bits(u, "D_OP_ENABLE", 0, 0);
    for e in &ENGINES {
        let all: Vec<String> = e.units.iter().map(|&u| if u == FLYING_SKIPS { format!("(sdp_flying_mode | {})", enabled(u)) } else { enabled(u) }).collect();
        config += &format!("always @(*) {} = {};\n", e.layer_ready, all.join(" & "));
    }
    for unit in LUT_UNITS {
        config += &lut_port(unit);
    }
    format!(
        "{decl}\
         reg [31:0] read_value;\n\
         wire wr = csb_valid & csb_write;\n\
         wire rd = csb_valid & ~csb_write;\n\
         always @(*) begin\n    case (csb_addr)\n{read}            default: read_value = {};\n    endcase\nend\n\
         always @(*) csb_ready = 1'b1;\n\
         always @(*) irq = |(glb_status & ~glb_mask);\n\
         {config}\
         always @(posedge clock) begin\n    if (reset) begin\n{reset}        csb_rvalid <= 1'b0;\n        csb_rdata <= 32'h0;\n        csb_wr_complete <= 1'b0;\n    end else begin\n\
         {write}        csb_rvalid <= rd;\n        if (rd) csb_rdata <= read_value;\n        csb_wr_complete <= wr & csb_nposted;\n    end\nend",
        // An address of a sub-block's register: its value (the others give 0); any other
        // address no arm names reads 0.
        sub_reads.join(" | "),
    )
}

impl Logic for Csb {
    /// Not simulated by rust-hdl (the project verifies with Verilator, README "How the
    /// verification works"): the behaviour is the generated Verilog's, and its model's.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.csb_ready.connect();
        self.csb_rvalid.connect();
        self.csb_rdata.connect();
        self.csb_wr_complete.connect();
        self.irq.connect();
        self.layer_ready.connect();
        self.width.connect();
        self.height.connect();
        self.last_surface.connect();
        self.src_base.connect();
        self.src_line.connect();
        self.src_surface.connect();
        self.dst_base.connect();
        self.dst_line.connect();
        self.dst_surface.connect();
        self.brdma_cfg.connect();
        self.bs_base.connect();
        self.bs_line.connect();
        self.bs_surface.connect();
        self.nrdma_cfg.connect();
        self.bn_base.connect();
        self.bn_line.connect();
        self.bn_surface.connect();
        self.cvt_offset.connect();
        self.cvt_scale.connect();
        self.cvt_shift.connect();
        self.bs_cfg.connect();
        self.bs_alu_src.connect();
        self.bs_alu_shift.connect();
        self.bs_alu_operand.connect();
        self.bs_mul_src.connect();
        self.bs_mul_shift.connect();
        self.bs_mul_operand.connect();
        self.bn_cfg.connect();
        self.bn_alu_src.connect();
        self.bn_alu_shift.connect();
        self.bn_alu_operand.connect();
        self.bn_mul_src.connect();
        self.bn_mul_shift.connect();
        self.bn_mul_operand.connect();
        self.ew_cfg.connect();
        self.ew_alu_operand.connect();
        self.ew_mul_operand.connect();
        self.ew_truncate.connect();
        self.ew_lut_bypass.connect();
        self.sdp_lut_cfg.connect();
        self.sdp_lut_info.connect();
        self.sdp_lut_le_start.connect();
        self.sdp_lut_le_end.connect();
        self.sdp_lut_lo_start.connect();
        self.sdp_lut_lo_end.connect();
        self.sdp_lut_le_slope_scale.connect();
        self.sdp_lut_le_slope_shift.connect();
        self.sdp_lut_lo_slope_scale.connect();
        self.sdp_lut_lo_slope_shift.connect();
        self.sdp_lut_we.connect();
        self.sdp_lut_table.connect();
        self.sdp_lut_addr.connect();
        self.sdp_lut_wdata.connect();
        self.pdp_layer_ready.connect();
        self.pdp_width.connect();
        self.pdp_height.connect();
        self.pdp_last_surface.connect();
        self.pdp_src_base.connect();
        self.pdp_src_line.connect();
        self.pdp_src_surface.connect();
        self.pdp_out_width.connect();
        self.pdp_out_height.connect();
        self.pdp_method.connect();
        self.pdp_kernel_width.connect();
        self.pdp_kernel_height.connect();
        self.pdp_stride_width.connect();
        self.pdp_stride_height.connect();
        self.pdp_pad_left.connect();
        self.pdp_pad_top.connect();
        self.pdp_recip_width.connect();
        self.pdp_recip_height.connect();
        self.pdp_pad_value1.connect();
        self.pdp_pad_value2.connect();
        self.pdp_pad_value3.connect();
        self.pdp_pad_value4.connect();
        self.pdp_pad_value5.connect();
        self.pdp_pad_value6.connect();
        self.pdp_pad_value7.connect();
        self.pdp_dst_base.connect();
        self.pdp_dst_line.connect();
        self.pdp_dst_surface.connect();
        self.cdp_layer_ready.connect();
        self.cdp_lut_we.connect();
        self.cdp_lut_table.connect();
        self.cdp_lut_addr.connect();
        self.cdp_lut_wdata.connect();
        self.cdp_width.connect();
        self.cdp_height.connect();
        self.cdp_channel.connect();
        self.cdp_src_base.connect();
        self.cdp_src_line.connect();
        self.cdp_src_surface.connect();
        self.cdp_dst_base.connect();
        self.cdp_dst_line.connect();
        self.cdp_dst_surface.connect();
        self.cdp_normalz_len.connect();
        self.cdp_datin_offset.connect();
        self.cdp_datin_scale.connect();
        self.cdp_datin_shifter.connect();
        self.cdp_datout_offset.connect();
        self.cdp_datout_scale.connect();
        self.cdp_datout_shifter.connect();
        self.cdp_sqsum_bypass.connect();
        self.cdp_mul_bypass.connect();
        self.cdp_lut_le_function.connect();
        self.cdp_lut_uflow_priority.connect();
        self.cdp_lut_oflow_priority.connect();
        self.cdp_lut_hybrid_priority.connect();
        self.cdp_lut_le_index_offset.connect();
        self.cdp_lut_le_index_select.connect();
        self.cdp_lut_lo_index_select.connect();
        self.cdp_lut_le_start.connect();
        self.cdp_lut_le_end.connect();
        self.cdp_lut_lo_start.connect();
        self.cdp_lut_lo_end.connect();
        self.cdp_lut_le_slope_uflow_scale.connect();
        self.cdp_lut_le_slope_oflow_scale.connect();
        self.cdp_lut_lo_slope_uflow_scale.connect();
        self.cdp_lut_lo_slope_oflow_scale.connect();
        self.cdp_lut_le_slope_uflow_shift.connect();
        self.cdp_lut_le_slope_oflow_shift.connect();
        self.cdp_lut_lo_slope_uflow_shift.connect();
        self.cdp_lut_lo_slope_oflow_shift.connect();
        self.sdp_flying_mode.connect();
        self.sdp_width.connect();
        self.sdp_height.connect();
        self.sdp_last_surface.connect();
        self.conv_layer_ready.connect();
        self.cdma_width.connect();
        self.cdma_height.connect();
        self.cdma_channel.connect();
        self.cdma_feature_base.connect();
        self.cdma_line_stride.connect();
        self.cdma_surface_stride.connect();
        self.cdma_weight_base.connect();
        self.cdma_kernels.connect();
        self.cdma_data_bank.connect();
        self.cdma_weight_bank.connect();
        self.cdma_cvt_en.connect();
        self.cdma_cvt_truncate.connect();
        self.cdma_cvt_offset.connect();
        self.cdma_cvt_scale.connect();
        self.csc_datain_width_ext.connect();
        self.csc_datain_height_ext.connect();
        self.csc_datain_channel_ext.connect();
        self.csc_weight_width_ext.connect();
        self.csc_weight_height_ext.connect();
        self.csc_weight_kernel.connect();
        self.csc_conv_x_stride_ext.connect();
        self.csc_conv_y_stride_ext.connect();
        self.csc_x_dilation_ext.connect();
        self.csc_y_dilation_ext.connect();
        self.csc_pad_left.connect();
        self.csc_pad_top.connect();
        self.csc_dataout_width.connect();
        self.csc_dataout_height.connect();
        self.csc_pad_value.connect();
        self.csc_data_bank.connect();
        self.cacc_clip_truncate.connect();
        // The sub-blocks' inputs, driven by the Verilog (`verilog`).
        macro_rules! drive {
            ($($block:ident),*) => {$(
                self.$block.clock.connect();
                self.$block.reset.connect();
                self.$block.wr.connect();
                self.$block.csb_addr.connect();
                self.$block.csb_wdat.connect();
                self.$block.producer.connect();
                self.$block.consumer.connect();
                self.$block.enabled.connect();
            )*};
        }
        drive!(cdma_registers, csc_registers, cacc_registers, sdp_rdma_registers, sdp_registers, pdp_rdma_registers, pdp_registers, cdp_rdma_registers, cdp_registers);
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Csb::default, "nvdla_csb");
}
