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
use super::command_set::{Action, Kind, COMMANDS, CMD1_CONTROL};
use super::dma::Dma;
use crate::primitives::{Concat, Ram, Reg, ZeroExtend};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;
use crate::primitives::constant as k;

/// ID register value (digest §4: Ethos-U65 r0p0, architecture 1.0.6).
pub const ID: u32 = 0x1006_6001;
/// CONFIG register value of ethos-u65-256 (digest §4: 48 KB SHRAM, 2^8 MACs a cycle).
pub const CONFIG: u32 = 0x1000_3008;
/// CMD's reset value (clock and power Q-channels enabled).
pub const CMD_RESET: u32 = 0xC;
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

/// APB offsets (digest §4).
pub mod offset {
    pub const ID: u32 = 0x000;
    pub const STATUS: u32 = 0x004;
    pub const CMD: u32 = 0x008;
    pub const QBASE0: u32 = 0x010;
    pub const QBASE1: u32 = 0x014;
    pub const QREAD: u32 = 0x018;
    pub const QSIZE: u32 = 0x020;
    pub const CONFIG: u32 = 0x028;
    pub const BASEP0: u32 = 0x080;
}

/// STATUS bits (digest §4).
pub mod status {
    pub const RUNNING: u32 = 1 << 0;
    pub const IRQ_RAISED: u32 = 1 << 1;
    pub const BUS_STATUS: u32 = 1 << 2;
    pub const RESET_STATUS: u32 = 1 << 3;
    pub const CMD_PARSE_ERROR: u32 = 1 << 4;
    pub const CMD_END_REACHED: u32 = 1 << 5;
    pub const FAULTING_CHANNEL_SHIFT: u32 = 12;
    pub const IRQ_HISTORY_SHIFT: u32 = 16;
}

/// faulting_channel of a DMA read and write error (digest §4: mem2mem read 4, write 9).
pub const DMA_READ_CHANNEL: u32 = 4;
pub const DMA_WRITE_CHANNEL: u32 = 9;

