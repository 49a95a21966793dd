//! The NPU reference project: behavioural models ([`model`]) and the Verilator
//! co-simulation of the exported RTL ([`cosim`]). The RTL itself is in `npu-hdl`, the
//! Verilog export in `npu-gen`; this package holds the regressions (`tests/`) and the
//! benchmarks (`benches/`).
pub use npu_cosim as cosim;
pub use npu_model as model;

pub mod ethos;
pub mod mnist;
pub mod nvdla;
pub mod pypi;
pub mod scale;
pub mod waves;

/// An integer in `range` written in a text file: decimal with an optional `-`, or `0x` and
/// hexadecimal digits; no `+`, no sign after `0x`, nothing else (the standard parsers alone
/// take `+5` and `0x+f`). Used by the ScaleNPU layer and model files and NVDLA's traces.
pub fn integer(word: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, String> {
    let digits = |s: &str, hex: bool| !s.is_empty() && s.bytes().all(|b| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() });
    let parsed = match word.strip_prefix("0x") {
        Some(hex) if digits(hex, true) => i64::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None if digits(word.strip_prefix('-').unwrap_or(word), false) => word.parse::<i64>().ok(),
        None => None,
    };
    parsed.filter(|v| range.contains(v)).ok_or_else(|| format!("`{word}` is not an integer in {}..={}", range.start(), range.end()))
}

/// The index of the largest score; on a tie the first (the class a network predicts).
pub fn argmax<T: PartialOrd>(scores: &[T]) -> usize {
    (0..scores.len()).fold(0, |best, i| if scores[i] > scores[best] { i } else { best })
}

#[cfg(test)]
mod tests {
    #[test]
    fn integer_takes_decimal_and_hex_and_nothing_else() {
        for (word, value) in [("0", 0), ("-128", -128), ("0x1f", 31), ("0xFF", 255), ("255", 255)] {
            assert_eq!(super::integer(word, -128..=255), Ok(value), "{word}");
        }
        for word in ["+5", "0x+f", "0x-1", "0x", "-", "", "1.5", "0b1", "256", "-129", " 1"] {
            let e = super::integer(word, -128..=255).unwrap_err();
            assert_eq!(e, format!("`{word}` is not an integer in -128..=255"));
        }
    }
}
