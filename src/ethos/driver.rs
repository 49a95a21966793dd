//! Driving weight streams through the decoder's ports: the same code for the Verilated RTL
//! and the model (anything that steps `npu_model::ethos::weight_decoder::{In, Out}`), used by
//! `npu ethos decode`, the tests and the benchmark.
use npu_cosim::lockstep::{drive, Coverage, Mismatch, Run};
use npu_cosim::tops::weight_decoder::WeightDecoder as WeightDecoderDut;
use npu_model::ethos::weight_decoder::{DecodeError, In, Out};
use std::fmt;

/// Bytes of one decoder input word (seeds/000 §4.7, digest §1.1: 32-bit words, byte 0 in
/// bits 7:0).
pub const WORD_BYTES: usize = 4;

/// The stream as the decoder's 32-bit input words: bytes little-endian, a last partial word
/// padded with zero bytes (which may decode to weights that are not in the stream). Only for
/// streams of whole words, as the convolution bench's encoder streams are; [`decode_each`],
/// [`decode`] and [`lockstep`] never feed a partial word (see [`Outcome`]).
pub fn words(stream: &[u8]) -> Vec<u32> {
    stream.chunks(WORD_BYTES).map(|c| c.iter().rev().fold(0, |w, &b| (w << 8) | u32::from(b))).collect()
}

/// How a stream ended.
///
/// Two kinds of stream cannot be offered to the decoder's port as they are, and the driver
/// reports for them the decoder's own fault for such a stream (decisions, docs/ethos.md):
/// - *Empty*: the decoder learns where a stream ends from `in_last` on its last word, and an
///   empty stream has no word; it is [`DecodeError::MissingEnd`] at once (no end marker),
///   with no cycle run.
/// - *A length that is not a multiple of 4 bytes*: the port takes whole 32-bit words, with no
///   byte enables. The whole words are decoded (so every weight delivered is the stream's,
///   never one from bytes that are not in the file); the trailing 1-3 bytes are not. The
///   outcome is [`DecodeError::Length`] (such a stream is never a whole number of 128-bit
///   words, seeds/000 §4.7, digest §1.2), unless the whole words hold a fault of their own
///   before their end: a fault found only because the words ended (truncated, missing end,
///   length) or a `done` becomes the length fault, whose cause comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `done`: the stream was well formed and every weight left.
    Done,
    /// `error` with this code.
    Error(DecodeError),
    /// Neither `done` nor `error` within the cycle limit (a bug: the decoder must not hang).
    Hung,
}

impl fmt::Display for Outcome {
    /// What a user reads: no Rust names.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Done => write!(f, "decoded"),
            Self::Error(e) => write!(f, "malformed stream: {} (error code {})", e.message(), *e as u8),
            Self::Hung => write!(f, "the decoder neither finished nor reported a fault (a bug)"),
        }
    }
}

/// Feeds one stream into the decoder and follows what comes out, one cycle at a time:
/// [`Feeder::input`] before the cycle, [`Feeder::observe`] with the cycle's outputs.
#[derive(Clone, Debug)]
pub struct Feeder<'a> {
    stream: &'a [u8],
    /// Whole words of `stream`, and the next one to offer.
    words: usize,
    next: usize,
    pub outcome: Option<Outcome>,
    /// Cycles observed, output beats taken and the weights they carried.
    pub cycles: u64,
    pub beats: u64,
    pub weights: u64,
}

impl<'a> Feeder<'a> {
    /// A stream without a whole word (0 to 3 bytes) has its outcome before the first cycle
    /// ([`Outcome`]): there is nothing to offer.
    pub fn new(stream: &'a [u8]) -> Self {
        let words = stream.len() / WORD_BYTES;
        let outcome = match stream.len() {
            0 => Some(Outcome::Error(DecodeError::MissingEnd)),
            _ if words == 0 => Some(Outcome::Error(DecodeError::Length)),
            _ => None,
        };
        Self { stream, words, next: 0, outcome, cycles: 0, beats: 0, weights: 0 }
    }

