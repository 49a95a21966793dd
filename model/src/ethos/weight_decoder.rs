//! Ethos-U65 weight decoder (TRM §4.7, L4670-5120; digest `shared/spec/ethos-u65.md` §1).
//! RTL: `hdl/src/ethos/weight_decoder.rs`. This model is cycle-accurate: it keeps the same
//! registers as the RTL and changes them in the same cycles.
//!
//! Micro-architecture (the TRM gives no decode rate or structure, §1.10):
//! - **Bit buffer**: 32-bit stream words enter with `in_valid`/`in_ready`/`in_last` into a
//!   96-bit buffer, LSB first (§1.1). A word is taken while at most 64 bits are buffered.
//! - **Parser**, one step a cycle once the step's bits are all buffered:
//!   `Header` reads a slice header (or an end marker `zdiv = 7` with its 1-bits to the byte
//!   boundary); `Palette` reads up to 4 palette entries; `Unary` reads one chunk's unary part
//!   (`wunary0`, `zunary`, `wunary1`; §1.6) and completes up to 12 weight and 12 zero-run
//!   quotients into a bank; `Remainder` reads up to 4 remainders of the *previous* chunk (they
//!   travel one chunk late), weights before zero runs as in the stream, and pushes the finished
//!   weight values and zero-run lengths into two 32-entry queues. Two banks hold the quotients
//!   of the chunk being read and of the chunk whose remainders are due. `Unary` also takes
//!   the first group of up to 4 remainders that follows its unary part, in the same cycle, if
//!   their bits are buffered and their queue has room (else a `Remainder` step takes them):
//!   a chunk of 12 weights without zero runs then takes 3 cycles, not 4, the emitter's rate.
//! - **Emitter**: builds output beats of up to 4 weights (`out_count` lanes of `out_data`,
//!   9 bits each, lane 0 first) in stream order: plain weights up to 4 a beat; in zero-run
//!   (alternating) slices the pairs *weight, zero run* up to 4 lanes a beat, long runs 4 zeros
//!   a beat; an alternating slice with a new palette starts with its leading zero run (§1.7).
//!   The beat is a register: `out_valid` stays high with the same beat until `out_ready`.
//! - **End**: when the last word (`in_last`) is used up at a slice boundary after an end
//!   marker, and every weight has left, `done` is high for one cycle and the decoder is ready
//!   for the next stream.
//!
//! Malformed streams (decisions; the TRM says nothing, §1.10): the decoder stops at the first
//! fault with `error` high and [`DecodeError`] on `error_code`, drops what it had not yet
//! delivered, takes no more input and emits nothing until `reset`. Faults are found when the
//! step that reads the faulty field has all its bits, so within a few cycles of the field's
//! arrival; a stream that ends too early is a fault once its last word is used up.

/// Weights an output beat carries at most.
pub const LANES: usize = 4;
/// Bits of one input word.
pub const WORD_BITS: u32 = 32;
/// Bit-buffer size; a word is taken while at most `BUFFER_BITS - WORD_BITS` are held.
pub const BUFFER_BITS: u32 = 96;
/// Entries of each of the two queues (weight values, zero runs) between parser and emitter.
/// The balance rule (§1.6) lets finished weights run at most 20 ahead of their zero runs
/// and zero runs 13 ahead of their weights, so 32 never deadlocks.
pub const QUEUE_DEPTH: usize = 32;
/// Longest zero run the decoder takes (16-bit run counter); a longer one is
/// [`DecodeError::ZeroRun`]. Decision: Vela never writes a stream for more than one weight
/// block, far below this.
pub const MAX_ZERO_RUN: u32 = 0xFFFF;
/// Padding bytes (0xFF, each parsed as an end marker) allowed after an end marker; one more
/// is [`DecodeError::LongPadding`]. Decision: Vela pads a stream to a multiple of 16 bytes
/// (§1.2), so at most 15 bytes follow the byte of its end marker. Without a limit the
/// decoder would spend a cycle on every byte of any amount of padding (a 20 MB file of 0xFF
/// took 113 s in Verilator); with it, such a stream is refused within 16 bytes.
pub const MAX_PADDING_BYTES: u32 = 15;
/// Quotients a chunk carries at most (§1.6).
const CHUNK: usize = 12;

