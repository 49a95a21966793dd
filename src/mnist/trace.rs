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
//! - `DA DB DC DD`: each byte as exactly two hexadecimal digits `[0-9a-fA-F]` (no sign).
//! - an optional `xN` repeats the line N times: `x` and then decimal digits only, N from 1
//!   to [`MAX_REPEAT`].
//! - `#` starts a comment; blank lines are skipped. A line is at most [`MAX_LINE_BYTES`]
//!   bytes of UTF-8 text.
//!
//! A trace is read as a stream ([`Cycles`]): a repeat is never expanded into memory, so a
//! trace of any length replays in constant memory. `npu mnist replay` first checks the
//! whole file ([`validate_file`], one cheap pass) and only then runs it ([`play`]), so a
//! malformed line is reported before any output (docs/mnist.md, "Pin traces and replay").
//!
//! The outputs are printed one line per cycle: `cycle D_OUT FULL EMPTY` (D_OUT in hex).
use super::quoted;
use npu_model::mnist::chip::{In, Out};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

/// The input pins in the order of the flags column.
pub const FLAG_PINS: [&str; 8] =
    ["RST_GLO", "EN_CONFIG", "EN_FSM", "SEL_CON", "RD_EN", "EXT_EN_PISO_DEB", "EXT_CLR_PISO_DEB", "EXT_SHIFT_DEB"];

/// The largest repeat count `xN`: u32::MAX, about 11 minutes of CLKEXT at 6.25 MHz in one
/// line, which no test needs more of; a longer run is written as several lines. A bound
/// keeps the count in a u32 and the total of a file in a u64.
pub const MAX_REPEAT: u32 = u32::MAX;

/// The longest line read (comments included): far above the 40 characters of a line with
/// a comment, so a file that is not a trace (one huge line) is refused without reading it
/// all into memory.
pub const MAX_LINE_BYTES: usize = 4096;

/// A line of a trace that does not follow the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based; 0 when the problem is the whole file, not one line.
    pub line: u64,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}", self.message),
            line => write!(f, "line {line}: {}", self.message),
        }
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

/// The trace of `runs` (pins, how many cycles), under a header comment (with `title` on its
/// first line). A run longer than [`MAX_REPEAT`] takes several lines; runs of 0 cycles are
/// left out.
pub fn write_runs<'a>(title: &str, runs: impl IntoIterator<Item = (&'a In, u64)>) -> String {
    let mut text = format!("# {title}\n# {}\n#   flags  DA DB DC DD  [xN]\n", FLAG_PINS.join(" "));
    for (pins, mut left) in runs {
        while left > 0 {
            let n = left.min(u64::from(MAX_REPEAT));
            text += &line(pins);
            if n > 1 {
                text += &format!(" x{n}");
            }
            text += "\n";
            left -= n;
        }
    }
    text
}

/// The trace of `cycles`, runs of equal cycles folded into one line with `xN`.
pub fn write(title: &str, cycles: &[In]) -> String {
    let runs = cycles.chunk_by(|a, b| a == b).map(|run| (&run[0], run.len() as u64));
    write_runs(title, runs)
}

/// Two hexadecimal digits, nothing else (`u8::from_str_radix` alone takes a sign: `+f`).
fn hex_byte(word: &str) -> Option<u8> {
    let is_hex = word.len() == 2 && word.bytes().all(|c| c.is_ascii_hexdigit());
    is_hex.then(|| u8::from_str_radix(word, 16).ok()).flatten()
}

/// `xN` with N decimal digits only, 1..=MAX_REPEAT.
fn repeat(word: &str) -> Result<u32, String> {
    let digits = word.strip_prefix('x').filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()));
    let Some(digits) = digits else {
        return Err(format!("expected a repeat count like x3 (x and decimal digits) after the bytes, found {}", quoted(word)));
    };
    // Digits only, so the one way to fail is a number too large for u64.
    match digits.parse::<u64>() {
        Ok(n) if (1..=u64::from(MAX_REPEAT)).contains(&n) => Ok(n as u32),
        Ok(0) => Err(format!("repeat count {} must be at least 1", quoted(word))),
        _ => Err(format!("repeat count {} is more than {MAX_REPEAT} (split the run over several lines)", quoted(word))),
    }
}

