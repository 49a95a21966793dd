//! Ethos-U65 command front end (TRM §4.6 and the register map §3; digest
//! `shared/spec/ethos-u65.md` §3-§4): the APB register port a driver programs, the command
//! fetch from QBASE over the memory master port, the cmd0/cmd1 decoder generated from the one
//! command table ([`super::command_set`]), the `NPU_SET_*` register file, STOP/IRQ, the waits,
//! the STATUS error bits, and the DMA (1D copies between regions). Kernels are started on a
//! handshake port that stands for the kernel units that come later. The model
//! (`model/src/ethos/command_front_end.rs`) changes the same registers in the same cycles;
//! docs/ethos.md, "Command front end", has the block diagram, timing and the decisions, which
//! are also written next to the code here.
//!
//! Sub-blocks, each in its own file with its model under the same name: the APB register
//! port with STATUS and IRQ ([`super::register_port`]), the command processor that fetches,
//! decodes and executes the stream ([`super::command_processor`]) and the DMA
//! ([`super::dma`]). This block keeps the `NPU_SET_*` register file and the debug port the
//! kernel units read, and wires the three.
//!
//! Decisions (the TRM leaves these open):
//! - Registers: ID, STATUS, CMD, QBASE0/1, QREAD, QSIZE, CONFIG and BASEP0..15 (digest §4).
//!   Every other offset, and any offset with bits 1:0 set, reads 0 and ignores writes.
//!   QBASE0 keeps bits 31:2 (4-byte aligned), QBASE1 bits 7:0 (a 40-bit base), QSIZE bits
//!   24:2 (a multiple of 4 up to 32 MB - 4: the TRM's 16 MB limit fits, and QREAD + 8 never
//!   overflows). Writes take effect at once, running or not.
//! - STATUS.reset_status (bit 3, reset value 1) is high while the front end clears its
//!   register file and BASEPs after reset ([`CLEAR_CYCLES`] cycles: the TRM's reset clears
//!   the internal RAMs); CMD.transition_to_running is ignored until it is 0, and while
//!   bus_status or cmd_parse_error (cleared only by reset) is set.
//! - transition_to_running starts the stream at QREAD = 0. STOP leaves QREAD after it (so
//!   QREAD = QSIZE after a Vela stream); an error leaves QREAD at the offending command.
//! - STOP and IRQ wait until no kernel and no DMA is outstanding ("earlier operations are
//!   complete"); at most one kernel is outstanding ([`MAX_KERNELS`]), so a second kernel
//!   operation waits for the first's `kernel_done`. `NPU_SET_*` commands go on while a kernel
//!   or a DMA runs: the kernel units latch what they need at `kernel_start`, the DMA takes its
//!   regions, offsets and length at DMA_START.
//! - KERNEL_WAIT n waits while more than n kernels are outstanding; PMU_MASK does nothing (no
//!   PMU).
//! - DMA: one descriptor at a time (the TRM's channel takes two): DMA_START waits while a DMA
//!   runs, DMA_WAIT k waits while more than k are outstanding. 1D only, external to external:
//!   a DMA_START whose SRC_REGION or DST_REGION has a bit above bit 2 set (an internal
//!   destination, a 2D/3D mode, a region above 7) or whose LEN needs more than 32 bits is a
//!   cmd_parse_error at the DMA_START. The copy goes forward in steps of up to 8 bytes that stay
//!   inside one aligned 64-bit word on both sides (one read, then one write with byte
//!   strobes), so any alignment works. A read error sets bus_status with faulting_channel 4
//!   (mem2mem read), a write error 9 (mem2mem write); QREAD is then where the stream was.
//!   The command fetch and the DMA share the read channel, one read in flight, the DMA first.
//! - A cmd1 whose payload word would be at or beyond QSIZE is a cmd_parse_error at the cmd1.
//! - A read error on the command fetch sets bus_status with faulting_channel 0 (command); a
//!   `kernel_done` with a non-zero `kernel_error` sets bus_status with faulting_channel =
//!   `kernel_error` (the kernel units report the TRM's channel code of the access that failed:
//!   1 IFM, 2 weights, 3 scale, 8 OFM). Every error and reaching QSIZE without STOP stops the
//!   NPU (STATUS.state 0) and raises the IRQ.
use super::command_processor::CommandProcessor;
use super::dma::Dma;
use super::register_port::RegisterPort;
use crate::primitives::constant as k;
use crate::primitives::{Ram, Reg, ZeroExtend};
use rust_hdl::prelude::*;

