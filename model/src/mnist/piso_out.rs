//! PISO_OUT (seeds/002 §6.4, §9.3). RTL: `hdl/src/mnist/piso_out.rs`.

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub en_piso_out: bool,
    pub clr_piso_out: bool,
    pub shift_out: bool,
    /// ReLU1's result, leaves third and fourth.
    pub out1: i16,
    /// ReLU2's result, leaves first and second.
    pub out2: i16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub d_out: u8,
}

/// The four bytes in the order they leave: OUT2[15:8], OUT2[7:0], OUT1[15:8], OUT1[7:0].
pub fn chain(out1: i16, out2: i16) -> u32 {
    (u32::from(out2 as u16) << 16) | u32::from(out1 as u16)
}

#[derive(Default)]
pub struct PisoOut {
    chain: u32,
    event: &'static str,
}

impl PisoOut {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { d_out: (self.chain >> 24) as u8 }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.chain, event) = if i.reset {
            (0, "reset")
        } else if i.clr_piso_out {
            (0, "clear")
        } else if !i.en_piso_out {
            (self.chain, "hold")
        } else if i.shift_out {
            (self.chain << 8, "shift")
        } else {
            (chain(i.out1, i.out2), "load")
        };
        event
    }
}

crate::sequential_block!(PisoOut);
