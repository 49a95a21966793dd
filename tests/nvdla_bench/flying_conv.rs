//! A direct-convolution layer run as a driver runs it on nv_small: programmed through the CSB
//! into a register group of CDMA, CSC, CMAC_A/B, CACC and SDP on the fly, then waited for by
//! SDP's interrupt (`nvdla_conv`'s tests and `make bench`'s random layers).
use super::conv_reference::{Conv, CubeLayout, FlyingSdp};
use super::sdp_reference::{Ew, Stage};
use super::{address, read, write};
use npu::nvdla::memory::Memory;
use npu::nvdla::player::Bench;
use npu_hdl::nvdla::regmap;

/// The convolution layer `c` programmed into register group `group` of CDMA, CSC, CMAC_A/B,
/// CACC and SDP (flying), as a driver would, and enabled (SDP first, CDMA last, as NVIDIA's
/// traces do).
#[allow(clippy::too_many_arguments)]
pub fn program(b: &mut Bench, group: u32, c: &Conv, feature: CubeLayout, weight_base: u64, banks: (u32, u32), dst: CubeLayout, sdp: &FlyingSdp) {
    let units = ["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC", "SDP"];
    for u in units {
        write(b, address(u, "S_POINTER"), group);
    }
    let m = |v: usize| v as u32 - 1;
    let size = |w: usize, h: usize| m(w) | m(h) << 16;
    let cvt = c.converter;
    let bank = banks.0 - 1 | (banks.1 - 1) << 16;
    let registers = [
        ("CDMA", "D_MISC_CFG", 0),
        ("CDMA", "D_DATAIN_SIZE_0", size(c.width, c.height)),
        ("CDMA", "D_DATAIN_SIZE_1", m(c.channels)),
        ("CDMA", "D_DAIN_ADDR_LOW_0", feature.base as u32),
        ("CDMA", "D_DAIN_ADDR_HIGH_0", (feature.base >> 32) as u32),
        ("CDMA", "D_LINE_STRIDE", feature.line as u32),
        ("CDMA", "D_SURF_STRIDE", feature.surface as u32),
        ("CDMA", "D_WEIGHT_ADDR_LOW", weight_base as u32),
        ("CDMA", "D_WEIGHT_ADDR_HIGH", (weight_base >> 32) as u32),
        ("CDMA", "D_WEIGHT_SIZE_0", m(c.kernel_width * c.kernel_height * c.channels)),
        ("CDMA", "D_WEIGHT_SIZE_1", m(c.kernels)),
        ("CDMA", "D_BANK", bank),
        ("CDMA", "D_CVT_CFG", cvt.map_or(0, |v| 1 | v.truncate << 4)),
        ("CDMA", "D_CVT_OFFSET", cvt.map_or(0, |v| u32::from(v.offset as u16))),
        ("CDMA", "D_CVT_SCALE", cvt.map_or(0, |v| u32::from(v.scale as u16))),
        ("CSC", "D_MISC_CFG", 0),
        ("CSC", "D_DATAIN_SIZE_EXT_0", size(c.width, c.height)),
        ("CSC", "D_DATAIN_SIZE_EXT_1", m(c.channels)),
        ("CSC", "D_WEIGHT_SIZE_EXT_0", size(c.kernel_width, c.kernel_height)),
        ("CSC", "D_WEIGHT_SIZE_EXT_1", m(c.channels) | m(c.kernels) << 16),
        ("CSC", "D_CONV_STRIDE_EXT", size(c.stride.0, c.stride.1)),
        ("CSC", "D_DILATION_EXT", size(c.dilation.0, c.dilation.1)),
        ("CSC", "D_ZERO_PADDING", c.pad_left as u32 | (c.pad_top as u32) << 16),
        ("CSC", "D_ZERO_PADDING_VALUE", u32::from(c.pad_value as u8)),
        ("CSC", "D_DATAOUT_SIZE_0", size(c.out_width, c.out_height)),
        ("CSC", "D_DATAOUT_SIZE_1", m(c.kernels)),
        ("CSC", "D_BANK", bank),
        ("CACC", "D_MISC_CFG", 0),
        ("CACC", "D_CLIP_CFG", c.clip_truncate),
        ("SDP", "D_FEATURE_MODE_CFG", 1),
        ("SDP", "D_DATA_CUBE_WIDTH", m(c.out_width)),
        ("SDP", "D_DATA_CUBE_HEIGHT", m(c.out_height)),
        ("SDP", "D_DATA_CUBE_CHANNEL", m(c.kernels)),
        ("SDP", "D_DST_BASE_ADDR_LOW", dst.base as u32),
        ("SDP", "D_DST_BASE_ADDR_HIGH", (dst.base >> 32) as u32),
        ("SDP", "D_DST_LINE_STRIDE", dst.line as u32),
        ("SDP", "D_DST_SURFACE_STRIDE", dst.surface as u32),
        ("SDP", "D_DP_BS_CFG", sdp.bs.cfg),
        ("SDP", "D_DP_BS_ALU_CFG", sdp.bs.alu_cfg),
        ("SDP", "D_DP_BS_ALU_SRC_VALUE", sdp.bs.alu_value),
        ("SDP", "D_DP_BS_MUL_CFG", sdp.bs.mul_cfg),
        ("SDP", "D_DP_BS_MUL_SRC_VALUE", sdp.bs.mul_value),
        ("SDP", "D_DP_BN_CFG", sdp.bn.cfg),
        ("SDP", "D_DP_BN_ALU_CFG", sdp.bn.alu_cfg),
        ("SDP", "D_DP_BN_ALU_SRC_VALUE", sdp.bn.alu_value),
        ("SDP", "D_DP_BN_MUL_CFG", sdp.bn.mul_cfg),
        ("SDP", "D_DP_BN_MUL_SRC_VALUE", sdp.bn.mul_value),
        ("SDP", "D_DP_EW_CFG", sdp.ew.cfg),
        ("SDP", "D_DP_EW_ALU_SRC_VALUE", sdp.ew.alu_value),
        ("SDP", "D_DP_EW_MUL_SRC_VALUE", sdp.ew.mul_value),
        ("SDP", "D_DP_EW_TRUNCATE_VALUE", sdp.ew.truncate),
        ("SDP", "D_CVT_OFFSET", sdp.cvt_offset as u32),
        ("SDP", "D_CVT_SCALE", u32::from(sdp.cvt_scale as u16)),
        ("SDP", "D_CVT_SHIFT", sdp.cvt_shift),
    ];
    for (u, r, v) in registers {
        write(b, address(u, r), v);
    }
    for u in ["SDP", "CACC", "CMAC_A", "CMAC_B", "CSC", "CDMA"] {
        write(b, address(u, "D_OP_ENABLE"), 1);
    }
}

