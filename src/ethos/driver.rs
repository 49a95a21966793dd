//! Driving weight streams through the decoder's ports: the same code for the Verilated RTL
//! and the model (anything that steps `npu_model::ethos::weight_decoder::{In, Out}`), used by
//! `npu ethos decode`, the tests and the benchmark.
use npu_cosim::lockstep::{drive, Coverage, Mismatch, Run};
use npu_cosim::tops::weight_decoder::WeightDecoder as WeightDecoderDut;
use npu_model::ethos::weight_decoder::{DecodeError, In, Out};

/// The stream as the decoder's 32-bit input words: bytes little-endian, a last partial word
/// padded with zero bytes (which then fail the 128-bit length rule or parse as garbage).
pub fn words(stream: &[u8]) -> Vec<u32> {
    stream.chunks(4).map(|c| c.iter().rev().fold(0, |w, &b| (w << 8) | u32::from(b))).collect()
}

/// How a stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `done`: the stream was well formed and every weight left.
    Done,
    /// `error` with this code.
    Error(DecodeError),
    /// Neither `done` nor `error` within the cycle limit (a bug: the decoder must not hang).
    Hung,
}

/// Feeds one stream into the decoder and collects what comes out, one cycle at a time:
/// [`Feeder::input`] before the cycle, [`Feeder::observe`] with the cycle's outputs.
#[derive(Clone, Debug)]
pub struct Feeder {
    words: Vec<u32>,
    next: usize,
    pub weights: Vec<i16>,
    pub outcome: Option<Outcome>,
    /// Cycles observed, and output beats taken.
    pub cycles: u64,
    pub beats: u64,
}

impl Feeder {
    pub fn new(stream: &[u8]) -> Self {
        Self { words: words(stream), next: 0, weights: Vec::new(), outcome: None, cycles: 0, beats: 0 }
    }

    /// The inputs of the next cycle: the next word if `offer` (a source may pause), and
    /// `out_ready`. A word is held until it is taken, as valid/ready requires.
    pub fn input(&self, offer: bool, out_ready: bool) -> In {
        let word = self.words.get(self.next).filter(|_| offer && self.outcome.is_none());
        In {
            reset: false,
            in_valid: word.is_some(),
            in_data: word.copied().unwrap_or(0),
            in_last: word.is_some() && self.next + 1 == self.words.len(),
            out_ready,
        }
    }

    pub fn observe(&mut self, input: &In, out: &Out) {
        self.cycles += 1;
        if input.in_valid && out.in_ready {
            self.next += 1;
        }
        if out.out_valid && input.out_ready {
            self.weights.extend(out.weights());
            self.beats += 1;
        }
        if out.error {
            let code = DecodeError::from_code(out.error_code).unwrap_or_else(|| panic!("unknown error code {}", out.error_code));
            self.outcome = Some(Outcome::Error(code));
        } else if out.done {
            self.outcome = Some(Outcome::Done);
        }
    }
}

/// What [`decode`] gives.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub weights: Vec<i16>,
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
/// the output always ready, until `done` or `error`.
pub fn decode(stream: &[u8], mut step: impl FnMut(&In) -> Out) -> Decoded {
    step(&In { reset: true, ..In::default() });
    let mut feeder = Feeder::new(stream);
    while feeder.outcome.is_none() && feeder.cycles < cycle_limit(stream.len()) {
        let input = feeder.input(true, true);
        let out = step(&input);
        feeder.observe(&input, &out);
    }
    Decoded { outcome: feeder.outcome.unwrap_or(Outcome::Hung), weights: feeder.weights, cycles: feeder.cycles }
}

/// One stream's result in [`lockstep`].
#[derive(Clone, Debug)]
pub struct StreamResult {
    pub weights: Vec<i16>,
    pub outcome: Outcome,
    pub cycles: u64,
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
    let state = RefCell::new((0usize, Feeder::new(streams.first().map_or(&[][..], |s| s)), Vec::new()));
    let limit: u64 = streams.iter().map(|s| cycle_limit(s.len())).sum();
    let run = Run { cycles: limit, ..run.clone() };
    let coverage = drive::<WeightDecoderDut>(
        &run,
        |rng, _| {
            let (_, feeder, _) = &*state.borrow();
            if feeder.outcome.is_some_and(|o| o != Outcome::Done) {
                return In { reset: true, ..In::default() };
            }
            feeder.input(!stalls || rng.gen_ratio(3, 4), !stalls || rng.gen_ratio(3, 4))
        },
        |input, out, coverage| {
            let (index, feeder, results) = &mut *state.borrow_mut();
            if input.reset {
                coverage.hit("error reset");
            } else {
                if !input.in_valid && feeder.input(true, true).in_valid {
                    coverage.hit("input paused");
                }
                if out.out_valid && !input.out_ready {
                    coverage.hit("output refused");
                }
                feeder.observe(input, out);
            }
            // A stream ends at `done`, or at its error once the reset cycle has passed.
            let finished = match feeder.outcome {
                Some(Outcome::Done) => true,
                Some(_) => input.reset,
                None => false,
            };
            if finished {
                let f = std::mem::replace(feeder, Feeder::new(streams.get(*index + 1).map_or(&[][..], |s| s)));
                results.push(StreamResult { weights: f.weights, outcome: f.outcome.unwrap(), cycles: f.cycles });
                *index += 1;
            }
            *index < streams.len()
        },
    )?;
    let (_, _, results) = state.into_inner();
    assert_eq!(results.len(), streams.len(), "{}: the decoder hung (cycle limit {limit} reached)", run.test);
    Ok((results, coverage))
}
