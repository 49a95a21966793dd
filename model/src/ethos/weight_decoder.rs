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
//!
//! Sub-modules, named after the RTL's sub-blocks: `weight_decoder_core` (the parser's state,
//! chunk counters and step of the cycle), `slice_params` (the slice's fields and what follows
//! from them), `header_step`, `palette` (the palette step), `unary_step`, `remainder_group`
//! (the remainder steps and the weights' values) and `weight_emitter` (the next beat). This
//! file keeps the bit buffer, the output register and the restart after a drained stream, as
//! the RTL's `WeightDecoder` does. The RTL's `quotient_banks.rs` and `weight_queues.rs` are
//! storage, here the arrays `wbank`, `zbank` and the queues `weights`, `zero_runs` below.

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

mod header_step;
mod palette;
mod remainder_group;
mod slice_params;
mod unary_step;
mod weight_decoder_core;
mod weight_emitter;

use slice_params::Slice;
use weight_decoder_core::{Chunks, State, Step};

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
        let Some(consumed) = self.parse(queued, now.out_valid && !i.out_ready) else {
            return;
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

    /// Stream parsed: `done` once everything has left, then back to the start.
    fn drain(&mut self, beat_held: bool) {
        let empty = self.weights.is_empty() && self.zero_runs.is_empty() && self.zeros_left == 0;
        if empty && !self.out_valid && !beat_held {
            *self = Self { events: std::mem::take(&mut self.events), done: true, ..Self::default() };
            self.event("done");
        }
    }
}

crate::sequential_block!(WeightDecoder, events);
