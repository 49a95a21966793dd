//! The NVDLA nv_small register map of the units built here (GLB, the convolution core's CDMA,
//! CSC, CMAC_A, CMAC_B and CACC, SDP_RDMA, SDP, PDP_RDMA, PDP, CDP_RDMA, CDP): the one table
//! from which the CSB register file's decode is generated and which the model and the trace
//! player resolve register names with. Names, offsets, field bit ranges, reset values and
//! access types are those of NVIDIA's SystemRDL descriptions (`shared/nvdla/manual/*.rdl`,
//! nv_small); `tests/nvdla_regmap.rs` checks every entry against those files.
//!
//! Addresses: the RDL places each unit at a byte base (`NVDLA_SDP @0x9000`) and each register
//! at a byte offset within it. The CSB carries word addresses (seeds/001 "Configuration space
//! bus": 16-bit address, "aligned to word boundary"), so a register's CSB address is
//! `(base + offset) / 4`. Decision: seeds/001's Table 10 lists another unit layout (GLB at 0,
//! SDP at 0xB000, ...); that is nv_full's, and the nv_small RDL the traces were written
//! against is followed here (GLB at 0x1000, SDP_RDMA at 0x8000, SDP at 0x9000).
//!
//! Register groups (seeds/001 "Ping-pong Synchronization Mechanism"): a register whose name
//! starts with `D_` exists twice (group 0 and group 1, same address; S_POINTER.PRODUCER picks
//! the one the CSB reaches, CONSUMER the one the datapath uses); every other register is in
//! the single group. GLB has only single registers.

/// Software access of a field: the RDL's `spec_access`, which refines its `sw` (rw, r, w).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `rw`: read and write.
    Rw,
    /// `r`: read only (hardware status); writes are ignored.
    R,
    /// `c`: a constant (the hardware version); writes are ignored.
    C,
    /// `rwo`: read, write one to clear (GLB interrupt status).
    Rwo,
    /// `rwt`: read and write, the write also triggers an action (SDP LUT address).
    Rwt,
    /// `rwto`: read and write, hardware clears it (D_OP_ENABLE, SDP_DONE_STATUS0, LUT data).
    Rwto,
    /// `wo`: write only (reads 0): writing one sets the interrupt status bit (GLB INTR_SET).
    Wo,
    /// `wto`: as `wo` (the RDL marks SDP_DONE_SET0 so).
    Wto,
}

impl Access {
    /// The RDL's spelling (`spec_access`).
    pub fn name(self) -> &'static str {
        match self {
            Access::Rw => "rw",
            Access::R => "r",
            Access::C => "c",
            Access::Rwo => "rwo",
            Access::Rwt => "rwt",
            Access::Rwto => "rwto",
            Access::Wo => "wo",
            Access::Wto => "wto",
        }
    }

    /// The RDL's coarser `sw` property this access refines.
    pub fn sw(self) -> &'static str {
        match self {
            Access::Rw | Access::Rwo | Access::Rwt | Access::Rwto => "rw",
            Access::R | Access::C => "r",
            Access::Wo | Access::Wto => "w",
        }
    }

    /// Software reads the field (otherwise it reads 0).
    pub fn readable(self) -> bool {
        self.sw() != "w"
    }

    /// A CSB write stores its bits into the field (`rwo`, `wo`, `wto` act instead: clear or
    /// set the interrupt status; `r` and `c` ignore writes).
    pub fn stores(self) -> bool {
        matches!(self, Access::Rw | Access::Rwt | Access::Rwto)
    }
}

/// Which register group a register belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// One copy (`S_` registers, GLB).
    Single,
    /// Two copies, group 0 and 1 (`D_` registers).
    PingPong,
}

/// A field: bits `lsb + width - 1 ..= lsb`.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub access: Access,
    /// Value after reset, not shifted into place.
    pub reset: u32,
}

impl Field {
    /// The field's bits, in place.
    pub const fn mask(&self) -> u32 {
        let ones = if self.width >= 32 { u32::MAX } else { (1u32 << self.width) - 1 };
        ones << self.lsb
    }
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug)]
pub struct Register {
    /// The RDL's name, without the `_0` the trace files append.
    pub name: &'static str,
    /// Byte offset from the unit's base.
    pub offset: u32,
    pub group: Group,
    pub fields: &'static [Field],
}

impl Register {
    /// The value after reset: every field's reset value in place.
    pub fn reset(&self) -> u32 {
        self.fields.iter().fold(0, |v, f| v | (f.reset << f.lsb) & f.mask())
    }

    /// The bits that belong to a field (the others read 0 and ignore writes).
    pub fn mask(&self) -> u32 {
        self.mask_where(|_| true)
    }

    /// The bits of fields with access `pick`.
    pub fn mask_where(&self, pick: impl Fn(Access) -> bool) -> u32 {
        self.fields.iter().filter(|f| pick(f.access)).fold(0, |m, f| m | f.mask())
    }

    /// The field called `name`, if any.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        let fields: &'static [Field] = self.fields;
        fields.iter().find(|f| f.name == name)
    }
}

/// One unit's 4 KiB window of the CSB.
#[derive(Clone, Copy, Debug)]
pub struct Unit {
    /// The RDL's name without `NVDLA_` (`SDP_RDMA`), as the traces name it.
    pub name: &'static str,
    /// Byte address of the unit's first register.
    pub base: u32,
    pub registers: &'static [Register],
}

impl Unit {
    pub fn register(&self, name: &str) -> Option<&'static Register> {
        let registers: &'static [Register] = self.registers;
        registers.iter().find(|r| r.name == name)
    }

    /// CSB (word) address of `register`.
    pub fn csb_address(&self, register: &Register) -> u16 {
        ((self.base + register.offset) / 4) as u16
    }
}

/// The units built here, by CSB address.
pub const UNITS: &[Unit] = &[
    Unit { name: "GLB", base: 0x1000, registers: GLB },
    Unit { name: "CDMA", base: 0x3000, registers: CDMA },
    Unit { name: "CSC", base: 0x4000, registers: CSC },
    Unit { name: "CMAC_A", base: 0x5000, registers: CMAC_A },
    Unit { name: "CMAC_B", base: 0x6000, registers: CMAC_B },
    Unit { name: "CACC", base: 0x7000, registers: CACC },
    Unit { name: "SDP_RDMA", base: 0x8000, registers: SDP_RDMA },
    Unit { name: "SDP", base: 0x9000, registers: SDP },
    Unit { name: "PDP_RDMA", base: 0xa000, registers: PDP_RDMA },
    Unit { name: "PDP", base: 0xb000, registers: PDP },
    Unit { name: "CDP_RDMA", base: 0xc000, registers: CDP_RDMA },
    Unit { name: "CDP", base: 0xd000, registers: CDP },
];

/// The unit called `name` (`SDP`), if it is built.
pub fn unit(name: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|u| u.name == name)
}

/// The register `unit.name`; panics if there is none (for the RTL and model, which name
/// registers they were written for: a table change they cannot follow stops there).
pub fn register(unit_name: &str, name: &str) -> (&'static Unit, &'static Register) {
    let u = unit(unit_name).unwrap_or_else(|| panic!("NVDLA register map: no unit {unit_name}"));
    let r = u.register(name).unwrap_or_else(|| panic!("NVDLA register map: no register {unit_name}.{name}"));
    (u, r)
}

/// Bit `lsb` and width of field `unit.register.field`; panics if there is none.
pub fn field(unit_name: &str, register_name: &str, field_name: &str) -> &'static Field {
    let (_, r) = register(unit_name, register_name);
    r.field(field_name).unwrap_or_else(|| panic!("NVDLA register map: no field {unit_name}.{register_name}.{field_name}"))
}

