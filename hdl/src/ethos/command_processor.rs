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
use super::command_set::{Action, Kind, COMMANDS, CMD1_CONTROL};
use crate::primitives::constant as k;
use crate::primitives::{Concat, Reg, ZeroExtend};
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
    rom: ROM<Bits<11>, 11>,
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
    // Width helpers.
    qbase: Concat<8, 32, 40>,
    fetch_offset: ZeroExtend<32, 40>,
    rom_address: Concat<1, 10, 11>,
    param48: ZeroExtend<16, 48>,
    value48: Concat<16, 32, 48>,
    // Decode, in the order computed.
    offset_now: Signal<Local, Bits<32>>,
    word_lane: Signal<Local, Bit>,
    word_copy: Signal<Local, Bits<32>>,
    address: Signal<Local, Bits<40>>,
    aligned: Signal<Local, Bits<40>>,
    hit: Signal<Local, Bit>,
    word: Signal<Local, Bits<22>>,
    control_ok: Signal<Local, Bit>,
    cmd_class: Signal<Local, Bits<4>>,
    index: Signal<Local, Bits<7>>,
    param: Signal<Local, Bits<16>>,
    no_payload: Signal<Local, Bit>,
    execute: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    advance4: Signal<Local, Bit>,
    set_write: Signal<Local, Bit>,
    quiet: Signal<Local, Bit>,
    // Constants.
    align_mask: Constant<Bits<40>>,
    four: Constant<Bits<32>>,
    eight: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero16: Constant<Bits<16>>,
    zero6: Constant<Bits<6>>,
    zero4: Constant<Bits<4>>,
    cmd1_control: Constant<Bits<6>>,
    c_set0: Constant<Bits<4>>,
    c_set1: Constant<Bits<4>>,
    c_stop: Constant<Bits<4>>,
    c_irq: Constant<Bits<4>>,
    c_kernel: Constant<Bits<4>>,
    c_dma_start: Constant<Bits<4>>,
    c_dma_wait: Constant<Bits<4>>,
    c_kernel_wait: Constant<Bits<4>>,
    c_pmu_mask: Constant<Bits<4>>,
}

