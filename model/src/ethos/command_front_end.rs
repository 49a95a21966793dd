//! Ethos-U65 command front end (TRM §4.6, register map; digest `shared/spec/ethos-u65.md`
//! §3-§4). RTL: `hdl/src/ethos/command_front_end.rs`, whose documentation states the ports,
//! the timing and the decisions this model keeps; docs/ethos.md, "Command front end".
//!
//! Written from the digest's register and command semantics: offsets, STATUS bits and reset
//! values are the digest's, as literals here. The command table is the one of
//! `npu_hdl::ethos::command_set` (the one source the RTL's decode ROM is generated from).
//!
//! Per cycle, with the inputs applied: `kernel_start` (Mealy: it follows `debug_hold`) and
//! `kernel_op`/`kernel_mode` come from the command word now in the fetch line; everything else
//! comes from registers. At the edge: the command executes (one a cycle when its word is in
//! the line), the fetch moves, the APB write takes effect, STATUS takes what happened.
use super::dma::{Cycle as DmaCycle, Dma};
use npu_hdl::ethos::command_set::{lookup, register, Action, Kind, COMMANDS, CMD1_CONTROL, OPCODE_MASK};

/// Register offsets (digest §4).
pub const ID: u16 = 0x000;
pub const STATUS: u16 = 0x004;
pub const CMD: u16 = 0x008;
pub const QBASE0: u16 = 0x010;
pub const QBASE1: u16 = 0x014;
pub const QREAD: u16 = 0x018;
pub const QSIZE: u16 = 0x020;
pub const CONFIG: u16 = 0x028;
pub const BASEP0: u16 = 0x080;

/// ID and CONFIG (digest §4; ethos-u65-256).
pub const ID_VALUE: u32 = 0x1006_6001;
pub const CONFIG_VALUE: u32 = 0x1000_3008;

/// STATUS fields (digest §4), the RTL's constants.
pub use npu_hdl::ethos::command_front_end::status::{BUS_STATUS, CMD_END_REACHED, CMD_PARSE_ERROR, IRQ_RAISED, RESET_STATUS, RUNNING};
const HISTORY: u32 = 0xffff_0000;

/// The kernel handshake's code of each kernel operation.
pub use npu_hdl::ethos::command_set::KERNEL_OPS;

/// Cycles after reset while the register file and BASEPs are cleared.
pub const CLEAR_CYCLES: u32 = 128;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub apb_sel: bool,
    pub apb_enable: bool,
    pub apb_write: bool,
    pub apb_addr: u16,
    pub apb_wdata: u32,
    pub mem_ar_ready: bool,
    pub mem_r_valid: bool,
    pub mem_r_data: u64,
    pub mem_r_error: bool,
    pub kernel_done: bool,
    pub kernel_error: u8,
    pub debug_index: u8,
    pub debug_hold: bool,
    pub mem_aw_ready: bool,
    pub mem_b_valid: bool,
    pub mem_b_error: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub apb_rdata: u32,
    pub irq: bool,
    pub mem_ar_valid: bool,
    pub mem_ar_addr: u64,
    pub kernel_start: bool,
    pub kernel_op: u8,
    pub kernel_mode: u16,
    pub debug_value: u64,
    pub mem_aw_valid: bool,
    pub mem_aw_addr: u64,
    pub mem_w_data: u64,
    pub mem_w_strb: u8,
}

/// What a command word decodes to: the action (None: reserved control field or opcode) and
/// the decode ROM's index field, which the kernel code port shows whatever the word.
fn decode(word: u32) -> (Option<Action>, u8) {
    let cmd1 = word & CMD1_CONTROL != 0;
    let opcode = (word & OPCODE_MASK) as u16;
    let rom = COMMANDS.iter().find(|c| (c.kind == Kind::Cmd1) == cmd1 && c.opcode == opcode);
    let index = rom.map_or(0, |c| match c.action() {
        Action::Set0 { index } | Action::Set1 { index } => index as u8,
        Action::Kernel { op } => op as u8,
        _ => 0,
    });
    (lookup(word).map(|c| c.action()), index)
}

