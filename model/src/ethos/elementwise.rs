//! The kernel unit (`hdl/src/ethos/elementwise.rs`, whose comment has the ports, states,
//! timing and decisions: ELEMENTWISE and POOL). As in the RTL, the CHECK verdict is
//! [`super::elementwise_check`], the addresses and word caches [`super::elementwise_memory`],
//! and the arithmetic of an element [`super::elementwise_datapath`], whose operand arithmetic
//! [`combine`] and pooling arithmetic [`average_over_padding`], which the reference executor
//! calls as well, are re-exported here. Child modules beside this file, for the unit's fields:
//! the pool's tap walk and drain `pool_taps.rs`, the walk over the elements
//! `elementwise_walk.rs`, the OFM write buffer and the take into it `ofm_write_buffer.rs`
//! (each named as its RTL block).
use super::kernel_registers::KernelRegisters;
use super::elementwise_check as check;
use super::elementwise_datapath as datapath;
use super::elementwise_lanes as lanes;
use super::elementwise_memory::{self as memory, Cache};
pub use super::elementwise_datapath::{average_over_padding, combine};
use npu_hdl::ethos::elementwise::{scalar, state, ERROR_IFM, ERROR_OFM, ERROR_UNSUPPORTED, LATCH_STEPS};
use ofm_write_buffer::WriteBuffer;
use pool_taps::Drain;

#[path = "pool_taps.rs"]
mod pool_taps;
#[path = "elementwise_walk.rs"]
mod elementwise_walk;
#[path = "ofm_write_buffer.rs"]
pub mod ofm_write_buffer;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub kernel_start: bool,
    pub kernel_op: u8,
    pub kernel_mode: u16,
    pub debug_value: u64,
    pub mem_ar_ready: bool,
    pub mem_r_valid: bool,
    pub mem_r_data: u64,
    pub mem_r_error: bool,
    pub mem_aw_ready: bool,
    pub mem_b_valid: bool,
    pub mem_b_error: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub kernel_done: bool,
    pub kernel_error: u8,
    pub debug_index: u8,
    pub debug_hold: bool,
    pub mem_ar_valid: bool,
    pub mem_ar_addr: u64,
    pub mem_aw_valid: bool,
    pub mem_aw_addr: u64,
    pub mem_w_data: u64,
    pub mem_w_strb: u8,
}

#[derive(Clone, Debug)]
pub struct Elementwise {
    state: u8,
    k: u8,
    /// A POOL (else an ELEMENTWISE).
    pool: bool,
    mode: u8,
    mode_bad: bool,
    error: u8,
    /// The LATCHed registers.
    regs: KernelRegisters,
    y: u16,
    x: u16,
    c: u16,
    /// The operands: the IFM and IFM2 words shifted so that the element's byte is lane 0 (in
    /// word mode the words of the element's 8 channels).
    ifm_word: u64,
    ifm2_word: u64,
    /// Word mode (issue 19, [`memory::word_mode`]), decided in CHECK: an element is a word of
    /// 8 channels.
    word: bool,
    /// The next IFM2 fill in word mode goes to the IFM2 cache's second entry (`cache[2]`).
    b_next: bool,
    /// The OFM write buffer: the word being gathered, the write port.
    out: WriteBuffer,
    /// The OFM byte address and strobes of the element that left READ_B/WAIT_B for the next
    /// element's READ_A, whose first free cycle takes its byte (`hdl/src/ethos/elementwise_memory.rs`).
    pending: Option<(u64, u8)>,
    /// The pool's tap, its running max or sum in 8 lanes, the taps inside so far
    /// (`hdl/src/ethos/pool_taps.rs`).
    ky: u16,
    kx: u16,
    acc: [i32; 8],
    count: u32,
    /// The IFM byte address of the read in flight (WAIT_A), and for a pool whether it is the
    /// word's last tap: the tap walk steps as the read is taken (issue 19, `pool_taps.rs`).
    a_addr: u64,
    flight_last: bool,
    /// The pool's drain (`hdl/src/ethos/pool_taps.rs`): a word's lanes handed to the OFM one a
    /// cycle beside the next word's taps; `drain_busy`, it offered a byte at this edge.
    drain: Option<Drain>,
    drain_busy: bool,
    /// The IFM and IFM2 word caches, and the IFM2 cache's second entry (word mode only).
    cache: [Cache; 3],
    events: Vec<&'static str>,
}