impl Default for CommandProcessor {
    fn default() -> Self {
        assert_eq!(CMD1_CONTROL >> 10, 0x10);
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
            rom: ROM::new(decode_rom()),
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
            qbase: Default::default(),
            fetch_offset: Default::default(),
            rom_address: Default::default(),
            param48: Default::default(),
            value48: Default::default(),
            offset_now: Default::default(),
            word_lane: Default::default(),
            word_copy: Default::default(),
            address: Default::default(),
            aligned: Default::default(),
            hit: Default::default(),
            word: Default::default(),
            control_ok: Default::default(),
            cmd_class: Default::default(),
            index: Default::default(),
            param: Default::default(),
            no_payload: Default::default(),
            execute: Default::default(),
            first: Default::default(),
            advance4: Default::default(),
            set_write: Default::default(),
            quiet: Default::default(),
            align_mask: k(((1u64 << 40) - 1) & !7),
            four: k(4),
            eight: k(8),
            zero32: k(0),
            zero16: k(0),
            zero6: k(0),
            zero4: k(0),
            cmd1_control: k(u64::from(CMD1_CONTROL >> 10)),
            c_set0: k(class::SET0),
            c_set1: k(class::SET1),
            c_stop: k(class::STOP),
            c_irq: k(class::IRQ),
            c_kernel: k(class::KERNEL),
            c_dma_start: k(class::DMA_START),
            c_dma_wait: k(class::DMA_WAIT),
            c_kernel_wait: k(class::KERNEL_WAIT),
            c_pmu_mask: k(class::PMU_MASK),
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
        self.quiet.next = !self.kernel_busy.q.val() & self.dma_idle.val();
        self.qread.next = self.qread_reg.q.val();

        // Fetch address of the word needed now: the command, or a cmd1's payload after it.
        self.offset_now.next = self.qread_reg.q.val();
        if self.phase.q.val() {
            self.offset_now.next = self.qread_reg.q.val() + self.four.val();
        }
        self.qbase.high.next = self.qbase1.val();
        self.qbase.low.next = self.qbase0.val();
        self.fetch_offset.narrow.next = self.offset_now.val();
        self.address.next = self.qbase.joined.val() + self.fetch_offset.wide.val();
        self.aligned.next = self.address.val() & self.align_mask.val();
        self.hit.next = self.line_valid.q.val() & (self.aligned.val() == self.line_addr.q.val());
        // Bits 31:10 of the word: control field and parameter.
        self.word.next = self.line.q.val().get_bits::<22>(10);
        if self.address.val().get_bit(2) {
            self.word.next = self.line.q.val().get_bits::<22>(42);
        }

        // The inputs of the sub-blocks whose outputs the decode reads (ROM, width helpers) come
        // from a second copy of the fetch-line word: a statement that drives a sub-block's input
        // must share no local with those that read its output, or Verilator sees a
        // combinational loop through the one always block (UNOPTFLAT).
        // Bit 2 of QBASE + offset, from the registers (bits 1:0 of both are 0: no carry).
        self.word_lane.next = self.qbase0.val().get_bit(2) ^ self.qread_reg.q.val().get_bit(2) ^ self.phase.q.val();
        self.word_copy.next = self.line.q.val().get_bits::<32>(0);
        if self.word_lane.val() {
            self.word_copy.next = self.line.q.val().get_bits::<32>(32);
        }
        self.rom_address.high.next = self.word_copy.val().get_bits::<1>(14);
        self.rom_address.low.next = self.word_copy.val().get_bits::<10>(0);
        self.param48.narrow.next = self.word_copy.val().get_bits::<16>(16);
        self.value48.high.next = self.pend_param.q.val();
        self.value48.low.next = self.word_copy.val();
        self.history.next = self.word_copy.val().get_bits::<16>(16);

        // Decode: the control field, then the ROM generated from the command table.
        self.control_ok.next = (self.word.val().get_bits::<6>(0) == self.zero6.val())
            | (self.word.val().get_bits::<6>(0) == self.cmd1_control.val());
        self.rom.address.next = self.rom_address.joined.val();
        self.cmd_class.next = self.rom.data.val().get_bits::<4>(7);
        if !self.control_ok.val() {
            self.cmd_class.next = self.zero4.val();
        }
        self.index.next = self.rom.data.val().get_bits::<7>(0);
        self.param.next = self.word.val().get_bits::<16>(6);

        // Execution of the command word (phase 0) or a cmd1's payload (phase 1).
        self.at_end.next = !self.phase.q.val() & (self.qread_reg.q.val() >= self.qsize.val());
        self.no_payload.next = (self.qread_reg.q.val() + self.four.val()) >= self.qsize.val();
        self.execute.next = self.running.val() & !self.at_end.val() & self.hit.val() & !self.debug_hold.val();
        self.first.next = self.execute.val() & !self.phase.q.val();
        self.parse_error.next = false;
        self.dma_go.next = false;
        self.signal.next = false;
        self.stop.next = false;
        self.advance4.next = false;
        self.set_write.next = false;
        self.kernel_start.next = false;
        if self.first.val() {
            if self.cmd_class.val() == self.c_set0.val() {
                self.set_write.next = true;
                self.advance4.next = true;
            } else if self.cmd_class.val() == self.c_set1.val() {
                self.parse_error.next = self.no_payload.val();
            } else if self.cmd_class.val() == self.c_stop.val() {
                self.signal.next = self.quiet.val();
                self.stop.next = self.quiet.val();
                self.advance4.next = self.quiet.val();
            } else if self.cmd_class.val() == self.c_irq.val() {
                self.signal.next = self.quiet.val();
                self.advance4.next = self.quiet.val();
            } else if self.cmd_class.val() == self.c_kernel.val() {
                self.kernel_start.next = !self.kernel_busy.q.val();
                self.advance4.next = !self.kernel_busy.q.val();
            } else if self.cmd_class.val() == self.c_pmu_mask.val() {
                self.advance4.next = true;
            } else if self.cmd_class.val() == self.c_dma_wait.val() {
                self.advance4.next = !(!self.dma_idle.val() & (self.param.val() == self.zero16.val()));
            } else if self.cmd_class.val() == self.c_dma_start.val() {
                if self.dma_idle.val() {
                    self.parse_error.next = self.dma_fields_bad.val();
                    self.dma_go.next = !self.dma_fields_bad.val();
                    self.advance4.next = !self.dma_fields_bad.val();
                }
            } else if self.cmd_class.val() == self.c_kernel_wait.val() {
                self.advance4.next = !(self.kernel_busy.q.val() & (self.param.val() == self.zero16.val()));
            } else {
                // Reserved control field or opcode.
                self.parse_error.next = true;
            }
        }
        self.kernel_op.next = self.index.val().get_bits::<2>(0);
        self.kernel_mode.next = self.param.val();
        if self.first.val() & (self.cmd_class.val() == self.c_set1.val()) & !self.no_payload.val() {
            self.phase.d.next = true;
            self.pend_param.d.next = self.param.val();
            self.pend_index.d.next = self.index.val();
        }
        if self.advance4.val() {
            self.qread_reg.d.next = self.qread_reg.q.val() + self.four.val();
        }
        if self.execute.val() & self.phase.q.val() {
            self.phase.d.next = false;
            self.qread_reg.d.next = self.qread_reg.q.val() + self.eight.val();
        }

        // The register-file write of a SET: a cmd0's parameter, or a cmd1's with its payload.
        self.reg_write.next = self.set_write.val();
        self.reg_index.next = self.index.val();
        self.reg_data.next = self.param48.wide.val();
        if self.execute.val() & self.phase.q.val() {
            self.reg_write.next = true;
            self.reg_index.next = self.pend_index.q.val();
            self.reg_data.next = self.value48.joined.val();
        }

        // Reads: one in flight, the DMA's first, then the command fetch's (one 64-bit line).
        if !self.ar_pending.q.val() & !self.r_pending.q.val() {
            if self.dma_wants_read.val() {
                self.ar_pending.d.next = true;
                self.ar_addr.d.next = self.dma_read_addr.val();
                self.r_owner.d.next = true;
            } else if self.running.val() & !self.at_end.val() & !self.hit.val() {
                self.ar_pending.d.next = true;
                self.ar_addr.d.next = self.aligned.val();
                self.r_owner.d.next = false;
            }
        }
        if self.ar_pending.q.val() & self.mem_ar_ready.val() {
            self.ar_pending.d.next = false;
            self.r_pending.d.next = true;
        }
        self.fetch_error.next = false;
        self.dma_read_error.next = false;
        self.dma_read_issued.next = !self.ar_pending.q.val() & !self.r_pending.q.val() & self.dma_wants_read.val();
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

        // Kernels.
        self.kernel_failed.next = false;
        if self.kernel_start.val() {
            self.kernel_busy.d.next = true;
        }
        if self.kernel_busy.q.val() & self.kernel_done.val() {
            self.kernel_busy.d.next = false;
            self.kernel_failed.next = self.kernel_error.val() != self.zero4.val();
        }

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
