//! The CSR block's register file (seeds/004, the register map [`super::regmap::REGISTERS`]):
//! the configuration fields (rw, the strobed bytes of an OKAY write), INIT's `start` pulse,
//! IRQ.FINISHED, EXITCODE, and the value a read of an address returns. The sub-block of
//! [`super::csr::Csr`], whose doc has the timing and the decisions; model
//! `npu_model::scale::csr` (the whole block; the split is the RTL's alone).
//!
//! A write takes effect at the end of the cycle the write channel says `ok` (with its byte
//! `lanes`); `value` is combinational in `araddr` (0 for an address that is no register's,
//! and for INIT); every output but `value` is a register.
use super::csr::{field, mask, offset, word};
use super::regmap::{self, Access};
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CsrRegisters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The write channel: an OKAY write is taken at `awaddr`, of `wdata`'s bytes in `lanes`.
    pub ok: Signal<In, Bit>,
    pub awaddr: Signal<In, Bits<8>>,
    pub wdata: Signal<In, Bits<32>>,
    pub lanes: Signal<In, Bits<32>>,
    /// `wstrb[0]`: INIT and IRQ act on a written 1 in their low byte only.
    pub strobe0: Signal<In, Bit>,
    /// The datapath's layer is finished, with its exit code.
    pub finish: Signal<In, Bit>,
    pub exit_code: Signal<In, Bits<2>>,
    /// The read channel's address, and the value there.
    pub araddr: Signal<In, Bits<8>>,
    pub value: Signal<Out, Bits<32>>,
    pub start: Signal<Out, Bit>,
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
    start_r: Reg<Bit>,
    exit_wide: ZeroExtend<2, 32>,
    start_now: Signal<Local, Bit>,
    irq_clear: Signal<Local, Bit>,
    // Offsets, field masks in place, read-only values (from the register map).
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
    zero32: Constant<Bits<32>>,
}

/// The register holding `name`, with the field's reset value.
fn register(name: &str, access: Access, width: u32) -> Reg<Bits<32>> {
    let f = field(name, access, width);
    Reg::new(u64::from(f.reset << f.lsb).into())
}

impl Default for CsrRegisters {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ok: Default::default(),
            awaddr: Default::default(),
            wdata: Default::default(),
            lanes: Default::default(),
            strobe0: Default::default(),
            finish: Default::default(),
            exit_code: Default::default(),
            araddr: Default::default(),
            value: Default::default(),
            start: Default::default(),
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
            start_r: Default::default(),
            exit_wide: Default::default(),
            start_now: Default::default(),
            irq_clear: Default::default(),
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
        }
    }
}

impl Logic for CsrRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, inrows_r, incols_r, wghtrows_r, wghtcols_r, reinputs_r, reweights_r, saveout_r, usebias_r, usesumm_r, shiftamt_r, actfn_r, base_r, result_r, irq_r, exitcode_r, start_r);
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
        self.start_r.reset.next = self.reset.val();
        self.exit_wide.narrow.next = self.exit_code.val();

        // rw fields: the strobed bytes from wdata, the others kept, bits outside the field 0.
        if self.ok.val() & (self.awaddr.val() == self.off_inrows.val()) {
            self.inrows_r.d.next = ((self.inrows_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_inrows.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_incols.val()) {
            self.incols_r.d.next = ((self.incols_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_incols.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_wghtrows.val()) {
            self.wghtrows_r.d.next = ((self.wghtrows_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_wghtrows.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_wghtcols.val()) {
            self.wghtcols_r.d.next = ((self.wghtcols_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_wghtcols.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_reinputs.val()) {
            self.reinputs_r.d.next = ((self.reinputs_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_reinputs.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_reweights.val()) {
            self.reweights_r.d.next = ((self.reweights_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_reweights.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_saveout.val()) {
            self.saveout_r.d.next = ((self.saveout_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_saveout.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_usebias.val()) {
            self.usebias_r.d.next = ((self.usebias_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_usebias.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_usesumm.val()) {
            self.usesumm_r.d.next = ((self.usesumm_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_usesumm.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_shiftamt.val()) {
            self.shiftamt_r.d.next = ((self.shiftamt_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_shiftamt.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_actfn.val()) {
            self.actfn_r.d.next = ((self.actfn_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_actfn.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_base.val()) {
            self.base_r.d.next = ((self.base_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_base.val();
        }
        if self.ok.val() & (self.awaddr.val() == self.off_result.val()) {
            self.result_r.d.next = ((self.result_r.q.val() & !self.lanes.val())
                | (self.wdata.val() & self.lanes.val()))
                & self.mask_result.val();
        }

        // INIT: start (the write channel's ok already excludes busy, INIT being busy-protected).
        self.start_now.next = self.ok.val()
            & (self.awaddr.val() == self.off_init.val())
            & self.strobe0.val()
            & self.wdata.val().get_bit(0);
        self.start_r.d.next = self.start_now.val();

        // IRQ.FINISHED: finish sets, a written 1 clears, set wins.
        self.irq_clear.next = self.ok.val()
            & (self.awaddr.val() == self.off_irq.val())
            & self.strobe0.val()
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

        // Read decode: an address that is no register's offset (misaligned, unmapped) reads 0,
        // and so does INIT.
        self.value.next = self.zero32.val();
        if self.araddr.val() == self.off_archid.val() {
            self.value.next = self.archid_value.val();
        }
        if self.araddr.val() == self.off_impid.val() {
            self.value.next = self.impid_value.val();
        }
        if self.araddr.val() == self.off_inrows.val() {
            self.value.next = self.inrows_r.q.val();
        }
        if self.araddr.val() == self.off_incols.val() {
            self.value.next = self.incols_r.q.val();
        }
        if self.araddr.val() == self.off_wghtrows.val() {
            self.value.next = self.wghtrows_r.q.val();
        }
        if self.araddr.val() == self.off_wghtcols.val() {
            self.value.next = self.wghtcols_r.q.val();
        }
        if self.araddr.val() == self.off_reinputs.val() {
            self.value.next = self.reinputs_r.q.val();
        }
        if self.araddr.val() == self.off_reweights.val() {
            self.value.next = self.reweights_r.q.val();
        }
        if self.araddr.val() == self.off_saveout.val() {
            self.value.next = self.saveout_r.q.val();
        }
        if self.araddr.val() == self.off_usebias.val() {
            self.value.next = self.usebias_r.q.val();
        }
        if self.araddr.val() == self.off_usesumm.val() {
            self.value.next = self.usesumm_r.q.val();
        }
        if self.araddr.val() == self.off_shiftamt.val() {
            self.value.next = self.shiftamt_r.q.val();
        }
        if self.araddr.val() == self.off_actfn.val() {
            self.value.next = self.actfn_r.q.val();
        }
        if self.araddr.val() == self.off_base.val() {
            self.value.next = self.base_r.q.val();
        }
        if self.araddr.val() == self.off_result.val() {
            self.value.next = self.result_r.q.val();
        }
        if self.araddr.val() == self.off_irq.val() {
            self.value.next = self.irq_r.q.val();
        }
        if self.araddr.val() == self.off_exitcode.val() {
            self.value.next = self.exitcode_r.q.val();
        }

        self.start.next = self.start_r.q.val();
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
    crate::synth_check::assert_synthesizes(CsrRegisters::default, "scale_csr_registers");
}