/// Why the decoder stopped (`error_code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DecodeError {
    /// The stream ended inside a slice or a header.
    Truncated = 1,
    /// The stream ended after a slice without an end marker (`zdiv = 7`). The driver reports
    /// it for an empty stream too, which the port cannot carry (no word for `in_last`).
    MissingEnd = 2,
    /// The stream's length is not a whole number of 128-bit words (§1.2). The driver reports
    /// it for a length that is not a multiple of 4 bytes, whose last bytes the port cannot
    /// carry (no byte enables).
    Length = 3,
    /// `zdiv` 4 or 5 (reserved, Table 4-112).
    ReservedZdiv = 4,
    /// `wdiv` 6 (reserved).
    ReservedWdiv = 5,
    /// A first slice (of the stream, or after an end marker) without a palette (`newpal = 0`).
    NoPalette = 6,
    /// A weight quotient above 31 (§1.4).
    Quotient = 7,
    /// A weight index above 511 (§1.3).
    Index = 8,
    /// A direct-mode weight beyond ±255 (§1.3).
    Value = 9,
    /// An alignment bit after an end marker is 0 (it must be 1, §1.2).
    Padding = 10,
    /// A zero run longer than [`MAX_ZERO_RUN`].
    ZeroRun = 11,
    /// More than [`MAX_PADDING_BYTES`] bytes of padding after an end marker.
    LongPadding = 12,
}

impl DecodeError {
    pub const ALL: [DecodeError; 12] = [
        Self::Truncated,
        Self::MissingEnd,
        Self::Length,
        Self::ReservedZdiv,
        Self::ReservedWdiv,
        Self::NoPalette,
        Self::Quotient,
        Self::Index,
        Self::Value,
        Self::Padding,
        Self::ZeroRun,
        Self::LongPadding,
    ];

    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|e| *e as u8 == code)
    }

    pub fn message(self) -> &'static str {
        match self {
            Self::Truncated => "the stream ends inside a slice",
            Self::MissingEnd => "the stream ends without an end marker (or is empty)",
            Self::Length => "the stream's length is not a multiple of 16 bytes (128-bit words)",
            Self::ReservedZdiv => "reserved zdiv (4 or 5)",
            Self::ReservedWdiv => "reserved wdiv (6)",
            Self::NoPalette => "first slice without a palette (newpal = 0)",
            Self::Quotient => "weight quotient above 31",
            Self::Index => "weight index above 511",
            Self::Value => "direct-mode weight beyond +-255",
            Self::Padding => "end-marker padding bit is 0",
            Self::ZeroRun => "zero run longer than 65535",
            Self::LongPadding => "more than 15 bytes of padding after an end marker",
        }
    }

    fn event(self) -> &'static str {
        ERROR_EVENTS[self as usize - 1]
    }
}

const ERROR_EVENTS: [&str; 12] = [
    "error truncated",
    "error missing end",
    "error length",
    "error reserved zdiv",
    "error reserved wdiv",
    "error no palette",
    "error quotient",
    "error index",
    "error value",
    "error padding",
    "error zero run",
    "error long padding",
];

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub in_valid: bool,
    /// Stream bits, bit 0 first (§1.1): byte 0 of the stream in bits 7:0.
    pub in_data: u32,
    /// Marks the stream's last word.
    pub in_last: bool,
    pub out_ready: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub in_ready: bool,
    pub out_valid: bool,
    /// Lanes in the beat, 1..=4 while `out_valid`.
    pub out_count: u8,
    /// Lane i in bits 9i+8..9i, two's complement; lanes at and above `out_count` are 0.
    pub out_data: u64,
    /// One cycle: the stream ended well and every weight has left.
    pub done: bool,
    pub error: bool,
    /// A [`DecodeError`] while `error`, else 0.
    pub error_code: u8,
}