impl Default for Elementwise {
    fn default() -> Self {
        Self {
            state: state::IDLE,
            k: 0,
            pool: false,
            mode: 0,
            mode_bad: false,
            error: 0,
            regs: KernelRegisters::default(),
            y: 0,
            x: 0,
            c: 0,
            ifm_word: 0,
            ifm2_word: 0,
            word: false,
            b_next: false,
            out: WriteBuffer::default(),
            pending: None,
            ky: 0, kx: 0, acc: [0; 8], count: 0,
            a_addr: 0,
            flight_last: false,
            drain: None,
            drain_busy: false,
            cache: [Cache::default(); 3],
            events: Vec::new(),
        }
    }
}

impl Elementwise {
    fn param(&self, id: usize) -> u16 {
        self.regs.param(id)
    }

    fn broadcast(&self) -> u16 {
        self.param(scalar::IFM2_BROADCAST)
    }

    fn ifm_address(&self) -> u64 {
        memory::ifm_address(&self.regs, self.pool, (self.y, self.x, self.c), self.tap())
    }

    /// The pool's current tap: its IFM row and column (16 bits) and whether it is inside the
    /// IFM ([`datapath::tap`]).
    fn tap(&self) -> (u16, u16, bool) {
        datapath::tap(&self.regs, (self.y, self.x), (self.ky, self.kx))
    }

    /// The cached word of operand `b` (0 IFM, 1 IFM2: either entry) holding `addr`, shifted
    /// so that its byte is lane 0, and whether the word was written by the unit since its read.
    fn cached(&self, b: usize, addr: u64) -> Option<(u64, bool)> {
        let entry = |k: usize| self.cache[k].word(addr).map(|w| (w, self.cache[k].written));
        if b == 0 {
            entry(0)
        } else {
            entry(2).or_else(|| entry(1))
        }
    }

    /// The IFM2 word at `addr` comes from the second cache entry (a coverage event).
    fn second_entry(&mut self, addr: u64) {
        if self.cache[2].word(addr).is_some() {
            self.events.push("IFM2 word from the second cache entry");
        }
    }

    fn ifm2_address(&self) -> u64 {
        memory::ifm2_address(&self.regs, (self.y, self.x, self.c))
    }

    /// The state after the IFM byte (a pool's: [`Self::tap_taken`]).
    fn after_a(&self) -> u8 {
        if self.pool {
            state::READ_A
        } else if self.broadcast() & 0x80 != 0 {
            state::CALC
        } else {
            state::READ_B
        }
    }

    fn ofm_address(&self) -> u64 {
        memory::ofm_address(&self.regs, (self.y, self.x, self.c))
    }

    /// The outputs (they follow the state only).
    pub fn peek(&self) -> Out {
        self.outputs()
    }

    fn outputs(&self) -> Out {
        let s = self.state;
        let debug_index = if s == state::LATCH { self.regs.debug_index(usize::from(self.k)) } else { 0 };
        let read = match s {
            // A pool's tap in the padding reads nothing.
            state::READ_A if self.pool && !self.tap().2 => None,
            state::READ_A => Some((self.ifm_address(), 0)),
            state::READ_B => Some((self.ifm2_address(), 1)),
            // A pool's next tap while this tap's data are awaited: no cache look-up (the cache
            // is refilled as they come), [`Self::next_read`] (issue 19).
            state::WAIT_A => self.next_read().map(|a| (a, 2)),
            _ => None,
        };
        Out {
            kernel_done: s == state::DONE,
            kernel_error: if s == state::DONE { self.error } else { 0 },
            debug_index,
            debug_hold: s == state::LATCH,
            // No read when the operand's cache holds the word (the address shows all the same).
            mem_ar_valid: read.is_some_and(|(a, b)| (b == 2 || self.cached(b, a).is_none()) && !self.blocked(a) && !self.out.error),
            mem_ar_addr: read.map_or(0, |(a, _)| a & !7),
            mem_aw_valid: self.out.pending,
            mem_aw_addr: self.out.addr,
            mem_w_data: self.out.data,
            mem_w_strb: self.out.strb,
        }
    }

