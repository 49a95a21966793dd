//! ScaleNPU control and status registers behind an AXI4-Lite slave (seeds/004). Offsets,
//! field masks and reset values come from [`super::regmap::REGISTERS`]; the model is
//! `npu_model::scale::csr`.
use super::regmap::{self, Access};
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

/// The CSR block: an AXI4-Lite slave (8-bit byte address, 32-bit data) over the registers of
/// seeds/004, the configuration fields as ports to the datapath, and the datapath's status in.
///
/// Timing (cycle `t` is the handshake cycle, all changes at the rising edge ending it):
/// - Write: `awready = wready = awvalid & wvalid & !bvalid`, combinationally in cycle `t`.
///   The slave takes AW and W only together, in one handshake: it needs both valid at once,
///   which AXI permits (a slave may wait for both valids before raising its readys), so a
///   master must not wait for `awready` before raising `wvalid`. The readys thus depend
///   combinationally on the valids; AXI (A3.2.1) asks interfaces for no such path, so an
///   interconnect that relies on that needs a register slice in front. The write takes
///   effect at the end of `t`; `bvalid` and `bresp` appear in `t+1` and stay until `bready`.
///   While a B response is pending no write is accepted (at most one write every two cycles).
/// - Read: `arready = !rvalid`. A read accepted in `t` shows `rvalid`, `rdata`, `rresp` in
///   `t+1`, held until `rready`; `rdata` and `rresp` keep their last values after that.
///   Reads and writes are independent and may both be accepted in one cycle; a read in the
///   same cycle as a write to the same register returns the old value.
/// - `start` is high for the one cycle `t+1` after an accepted OKAY write of INIT with
///   `wstrb[0]` and `wdata[0]` set; `abort_layer` is high for the one cycle `t+1` after a
///   write to 0x08..=0x3C (DIMS, CTRL, MEMADDRS, INIT) refused because the NPU is busy.
///
/// Write response, first match: `awaddr[1:0] != 0` → SLVERR, no effect (no abort either);
/// `awaddr >= 0x48` → DECERR, no effect; 0x08..=0x3C while busy → SLVERR, no effect,
/// `abort_layer`; otherwise OKAY (writes to the read-only ARCHID, IMPID and EXITCODE are
/// accepted and ignored). "Busy" is the `busy` input or the `start` output (the datapath
/// raises `busy` one cycle after `start`). Only the byte lanes with `wstrb` set change an
/// rw field; a write with `wstrb` 0 is OKAY and changes nothing.
///
/// Read response: misaligned → SLVERR, unmapped → DECERR, both with `rdata` 0; otherwise OKAY.
/// Bits outside the fields and INIT read 0.
///
/// IRQ.FINISHED: set by `finish`, cleared by an OKAY write with `wstrb[0]` and `wdata[0]`
/// (writing 0 does nothing); set wins over a clear in the same cycle. `irq` is the field.
/// EXITCODE: 0 (UNUSED) after reset; loaded from `exit_code` with `finish`; set to UNUSED at
/// the edge that raises `start`, so a poll during a layer reads "not done". If `finish` and a
/// starting INIT write meet in one cycle, `finish` wins (IRQ and EXITCODE then describe the
/// same finished layer). Every register resets synchronously (`reset`, active high).
#[derive(LogicBlock)]
pub struct Csr {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // AXI4-Lite slave.
    pub awvalid: Signal<In, Bit>,
    pub awaddr: Signal<In, Bits<8>>,
    pub wvalid: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub bready: Signal<In, Bit>,
    pub arvalid: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<8>>,
    pub rready: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bvalid: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub arready: Signal<Out, Bit>,
    pub rvalid: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    // From the datapath.
    pub busy: Signal<In, Bit>,
    pub finish: Signal<In, Bit>,
    pub exit_code: Signal<In, Bits<2>>,
    // To the datapath.
    pub start: Signal<Out, Bit>,
    /// Aborts the running layer. Not called `abort`: that is a C++ library name, which
    /// Verilator -Wall reports (SYMRSVDWORD) and renames in its C++ model.
    pub abort_layer: Signal<Out, Bit>,
    pub irq: Signal<Out, Bit>,
    pub inrows: Signal<Out, Bits<8>>,
    pub incols: Signal<Out, Bits<8>>,
    pub wghtrows: Signal<Out, Bits<8>>,
    pub wghtcols: Signal<Out, Bits<8>>,
    pub reinputs: Signal<Out, Bit>,
    pub reweights: Signal<Out, Bit>,
    pub saveout: Signal<Out, Bit>,
    pub usebias: Signal<Out, Bit>,
    pub usesumm: Signal<Out, Bit>,
    pub shiftamt: Signal<Out, Bits<8>>,
    pub actfn: Signal<Out, Bit>,
    pub base: Signal<Out, Bits<32>>,
    pub result: Signal<Out, Bits<32>>,
    // Registers, each 32 bits as read; bits outside the field have a constant 0 input.
    inrows_r: Reg<Bits<32>>,
    incols_r: Reg<Bits<32>>,
    wghtrows_r: Reg<Bits<32>>,
    wghtcols_r: Reg<Bits<32>>,
    reinputs_r: Reg<Bits<32>>,
    reweights_r: Reg<Bits<32>>,
    saveout_r: Reg<Bits<32>>,
    usebias_r: Reg<Bits<32>>,
    usesumm_r: Reg<Bits<32>>,
    shiftamt_r: Reg<Bits<32>>,
    actfn_r: Reg<Bits<32>>,
    base_r: Reg<Bits<32>>,
    result_r: Reg<Bits<32>>,
    irq_r: Reg<Bits<32>>,
    exitcode_r: Reg<Bits<32>>,
    // AXI responses and the pulses.
    bvalid_r: Reg<Bit>,
    bresp_r: Reg<Bits<2>>,
    rvalid_r: Reg<Bit>,
    rdata_r: Reg<Bits<32>>,
    rresp_r: Reg<Bits<2>>,
    start_r: Reg<Bit>,
    abort_r: Reg<Bit>,
    exit_wide: ZeroExtend<2, 32>,
    // Write decode, in the order computed.
    aw_fire: Signal<Local, Bit>,
    w_aligned: Signal<Local, Bit>,
    w_mapped: Signal<Local, Bit>,
    w_protected: Signal<Local, Bit>,
    busy_now: Signal<Local, Bit>,
    w_refused: Signal<Local, Bit>,
    w_ok: Signal<Local, Bit>,
    w_resp: Signal<Local, Bits<2>>,
    lane0: Signal<Local, Bits<32>>,
    lane1: Signal<Local, Bits<32>>,
    lane2: Signal<Local, Bits<32>>,
    lane3: Signal<Local, Bits<32>>,
    lanes: Signal<Local, Bits<32>>,
    start_now: Signal<Local, Bit>,
    irq_clear: Signal<Local, Bit>,
    // Read decode.
    ar_fire: Signal<Local, Bit>,
    r_value: Signal<Local, Bits<32>>,
    r_resp: Signal<Local, Bits<2>>,
    // Offsets (from the register map).
    off_archid: Constant<Bits<8>>,
    off_impid: Constant<Bits<8>>,
    off_inrows: Constant<Bits<8>>,
    off_incols: Constant<Bits<8>>,
    off_wghtrows: Constant<Bits<8>>,
    off_wghtcols: Constant<Bits<8>>,
    off_reinputs: Constant<Bits<8>>,
    off_reweights: Constant<Bits<8>>,
    off_saveout: Constant<Bits<8>>,
    off_usebias: Constant<Bits<8>>,
    off_usesumm: Constant<Bits<8>>,
    off_shiftamt: Constant<Bits<8>>,
    off_actfn: Constant<Bits<8>>,
    off_base: Constant<Bits<8>>,
    off_result: Constant<Bits<8>>,
    off_init: Constant<Bits<8>>,
    off_irq: Constant<Bits<8>>,
    off_exitcode: Constant<Bits<8>>,
    map_size: Constant<Bits<8>>,
    protect_first: Constant<Bits<8>>,
    protect_last: Constant<Bits<8>>,
    // Field masks in place, read-only values (from the register map).
    mask_inrows: Constant<Bits<32>>,
    mask_incols: Constant<Bits<32>>,
    mask_wghtrows: Constant<Bits<32>>,
    mask_wghtcols: Constant<Bits<32>>,
    mask_reinputs: Constant<Bits<32>>,
    mask_reweights: Constant<Bits<32>>,
    mask_saveout: Constant<Bits<32>>,
    mask_usebias: Constant<Bits<32>>,
    mask_usesumm: Constant<Bits<32>>,
    mask_shiftamt: Constant<Bits<32>>,
    mask_actfn: Constant<Bits<32>>,
    mask_base: Constant<Bits<32>>,
    mask_result: Constant<Bits<32>>,
    mask_irq: Constant<Bits<32>>,
    mask_exitcode: Constant<Bits<32>>,
    archid_value: Constant<Bits<32>>,
    impid_value: Constant<Bits<32>>,
    exit_unused: Constant<Bits<32>>,
    // Plain constants.
    zero32: Constant<Bits<32>>,
    byte0: Constant<Bits<32>>,
    byte1: Constant<Bits<32>>,
    byte2: Constant<Bits<32>>,
    byte3: Constant<Bits<32>>,
    aligned_low: Constant<Bits<2>>,
    resp_okay: Constant<Bits<2>>,
    resp_slverr: Constant<Bits<2>>,
    resp_decerr: Constant<Bits<2>>,
}