impl Out {
    /// The weights of the beat.
    pub fn weights(&self) -> impl Iterator<Item = i16> + '_ {
        (0..self.out_count as usize).map(|lane| lane_value(self.out_data, lane))
    }
}

/// `n` bits of `buffer` from bit `at`. The bit buffer is a `u128` with shifts, not a `bitvec`
/// bit array, for a measured reason: it is the RTL's 96-bit `held` register, shifted by what a
/// step consumes and filled at `fill`, and as a `BitArray<[u32; 3], Lsb0>` (`load_le`,
/// `shift_start`, `store_le`) the model ran 2.3 times slower (6.5 against 15 M cycles/s on 160
/// encoder streams of 5000 weights, same machine, back to back), which the model-only fuzz and
/// damaged-stream tests and `make bench`'s model column would pay.
fn field(buffer: u128, at: u32, n: u32) -> u32 {
    ((buffer >> at) & ((1u128 << n) - 1)) as u32
}

fn lane_value(data: u64, lane: usize) -> i16 {
    let bits = ((data >> (9 * lane)) & 0x1FF) as i16;
    (bits << 7) >> 7
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Header,
    Palette,
    Unary,
    Remainder,
    /// The stream is parsed; waiting for the last weights to leave.
    Drain,
    Error,
}

/// Parameters of the current slice (§1.2); the palette ones persist over `newpal = 0`.
#[derive(Clone, Debug, Default)]
struct Slice {
    zdiv: u32,
    wdiv: u32,
    wtrunc: bool,
    newpal: bool,
    /// slice_length - 1 (weights coded in the slice, minus one).
    slicelen: u32,
    dirofs: u32,
    /// 0 or 2..=32.
    palsize: u32,
    /// 2..=9.
    palbits: u32,
    palette: [u32; 32],
}

impl Slice {
    fn alternating(&self) -> bool {
        self.zdiv < 4
    }
    fn uncompressed(&self) -> bool {
        self.wdiv == 7
    }
    fn w_cnt(&self) -> u32 {
        self.slicelen + 1
    }
    fn z_cnt(&self) -> u32 {
        self.slicelen + 1 + u32::from(self.newpal)
    }
    /// Index bits in uncompressed mode (§1.4).
    fn ubits(&self) -> u32 {
        if self.palsize > 0 {
            32 - (self.palsize - 1).leading_zeros()
        } else {
            self.palbits
        }
    }
    fn wremain_bits(&self) -> u32 {
        if self.uncompressed() {
            self.ubits()
        } else {
            self.wdiv
        }
    }
    /// The signed weight of index `idx` (§1.3), or the fault.
    fn value(&self, idx: u32) -> Result<i16, DecodeError> {
        let raw = if idx < self.palsize {
            self.palette[idx as usize]
        } else {
            let tmp = idx - self.palsize + self.dirofs;
            if tmp > 511 {
                return Err(DecodeError::Value);
            }
            tmp
        };
        let magnitude = (raw >> 1) as i16;
        Ok(if raw & 1 == 1 { -magnitude } else { magnitude })
    }
}

/// Chunk and remainder counters of the current slice (§1.6).
#[derive(Clone, Debug, Default)]
struct Chunks {
    /// Weight / zero-run quotients completed so far.
    wq_i: u32,
    zq_i: u32,
    /// Remainders read so far.
    wr_i: u32,
    zr_i: u32,
    /// Remainders due in the current `Remainder` phase: up to these counts.
    w_due: u32,
    z_due: u32,
    /// Running quotients, carried across chunks.
    wq: u32,
    zq: u32,
    /// The last `Unary` step had a field enabled (so another chunk follows).
    more: bool,
    /// The bank the next `Unary` step fills, and the one `Remainder` finishes (the chunk
    /// before the one just read).
    bank: usize,
    /// Entries of the remainder bank already finished.
    w_slot: usize,
    z_slot: usize,
}