pub use super::command_processor::{class, decode_rom};
pub use super::register_port::{
    offset, status, CMD_RESET, CONFIG, DMA_READ_CHANNEL, DMA_WRITE_CHANNEL, ID, QBASE0_MASK, QSIZE_MASK,
};

/// Kernels that may be outstanding at once.
pub const MAX_KERNELS: u32 = 1;
/// Register-file entries (a power of two at least the number of `NPU_SET_*` commands).
pub const REGISTER_FILE_SIZE: usize = 128;
/// Cycles after reset during which the register file is cleared (STATUS.reset_status).
pub const CLEAR_CYCLES: usize = REGISTER_FILE_SIZE;
/// Debug-port index of BASEP0: indices `DEBUG_BASEP + k` (k = 0..15) read BASEPk
/// (zero-extended to 48 bits) instead of the register file, whose entries there are unused.
/// This is how a kernel unit reads the base of the regions it addresses.
pub const DEBUG_BASEP: usize = 112;

/// The front end. Ports:
/// - APB3 slave, zero wait states: `apb_sel`, `apb_enable`, `apb_write`, `apb_addr`,
///   `apb_wdata`, `apb_rdata`. A write takes effect at the end of its access phase
///   (`sel & enable & write`); a read is sampled at the end of its setup phase (`sel &
///   !enable & !write`) and `apb_rdata` holds it from the access phase on. `irq` is
///   STATUS.irq_raised.
/// - Memory master (docs/ethos.md, "Memory port"): read channel `mem_ar_valid`, `mem_ar_addr`
///   (8-byte aligned, held until `mem_ar_ready`), then `mem_r_valid` with `mem_r_data` and
///   `mem_r_error`, at least one cycle after the address was taken; one read at a time. Write
///   channel (the DMA's): `mem_aw_valid` with `mem_aw_addr` (aligned), `mem_w_data` and
///   `mem_w_strb` in the same beat, held until `mem_aw_ready`; then `mem_b_valid` with
///   `mem_b_error`, at least one cycle later; one write at a time.
/// - Kernel handshake: `kernel_start` for one cycle with `kernel_op` (the index in
///   [`super::command_set::KERNEL_OPS`]) and `kernel_mode` (the command's parameter), both
///   valid only with `kernel_start`; `kernel_done` (with `kernel_error`, 0 for none) ends it.
///   `kernel_done` with no kernel outstanding is ignored.
/// - Debug: `debug_value` is register-file entry `debug_index` of the cycle before (the
///   `NPU_SET_*` index of [`super::command_set::register`]), or BASEP k for the index
///   [`DEBUG_BASEP`] + k; `debug_hold` keeps the front end
///   from executing a command in this cycle (fetch goes on), so a test bench can read the
///   register file as a kernel saw it.
#[derive(LogicBlock)]
pub struct CommandFrontEnd {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub apb_sel: Signal<In, Bit>,
    pub apb_enable: Signal<In, Bit>,
    pub apb_write: Signal<In, Bit>,
    pub apb_addr: Signal<In, Bits<12>>,
    pub apb_wdata: Signal<In, Bits<32>>,
    pub mem_ar_ready: Signal<In, Bit>,
    pub mem_r_valid: Signal<In, Bit>,
    pub mem_r_data: Signal<In, Bits<64>>,
    pub mem_r_error: Signal<In, Bit>,
    pub kernel_done: Signal<In, Bit>,
    pub kernel_error: Signal<In, Bits<4>>,
    pub debug_index: Signal<In, Bits<7>>,
    pub debug_hold: Signal<In, Bit>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    pub apb_rdata: Signal<Out, Bits<32>>,
    pub irq: Signal<Out, Bit>,
    pub mem_ar_valid: Signal<Out, Bit>,
    pub mem_ar_addr: Signal<Out, Bits<40>>,
    pub kernel_start: Signal<Out, Bit>,
    pub kernel_op: Signal<Out, Bits<2>>,
    pub kernel_mode: Signal<Out, Bits<16>>,
    pub debug_value: Signal<Out, Bits<48>>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    /// The APB registers, STATUS and IRQ, the BASEPs and the clear after reset.
    register_port: RegisterPort,
    /// Fetch, decode and execution of the command stream.
    processor: CommandProcessor,
    /// The DMA (its own copy of the BASEPs and of its registers).
    dma: Dma,
    /// The `NPU_SET_*` register file.
    registers: Ram<48, 7>,
    /// A copy of the BASEPs for the debug port (the kernel units read their regions' BASEPs there).
    kernel_basep: Ram<32, 4>,
    /// The debug read of the cycle before was a BASEP (index [`DEBUG_BASEP`] + k).
    debug_basep: Reg<Bit>,
    basep48: ZeroExtend<32, 48>,
    zero48: Constant<Bits<48>>,
    debug_basep_high: Constant<Bits<3>>,
}

