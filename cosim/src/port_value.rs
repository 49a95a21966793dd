//! Conversion between the model's typed port fields and the shim's 32-bit words.

/// A Rust value carried by a port of `width` bits.
pub trait PortValue: Sized {
    /// The two's-complement bits of the value, little-endian words. Panics, naming the port,
    /// if the value does not fit `width` bits: a test bench must never rely on silent
    /// truncation at the bridge.
    fn to_words<const N: usize>(&self, port: &str, width: usize) -> [u32; N];
    /// The value of `width` bits in `words`, sign-extended if the port is signed.
    fn from_words(words: &[u32], width: usize, signed: bool) -> Self;
}

#[inline]
fn mask(width: usize) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

#[inline]
fn split<const N: usize>(bits: u128) -> [u32; N] {
    std::array::from_fn(|k| if k < 4 { (bits >> (32 * k)) as u32 } else { 0 })
}

#[inline]
fn join(words: &[u32], width: usize, signed: bool) -> i128 {
    let bits = words.iter().take(4).enumerate().fold(0u128, |acc, (k, &w)| acc | (u128::from(w) << (32 * k))) & mask(width);
    if signed && width < 128 && bits >> (width - 1) & 1 == 1 {
        (bits | !mask(width)) as i128
    } else {
        bits as i128
    }
}

macro_rules! unsigned_port {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            #[inline]
            fn to_words<const N: usize>(&self, port: &str, width: usize) -> [u32; N] {
                let bits = *self as u128;
                assert!(bits & !mask(width) == 0, "port {port}: value {self} does not fit its {width} bits");
                split(bits)
            }
            #[inline]
            fn from_words(words: &[u32], width: usize, signed: bool) -> Self {
                join(words, width, signed) as $t
            }
        }
    )*};
}

macro_rules! signed_port {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            #[inline]
            fn to_words<const N: usize>(&self, port: &str, width: usize) -> [u32; N] {
                let v = *self as i128;
                let fits = width >= 128 || (v >= -(1i128 << (width - 1)) && v < (1i128 << (width - 1)));
                assert!(fits, "port {port}: value {self} does not fit its {width} signed bits");
                split((v as u128) & mask(width))
            }
            #[inline]
            fn from_words(words: &[u32], width: usize, signed: bool) -> Self {
                join(words, width, signed) as $t
            }
        }
    )*};
}

unsigned_port!(u8, u16, u32, u64, u128);
signed_port!(i8, i16, i32, i64);

impl PortValue for bool {
    #[inline]
    fn to_words<const N: usize>(&self, port: &str, width: usize) -> [u32; N] {
        assert!(width == 1, "port {port}: a bool needs a 1-bit port, not {width} bits");
        split(u128::from(*self))
    }
    #[inline]
    fn from_words(words: &[u32], _width: usize, _signed: bool) -> Self {
        words[0] & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_signed_and_wide_values() {
        let w: [u32; 1] = (-1i16).to_words("t", 16);
        assert_eq!(w, [0xFFFF]);
        assert_eq!(i16::from_words(&w, 16, true), -1);
        let w: [u32; 1] = (-128i8).to_words("t", 8);
        assert_eq!((w, i8::from_words(&w, 8, true)), ([0x80], -128));
        let v: u128 = 0xAB << 88 | 0x1234_5678_9ABC;
        let w: [u32; 3] = v.to_words("t", 96);
        assert_eq!(w, [0x5678_9ABC, 0x1234, 0xAB00_0000]);
        assert_eq!(u128::from_words(&w, 96, false), v);
    }

    #[test]
    #[should_panic(expected = "port t: value 300 does not fit its 8 bits")]
    fn rejects_unsigned_overflow() {
        let _: [u32; 1] = 300u16.to_words("t", 8);
    }

    #[test]
    #[should_panic(expected = "does not fit its 8 signed bits")]
    fn rejects_signed_overflow() {
        let _: [u32; 1] = 128i16.to_words("t", 8);
    }
}