/// The single field of register `name`, checked against what this RTL was written for: its
/// access type and the width of the port it drives, at bit 0. A register map change the RTL
/// cannot follow stops here, at construction.
fn field(name: &str, access: Access, width: u32) -> &'static regmap::Field {
    let r = regmap::register(name);
    assert_eq!(r.fields.len(), 1, "Csr: {name} must have one field");
    let f = &r.fields[0];
    assert_eq!(
        (f.access, f.lsb, f.width),
        (access, 0, width),
        "Csr: {name}.{} is not the field this RTL implements",
        f.name
    );
    f
}

fn offset(name: &str) -> Constant<Bits<8>> {
    byte_constant(regmap::register(name).offset)
}

fn byte_constant(value: u32) -> Constant<Bits<8>> {
    assert!(
        value < 0x100,
        "Csr: 0x{value:X} needs more than the 8-bit AXI address"
    );
    Constant::new(u64::from(value).into())
}

fn word(value: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(value).into())
}

/// Mask constant of a register's field, checked as [`field`] does.
fn mask(name: &str, access: Access, width: u32) -> Constant<Bits<32>> {
    word(field(name, access, width).mask())
}

/// The register holding `name`, with the field's reset value.
fn register(name: &str, access: Access, width: u32) -> Reg<Bits<32>> {
    let f = field(name, access, width);
    Reg::new(u64::from(f.reset << f.lsb).into())
}