/// One line's pins and repeat count; `None` for a blank or comment line.
fn parse_line(raw: &str) -> Result<Option<(In, u32)>, String> {
    let content = raw.split('#').next().unwrap_or("").trim();
    if content.is_empty() {
        return Ok(None);
    }
    let words: Vec<&str> = content.split_whitespace().collect();
    let count = match words.len() {
        5 => 1,
        6 => repeat(words[5])?,
        n => return Err(format!("expected 5 fields (flags DA DB DC DD) and an optional xN, found {n}")),
    };
    let f = words[0].as_bytes();
    if f.len() != 8 || f.iter().any(|c| !matches!(c, b'0' | b'1')) {
        return Err(format!("flags must be 8 characters 0/1 ({}), found {}", FLAG_PINS.join(" "), quoted(words[0])));
    }
    let mut bytes = [0u8; 4];
    for (k, (word, name)) in words[1..5].iter().zip(["DA", "DB", "DC", "DD"]).enumerate() {
        bytes[k] = hex_byte(word).ok_or_else(|| format!("{name} must be two hexadecimal digits, found {}", quoted(word)))?;
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
    Ok(Some((pins, count)))
}

/// The lines of a trace as runs (pins, count), one per cycle line, read one line at a time
/// from `reader`; after the first error it ends.
pub struct Runs<R> {
    reader: R,
    line: u64,
    buffer: Vec<u8>,
    failed: bool,
}

impl<R: BufRead> Runs<R> {
    pub fn new(reader: R) -> Self {
        Self { reader, line: 0, buffer: Vec::new(), failed: false }
    }

    /// The next cycle line: Ok(None) at the end of the file.
    fn next_run(&mut self) -> Result<Option<(In, u32)>, TraceError> {
        loop {
            self.buffer.clear();
            self.line += 1;
            let err = |line, message: String| TraceError { line, message };
            // At most one byte more than a line may have, so memory stays bounded.
            let limit = MAX_LINE_BYTES as u64 + 1;
            let read = (&mut self.reader).take(limit).read_until(b'\n', &mut self.buffer).map_err(|e| err(self.line, format!("cannot read: {e}")))?;
            if read == 0 {
                return Ok(None);
            }
            let text = self.buffer.strip_suffix(b"\n").unwrap_or(&self.buffer);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            if text.len() > MAX_LINE_BYTES {
                return Err(err(self.line, format!("longer than {MAX_LINE_BYTES} bytes")));
            }
            let text = std::str::from_utf8(text).map_err(|_| err(self.line, "not UTF-8 text".into()))?;
            if let Some(run) = parse_line(text).map_err(|m| err(self.line, m))? {
                return Ok(Some(run));
            }
        }
    }
}

impl<R: BufRead> Iterator for Runs<R> {
    type Item = Result<(In, u32), TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_run().transpose();
        self.failed = matches!(next, Some(Err(_)));
        next
    }
}

/// Every cycle of a trace, one at a time: a repeat is not expanded into memory. After the
/// first malformed line it yields that error and ends.
pub struct Cycles<R> {
    runs: Runs<R>,
    current: Option<(In, u32)>,
}

impl<R: BufRead> Cycles<R> {
    pub fn new(reader: R) -> Self {
        Self { runs: Runs::new(reader), current: None }
    }
}

