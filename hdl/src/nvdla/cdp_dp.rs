//! CDP's datapath (seeds/001 "Channel Data Processor": local response normalization across
//! channels), int8 as nv_small runs it, one atom a cycle, no stall; the arithmetic is NVIDIA's
//! C model's (docs/nvdla.md "CDP datapath"). Model: `npu_model::nvdla::cdp_dp`.
//!
//! Interface (agreed with CDP's engine, which walks the cube and owns the registers):
//! - `in_valid`, `in_window`: 16 int8 channels, lane i in bits 8i+7..8i: the 4 channels
//!   before the atom, the atom's 8, the 4 after (channels outside the cube are
//!   DATIN_OFFSET's low byte, as the C model fills them);
//! - `out_valid`, `out_atom` (8 int8 results) exactly [`CDP_DP_LATENCY`] cycles later;
//! - the layer's configuration as plain inputs held during a layer: the register fields of
//!   the same names (`lut_le_start` is {S_LUT_LE_START_HIGH, S_LUT_LE_START_LOW}, 38 bits,
//!   and so the other three; the index selects are the 8-bit fields, of which bits 5..0
//!   count, signed, as the C model's sign extension from bit 5 does);
//! - the LUT port: `lut_we`, `lut_table` (0 LE, 1 LO), `lut_addr`, `lut_wdata`; reads
//!   `lut_rtable`, `lut_raddr` -> `lut_rdata`, combinational. The tables are reset to 0; an
//!   address past a table's end writes nothing and reads 0;
//! - with `out_valid`, the atom's lookup counts (`perf_uflow`, `perf_oflow`, `perf_le_hit`,
//!   `perf_lo_hit`, `perf_hybrid`, 0..8 each) and saturated lanes (`perf_saturation`).
//!
//! Stage 1 ([`CdpSq`]: input converter, squares, sum) is registered on the edge the window is
//! taken; stage 2 ([`CdpLut`]'s lookup, [`CdpCvt`]'s multiply and output converter) on the
//! next, with the configuration of that cycle.
// The sub-blocks' files sit next to this one (hdl/src/nvdla/), declared here so the unit's
// module list names CDP's datapath once.
#[path = "cdp_cvt.rs"]
pub mod cdp_cvt;
#[path = "cdp_lut.rs"]
pub mod cdp_lut;
#[path = "cdp_sq.rs"]
pub mod cdp_sq;
pub use cdp_cvt::CdpCvt;
pub use cdp_lut::CdpLut;
pub use cdp_sq::CdpSq;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Cycles from a window on `in_valid`/`in_window` to its atom on `out_valid`/`out_atom`.
pub const CDP_DP_LATENCY: usize = 2;

#[derive(LogicBlock, Default)]
pub struct CdpDp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_window: Signal<In, Bits<128>>,
    pub normalz_len: Signal<In, Bits<2>>,
    pub datin_offset: Signal<In, Bits<16>>,
    pub datin_scale: Signal<In, Bits<16>>,
    pub datin_shifter: Signal<In, Bits<5>>,
    pub datout_offset: Signal<In, Bits<32>>,
    pub datout_scale: Signal<In, Bits<16>>,
    pub datout_shifter: Signal<In, Bits<6>>,
    pub sqsum_bypass: Signal<In, Bit>,
    pub mul_bypass: Signal<In, Bit>,
    pub lut_le_function: Signal<In, Bit>,
    pub lut_uflow_priority: Signal<In, Bit>,
    pub lut_oflow_priority: Signal<In, Bit>,
    pub lut_hybrid_priority: Signal<In, Bit>,
    pub lut_le_index_offset: Signal<In, Bits<8>>,
    pub lut_le_index_select: Signal<In, Bits<8>>,
    pub lut_lo_index_select: Signal<In, Bits<8>>,
    pub lut_le_start: Signal<In, Bits<38>>,
    pub lut_le_end: Signal<In, Bits<38>>,
    pub lut_lo_start: Signal<In, Bits<38>>,
    pub lut_lo_end: Signal<In, Bits<38>>,
    pub lut_le_slope_uflow_scale: Signal<In, Bits<16>>,
    pub lut_le_slope_oflow_scale: Signal<In, Bits<16>>,
    pub lut_lo_slope_uflow_scale: Signal<In, Bits<16>>,
    pub lut_lo_slope_oflow_scale: Signal<In, Bits<16>>,
    pub lut_le_slope_uflow_shift: Signal<In, Bits<5>>,
    pub lut_le_slope_oflow_shift: Signal<In, Bits<5>>,
    pub lut_lo_slope_uflow_shift: Signal<In, Bits<5>>,
    pub lut_lo_slope_oflow_shift: Signal<In, Bits<5>>,
    pub lut_we: Signal<In, Bit>,
    pub lut_table: Signal<In, Bit>,
    pub lut_addr: Signal<In, Bits<10>>,
    pub lut_wdata: Signal<In, Bits<16>>,
    pub lut_rtable: Signal<In, Bit>,
    pub lut_raddr: Signal<In, Bits<10>>,
    pub out_valid: Signal<Out, Bit>,
    pub out_atom: Signal<Out, Bits<64>>,
    pub lut_rdata: Signal<Out, Bits<16>>,
    pub perf_uflow: Signal<Out, Bits<4>>,
    pub perf_oflow: Signal<Out, Bits<4>>,
    pub perf_le_hit: Signal<Out, Bits<4>>,
    pub perf_lo_hit: Signal<Out, Bits<4>>,
    pub perf_hybrid: Signal<Out, Bits<4>>,
    pub perf_saturation: Signal<Out, Bits<4>>,
    sq: CdpSq,
    lut: CdpLut,
    cvt: CdpCvt,
    /// Stage 1: the window's sums and converted centre channels.
    sums: Reg<Bits<176>>,
    centres: Reg<Bits<72>>,
    valid1: Reg<Bit>,
    /// Stage 2: the atom and its counts.
    atom: Reg<Bits<64>>,
    valid2: Reg<Bit>,
    uflow: Reg<Bits<4>>,
    oflow: Reg<Bits<4>>,
    le_hit: Reg<Bits<4>>,
    lo_hit: Reg<Bits<4>>,
    hybrid: Reg<Bits<4>>,
    saturation: Reg<Bits<4>>,
}