    fn clock(&mut self, i: &In) {
        self.events.clear();
        if i.reset {
            *self = Self { regs: self.regs.clone(), ..Self::default() };
            self.events.push("reset");
            return;
        }
        // The write port moves on what it held before this edge (a word handed over now is
        // offered from the next cycle).
        let held = (self.out.pending, self.out.wait);
        // Word mode: the gathered word (whole when taken) goes to the write port as soon as
        // the port is free, also in the cycle its previous write's response comes (issue 19).
        let port_free = !self.out.pending && (!self.out.wait || (i.mem_b_valid && !i.mem_b_error));
        let eager = self.word && self.out.g.is_some() && !self.out.error && self.error == 0 && port_free;
        // A pool's drain hands its byte over beside the state machine (which may load it
        // again when it takes its last lane), after the machine's handoff of a read's word.
        let drained = self.drain_step();
        let event = self.fsm(i);
        self.events.push(event);
        if let Some((addr, byte)) = drained {
            let event = self.gather(addr, u64::from_le_bytes([byte; 8]), 1 << (addr & 7));
            self.events.push(event);
        }
        if eager && !self.out.pending {
            self.out.handoff(&mut self.events);
            self.events.push("word: OFM word handed over as the port frees");
        }
        self.out.port(held, i.mem_aw_ready, i.mem_b_valid, i.mem_b_error, &mut self.events);
    }