    /// The inputs of the next cycle: the next word if `offer` (a source may pause), and
    /// `out_ready`. A word is held until it is taken, as valid/ready requires.
    pub fn input(&self, offer: bool, out_ready: bool) -> In {
        let word = (offer && self.outcome.is_none() && self.next < self.words).then(|| {
            let bytes = &self.stream[WORD_BYTES * self.next..][..WORD_BYTES];
            u32::from_le_bytes(bytes.try_into().expect("a whole word"))
        });
        In {
            reset: false,
            in_valid: word.is_some(),
            in_data: word.unwrap_or(0),
            in_last: word.is_some() && self.next + 1 == self.words,
            out_ready,
        }
    }

    /// Takes the cycle's outputs; the weights of a beat taken go to `sink`, in stream order.
    pub fn observe(&mut self, input: &In, out: &Out, mut sink: impl FnMut(i16)) {
        self.cycles += 1;
        if input.in_valid && out.in_ready {
            self.next += 1;
        }
        if out.out_valid && input.out_ready {
            self.beats += 1;
            for w in out.weights() {
                self.weights += 1;
                sink(w);
            }
        }
        let partial_word = !self.stream.len().is_multiple_of(WORD_BYTES);
        let outcome = if out.error {
            // The RTL's codes are the model's; an unknown one is a hang-class bug, not a panic.
            DecodeError::from_code(out.error_code).map_or(Outcome::Hung, Outcome::Error)
        } else if out.done {
            Outcome::Done
        } else {
            return;
        };
        self.outcome = Some(match outcome {
            Outcome::Done | Outcome::Error(DecodeError::Truncated | DecodeError::MissingEnd) if partial_word => {
                Outcome::Error(DecodeError::Length)
            }
            o => o,
        });
    }
}

/// What [`decode_each`] gives: counts only, the weights went to its sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Weights delivered.
    pub weights: u64,
    pub outcome: Outcome,
    /// From the first word offered to `done` or `error`.
    pub cycles: u64,
}

/// A cycle limit no stream of `bytes` may reach: every step consumes bits or moves a beat
/// of up to 4 zeros, and a zero run is at most 65535 zeros per 2 bits of stream.
pub fn cycle_limit(bytes: usize) -> u64 {
    1000 + 200 * bytes as u64
}

/// Resets the decoder, then runs `stream` through `step` with the input always offered and
/// the output always ready, until `done` or `error`, handing each weight to `sink` as it
/// leaves the decoder: memory stays bounded however many zeros the stream's runs expand to
/// (`npu ethos decode` writes them to its output as they come).
pub fn decode_each(stream: &[u8], mut step: impl FnMut(&In) -> Out, mut sink: impl FnMut(i16)) -> Tally {
    let mut feeder = Feeder::new(stream);
    if feeder.outcome.is_none() {
        step(&In { reset: true, ..In::default() });
    }
    while feeder.outcome.is_none() && feeder.cycles < cycle_limit(stream.len()) {
        let input = feeder.input(true, true);
        let out = step(&input);
        feeder.observe(&input, &out, &mut sink);
    }
    Tally { outcome: feeder.outcome.unwrap_or(Outcome::Hung), weights: feeder.weights, cycles: feeder.cycles }
}

/// What [`decode`] gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub weights: Vec<i16>,
    pub outcome: Outcome,
    pub cycles: u64,
}

/// [`decode_each`] collecting every weight: for tests and benches that compare weight lists
/// (the weights of a stream may need 65535 times its size; the command line streams them).
pub fn decode(stream: &[u8], step: impl FnMut(&In) -> Out) -> Decoded {
    let mut weights = Vec::new();
    let tally = decode_each(stream, step, |w| weights.push(w));
    Decoded { weights, outcome: tally.outcome, cycles: tally.cycles }
}