impl Default for Csr {
    fn default() -> Self {
        let (first, last) = regmap::busy_protected();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            awvalid: Default::default(),
            awaddr: Default::default(),
            wvalid: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            bready: Default::default(),
            arvalid: Default::default(),
            araddr: Default::default(),
            rready: Default::default(),
            awready: Default::default(),
            wready: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            arready: Default::default(),
            rvalid: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            busy: Default::default(),
            finish: Default::default(),
            exit_code: Default::default(),
            start: Default::default(),
            abort_layer: Default::default(),
            irq: Default::default(),
            inrows: Default::default(),
            incols: Default::default(),
            wghtrows: Default::default(),
            wghtcols: Default::default(),
            reinputs: Default::default(),
            reweights: Default::default(),
            saveout: Default::default(),
            usebias: Default::default(),
            usesumm: Default::default(),
            shiftamt: Default::default(),
            actfn: Default::default(),
            base: Default::default(),
            result: Default::default(),
            inrows_r: register("INROWS", Access::Rw, 8),
            incols_r: register("INCOLS", Access::Rw, 8),
            wghtrows_r: register("WGHTROWS", Access::Rw, 8),
            wghtcols_r: register("WGHTCOLS", Access::Rw, 8),
            reinputs_r: register("REINPUTS", Access::Rw, 1),
            reweights_r: register("REWEIGHTS", Access::Rw, 1),
            saveout_r: register("SAVEOUT", Access::Rw, 1),
            usebias_r: register("USEBIAS", Access::Rw, 1),
            usesumm_r: register("USESUMM", Access::Rw, 1),
            shiftamt_r: register("SHIFTAMT", Access::Rw, 8),
            actfn_r: register("ACTFN", Access::Rw, 1),
            base_r: register("BASE", Access::Rw, 32),
            result_r: register("RESULT", Access::Rw, 32),
            irq_r: register("IRQ", Access::RwWoclr, 1),
            exitcode_r: register("EXITCODE", Access::R, 2),
            bvalid_r: Default::default(),
            bresp_r: Default::default(),
            rvalid_r: Default::default(),
            rdata_r: Default::default(),
            rresp_r: Default::default(),
            start_r: Default::default(),
            abort_r: Default::default(),
            exit_wide: Default::default(),
            aw_fire: Default::default(),
            w_aligned: Default::default(),
            w_mapped: Default::default(),
            w_protected: Default::default(),
            busy_now: Default::default(),
            w_refused: Default::default(),
            w_ok: Default::default(),
            w_resp: Default::default(),
            lane0: Default::default(),
            lane1: Default::default(),
            lane2: Default::default(),
            lane3: Default::default(),
            lanes: Default::default(),
            start_now: Default::default(),
            irq_clear: Default::default(),
            ar_fire: Default::default(),
            r_value: Default::default(),
            r_resp: Default::default(),
            off_archid: offset("ARCHID"),
            off_impid: offset("IMPID"),
            off_inrows: offset("INROWS"),
            off_incols: offset("INCOLS"),
            off_wghtrows: offset("WGHTROWS"),
            off_wghtcols: offset("WGHTCOLS"),
            off_reinputs: offset("REINPUTS"),
            off_reweights: offset("REWEIGHTS"),
            off_saveout: offset("SAVEOUT"),
            off_usebias: offset("USEBIAS"),
            off_usesumm: offset("USESUMM"),
            off_shiftamt: offset("SHIFTAMT"),
            off_actfn: offset("ACTFN"),
            off_base: offset("BASE"),
            off_result: offset("RESULT"),
            off_init: offset("INIT"),
            off_irq: offset("IRQ"),
            off_exitcode: offset("EXITCODE"),
            map_size: byte_constant(regmap::MAP_SIZE),
            protect_first: byte_constant(first),
            protect_last: byte_constant(last),
            mask_inrows: mask("INROWS", Access::Rw, 8),
            mask_incols: mask("INCOLS", Access::Rw, 8),
            mask_wghtrows: mask("WGHTROWS", Access::Rw, 8),
            mask_wghtcols: mask("WGHTCOLS", Access::Rw, 8),
            mask_reinputs: mask("REINPUTS", Access::Rw, 1),
            mask_reweights: mask("REWEIGHTS", Access::Rw, 1),
            mask_saveout: mask("SAVEOUT", Access::Rw, 1),
            mask_usebias: mask("USEBIAS", Access::Rw, 1),
            mask_usesumm: mask("USESUMM", Access::Rw, 1),
            mask_shiftamt: mask("SHIFTAMT", Access::Rw, 8),
            mask_actfn: mask("ACTFN", Access::Rw, 1),
            mask_base: mask("BASE", Access::Rw, 32),
            mask_result: mask("RESULT", Access::Rw, 32),
            mask_irq: mask("IRQ", Access::RwWoclr, 1),
            mask_exitcode: mask("EXITCODE", Access::R, 2),
            archid_value: word(field("ARCHID", Access::R, 32).reset),
            impid_value: word(field("IMPID", Access::R, 32).reset),
            exit_unused: word(regmap::EXIT_UNUSED),
            zero32: word(0),
            byte0: word(0x0000_00FF),
            byte1: word(0x0000_FF00),
            byte2: word(0x00FF_0000),
            byte3: word(0xFF00_0000),
            aligned_low: Constant::new(0.into()),
            resp_okay: Constant::new(0b00.into()),
            resp_slverr: Constant::new(0b10.into()),
            resp_decerr: Constant::new(0b11.into()),
        }
    }
}