#[derive(Clone, Debug)]
pub struct CommandFrontEnd {
    status: u32,
    clear_index: u32,
    cmd: u32,
    qbase0: u32,
    qbase1: u32,
    qsize: u32,
    qread: u32,
    /// A cmd1's payload is the word needed next.
    phase: bool,
    pend_param: u16,
    pend_index: u8,
    line: u64,
    line_addr: u64,
    line_valid: bool,
    ar_pending: bool,
    ar_addr: u64,
    r_pending: bool,
    /// The read in flight belongs to a stream restarted since: drop its data.
    discard: bool,
    kernel_busy: bool,
    rdata: u32,
    rd_basep: bool,
    /// The register file (`NPU_SET_*` values by index) and its registered read port.
    registers: Vec<u64>,
    register_read: u64,
    /// The debug port's BASEP copy: its read register, and whether the last read was one.
    kernel_basep_read: u32,
    debug_basep: bool,
    basep: [u32; 16],
    basep_read: u32,
    /// The read in flight is the DMA's (else the command fetch's).
    r_owner: bool,
    dma: Dma,
    events: Vec<&'static str>,
}

impl Default for CommandFrontEnd {
    fn default() -> Self {
        Self {
            status: RESET_STATUS,
            clear_index: 0,
            cmd: 0xC,
            qbase0: 0,
            qbase1: 0,
            qsize: 0,
            qread: 0,
            phase: false,
            pend_param: 0,
            pend_index: 0,
            line: 0,
            line_addr: 0,
            line_valid: false,
            ar_pending: false,
            ar_addr: 0,
            r_pending: false,
            discard: false,
            kernel_busy: false,
            rdata: 0,
            rd_basep: false,
            registers: vec![0; 128],
            register_read: 0,
            kernel_basep_read: 0,
            debug_basep: false,
            basep: [0; 16],
            basep_read: 0,
            r_owner: false,
            dma: Dma::default(),
            events: Vec::new(),
        }
    }
}

/// What the word in the line means this cycle.
struct Now {
    running: bool,
    clearing: bool,
    address: u64,
    hit: bool,
    word: u32,
    action: Option<Action>,
    index: u8,
    at_end: bool,
    execute: bool,
}

impl CommandFrontEnd {
    fn now(&self, input: &In) -> Now {
        let running = self.status & RUNNING != 0;
        let offset = self.qread.wrapping_add(if self.phase { 4 } else { 0 });
        let address = (((u64::from(self.qbase1) << 32) | u64::from(self.qbase0)) + u64::from(offset)) & ((1 << 40) - 1);
        let hit = self.line_valid && address & !7 == self.line_addr;
        let word = (self.line >> (32 * ((address >> 2) & 1))) as u32;
        let (action, index) = decode(word);
        let at_end = !self.phase && self.qread >= self.qsize;
        Now {
            running,
            clearing: self.status & RESET_STATUS != 0,
            address,
            hit,
            word,
            action,
            index,
            at_end,
            execute: running && !at_end && hit && !input.debug_hold,
        }
    }

    /// Whether the command in the line starts a kernel this cycle.
    fn starts_kernel(&self, now: &Now) -> bool {
        now.execute && !self.phase && matches!(now.action, Some(Action::Kernel { .. })) && !self.kernel_busy
    }

    fn outputs(&self, input: &In) -> Out {
        let now = self.now(input);
        let (mem_aw_valid, mem_aw_addr, mem_w_data, mem_w_strb) = self.dma.write_port();
        Out {
            apb_rdata: if self.rd_basep { self.basep_read } else { self.rdata },
            irq: self.status & IRQ_RAISED != 0,
            mem_ar_valid: self.ar_pending,
            mem_ar_addr: self.ar_addr,
            kernel_start: self.starts_kernel(&now),
            kernel_op: now.index & 3,
            kernel_mode: (now.word >> 16) as u16,
            debug_value: if self.debug_basep { u64::from(self.kernel_basep_read) } else { self.register_read },
            mem_aw_valid,
            mem_aw_addr,
            mem_w_data,
            mem_w_strb,
        }
    }