/// One stream's result in [`lockstep`].
#[derive(Clone, Debug)]
pub struct StreamResult {
    pub weights: Vec<i16>,
    pub outcome: Outcome,
    pub cycles: u64,
}

/// [`lockstep`]'s place in its list of streams.
struct Streams<'a> {
    all: &'a [Vec<u8>],
    /// The stream being fed, its feeder and the weights it gave so far.
    index: usize,
    feeder: Feeder<'a>,
    weights: Vec<i16>,
    results: Vec<StreamResult>,
}

impl<'a> Streams<'a> {
    fn new(all: &'a [Vec<u8>]) -> Self {
        let mut s = Self { all, index: 0, feeder: Feeder::new(&[]), weights: Vec::new(), results: Vec::new() };
        s.start();
        s
    }

    /// Starts the stream at `index`, first recording those that end before a cycle (no
    /// whole word).
    fn start(&mut self) {
        while let Some(stream) = self.all.get(self.index) {
            self.feeder = Feeder::new(stream);
            match self.feeder.outcome {
                Some(outcome) => self.results.push(StreamResult { weights: Vec::new(), outcome, cycles: 0 }),
                None => return,
            }
            self.index += 1;
        }
    }

    fn finish(&mut self) {
        let outcome = self.feeder.outcome.expect("a finished stream");
        self.results.push(StreamResult { weights: std::mem::take(&mut self.weights), outcome, cycles: self.feeder.cycles });
        self.index += 1;
        self.start();
    }

    fn running(&self) -> bool {
        self.index < self.all.len()
    }
}

/// Runs `streams` back to back through the Verilated decoder and its model in lock step
/// (`npu_cosim::lockstep::drive`: any output difference in any cycle is a mismatch), with a
/// reset only after an error. With `stalls`, the source pauses and the sink refuses beats
/// at random (a quarter of the cycles each). Returns each stream's weights and outcome, and
/// the coverage of model events plus "input paused" / "output refused" / "error reset".
pub fn lockstep(
    run: &Run,
    streams: &[Vec<u8>],
    stalls: bool,
) -> Result<(Vec<StreamResult>, Coverage), Box<Mismatch<WeightDecoderDut>>> {
    use rand::Rng;
    use std::cell::RefCell;
    let state = RefCell::new(Streams::new(streams));
    let limit: u64 = streams.iter().map(|s| cycle_limit(s.len())).sum();
    let run = Run { cycles: limit, ..run.clone() };
    let coverage = drive::<WeightDecoderDut>(
        &run,
        |rng, _| {
            let feeder = &state.borrow().feeder;
            if feeder.outcome.is_some_and(|o| o != Outcome::Done) {
                return In { reset: true, ..In::default() };
            }
            feeder.input(!stalls || rng.gen_ratio(3, 4), !stalls || rng.gen_ratio(3, 4))
        },
        |input, out, coverage| {
            let s = &mut *state.borrow_mut();
            if !s.running() {
                return false; // every stream ended before a cycle
            }
            if input.reset {
                coverage.hit("error reset");
            } else {
                if !input.in_valid && s.feeder.input(true, true).in_valid {
                    coverage.hit("input paused");
                }
                if out.out_valid && !input.out_ready {
                    coverage.hit("output refused");
                }
                let weights = &mut s.weights;
                s.feeder.observe(input, out, |w| weights.push(w));
            }
            // A stream ends at `done`, or at its error once the reset cycle has passed.
            let finished = match s.feeder.outcome {
                Some(Outcome::Done) => true,
                Some(_) => input.reset,
                None => false,
            };
            if finished {
                s.finish();
            }
            s.running()
        },
    )?;
    let results = state.into_inner().results;
    assert_eq!(results.len(), streams.len(), "{}: the decoder hung (cycle limit {limit} reached)", run.test);
    Ok((results, coverage))
}