/// SDP in flying mode with every stage bypassed and the converter `(x - offset) >> shift`.
pub fn bypassing_sdp(offset: i32, shift: u32) -> FlyingSdp {
    let bypass = Stage { cfg: 0x73, alu_cfg: 0, alu_value: 0, mul_cfg: 0, mul_value: 0 };
    FlyingSdp { bs: bypass, bn: bypass, ew: Ew { cfg: 0x53, alu_value: 0, mul_value: 0, truncate: 0 }, cvt_offset: offset, cvt_scale: 1, cvt_shift: shift }
}

/// GLB's mask as NVIDIA's dc traces set it: only SDP's done bits raise `irq`.
pub fn mask_all_but_sdp(b: &mut Bench) {
    let all = regmap::register("GLB", "S_INTR_MASK").1.mask();
    let sdp = regmap::field("GLB", "S_INTR_MASK", "SDP_DONE_MASK0").mask() | regmap::field("GLB", "S_INTR_MASK", "SDP_DONE_MASK1").mask();
    write(b, address("GLB", "S_INTR_MASK"), all & !sdp);
}

/// Waits for the SDP done interrupt of the layer and clears GLB's status; returns it.
pub fn wait_layer(b: &mut Bench, what: &str) -> u32 {
    assert!(b.wait_irq(), "{what}: no interrupt");
    let status = read(b, address("GLB", "S_INTR_STATUS"));
    write(b, address("GLB", "S_INTR_STATUS"), status);
    status
}

/// Copies `size` bytes at `base` of `from` into `to`.
pub fn copy_region(from: &Memory, to: &mut Memory, base: u64, size: u64) {
    let bytes: Vec<u8> = (0..size).map(|k| from.read(base + k)).collect();
    to.write(base, &bytes);
}