impl<R: BufRead> Iterator for Cycles<R> {
    type Item = Result<In, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((pins, left)) = &mut self.current {
                if *left > 0 {
                    *left -= 1;
                    return Some(Ok(pins.clone()));
                }
            }
            match self.runs.next()? {
                Ok(run) => self.current = Some(run),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Checks a whole trace without running it; returns how many cycles it has.
pub fn validate(reader: impl BufRead) -> Result<u64, TraceError> {
    // Saturating: 2^32 lines of MAX_REPEAT would overflow, a file no one writes.
    Runs::new(reader).try_fold(0u64, |total, run| Ok(total.saturating_add(u64::from(run?.1))))
}

/// The most cycles [`parse`] holds in memory (about 50 MB): [`play`] streams any length.
pub const MAX_PARSED_CYCLES: usize = 1 << 22;

/// Every cycle of a short trace held in memory, or the first malformed line. The whole
/// trace is checked first and refused if it has more than [`MAX_PARSED_CYCLES`] cycles, so
/// the result never holds more than that.
pub fn parse(text: &str) -> Result<Vec<In>, TraceError> {
    let total = validate(text.as_bytes())?;
    if total > MAX_PARSED_CYCLES as u64 {
        let message = format!("{total} cycles, more than the {MAX_PARSED_CYCLES} a trace held in memory may have (replay streams any length)");
        return Err(TraceError { line: 0, message });
    }
    Cycles::new(text.as_bytes()).collect()
}

/// One output line: `cycle D_OUT FULL EMPTY`.
pub fn output_line(cycle: impl fmt::Display, out: &Out) -> String {
    format!("{cycle} {:02x} {} {}", out.D_OUT, u8::from(out.FULL), u8::from(out.EMPTY))
}

/// Checks the whole trace file at `path` without running it (`npu mnist replay` calls it
/// before it opens the chip or writes anything): its number of cycles, or
/// `path: line N: problem`. A file with no cycles (only comments and blank lines) is refused:
/// there is nothing to replay.
pub fn validate_file(path: &Path) -> Result<u64, String> {
    match validate(open(path)?) {
        Ok(0) => Err(format!("{}: the trace has no cycles: only blank lines and comments", path.display())),
        Ok(cycles) => Ok(cycles),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn open(path: &Path) -> Result<BufReader<std::fs::File>, String> {
    std::fs::File::open(path).map(BufReader::new).map_err(|e| format!("{}: {e}", path.display()))
}

/// Plays the trace file at `path`, which [`validate_file`] found to have `cycles` cycles,
/// through `step` (the Verilated chip or its model), one cycle at a time in constant memory,
/// writing `cycle D_OUT FULL EMPTY` per cycle to `out`. Fails if the file changed since it
/// was validated, or if `out` cannot be written.
pub fn play(path: &Path, cycles: u64, step: &mut dyn FnMut(&In) -> Out, out: &mut impl Write) -> Result<(), String> {
    let write_error = |e: std::io::Error| format!("standard output: {e}");
    let mut cycle = 0;
    for pins in Cycles::new(open(path)?) {
        let pins = pins.map_err(|e| format!("{}: {e} (the file changed after it was checked)", path.display()))?;
        writeln!(out, "{}", output_line(cycle, &step(&pins))).map_err(write_error)?;
        cycle += 1;
    }
    out.flush().map_err(write_error)?;
    if cycle != cycles {
        return Err(format!("{}: changed while it was replayed ({cycles} cycles when checked, {cycle} replayed)", path.display()));
    }
    Ok(())
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
            ("00010000 00 0g 00 00\n", 1, "DB must be two hexadecimal digits, found '0g'"),
            ("00010000 00 00 +f 00\n", 1, "DC must be two hexadecimal digits, found '+f'"),
            ("00010000 00 00 00 -1\n", 1, "DD must be two hexadecimal digits"),
            ("00010000 00 00 00 00 x0\n", 1, "repeat count 'x0' must be at least 1"),
            ("00010000 00 00 00 00 x+3\n", 1, "expected a repeat count like x3"),
            ("00010000 00 00 00 00 x\n", 1, "expected a repeat count like x3"),
            ("00010000 00 00 00 00 3\n", 1, "expected a repeat count like x3"),
            ("00010000 00 00 00 00 x4294967296\n", 1, "is more than 4294967295"),
            ("00010000 00 00 00 00 x18446744073709551615\n", 1, "is more than 4294967295"),
            ("00010000 00 00 00 00 x99999999999999999999999\n", 1, "is more than 4294967295"),
            ("# ok\n00012000 00 00 00 00\n", 2, "flags"),
            ("00010000 00 00 00 00\n\u{7}0010000 00 00 00 00\n", 2, "found '\\u{7}0010000'"),
            ("00010000 00 00 00 00\n00010000 00 \u{ff} 00 00\n", 2, "found '\\u{ff}'"),
        ];
        for (text, line, message) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.message.contains(message), "{text}: {e}");
        }
    }

