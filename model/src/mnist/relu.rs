//! ReLU1/ReLU2 (seeds/002 §6.3, Eqn. 1). RTL: `hdl/src/mnist/relu.rs`.
//!
//! The ReLU is a register: it captures `relu(x)` (or `x` when bypassed) at the end of a cycle
//! with EN_ReLU high and holds it otherwise. The FSM tables need that: FSM_ACC raises EN_ReLU
//! in LAST (or BIAS), when the MAC register holds the finished sum, and FSM_OUT loads PISO_OUT
//! one cycle later, when FSM_ACC has already moved on (EN_ReLU low, and in BIAS the MAC holds
//! the next bias). A combinational ReLU gated by EN_ReLU would pass 0 or the wrong sum.

/// Eqn. 1.
pub fn relu(x: i16) -> i16 {
    x.max(0)
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub en_relu: bool,
    pub bypass: bool,
    pub x: i16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub y: i16,
}

#[derive(Default)]
pub struct Relu {
    y: i16,
    event: &'static str,
}

impl Relu {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { y: self.y }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.y, event) = if i.reset {
            (0, "reset")
        } else if !i.en_relu {
            (self.y, "hold")
        } else if i.bypass {
            (i.x, if i.x < 0 { "bypass negative" } else { "bypass" })
        } else {
            (relu(i.x), if i.x < 0 { "clamp negative" } else { "pass" })
        };
        event
    }
}

crate::sequential_block!(Relu);
