//! PISO_DEB debugging chain (seeds/002 §6.8, §11). RTL: `hdl/src/mnist/piso_deb.rs`.

/// Mask of the 96 chain bits.
pub const CHAIN_MASK: u128 = (1 << 96) - 1;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub en_piso_deb: bool,
    pub clr_piso_deb: bool,
    pub shift_deb: bool,
    /// Twelve bytes, the first to leave in bits 95:88.
    pub samples: u128,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub d_out: u8,
}

#[derive(Default)]
pub struct PisoDeb {
    chain: u128,
    event: &'static str,
}

impl PisoDeb {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { d_out: (self.chain >> 88) as u8 }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.chain, event) = if i.reset {
            (0, "reset")
        } else if i.clr_piso_deb {
            (0, "clear")
        } else if !i.en_piso_deb {
            (self.chain, "hold")
        } else if i.shift_deb {
            ((self.chain << 8) & CHAIN_MASK, "shift")
        } else {
            (i.samples & CHAIN_MASK, "load")
        };
        event
    }
}

crate::sequential_block!(PisoDeb);
