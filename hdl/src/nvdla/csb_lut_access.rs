//! A LUT access port behind the CSB ([`super::csb::Csb`]), CDP's or SDP's ([`LUT_UNITS`]`[L]`;
//! RDL NVDLA_CDP and NVDLA_SDP S_LUT_ACCESS_CFG and S_LUT_ACCESS_DATA, seeds/001
//! "Configuration space bus"): the S_LUT_ACCESS_CFG register, its step after each data access,
//! and the port to the unit's LUT (the table and entry the register points at, the write
//! strobe and data, the entry read back). Model: `npu_model::nvdla::csb` (the whole CSB; the
//! split is the RTL's alone); the decisions are at [`CDP_LUT_ENTRIES`].
//!
//! Timing as the CSB's: a CSB access in cycle `t` (`csb_valid`, `csb_write`, `wr`,
//! `csb_addr`, `csb_wdat`) writes S_LUT_ACCESS_CFG or steps its LUT_ADDR at the end of `t`;
//! `lut_we` is high in `t` for a data write (the LUT stores at the end of `t`); `read_value`
//! (0 for an address that is not the port's), `lut_table`, `lut_addr` and `lut_wdata` are
//! combinational.
use super::csb_unit::{hex32, ident, stored_register};
use super::regmap::{self, Access};
use rust_hdl::prelude::*;

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

/// The LUT access fields of `unit`'s S_LUT_ACCESS_CFG (a [`LUT_UNITS`] unit): entry, table,
/// type.
pub fn lut_fields(unit: &str) -> [&'static regmap::Field; 3] {
    ["LUT_ADDR", "LUT_TABLE_ID", "LUT_ACCESS_TYPE"].map(|f| regmap::field(unit, "S_LUT_ACCESS_CFG", f))
}

/// A [`LUT_UNITS`] unit's S_LUT_ACCESS_DATA is no register: its reads and writes reach the
/// LUTs.
pub fn is_lut_data(unit: &str, register: &str) -> bool {
    LUT_UNITS.contains(&unit) && register == "S_LUT_ACCESS_DATA"
}

/// The register is one of a [`LUT_UNITS`] unit's access port (S_LUT_ACCESS_CFG or
/// S_LUT_ACCESS_DATA): a [`CsbLutAccess`]'s, not the CSB's.
pub fn is_lut_access(unit: &str, register: &str) -> bool {
    LUT_UNITS.contains(&unit) && (register == "S_LUT_ACCESS_CFG" || register == "S_LUT_ACCESS_DATA")
}

#[derive(LogicBlock, Default)]
pub struct CsbLutAccess<const L: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The CSB's request in this cycle, and `wr` (valid and write).
    pub csb_valid: Signal<In, Bit>,
    pub csb_write: Signal<In, Bit>,
    pub wr: Signal<In, Bit>,
    pub csb_addr: Signal<In, Bits<16>>,
    pub csb_wdat: Signal<In, Bits<32>>,
    /// The LUT: the table and entry S_LUT_ACCESS_CFG points at (read address, and write
    /// address with `lut_we`), the data written, and the entry's value back.
    pub lut_we: Signal<Out, Bit>,
    pub lut_table: Signal<Out, Bit>,
    pub lut_addr: Signal<Out, Bits<10>>,
    pub lut_wdata: Signal<Out, Bits<16>>,
    pub lut_rdata: Signal<In, Bits<16>>,
    /// S_LUT_ACCESS_CFG or S_LUT_ACCESS_DATA at `csb_addr`, masked to its readable bits; 0
    /// for any other address.
    pub read_value: Signal<Out, Bits<32>>,
}

/// The port's Verilog, from the register map table.
fn verilog(unit: &str) -> String {
    let u = regmap::unit(unit).expect("unit");
    let [entry, table, kind] = lut_fields(unit);
    let (data_unit, data) = regmap::register(unit, "S_LUT_ACCESS_DATA");
    let data_addr = data_unit.csb_address(data);
    let cfg_register = u.register("S_LUT_ACCESS_CFG").expect("S_LUT_ACCESS_CFG");
    let cfg = ident(unit, "S_LUT_ACCESS_CFG");
    let (decl, reset, write) = stored_register(u, cfg_register, "1'b0", ["1'b0", "1'b0"]);
    let msb = entry.lsb + entry.width - 1;
    let lsb = entry.lsb;
    // A data access of the type S_LUT_ACCESS_CFG holds steps LUT_ADDR, up to the table's end.
    let step = format!(
        "        if (csb_valid && csb_addr == 16'h{data_addr:04x} && csb_write == {cfg}[{}] && {cfg}[{msb}:{lsb}] < ({cfg}[{}] ? 10'd{} : 10'd{}))\n            \
         {cfg}[{msb}:{lsb}] <= {cfg}[{msb}:{lsb}] + 10'd1;\n",
        kind.lsb,
        table.lsb,
        CDP_LUT_ENTRIES[1] - 1,
        CDP_LUT_ENTRIES[0] - 1,
    );
    format!(
        "{decl}\
         always @(*) begin\n    case (csb_addr)\n\
         \x20           16'h{:04x}: read_value = {cfg} & {};\n\
         \x20           16'h{data_addr:04x}: read_value = ({cfg}[{}] ? 32'h0 : {{16'h0, lut_rdata}}) & {};\n\
         \x20           default: read_value = 32'h0;\n    endcase\nend\n\
         always @(*) lut_table = {cfg}[{}];\n\
         always @(*) lut_addr = {cfg}[{msb}:{lsb}];\n\
         always @(*) lut_we = wr && csb_addr == 16'h{data_addr:04x} && {cfg}[{}];\n\
         always @(*) lut_wdata = csb_wdat[15:0];\n\
         always @(posedge clock) begin\n    if (reset) begin\n{reset}    end else begin\n{write}{step}    end\nend",
        u.csb_address(cfg_register),
        hex32(cfg_register.mask_where(Access::readable)),
        kind.lsb,
        hex32(data.mask_where(Access::readable)),
        table.lsb,
        kind.lsb,
    )
}

impl<const L: usize> Logic for CsbLutAccess<L> {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// generated Verilog's, and the CSB model's.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.lut_we.connect();
        self.lut_table.connect();
        self.lut_addr.connect();
        self.lut_wdata.connect();
        self.read_value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog(LUT_UNITS[L]))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    // CDP's (LUT_UNITS[0]); SDP's differs only in its addresses.
    crate::synth_check::assert_synthesizes(CsbLutAccess::<0>::default, "nvdla_csb_lut_access");
}
