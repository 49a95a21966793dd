//! The command front end's command processor (TRM §4.6; digest `shared/spec/ethos-u65.md`
//! §3): the fetch of the stream over the read channel it shares with the DMA (the DMA's reads
//! first), the decode from the one command table and the execution of one command a cycle.
//! RTL: `hdl/src/ethos/command_processor.rs`; a part of the [`super::command_front_end`]
//! model, whose ports and decisions are the RTL front end's.
use super::command_front_end::In;
use npu_hdl::ethos::command_set::{lookup, Action, Kind, COMMANDS, CMD1_CONTROL, OPCODE_MASK};

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

/// What the processor reads from the register port and the DMA in a cycle (their values
/// before the edge; `start` is this cycle's CMD write accepted).
#[derive(Clone, Copy, Debug, Default)]
pub struct Context {
    pub running: bool,
    pub qbase: u64,
    pub qsize: u32,
    pub start: bool,
    pub dma_idle: bool,
    pub dma_fields_bad: bool,
    pub dma_wants_read: bool,
    pub dma_read_addr: u64,
}

/// What the processor did in a cycle: a SET's register-file write, and the events STATUS and
/// the DMA take.
#[derive(Clone, Copy, Debug, Default)]
pub struct Executed {
    pub write: Option<(u8, u64)>,
    /// STOP or IRQ executed; `history` is its parameter.
    pub signal: bool,
    pub history: u16,
    pub stop: bool,
    pub parse_error: bool,
    /// QREAD reached QSIZE (with no cmd1 payload pending).
    pub at_end: bool,
    pub fetch_error: bool,
    pub kernel_failed: bool,
    pub dma_go: bool,
    pub dma_read_issued: bool,
    /// The response on the read channel is the DMA's.
    pub dma_r_valid: bool,
}

/// The kernel handshake and the read channel's address, as the RTL drives them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ports {
    pub kernel_start: bool,
    pub kernel_op: u8,
    pub kernel_mode: u16,
    pub mem_ar_valid: bool,
    pub mem_ar_addr: u64,
}

#[derive(Clone, Debug, Default)]
pub struct CommandProcessor {
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
    /// The read in flight is the DMA's (else the command fetch's).
    r_owner: bool,
}

/// What the word in the line means this cycle.
struct Now {
    address: u64,
    hit: bool,
    word: u32,
    action: Option<Action>,
    index: u8,
    at_end: bool,
    execute: bool,
}

impl CommandProcessor {
    /// QREAD (the APB reads it).
    pub fn qread(&self) -> u32 {
        self.qread
    }

    fn now(&self, input: &In, context: &Context) -> Now {
        let offset = self.qread.wrapping_add(if self.phase { 4 } else { 0 });
        let address = (context.qbase + u64::from(offset)) & ((1 << 40) - 1);
        let hit = self.line_valid && address & !7 == self.line_addr;
        let word = (self.line >> (32 * ((address >> 2) & 1))) as u32;
        let (action, index) = decode(word);
        let at_end = !self.phase && self.qread >= context.qsize;
        Now { address, hit, word, action, index, at_end, execute: context.running && !at_end && hit && !input.debug_hold }
    }

    /// Whether the command in the line starts a kernel this cycle.
    fn starts_kernel(&self, now: &Now) -> bool {
        now.execute && !self.phase && matches!(now.action, Some(Action::Kernel { .. })) && !self.kernel_busy
    }

    pub fn ports(&self, input: &In, context: &Context) -> Ports {
        let now = self.now(input, context);
        Ports {
            kernel_start: self.starts_kernel(&now),
            kernel_op: now.index & 3,
            kernel_mode: (now.word >> 16) as u16,
            mem_ar_valid: self.ar_pending,
            mem_ar_addr: self.ar_addr,
        }
    }

    pub fn clock(&mut self, input: &In, context: &Context, events: &mut Vec<&'static str>) -> Executed {
        let now = self.now(input, context);
        let param = (now.word >> 16) as u16;
        let busy = self.kernel_busy;
        let phase = self.phase;
        let quiet = !busy && context.dma_idle;
        let mut done = Executed { history: param, at_end: now.at_end, ..Executed::default() };

        // Execute.
        let mut advance = 0;
        let kernel_start = self.starts_kernel(&now);
        if context.running && !now.at_end && !now.hit {
            events.push(if self.ar_pending || self.r_pending { "fetch wait" } else { "fetch request" });
        }
        if context.running && now.hit && !now.at_end && input.debug_hold {
            events.push("held");
        }
        if now.execute && !phase {
            let name = lookup(now.word).map_or("reserved command", |c| c.name);
            match now.action {
                Some(Action::Set0 { index }) => {
                    done.write = Some((index as u8, u64::from(param)));
                    advance = 4;
                    events.push("SET cmd0");
                }
                Some(Action::Set1 { index }) => {
                    if (self.qread + 4) >= context.qsize {
                        done.parse_error = true;
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
                    (done.signal, done.stop, advance) = (true, true, 4);
                    events.push(name);
                }
                Some(Action::Irq) => {
                    (done.signal, advance) = (true, 4);
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
                    if !context.dma_idle && param == 0 {
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
                    if !context.dma_idle {
                        events.push("wait for DMA");
                    } else if context.dma_fields_bad {
                        done.parse_error = true;
                        events.push("error: DMA region or length unsupported");
                    } else {
                        done.dma_go = true;
                        advance = 4;
                        events.push(name);
                    }
                }
                None => {
                    done.parse_error = true;
                    events.push("error: reserved command");
                }
            }
        }
        if advance != 0 {
            self.qread += advance;
        }
        if now.execute && phase {
            done.write = Some((self.pend_index, (u64::from(self.pend_param) << 32) | u64::from(now.word)));
            self.phase = false;
            self.qread += 8;
            events.push("payload");
        }

        // Fetch.
        let (ar_pending, r_pending) = (self.ar_pending, self.r_pending);
        let r_owner = self.r_owner;
        done.dma_read_issued = !ar_pending && !r_pending && context.dma_wants_read;
        if !ar_pending && !r_pending {
            if done.dma_read_issued {
                self.ar_pending = true;
                self.ar_addr = context.dma_read_addr;
                self.r_owner = true;
            } else if context.running && !now.at_end && !now.hit {
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
        done.dma_r_valid = r_pending && input.mem_r_valid && r_owner;
        if r_pending && input.mem_r_valid {
            self.r_pending = false;
            if r_owner {
                // The DMA's.
            } else if self.discard {
                self.discard = false;
                events.push("fetch discarded");
            } else if input.mem_r_error {
                done.fetch_error = context.running;
                events.push("error: fetch bus error");
            } else {
                self.line = input.mem_r_data;
                self.line_addr = self.ar_addr;
                self.line_valid = true;
                events.push("fetch data");
            }
        }

        // Kernels.
        if kernel_start {
            self.kernel_busy = true;
        }
        if busy && input.kernel_done {
            self.kernel_busy = false;
            done.kernel_failed = input.kernel_error & 0xf != 0;
            events.push(if done.kernel_failed { "error: kernel" } else { "kernel done" });
        }

        // CMD.transition_to_running: the stream starts again at QREAD = 0, and a fetch in
        // flight is dropped.
        if context.start {
            self.qread = 0;
            self.phase = false;
            self.line_valid = false;
            self.discard = ar_pending || (r_pending && !input.mem_r_valid);
        }
        done
    }
}