#[derive(Default)]
pub struct WeightDecoder {
    // Bit buffer
    buffer: u128,
    fill: u32,
    /// Bits consumed, modulo 8 (for the end marker's byte alignment).
    bitpos: u32,
    /// Words taken, modulo 4 (128-bit length check).
    words: u32,
    seen_last: bool,
    // Parser
    state: State,
    error_code: u8,
    /// A palette has been loaded since the start or the last end marker; without one a
    /// slice must bring its own (`newpal = 1`).
    have_palette: bool,
    /// The last thing parsed was an end marker.
    after_end: bool,
    /// End markers parsed since the first of a row: padding bytes.
    padding: u32,
    slice: Slice,
    pal_i: u32,
    chunks: Chunks,
    wbank: [[u32; CHUNK]; 2],
    zbank: [[u32; CHUNK]; 2],
    // Queues: (value, paired with a zero run), (length, leading zero run of a slice)
    weights: std::collections::VecDeque<(i16, bool)>,
    zero_runs: std::collections::VecDeque<(u32, bool)>,
    // Emitter and output register
    zeros_left: u32,
    out_valid: bool,
    out_count: u8,
    out_data: u64,
    done: bool,
    events: Vec<&'static str>,
}

/// What one parser step does, if its bits are there.
enum Step {
    /// Not enough bits yet.
    Wait,
    /// Consumes `bits`.
    Consume(u32),
}

impl WeightDecoder {
    pub fn outputs(&self) -> Out {
        let parsing = matches!(self.state, State::Header | State::Palette | State::Unary | State::Remainder);
        Out {
            in_ready: parsing && !self.seen_last && self.fill <= BUFFER_BITS - WORD_BITS,
            out_valid: self.out_valid,
            out_count: if self.out_valid { self.out_count } else { 0 },
            out_data: if self.out_valid { self.out_data } else { 0 },
            done: self.done,
            error: self.state == State::Error,
            error_code: self.error_code,
        }
    }

    /// `n` bits of the buffer from bit `at`.
    fn bits(&self, at: u32, n: u32) -> u32 {
        field(self.buffer, at, n)
    }

    fn event(&mut self, what: &'static str) {
        self.events.push(what);
    }

    fn clock(&mut self, i: &In) {
        self.events.clear();
        if i.reset {
            *self = Self { events: std::mem::take(&mut self.events), ..Self::default() };
            self.event("reset");
            return;
        }
        if self.state == State::Error {
            return;
        }
        let now = self.outputs();
        self.done = false;
        // The emitter sees the queues as they were at the start of the cycle; the parser's
        // room check too, so pushes and pops of one cycle never collide.
        let queued = (self.weights.len(), self.zero_runs.len());
        // How full the queues get (issue 21: a queue whose tail is its head is where a
        // write-enable mutant shows): 29 or more is past the parser's room check.
        if queued.0 == QUEUE_DEPTH {
            self.event("weight queue full");
        }
        if queued.1 == QUEUE_DEPTH {
            self.event("zero-run queue full");
        } else if queued.1 > QUEUE_DEPTH - LANES {
            self.event("zero-run queue past its room check (29-31 runs)");
        }
        if !self.out_valid || i.out_ready {
            if self.out_valid {
                self.event("beat taken");
            }
            self.emit();
        } else {
            self.event("output stalled");
        }
        let consumed = match self.state {
            State::Header => self.header(),
            State::Palette => self.palette(),
            State::Unary => self.unary(queued),
            State::Remainder => self.remainder(queued),
            State::Drain => {
                self.drain(now.out_valid && !i.out_ready);
                Ok(Step::Wait)
            }
            State::Error => unreachable!(),
        };
        let consumed = match consumed {
            Ok(Step::Consume(n)) => n,
            Ok(Step::Wait) => 0,
            Err(e) => {
                self.state = State::Error;
                self.error_code = e as u8;
                self.out_valid = false;
                self.event(e.event());
                return;
            }
        };
        self.fill -= consumed;
        self.bitpos = (self.bitpos + consumed) % 8;
        self.buffer >>= consumed;
        if now.in_ready && i.in_valid {
            self.buffer |= u128::from(i.in_data) << self.fill;
            self.fill += WORD_BITS;
            self.words = (self.words + 1) % 4;
            self.seen_last = i.in_last;
            self.event("word taken");
        }
    }

