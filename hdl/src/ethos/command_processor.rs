//! The command front end's command processor (TRM §4.6; digest `shared/spec/ethos-u65.md`
//! §3): the fetch of the command stream from QBASE + QREAD over the memory read channel (one
//! 64-bit line, one read in flight, shared with the DMA, whose reads go first), the cmd0/cmd1
//! decoder generated from the one command table ([`super::command_set`]), and the execution
//! of one command a cycle: the `NPU_SET_*` writes, STOP and IRQ, the waits, DMA_START and the
//! kernel handshake. A sub-block of [`super::CommandFrontEnd`], whose documentation states the
//! ports and the decisions kept here; the model is `model/src/ethos/command_processor.rs`.
//!
//! Ports. `qbase0`, `qbase1`, `qsize`, `running` and `start` come from the register port;
//! `qread` goes back to it (APB reads of QREAD), with what happened this cycle for STATUS:
//! `signal` (STOP or IRQ executed, the command's parameter in `history`), `stop`,
//! `parse_error`, `at_end` (QREAD reached QSIZE), `fetch_error`, `dma_read_error` and
//! `kernel_failed`. `reg_write`, `reg_index`, `reg_data`: a SET's register-file write. The
//! `dma_*` ports are the DMA's side of the read channel and its DMA_START; `mem_*` the front
//! end's read channel, `kernel_*` and `debug_hold` its kernel handshake.
//!
//! This block keeps the registers and applies only what depends on the top's inputs: the
//! read channel (`mem_ar_ready`, `mem_r_*`) and `start` (the APB's CMD write). The decode and
//! execution are computed from registers alone in [`CommandProcessorCore`]
//! (command_processor_core.rs), so that the Verilated model evaluates them once a cycle
//! after the edge rather than also twice in its input region (docs/ethos.md, "Verilated
//! speed", NPU step 3).
use super::command_processor_core::CommandProcessorCore;
use super::command_set::{Action, Kind, COMMANDS};
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Decoder classes, the top 4 bits of a decode-ROM word (the low 7 bits are the register
/// index of a SET, or the kernel code of a kernel operation).
pub mod class {
    pub const INVALID: u64 = 0;
    pub const SET0: u64 = 1;
    pub const SET1: u64 = 2;
    pub const STOP: u64 = 3;
    pub const IRQ: u64 = 4;
    pub const KERNEL: u64 = 5;
    pub const DMA_START: u64 = 6;
    pub const DMA_WAIT: u64 = 7;
    pub const KERNEL_WAIT: u64 = 8;
    pub const PMU_MASK: u64 = 9;
}

/// The decode ROM, generated from the command table: address `{cmd1, opcode[9:0]}`, word
/// `{class[3:0], index[6:0]}`; absent addresses decode as [`class::INVALID`].
pub fn decode_rom() -> BTreeMap<Bits<11>, Bits<11>> {
    assert!(super::command_set::register_count() <= super::command_front_end::REGISTER_FILE_SIZE);
    COMMANDS
        .iter()
        .map(|c| {
            let address = u64::from(c.opcode) | if c.kind == Kind::Cmd1 { 1 << 10 } else { 0 };
            let (class, index) = match c.action() {
                Action::Set0 { index } => (class::SET0, index as u64),
                Action::Set1 { index } => (class::SET1, index as u64),
                Action::Stop => (class::STOP, 0),
                Action::Irq => (class::IRQ, 0),
                Action::Kernel { op } => (class::KERNEL, op as u64),
                Action::DmaStart => (class::DMA_START, 0),
                Action::DmaWait => (class::DMA_WAIT, 0),
                Action::KernelWait => (class::KERNEL_WAIT, 0),
                Action::PmuMask => (class::PMU_MASK, 0),
            };
            (address.into(), ((class << 7) | index).into())
        })
        .collect()
}

#[derive(LogicBlock)]
pub struct CommandProcessor {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub qbase0: Signal<In, Bits<32>>,
    pub qbase1: Signal<In, Bits<8>>,
    pub qsize: Signal<In, Bits<32>>,
    pub running: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub debug_hold: Signal<In, Bit>,
    pub mem_ar_ready: Signal<In, Bit>,
    pub mem_r_valid: Signal<In, Bit>,
    pub mem_r_data: Signal<In, Bits<64>>,
    pub mem_r_error: Signal<In, Bit>,
    pub kernel_done: Signal<In, Bit>,
    pub kernel_error: Signal<In, Bits<4>>,
    pub dma_idle: Signal<In, Bit>,
    pub dma_fields_bad: Signal<In, Bit>,
    pub dma_wants_read: Signal<In, Bit>,
    pub dma_read_addr: Signal<In, Bits<40>>,
    pub qread: Signal<Out, Bits<32>>,
    pub signal: Signal<Out, Bit>,
    pub history: Signal<Out, Bits<16>>,
    pub stop: Signal<Out, Bit>,
    pub parse_error: Signal<Out, Bit>,
    pub at_end: Signal<Out, Bit>,
    pub fetch_error: Signal<Out, Bit>,
    pub dma_read_error: Signal<Out, Bit>,
    pub kernel_failed: Signal<Out, Bit>,
    pub reg_write: Signal<Out, Bit>,
    pub reg_index: Signal<Out, Bits<7>>,
    pub reg_data: Signal<Out, Bits<48>>,
    pub dma_go: Signal<Out, Bit>,
    pub dma_read_issued: Signal<Out, Bit>,
    pub dma_r_valid: Signal<Out, Bit>,
    pub mem_ar_valid: Signal<Out, Bit>,
    pub mem_ar_addr: Signal<Out, Bits<40>>,
    pub kernel_start: Signal<Out, Bit>,
    pub kernel_op: Signal<Out, Bits<2>>,
    pub kernel_mode: Signal<Out, Bits<16>>,
    core: CommandProcessorCore,
    // Registers.
    qread_reg: Reg<Bits<32>>,
    /// A cmd1's payload is the word needed next.
    phase: Reg<Bit>,
    pend_param: Reg<Bits<16>>,
    pend_index: Reg<Bits<7>>,
    line: Reg<Bits<64>>,
    line_addr: Reg<Bits<40>>,
    line_valid: Reg<Bit>,
    ar_pending: Reg<Bit>,
    ar_addr: Reg<Bits<40>>,
    r_pending: Reg<Bit>,
    /// The read in flight belongs to a stream restarted since: drop its data.
    discard: Reg<Bit>,
    kernel_busy: Reg<Bit>,
    /// The read in flight is the DMA's (else the command fetch's).
    r_owner: Reg<Bit>,
    zero32: Constant<Bits<32>>,
}

impl Default for CommandProcessor {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            qbase0: Default::default(),
            qbase1: Default::default(),
            qsize: Default::default(),
            running: Default::default(),
            start: Default::default(),
            debug_hold: Default::default(),
            mem_ar_ready: Default::default(),
            mem_r_valid: Default::default(),
            mem_r_data: Default::default(),
            mem_r_error: Default::default(),
            kernel_done: Default::default(),
            kernel_error: Default::default(),
            dma_idle: Default::default(),
            dma_fields_bad: Default::default(),
            dma_wants_read: Default::default(),
            dma_read_addr: Default::default(),
            qread: Default::default(),
            signal: Default::default(),
            history: Default::default(),
            stop: Default::default(),
            parse_error: Default::default(),
            at_end: Default::default(),
            fetch_error: Default::default(),
            dma_read_error: Default::default(),
            kernel_failed: Default::default(),
            reg_write: Default::default(),
            reg_index: Default::default(),
            reg_data: Default::default(),
            dma_go: Default::default(),
            dma_read_issued: Default::default(),
            dma_r_valid: Default::default(),
            mem_ar_valid: Default::default(),
            mem_ar_addr: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            kernel_mode: Default::default(),
            core: Default::default(),
            qread_reg: Default::default(),
            phase: Default::default(),
            pend_param: Default::default(),
            pend_index: Default::default(),
            line: Default::default(),
            line_addr: Default::default(),
            line_valid: Default::default(),
            ar_pending: Default::default(),
            ar_addr: Default::default(),
            r_pending: Default::default(),
            discard: Default::default(),
            kernel_busy: Default::default(),
            r_owner: Default::default(),
            zero32: k(0),
        }
    }
}

