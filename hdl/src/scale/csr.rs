//! ScaleNPU control and status registers behind an AXI4-Lite slave (seeds/004). Offsets,
//! field masks and reset values come from [`super::regmap::REGISTERS`]; the model is
//! `npu_model::scale::csr`. Its sub-blocks: the write channel (`csr_write.rs`), the register
//! file (`csr_registers.rs`) and the read channel (`csr_read.rs`); this block wires them.
use super::csr_read::CsrRead;
use super::csr_registers::CsrRegisters;
use super::csr_write::CsrWrite;
use super::regmap::{self, Access};
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
    /// The AXI4-Lite write channel, the register file, the read channel.
    write: CsrWrite,
    registers: CsrRegisters,
    read: CsrRead,
}

/// The single field of register `name`, checked against what this RTL was written for: its
/// access type and the width of the port it drives, at bit 0. A register map change the RTL
/// cannot follow stops here, at construction.
pub(super) fn field(name: &str, access: Access, width: u32) -> &'static regmap::Field {
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

pub(super) fn offset(name: &str) -> Constant<Bits<8>> {
    byte_constant(regmap::register(name).offset)
}

pub(super) fn byte_constant(value: u32) -> Constant<Bits<8>> {
    assert!(
        value < 0x100,
        "Csr: 0x{value:X} needs more than the 8-bit AXI address"
    );
    Constant::new(u64::from(value).into())
}

pub(super) fn word(value: u32) -> Constant<Bits<32>> {
    Constant::new(u64::from(value).into())
}

/// Mask constant of a register's field, checked as [`field`] does.
pub(super) fn mask(name: &str, access: Access, width: u32) -> Constant<Bits<32>> {
    word(field(name, access, width).mask())
}

impl Default for Csr {
    fn default() -> Self {
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
            write: Default::default(),
            registers: Default::default(),
            read: Default::default(),
        }
    }
}

impl Logic for Csr {
    #[hdl_gen]
    fn update(&mut self) {
        self.write.clock.next = self.clock.val();
        self.write.reset.next = self.reset.val();
        self.write.awvalid.next = self.awvalid.val();
        self.write.awaddr.next = self.awaddr.val();
        self.write.wvalid.next = self.wvalid.val();
        self.write.wstrb.next = self.wstrb.val();
        self.write.bready.next = self.bready.val();
        self.write.busy.next = self.busy.val();
        self.write.starting.next = self.registers.start.val();
        self.registers.clock.next = self.clock.val();
        self.registers.reset.next = self.reset.val();
        self.registers.ok.next = self.write.ok.val();
        self.registers.awaddr.next = self.awaddr.val();
        self.registers.wdata.next = self.wdata.val();
        self.registers.strobe0.next = self.wstrb.val().get_bit(0);
        self.registers.lanes.next = self.write.lanes.val();
        self.registers.finish.next = self.finish.val();
        self.registers.exit_code.next = self.exit_code.val();
        self.registers.araddr.next = self.araddr.val();
        self.read.clock.next = self.clock.val();
        self.read.reset.next = self.reset.val();
        self.read.arvalid.next = self.arvalid.val();
        self.read.araddr.next = self.araddr.val();
        self.read.rready.next = self.rready.val();
        self.read.value.next = self.registers.value.val();
        self.awready.next = self.write.awready.val();
        self.wready.next = self.write.wready.val();
        self.bvalid.next = self.write.bvalid.val();
        self.bresp.next = self.write.bresp.val();
        self.abort_layer.next = self.write.abort_layer.val();
        self.arready.next = self.read.arready.val();
        self.rvalid.next = self.read.rvalid.val();
        self.rdata.next = self.read.rdata.val();
        self.rresp.next = self.read.rresp.val();
        self.start.next = self.registers.start.val();
        self.irq.next = self.registers.irq.val();
        self.inrows.next = self.registers.inrows.val();
        self.incols.next = self.registers.incols.val();
        self.wghtrows.next = self.registers.wghtrows.val();
        self.wghtcols.next = self.registers.wghtcols.val();
        self.reinputs.next = self.registers.reinputs.val();
        self.reweights.next = self.registers.reweights.val();
        self.saveout.next = self.registers.saveout.val();
        self.usebias.next = self.registers.usebias.val();
        self.usesumm.next = self.registers.usesumm.val();
        self.shiftamt.next = self.registers.shiftamt.val();
        self.actfn.next = self.registers.actfn.val();
        self.base.next = self.registers.base.val();
        self.result.next = self.registers.result.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Csr::default, "scale_csr");
}
