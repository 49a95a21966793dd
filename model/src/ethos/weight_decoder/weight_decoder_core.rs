//! The weight decoder model's parser (RTL `hdl/src/ethos/weight_decoder_core.rs`; TRM §4.7,
//! digest `shared/spec/ethos-u65.md` §1): its state and chunk counters, and the step of the cycle,
//! one a cycle once the step's bits are all buffered, by state: `header_step.rs`, `palette.rs`,
//! `unary_step.rs`, `remainder_group.rs`, or the drain; a fault stops the decoder.
use super::*;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum State {
    #[default]
    Header,
    Palette,
    Unary,
    Remainder,
    /// The stream is parsed; waiting for the last weights to leave.
    Drain,
    Error,
}

/// Chunk and remainder counters of the current slice (§1.6).
#[derive(Clone, Debug, Default)]
pub(super) struct Chunks {
    /// Weight / zero-run quotients completed so far.
    pub(super) wq_i: u32,
    pub(super) zq_i: u32,
    /// Remainders read so far.
    pub(super) wr_i: u32,
    pub(super) zr_i: u32,
    /// Remainders due in the current `Remainder` phase: up to these counts.
    pub(super) w_due: u32,
    pub(super) z_due: u32,
    /// Running quotients, carried across chunks.
    pub(super) wq: u32,
    pub(super) zq: u32,
    /// The last `Unary` step had a field enabled (so another chunk follows).
    pub(super) more: bool,
    /// The bank the next `Unary` step fills, and the one `Remainder` finishes (the chunk
    /// before the one just read).
    pub(super) bank: usize,
    /// Entries of the remainder bank already finished.
    pub(super) w_slot: usize,
    pub(super) z_slot: usize,
}

/// What one parser step does, if its bits are there.
pub(super) enum Step {
    /// Not enough bits yet.
    Wait,
    /// Consumes `bits`.
    Consume(u32),
}

impl WeightDecoder {
    /// The parser's step of the cycle (`beat_held`: the output beat stays, not taken): the bits
    /// it consumes, or `None` if it stopped at a fault.
    pub(super) fn parse(&mut self, queued: (usize, usize), beat_held: bool) -> Option<u32> {
        let consumed = match self.state {
            State::Header => self.header(),
            State::Palette => self.palette(),
            State::Unary => self.unary(queued),
            State::Remainder => self.remainder(queued),
            State::Drain => {
                self.drain(beat_held);
                Ok(Step::Wait)
            }
            State::Error => unreachable!(),
        };
        match consumed {
            Ok(Step::Consume(n)) => Some(n),
            Ok(Step::Wait) => Some(0),
            Err(e) => {
                self.state = State::Error;
                self.error_code = e as u8;
                self.out_valid = false;
                self.event(e.event());
                None
            }
        }
    }

    /// A step that needs `need` bits: `Wait` until they are buffered, a truncation fault if
    /// they never will be.
    pub(super) fn need(&self, need: u32) -> Result<bool, DecodeError> {
        if self.fill >= need {
            Ok(true)
        } else if self.seen_last {
            Err(DecodeError::Truncated)
        } else {
            Ok(false)
        }
    }
}