/// The register at CSB word address `address`, if any.
pub fn decode(address: u16) -> Option<(&'static Unit, &'static Register)> {
    UNITS.iter().find_map(|u| u.registers.iter().find(|r| u.csb_address(r) == address).map(|r| (u, r)))
}

use Access::*;
use Group::*;

const fn f(name: &'static str, lsb: u32, width: u32, access: Access, reset: u32) -> Field {
    Field { name, lsb, width, access, reset }
}

const fn r(name: &'static str, offset: u32, group: Group, fields: &'static [Field]) -> Register {
    Register { name, offset, group, fields }
}

/// NVDLA_GLB (base 0x1000).
const GLB: &[Register] = &[
    r("S_NVDLA_HW_VERSION", 0x00, Single, &[f("MAJOR", 0, 8, C, 0x31), f("MINOR", 8, 16, C, 0x3030)]),
    r("S_INTR_MASK", 0x04, Single, &[f("SDP_DONE_MASK0", 0, 1, Rw, 0x0), f("SDP_DONE_MASK1", 1, 1, Rw, 0x0), f("CDP_DONE_MASK0", 2, 1, Rw, 0x0), f("CDP_DONE_MASK1", 3, 1, Rw, 0x0), f("PDP_DONE_MASK0", 4, 1, Rw, 0x0), f("PDP_DONE_MASK1", 5, 1, Rw, 0x0), f("BDMA_DONE_MASK0", 6, 1, Rw, 0x0), f("BDMA_DONE_MASK1", 7, 1, Rw, 0x0), f("RUBIK_DONE_MASK0", 8, 1, Rw, 0x0), f("RUBIK_DONE_MASK1", 9, 1, Rw, 0x0), f("CDMA_DAT_DONE_MASK0", 16, 1, Rw, 0x0), f("CDMA_DAT_DONE_MASK1", 17, 1, Rw, 0x0), f("CDMA_WT_DONE_MASK0", 18, 1, Rw, 0x0), f("CDMA_WT_DONE_MASK1", 19, 1, Rw, 0x0), f("CACC_DONE_MASK0", 20, 1, Rw, 0x0), f("CACC_DONE_MASK1", 21, 1, Rw, 0x0)]),
    r("S_INTR_SET", 0x08, Single, &[f("SDP_DONE_SET0", 0, 1, Wto, 0x0), f("SDP_DONE_SET1", 1, 1, Wo, 0x0), f("CDP_DONE_SET0", 2, 1, Wo, 0x0), f("CDP_DONE_SET1", 3, 1, Wo, 0x0), f("PDP_DONE_SET0", 4, 1, Wo, 0x0), f("PDP_DONE_SET1", 5, 1, Wo, 0x0), f("BDMA_DONE_SET0", 6, 1, Wo, 0x0), f("BDMA_DONE_SET1", 7, 1, Wo, 0x0), f("RUBIK_DONE_SET0", 8, 1, Wo, 0x0), f("RUBIK_DONE_SET1", 9, 1, Wo, 0x0), f("CDMA_DAT_DONE_SET0", 16, 1, Wo, 0x0), f("CDMA_DAT_DONE_SET1", 17, 1, Wo, 0x0), f("CDMA_WT_DONE_SET0", 18, 1, Wo, 0x0), f("CDMA_WT_DONE_SET1", 19, 1, Wo, 0x0), f("CACC_DONE_SET0", 20, 1, Wo, 0x0), f("CACC_DONE_SET1", 21, 1, Wo, 0x0)]),
    r("S_INTR_STATUS", 0x0c, Single, &[f("SDP_DONE_STATUS0", 0, 1, Rwto, 0x0), f("SDP_DONE_STATUS1", 1, 1, Rwo, 0x0), f("CDP_DONE_STATUS0", 2, 1, Rwo, 0x0), f("CDP_DONE_STATUS1", 3, 1, Rwo, 0x0), f("PDP_DONE_STATUS0", 4, 1, Rwo, 0x0), f("PDP_DONE_STATUS1", 5, 1, Rwo, 0x0), f("BDMA_DONE_STATUS0", 6, 1, Rwo, 0x0), f("BDMA_DONE_STATUS1", 7, 1, Rwo, 0x0), f("RUBIK_DONE_STATUS0", 8, 1, Rwo, 0x0), f("RUBIK_DONE_STATUS1", 9, 1, Rwo, 0x0), f("CDMA_DAT_DONE_STATUS0", 16, 1, Rwo, 0x0), f("CDMA_DAT_DONE_STATUS1", 17, 1, Rwo, 0x0), f("CDMA_WT_DONE_STATUS0", 18, 1, Rwo, 0x0), f("CDMA_WT_DONE_STATUS1", 19, 1, Rwo, 0x0), f("CACC_DONE_STATUS0", 20, 1, Rwo, 0x0), f("CACC_DONE_STATUS1", 21, 1, Rwo, 0x0)]),
];

