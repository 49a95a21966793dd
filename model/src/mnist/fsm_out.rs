//! FSM_OUT (seeds/002 §8, Table 7). RTL: `hdl/src/mnist/fsm_out.rs`.
//!
//! OUT_IDLE waits for EN_ReLU; S1 loads PISO_OUT (Shift/~LD_OUT low), S2..S4 shift it, and
//! S2..S5 write its top byte to the FIFO, so the four bytes leave in S2..S5. S5 raises
//! OUT_DONE (FSM_ACC leaves WAIT on it) and returns to OUT_IDLE whatever EN_ReLU is: an
//! EN_ReLU that arrives in S1..S5 is not seen, which is why continuous frames need N >= 4
//! (docs/mnist.md). `freeze` (EN_PISO_DEB) holds the state.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum State {
    #[default]
    OutIdle,
    S1,
    S2,
    S3,
    S4,
    S5,
}

impl State {
    pub fn name(self) -> &'static str {
        ["OUT_IDLE", "OUT_S1", "OUT_S2", "OUT_S3", "OUT_S4", "OUT_S5"][self as usize]
    }

    /// Table 7, next-state columns.
    pub fn next(self, en_relu: bool) -> State {
        match self {
            State::OutIdle => if en_relu { State::S1 } else { State::OutIdle },
            State::S1 => State::S2,
            State::S2 => State::S3,
            State::S3 => State::S4,
            State::S4 => State::S5,
            State::S5 => State::OutIdle,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub freeze: bool,
    pub en_relu: bool,
}

/// Table 7, output columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub shift_out: bool,
    pub en_piso_out: bool,
    pub out_done: bool,
    pub wr_en: bool,
}

#[derive(Default)]
pub struct FsmOut {
    state: State,
    event: &'static str,
}

impl FsmOut {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        let s = self.state;
        Out {
            shift_out: s != State::S1,
            en_piso_out: matches!(s, State::S1 | State::S2 | State::S3 | State::S4),
            out_done: s == State::S5,
            wr_en: matches!(s, State::S2 | State::S3 | State::S4 | State::S5),
        }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        if i.reset {
            self.state = State::OutIdle;
            return "reset";
        }
        if i.freeze {
            return "freeze";
        }
        let event = match (self.state, i.en_relu) {
            (State::OutIdle, _) | (_, false) => self.state.name(),
            (_, true) => "EN_ReLU while busy ignored",
        };
        self.state = self.state.next(i.en_relu);
        event
    }
}

crate::sequential_block!(FsmOut);
