//! SSFR (seeds/002 §7, Table 5). RTL: `hdl/src/mnist/ssfr.rs`.

/// Table 5's reset value: SSFR[15:8] = 0010_0010, SSFR[7:0] = 1000_0000 (bits 6:0 are
/// "unused, default as 0": stored like the others, 0 after reset).
pub const RESET_VALUE: u16 = 0b0010_0010_1000_0000;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub en_config: bool,
    pub da: u8,
    pub db: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub value: u16,
}

pub struct Ssfr {
    value: u16,
    event: &'static str,
}

impl Default for Ssfr {
    fn default() -> Self {
        Self { value: RESET_VALUE, event: "" }
    }
}

impl Ssfr {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { value: self.value }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.value, event) = if i.reset {
            (RESET_VALUE, "reset")
        } else if i.en_config {
            (u16::from_be_bytes([i.da, i.db]), "write")
        } else {
            (self.value, "hold")
        };
        event
    }
}

crate::sequential_block!(Ssfr);
