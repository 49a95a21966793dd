//! One unit's plain registers behind the CSB ([`super::csb::Csb`]): the registers of
//! [`GROUPED`]`[U]` a CSB write stores and nothing else changes (all but D_OP_ENABLE, which
//! the engine's done clears, and S_LUT_ACCESS_CFG, which a LUT access steps; CDP's counters
//! are the CSB's too), both groups of a ping-pong one. It takes the CSB's writes, reads the
//! producer group at the CSB's address, and gives the consumer group's fields the engine runs
//! on. Model: `npu_model::nvdla::csb` (the whole CSB; the split is the RTL's alone).
//!
//! Why a block of its own: the CSB's register file in one module is 534 flip-flops whose
//! write and reset multiplexers yosys holds as about 106,000 wire bits (6.2 MB of `splitnets`
//! text, 285 MB of Verilated C++), too big for the mutation runner's per-module swap
//! (docs/nvdla.md "Mutation score"); one unit's registers are a tenth of that or less.
//!
//! Timing as the CSB's: a write in cycle `t` (`wr`, `csb_addr`, `csb_wdat`) stores at the end
//! of `t`, into the producer group unless that group's D_OP_ENABLE (`enabled`) is set;
//! `read_value` is combinational (0 for an address none of these registers has), `fields`
//! too.
use super::csb_config::{config_entries, config_width};
use super::csb_engines::GROUPED;
use super::csb_lut_access::{is_lut_data, LUT_UNITS};
use super::regmap::{self, Access, Group, Unit};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CsbUnit<const U: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A CSB write is taken in this cycle, at `csb_addr`, of `csb_wdat`.
    pub wr: Signal<In, Bit>,
    pub csb_addr: Signal<In, Bits<16>>,
    pub csb_wdat: Signal<In, Bits<32>>,
    /// S_POINTER's PRODUCER and CONSUMER; D_OP_ENABLE of group 1 and 0 (bits 1, 0).
    pub producer: Signal<In, Bit>,
    pub consumer: Signal<In, Bit>,
    pub enabled: Signal<In, Bits<2>>,
    /// The register at `csb_addr`, its producer group's, masked to its readable bits; 0 when
    /// none of these registers is there.
    pub read_value: Signal<Out, Bits<32>>,
    /// The consumer group's fields of the unit's [`super::csb_config::CONFIG`] entries, the first
    /// entry in the low bits ([`config_entries`] gives each one's place and width).
    pub fields: Signal<Out, Bits<C>>,
}

// The register file's Verilog pieces, the CSB's and its sub-blocks' (the registers' names,
// which registers are stored, a stored register's declaration, reset and write).

pub(super) fn ident(unit: &str, register: &str) -> String {
    format!("{}_{}", unit.to_lowercase(), register.to_lowercase())
}

pub(super) fn hex32(v: u32) -> String {
    format!("32'h{v:08x}")
}

/// Registers with bits a CSB write stores (the rest read constants or status).
pub(super) fn stored(unit: &Unit) -> impl Iterator<Item = &'static regmap::Register> + '_ {
    unit.registers.iter().filter(move |r| unit.name != "GLB" && r.name != "S_POINTER" && !is_lut_data(unit.name, r.name) && r.mask_where(Access::stores) != 0)
}

/// A stored register nothing but a CSB write changes: not D_OP_ENABLE (the engine's done
/// clears it), not a LUT unit's S_LUT_ACCESS_CFG (a LUT access steps it).
pub(super) fn is_plain(unit: &str, register: &regmap::Register) -> bool {
    register.name != "D_OP_ENABLE" && !(LUT_UNITS.contains(&unit) && register.name == "S_LUT_ACCESS_CFG")
}

/// The unit's plain stored registers: a [`CsbUnit`]'s.
pub(super) fn plain_registers(unit: &Unit) -> impl Iterator<Item = &'static regmap::Register> + '_ {
    stored(unit).filter(move |r| is_plain(unit.name, r))
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

/// The unit's Verilog, from the register map table.
fn verilog(unit: &str) -> String {
    let u = regmap::unit(unit).expect("unit");
    let (mut decl, mut reset, mut write, mut read) = (String::new(), String::new(), String::new(), String::new());
    for r in plain_registers(u) {
        let (d, rs, w) = stored_register(u, r, "producer", ["enabled[0]", "enabled[1]"]);
        decl += &d;
        reset += &rs;
        write += &w;
        let id = ident(unit, r.name);
        let value = match r.group {
            Group::Single => id,
            Group::PingPong => format!("(producer ? {id}_g1 : {id}_g0)"),
        };
        read += &format!("            16'h{:04x}: read_value = {value} & {};\n", u.csb_address(r), hex32(r.mask_where(Access::readable)));
    }
    // Bits `msb..=lsb` of a register, the consumer group's of a ping-pong one.
    let bits = |register: &str, msb: u32, lsb: u32| {
        let id = ident(unit, register);
        match regmap::register(unit, register).1.group {
            Group::Single => format!("{id}[{msb}:{lsb}]"),
            Group::PingPong => format!("(consumer ? {id}_g1[{msb}:{lsb}] : {id}_g0[{msb}:{lsb}])"),
        }
    };
    let mut fields: Vec<String> = config_entries(unit)
        .map(|(&(_, width, _, low, lsb, high), _, raw)| match high {
            Some(h) => format!("{}, {}", bits(h, width - 33, 0), bits(low, 31, 0)),
            None => bits(low, lsb + raw - 1, lsb),
        })
        .collect();
    fields.reverse();
    format!(
        "{decl}\
         always @(*) begin\n    case (csb_addr)\n{read}            default: read_value = 32'h0;\n    endcase\nend\n\
         always @(*) fields = {{{}}};\n\
         always @(posedge clock) begin\n    if (reset) begin\n{reset}    end else begin\n{write}    end\nend",
        fields.join(", "),
    )
}

impl<const U: usize, const C: usize> Logic for CsbUnit<U, C> {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// generated Verilog's, and the CSB model's.
    fn update(&mut self) {}
    fn connect(&mut self) {
        assert_eq!(C, config_width(GROUPED[U]), "CsbUnit's config width for {}", GROUPED[U]);
        self.read_value.connect();
        self.fields.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog(GROUPED[U]))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    // SDP's (GROUPED[6]): single and ping-pong registers, 64-bit fields of two registers.
    crate::synth_check::assert_synthesizes(CsbUnit::<6, { config_width(GROUPED[6]) }>::default, "nvdla_csb_unit");
}
