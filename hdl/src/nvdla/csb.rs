//! NVDLA's configuration space bus (seeds/001, "Configuration space bus") and the register
//! files behind it: GLB (interrupt mask, set, status and `irq`), and the single and ping-pong
//! register groups of CDMA, CSC, CMAC_A, CMAC_B, CACC, SDP_RDMA, SDP, PDP_RDMA, PDP, CDP_RDMA and CDP, with the fields the
//! engines run on as ports, and CDP's LUT access port and counters. This block holds the bus,
//! each unit's group pointers, D_OP_ENABLE and S_STATUS, and the read multiplexer; its
//! sub-blocks hold the rest: each unit's plain registers ([`CsbUnit`], `csb_unit.rs`), GLB's
//! interrupt registers ([`CsbGlb`], `csb_glb.rs`), the LUT access ports ([`CsbLutAccess`],
//! `csb_lut_access.rs`) and CDP's counters ([`CdpCounters`], `cdp_counters.rs`); the tables
//! are `csb_config.rs` (the engines' fields) and `csb_engines.rs` (the engines' groups).
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
use super::cdp_counters::{is_counter, CdpCounters};
pub use super::cdp_counters::CDP_COUNTERS;
use super::csb_config::{config_entries, config_width};
use super::csb_glb::CsbGlb;
use super::csb_lut_access::{is_lut_access, CsbLutAccess};
pub use super::csb_lut_access::{is_lut_data, lut_fields, CDP_LUT_ENTRIES, LUT_UNITS};
pub use super::csb_engines::{engine_of, Engine, ENGINES, FLYING_SKIPS, GROUPED};
use super::csb_engines::done_sources;
use super::csb_unit::{hex32, ident, is_plain, stored, stored_register, CsbUnit};
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
    /// The plain registers of each unit with fields in [`super::csb_config::CONFIG`] (CMAC_A's and CMAC_B's,
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
    /// GLB's interrupt registers and `irq`.
    glb: CsbGlb,
    /// The LUT access ports of [`LUT_UNITS`], CDP's and SDP's.
    cdp_lut_access: CsbLutAccess<0>,
    sdp_lut_access: CsbLutAccess<1>,
    /// CDP's performance counters.
    cdp_counters: CdpCounters,
}

/// The unit's registers live in a [`CsbUnit`] of their own.
fn has_sub_block(unit: &str) -> bool {
    config_width(unit) > 0
}