/// Register-file index of an `NPU_SET_*` command.
pub(super) fn register_index(name: &str) -> Constant<Bits<7>> {
    let index = (0..super::command_set::register_count())
        .find(|&i| super::command_set::register(i).is_some_and(|c| c.name == name))
        .expect("an NPU_SET_ command of the table");
    k(index as u64)
}

impl Default for CommandFrontEnd {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            apb_sel: Default::default(),
            apb_enable: Default::default(),
            apb_write: Default::default(),
            apb_addr: Default::default(),
            apb_wdata: Default::default(),
            mem_ar_ready: Default::default(),
            mem_r_valid: Default::default(),
            mem_r_data: Default::default(),
            mem_r_error: Default::default(),
            kernel_done: Default::default(),
            kernel_error: Default::default(),
            debug_index: Default::default(),
            debug_hold: Default::default(),
            mem_aw_ready: Default::default(),
            mem_b_valid: Default::default(),
            mem_b_error: Default::default(),
            apb_rdata: Default::default(),
            irq: Default::default(),
            mem_ar_valid: Default::default(),
            mem_ar_addr: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            kernel_mode: Default::default(),
            debug_value: Default::default(),
            mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(),
            mem_w_data: Default::default(),
            mem_w_strb: Default::default(),
            register_port: Default::default(),
            processor: Default::default(),
            dma: Default::default(),
            registers: Default::default(),
            kernel_basep: Default::default(),
            debug_basep: Default::default(),
            basep48: Default::default(),
            zero48: k(0),
            debug_basep_high: k((DEBUG_BASEP >> 4) as u64),
        }
    }
}

