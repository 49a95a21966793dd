//! CDP's performance counters behind the CSB ([`super::csb::Csb`]; RDL NVDLA_CDP
//! D_PERF_LUT_UFLOW, _OFLOW, _HYBRID, _LE_HIT, _LO_HIT and D_OUT_SATURATION, seeds/001
//! "Ping-pong Synchronization Mechanism" for the two groups): one counter per group for each
//! of [`CDP_COUNTERS`], fed by the datapath's counts. Model: `npu_model::nvdla::csb` (the
//! whole CSB; the split is the RTL's alone); the decisions are at [`CDP_COUNTERS`].
//!
//! Timing: in the consumer group, a counter clears at the end of a cycle the engine is idle
//! (`running` low) with its layer ready, else adds its count at the end of a cycle with
//! `perf_valid`. `read_value` is combinational: the producer group's counter at `csb_addr`, 0
//! for any other address.
use super::csb_unit::{hex32, ident};
use super::regmap::{self, Access};
use rust_hdl::prelude::*;

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

/// The register is one of [`CDP_COUNTERS`]: a [`CdpCounters`]'s, not the CSB's.
pub fn is_counter(unit: &str, register: &str) -> bool {
    unit == "CDP" && CDP_COUNTERS.iter().any(|&(c, _)| c == register)
}

#[derive(LogicBlock, Default)]
pub struct CdpCounters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub csb_addr: Signal<In, Bits<16>>,
    /// CDP's S_POINTER: the group a read shows, the group that counts.
    pub producer: Signal<In, Bit>,
    pub consumer: Signal<In, Bit>,
    /// CDP's engine: both its units' consumer groups enabled, and working on a layer.
    pub layer_ready: Signal<In, Bit>,
    pub running: Signal<In, Bit>,
    /// The datapath's atom is out, with its counts, named as in [`CDP_COUNTERS`].
    pub cdp_perf_valid: Signal<In, Bit>,
    pub cdp_perf_uflow: Signal<In, Bits<4>>,
    pub cdp_perf_oflow: Signal<In, Bits<4>>,
    pub cdp_perf_hybrid: Signal<In, Bits<4>>,
    pub cdp_perf_le_hit: Signal<In, Bits<4>>,
    pub cdp_perf_lo_hit: Signal<In, Bits<4>>,
    pub cdp_perf_saturation: Signal<In, Bits<4>>,
    /// The producer group's counter at `csb_addr`, masked to its readable bits; 0 for any
    /// other address.
    pub read_value: Signal<Out, Bits<32>>,
}

/// The counters' Verilog: declarations, reset, and the clear at a layer's start or the count
/// of an atom out, in the consumer group.
fn verilog() -> String {
    let (mut decl, mut reset, mut count, mut read) = (String::new(), String::new(), String::new(), String::new());
    for (register, port) in CDP_COUNTERS {
        let id = ident("CDP", register);
        let (unit, r) = regmap::register("CDP", register);
        decl += &format!("reg [31:0] {id}_g0, {id}_g1;\n");
        reset += &format!("        {id}_g0 <= 32'h0;\n        {id}_g1 <= 32'h0;\n");
        for g in 0..2 {
            count += &format!(
                "        if (consumer == 1'b{g}) begin\n            if (layer_ready && !running) {id}_g{g} <= 32'h0;\n            \
                 else if (cdp_perf_valid) {id}_g{g} <= {id}_g{g} + {{28'h0, {port}}};\n        end\n"
            );
        }
        read += &format!("            16'h{:04x}: read_value = (producer ? {id}_g1 : {id}_g0) & {};\n", unit.csb_address(r), hex32(r.mask_where(Access::readable)));
    }
    format!(
        "{decl}\
         always @(*) begin\n    case (csb_addr)\n{read}            default: read_value = 32'h0;\n    endcase\nend\n\
         always @(posedge clock) begin\n    if (reset) begin\n{reset}    end else begin\n{count}    end\nend"
    )
}

impl Logic for CdpCounters {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// generated Verilog's, and the CSB model's.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.read_value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdpCounters::default, "nvdla_cdp_counters");
}
