//! GLB's interrupt registers behind the CSB ([`super::csb::Csb`]; seeds/001 "Host
//! interrupt"): S_INTR_MASK, S_INTR_SET and S_INTR_STATUS, the engines' done status bits and
//! `irq`. Model: `npu_model::nvdla::csb` (the whole CSB; the split is the RTL's alone).
//!
//! Timing as the CSB's: a write in cycle `t` (`wr`, `csb_addr`, `csb_wdat`) takes effect at
//! the end of `t`. S_INTR_STATUS bits clear when written with 1, S_INTR_SET bits set them,
//! and a done source's bit (`done[i]`, in the group `consumer[i]` names) is set at the end of
//! the cycle it is high, winning over a write clearing it in the same cycle. `irq` is
//! `|(status & ~mask)` (pending when set and not masked). `read_value` is combinational: the
//! GLB register at `csb_addr`, masked to its readable bits, 0 for any other address.
use super::csb_engines::{done_sources, DONE_SOURCES};
use super::csb_unit::hex32;
use super::regmap::{self, Access};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CsbGlb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A CSB write is taken in this cycle, at `csb_addr`, of `csb_wdat`.
    pub wr: Signal<In, Bit>,
    pub csb_addr: Signal<In, Bits<16>>,
    pub csb_wdat: Signal<In, Bits<32>>,
    /// The done status sources, in [`done_sources`]' order: a source is done in this cycle,
    /// and the group (its unit's S_POINTER.CONSUMER) whose status bit it sets.
    pub done: Signal<In, Bits<DONE_SOURCES>>,
    pub consumer: Signal<In, Bits<DONE_SOURCES>>,
    pub irq: Signal<Out, Bit>,
    /// The GLB register at `csb_addr`; 0 when none is there.
    pub read_value: Signal<Out, Bits<32>>,
}

/// GLB's Verilog, from the register map table.
fn verilog() -> String {
    let glb = regmap::unit("GLB").expect("GLB");
    let reg = |name: &str| glb.register(name).expect("GLB register");
    let (mask, status, set) = (reg("S_INTR_MASK"), reg("S_INTR_STATUS"), reg("S_INTR_SET"));
    let mut done_status = String::new();
    for (i, (_, _, fields)) in done_sources().iter().enumerate() {
        let bit = |g: usize| hex32(regmap::field("GLB", "S_INTR_STATUS", fields[g]).mask());
        done_status += &format!("\n            | (done[{i}] ? (consumer[{i}] ? {} : {}) : 32'h0)", bit(1), bit(0));
    }
    let mut read = String::new();
    for r in glb.registers {
        let value = match r.name {
            "S_INTR_MASK" => "glb_mask".to_string(),
            "S_INTR_STATUS" => "glb_status".to_string(),
            _ => hex32(r.reset()),
        };
        read += &format!("            16'h{:04x}: read_value = {value} & {};\n", glb.csb_address(r), hex32(r.mask_where(Access::readable)));
    }
    format!(
        "reg [31:0] glb_mask, glb_status;\n\
         always @(*) begin\n    case (csb_addr)\n{read}            default: read_value = 32'h0;\n    endcase\nend\n\
         always @(*) irq = |(glb_status & ~glb_mask);\n\
         always @(posedge clock) begin\n    if (reset) begin\n        glb_mask <= {};\n        glb_status <= {};\n    end else begin\n\
         \x20       if (wr && csb_addr == 16'h{:04x}) glb_mask <= csb_wdat & {};\n        \
         glb_status <= (glb_status & ~((wr && csb_addr == 16'h{:04x}) ? csb_wdat & {} : 32'h0))\n            \
         | ((wr && csb_addr == 16'h{:04x}) ? csb_wdat & {} : 32'h0){done_status};\n    end\nend",
        hex32(mask.reset()),
        hex32(status.reset()),
        glb.csb_address(mask),
        hex32(mask.mask_where(Access::stores)),
        glb.csb_address(status),
        hex32(status.mask()),
        glb.csb_address(set),
        hex32(set.mask()),
    )
}

impl Logic for CsbGlb {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// generated Verilog's, and the CSB model's.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.irq.connect();
        self.read_value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CsbGlb::default, "nvdla_csb_glb");
}
