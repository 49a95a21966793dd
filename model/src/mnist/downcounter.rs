//! The FSM's 16-bit downcounter (seeds/002 §8, Figure 4). RTL: `hdl/src/mnist/downcounter.rs`.
//!
//! FSM_ACC loads it from CTR[15:0] = {DB, DD} in BIAS (`load`) and counts it down in ACC
//! (`count_down`). CTR_OUT is high while the count is 0. Loaded with N, ACC therefore lasts
//! N + 1 cycles: the N data pairs plus the SSFR window, in which the MAC adds the last pair
//! (the input buffer delays the data by one cycle). A count of 0 holds at 0.

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub freeze: bool,
    pub load: bool,
    pub count_down: bool,
    pub start: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub ctr_out: bool,
}

#[derive(Default)]
pub struct Downcounter {
    count: u16,
    event: &'static str,
}

impl Downcounter {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { ctr_out: self.count == 0 }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.count, event) = if i.reset {
            (0, "reset")
        } else if i.freeze {
            (self.count, "freeze")
        } else if i.load {
            (i.start, if i.start == u16::MAX { "load 0xFFFF" } else { "load" })
        } else if i.count_down && self.count > 0 {
            (self.count - 1, if self.count == 1 { "count to 0" } else { "count" })
        } else if i.count_down {
            (0, "count at 0 holds")
        } else {
            (self.count, "hold")
        };
        event
    }
}

crate::sequential_block!(Downcounter);