/// The register is in a sub-block (the unit's [`CsbUnit`], a [`CsbLutAccess`], the
/// [`CdpCounters`]), not in the CSB's own Verilog.
fn in_sub_block(unit: &str, register: &regmap::Register) -> bool {
    let plain = has_sub_block(unit) && stored(regmap::unit(unit).expect("unit")).any(|r| r.name == register.name) && is_plain(unit, register);
    plain || is_lut_access(unit, register.name) || is_counter(unit, register.name)
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

/// The CSB's Verilog, from the table: the bus, each unit's group pointers, D_OP_ENABLE and
/// S_STATUS, the registers of the units without a [`CsbUnit`], the read multiplexer, the
/// engines' layer ready, and the sub-blocks' wiring.
fn verilog() -> String {
    let mut decl = String::new();
    let mut reset = String::new();
    let mut write = String::new();
    let mut read = String::new();
    let addr = |u: &Unit, name: &str| u.csb_address(u.register(name).expect("register"));
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
    let mut config = String::new();
    // The consumer group's D_OP_ENABLE of a unit (ping-pong in every unit).
    let enabled = |unit: &str| {
        let id = ident(unit, "D_OP_ENABLE");
        format!("({p}_consumer ? {id}_g1[0:0] : {id}_g0[0:0])", p = unit.to_lowercase())
    };
    // The sub-blocks: the CSB's write (and pointers) in, their read values out, OR-ed into
    // the read multiplexer's default; the units' engine fields out of `fields`.
    let bus = |b: &str| {
        format!(
            "always @(*) {b}$clock = clock;\nalways @(*) {b}$reset = reset;\nalways @(*) {b}$csb_addr = csb_addr;\n"
        )
    };
    let write_bus = |b: &str| format!("{}always @(*) {b}$wr = wr;\nalways @(*) {b}$csb_wdat = csb_wdat;\n", bus(b));
    let mut sub_reads = Vec::new();
    for name in GROUPED.into_iter().filter(|&u| has_sub_block(u)) {
        let (p, b) = (name.to_lowercase(), format!("{}_registers", name.to_lowercase()));
        config += &write_bus(&b);
        config += &format!(
            "always @(*) {b}$producer = {p}_producer;\nalways @(*) {b}$consumer = {p}_consumer;\n\
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
    let sources = done_sources();
    let packed = |f: &dyn Fn(&(&str, &str, [&str; 2])) -> String| sources.iter().rev().map(f).collect::<Vec<_>>().join(", ");
    config += &write_bus("glb");
    config += &format!("always @(*) glb$done = {{{}}};\n", packed(&|s| s.0.to_string()));
    config += &format!("always @(*) glb$consumer = {{{}}};\n", packed(&|s| format!("{}_consumer", s.1.to_lowercase())));
    config += "always @(*) irq = glb$irq;\n";
    sub_reads.push("glb$read_value".to_string());
    for unit in LUT_UNITS {
        let (p, b) = (unit.to_lowercase(), format!("{}_lut_access", unit.to_lowercase()));
        config += &write_bus(&b);
        config += &format!("always @(*) {b}$csb_valid = csb_valid;\nalways @(*) {b}$csb_write = csb_write;\nalways @(*) {b}$lut_rdata = {p}_lut_rdata;\n");
        for port in ["lut_we", "lut_table", "lut_addr", "lut_wdata"] {
            config += &format!("always @(*) {p}_{port} = {b}${port};\n");
        }
        sub_reads.push(format!("{b}$read_value"));
    }
    config += &bus("cdp_counters");
    config += "always @(*) cdp_counters$producer = cdp_producer;\nalways @(*) cdp_counters$consumer = cdp_consumer;\n\
               always @(*) cdp_counters$layer_ready = cdp_layer_ready;\nalways @(*) cdp_counters$running = cdp_running;\n\
               always @(*) cdp_counters$cdp_perf_valid = cdp_perf_valid;\n";
    for (_, port) in CDP_COUNTERS {
        config += &format!("always @(*) cdp_counters${port} = {port};\n");
    }
    sub_reads.push("cdp_counters$read_value".to_string());
    for e in &ENGINES {
        let all: Vec<String> = e.units.iter().map(|&u| if u == FLYING_SKIPS { format!("(sdp_flying_mode | {})", enabled(u)) } else { enabled(u) }).collect();
        config += &format!("always @(*) {} = {};\n", e.layer_ready, all.join(" & "));
    }
    format!(
        "{decl}\
         reg [31:0] read_value;\n\
         wire wr = csb_valid & csb_write;\n\
         wire rd = csb_valid & ~csb_write;\n\
         always @(*) begin\n    case (csb_addr)\n{read}            default: read_value = {};\n    endcase\nend\n\
         always @(*) csb_ready = 1'b1;\n\
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
        // The outputs, driven by the Verilog (`verilog`).
        macro_rules! connect {
            ($($port:ident),*) => {$(self.$port.connect();)*};
        }
        connect!(
            csb_ready, csb_rvalid, csb_rdata, csb_wr_complete, irq, layer_ready, width, height, last_surface,
            src_base, src_line, src_surface, dst_base, dst_line, dst_surface, brdma_cfg, bs_base, bs_line,
            bs_surface, nrdma_cfg, bn_base, bn_line, bn_surface, cvt_offset, cvt_scale, cvt_shift, bs_cfg,
            bs_alu_src, bs_alu_shift, bs_alu_operand, bs_mul_src, bs_mul_shift, bs_mul_operand, bn_cfg,
            bn_alu_src, bn_alu_shift, bn_alu_operand, bn_mul_src, bn_mul_shift, bn_mul_operand, ew_cfg,
            ew_alu_operand, ew_mul_operand, ew_truncate, ew_lut_bypass, sdp_lut_cfg, sdp_lut_info,
            sdp_lut_le_start, sdp_lut_le_end, sdp_lut_lo_start, sdp_lut_lo_end, sdp_lut_le_slope_scale,
            sdp_lut_le_slope_shift, sdp_lut_lo_slope_scale, sdp_lut_lo_slope_shift, sdp_lut_we,
            sdp_lut_table, sdp_lut_addr, sdp_lut_wdata, pdp_layer_ready, pdp_width, pdp_height,
            pdp_last_surface, pdp_src_base, pdp_src_line, pdp_src_surface, pdp_out_width, pdp_out_height,
            pdp_method, pdp_kernel_width, pdp_kernel_height, pdp_stride_width, pdp_stride_height,
            pdp_pad_left, pdp_pad_top, pdp_recip_width, pdp_recip_height, pdp_pad_value1, pdp_pad_value2,
            pdp_pad_value3, pdp_pad_value4, pdp_pad_value5, pdp_pad_value6, pdp_pad_value7, pdp_dst_base,
            pdp_dst_line, pdp_dst_surface, cdp_layer_ready, cdp_lut_we, cdp_lut_table, cdp_lut_addr,
            cdp_lut_wdata, cdp_width, cdp_height, cdp_channel, cdp_src_base, cdp_src_line, cdp_src_surface,
            cdp_dst_base, cdp_dst_line, cdp_dst_surface, cdp_normalz_len, cdp_datin_offset, cdp_datin_scale,
            cdp_datin_shifter, cdp_datout_offset, cdp_datout_scale, cdp_datout_shifter, cdp_sqsum_bypass,
            cdp_mul_bypass, cdp_lut_le_function, cdp_lut_uflow_priority, cdp_lut_oflow_priority,
            cdp_lut_hybrid_priority, cdp_lut_le_index_offset, cdp_lut_le_index_select,
            cdp_lut_lo_index_select, cdp_lut_le_start, cdp_lut_le_end, cdp_lut_lo_start, cdp_lut_lo_end,
            cdp_lut_le_slope_uflow_scale, cdp_lut_le_slope_oflow_scale, cdp_lut_lo_slope_uflow_scale,
            cdp_lut_lo_slope_oflow_scale, cdp_lut_le_slope_uflow_shift, cdp_lut_le_slope_oflow_shift,
            cdp_lut_lo_slope_uflow_shift, cdp_lut_lo_slope_oflow_shift, sdp_flying_mode, sdp_width,
            sdp_height, sdp_last_surface, conv_layer_ready, cdma_width, cdma_height, cdma_channel,
            cdma_feature_base, cdma_line_stride, cdma_surface_stride, cdma_weight_base, cdma_kernels,
            cdma_data_bank, cdma_weight_bank, cdma_cvt_en, cdma_cvt_truncate, cdma_cvt_offset,
            cdma_cvt_scale, csc_datain_width_ext, csc_datain_height_ext, csc_datain_channel_ext,
            csc_weight_width_ext, csc_weight_height_ext, csc_weight_kernel, csc_conv_x_stride_ext,
            csc_conv_y_stride_ext, csc_x_dilation_ext, csc_y_dilation_ext, csc_pad_left, csc_pad_top,
            csc_dataout_width, csc_dataout_height, csc_pad_value, csc_data_bank, cacc_clip_truncate
        );
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
        macro_rules! inputs {
            ($block:ident: $($port:ident),*) => {$(self.$block.$port.connect();)*};
        }
        inputs!(glb: clock, reset, wr, csb_addr, csb_wdat, done, consumer);
        inputs!(cdp_lut_access: clock, reset, csb_valid, csb_write, wr, csb_addr, csb_wdat, lut_rdata);
        inputs!(sdp_lut_access: clock, reset, csb_valid, csb_write, wr, csb_addr, csb_wdat, lut_rdata);
        inputs!(cdp_counters: clock, reset, csb_addr, producer, consumer, layer_ready, running, cdp_perf_valid);
        inputs!(cdp_counters: cdp_perf_uflow, cdp_perf_oflow, cdp_perf_hybrid, cdp_perf_le_hit, cdp_perf_lo_hit, cdp_perf_saturation);
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
