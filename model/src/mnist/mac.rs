//! MAC module (seeds/002 §6.2). RTL: `hdl/src/mnist/mac.rs`, decisions in docs/mnist.md.
use super::two_casc::{self, Saturation};

/// Q4.4 bias to the equivalent Q8.8 value: sign extension and 4 more fraction bits.
pub fn bias_q44_to_q88(bias: i8) -> i16 {
    i16::from(bias) * 16
}

/// The multiplier: Q4.4 x Q4.4 is exactly Q8.8, -16256 ..= 16384.
pub fn product(a: i8, b: i8) -> i16 {
    i16::from(a) * i16::from(b)
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub data_a: i8,
    pub data_b: i8,
    pub bias: i8,
    pub en_mac: bool,
    pub rst_mac: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub acc: i16,
}

#[derive(Default)]
pub struct Mac {
    acc: i16,
    event: &'static str,
}

impl Mac {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { acc: self.acc }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.acc, event) = if i.reset {
            (0, "reset")
        } else if !i.en_mac {
            (self.acc, "hold")
        } else if i.rst_mac {
            (bias_q44_to_q88(i.bias), "bias load")
        } else {
            match two_casc::add(self.acc, product(i.data_a, i.data_b)) {
                (sum, Saturation::None) => (sum, "accumulate"),
                (sum, Saturation::Positive) => (sum, "saturate +"),
                (sum, Saturation::Negative) => (sum, "saturate -"),
            }
        };
        event
    }
}

crate::sequential_block!(Mac);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bias_expansion_keeps_the_value() {
        // 1.0, -8.0, 7.9375 and -0.0625 in Q4.4 are the same numbers in Q8.8.
        assert_eq!(bias_q44_to_q88(0x10), 0x0100);
        assert_eq!(bias_q44_to_q88(-128), 0xF800_u16 as i16);
        assert_eq!(bias_q44_to_q88(0x7F), 0x07F0);
        assert_eq!(bias_q44_to_q88(-1), 0xFFF0_u16 as i16);
    }
}