    /// A step that needs `need` bits: `Wait` until they are buffered, a truncation fault if
    /// they never will be.
    fn need(&self, need: u32) -> Result<bool, DecodeError> {
        if self.fill >= need {
            Ok(true)
        } else if self.seen_last {
            Err(DecodeError::Truncated)
        } else {
            Ok(false)
        }
    }

    fn header(&mut self) -> Result<Step, DecodeError> {
        if self.fill == 0 && self.seen_last {
            if !self.after_end {
                return Err(DecodeError::MissingEnd);
            }
            if self.words != 0 {
                return Err(DecodeError::Length);
            }
            self.state = State::Drain;
            self.event("stream parsed");
            return Ok(Step::Wait);
        }
        if !self.need(3)? {
            return Ok(Step::Wait);
        }
        let zdiv = self.bits(0, 3);
        if zdiv == 7 {
            let align = (8 - (self.bitpos + 3) % 8) % 8;
            if !self.need(3 + align)? {
                return Ok(Step::Wait);
            }
            if self.bits(3, align) != (1 << align) - 1 {
                return Err(DecodeError::Padding);
            }
            if self.after_end && self.padding == MAX_PADDING_BYTES {
                return Err(DecodeError::LongPadding);
            }
            self.padding = if self.after_end { self.padding + 1 } else { 0 };
            self.have_palette = false;
            self.after_end = true;
            self.event(if align == 5 { "end marker at a byte boundary (or 0xFF padding)" } else { "end marker" });
            return Ok(Step::Consume(3 + align));
        }
        if zdiv == 4 || zdiv == 5 {
            return Err(DecodeError::ReservedZdiv);
        }
        let newpal = self.bits(22, 1) == 1;
        let need = if newpal { 36 } else { 23 };
        if !self.need(need)? {
            return Ok(Step::Wait);
        }
        let wdiv = self.bits(18, 3);
        if wdiv == 6 {
            return Err(DecodeError::ReservedWdiv);
        }
        if !newpal && !self.have_palette {
            return Err(DecodeError::NoPalette);
        }
        let bits = |at, n| field(self.buffer, at, n);
        let s = &mut self.slice;
        s.zdiv = zdiv;
        s.slicelen = bits(3, 15);
        s.wdiv = wdiv;
        s.wtrunc = bits(21, 1) == 1;
        s.newpal = newpal;
        if newpal {
            s.dirofs = bits(23, 5);
            let palsize = bits(28, 5);
            s.palsize = if palsize == 0 { 0 } else { palsize + 1 };
            s.palbits = bits(33, 3) + 2;
        }
        self.pal_i = 0;
        self.chunks = Chunks::default();
        self.have_palette = true;
        self.after_end = false;
        self.state = if newpal && self.slice.palsize > 0 { State::Palette } else { State::Unary };
        self.slice_events();
        Ok(Step::Consume(need))
    }

    fn slice_events(&mut self) {
        let s = self.slice.clone();
        self.event(if s.alternating() { ZDIV_EVENTS[s.zdiv as usize] } else { "zdiv 6 (no zero runs)" });
        self.event(WDIV_EVENTS[s.wdiv as usize]);
        self.event(if s.wtrunc { "wtrunc 1" } else { "wtrunc 0" });
        self.event(if s.newpal { "newpal 1" } else { "newpal 0" });
        if s.newpal {
            self.event(PALSIZE_EVENTS[s.palsize as usize]);
            self.event(PALBITS_EVENTS[s.palbits as usize]);
        }
    }