    #[test]
    fn largest_repeat_is_accepted_and_streamed() {
        let text = "00010000 00 00 00 00 x4294967295\n10000000 00 00 00 01\n";
        assert_eq!(validate(text.as_bytes()), Ok(u64::from(u32::MAX) + 1));
        // The stream yields the first cycles at once: nothing is expanded up front.
        let first: Vec<In> = Cycles::new(text.as_bytes()).take(3).map(Result::unwrap).collect();
        assert_eq!(first, vec![In { SEL_CON: true, ..In::default() }; 3]);
        // The in-memory reader refuses it by its size, before allocating.
        assert!(parse(text).unwrap_err().message.starts_with("4294967296 cycles, more than the 4194304"));
    }

    #[test]
    fn a_run_longer_than_the_largest_repeat_takes_several_lines() {
        let pins = In { DA: 7, ..In::default() };
        let text = write_runs("long", [(&pins, u64::from(MAX_REPEAT) * 2 + 5)]);
        assert!(text.ends_with("x4294967295\n00000000 07 00 00 00 x4294967295\n00000000 07 00 00 00 x5\n"), "{text}");
        assert_eq!(validate(text.as_bytes()), Ok(u64::from(MAX_REPEAT) * 2 + 5));
    }

    #[test]
    fn bad_bytes_long_lines_and_windows_line_ends() {
        let invalid_utf8 = b"00010000 00 00 00 00\n0001\xff000 00 00 00 00\n";
        assert_eq!(validate(&invalid_utf8[..]).unwrap_err(), TraceError { line: 2, message: "not UTF-8 text".into() });
        let long = format!("00010000 00 00 00 00\n#{}\n", "a".repeat(MAX_LINE_BYTES));
        assert_eq!(validate(long.as_bytes()).unwrap_err().line, 2);
        let just_fits = format!("00010000 00 00 00 00 #{}\n", "a".repeat(MAX_LINE_BYTES - 22));
        assert_eq!(validate(just_fits.as_bytes()), Ok(1));
        assert_eq!(validate("00010000 00 00 00 00 x2\r\n00010000 00 00 00 01".as_bytes()), Ok(3));
    }

    #[test]
    fn a_file_is_checked_whole_then_played_in_constant_memory() {
        use npu_model::{mnist::chip::Chip, Block};
        let dir = std::env::temp_dir().join(format!("npu-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.trace");
        std::fs::write(&good, "10010000 00 00 00 00\n00010000 00 00 00 00 x2500\n").unwrap();
        let cycles = validate_file(&good).unwrap();
        assert_eq!(cycles, 2501);
        let (mut chip, mut out) = (Chip::default(), Vec::new());
        play(&good, cycles, &mut |pins| chip.step(pins), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 2501, "one line per cycle");
        assert!(text.ends_with("2500 00 0 1\n"), "after reset the FIFO is empty and D_OUT 0");
        // A file that changed after its check: the play says so.
        assert!(play(&good, cycles + 1, &mut |pins| chip.step(pins), &mut Vec::new()).unwrap_err().contains("changed while it was replayed"));

        // The bad line is the last one, after 10^5 good cycles: the check finds it.
        let bad = dir.join("bad.trace");
        std::fs::write(&bad, "10010000 00 00 00 00\n00010000 00 00 00 00 x100000\n00010000 00 00 00 00 x+3\n").unwrap();
        let e = validate_file(&bad).unwrap_err();
        assert!(e.ends_with("bad.trace: line 3: expected a repeat count like x3 (x and decimal digits) after the bytes, found 'x+3'"), "{e}");
        let e = validate_file(&dir.join("missing.trace")).unwrap_err();
        assert!(e.contains("missing.trace: "), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