/// QBASE0 and QSIZE bits kept (see the module's decisions).
pub const QBASE0_MASK: u32 = 0xffff_fffc;
pub const QSIZE_MASK: u32 = 0x01ff_fffc;

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
    assert!(super::command_set::register_count() <= REGISTER_FILE_SIZE);
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
    // Storage.
    registers: Ram<48, 7>,
    basep: Ram<32, 4>,
    /// The DMA (its own copy of the BASEPs and of its registers).
    dma: Dma,
    /// A third copy for the debug port (the kernel units read their regions' BASEPs there).
    kernel_basep: Ram<32, 4>,
    /// The debug read of the cycle before was a BASEP (index [`DEBUG_BASEP`] + k).
    debug_basep: Reg<Bit>,
    basep48: ZeroExtend<32, 48>,
    rom: ROM<Bits<11>, 11>,
    // Registers.
    status: Reg<Bits<32>>,
    clear_index: Reg<Bits<7>>,
    cmd: Reg<Bits<32>>,
    qbase0: Reg<Bits<32>>,
    qbase1: Reg<Bits<8>>,
    qsize: Reg<Bits<32>>,
    qread: Reg<Bits<32>>,
    phase: Reg<Bit>,
    pend_param: Reg<Bits<16>>,
    pend_index: Reg<Bits<7>>,
    line: Reg<Bits<64>>,
    line_addr: Reg<Bits<40>>,
    line_valid: Reg<Bit>,
    ar_pending: Reg<Bit>,
    ar_addr: Reg<Bits<40>>,
    r_pending: Reg<Bit>,
    discard: Reg<Bit>,
    kernel_busy: Reg<Bit>,
    rdata: Reg<Bits<32>>,
    rd_basep: Reg<Bit>,
    /// The read in flight is the DMA's (else the command fetch's).
    r_owner: Reg<Bit>,
    // Width helpers.
    qbase: Concat<8, 32, 40>,
    fetch_offset: ZeroExtend<32, 40>,
    rom_address: Concat<1, 10, 11>,
    param48: ZeroExtend<16, 48>,
    value48: Concat<16, 32, 48>,
    qbase1_32: ZeroExtend<8, 32>,
    history32: Concat<16, 16, 32>,
    channel32: ZeroExtend<4, 32>,
    // Decode, in the order computed.
    in_running: Signal<Local, Bit>,
    in_clear: Signal<Local, Bit>,
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
    at_end: Signal<Local, Bit>,
    no_payload: Signal<Local, Bit>,
    execute: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    parse_error: Signal<Local, Bit>,
    fetch_error: Signal<Local, Bit>,
    kernel_failed: Signal<Local, Bit>,
    signal: Signal<Local, Bit>,
    stop: Signal<Local, Bit>,
    advance4: Signal<Local, Bit>,
    set_write: Signal<Local, Bit>,
    apb_wr: Signal<Local, Bit>,
    apb_rd: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    clear_mask: Signal<Local, Bits<32>>,
    set_mask: Signal<Local, Bits<32>>,
    run_next: Signal<Local, Bit>,
    reset_next: Signal<Local, Bit>,
    state_bits: Signal<Local, Bits<32>>,
    quiet: Signal<Local, Bit>,
    dma_go: Signal<Local, Bit>,
    dma_read_error: Signal<Local, Bit>,
    dma_write_error: Signal<Local, Bit>,
    read_value: Signal<Local, Bits<32>>,
    basep_hit: Signal<Local, Bit>,
    // Constants.
    k_id: Constant<Bits<32>>,
    k_config: Constant<Bits<32>>,
    o_id: Constant<Bits<12>>,
    o_status: Constant<Bits<12>>,
    o_cmd: Constant<Bits<12>>,
    o_qbase0: Constant<Bits<12>>,
    o_qbase1: Constant<Bits<12>>,
    o_qread: Constant<Bits<12>>,
    o_qsize: Constant<Bits<12>>,
    o_config: Constant<Bits<12>>,
    basep_high: Constant<Bits<6>>,
    zero2: Constant<Bits<2>>,
    qbase0_mask: Constant<Bits<32>>,
    qsize_mask: Constant<Bits<32>>,
    align_mask: Constant<Bits<40>>,
    four: Constant<Bits<32>>,
    eight: Constant<Bits<32>>,
    zero32: Constant<Bits<32>>,
    zero16: Constant<Bits<16>>,
    zero48: Constant<Bits<48>>,
    zero6: Constant<Bits<6>>,
    cmd1_control: Constant<Bits<6>>,
    last_clear: Constant<Bits<7>>,
    one7: Constant<Bits<7>>,
    zero4: Constant<Bits<4>>,
    c_set0: Constant<Bits<4>>,
    c_set1: Constant<Bits<4>>,
    c_stop: Constant<Bits<4>>,
    c_irq: Constant<Bits<4>>,
    c_kernel: Constant<Bits<4>>,
    c_dma_wait: Constant<Bits<4>>,
    c_kernel_wait: Constant<Bits<4>>,
    c_pmu_mask: Constant<Bits<4>>,
    s_irq: Constant<Bits<32>>,
    s_bus: Constant<Bits<32>>,
    s_parse: Constant<Bits<32>>,
    s_end: Constant<Bits<32>>,
    s_history: Constant<Bits<32>>,
    s_state_bits: Constant<Bits<32>>,
    s_running: Constant<Bits<32>>,
    s_resetting: Constant<Bits<32>>,
    channel_shift: Constant<Bits<32>>,
    c_dma_start: Constant<Bits<4>>,
    ch_dma_read: Constant<Bits<32>>,
    ch_dma_write: Constant<Bits<32>>,
    debug_basep_high: Constant<Bits<3>>,
    k_unsupported: Constant<Bits<4>>,
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
        assert_eq!(CLEAR_CYCLES, 1 << 7, "the clear counter walks every register-file entry");
        assert_eq!(CMD1_CONTROL >> 10, 0x10);
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
            apb_rdata: Default::default(),
            irq: Default::default(),
            mem_ar_valid: Default::default(),
            mem_ar_addr: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            kernel_mode: Default::default(),
            debug_value: Default::default(),
            mem_aw_ready: Default::default(),
            mem_b_valid: Default::default(),
            mem_b_error: Default::default(),
            mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(),
            mem_w_data: Default::default(),
            mem_w_strb: Default::default(),
            kernel_basep: Default::default(),
            debug_basep: Default::default(),
            basep48: Default::default(),
            debug_basep_high: k((DEBUG_BASEP >> 4) as u64),
            k_unsupported: k(u64::from(super::elementwise::ERROR_UNSUPPORTED)),
            r_owner: Default::default(),
            dma: Default::default(),
            quiet: Default::default(),
            dma_go: Default::default(),
            dma_read_error: Default::default(),
            dma_write_error: Default::default(),
            c_dma_start: k(class::DMA_START),
            ch_dma_read: k(u64::from(DMA_READ_CHANNEL << status::FAULTING_CHANNEL_SHIFT)),
            ch_dma_write: k(u64::from(DMA_WRITE_CHANNEL << status::FAULTING_CHANNEL_SHIFT)),
            registers: Default::default(),
            basep: Default::default(),
            rom: ROM::new(decode_rom()),
            status: Reg::new(u64::from(status::RESET_STATUS).into()),
            clear_index: Default::default(),
            cmd: Reg::new(u64::from(CMD_RESET).into()),
            qbase0: Default::default(),
            qbase1: Default::default(),
            qsize: Default::default(),
            qread: Default::default(),
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
            rdata: Default::default(),
            rd_basep: Default::default(),
            qbase: Default::default(),
            fetch_offset: Default::default(),
            rom_address: Default::default(),
            param48: Default::default(),
            value48: Default::default(),
            qbase1_32: Default::default(),
            history32: Default::default(),
            channel32: Default::default(),
            in_running: Default::default(),
            in_clear: Default::default(),
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
            at_end: Default::default(),
            no_payload: Default::default(),
            execute: Default::default(),
            first: Default::default(),
            parse_error: Default::default(),
            fetch_error: Default::default(),
            kernel_failed: Default::default(),
            signal: Default::default(),
            stop: Default::default(),
            advance4: Default::default(),
            set_write: Default::default(),
            apb_wr: Default::default(),
            apb_rd: Default::default(),
            start: Default::default(),
            clear_mask: Default::default(),
            set_mask: Default::default(),
            run_next: Default::default(),
            reset_next: Default::default(),
            state_bits: Default::default(),
            read_value: Default::default(),
            basep_hit: Default::default(),
            k_id: k(u64::from(ID)),
            k_config: k(u64::from(CONFIG)),
            o_id: k(u64::from(offset::ID)),
            o_status: k(u64::from(offset::STATUS)),
            o_cmd: k(u64::from(offset::CMD)),
            o_qbase0: k(u64::from(offset::QBASE0)),
            o_qbase1: k(u64::from(offset::QBASE1)),
            o_qread: k(u64::from(offset::QREAD)),
            o_qsize: k(u64::from(offset::QSIZE)),
            o_config: k(u64::from(offset::CONFIG)),
            basep_high: k(u64::from(offset::BASEP0 >> 6)),
            zero2: k(0),
            qbase0_mask: k(u64::from(QBASE0_MASK)),
            qsize_mask: k(u64::from(QSIZE_MASK)),
            align_mask: k(((1u64 << 40) - 1) & !7),
            four: k(4),
            eight: k(8),
            zero32: k(0),
            zero16: k(0),
            zero48: k(0),
            zero6: k(0),
            cmd1_control: k(u64::from(CMD1_CONTROL >> 10)),
            last_clear: k(CLEAR_CYCLES as u64 - 1),
            one7: k(1),
            zero4: k(0),
            c_set0: k(class::SET0),
            c_set1: k(class::SET1),
            c_stop: k(class::STOP),
            c_irq: k(class::IRQ),
            c_kernel: k(class::KERNEL),
            c_dma_wait: k(class::DMA_WAIT),
            c_kernel_wait: k(class::KERNEL_WAIT),
            c_pmu_mask: k(class::PMU_MASK),
            s_irq: k(u64::from(status::IRQ_RAISED)),
            s_bus: k(u64::from(status::BUS_STATUS)),
            s_parse: k(u64::from(status::CMD_PARSE_ERROR)),
            s_end: k(u64::from(status::CMD_END_REACHED)),
            s_history: k(0xffff_0000),
            s_state_bits: k(u64::from(status::RUNNING | status::RESET_STATUS)),
            s_running: k(u64::from(status::RUNNING)),
            s_resetting: k(u64::from(status::RESET_STATUS)),
            channel_shift: k(u64::from(status::FAULTING_CHANNEL_SHIFT)),
        }
    }
}