    fn palette(&mut self) -> Result<Step, DecodeError> {
        let k = (self.slice.palsize - self.pal_i).min(4);
        let bits = self.slice.palbits;
        if !self.need(k * bits)? {
            return Ok(Step::Wait);
        }
        for j in 0..k {
            self.slice.palette[(self.pal_i + j) as usize] = self.bits(j * bits, bits);
        }
        self.pal_i += k;
        if self.pal_i == self.slice.palsize {
            self.state = State::Unary;
        }
        self.event("palette entries");
        Ok(Step::Consume(k * bits))
    }

    /// One chunk's unary part (§1.6): `wunary0`, `zunary`, `wunary1`; and in the same cycle
    /// the first group of the remainders that follow it (the chunk before's), if their bits
    /// are buffered and their queue has room (else the `Remainder` step takes them).
    fn unary(&mut self, queued: (usize, usize)) -> Result<Step, DecodeError> {
        let s = &self.slice;
        let c = &self.chunks;
        let balance = c.wq_i as i32 - c.zq_i as i32;
        let w_en = (balance < 8 || !s.alternating()) && c.wq_i < s.w_cnt();
        let z_en = balance >= 0 && s.alternating() && c.zq_i < s.z_cnt();
        let w_unary = w_en && !s.uncompressed();
        let zunary_len = if s.zdiv < 3 { 12 } else { 8 };
        let wunary0 = if w_unary { self.bits(0, 12) } else { 0 };
        let zunary_at = if w_unary { 12 } else { 0 };
        let wunary1_at = zunary_at + if z_en { zunary_len } else { 0 };
        let need = wunary1_at + wunary0.count_ones();
        if !self.need(need)? {
            return Ok(Step::Wait);
        }
        let zunary = self.bits(zunary_at, zunary_len);
        let wunary1 = self.bits(wunary1_at, 12);
        let (w_cnt, z_cnt, wtrunc, unc) = (s.w_cnt(), s.z_cnt(), s.wtrunc, s.uncompressed());
        let max_zq = MAX_ZERO_RUN >> s.zdiv;
        let bank = c.bank;
        let c = &mut self.chunks;
        let (mut wq_i, mut zq_i, mut wq, mut zq) = (c.wq_i, c.zq_i, c.wq, c.zq);
        let (carried_w, carried_z) = (wq > 0, zq > 0);
        if w_unary {
            let mut j = 0;
            for i in 0..CHUNK {
                if wq_i >= w_cnt {
                    break;
                }
                let mut step = 0;
                if (wunary0 >> i) & 1 == 1 {
                    step = 1 + ((wunary1 >> j) & 1);
                    j += 1;
                }
                wq += step;
                if wq > 31 {
                    return Err(DecodeError::Quotient);
                }
                if step < 2 || wtrunc {
                    self.wbank[bank][(wq_i - c.wq_i) as usize] = wq;
                    wq_i += 1;
                    wq = 0;
                }
            }
        } else if w_en && unc {
            let n = (w_cnt - wq_i).min(if s.ubits() <= 5 { 12 } else { 8 });
            self.wbank[bank][..n as usize].fill(0);
            wq_i += n;
        }
        if z_en {
            for i in 0..zunary_len {
                if zq_i >= z_cnt {
                    break;
                }
                if (zunary >> i) & 1 == 1 {
                    zq += 1;
                    if zq > max_zq {
                        return Err(DecodeError::ZeroRun);
                    }
                } else {
                    self.zbank[bank][(zq_i - c.zq_i) as usize] = zq;
                    zq_i += 1;
                    zq = 0;
                }
            }
        }
        let c = &mut self.chunks;
        c.w_due = c.wq_i;
        c.z_due = c.zq_i;
        (c.wq_i, c.zq_i, c.wq, c.zq) = (wq_i, zq_i, wq, zq);
        c.more = w_en || z_en;
        c.bank ^= 1;
        c.w_slot = 0;
        c.z_slot = 0;
        let owed = c.wr_i < c.w_due || c.zr_i < c.z_due;
        self.state = if owed {
            State::Remainder
        } else if c.more {
            State::Unary
        } else {
            State::Header
        };
        let mut consumed = need;
        if owed {
            if let Some(bits) = self.remainder_group(need, queued)? {
                consumed += bits;
                self.event("unary part with remainders");
            } else {
                self.event("unary part alone, its remainders not buffered or no room");
            }
        }
        self.event(match (w_en, z_en) {
            (true, true) => "chunk with weights and zero runs",
            (true, false) if self.slice.alternating() => "chunk with weights only (balance < 0)",
            (true, false) => "chunk with weights",
            (false, true) => "chunk with zero runs only (balance >= 8)",
            (false, false) => "last chunk (remainders only)",
        });
        if (carried_w && w_unary) || wq > 0 {
            self.event("weight quotient across chunks");
        }
        if (carried_z && z_en) || zq > 0 {
            self.event("zero run across chunks");
        }
        Ok(Step::Consume(consumed))
    }