impl Logic for CommandFrontEnd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, debug_basep);
        self.debug_basep.reset.next = self.reset.val();
        self.register_port.clock.next = self.clock.val();
        self.register_port.reset.next = self.reset.val();
        self.processor.clock.next = self.clock.val();
        self.processor.reset.next = self.reset.val();
        self.dma.clock.next = self.clock.val();
        self.dma.reset.next = self.reset.val();
        self.registers.clock.next = self.clock.val();
        self.registers.reset.next = self.reset.val();
        self.kernel_basep.clock.next = self.clock.val();
        self.kernel_basep.reset.next = self.reset.val();

        // APB register port: the bus, and what happened this cycle for STATUS.
        self.register_port.apb_sel.next = self.apb_sel.val();
        self.register_port.apb_enable.next = self.apb_enable.val();
        self.register_port.apb_write.next = self.apb_write.val();
        self.register_port.apb_addr.next = self.apb_addr.val();
        self.register_port.apb_wdata.next = self.apb_wdata.val();
        self.register_port.dma_idle.next = self.dma.idle.val();
        self.register_port.qread.next = self.processor.qread.val();
        self.register_port.signal.next = self.processor.signal.val();
        self.register_port.history.next = self.processor.history.val();
        self.register_port.stop.next = self.processor.stop.val();
        self.register_port.parse_error.next = self.processor.parse_error.val();
        self.register_port.at_end.next = self.processor.at_end.val();
        self.register_port.fetch_error.next = self.processor.fetch_error.val();
        self.register_port.dma_read_error.next = self.processor.dma_read_error.val();
        self.register_port.dma_write_error.next = self.dma.write_wait.val() & self.mem_b_valid.val() & self.mem_b_error.val();
        self.register_port.kernel_failed.next = self.processor.kernel_failed.val();
        self.register_port.kernel_error.next = self.kernel_error.val();
        self.apb_rdata.next = self.register_port.apb_rdata.val();
        self.irq.next = self.register_port.irq.val();

        // Command processor: the queue registers, the read channel and the kernel handshake.
        self.processor.qbase0.next = self.register_port.qbase0.val();
        self.processor.qbase1.next = self.register_port.qbase1.val();
        self.processor.qsize.next = self.register_port.qsize.val();
        self.processor.running.next = self.register_port.running.val();
        self.processor.start.next = self.register_port.start.val();
        self.processor.debug_hold.next = self.debug_hold.val();
        self.processor.mem_ar_ready.next = self.mem_ar_ready.val();
        self.processor.mem_r_valid.next = self.mem_r_valid.val();
        self.processor.mem_r_data.next = self.mem_r_data.val();
        self.processor.mem_r_error.next = self.mem_r_error.val();
        self.processor.kernel_done.next = self.kernel_done.val();
        self.processor.kernel_error.next = self.kernel_error.val();
        self.processor.dma_idle.next = self.dma.idle.val();
        self.processor.dma_fields_bad.next = self.dma.fields_bad.val();
        self.processor.dma_wants_read.next = self.dma.wants_read.val();
        self.processor.dma_read_addr.next = self.dma.read_addr.val();
        self.mem_ar_valid.next = self.processor.mem_ar_valid.val();
        self.mem_ar_addr.next = self.processor.mem_ar_addr.val();
        self.kernel_start.next = self.processor.kernel_start.val();
        self.kernel_op.next = self.processor.kernel_op.val();
        self.kernel_mode.next = self.processor.kernel_mode.val();

        // Register file: cleared after reset, then written by SET commands.
        self.registers.write_enable.next = self.processor.reg_write.val();
        self.registers.write_address.next = self.processor.reg_index.val();
        self.registers.write_data.next = self.processor.reg_data.val();
        if self.register_port.clearing.val() {
            self.registers.write_enable.next = true;
            self.registers.write_address.next = self.register_port.clear_index.val();
            self.registers.write_data.next = self.zero48.val();
        }
        // The DMA's registers, copied as the register file takes them.
        self.dma.reg_write.next = self.processor.reg_write.val() & !self.register_port.clearing.val();
        self.dma.reg_index.next = self.registers.write_address.val();
        self.dma.reg_data.next = self.registers.write_data.val();
        self.registers.read_enable.next = !self.register_port.clearing.val();
        self.registers.read_address.next = self.debug_index.val();
        self.kernel_basep.read_enable.next = !self.register_port.clearing.val();
        self.kernel_basep.read_address.next = self.debug_index.val().get_bits::<4>(0);
        self.debug_basep.d.next = self.debug_index.val().get_bits::<3>(4) == self.debug_basep_high.val();
        self.basep48.narrow.next = self.kernel_basep.read_data.val();
        self.debug_value.next = self.registers.read_data.val();
        if self.debug_basep.q.val() {
            self.debug_value.next = self.basep48.wide.val();
        }

        // The BASEP writes, into the DMA's and the debug port's copies.
        self.dma.basep_write_enable.next = self.register_port.basep_write_enable.val();
        self.dma.basep_write_address.next = self.register_port.basep_write_address.val();
        self.dma.basep_write_data.next = self.register_port.basep_write_data.val();
        self.kernel_basep.write_enable.next = self.register_port.basep_write_enable.val();
        self.kernel_basep.write_address.next = self.register_port.basep_write_address.val();
        self.kernel_basep.write_data.next = self.register_port.basep_write_data.val();

        // DMA (1D, external to external): the read channel through the processor, the write
        // channel its own.
        self.dma.go.next = self.processor.dma_go.val();
        self.dma.read_issued.next = self.processor.dma_read_issued.val();
        self.dma.r_valid.next = self.processor.dma_r_valid.val();
        self.dma.r_error.next = self.mem_r_error.val();
        self.dma.r_data.next = self.mem_r_data.val();
        self.dma.aw_ready.next = self.mem_aw_ready.val();
        self.dma.b_valid.next = self.mem_b_valid.val();
        self.dma.b_error.next = self.mem_b_error.val();
        self.mem_aw_valid.next = self.dma.aw_valid.val();
        self.mem_aw_addr.next = self.dma.aw_addr.val();
        self.mem_w_data.next = self.dma.w_data.val();
        self.mem_w_strb.next = self.dma.w_strb.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CommandFrontEnd::default, "command_front_end");
}