impl Logic for CdpDp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sums, centres, valid1, atom, valid2, uflow, oflow, le_hit, lo_hit, hybrid, saturation);
        self.sums.reset.next = self.reset.val();
        self.centres.reset.next = self.reset.val();
        self.valid1.reset.next = self.reset.val();
        self.atom.reset.next = self.reset.val();
        self.valid2.reset.next = self.reset.val();
        self.uflow.reset.next = self.reset.val();
        self.oflow.reset.next = self.reset.val();
        self.le_hit.reset.next = self.reset.val();
        self.lo_hit.reset.next = self.reset.val();
        self.hybrid.reset.next = self.reset.val();
        self.saturation.reset.next = self.reset.val();
        self.lut.clock.next = self.clock.val();
        self.lut.reset.next = self.reset.val();

        self.sq.window.next = self.in_window.val();
        self.sq.datin_offset.next = self.datin_offset.val();
        self.sq.datin_scale.next = self.datin_scale.val();
        self.sq.datin_shifter.next = self.datin_shifter.val();
        self.sq.normalz_len.next = self.normalz_len.val();
        self.sq.sqsum_bypass.next = self.sqsum_bypass.val();
        self.sums.d.next = self.sq.sums.val();
        self.centres.d.next = self.sq.centres.val();
        self.valid1.d.next = self.in_valid.val();

        self.lut.lut_we.next = self.lut_we.val();
        self.lut.lut_table.next = self.lut_table.val();
        self.lut.lut_addr.next = self.lut_addr.val();
        self.lut.lut_wdata.next = self.lut_wdata.val();
        self.lut.lut_rtable.next = self.lut_rtable.val();
        self.lut.lut_raddr.next = self.lut_raddr.val();
        self.lut_rdata.next = self.lut.lut_rdata.val();
        self.lut.sums.next = self.sums.q.val();
        self.lut.le_function.next = self.lut_le_function.val();
        self.lut.uflow_priority.next = self.lut_uflow_priority.val();
        self.lut.oflow_priority.next = self.lut_oflow_priority.val();
        self.lut.hybrid_priority.next = self.lut_hybrid_priority.val();
        self.lut.le_index_offset.next = self.lut_le_index_offset.val();
        self.lut.le_index_select.next = self.lut_le_index_select.val();
        self.lut.lo_index_select.next = self.lut_lo_index_select.val();
        self.lut.le_start.next = self.lut_le_start.val();
        self.lut.le_end.next = self.lut_le_end.val();
        self.lut.lo_start.next = self.lut_lo_start.val();
        self.lut.lo_end.next = self.lut_lo_end.val();
        self.lut.le_uflow_scale.next = self.lut_le_slope_uflow_scale.val();
        self.lut.le_oflow_scale.next = self.lut_le_slope_oflow_scale.val();
        self.lut.lo_uflow_scale.next = self.lut_lo_slope_uflow_scale.val();
        self.lut.lo_oflow_scale.next = self.lut_lo_slope_oflow_scale.val();
        self.lut.le_uflow_shift.next = self.lut_le_slope_uflow_shift.val();
        self.lut.le_oflow_shift.next = self.lut_le_slope_oflow_shift.val();
        self.lut.lo_uflow_shift.next = self.lut_lo_slope_uflow_shift.val();
        self.lut.lo_oflow_shift.next = self.lut_lo_slope_oflow_shift.val();

        self.cvt.results.next = self.lut.results.val();
        self.cvt.centres.next = self.centres.q.val();
        self.cvt.mul_bypass.next = self.mul_bypass.val();
        self.cvt.datout_offset.next = self.datout_offset.val();
        self.cvt.datout_scale.next = self.datout_scale.val();
        self.cvt.datout_shifter.next = self.datout_shifter.val();
        self.atom.d.next = self.cvt.atom.val();
        self.valid2.d.next = self.valid1.q.val();
        self.uflow.d.next = self.lut.uflow.val();
        self.oflow.d.next = self.lut.oflow.val();
        self.le_hit.d.next = self.lut.le_hit.val();
        self.lo_hit.d.next = self.lut.lo_hit.val();
        self.hybrid.d.next = self.lut.hybrid.val();
        self.saturation.d.next = self.cvt.saturated.val();

        self.out_valid.next = self.valid2.q.val();
        self.out_atom.next = self.atom.q.val();
        self.perf_uflow.next = self.uflow.q.val();
        self.perf_oflow.next = self.oflow.q.val();
        self.perf_le_hit.next = self.le_hit.q.val();
        self.perf_lo_hit.next = self.lo_hit.q.val();
        self.perf_hybrid.next = self.hybrid.q.val();
        self.perf_saturation.next = self.saturation.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdpDp::default, "nvdla_cdp_dp");
}