    /// Up to 4 remainders of the previous chunk: weights first, then zero runs (§1.6).
    fn remainder(&mut self, queued: (usize, usize)) -> Result<Step, DecodeError> {
        let c = &self.chunks;
        let bits = if c.wr_i < c.w_due {
            (c.w_due - c.wr_i).min(4) * self.slice.wremain_bits()
        } else {
            (c.z_due - c.zr_i).min(4) * self.slice.zdiv
        };
        if !self.need(bits)? {
            return Ok(Step::Wait);
        }
        Ok(match self.remainder_group(0, queued)? {
            Some(bits) => Step::Consume(bits),
            None => Step::Wait,
        })
    }

    /// The next group of up to 4 remainders, `at` bits into the buffer: the bits it takes,
    /// or `None` if they are not all buffered or their queue has no room for 4.
    fn remainder_group(&mut self, at: u32, (weights, zero_runs): (usize, usize)) -> Result<Option<u32>, DecodeError> {
        let s = &self.slice;
        let c = &self.chunks;
        // U(n) filled the other bank; this phase finishes chunk n-1, in `bank`.
        let bank = c.bank;
        let consumed = if c.wr_i < c.w_due {
            let k = (c.w_due - c.wr_i).min(4);
            let bits = s.wremain_bits();
            if self.fill < at + k * bits || weights > QUEUE_DEPTH - LANES {
                return Ok(None);
            }
            for j in 0..k {
                let rem = self.bits(at + j * bits, bits);
                let idx = if s.uncompressed() { rem } else { (self.wbank[bank][c.w_slot + j as usize] << s.wdiv) | rem };
                if idx > 511 {
                    return Err(DecodeError::Index);
                }
                self.weights.push_back((s.value(idx)?, s.alternating()));
            }
            let c = &mut self.chunks;
            c.wr_i += k;
            c.w_slot += k as usize;
            self.event("weight remainders");
            k * bits
        } else {
            let k = (c.z_due - c.zr_i).min(4);
            if self.fill < at + k * s.zdiv || zero_runs > QUEUE_DEPTH - LANES {
                return Ok(None);
            }
            for j in 0..k {
                let run = (self.zbank[bank][c.z_slot + j as usize] << s.zdiv) | self.bits(at + j * s.zdiv, s.zdiv);
                self.zero_runs.push_back((run, s.newpal && c.zr_i + j == 0));
            }
            let c = &mut self.chunks;
            c.zr_i += k;
            c.z_slot += k as usize;
            self.event("zero-run remainders");
            k * self.slice.zdiv
        };
        let c = &self.chunks;
        self.state = if c.wr_i < c.w_due || c.zr_i < c.z_due {
            State::Remainder
        } else if c.more {
            State::Unary
        } else {
            State::Header
        };
        Ok(Some(consumed))
    }

