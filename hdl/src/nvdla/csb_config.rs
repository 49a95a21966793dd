//! The configuration fields the CSB gives the engines (seeds/001 "Configuration space bus",
//! "Ping-pong Synchronization Mechanism"; the RDL register descriptions for the fields): one
//! row per port of [`super::csb::Csb`] the engines run on, naming the unit, the register and
//! the bit it starts at. Not a block: the table the CSB's Verilog and each unit's
//! [`super::csb_unit::CsbUnit`] are generated from, so a port added here reaches both.

/// One configuration port: its name and width, the unit, the register (and the high half's
/// register), and the register bit the port's bit 0 is.
pub type ConfigPort = (&'static str, u32, &'static str, &'static str, u32, Option<&'static str>);

/// The configuration ports: name, width, and the unit, register and its lowest bit they
/// show (a 64-bit port with a second register is `{HIGH, LOW}`, a 64-bit port of one 32-bit
/// register is zero-extended, a narrower one is bits `lsb + width - 1 ..= lsb`).
/// `last_surface` is the number of the cube's last 8-channel surface: CHANNEL / 8.

pub const CONFIG: &[ConfigPort] = &[
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

/// The bits a [`CONFIG`] entry takes in its unit's [`super::csb_unit::CsbUnit`]'s `fields`: a 64-bit port of
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

/// The width of `unit`'s [`super::csb_unit::CsbUnit`]'s `fields`: its [`CONFIG`] entries' bits (0: the unit
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
pub fn config_entries(unit: &str) -> impl Iterator<Item = (&'static ConfigPort, u32, u32)> + '_ {
    CONFIG.iter().filter(move |e| e.2 == unit).scan(0, |at, e| {
        let place = (e, *at, raw_width(e));
        *at += raw_width(e);
        Some(place)
    })
}
