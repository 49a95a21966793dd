//! 2CASC: 16-bit two's-complement adder with saturation control (seeds/002 §6.2).

/// Which way an addition saturated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saturation {
    None,
    Positive,
    Negative,
}

/// `a + b` clamped to `i16`, and whether it was clamped. The arithmetic of every MAC in the
/// models and drivers; written as a clamp of the exact sum, independently of the RTL's
/// MSB-select structure.
pub fn add(a: i16, b: i16) -> (i16, Saturation) {
    let exact = i32::from(a) + i32::from(b);
    if exact > i32::from(i16::MAX) {
        (i16::MAX, Saturation::Positive)
    } else if exact < i32::from(i16::MIN) {
        (i16::MIN, Saturation::Negative)
    } else {
        (exact as i16, Saturation::None)
    }
}

#[derive(Clone, Debug)]
pub struct In {
    pub a: i16,
    pub b: i16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub sum: i16,
}

/// The combinational 2CASC as a block.
#[derive(Default)]
pub struct TwoCasc {
    event: &'static str,
}

impl TwoCasc {
    fn eval(input: &In) -> (Out, &'static str) {
        let (sum, saturation) = add(input.a, input.b);
        let event = match saturation {
            Saturation::None => "in range",
            Saturation::Positive => "saturate +",
            Saturation::Negative => "saturate -",
        };
        (Out { sum }, event)
    }
}

crate::combinational_block!(TwoCasc);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_at_both_limits() {
        assert_eq!(add(0x7FFF, 0), (0x7FFF, Saturation::None));
        assert_eq!(add(0x7FFF, 1), (0x7FFF, Saturation::Positive));
        assert_eq!(add(-0x8000, 0), (-0x8000, Saturation::None));
        assert_eq!(add(-0x8000, -1), (-0x8000, Saturation::Negative));
        assert_eq!(add(-0x8000, -0x8000), (-0x8000, Saturation::Negative));
        assert_eq!(add(-5, 3), (-2, Saturation::None));
    }
}