    /// The next output beat from the queues, if there is one (the output register is free).
    fn emit(&mut self) {
        let mut lanes = [0i16; LANES];
        let mut count = 0;
        if self.zeros_left > 0 {
            count = self.zeros_left.min(LANES as u32) as usize;
            self.zeros_left -= count as u32;
            self.event("beat of zeros");
        } else if self.weights.front().is_some_and(|w| !w.1) {
            while count < LANES && self.weights.front().is_some_and(|w| !w.1) {
                lanes[count] = self.weights.pop_front().unwrap().0;
                count += 1;
            }
            self.event(if count == LANES { "beat of 4 plain weights" } else { "beat of plain weights" });
        } else if let Some(&(run, true)) = self.zero_runs.front() {
            self.zero_runs.pop_front();
            count = run.min(LANES as u32) as usize;
            self.zeros_left = run - count as u32;
            self.event(if run == 0 { "leading zero run empty" } else { "beat of leading zeros" });
        } else {
            // Pairs (weight, zero run) while they fit; a run that does not fit goes on in
            // the next beats.
            let mut pairs = 0;
            while count < LANES && self.zeros_left == 0 {
                let (Some(&(w, true)), Some(&(run, false))) = (self.weights.front(), self.zero_runs.front()) else {
                    break;
                };
                self.weights.pop_front();
                self.zero_runs.pop_front();
                lanes[count] = w;
                count += 1;
                let fit = run.min((LANES - count) as u32);
                count += fit as usize;
                self.zeros_left = run - fit;
                pairs += 1;
            }
            if pairs > 1 {
                self.event("beat of several pairs");
            } else if pairs == 1 {
                self.event("beat of one pair");
            }
        }
        self.out_valid = count > 0;
        self.out_count = count as u8;
        self.out_data = lanes.iter().enumerate().fold(0, |d, (k, &w)| d | (u64::from(w as u16 & 0x1FF) << (9 * k)));
    }

    /// Stream parsed: `done` once everything has left, then back to the start.
    fn drain(&mut self, beat_held: bool) {
        let empty = self.weights.is_empty() && self.zero_runs.is_empty() && self.zeros_left == 0;
        if empty && !self.out_valid && !beat_held {
            *self = Self { events: std::mem::take(&mut self.events), done: true, ..Self::default() };
            self.event("done");
        }
    }
}

const ZDIV_EVENTS: [&str; 4] = ["zdiv 0", "zdiv 1", "zdiv 2", "zdiv 3"];
const WDIV_EVENTS: [&str; 8] = ["wdiv 0", "wdiv 1", "wdiv 2", "wdiv 3", "wdiv 4", "wdiv 5", "", "wdiv 7 (uncompressed)"];
const PALSIZE_EVENTS: [&str; 33] = [
    "palette size 0", "", "palette size 2", "palette size 3", "palette size 4", "palette size 5", "palette size 6",
    "palette size 7", "palette size 8", "palette size 9", "palette size 10", "palette size 11", "palette size 12",
    "palette size 13", "palette size 14", "palette size 15", "palette size 16", "palette size 17", "palette size 18",
    "palette size 19", "palette size 20", "palette size 21", "palette size 22", "palette size 23", "palette size 24",
    "palette size 25", "palette size 26", "palette size 27", "palette size 28", "palette size 29", "palette size 30",
    "palette size 31", "palette size 32",
];
const PALBITS_EVENTS: [&str; 10] =
    ["", "", "palbits 2", "palbits 3", "palbits 4", "palbits 5", "palbits 6", "palbits 7", "palbits 8", "palbits 9"];

crate::sequential_block!(WeightDecoder, events);