impl Logic for Csr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            inrows_r,
            incols_r,
            wghtrows_r,
            wghtcols_r,
            reinputs_r,
            reweights_r,
            saveout_r,
            usebias_r,
            usesumm_r,
            shiftamt_r,
            actfn_r,
            base_r,
            result_r,
            irq_r,
            exitcode_r,
            bvalid_r,
            bresp_r,
            rvalid_r,
            rdata_r,
            rresp_r,
            start_r,
            abort_r
        );
        self.inrows_r.reset.next = self.reset.val();
        self.incols_r.reset.next = self.reset.val();
        self.wghtrows_r.reset.next = self.reset.val();
        self.wghtcols_r.reset.next = self.reset.val();
        self.reinputs_r.reset.next = self.reset.val();
        self.reweights_r.reset.next = self.reset.val();
        self.saveout_r.reset.next = self.reset.val();
        self.usebias_r.reset.next = self.reset.val();
        self.usesumm_r.reset.next = self.reset.val();
        self.shiftamt_r.reset.next = self.reset.val();
        self.actfn_r.reset.next = self.reset.val();
        self.base_r.reset.next = self.reset.val();
        self.result_r.reset.next = self.reset.val();
        self.irq_r.reset.next = self.reset.val();
        self.exitcode_r.reset.next = self.reset.val();
        self.bvalid_r.reset.next = self.reset.val();
        self.bresp_r.reset.next = self.reset.val();
        self.rvalid_r.reset.next = self.reset.val();
        self.rdata_r.reset.next = self.reset.val();
        self.rresp_r.reset.next = self.reset.val();
        self.start_r.reset.next = self.reset.val();
        self.abort_r.reset.next = self.reset.val();
        self.exit_wide.narrow.next = self.exit_code.val();

        // Write address decode and response.
        self.aw_fire.next = self.awvalid.val() & self.wvalid.val() & !self.bvalid_r.q.val();
        self.w_aligned.next = self.awaddr.val().get_bits::<2>(0) == self.aligned_low.val();
        self.w_mapped.next = self.awaddr.val() < self.map_size.val();
        self.w_protected.next = (self.awaddr.val() >= self.protect_first.val())
            & (self.awaddr.val() <= self.protect_last.val());
        self.busy_now.next = self.busy.val() | self.start_r.q.val();
        self.w_refused.next = self.w_aligned.val() & self.w_protected.val() & self.busy_now.val();
        self.w_ok.next =
            self.aw_fire.val() & self.w_aligned.val() & self.w_mapped.val() & !self.w_refused.val();
        self.w_resp.next = self.resp_okay.val();
        if !self.w_aligned.val() {
            self.w_resp.next = self.resp_slverr.val();
        } else if !self.w_mapped.val() {
            self.w_resp.next = self.resp_decerr.val();
        } else if self.w_refused.val() {
            self.w_resp.next = self.resp_slverr.val();
        }
        // The bytes wstrb selects.
        self.lane0.next = self.zero32.val();
        if self.wstrb.val().get_bit(0) {
            self.lane0.next = self.byte0.val();
        }
        self.lane1.next = self.zero32.val();
        if self.wstrb.val().get_bit(1) {
            self.lane1.next = self.byte1.val();
        }
        self.lane2.next = self.zero32.val();
        if self.wstrb.val().get_bit(2) {
            self.lane2.next = self.byte2.val();
        }
        self.lane3.next = self.zero32.val();
        if self.wstrb.val().get_bit(3) {
            self.lane3.next = self.byte3.val();
        }
        self.lanes.next = self.lane0.val() | self.lane1.val() | self.lane2.val() | self.lane3.val();

        // rw fields: the strobed bytes from wdata, the others kept, bits outside the field 0.
        if self.w_ok.val() & (self.awaddr.val() == self.off_inrows.val()) {
            self.inrows_r.d.next = ((self.inrows_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_inrows.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_incols.val()) {
            self.incols_r.d.next = ((self.incols_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_incols.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_wghtrows.val()) {
            self.wghtrows_r.d.next = ((self.wghtrows_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_wghtrows.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_wghtcols.val()) {
            self.wghtcols_r.d.next = ((self.wghtcols_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_wghtcols.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_reinputs.val()) {
            self.reinputs_r.d.next = ((self.reinputs_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_reinputs.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_reweights.val()) {
            self.reweights_r.d.next = ((self.reweights_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_reweights.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_saveout.val()) {
            self.saveout_r.d.next = ((self.saveout_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_saveout.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_usebias.val()) {
            self.usebias_r.d.next = ((self.usebias_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_usebias.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_usesumm.val()) {
            self.usesumm_r.d.next = ((self.usesumm_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_usesumm.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_shiftamt.val()) {
            self.shiftamt_r.d.next = ((self.shiftamt_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_shiftamt.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_actfn.val()) {
            self.actfn_r.d.next = ((self.actfn_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_actfn.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_base.val()) {
            self.base_r.d.next = ((self.base_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_base.val();
        }
        if self.w_ok.val() & (self.awaddr.val() == self.off_result.val()) {
            self.result_r.d.next = ((self.result_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_result.val();
        }

        // INIT: start (w_ok already excludes busy, INIT being busy-protected).
        self.start_now.next = self.w_ok.val()
            & (self.awaddr.val() == self.off_init.val())
            & self.wstrb.val().get_bit(0)
            & self.wdata.val().get_bit(0);
        self.start_r.d.next = self.start_now.val();
        self.abort_r.d.next = self.aw_fire.val() & self.w_refused.val();

        // IRQ.FINISHED: finish sets, a written 1 clears, set wins.
        self.irq_clear.next = self.w_ok.val()
            & (self.awaddr.val() == self.off_irq.val())
            & self.wstrb.val().get_bit(0)
            & self.wdata.val().get_bit(0);
        if self.finish.val() {
            self.irq_r.d.next = self.mask_irq.val();
        } else if self.irq_clear.val() {
            self.irq_r.d.next = self.zero32.val();
        }
        // EXITCODE: finish loads, start clears, finish wins.
        if self.finish.val() {
            self.exitcode_r.d.next = self.exit_wide.wide.val() & self.mask_exitcode.val();
        } else if self.start_now.val() {
            self.exitcode_r.d.next = self.exit_unused.val();
        }

        // B channel.
        if self.aw_fire.val() {
            self.bvalid_r.d.next = true;
            self.bresp_r.d.next = self.w_resp.val();
        } else if self.bready.val() {
            self.bvalid_r.d.next = false;
        }

        // Read decode: an address that is no register's offset (misaligned, unmapped) reads 0,
        // and so does INIT.
        self.ar_fire.next = self.arvalid.val() & !self.rvalid_r.q.val();
        self.r_value.next = self.zero32.val();
        if self.araddr.val() == self.off_archid.val() {
            self.r_value.next = self.archid_value.val();
        }
        if self.araddr.val() == self.off_impid.val() {
            self.r_value.next = self.impid_value.val();
        }
        if self.araddr.val() == self.off_inrows.val() {
            self.r_value.next = self.inrows_r.q.val();
        }
        if self.araddr.val() == self.off_incols.val() {
            self.r_value.next = self.incols_r.q.val();
        }
        if self.araddr.val() == self.off_wghtrows.val() {
            self.r_value.next = self.wghtrows_r.q.val();
        }
        if self.araddr.val() == self.off_wghtcols.val() {
            self.r_value.next = self.wghtcols_r.q.val();
        }
        if self.araddr.val() == self.off_reinputs.val() {
            self.r_value.next = self.reinputs_r.q.val();
        }
        if self.araddr.val() == self.off_reweights.val() {
            self.r_value.next = self.reweights_r.q.val();
        }
        if self.araddr.val() == self.off_saveout.val() {
            self.r_value.next = self.saveout_r.q.val();
        }
        if self.araddr.val() == self.off_usebias.val() {
            self.r_value.next = self.usebias_r.q.val();
        }
        if self.araddr.val() == self.off_usesumm.val() {
            self.r_value.next = self.usesumm_r.q.val();
        }
        if self.araddr.val() == self.off_shiftamt.val() {
            self.r_value.next = self.shiftamt_r.q.val();
        }
        if self.araddr.val() == self.off_actfn.val() {
            self.r_value.next = self.actfn_r.q.val();
        }
        if self.araddr.val() == self.off_base.val() {
            self.r_value.next = self.base_r.q.val();
        }
        if self.araddr.val() == self.off_result.val() {
            self.r_value.next = self.result_r.q.val();
        }
        if self.araddr.val() == self.off_irq.val() {
            self.r_value.next = self.irq_r.q.val();
        }
        if self.araddr.val() == self.off_exitcode.val() {
            self.r_value.next = self.exitcode_r.q.val();
        }
        self.r_resp.next = self.resp_okay.val();
        if self.araddr.val().get_bits::<2>(0) != self.aligned_low.val() {
            self.r_resp.next = self.resp_slverr.val();
        } else if self.araddr.val() >= self.map_size.val() {
            self.r_resp.next = self.resp_decerr.val();
        }

        // R channel.
        if self.ar_fire.val() {
            self.rvalid_r.d.next = true;
            self.rdata_r.d.next = self.r_value.val();
            self.rresp_r.d.next = self.r_resp.val();
        } else if self.rready.val() {
            self.rvalid_r.d.next = false;
        }

        // Outputs.
        self.awready.next = self.aw_fire.val();
        self.wready.next = self.aw_fire.val();
        self.bvalid.next = self.bvalid_r.q.val();
        self.bresp.next = self.bresp_r.q.val();
        self.arready.next = !self.rvalid_r.q.val();
        self.rvalid.next = self.rvalid_r.q.val();
        self.rdata.next = self.rdata_r.q.val();
        self.rresp.next = self.rresp_r.q.val();
        self.start.next = self.start_r.q.val();
        self.abort_layer.next = self.abort_r.q.val();
        self.irq.next = self.irq_r.q.val().get_bit(0);
        self.inrows.next = self.inrows_r.q.val().get_bits::<8>(0);
        self.incols.next = self.incols_r.q.val().get_bits::<8>(0);
        self.wghtrows.next = self.wghtrows_r.q.val().get_bits::<8>(0);
        self.wghtcols.next = self.wghtcols_r.q.val().get_bits::<8>(0);
        self.reinputs.next = self.reinputs_r.q.val().get_bit(0);
        self.reweights.next = self.reweights_r.q.val().get_bit(0);
        self.saveout.next = self.saveout_r.q.val().get_bit(0);
        self.usebias.next = self.usebias_r.q.val().get_bit(0);
        self.usesumm.next = self.usesumm_r.q.val().get_bit(0);
        self.shiftamt.next = self.shiftamt_r.q.val().get_bits::<8>(0);
        self.actfn.next = self.actfn_r.q.val().get_bit(0);
        self.base.next = self.base_r.q.val();
        self.result.next = self.result_r.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Csr::default, "scale_csr");
}
