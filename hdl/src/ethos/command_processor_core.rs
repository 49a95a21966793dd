//! The command processor's decode and execution, computed from registers alone (TRM §4.6;
//! digest `shared/spec/ethos-u65.md` §3): the fetch address of the word needed now and its
//! hit in the fetched line, the cmd0/cmd1 decode through the ROM generated from the command
//! table, the execution of one command a cycle, and the next read to issue. A sub-block of
//! [`super::CommandProcessor`], which keeps the registers and applies what depends on the
//! top's inputs (the read channel's handshakes and data, and `start` from the APB): with the
//! decode in the parent's one `always @(*)`, which reads those inputs, Verilator ran all of
//! it in its input region, twice a cycle, and once more after the edge (docs/ethos.md,
//! "Verilated speed", NPU step 3). Every input here is a register or a signal computed from
//! registers, so it runs once a cycle. Same registers, same cycles: the model
//! (`model/src/ethos/command_processor.rs`) is the reference of both blocks.
//!
//! Ports. The processor's registers come in by name (`qread`, `phase`, `pend_param`,
//! `pend_index`, `line`, `line_addr`, `line_valid`, `kernel_busy`, `ar_pending`,
//! `r_pending`); `*_next` are their next values before the read channel and `start`
//! (which the parent applies after, in the order the single block had); `issue` with
//! `issue_addr` and `issue_dma` is a read to put on the address channel. The rest are the
//! processor's own outputs, as [`super::CommandProcessor`] documents them.
use super::command_processor::{class, decode_rom};
use super::command_set::CMD1_CONTROL;
use crate::primitives::constant as k;
use crate::primitives::{Concat, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CommandProcessorCore {
    pub qbase0: Signal<In, Bits<32>>,
    pub qbase1: Signal<In, Bits<8>>,
    pub qsize: Signal<In, Bits<32>>,
    pub running: Signal<In, Bit>,
    pub debug_hold: Signal<In, Bit>,
    pub kernel_done: Signal<In, Bit>,
    pub kernel_error: Signal<In, Bits<4>>,
    pub dma_idle: Signal<In, Bit>,
    pub dma_fields_bad: Signal<In, Bit>,
    pub dma_wants_read: Signal<In, Bit>,
    pub dma_read_addr: Signal<In, Bits<40>>,
    // The parent's registers.
    pub qread: Signal<In, Bits<32>>,
    pub phase: Signal<In, Bit>,
    pub pend_param: Signal<In, Bits<16>>,
    pub pend_index: Signal<In, Bits<7>>,
    pub line: Signal<In, Bits<64>>,
    pub line_addr: Signal<In, Bits<40>>,
    pub line_valid: Signal<In, Bit>,
    pub kernel_busy: Signal<In, Bit>,
    pub ar_pending: Signal<In, Bit>,
    pub r_pending: Signal<In, Bit>,
    // Their next values, before the read channel and `start`.
    pub qread_next: Signal<Out, Bits<32>>,
    pub phase_next: Signal<Out, Bit>,
    pub pend_param_next: Signal<Out, Bits<16>>,
    pub pend_index_next: Signal<Out, Bits<7>>,
    pub kernel_busy_next: Signal<Out, Bit>,
    pub issue: Signal<Out, Bit>,
    pub issue_addr: Signal<Out, Bits<40>>,
    pub issue_dma: Signal<Out, Bit>,
    // The processor's outputs.
    pub signal: Signal<Out, Bit>,
    pub history: Signal<Out, Bits<16>>,
    pub stop: Signal<Out, Bit>,
    pub parse_error: Signal<Out, Bit>,
    pub at_end: Signal<Out, Bit>,
    pub kernel_failed: Signal<Out, Bit>,
    pub reg_write: Signal<Out, Bit>,
    pub reg_index: Signal<Out, Bits<7>>,
    pub reg_data: Signal<Out, Bits<48>>,
    pub dma_go: Signal<Out, Bit>,
    pub dma_read_issued: Signal<Out, Bit>,
    pub kernel_start: Signal<Out, Bit>,
    pub kernel_op: Signal<Out, Bits<2>>,
    pub kernel_mode: Signal<Out, Bits<16>>,
    rom: ROM<Bits<11>, 11>,
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

impl Default for CommandProcessorCore {
    fn default() -> Self {
        assert_eq!(CMD1_CONTROL >> 10, 0x10);
        Self {
            qbase0: Default::default(),
            qbase1: Default::default(),
            qsize: Default::default(),
            running: Default::default(),
            debug_hold: Default::default(),
            kernel_done: Default::default(),
            kernel_error: Default::default(),
            dma_idle: Default::default(),
            dma_fields_bad: Default::default(),
            dma_wants_read: Default::default(),
            dma_read_addr: Default::default(),
            qread: Default::default(),
            phase: Default::default(),
            pend_param: Default::default(),
            pend_index: Default::default(),
            line: Default::default(),
            line_addr: Default::default(),
            line_valid: Default::default(),
            kernel_busy: Default::default(),
            ar_pending: Default::default(),
            r_pending: Default::default(),
            qread_next: Default::default(),
            phase_next: Default::default(),
            pend_param_next: Default::default(),
            pend_index_next: Default::default(),
            kernel_busy_next: Default::default(),
            issue: Default::default(),
            issue_addr: Default::default(),
            issue_dma: Default::default(),
            signal: Default::default(),
            history: Default::default(),
            stop: Default::default(),
            parse_error: Default::default(),
            at_end: Default::default(),
            kernel_failed: Default::default(),
            reg_write: Default::default(),
            reg_index: Default::default(),
            reg_data: Default::default(),
            dma_go: Default::default(),
            dma_read_issued: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            kernel_mode: Default::default(),
            rom: ROM::new(decode_rom()),
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

impl Logic for CommandProcessorCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.quiet.next = !self.kernel_busy.val() & self.dma_idle.val();

        // Fetch address of the word needed now: the command, or a cmd1's payload after it.
        self.offset_now.next = self.qread.val();
        if self.phase.val() {
            self.offset_now.next = self.qread.val() + self.four.val();
        }
        self.qbase.high.next = self.qbase1.val();
        self.qbase.low.next = self.qbase0.val();
        self.fetch_offset.narrow.next = self.offset_now.val();
        self.address.next = self.qbase.joined.val() + self.fetch_offset.wide.val();
        self.aligned.next = self.address.val() & self.align_mask.val();
        self.hit.next = self.line_valid.val() & (self.aligned.val() == self.line_addr.val());
        // Bits 31:10 of the word: control field and parameter.
        self.word.next = self.line.val().get_bits::<22>(10);
        if self.address.val().get_bit(2) {
            self.word.next = self.line.val().get_bits::<22>(42);
        }

        // The inputs of the sub-blocks whose outputs the decode reads (ROM, width helpers) come
        // from a second copy of the fetch-line word: a statement that drives a sub-block's input
        // must share no local with those that read its output, or Verilator sees a
        // combinational loop through the one always block (UNOPTFLAT).
        // Bit 2 of QBASE + offset, from the registers (bits 1:0 of both are 0: no carry).
        self.word_lane.next = self.qbase0.val().get_bit(2) ^ self.qread.val().get_bit(2) ^ self.phase.val();
        self.word_copy.next = self.line.val().get_bits::<32>(0);
        if self.word_lane.val() {
            self.word_copy.next = self.line.val().get_bits::<32>(32);
        }
        self.rom_address.high.next = self.word_copy.val().get_bits::<1>(14);
        self.rom_address.low.next = self.word_copy.val().get_bits::<10>(0);
        self.param48.narrow.next = self.word_copy.val().get_bits::<16>(16);
        self.value48.high.next = self.pend_param.val();
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
        self.at_end.next = !self.phase.val() & (self.qread.val() >= self.qsize.val());
        self.no_payload.next = (self.qread.val() + self.four.val()) >= self.qsize.val();
        self.execute.next = self.running.val() & !self.at_end.val() & self.hit.val() & !self.debug_hold.val();
        self.first.next = self.execute.val() & !self.phase.val();
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
                self.kernel_start.next = !self.kernel_busy.val();
                self.advance4.next = !self.kernel_busy.val();
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
                self.advance4.next = !(self.kernel_busy.val() & (self.param.val() == self.zero16.val()));
            } else {
                // Reserved control field or opcode.
                self.parse_error.next = true;
            }
        }
        self.kernel_op.next = self.index.val().get_bits::<2>(0);
        self.kernel_mode.next = self.param.val();
        self.phase_next.next = self.phase.val();
        self.pend_param_next.next = self.pend_param.val();
        self.pend_index_next.next = self.pend_index.val();
        self.qread_next.next = self.qread.val();
        if self.first.val() & (self.cmd_class.val() == self.c_set1.val()) & !self.no_payload.val() {
            self.phase_next.next = true;
            self.pend_param_next.next = self.param.val();
            self.pend_index_next.next = self.index.val();
        }
        if self.advance4.val() {
            self.qread_next.next = self.qread.val() + self.four.val();
        }
        if self.execute.val() & self.phase.val() {
            self.phase_next.next = false;
            self.qread_next.next = self.qread.val() + self.eight.val();
        }

        // The register-file write of a SET: a cmd0's parameter, or a cmd1's with its payload.
        self.reg_write.next = self.set_write.val();
        self.reg_index.next = self.index.val();
        self.reg_data.next = self.param48.wide.val();
        if self.execute.val() & self.phase.val() {
            self.reg_write.next = true;
            self.reg_index.next = self.pend_index.val();
            self.reg_data.next = self.value48.joined.val();
        }

        // Reads: one in flight, the DMA's first, then the command fetch's (one 64-bit line).
        self.issue.next = false;
        self.issue_addr.next = self.aligned.val();
        self.issue_dma.next = false;
        if !self.ar_pending.val() & !self.r_pending.val() {
            if self.dma_wants_read.val() {
                self.issue.next = true;
                self.issue_addr.next = self.dma_read_addr.val();
                self.issue_dma.next = true;
            } else if self.running.val() & !self.at_end.val() & !self.hit.val() {
                self.issue.next = true;
            }
        }
        self.dma_read_issued.next = !self.ar_pending.val() & !self.r_pending.val() & self.dma_wants_read.val();

        // Kernels.
        self.kernel_failed.next = false;
        self.kernel_busy_next.next = self.kernel_busy.val();
        if self.kernel_start.val() {
            self.kernel_busy_next.next = true;
        }
        if self.kernel_busy.val() & self.kernel_done.val() {
            self.kernel_busy_next.next = false;
            self.kernel_failed.next = self.kernel_error.val() != self.zero4.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CommandProcessorCore::default, "command_processor_core");
}