impl Logic for CommandProcessor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, qread_reg, phase, pend_param, pend_index, line, line_addr, line_valid, ar_pending, ar_addr,
            r_pending, discard, kernel_busy, r_owner
        );
        self.qread_reg.reset.next = self.reset.val();
        self.phase.reset.next = self.reset.val();
        self.pend_param.reset.next = self.reset.val();
        self.pend_index.reset.next = self.reset.val();
        self.line.reset.next = self.reset.val();
        self.line_addr.reset.next = self.reset.val();
        self.line_valid.reset.next = self.reset.val();
        self.ar_pending.reset.next = self.reset.val();
        self.ar_addr.reset.next = self.reset.val();
        self.r_pending.reset.next = self.reset.val();
        self.discard.reset.next = self.reset.val();
        self.kernel_busy.reset.next = self.reset.val();
        self.r_owner.reset.next = self.reset.val();
        self.qread.next = self.qread_reg.q.val();

        // ---- the core sees registers only (each line below reads nothing written here)
        self.core.qbase0.next = self.qbase0.val();
        self.core.qbase1.next = self.qbase1.val();
        self.core.qsize.next = self.qsize.val();
        self.core.running.next = self.running.val();
        self.core.debug_hold.next = self.debug_hold.val();
        self.core.kernel_done.next = self.kernel_done.val();
        self.core.kernel_error.next = self.kernel_error.val();
        self.core.dma_idle.next = self.dma_idle.val();
        self.core.dma_fields_bad.next = self.dma_fields_bad.val();
        self.core.dma_wants_read.next = self.dma_wants_read.val();
        self.core.dma_read_addr.next = self.dma_read_addr.val();
        self.core.qread.next = self.qread_reg.q.val();
        self.core.phase.next = self.phase.q.val();
        self.core.pend_param.next = self.pend_param.q.val();
        self.core.pend_index.next = self.pend_index.q.val();
        self.core.line.next = self.line.q.val();
        self.core.line_addr.next = self.line_addr.q.val();
        self.core.line_valid.next = self.line_valid.q.val();
        self.core.kernel_busy.next = self.kernel_busy.q.val();
        self.core.ar_pending.next = self.ar_pending.q.val();
        self.core.r_pending.next = self.r_pending.q.val();

        // ---- the core's outputs: the decode, the executed command, the read to issue
        self.signal.next = self.core.signal.val();
        self.history.next = self.core.history.val();
        self.stop.next = self.core.stop.val();
        self.parse_error.next = self.core.parse_error.val();
        self.at_end.next = self.core.at_end.val();
        self.kernel_failed.next = self.core.kernel_failed.val();
        self.reg_write.next = self.core.reg_write.val();
        self.reg_index.next = self.core.reg_index.val();
        self.reg_data.next = self.core.reg_data.val();
        self.dma_go.next = self.core.dma_go.val();
        self.dma_read_issued.next = self.core.dma_read_issued.val();
        self.kernel_start.next = self.core.kernel_start.val();
        self.kernel_op.next = self.core.kernel_op.val();
        self.kernel_mode.next = self.core.kernel_mode.val();
        self.qread_reg.d.next = self.core.qread_next.val();
        self.phase.d.next = self.core.phase_next.val();
        self.pend_param.d.next = self.core.pend_param_next.val();
        self.pend_index.d.next = self.core.pend_index_next.val();
        self.kernel_busy.d.next = self.core.kernel_busy_next.val();

        // Reads: one in flight, the DMA's first, then the command fetch's (one 64-bit line).
        if self.core.issue.val() {
            self.ar_pending.d.next = true;
            self.ar_addr.d.next = self.core.issue_addr.val();
            self.r_owner.d.next = self.core.issue_dma.val();
        }
        if self.ar_pending.q.val() & self.mem_ar_ready.val() {
            self.ar_pending.d.next = false;
            self.r_pending.d.next = true;
        }
        self.fetch_error.next = false;
        self.dma_read_error.next = false;
        self.dma_r_valid.next = self.r_pending.q.val() & self.mem_r_valid.val() & self.r_owner.q.val();
        if self.r_pending.q.val() & self.mem_r_valid.val() {
            self.r_pending.d.next = false;
            if self.r_owner.q.val() {
                self.dma_read_error.next = self.mem_r_error.val();
            } else if self.discard.q.val() {
                self.discard.d.next = false;
            } else if self.mem_r_error.val() {
                self.fetch_error.next = self.running.val();
            } else {
                self.line.d.next = self.mem_r_data.val();
                self.line_addr.d.next = self.ar_addr.q.val();
                self.line_valid.d.next = true;
            }
        }
        self.mem_ar_valid.next = self.ar_pending.q.val();
        self.mem_ar_addr.next = self.ar_addr.q.val();

        // CMD.transition_to_running: the stream starts again at QREAD = 0, and a fetch in
        // flight is dropped.
        if self.start.val() {
            self.qread_reg.d.next = self.zero32.val();
            self.phase.d.next = false;
            self.line_valid.d.next = false;
            self.discard.d.next = self.ar_pending.q.val() | (self.r_pending.q.val() & !self.mem_r_valid.val());
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CommandProcessor::default, "command_processor");
}