    /// The state machine's edge; the write port's part of it is [`Self::clock`]'s.
    fn fsm(&mut self, i: &In) -> &'static str {
        // A pool's taps start afresh outside its tap loop (the RTL clears them in every other
        // state and at the end of a CALC that takes its byte; CALC reads them).
        if !matches!(self.state, state::READ_A | state::WAIT_A | state::CALC) {
            (self.ky, self.kx, self.acc, self.count) = (0, 0, [0; 8], 0);
        }
        match self.state {
            state::IDLE if i.kernel_start => {
                if i.kernel_op == 3 || i.kernel_op == 2 {
                    self.state = state::LATCH;
                    self.k = 0;
                    self.pool = i.kernel_op == 2;
                    self.mode = (i.kernel_mode & 7) as u8;
                    self.mode_bad = i.kernel_mode > if self.pool { 1 } else { 4 };
                    if self.pool {
                        "start pool"
                    } else {
                        "start elementwise"
                    }
                } else {
                    self.state = state::DONE;
                    self.error = ERROR_UNSUPPORTED;
                    "other kernel refused"
                }
            }
            state::IDLE => "idle",
            state::LATCH => {
                self.regs.latch(usize::from(self.k), i.debug_value);
                if usize::from(self.k) == LATCH_STEPS - 1 {
                    self.state = state::CHECK;
                } else {
                    self.k += 1;
                }
                "latch"
            }
            state::CHECK => {
                self.cache = [Cache::default(); 3];
                self.b_next = false;
                (self.out.g, self.out.error, self.drain) = (None, false, None);
                if check::unsupported(&self.regs, self.pool, self.mode, self.mode_bad) {
                    self.error = ERROR_UNSUPPORTED;
                    self.state = state::DONE;
                    "unsupported"
                } else {
                    self.error = 0;
                    self.word = memory::word_mode(&self.regs, self.pool);
                    if self.pool {
                        self.events.push(if memory::word_lanes(&self.regs) { "pool: word lanes" } else { "pool: element at a time" });
                    } else {
                        self.events.push(if self.word { "elementwise: word mode" } else { "elementwise: element at a time" });
                    }
                    (self.y, self.x, self.c) = (0, 0, 0);
                    self.state = state::READ_A;
                    "check"
                }
            }
            state::READ_A | state::READ_B if self.out.error => {
                // A deferred OFM byte is dropped with the rest.
                self.pending = None;
                self.error = ERROR_OFM;
                self.state = state::FLUSH;
                "write error"
            }
            state::READ_A if self.pool && !self.tap().2 => {
                // A tap in the padding: no read, the walk steps (issue 19: an inside tap costs
                // READ_A and its data cycle alone, no POOL_TAP).
                self.next_tap();
                "pool: padding skipped"
            }
            state::READ_A | state::READ_B => {
                let b = usize::from(self.state == state::READ_B);
                let addr = if b == 0 { self.ifm_address() } else { self.ifm2_address() };
                let hit = self.cached(b, addr).is_some();
                let conflict = self.out.conflict(addr);
                let taken = self.pending.filter(|_| b == 0);
                if let Some((p, strb)) = taken {
                    // The previous element's OFM byte first (beside this read), when the write
                    // port lets it; a read of that byte, or a miss on its word, waits a cycle.
                    if !self.out.can_take(p) {
                        return "read waits: the previous OFM byte waits for the write port";
                    }
                    let event = self.take(p, strb);
                    self.events.push(event);
                    self.pending = None;
                    if hit && addr == p {
                        return "read of the OFM byte taken beside it waits";
                    }
                    if !hit && (addr & !7 == p & !7) {
                        return "read of the word whose OFM byte is taken beside it waits";
                    }
                    if !hit && conflict {
                        return "read waits for the OFM write of its word";
                    }
                }
                if let Some((word, written)) = self.cached(b, addr) {
                    return if b == 1 {
                        self.second_entry(addr);
                        self.ifm2_word = word;
                        self.after_b();
                        if written {
                            "IFM2 word from the cache after an OFM write into it"
                        } else {
                            "IFM2 word from the cache"
                        }
                    } else {
                        self.ifm_word = word;
                        self.state = self.after_a();
                        let event = if written { "IFM word from the cache after an OFM write into it" } else { "IFM word from the cache" };
                        if self.pool {
                            self.tap_taken(self.cache[0].data >> (8 * (addr & 7)));
                            "pool: IFM word from the cache"
                        } else if self.state == state::READ_B {
                            self.ifm2_beside(taken.map(|(p, _)| p), event)
                        } else {
                            self.events.push("IFM word from the cache, IFM2 scalar");
                            event
                        }
                    };
                }
                if conflict {
                    // The word's OFM write first: the gathered word goes to an idle port.
                    if self.out.idle() && self.out.g.is_some_and(|(a, _, _)| a == addr & !7) {
                        self.out.handoff(&mut self.events);
                    }
                    "read waits for the OFM write of its word"
                } else if i.mem_ar_ready {
                    self.state += 1;
                    if b == 0 {
                        self.a_addr = addr;
                    }
                    if self.pool {
                        self.tap_issued();
                    }
                    "read address"
                } else {
                    "read stalled"
                }
            }
            state::WAIT_A | state::WAIT_B if i.mem_r_valid => {
                let addr = if self.state == state::WAIT_A { self.a_addr } else { self.ifm2_address() };
                if i.mem_r_error {
                    self.error = ERROR_IFM;
                    self.state = state::FLUSH;
                    return "read error";
                }
                let word = i.mem_r_data >> (8 * (addr & 7));
                let entry = if self.state == state::WAIT_A {
                    0
                } else if self.word && self.b_next {
                    2
                } else {
                    1
                };
                if entry != 0 && self.word {
                    self.b_next = !self.b_next;
                }
                self.cache[entry] = Cache { valid: true, tag: addr & !7, data: i.mem_r_data, written: false };
                if self.state == state::WAIT_A {
                    self.ifm_word = word;
                    self.state = self.after_a();
                    if self.pool {
                        self.tap_data(word, i);
                        "pool: ifm"
                    } else if self.word && self.broadcast() & 0x80 != 0 {
                        // Word mode: the element done as its IFM word comes (issue 19).
                        self.after_b();
                        "word: IFM read, IFM2 scalar"
                    } else if let Some((w2, _)) = self.cached(1, self.ifm2_address()).filter(|_| self.word) {
                        let a2 = self.ifm2_address();
                        self.second_entry(a2);
                        self.ifm2_word = w2;
                        self.after_b();
                        "word: IFM read, IFM2 word from the cache"
                    } else {
                        "ifm"
                    }
                } else {
                    self.ifm2_word = word;
                    self.after_b();
                    "ifm2"
                }
            }
            state::WAIT_A | state::WAIT_B => "read wait",
            state::CALC if self.out.error => {
                self.error = ERROR_OFM;
                self.state = state::FLUSH;
                "write error"
            }
            state::CALC if self.pool => {
                self.word_end();
                "pool: word end"
            }
            state::CALC => {
                let addr = self.ofm_address();
                if !self.out.can_take(addr) {
                    return "OFM byte waits for the write port";
                }
                let event = self.take(addr, self.strobes(addr));
                self.advance();
                event
            }
            state::FLUSH => {
                // The last gathered word written (dropped after an error), then DONE.
                if !self.out.idle() {
                    "flush: write in flight"
                } else if self.drain_busy {
                    "flush: the pool's drain busy"
                } else if self.out.g.is_some() && !self.out.error && self.error == 0 {
                    self.out.handoff(&mut self.events);
                    "flush"
                } else {
                    if self.out.error && self.error == 0 {
                        self.error = ERROR_OFM;
                    }
                    self.state = state::DONE;
                    "flushed"
                }
            }
            _ => {
                self.state = state::IDLE;
                "done"
            }
        }
    }
}

crate::sequential_block!(Elementwise, events);
