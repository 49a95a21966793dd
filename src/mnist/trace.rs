//! Pin traces of the MNIST NPU: a text file with one line per CLKEXT cycle.
//!
//! ```text
//! # RST_GLO EN_CONFIG EN_FSM SEL_CON RD_EN EXT_EN_PISO_DEB EXT_CLR_PISO_DEB EXT_SHIFT_DEB
//! #   flags  DA DB DC DD
//! 10010000   00 00 00 00        # reset, auto mode
//! 00110000   10 00 f0 04        # bias window: biases 0x10, 0xf0, N = 4
//! 00010000   00 00 00 00 x3     # three identical cycles
//! ```
//!
//! - `flags`: eight characters `0`/`1`, the input pins in the order of the header above.
//! - `DA DB DC DD`: each byte as two hexadecimal digits.
//! - an optional `xN` repeats the line N times (N >= 1).
//! - `#` starts a comment; blank lines are skipped.
//!
//! The outputs are printed one line per cycle: `cycle D_OUT FULL EMPTY` (D_OUT in hex).
use npu_model::mnist::chip::{In, Out};
use std::fmt;

/// The input pins in the order of the flags column.
pub const FLAG_PINS: [&str; 8] =
    ["RST_GLO", "EN_CONFIG", "EN_FSM", "SEL_CON", "RD_EN", "EXT_EN_PISO_DEB", "EXT_CLR_PISO_DEB", "EXT_SHIFT_DEB"];

/// A line of a trace that does not follow the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

fn flags(pins: &In) -> [bool; 8] {
    [pins.RST_GLO, pins.EN_CONFIG, pins.EN_FSM, pins.SEL_CON, pins.RD_EN, pins.EXT_EN_PISO_DEB, pins.EXT_CLR_PISO_DEB, pins.EXT_SHIFT_DEB]
}

fn line(pins: &In) -> String {
    let f: String = flags(pins).iter().map(|&b| if b { '1' } else { '0' }).collect();
    format!("{f} {:02x} {:02x} {:02x} {:02x}", pins.DA, pins.DB, pins.DC, pins.DD)
}

/// The trace of `cycles`, runs of equal cycles folded into one line with `xN`, under a
/// header comment (with `title` on its first line).
pub fn write(title: &str, cycles: &[In]) -> String {
    let mut text = format!("# {title}\n# {}\n#   flags  DA DB DC DD  [xN]\n", FLAG_PINS.join(" "));
    let mut k = 0;
    while k < cycles.len() {
        let run = cycles[k..].iter().take_while(|c| **c == cycles[k]).count();
        text += &line(&cycles[k]);
        if run > 1 {
            text += &format!(" x{run}");
        }
        text += "\n";
        k += run;
    }
    text
}

/// Every cycle of a trace, or the first malformed line.
pub fn parse(text: &str) -> Result<Vec<In>, TraceError> {
    let mut cycles = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let err = |message: String| TraceError { line: index + 1, message };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let words: Vec<&str> = content.split_whitespace().collect();
        let repeat = match words.len() {
            5 => 1,
            6 => match words[5].strip_prefix('x').map(str::parse::<usize>) {
                Some(Ok(n)) if n >= 1 => n,
                _ => return Err(err(format!("expected a repeat count like x3 after the bytes, found {:?}", words[5]))),
            },
            n => return Err(err(format!("expected 5 fields (flags DA DB DC DD) and an optional xN, found {n}"))),
        };
        let f = words[0].as_bytes();
        if f.len() != 8 || f.iter().any(|c| !matches!(c, b'0' | b'1')) {
            return Err(err(format!("flags must be 8 characters 0/1 ({}), found {:?}", FLAG_PINS.join(" "), words[0])));
        }
        let mut bytes = [0u8; 4];
        for (k, (word, name)) in words[1..5].iter().zip(["DA", "DB", "DC", "DD"]).enumerate() {
            bytes[k] = match u8::from_str_radix(word, 16) {
                Ok(b) if word.len() == 2 => b,
                _ => return Err(err(format!("{name} must be two hexadecimal digits, found {word:?}"))),
            };
        }
        let bit = |k: usize| f[k] == b'1';
        let pins = In {
            RST_GLO: bit(0),
            EN_CONFIG: bit(1),
            EN_FSM: bit(2),
            SEL_CON: bit(3),
            RD_EN: bit(4),
            EXT_EN_PISO_DEB: bit(5),
            EXT_CLR_PISO_DEB: bit(6),
            EXT_SHIFT_DEB: bit(7),
            DA: bytes[0],
            DB: bytes[1],
            DC: bytes[2],
            DD: bytes[3],
        };
        cycles.extend(std::iter::repeat_n(pins, repeat));
    }
    Ok(cycles)
}

/// One output line: `cycle D_OUT FULL EMPTY`.
pub fn output_line(cycle: usize, out: &Out) -> String {
    format!("{cycle} {:02x} {} {}", out.D_OUT, u8::from(out.FULL), u8::from(out.EMPTY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_folds_repeats() {
        let a = In { SEL_CON: true, DA: 0x10, DD: 0xff, ..In::default() };
        let b = In { RST_GLO: true, EXT_SHIFT_DEB: true, DB: 0x80, ..In::default() };
        let cycles = vec![a.clone(), a.clone(), a, b];
        let text = write("test", &cycles);
        assert!(text.contains("00010000 10 00 00 ff x3\n10000001 00 80 00 00\n"), "{text}");
        assert_eq!(parse(&text).unwrap(), cycles);
    }

    #[test]
    fn reports_the_line_of_a_malformed_entry() {
        let cases = [
            ("00010000 00 00 00 00\n\n# c\n0001000 00 00 00 00\n", 4, "flags must be 8 characters"),
            ("00010000 00 00 00\n", 1, "expected 5 fields"),
            ("00010000 00 0g 00 00\n", 1, "DB must be two hexadecimal digits"),
            ("00010000 00 00 00 00 x0\n", 1, "repeat count"),
            ("# ok\n00012000 00 00 00 00\n", 2, "flags"),
        ];
        for (text, line, message) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(message), "{text:?}: {e}");
        }
    }
}