impl Logic for CommandFrontEnd {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, status, clear_index, cmd, qbase0, qbase1, qsize, qread, phase, pend_param, pend_index, line,
            line_addr, line_valid, ar_pending, ar_addr, r_pending, discard, kernel_busy, rdata, rd_basep, r_owner,
            debug_basep
        );
        self.debug_basep.reset.next = self.reset.val();
        self.kernel_basep.clock.next = self.clock.val();
        self.kernel_basep.reset.next = self.reset.val();
        self.r_owner.reset.next = self.reset.val();
        self.dma.clock.next = self.clock.val();
        self.dma.reset.next = self.reset.val();
        self.quiet.next = !self.kernel_busy.q.val() & self.dma.idle.val();
        self.status.reset.next = self.reset.val();
        self.clear_index.reset.next = self.reset.val();
        self.cmd.reset.next = self.reset.val();
        self.qbase0.reset.next = self.reset.val();
        self.qbase1.reset.next = self.reset.val();
        self.qsize.reset.next = self.reset.val();
        self.qread.reset.next = self.reset.val();
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
        self.rdata.reset.next = self.reset.val();
        self.rd_basep.reset.next = self.reset.val();
        self.registers.clock.next = self.clock.val();
        self.registers.reset.next = self.reset.val();
        self.basep.clock.next = self.clock.val();
        self.basep.reset.next = self.reset.val();

        self.in_running.next = (self.status.q.val() & self.s_running.val()) != self.zero32.val();
        self.in_clear.next = (self.status.q.val() & self.s_resetting.val()) != self.zero32.val();

        // Fetch address of the word needed now: the command, or a cmd1's payload after it.
        self.offset_now.next = self.qread.q.val();
        if self.phase.q.val() {
            self.offset_now.next = self.qread.q.val() + self.four.val();
        }
        self.qbase.high.next = self.qbase1.q.val();
        self.qbase.low.next = self.qbase0.q.val();
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
        self.word_lane.next = self.qbase0.q.val().get_bit(2) ^ self.qread.q.val().get_bit(2) ^ self.phase.q.val();
        self.word_copy.next = self.line.q.val().get_bits::<32>(0);
        if self.word_lane.val() {
            self.word_copy.next = self.line.q.val().get_bits::<32>(32);
        }
        self.rom_address.high.next = self.word_copy.val().get_bits::<1>(14);
        self.rom_address.low.next = self.word_copy.val().get_bits::<10>(0);
        self.param48.narrow.next = self.word_copy.val().get_bits::<16>(16);
        self.value48.high.next = self.pend_param.q.val();
        self.value48.low.next = self.word_copy.val();
        self.history32.high.next = self.word_copy.val().get_bits::<16>(16);
        self.history32.low.next = self.zero16.val();

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
        self.at_end.next = !self.phase.q.val() & (self.qread.q.val() >= self.qsize.q.val());
        self.no_payload.next = (self.qread.q.val() + self.four.val()) >= self.qsize.q.val();
        self.execute.next = self.in_running.val() & !self.at_end.val() & self.hit.val() & !self.debug_hold.val();
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
                self.advance4.next = !(!self.dma.idle.val() & (self.param.val() == self.zero16.val()));
            } else if self.cmd_class.val() == self.c_dma_start.val() {
                if self.dma.idle.val() {
                    self.parse_error.next = self.dma.fields_bad.val();
                    self.dma_go.next = !self.dma.fields_bad.val();
                    self.advance4.next = !self.dma.fields_bad.val();
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
            self.qread.d.next = self.qread.q.val() + self.four.val();
        }
        if self.execute.val() & self.phase.q.val() {
            self.phase.d.next = false;
            self.qread.d.next = self.qread.q.val() + self.eight.val();
        }

        // Register file: cleared after reset, then written by SET commands.
        self.registers.write_enable.next = false;
        self.registers.write_address.next = self.index.val();
        self.registers.write_data.next = self.param48.wide.val();
        if self.in_clear.val() {
            self.registers.write_enable.next = true;
            self.registers.write_address.next = self.clear_index.q.val();
            self.registers.write_data.next = self.zero48.val();
        } else if self.set_write.val() {
            self.registers.write_enable.next = true;
        } else if self.execute.val() & self.phase.q.val() {
            self.registers.write_enable.next = true;
            self.registers.write_address.next = self.pend_index.q.val();
            self.registers.write_data.next = self.value48.joined.val();
        }
        // The DMA's registers, copied as the register file takes them.
        self.dma.reg_write.next = self.registers.write_enable.val() & !self.in_clear.val();
        self.dma.reg_index.next = self.registers.write_address.val();
        self.dma.reg_data.next = self.registers.write_data.val();
        self.registers.read_enable.next = !self.in_clear.val();
        self.registers.read_address.next = self.debug_index.val();
        self.kernel_basep.read_enable.next = !self.in_clear.val();
        self.kernel_basep.read_address.next = self.debug_index.val().get_bits::<4>(0);
        self.debug_basep.d.next = self.debug_index.val().get_bits::<3>(4) == self.debug_basep_high.val();
        self.basep48.narrow.next = self.kernel_basep.read_data.val();
        self.debug_value.next = self.registers.read_data.val();
        if self.debug_basep.q.val() {
            self.debug_value.next = self.basep48.wide.val();
        }
        if self.in_clear.val() {
            self.clear_index.d.next = self.clear_index.q.val() + self.one7.val();
        }

        // Reads: one in flight, the DMA's first, then the command fetch's (one 64-bit line).
        if !self.ar_pending.q.val() & !self.r_pending.q.val() {
            if self.dma.wants_read.val() {
                self.ar_pending.d.next = true;
                self.ar_addr.d.next = self.dma.read_addr.val();
                self.r_owner.d.next = true;
            } else if self.in_running.val() & !self.at_end.val() & !self.hit.val() {
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
        self.dma.read_issued.next = !self.ar_pending.q.val() & !self.r_pending.q.val() & self.dma.wants_read.val();
        self.dma.r_valid.next = self.r_pending.q.val() & self.mem_r_valid.val() & self.r_owner.q.val();
        self.dma.r_error.next = self.mem_r_error.val();
        self.dma.r_data.next = self.mem_r_data.val();
        if self.r_pending.q.val() & self.mem_r_valid.val() {
            self.r_pending.d.next = false;
            if self.r_owner.q.val() {
                self.dma_read_error.next = self.mem_r_error.val();
            } else if self.discard.q.val() {
                self.discard.d.next = false;
            } else if self.mem_r_error.val() {
                self.fetch_error.next = self.in_running.val();
            } else {
                self.line.d.next = self.mem_r_data.val();
                self.line_addr.d.next = self.ar_addr.q.val();
                self.line_valid.d.next = true;
            }
        }
        self.mem_ar_valid.next = self.ar_pending.q.val();
        self.mem_ar_addr.next = self.ar_addr.q.val();

        // DMA (1D, external to external): the write channel is its own.
        self.dma.go.next = self.dma_go.val();
        self.dma.aw_ready.next = self.mem_aw_ready.val();
        self.dma.b_valid.next = self.mem_b_valid.val();
        self.dma.b_error.next = self.mem_b_error.val();
        self.dma_write_error.next = self.dma.write_wait.val() & self.mem_b_valid.val() & self.mem_b_error.val();
        self.mem_aw_valid.next = self.dma.aw_valid.val();
        self.mem_aw_addr.next = self.dma.aw_addr.val();
        self.mem_w_data.next = self.dma.w_data.val();
        self.mem_w_strb.next = self.dma.w_strb.val();

        // Kernels.
        self.kernel_failed.next = false;
        if self.kernel_start.val() {
            self.kernel_busy.d.next = true;
        }
        if self.kernel_busy.q.val() & self.kernel_done.val() {
            self.kernel_busy.d.next = false;
            self.kernel_failed.next = self.kernel_error.val() != self.zero4.val();
        }

        // APB: a write in its access phase, a read sampled in its setup phase.
        self.apb_wr.next = self.apb_sel.val() & self.apb_enable.val() & self.apb_write.val();
        self.apb_rd.next = self.apb_sel.val() & !self.apb_enable.val() & !self.apb_write.val();
        self.basep_hit.next =
            (self.apb_addr.val().get_bits::<6>(6) == self.basep_high.val()) & (self.apb_addr.val().get_bits::<2>(0) == self.zero2.val());
        self.start.next = false;
        if self.apb_wr.val() {
            if self.apb_addr.val() == self.o_cmd.val() {
                self.cmd.d.next = self.apb_wdata.val();
                self.start.next = self.apb_wdata.val().get_bit(0)
                    & self.dma.idle.val()
                    & ((self.status.q.val() & (self.s_state_bits.val() | self.s_bus.val() | self.s_parse.val()))
                        == self.zero32.val());
            }
            if self.apb_addr.val() == self.o_qbase0.val() {
                self.qbase0.d.next = self.apb_wdata.val() & self.qbase0_mask.val();
            }
            if self.apb_addr.val() == self.o_qbase1.val() {
                self.qbase1.d.next = self.apb_wdata.val().get_bits::<8>(0);
            }
            if self.apb_addr.val() == self.o_qsize.val() {
                self.qsize.d.next = self.apb_wdata.val() & self.qsize_mask.val();
            }
        }
        self.basep.write_enable.next = self.apb_wr.val() & self.basep_hit.val();
        self.basep.write_address.next = self.apb_addr.val().get_bits::<4>(2);
        self.basep.write_data.next = self.apb_wdata.val();
        if self.in_clear.val() {
            self.basep.write_enable.next = true;
            self.basep.write_address.next = self.clear_index.q.val().get_bits::<4>(0);
            self.basep.write_data.next = self.zero32.val();
        }
        self.dma.basep_write_enable.next = self.basep.write_enable.val();
        self.dma.basep_write_address.next = self.basep.write_address.val();
        self.dma.basep_write_data.next = self.basep.write_data.val();
        self.kernel_basep.write_enable.next = self.basep.write_enable.val();
        self.kernel_basep.write_address.next = self.basep.write_address.val();
        self.kernel_basep.write_data.next = self.basep.write_data.val();
        self.basep.read_enable.next = self.apb_rd.val() & !self.in_clear.val();
        self.basep.read_address.next = self.apb_addr.val().get_bits::<4>(2);
        self.qbase1_32.narrow.next = self.qbase1.q.val();
        self.read_value.next = self.zero32.val();
        if self.apb_addr.val() == self.o_id.val() {
            self.read_value.next = self.k_id.val();
        }
        if self.apb_addr.val() == self.o_status.val() {
            self.read_value.next = self.status.q.val();
        }
        if self.apb_addr.val() == self.o_cmd.val() {
            self.read_value.next = self.cmd.q.val();
        }
        if self.apb_addr.val() == self.o_qbase0.val() {
            self.read_value.next = self.qbase0.q.val();
        }
        if self.apb_addr.val() == self.o_qbase1.val() {
            self.read_value.next = self.qbase1_32.wide.val();
        }
        if self.apb_addr.val() == self.o_qread.val() {
            self.read_value.next = self.qread.q.val();
        }
        if self.apb_addr.val() == self.o_qsize.val() {
            self.read_value.next = self.qsize.q.val();
        }
        if self.apb_addr.val() == self.o_config.val() {
            self.read_value.next = self.k_config.val();
        }
        if self.apb_rd.val() {
            self.rdata.d.next = self.read_value.val();
            self.rd_basep.d.next = self.basep_hit.val();
        }
        self.apb_rdata.next = self.rdata.q.val();
        if self.rd_basep.q.val() {
            self.apb_rdata.next = self.basep.read_data.val();
        }

        // STATUS: clears from CMD and Q writes, then what happened this cycle sets bits.
        self.clear_mask.next = self.zero32.val();
        if self.apb_wr.val() & (self.apb_addr.val() == self.o_cmd.val()) {
            self.clear_mask.next = self.apb_wdata.val() & self.s_history.val();
            if self.apb_wdata.val().get_bit(1) {
                self.clear_mask.next = (self.apb_wdata.val() & self.s_history.val()) | self.s_irq.val();
            }
        }
        if self.apb_wr.val()
            & ((self.apb_addr.val() == self.o_qbase0.val())
                | (self.apb_addr.val() == self.o_qbase1.val())
                | (self.apb_addr.val() == self.o_qsize.val()))
            & !self.in_running.val()
        {
            self.clear_mask.next = self.s_end.val();
        }
        self.channel32.narrow.next = self.kernel_error.val();
        self.set_mask.next = self.zero32.val();
        if self.signal.val() {
            self.set_mask.next = self.history32.joined.val() | self.s_irq.val();
        }
        if self.parse_error.val() {
            self.set_mask.next = self.s_parse.val() | self.s_irq.val();
        }
        if self.in_running.val() & self.at_end.val() {
            self.set_mask.next = self.s_end.val() | self.s_irq.val();
        }
        if self.fetch_error.val() {
            self.set_mask.next = self.s_bus.val() | self.s_irq.val();
        }
        if self.dma_read_error.val() {
            self.set_mask.next = self.s_bus.val() | self.s_irq.val() | self.ch_dma_read.val();
        }
        if self.dma_write_error.val() {
            self.set_mask.next = self.s_bus.val() | self.s_irq.val() | self.ch_dma_write.val();
        }
        if self.kernel_failed.val() {
            if self.kernel_error.val() == self.k_unsupported.val() {
                self.set_mask.next = self.set_mask.val() | self.s_parse.val() | self.s_irq.val();
            } else {
                self.set_mask.next =
                    self.set_mask.val() | self.s_bus.val() | self.s_irq.val() | (self.channel32.wide.val() << self.channel_shift.val());
            }
        }
        self.run_next.next = self.in_running.val();
        if self.stop.val()
            | self.parse_error.val()
            | self.at_end.val()
            | self.fetch_error.val()
            | self.dma_read_error.val()
            | self.dma_write_error.val()
            | self.kernel_failed.val()
        {
            self.run_next.next = false;
        }
        if self.start.val() {
            self.run_next.next = true;
            self.qread.d.next = self.zero32.val();
            self.phase.d.next = false;
            self.line_valid.d.next = false;
            self.discard.d.next = self.ar_pending.q.val() | (self.r_pending.q.val() & !self.mem_r_valid.val());
        }
        self.reset_next.next = self.in_clear.val() & (self.clear_index.q.val() != self.last_clear.val());
        self.state_bits.next = self.zero32.val();
        if self.run_next.val() {
            self.state_bits.next = self.s_running.val();
        }
        if self.reset_next.val() {
            self.state_bits.next = self.s_resetting.val();
        }
        self.status.d.next = (((self.status.q.val() & !self.clear_mask.val()) | self.set_mask.val())
            & !self.s_state_bits.val())
            | self.state_bits.val();
        self.irq.next = (self.status.q.val() & self.s_irq.val()) != self.zero32.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CommandFrontEnd::default(), "command_front_end");
}