    fn clock(&mut self, input: &In) {
        if input.reset {
            *self = Self::default();
            self.events = vec!["reset"];
            return;
        }
        let now = self.now(input);
        // APB reads sample the registers as they are before this edge.
        let read_value = match input.apb_addr {
            ID => ID_VALUE,
            STATUS => self.status,
            CMD => self.cmd,
            QBASE0 => self.qbase0,
            QBASE1 => self.qbase1,
            QREAD => self.qread,
            QSIZE => self.qsize,
            CONFIG => CONFIG_VALUE,
            _ => 0,
        };
        let param = (now.word >> 16) as u16;
        let busy = self.kernel_busy;
        let phase = self.phase;
        let dma_idle = self.dma.idle();
        let quiet = !busy && dma_idle;
        let dma_fields_bad = self.dma.fields_bad();
        let mut dma_go = false;
        let mut events = Vec::new();

        // Execute.
        let (mut parse_error, mut signal, mut stop, mut advance) = (false, false, false, 0);
        let mut write: Option<(u8, u64)> = None;
        let kernel_start = self.starts_kernel(&now);
        if now.running && !now.at_end && !now.hit {
            events.push(if self.ar_pending || self.r_pending { "fetch wait" } else { "fetch request" });
        }
        if now.running && now.hit && !now.at_end && input.debug_hold {
            events.push("held");
        }
        if now.execute && !phase {
            let name = lookup(now.word).map_or("reserved command", |c| c.name);
            match now.action {
                Some(Action::Set0 { index }) => {
                    write = Some((index as u8, u64::from(param)));
                    advance = 4;
                    events.push("SET cmd0");
                }
                Some(Action::Set1 { index }) => {
                    if (self.qread + 4) >= self.qsize {
                        parse_error = true;
                        events.push("error: cmd1 without payload");
                    } else {
                        self.phase = true;
                        self.pend_param = param;
                        self.pend_index = index as u8;
                        events.push("SET cmd1");
                    }
                }
                Some(Action::Kernel { .. }) if busy => events.push("wait for kernel"),
                Some(Action::Stop | Action::Irq) if !quiet => events.push("wait for kernel or DMA"),
                Some(Action::Stop) => {
                    (signal, stop, advance) = (true, true, 4);
                    events.push(name);
                }
                Some(Action::Irq) => {
                    (signal, advance) = (true, 4);
                    events.push(name);
                }
                Some(Action::Kernel { .. }) => {
                    advance = 4;
                    events.push(name);
                }
                Some(Action::PmuMask) => {
                    advance = 4;
                    events.push(name);
                }
                Some(Action::DmaWait) => {
                    if !dma_idle && param == 0 {
                        events.push("wait for DMA");
                    } else {
                        advance = 4;
                        events.push(name);
                    }
                }
                Some(Action::KernelWait) => {
                    if busy && param == 0 {
                        events.push("wait for kernel");
                    } else {
                        advance = 4;
                        events.push(name);
                    }
                }
                Some(Action::DmaStart) => {
                    if !dma_idle {
                        events.push("wait for DMA");
                    } else if dma_fields_bad {
                        parse_error = true;
                        events.push("error: DMA region or length unsupported");
                    } else {
                        dma_go = true;
                        advance = 4;
                        events.push(name);
                    }
                }
                None => {
                    parse_error = true;
                    events.push("error: reserved command");
                }
            }
        }
        if advance != 0 {
            self.qread += advance;
        }
        if now.execute && phase {
            write = Some((self.pend_index, (u64::from(self.pend_param) << 32) | u64::from(now.word)));
            self.phase = false;
            self.qread += 8;
            events.push("payload");
        }

        // Register file: read (old value), then the clear or a SET writes.
        if !now.clearing {
            self.register_read = self.registers[usize::from(input.debug_index & 0x7f)];
            self.kernel_basep_read = self.basep[usize::from(input.debug_index & 0xf)];
        }
        self.debug_basep = usize::from(input.debug_index & 0x70) == npu_hdl::ethos::command_front_end::DEBUG_BASEP;
        if now.clearing {
            self.registers[self.clear_index as usize] = 0;
            events.push("clear");
        } else if let Some((index, value)) = write {
            self.registers[usize::from(index)] = value;
            if let Some(command) = register(usize::from(index)) {
                self.dma.set(command.name, value);
            }
        }
        let clear_index = self.clear_index;
        if now.clearing {
            self.clear_index = (self.clear_index + 1) % CLEAR_CYCLES;
        }

        // Fetch.
        let (ar_pending, r_pending) = (self.ar_pending, self.r_pending);
        let r_owner = self.r_owner;
        let dma_read_issued = !ar_pending && !r_pending && self.dma.wants_read();
        if !ar_pending && !r_pending {
            if dma_read_issued {
                self.ar_pending = true;
                self.ar_addr = self.dma.read_addr();
                self.r_owner = true;
            } else if now.running && !now.at_end && !now.hit {
                self.ar_pending = true;
                self.ar_addr = now.address & !7;
                self.r_owner = false;
            }
        }
        if ar_pending && input.mem_ar_ready {
            self.ar_pending = false;
            self.r_pending = true;
        }
        if ar_pending && !input.mem_ar_ready {
            events.push("fetch stalled");
        }
        let mut fetch_error = false;
        if r_pending && input.mem_r_valid {
            self.r_pending = false;
            if r_owner {
                // The DMA's (below).
            } else if self.discard {
                self.discard = false;
                events.push("fetch discarded");
            } else if input.mem_r_error {
                fetch_error = now.running;
                events.push("error: fetch bus error");
            } else {
                self.line = input.mem_r_data;
                self.line_addr = self.ar_addr;
                self.line_valid = true;
                events.push("fetch data");
            }
        }

        // DMA, on the BASEPs as they are before this edge's APB write.
        let dma = self.dma.clock(
            DmaCycle {
                go: dma_go,
                read_issued: dma_read_issued,
                r_valid: r_pending && input.mem_r_valid && r_owner,
                r_error: input.mem_r_error,
                r_data: input.mem_r_data,
                aw_ready: input.mem_aw_ready,
                b_valid: input.mem_b_valid,
                b_error: input.mem_b_error,
            },
            &self.basep,
            &mut events,
        );
        let (dma_read_error, dma_write_error) = (dma.read, dma.write);

        // Kernels.
        let mut kernel_failed = false;
        if kernel_start {
            self.kernel_busy = true;
        }
        if busy && input.kernel_done {
            self.kernel_busy = false;
            kernel_failed = input.kernel_error & 0xf != 0;
            events.push(if kernel_failed { "error: kernel" } else { "kernel done" });
        }

        // APB.
        let apb_wr = input.apb_sel && input.apb_enable && input.apb_write;
        let apb_rd = input.apb_sel && !input.apb_enable && !input.apb_write;
        let addr = input.apb_addr & 0xfff;
        let basep_hit = addr >> 6 == BASEP0 >> 6 && addr & 3 == 0;
        let basep_index = usize::from((addr >> 2) & 15);
        let wdata = input.apb_wdata;
        let mut start = false;
        if apb_wr {
            match addr {
                CMD => {
                    self.cmd = wdata;
                    start = wdata & 1 != 0 && dma_idle && self.status & (RUNNING | RESET_STATUS | BUS_STATUS | CMD_PARSE_ERROR) == 0;
                    if start {
                        events.push("start");
                    }
                }
                QBASE0 => self.qbase0 = wdata & 0xffff_fffc,
                QBASE1 => self.qbase1 = wdata & 0xff,
                QSIZE => self.qsize = wdata & 0x01ff_fffc,
                _ => {}
            }
            events.push(if basep_hit { "APB write BASEP" } else { "APB write" });
        }
        if apb_rd {
            if !now.clearing {
                self.basep_read = self.basep[basep_index];
            }
            self.rdata = read_value;
            self.rd_basep = basep_hit;
            events.push("APB read");
        }
        if now.clearing {
            self.basep[(clear_index & 15) as usize] = 0;
        } else if apb_wr && basep_hit {
            self.basep[basep_index] = wdata;
        }

        // STATUS.
        let mut clear = 0;
        if apb_wr && addr == CMD {
            clear = wdata & HISTORY;
            if wdata & 2 != 0 {
                clear |= IRQ_RAISED;
            }
        }
        if apb_wr && matches!(addr, QBASE0 | QBASE1 | QSIZE) && !now.running {
            clear = CMD_END_REACHED;
        }
        let mut set = 0;
        if signal {
            set = (u32::from(param) << 16) | IRQ_RAISED;
        }
        if parse_error {
            set = CMD_PARSE_ERROR | IRQ_RAISED;
        }
        if now.running && now.at_end {
            set = CMD_END_REACHED | IRQ_RAISED;
            events.push("error: end of stream without STOP");
        }
        if fetch_error {
            set = BUS_STATUS | IRQ_RAISED;
        }
        if dma_read_error {
            set = BUS_STATUS | IRQ_RAISED | (4 << 12);
        }
        if dma_write_error {
            set = BUS_STATUS | IRQ_RAISED | (9 << 12);
        }
        if kernel_failed && input.kernel_error & 0xf == npu_hdl::ethos::elementwise::ERROR_UNSUPPORTED {
            set |= CMD_PARSE_ERROR | IRQ_RAISED;
        } else if kernel_failed {
            set |= BUS_STATUS | IRQ_RAISED | (u32::from(input.kernel_error & 0xf) << 12);
        }
        let mut run = now.running;
        if stop || parse_error || now.at_end || fetch_error || dma_read_error || dma_write_error || kernel_failed {
            run = false;
        }
        if start {
            run = true;
            self.qread = 0;
            self.phase = false;
            self.line_valid = false;
            self.discard = ar_pending || (r_pending && !input.mem_r_valid);
        }
        let resetting = now.clearing && clear_index != CLEAR_CYCLES - 1;
        let state = if resetting {
            RESET_STATUS
        } else if run {
            RUNNING
        } else {
            0
        };
        self.status = (((self.status & !clear) | set) & !(RUNNING | RESET_STATUS)) | state;
        if !now.running && !now.clearing && !start {
            events.push("stopped");
        }
        self.events = events;
    }
}

crate::sequential_block!(CommandFrontEnd, mealy, events);