/// NVDLA_CDMA (base 0x3000).
const CDMA: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("S_ARBITER", 0x08, Single, &[f("ARB_WEIGHT", 0, 4, Rw, 0xf), f("ARB_WMB", 16, 4, Rw, 0x3)]),
    r("S_CBUF_FLUSH_STATUS", 0x0c, Single, &[f("FLUSH_DONE", 0, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x10, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_MISC_CFG", 0x14, PingPong, &[f("CONV_MODE", 0, 1, Rw, 0x0), f("IN_PRECISION", 8, 2, Rw, 0x1), f("PROC_PRECISION", 12, 2, Rw, 0x1), f("DATA_REUSE", 16, 1, Rw, 0x0), f("WEIGHT_REUSE", 20, 1, Rw, 0x0), f("SKIP_DATA_RLS", 24, 1, Rw, 0x0), f("SKIP_WEIGHT_RLS", 28, 1, Rw, 0x0)]),
    r("D_DATAIN_FORMAT", 0x18, PingPong, &[f("DATAIN_FORMAT", 0, 1, Rw, 0x0), f("PIXEL_FORMAT", 8, 6, Rw, 0xc), f("PIXEL_MAPPING", 16, 1, Rw, 0x0), f("PIXEL_SIGN_OVERRIDE", 20, 1, Rw, 0x0)]),
    r("D_DATAIN_SIZE_0", 0x1c, PingPong, &[f("DATAIN_WIDTH", 0, 13, Rw, 0x0), f("DATAIN_HEIGHT", 16, 13, Rw, 0x0)]),
    r("D_DATAIN_SIZE_1", 0x20, PingPong, &[f("DATAIN_CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_DATAIN_SIZE_EXT_0", 0x24, PingPong, &[f("DATAIN_WIDTH_EXT", 0, 13, Rw, 0x0), f("DATAIN_HEIGHT_EXT", 16, 13, Rw, 0x0)]),
    r("D_PIXEL_OFFSET", 0x28, PingPong, &[f("PIXEL_X_OFFSET", 0, 5, Rw, 0x0), f("PIXEL_Y_OFFSET", 16, 3, Rw, 0x0)]),
    r("D_DAIN_RAM_TYPE", 0x2c, PingPong, &[f("DATAIN_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_DAIN_ADDR_HIGH_0", 0x30, PingPong, &[f("DATAIN_ADDR_HIGH_0", 0, 32, Rw, 0x0)]),
    r("D_DAIN_ADDR_LOW_0", 0x34, PingPong, &[f("DATAIN_ADDR_LOW_0", 0, 32, Rw, 0x0)]),
    r("D_DAIN_ADDR_HIGH_1", 0x38, PingPong, &[f("DATAIN_ADDR_HIGH_1", 0, 32, Rw, 0x0)]),
    r("D_DAIN_ADDR_LOW_1", 0x3c, PingPong, &[f("DATAIN_ADDR_LOW_1", 0, 32, Rw, 0x0)]),
    r("D_LINE_STRIDE", 0x40, PingPong, &[f("LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_LINE_UV_STRIDE", 0x44, PingPong, &[f("UV_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SURF_STRIDE", 0x48, PingPong, &[f("SURF_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DAIN_MAP", 0x4c, PingPong, &[f("LINE_PACKED", 0, 1, Rw, 0x0), f("SURF_PACKED", 16, 1, Rw, 0x0)]),
    r("D_RESERVED_X_CFG", 0x50, PingPong, &[f("RSV_PER_LINE", 0, 10, Rw, 0x0), f("RSV_PER_UV_LINE", 16, 10, Rw, 0x0)]),
    r("D_RESERVED_Y_CFG", 0x54, PingPong, &[f("RSV_HEIGHT", 0, 3, Rw, 0x0), f("RSV_Y_INDEX", 16, 5, Rw, 0x0)]),
    r("D_BATCH_NUMBER", 0x58, PingPong, &[f("BATCHES", 0, 5, Rw, 0x0)]),
    r("D_BATCH_STRIDE", 0x5c, PingPong, &[f("BATCH_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_ENTRY_PER_SLICE", 0x60, PingPong, &[f("ENTRIES", 0, 14, Rw, 0x0)]),
    r("D_FETCH_GRAIN", 0x64, PingPong, &[f("GRAINS", 0, 12, Rw, 0x0)]),
    r("D_WEIGHT_FORMAT", 0x68, PingPong, &[f("WEIGHT_FORMAT", 0, 1, Rw, 0x0)]),
    r("D_WEIGHT_SIZE_0", 0x6c, PingPong, &[f("BYTE_PER_KERNEL", 0, 18, Rw, 0x0)]),
    r("D_WEIGHT_SIZE_1", 0x70, PingPong, &[f("WEIGHT_KERNEL", 0, 13, Rw, 0x0)]),
    r("D_WEIGHT_RAM_TYPE", 0x74, PingPong, &[f("WEIGHT_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_WEIGHT_ADDR_HIGH", 0x78, PingPong, &[f("WEIGHT_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_WEIGHT_ADDR_LOW", 0x7c, PingPong, &[f("WEIGHT_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_WEIGHT_BYTES", 0x80, PingPong, &[f("WEIGHT_BYTES", 0, 32, Rw, 0x0)]),
    r("D_WGS_ADDR_HIGH", 0x84, PingPong, &[f("WGS_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_WGS_ADDR_LOW", 0x88, PingPong, &[f("WGS_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_WMB_ADDR_HIGH", 0x8c, PingPong, &[f("WMB_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_WMB_ADDR_LOW", 0x90, PingPong, &[f("WMB_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_WMB_BYTES", 0x94, PingPong, &[f("WMB_BYTES", 0, 28, Rw, 0x0)]),
    r("D_MEAN_FORMAT", 0x98, PingPong, &[f("MEAN_FORMAT", 0, 1, Rw, 0x0)]),
    r("D_MEAN_GLOBAL_0", 0x9c, PingPong, &[f("MEAN_RY", 0, 16, Rw, 0x0), f("MEAN_GU", 16, 16, Rw, 0x0)]),
    r("D_MEAN_GLOBAL_1", 0xa0, PingPong, &[f("MEAN_BV", 0, 16, Rw, 0x0), f("MEAN_AX", 16, 16, Rw, 0x0)]),
    r("D_CVT_CFG", 0xa4, PingPong, &[f("CVT_EN", 0, 1, Rw, 0x0), f("CVT_TRUNCATE", 4, 6, Rw, 0x0)]),
    r("D_CVT_OFFSET", 0xa8, PingPong, &[f("CVT_OFFSET", 0, 16, Rw, 0x0)]),
    r("D_CVT_SCALE", 0xac, PingPong, &[f("CVT_SCALE", 0, 16, Rw, 0x0)]),
    r("D_CONV_STRIDE", 0xb0, PingPong, &[f("CONV_X_STRIDE", 0, 3, Rw, 0x0), f("CONV_Y_STRIDE", 16, 3, Rw, 0x0)]),
    r("D_ZERO_PADDING", 0xb4, PingPong, &[f("PAD_LEFT", 0, 5, Rw, 0x0), f("PAD_RIGHT", 8, 6, Rw, 0x0), f("PAD_TOP", 16, 5, Rw, 0x0), f("PAD_BOTTOM", 24, 6, Rw, 0x0)]),
    r("D_ZERO_PADDING_VALUE", 0xb8, PingPong, &[f("PAD_VALUE", 0, 16, Rw, 0x0)]),
    r("D_BANK", 0xbc, PingPong, &[f("DATA_BANK", 0, 5, Rw, 0x0), f("WEIGHT_BANK", 16, 5, Rw, 0x0)]),
    r("D_NAN_FLUSH_TO_ZERO", 0xc0, PingPong, &[f("NAN_TO_ZERO", 0, 1, Rw, 0x0)]),
    r("D_NAN_INPUT_DATA_NUM", 0xc4, PingPong, &[f("NAN_DATA_NUM", 0, 32, R, 0x0)]),
    r("D_NAN_INPUT_WEIGHT_NUM", 0xc8, PingPong, &[f("NAN_WEIGHT_NUM", 0, 32, R, 0x0)]),
    r("D_INF_INPUT_DATA_NUM", 0xcc, PingPong, &[f("INF_DATA_NUM", 0, 32, R, 0x0)]),
    r("D_INF_INPUT_WEIGHT_NUM", 0xd0, PingPong, &[f("INF_WEIGHT_NUM", 0, 32, R, 0x0)]),
    r("D_PERF_ENABLE", 0xd4, PingPong, &[f("DMA_EN", 0, 1, Rw, 0x0)]),
    r("D_PERF_DAT_READ_STALL", 0xd8, PingPong, &[f("DAT_RD_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_WT_READ_STALL", 0xdc, PingPong, &[f("WT_RD_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_DAT_READ_LATENCY", 0xe0, PingPong, &[f("DAT_RD_LATENCY", 0, 32, R, 0x0)]),
    r("D_PERF_WT_READ_LATENCY", 0xe4, PingPong, &[f("WT_RD_LATENCY", 0, 32, R, 0x0)]),
    r("D_CYA", 0xe8, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];

/// NVDLA_CSC (base 0x4000).
const CSC: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_MISC_CFG", 0x0c, PingPong, &[f("CONV_MODE", 0, 1, Rw, 0x0), f("IN_PRECISION", 8, 2, Rw, 0x1), f("PROC_PRECISION", 12, 2, Rw, 0x1), f("DATA_REUSE", 16, 1, Rw, 0x0), f("WEIGHT_REUSE", 20, 1, Rw, 0x0), f("SKIP_DATA_RLS", 24, 1, Rw, 0x0), f("SKIP_WEIGHT_RLS", 28, 1, Rw, 0x0)]),
    r("D_DATAIN_FORMAT", 0x10, PingPong, &[f("DATAIN_FORMAT", 0, 1, Rw, 0x0)]),
    r("D_DATAIN_SIZE_EXT_0", 0x14, PingPong, &[f("DATAIN_WIDTH_EXT", 0, 13, Rw, 0x0), f("DATAIN_HEIGHT_EXT", 16, 13, Rw, 0x0)]),
    r("D_DATAIN_SIZE_EXT_1", 0x18, PingPong, &[f("DATAIN_CHANNEL_EXT", 0, 13, Rw, 0x0)]),
    r("D_BATCH_NUMBER", 0x1c, PingPong, &[f("BATCHES", 0, 5, Rw, 0x0)]),
    r("D_POST_Y_EXTENSION", 0x20, PingPong, &[f("Y_EXTENSION", 0, 2, Rw, 0x0)]),
    r("D_ENTRY_PER_SLICE", 0x24, PingPong, &[f("ENTRIES", 0, 14, Rw, 0x0)]),
    r("D_WEIGHT_FORMAT", 0x28, PingPong, &[f("WEIGHT_FORMAT", 0, 1, Rw, 0x0)]),
    r("D_WEIGHT_SIZE_EXT_0", 0x2c, PingPong, &[f("WEIGHT_WIDTH_EXT", 0, 5, Rw, 0x0), f("WEIGHT_HEIGHT_EXT", 16, 5, Rw, 0x0)]),
    r("D_WEIGHT_SIZE_EXT_1", 0x30, PingPong, &[f("WEIGHT_CHANNEL_EXT", 0, 13, Rw, 0x0), f("WEIGHT_KERNEL", 16, 13, Rw, 0x0)]),
    r("D_WEIGHT_BYTES", 0x34, PingPong, &[f("WEIGHT_BYTES", 0, 32, Rw, 0x0)]),
    r("D_WMB_BYTES", 0x38, PingPong, &[f("WMB_BYTES", 0, 28, Rw, 0x0)]),
    r("D_DATAOUT_SIZE_0", 0x3c, PingPong, &[f("DATAOUT_WIDTH", 0, 13, Rw, 0x0), f("DATAOUT_HEIGHT", 16, 13, Rw, 0x0)]),
    r("D_DATAOUT_SIZE_1", 0x40, PingPong, &[f("DATAOUT_CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_ATOMICS", 0x44, PingPong, &[f("ATOMICS", 0, 21, Rw, 0x1)]),
    r("D_RELEASE", 0x48, PingPong, &[f("RLS_SLICES", 0, 12, Rw, 0x1)]),
    r("D_CONV_STRIDE_EXT", 0x4c, PingPong, &[f("CONV_X_STRIDE_EXT", 0, 3, Rw, 0x0), f("CONV_Y_STRIDE_EXT", 16, 3, Rw, 0x0)]),
    r("D_DILATION_EXT", 0x50, PingPong, &[f("X_DILATION_EXT", 0, 5, Rw, 0x0), f("Y_DILATION_EXT", 16, 5, Rw, 0x0)]),
    r("D_ZERO_PADDING", 0x54, PingPong, &[f("PAD_LEFT", 0, 5, Rw, 0x0), f("PAD_TOP", 16, 5, Rw, 0x0)]),
    r("D_ZERO_PADDING_VALUE", 0x58, PingPong, &[f("PAD_VALUE", 0, 16, Rw, 0x0)]),
    r("D_BANK", 0x5c, PingPong, &[f("DATA_BANK", 0, 5, Rw, 0x0), f("WEIGHT_BANK", 16, 5, Rw, 0x0)]),
    r("D_PRA_CFG", 0x60, PingPong, &[f("PRA_TRUNCATE", 0, 2, Rw, 0x0)]),
    r("D_CYA", 0x64, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];

/// NVDLA_CMAC_A (base 0x5000).
const CMAC_A: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_MISC_CFG", 0x0c, PingPong, &[f("CONV_MODE", 0, 1, Rw, 0x0), f("PROC_PRECISION", 12, 2, Rw, 0x1)]),
];

/// NVDLA_CMAC_B (base 0x6000).
const CMAC_B: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_MISC_CFG", 0x0c, PingPong, &[f("CONV_MODE", 0, 1, Rw, 0x0), f("PROC_PRECISION", 12, 2, Rw, 0x1)]),
];

/// NVDLA_CACC (base 0x7000).
const CACC: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_MISC_CFG", 0x0c, PingPong, &[f("CONV_MODE", 0, 1, Rw, 0x0), f("PROC_PRECISION", 12, 2, Rw, 0x1)]),
    r("D_DATAOUT_SIZE_0", 0x10, PingPong, &[f("DATAOUT_WIDTH", 0, 13, Rw, 0x0), f("DATAOUT_HEIGHT", 16, 13, Rw, 0x0)]),
    r("D_DATAOUT_SIZE_1", 0x14, PingPong, &[f("DATAOUT_CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_DATAOUT_ADDR", 0x18, PingPong, &[f("DATAOUT_ADDR", 0, 32, Rw, 0x0)]),
    r("D_BATCH_NUMBER", 0x1c, PingPong, &[f("BATCHES", 0, 5, Rw, 0x0)]),
    r("D_LINE_STRIDE", 0x20, PingPong, &[f("LINE_STRIDE", 0, 24, Rw, 0x0)]),
    r("D_SURF_STRIDE", 0x24, PingPong, &[f("SURF_STRIDE", 0, 24, Rw, 0x0)]),
    r("D_DATAOUT_MAP", 0x28, PingPong, &[f("LINE_PACKED", 0, 1, Rw, 0x0), f("SURF_PACKED", 16, 1, Rw, 0x0)]),
    r("D_CLIP_CFG", 0x2c, PingPong, &[f("CLIP_TRUNCATE", 0, 5, Rw, 0x0)]),
    r("D_OUT_SATURATION", 0x30, PingPong, &[f("SAT_COUNT", 0, 32, R, 0x0)]),
    r("D_CYA", 0x34, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];

/// NVDLA_SDP_RDMA (base 0x8000).
const SDP_RDMA: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_DATA_CUBE_WIDTH", 0x0c, PingPong, &[f("WIDTH", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_HEIGHT", 0x10, PingPong, &[f("HEIGHT", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_CHANNEL", 0x14, PingPong, &[f("CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_LOW", 0x18, PingPong, &[f("SRC_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_HIGH", 0x1c, PingPong, &[f("SRC_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_SRC_LINE_STRIDE", 0x20, PingPong, &[f("SRC_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SRC_SURFACE_STRIDE", 0x24, PingPong, &[f("SRC_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_BRDMA_CFG", 0x28, PingPong, &[f("BRDMA_DISABLE", 0, 1, Rw, 0x1), f("BRDMA_DATA_USE", 1, 2, Rw, 0x0), f("BRDMA_DATA_SIZE", 3, 1, Rw, 0x0), f("BRDMA_DATA_MODE", 4, 1, Rw, 0x0), f("BRDMA_RAM_TYPE", 5, 1, Rw, 0x0)]),
    r("D_BS_BASE_ADDR_LOW", 0x2c, PingPong, &[f("BS_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_BS_BASE_ADDR_HIGH", 0x30, PingPong, &[f("BS_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_BS_LINE_STRIDE", 0x34, PingPong, &[f("BS_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_BS_SURFACE_STRIDE", 0x38, PingPong, &[f("BS_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_BS_BATCH_STRIDE", 0x3c, PingPong, &[f("BS_BATCH_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_NRDMA_CFG", 0x40, PingPong, &[f("NRDMA_DISABLE", 0, 1, Rw, 0x1), f("NRDMA_DATA_USE", 1, 2, Rw, 0x0), f("NRDMA_DATA_SIZE", 3, 1, Rw, 0x0), f("NRDMA_DATA_MODE", 4, 1, Rw, 0x0), f("NRDMA_RAM_TYPE", 5, 1, Rw, 0x0)]),
    r("D_BN_BASE_ADDR_LOW", 0x44, PingPong, &[f("BN_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_BN_BASE_ADDR_HIGH", 0x48, PingPong, &[f("BN_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_BN_LINE_STRIDE", 0x4c, PingPong, &[f("BN_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_BN_SURFACE_STRIDE", 0x50, PingPong, &[f("BN_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_BN_BATCH_STRIDE", 0x54, PingPong, &[f("BN_BATCH_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_ERDMA_CFG", 0x58, PingPong, &[f("ERDMA_DISABLE", 0, 1, Rw, 0x1), f("ERDMA_DATA_USE", 1, 2, Rw, 0x0), f("ERDMA_DATA_SIZE", 3, 1, Rw, 0x0), f("ERDMA_DATA_MODE", 4, 1, Rw, 0x0), f("ERDMA_RAM_TYPE", 5, 1, Rw, 0x0)]),
    r("D_EW_BASE_ADDR_LOW", 0x5c, PingPong, &[f("EW_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_EW_BASE_ADDR_HIGH", 0x60, PingPong, &[f("EW_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_EW_LINE_STRIDE", 0x64, PingPong, &[f("EW_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_EW_SURFACE_STRIDE", 0x68, PingPong, &[f("EW_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_EW_BATCH_STRIDE", 0x6c, PingPong, &[f("EW_BATCH_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_FEATURE_MODE_CFG", 0x70, PingPong, &[f("FLYING_MODE", 0, 1, Rw, 0x0), f("WINOGRAD", 1, 1, Rw, 0x0), f("IN_PRECISION", 2, 2, Rw, 0x1), f("PROC_PRECISION", 4, 2, Rw, 0x1), f("OUT_PRECISION", 6, 2, Rw, 0x0), f("BATCH_NUMBER", 8, 5, Rw, 0x0)]),
    r("D_SRC_DMA_CFG", 0x74, PingPong, &[f("SRC_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_STATUS_NAN_INPUT_NUM", 0x78, PingPong, &[f("STATUS_NAN_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_STATUS_INF_INPUT_NUM", 0x7c, PingPong, &[f("STATUS_INF_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_PERF_ENABLE", 0x80, PingPong, &[f("PERF_DMA_EN", 0, 1, Rw, 0x0), f("PERF_NAN_INF_COUNT_EN", 1, 1, Rw, 0x0)]),
    r("D_PERF_MRDMA_READ_STALL", 0x84, PingPong, &[f("MRDMA_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_BRDMA_READ_STALL", 0x88, PingPong, &[f("BRDMA_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_NRDMA_READ_STALL", 0x8c, PingPong, &[f("NRDMA_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_ERDMA_READ_STALL", 0x90, PingPong, &[f("ERDMA_STALL", 0, 32, R, 0x0)]),
];

/// NVDLA_SDP (base 0x9000).
const SDP: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("S_LUT_ACCESS_CFG", 0x08, Single, &[f("LUT_ADDR", 0, 10, Rwt, 0x0), f("LUT_TABLE_ID", 16, 1, Rw, 0x0), f("LUT_ACCESS_TYPE", 17, 1, Rw, 0x0)]),
    r("S_LUT_ACCESS_DATA", 0x0c, Single, &[f("LUT_DATA", 0, 16, Rwto, 0x0)]),
    r("S_LUT_CFG", 0x10, Single, &[f("LUT_LE_FUNCTION", 0, 1, Rw, 0x0), f("LUT_UFLOW_PRIORITY", 4, 1, Rw, 0x0), f("LUT_OFLOW_PRIORITY", 5, 1, Rw, 0x0), f("LUT_HYBRID_PRIORITY", 6, 1, Rw, 0x0)]),
    r("S_LUT_INFO", 0x14, Single, &[f("LUT_LE_INDEX_OFFSET", 0, 8, Rw, 0x0), f("LUT_LE_INDEX_SELECT", 8, 8, Rw, 0x0), f("LUT_LO_INDEX_SELECT", 16, 8, Rw, 0x0)]),
    r("S_LUT_LE_START", 0x18, Single, &[f("LUT_LE_START", 0, 32, Rw, 0x0)]),
    r("S_LUT_LE_END", 0x1c, Single, &[f("LUT_LE_END", 0, 32, Rw, 0x0)]),
    r("S_LUT_LO_START", 0x20, Single, &[f("LUT_LO_START", 0, 32, Rw, 0x0)]),
    r("S_LUT_LO_END", 0x24, Single, &[f("LUT_LO_END", 0, 32, Rw, 0x0)]),
    r("S_LUT_LE_SLOPE_SCALE", 0x28, Single, &[f("LUT_LE_SLOPE_UFLOW_SCALE", 0, 16, Rw, 0x0), f("LUT_LE_SLOPE_OFLOW_SCALE", 16, 16, Rw, 0x0)]),
    r("S_LUT_LE_SLOPE_SHIFT", 0x2c, Single, &[f("LUT_LE_SLOPE_UFLOW_SHIFT", 0, 5, Rw, 0x0), f("LUT_LE_SLOPE_OFLOW_SHIFT", 5, 5, Rw, 0x0)]),
    r("S_LUT_LO_SLOPE_SCALE", 0x30, Single, &[f("LUT_LO_SLOPE_UFLOW_SCALE", 0, 16, Rw, 0x0), f("LUT_LO_SLOPE_OFLOW_SCALE", 16, 16, Rw, 0x0)]),
    r("S_LUT_LO_SLOPE_SHIFT", 0x34, Single, &[f("LUT_LO_SLOPE_UFLOW_SHIFT", 0, 5, Rw, 0x0), f("LUT_LO_SLOPE_OFLOW_SHIFT", 5, 5, Rw, 0x0)]),
    r("D_OP_ENABLE", 0x38, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_DATA_CUBE_WIDTH", 0x3c, PingPong, &[f("WIDTH", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_HEIGHT", 0x40, PingPong, &[f("HEIGHT", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_CHANNEL", 0x44, PingPong, &[f("CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_DST_BASE_ADDR_LOW", 0x48, PingPong, &[f("DST_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_DST_BASE_ADDR_HIGH", 0x4c, PingPong, &[f("DST_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_DST_LINE_STRIDE", 0x50, PingPong, &[f("DST_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DST_SURFACE_STRIDE", 0x54, PingPong, &[f("DST_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DP_BS_CFG", 0x58, PingPong, &[f("BS_BYPASS", 0, 1, Rw, 0x1), f("BS_ALU_BYPASS", 1, 1, Rw, 0x1), f("BS_ALU_ALGO", 2, 2, Rw, 0x0), f("BS_MUL_BYPASS", 4, 1, Rw, 0x1), f("BS_MUL_PRELU", 5, 1, Rw, 0x1), f("BS_RELU_BYPASS", 6, 1, Rw, 0x1)]),
    r("D_DP_BS_ALU_CFG", 0x5c, PingPong, &[f("BS_ALU_SRC", 0, 1, Rw, 0x0), f("BS_ALU_SHIFT_VALUE", 8, 6, Rw, 0x0)]),
    r("D_DP_BS_ALU_SRC_VALUE", 0x60, PingPong, &[f("BS_ALU_OPERAND", 0, 16, Rw, 0x0)]),
    r("D_DP_BS_MUL_CFG", 0x64, PingPong, &[f("BS_MUL_SRC", 0, 1, Rw, 0x0), f("BS_MUL_SHIFT_VALUE", 8, 8, Rw, 0x0)]),
    r("D_DP_BS_MUL_SRC_VALUE", 0x68, PingPong, &[f("BS_MUL_OPERAND", 0, 16, Rw, 0x0)]),
    r("D_DP_BN_CFG", 0x6c, PingPong, &[f("BN_BYPASS", 0, 1, Rw, 0x1), f("BN_ALU_BYPASS", 1, 1, Rw, 0x1), f("BN_ALU_ALGO", 2, 2, Rw, 0x0), f("BN_MUL_BYPASS", 4, 1, Rw, 0x1), f("BN_MUL_PRELU", 5, 1, Rw, 0x0), f("BN_RELU_BYPASS", 6, 1, Rw, 0x1)]),
    r("D_DP_BN_ALU_CFG", 0x70, PingPong, &[f("BN_ALU_SRC", 0, 1, Rw, 0x0), f("BN_ALU_SHIFT_VALUE", 8, 6, Rw, 0x0)]),
    r("D_DP_BN_ALU_SRC_VALUE", 0x74, PingPong, &[f("BN_ALU_OPERAND", 0, 16, Rw, 0x0)]),
    r("D_DP_BN_MUL_CFG", 0x78, PingPong, &[f("BN_MUL_SRC", 0, 1, Rw, 0x0), f("BN_MUL_SHIFT_VALUE", 8, 8, Rw, 0x0)]),
    r("D_DP_BN_MUL_SRC_VALUE", 0x7c, PingPong, &[f("BN_MUL_OPERAND", 0, 16, Rw, 0x0)]),
    r("D_DP_EW_CFG", 0x80, PingPong, &[f("EW_BYPASS", 0, 1, Rw, 0x1), f("EW_ALU_BYPASS", 1, 1, Rw, 0x1), f("EW_ALU_ALGO", 2, 2, Rw, 0x0), f("EW_MUL_BYPASS", 4, 1, Rw, 0x1), f("EW_MUL_PRELU", 5, 1, Rw, 0x0), f("EW_LUT_BYPASS", 6, 1, Rw, 0x1)]),
    r("D_DP_EW_ALU_CFG", 0x84, PingPong, &[f("EW_ALU_SRC", 0, 1, Rw, 0x0), f("EW_ALU_CVT_BYPASS", 1, 1, Rw, 0x1)]),
    r("D_DP_EW_ALU_SRC_VALUE", 0x88, PingPong, &[f("EW_ALU_OPERAND", 0, 32, Rw, 0x0)]),
    r("D_DP_EW_ALU_CVT_OFFSET_VALUE", 0x8c, PingPong, &[f("EW_ALU_CVT_OFFSET", 0, 32, Rw, 0x0)]),
    r("D_DP_EW_ALU_CVT_SCALE_VALUE", 0x90, PingPong, &[f("EW_ALU_CVT_SCALE", 0, 16, Rw, 0x0)]),
    r("D_DP_EW_ALU_CVT_TRUNCATE_VALUE", 0x94, PingPong, &[f("EW_ALU_CVT_TRUNCATE", 0, 6, Rw, 0x0)]),
    r("D_DP_EW_MUL_CFG", 0x98, PingPong, &[f("EW_MUL_SRC", 0, 1, Rw, 0x0), f("EW_MUL_CVT_BYPASS", 1, 1, Rw, 0x1)]),
    r("D_DP_EW_MUL_SRC_VALUE", 0x9c, PingPong, &[f("EW_MUL_OPERAND", 0, 32, Rw, 0x0)]),
    r("D_DP_EW_MUL_CVT_OFFSET_VALUE", 0xa0, PingPong, &[f("EW_MUL_CVT_OFFSET", 0, 32, Rw, 0x0)]),
    r("D_DP_EW_MUL_CVT_SCALE_VALUE", 0xa4, PingPong, &[f("EW_MUL_CVT_SCALE", 0, 16, Rw, 0x0)]),
    r("D_DP_EW_MUL_CVT_TRUNCATE_VALUE", 0xa8, PingPong, &[f("EW_MUL_CVT_TRUNCATE", 0, 6, Rw, 0x0)]),
    r("D_DP_EW_TRUNCATE_VALUE", 0xac, PingPong, &[f("EW_TRUNCATE", 0, 10, Rw, 0x0)]),
    r("D_FEATURE_MODE_CFG", 0xb0, PingPong, &[f("FLYING_MODE", 0, 1, Rw, 0x0), f("OUTPUT_DST", 1, 1, Rw, 0x0), f("WINOGRAD", 2, 1, Rw, 0x0), f("NAN_TO_ZERO", 3, 1, Rw, 0x0), f("BATCH_NUMBER", 8, 5, Rw, 0x0)]),
    r("D_DST_DMA_CFG", 0xb4, PingPong, &[f("DST_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_DST_BATCH_STRIDE", 0xb8, PingPong, &[f("DST_BATCH_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DATA_FORMAT", 0xbc, PingPong, &[f("PROC_PRECISION", 0, 2, Rw, 0x0), f("OUT_PRECISION", 2, 2, Rw, 0x0)]),
    r("D_CVT_OFFSET", 0xc0, PingPong, &[f("CVT_OFFSET", 0, 32, Rw, 0x0)]),
    r("D_CVT_SCALE", 0xc4, PingPong, &[f("CVT_SCALE", 0, 16, Rw, 0x0)]),
    r("D_CVT_SHIFT", 0xc8, PingPong, &[f("CVT_SHIFT", 0, 6, Rw, 0x0)]),
    r("D_STATUS", 0xcc, PingPong, &[f("STATUS_UNEQUAL", 0, 1, R, 0x0)]),
    r("D_STATUS_NAN_INPUT_NUM", 0xd0, PingPong, &[f("STATUS_NAN_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_STATUS_INF_INPUT_NUM", 0xd4, PingPong, &[f("STATUS_INF_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_STATUS_NAN_OUTPUT_NUM", 0xd8, PingPong, &[f("STATUS_NAN_OUTPUT_NUM", 0, 32, R, 0x0)]),
    r("D_PERF_ENABLE", 0xdc, PingPong, &[f("PERF_DMA_EN", 0, 1, Rw, 0x0), f("PERF_LUT_EN", 1, 1, Rw, 0x0), f("PERF_SAT_EN", 2, 1, Rw, 0x0), f("PERF_NAN_INF_COUNT_EN", 3, 1, Rw, 0x0)]),
    r("D_PERF_WDMA_WRITE_STALL", 0xe0, PingPong, &[f("WDMA_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_UFLOW", 0xe4, PingPong, &[f("LUT_UFLOW", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_OFLOW", 0xe8, PingPong, &[f("LUT_OFLOW", 0, 32, R, 0x0)]),
    r("D_PERF_OUT_SATURATION", 0xec, PingPong, &[f("OUT_SATURATION", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_HYBRID", 0xf0, PingPong, &[f("LUT_HYBRID", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_LE_HIT", 0xf4, PingPong, &[f("LUT_LE_HIT", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_LO_HIT", 0xf8, PingPong, &[f("LUT_LO_HIT", 0, 32, R, 0x0)]),
];


/// NVDLA_PDP_RDMA (base 0xa000).
const PDP_RDMA: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_DATA_CUBE_IN_WIDTH", 0x0c, PingPong, &[f("CUBE_IN_WIDTH", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_IN_HEIGHT", 0x10, PingPong, &[f("CUBE_IN_HEIGHT", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_IN_CHANNEL", 0x14, PingPong, &[f("CUBE_IN_CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_FLYING_MODE", 0x18, PingPong, &[f("FLYING_MODE", 0, 1, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_LOW", 0x1c, PingPong, &[f("SRC_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_HIGH", 0x20, PingPong, &[f("SRC_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_SRC_LINE_STRIDE", 0x24, PingPong, &[f("SRC_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SRC_SURFACE_STRIDE", 0x28, PingPong, &[f("SRC_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SRC_RAM_CFG", 0x2c, PingPong, &[f("SRC_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_DATA_FORMAT", 0x30, PingPong, &[f("INPUT_DATA", 0, 2, Rw, 0x0)]),
    r("D_OPERATION_MODE_CFG", 0x34, PingPong, &[f("SPLIT_NUM", 0, 8, Rw, 0x0)]),
    r("D_POOLING_KERNEL_CFG", 0x38, PingPong, &[f("KERNEL_WIDTH", 0, 4, Rw, 0x0), f("KERNEL_STRIDE_WIDTH", 4, 4, Rw, 0x0)]),
    r("D_POOLING_PADDING_CFG", 0x3c, PingPong, &[f("PAD_WIDTH", 0, 4, Rw, 0x0)]),
    r("D_PARTIAL_WIDTH_IN", 0x40, PingPong, &[f("PARTIAL_WIDTH_IN_FIRST", 0, 10, Rw, 0x0), f("PARTIAL_WIDTH_IN_LAST", 10, 10, Rw, 0x0), f("PARTIAL_WIDTH_IN_MID", 20, 10, Rw, 0x0)]),
    r("D_PERF_ENABLE", 0x44, PingPong, &[f("DMA_EN", 0, 1, Rw, 0x0)]),
    r("D_PERF_READ_STALL", 0x48, PingPong, &[f("PERF_READ_STALL", 0, 32, R, 0x0)]),
    r("D_CYA", 0x4c, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];

/// NVDLA_PDP (base 0xb000).
const PDP: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_DATA_CUBE_IN_WIDTH", 0x0c, PingPong, &[f("CUBE_IN_WIDTH", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_IN_HEIGHT", 0x10, PingPong, &[f("CUBE_IN_HEIGHT", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_IN_CHANNEL", 0x14, PingPong, &[f("CUBE_IN_CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_OUT_WIDTH", 0x18, PingPong, &[f("CUBE_OUT_WIDTH", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_OUT_HEIGHT", 0x1c, PingPong, &[f("CUBE_OUT_HEIGHT", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_OUT_CHANNEL", 0x20, PingPong, &[f("CUBE_OUT_CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_OPERATION_MODE_CFG", 0x24, PingPong, &[f("POOLING_METHOD", 0, 2, Rw, 0x0), f("FLYING_MODE", 4, 1, Rw, 0x0), f("SPLIT_NUM", 8, 8, Rw, 0x0)]),
    r("D_NAN_FLUSH_TO_ZERO", 0x28, PingPong, &[f("NAN_TO_ZERO", 0, 1, Rw, 0x0)]),
    r("D_PARTIAL_WIDTH_IN", 0x2c, PingPong, &[f("PARTIAL_WIDTH_IN_FIRST", 0, 10, Rw, 0x0), f("PARTIAL_WIDTH_IN_LAST", 10, 10, Rw, 0x0), f("PARTIAL_WIDTH_IN_MID", 20, 10, Rw, 0x0)]),
    r("D_PARTIAL_WIDTH_OUT", 0x30, PingPong, &[f("PARTIAL_WIDTH_OUT_FIRST", 0, 10, Rw, 0x0), f("PARTIAL_WIDTH_OUT_LAST", 10, 10, Rw, 0x0), f("PARTIAL_WIDTH_OUT_MID", 20, 10, Rw, 0x0)]),
    r("D_POOLING_KERNEL_CFG", 0x34, PingPong, &[f("KERNEL_WIDTH", 0, 4, Rw, 0x0), f("KERNEL_HEIGHT", 8, 4, Rw, 0x0), f("KERNEL_STRIDE_WIDTH", 16, 4, Rw, 0x0), f("KERNEL_STRIDE_HEIGHT", 20, 4, Rw, 0x0)]),
    r("D_RECIP_KERNEL_WIDTH", 0x38, PingPong, &[f("RECIP_KERNEL_WIDTH", 0, 17, Rw, 0x0)]),
    r("D_RECIP_KERNEL_HEIGHT", 0x3c, PingPong, &[f("RECIP_KERNEL_HEIGHT", 0, 17, Rw, 0x0)]),
    r("D_POOLING_PADDING_CFG", 0x40, PingPong, &[f("PAD_LEFT", 0, 3, Rw, 0x0), f("PAD_TOP", 4, 3, Rw, 0x0), f("PAD_RIGHT", 8, 3, Rw, 0x0), f("PAD_BOTTOM", 12, 3, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_1_CFG", 0x44, PingPong, &[f("PAD_VALUE_1X", 0, 19, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_2_CFG", 0x48, PingPong, &[f("PAD_VALUE_2X", 0, 19, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_3_CFG", 0x4c, PingPong, &[f("PAD_VALUE_3X", 0, 19, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_4_CFG", 0x50, PingPong, &[f("PAD_VALUE_4X", 0, 19, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_5_CFG", 0x54, PingPong, &[f("PAD_VALUE_5X", 0, 19, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_6_CFG", 0x58, PingPong, &[f("PAD_VALUE_6X", 0, 19, Rw, 0x0)]),
    r("D_POOLING_PADDING_VALUE_7_CFG", 0x5c, PingPong, &[f("PAD_VALUE_7X", 0, 19, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_LOW", 0x60, PingPong, &[f("SRC_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_HIGH", 0x64, PingPong, &[f("SRC_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_SRC_LINE_STRIDE", 0x68, PingPong, &[f("SRC_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SRC_SURFACE_STRIDE", 0x6c, PingPong, &[f("SRC_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DST_BASE_ADDR_LOW", 0x70, PingPong, &[f("DST_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_DST_BASE_ADDR_HIGH", 0x74, PingPong, &[f("DST_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_DST_LINE_STRIDE", 0x78, PingPong, &[f("DST_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DST_SURFACE_STRIDE", 0x7c, PingPong, &[f("DST_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DST_RAM_CFG", 0x80, PingPong, &[f("DST_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_DATA_FORMAT", 0x84, PingPong, &[f("INPUT_DATA", 0, 2, Rw, 0x0)]),
    r("D_INF_INPUT_NUM", 0x88, PingPong, &[f("INF_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_NAN_INPUT_NUM", 0x8c, PingPong, &[f("NAN_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_NAN_OUTPUT_NUM", 0x90, PingPong, &[f("NAN_OUTPUT_NUM", 0, 32, R, 0x0)]),
    r("D_PERF_ENABLE", 0x94, PingPong, &[f("DMA_EN", 0, 1, Rw, 0x0)]),
    r("D_PERF_WRITE_STALL", 0x98, PingPong, &[f("PERF_WRITE_STALL", 0, 32, R, 0x0)]),
    r("D_CYA", 0x9c, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];

/// NVDLA_CDP_RDMA (base 0xc000).
const CDP_RDMA: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("D_OP_ENABLE", 0x08, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_DATA_CUBE_WIDTH", 0x0c, PingPong, &[f("WIDTH", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_HEIGHT", 0x10, PingPong, &[f("HEIGHT", 0, 13, Rw, 0x0)]),
    r("D_DATA_CUBE_CHANNEL", 0x14, PingPong, &[f("CHANNEL", 0, 13, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_LOW", 0x18, PingPong, &[f("SRC_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_SRC_BASE_ADDR_HIGH", 0x1c, PingPong, &[f("SRC_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_SRC_LINE_STRIDE", 0x20, PingPong, &[f("SRC_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SRC_SURFACE_STRIDE", 0x24, PingPong, &[f("SRC_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_SRC_DMA_CFG", 0x28, PingPong, &[f("SRC_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_SRC_COMPRESSION_EN", 0x2c, PingPong, &[f("SRC_COMPRESSION_EN", 0, 1, C, 0x0)]),
    r("D_OPERATION_MODE", 0x30, PingPong, &[f("OPERATION_MODE", 0, 2, C, 0x0)]),
    r("D_DATA_FORMAT", 0x34, PingPong, &[f("INPUT_DATA", 0, 2, Rw, 0x0)]),
    r("D_PERF_ENABLE", 0x38, PingPong, &[f("DMA_EN", 0, 1, Rw, 0x0)]),
    r("D_PERF_READ_STALL", 0x3c, PingPong, &[f("PERF_READ_STALL", 0, 32, R, 0x0)]),
    r("D_CYA", 0x40, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];

/// NVDLA_CDP (base 0xd000).
const CDP: &[Register] = &[
    r("S_STATUS", 0x00, Single, &[f("STATUS_0", 0, 2, R, 0x0), f("STATUS_1", 16, 2, R, 0x0)]),
    r("S_POINTER", 0x04, Single, &[f("PRODUCER", 0, 1, Rw, 0x0), f("CONSUMER", 16, 1, R, 0x0)]),
    r("S_LUT_ACCESS_CFG", 0x08, Single, &[f("LUT_ADDR", 0, 10, Rwto, 0x0), f("LUT_TABLE_ID", 16, 1, Rw, 0x0), f("LUT_ACCESS_TYPE", 17, 1, Rw, 0x0)]),
    r("S_LUT_ACCESS_DATA", 0x0c, Single, &[f("LUT_DATA", 0, 16, Rwto, 0x0)]),
    r("S_LUT_CFG", 0x10, Single, &[f("LUT_LE_FUNCTION", 0, 1, Rw, 0x0), f("LUT_UFLOW_PRIORITY", 4, 1, Rw, 0x0), f("LUT_OFLOW_PRIORITY", 5, 1, Rw, 0x0), f("LUT_HYBRID_PRIORITY", 6, 1, Rw, 0x0)]),
    r("S_LUT_INFO", 0x14, Single, &[f("LUT_LE_INDEX_OFFSET", 0, 8, Rw, 0x0), f("LUT_LE_INDEX_SELECT", 8, 8, Rw, 0x0), f("LUT_LO_INDEX_SELECT", 16, 8, Rw, 0x0)]),
    r("S_LUT_LE_START_LOW", 0x18, Single, &[f("LUT_LE_START_LOW", 0, 32, Rw, 0x0)]),
    r("S_LUT_LE_START_HIGH", 0x1c, Single, &[f("LUT_LE_START_HIGH", 0, 6, Rw, 0x0)]),
    r("S_LUT_LE_END_LOW", 0x20, Single, &[f("LUT_LE_END_LOW", 0, 32, Rw, 0x0)]),
    r("S_LUT_LE_END_HIGH", 0x24, Single, &[f("LUT_LE_END_HIGH", 0, 6, Rw, 0x0)]),
    r("S_LUT_LO_START_LOW", 0x28, Single, &[f("LUT_LO_START_LOW", 0, 32, Rw, 0x0)]),
    r("S_LUT_LO_START_HIGH", 0x2c, Single, &[f("LUT_LO_START_HIGH", 0, 6, Rw, 0x0)]),
    r("S_LUT_LO_END_LOW", 0x30, Single, &[f("LUT_LO_END_LOW", 0, 32, Rw, 0x0)]),
    r("S_LUT_LO_END_HIGH", 0x34, Single, &[f("LUT_LO_END_HIGH", 0, 6, Rw, 0x0)]),
    r("S_LUT_LE_SLOPE_SCALE", 0x38, Single, &[f("LUT_LE_SLOPE_UFLOW_SCALE", 0, 16, Rw, 0x0), f("LUT_LE_SLOPE_OFLOW_SCALE", 16, 16, Rw, 0x0)]),
    r("S_LUT_LE_SLOPE_SHIFT", 0x3c, Single, &[f("LUT_LE_SLOPE_UFLOW_SHIFT", 0, 5, Rw, 0x0), f("LUT_LE_SLOPE_OFLOW_SHIFT", 5, 5, Rw, 0x0)]),
    r("S_LUT_LO_SLOPE_SCALE", 0x40, Single, &[f("LUT_LO_SLOPE_UFLOW_SCALE", 0, 16, Rw, 0x0), f("LUT_LO_SLOPE_OFLOW_SCALE", 16, 16, Rw, 0x0)]),
    r("S_LUT_LO_SLOPE_SHIFT", 0x44, Single, &[f("LUT_LO_SLOPE_UFLOW_SHIFT", 0, 5, Rw, 0x0), f("LUT_LO_SLOPE_OFLOW_SHIFT", 5, 5, Rw, 0x0)]),
    r("D_OP_ENABLE", 0x48, PingPong, &[f("OP_EN", 0, 1, Rwto, 0x0)]),
    r("D_FUNC_BYPASS", 0x4c, PingPong, &[f("SQSUM_BYPASS", 0, 1, Rw, 0x0), f("MUL_BYPASS", 1, 1, Rw, 0x0)]),
    r("D_DST_BASE_ADDR_LOW", 0x50, PingPong, &[f("DST_BASE_ADDR_LOW", 0, 32, Rw, 0x0)]),
    r("D_DST_BASE_ADDR_HIGH", 0x54, PingPong, &[f("DST_BASE_ADDR_HIGH", 0, 32, Rw, 0x0)]),
    r("D_DST_LINE_STRIDE", 0x58, PingPong, &[f("DST_LINE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DST_SURFACE_STRIDE", 0x5c, PingPong, &[f("DST_SURFACE_STRIDE", 0, 32, Rw, 0x0)]),
    r("D_DST_DMA_CFG", 0x60, PingPong, &[f("DST_RAM_TYPE", 0, 1, Rw, 0x0)]),
    r("D_DST_COMPRESSION_EN", 0x64, PingPong, &[f("DST_COMPRESSION_EN", 0, 1, C, 0x0)]),
    r("D_DATA_FORMAT", 0x68, PingPong, &[f("INPUT_DATA_TYPE", 0, 2, Rw, 0x1)]),
    r("D_NAN_FLUSH_TO_ZERO", 0x6c, PingPong, &[f("NAN_TO_ZERO", 0, 1, Rw, 0x0)]),
    r("D_LRN_CFG", 0x70, PingPong, &[f("NORMALZ_LEN", 0, 2, Rw, 0x0)]),
    r("D_DATIN_OFFSET", 0x74, PingPong, &[f("DATIN_OFFSET", 0, 16, Rw, 0x0)]),
    r("D_DATIN_SCALE", 0x78, PingPong, &[f("DATIN_SCALE", 0, 16, Rw, 0x1)]),
    r("D_DATIN_SHIFTER", 0x7c, PingPong, &[f("DATIN_SHIFTER", 0, 5, Rw, 0x0)]),
    r("D_DATOUT_OFFSET", 0x80, PingPong, &[f("DATOUT_OFFSET", 0, 32, Rw, 0x0)]),
    r("D_DATOUT_SCALE", 0x84, PingPong, &[f("DATOUT_SCALE", 0, 16, Rw, 0x1)]),
    r("D_DATOUT_SHIFTER", 0x88, PingPong, &[f("DATOUT_SHIFTER", 0, 6, Rw, 0x0)]),
    r("D_NAN_INPUT_NUM", 0x8c, PingPong, &[f("NAN_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_INF_INPUT_NUM", 0x90, PingPong, &[f("INF_INPUT_NUM", 0, 32, R, 0x0)]),
    r("D_NAN_OUTPUT_NUM", 0x94, PingPong, &[f("NAN_OUTPUT_NUM", 0, 32, R, 0x0)]),
    r("D_OUT_SATURATION", 0x98, PingPong, &[f("OUT_SATURATION", 0, 32, R, 0x0)]),
    r("D_PERF_ENABLE", 0x9c, PingPong, &[f("DMA_EN", 0, 1, Rw, 0x0), f("LUT_EN", 1, 1, Rw, 0x0)]),
    r("D_PERF_WRITE_STALL", 0xa0, PingPong, &[f("PERF_WRITE_STALL", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_UFLOW", 0xa4, PingPong, &[f("PERF_LUT_UFLOW", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_OFLOW", 0xa8, PingPong, &[f("PERF_LUT_OFLOW", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_HYBRID", 0xac, PingPong, &[f("PERF_LUT_HYBRID", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_LE_HIT", 0xb0, PingPong, &[f("PERF_LUT_LE_HIT", 0, 32, R, 0x0)]),
    r("D_PERF_LUT_LO_HIT", 0xb4, PingPong, &[f("PERF_LUT_LO_HIT", 0, 32, R, 0x0)]),
    r("D_CYA", 0xb8, PingPong, &[f("CYA", 0, 32, Rw, 0x0)]),
];
