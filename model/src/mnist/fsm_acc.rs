//! FSM_ACC (seeds/002 §8, Table 6). RTL: `hdl/src/mnist/fsm_acc.rs`.
//!
//! Moore machine: the outputs depend on the state and, for EN_ReLU in BIAS, on ACC_FLAG,
//! a flag that IDLE clears and ACC sets (BIAS, LAST and WAIT keep it). So BIAS raises
//! EN_ReLU only when it follows ACC directly: that is the previous frame's end in continuous
//! operation (§9.2), and LAST is the end of the last frame. `load_ctr` (BIAS) and
//! `count_down` (ACC) drive the downcounter; Figure 4 draws those wires, Table 6 leaves them
//! out. `freeze` (EN_PISO_DEB) holds the state.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum State {
    #[default]
    Idle,
    Bias,
    Acc,
    Last,
    Wait,
}

impl State {
    pub fn name(self) -> &'static str {
        ["IDLE", "BIAS", "ACC", "LAST", "WAIT"][self as usize]
    }

    /// Table 6, next-state columns.
    pub fn next(self, en_fsm: bool, ctr_out: bool, out_done: bool) -> State {
        match (self, en_fsm, ctr_out) {
            (State::Idle, false, _) => State::Idle,
            (State::Idle, true, _) => State::Bias,
            (State::Bias, _, _) => State::Acc,
            (State::Acc, _, false) => State::Acc,
            (State::Acc, false, true) => State::Last,
            (State::Acc, true, true) => State::Bias,
            (State::Last, _, _) => State::Wait,
            (State::Wait, _, _) => if out_done { State::Idle } else { State::Wait },
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub freeze: bool,
    pub en_fsm: bool,
    pub ctr_out: bool,
    pub out_done: bool,
}

/// Table 6, output columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub en_buf_in: bool,
    pub clr_buf_in: bool,
    pub en_mac: bool,
    pub rst_mac: bool,
    pub clr_piso_out: bool,
    pub en_relu: bool,
    pub load_ctr: bool,
    pub count_down: bool,
}

#[derive(Default)]
pub struct FsmAcc {
    state: State,
    acc_flag: bool,
    event: &'static str,
}

impl FsmAcc {
    pub fn state(&self) -> State {
        self.state
    }

    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        let s = self.state;
        Out {
            en_buf_in: s == State::Acc,
            clr_buf_in: matches!(s, State::Idle | State::Bias),
            en_mac: matches!(s, State::Bias | State::Acc | State::Last),
            rst_mac: s == State::Bias,
            clr_piso_out: s == State::Idle,
            en_relu: s == State::Last || (s == State::Bias && self.acc_flag),
            load_ctr: s == State::Bias,
            count_down: s == State::Acc,
        }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        if i.reset {
            (self.state, self.acc_flag) = (State::Idle, false);
            return "reset";
        }
        if i.freeze {
            return "freeze";
        }
        let event = match (self.state, self.acc_flag) {
            (State::Bias, true) => "BIAS after ACC",
            (s, _) => s.name(),
        };
        self.acc_flag = match self.state {
            State::Idle => false,
            State::Acc => true,
            _ => self.acc_flag,
        };
        self.state = self.state.next(i.en_fsm, i.ctr_out, i.out_done);
        event
    }
}

crate::sequential_block!(FsmAcc);
