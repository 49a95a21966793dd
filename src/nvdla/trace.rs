//! NVIDIA's trace tests for nv_small (`shared/nvdla/README.md` describes the format; the tests
//! themselves are read from there, never kept in this repository): one folder per test with
//! `<test>.cfg`, a list of commands, and the `.dat` memory images it loads. The commands, one
//! per line as `name(arguments);`: `mem_init` (a range of the primary memory set to zero),
//! `mem_load` (an image from the test's own folder placed at an address), `reg_write` and
//! `poll_reg_equal` (a register named `NVDLA_<unit>.<register>` and a value), `intr_notify` (a
//! unit and the name of a sync point: wait for the unit's done interrupt), `check_crc` (after a
//! sync point, the CRC-32 of a range of memory). A `.dat` file holds records of an offset, a
//! size and that many payload bytes, placed at the load address plus the offset, either bare
//! or between a `{` line and a `}` line. Anything else in either file is an error naming the
//! file, the line and what was found; nothing is skipped but `//` comments and blank lines.
//! The tests (`tests/nvdla_traces.rs`) read NVIDIA's files and damage copies of them.
use super::memory::Memory;
use std::fmt;
use std::path::{Path, PathBuf};

/// A register by the names the trace uses: unit (`UNIT`, from `NVDLA_UNIT`) and register
/// (`D_DATA_CUBE_IN_WIDTH_0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    pub unit: String,
    pub name: String,
}

impl fmt::Display for Register {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NVDLA_{}.{}", self.unit, self.name)
    }
}

/// One command of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `size` bytes from `address` set to zero.
    MemInit { address: u64, size: u64 },
    /// A memory image: (address, bytes) records.
    MemLoad { file: PathBuf, records: Vec<(u64, Vec<u8>)> },
    RegWrite { register: Register, value: u32 },
    /// Wait until the register reads `value`.
    Poll { register: Register, value: u32 },
    /// Wait for `unit`'s done interrupt (`SDP_0`, `PDP_0`, `CDP_0`, ...); `sync` names the wait.
    Interrupt { unit: String, sync: String },
    /// After the wait `sync`, the CRC-32 of `size` bytes from `address` must be `crc`.
    CheckCrc { sync: String, address: u64, size: u64, crc: u32 },
}

/// A trace test: its name and commands in order, each with its line in the `.cfg` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub name: String,
    pub commands: Vec<(usize, Command)>,
}

/// A malformed trace: the file, the line (1-based; 0 for the file as a whole) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.file.display(), self.message),
            n => write!(f, "{}:{n}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// An unsigned number of `bits` bits (64: an address, up to i64::MAX, which every nv_small
/// address is far below), decimal or `0x` hexadecimal ([`crate::integer`]).
fn number(word: &str, bits: u32) -> Result<u64, String> {
    let max = if bits >= 63 { i64::MAX } else { (1i64 << bits) - 1 };
    crate::integer(word.trim(), 0..=max).map(|v| v as u64)
}

fn register(word: &str) -> Result<Register, String> {
    let (unit, name) = word.trim().strip_prefix("NVDLA_").and_then(|r| r.split_once('.')).ok_or_else(|| format!("'{}' is not a register (NVDLA_UNIT.NAME)", word.trim()))?;
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if !ok(unit) || !ok(name) {
        return Err(format!("'{}' is not a register (NVDLA_UNIT.NAME)", word.trim()));
    }
    Ok(Register { unit: unit.to_string(), name: name.to_string() })
}

fn identifier(word: &str) -> Result<String, String> {
    let w = word.trim();
    if !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        Ok(w.to_string())
    } else {
        Err(format!("'{w}' is not a name"))
    }
}

/// The memory a trace names: `pri_mem`, which some traces write as `1`.
fn memory(word: &str) -> Result<(), String> {
    match word.trim() {
        "pri_mem" | "1" => Ok(()),
        other => Err(format!("'{other}' is not the primary memory (pri_mem)")),
    }
}

impl Trace {
    /// Reads the test in `dir`: `dir/<name>.cfg` and the `.dat` files it loads.
    pub fn load(dir: &Path) -> Result<Trace, TraceError> {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let cfg = dir.join(format!("{name}.cfg"));
        let text = std::fs::read_to_string(&cfg).map_err(|e| TraceError { file: cfg.clone(), line: 0, message: e.to_string() })?;
        let mut commands = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let err = |message: String| TraceError { file: cfg.clone(), line, message };
            let statement = raw.split("//").next().unwrap_or("").trim();
            if statement.is_empty() {
                continue;
            }
            let (verb, args) = statement
                .strip_suffix(");")
                .and_then(|s| s.split_once('('))
                .ok_or_else(|| err(format!("expected 'command(arguments);', found '{statement}'")))?;
            let args: Vec<&str> = args.split(',').collect();
            let arity = |n: usize| if args.len() == n { Ok(()) } else { Err(err(format!("{verb} takes {n} arguments, found {}", args.len()))) };
            let command = match verb.trim() {
                "mem_init" => {
                    arity(4)?;
                    memory(args[0]).map_err(err)?;
                    if args[3].trim() != "ALL_ZERO" {
                        return Err(err(format!("mem_init pattern '{}' is not ALL_ZERO", args[3].trim())));
                    }
                    Command::MemInit { address: number(args[1], 64).map_err(err)?, size: number(args[2], 32).map_err(err)? }
                }
                "mem_load" => {
                    arity(3)?;
                    memory(args[0]).map_err(err)?;
                    let address = number(args[1], 64).map_err(err)?;
                    let file = args[2].trim().strip_prefix('"').and_then(|f| f.strip_suffix('"')).ok_or_else(|| err(format!("'{}' is not a quoted file name", args[2].trim())))?;
                    if file.contains('/') || file.contains('\\') || file.is_empty() {
                        return Err(err(format!("'{file}' must name a file in the test's folder")));
                    }
                    let path = dir.join(file);
                    let records = load_dat(&path)?.into_iter().map(|(offset, bytes)| (address + offset, bytes)).collect();
                    Command::MemLoad { file: path, records }
                }
                "reg_write" | "poll_reg_equal" => {
                    arity(2)?;
                    let (register, value) = (register(args[0]).map_err(err)?, number(args[1], 32).map_err(err)? as u32);
                    if verb.trim() == "reg_write" {
                        Command::RegWrite { register, value }
                    } else {
                        Command::Poll { register, value }
                    }
                }
                "intr_notify" => {
                    arity(2)?;
                    Command::Interrupt { unit: identifier(args[0]).map_err(err)?, sync: identifier(args[1]).map_err(err)? }
                }
                "check_crc" => {
                    arity(5)?;
                    memory(args[1]).map_err(err)?;
                    Command::CheckCrc {
                        sync: identifier(args[0]).map_err(err)?,
                        address: number(args[2], 64).map_err(err)?,
                        size: number(args[3], 32).map_err(err)?,
                        crc: number(args[4], 32).map_err(err)? as u32,
                    }
                }
                other => return Err(err(format!("'{other}' is not a trace command (mem_init, mem_load, reg_write, poll_reg_equal, intr_notify, check_crc)"))),
            };
            commands.push((line, command));
        }
        if !commands.iter().any(|(_, c)| matches!(c, Command::CheckCrc { .. })) {
            return Err(TraceError { file: cfg, line: 0, message: "the trace checks nothing (no check_crc)".into() });
        }
        Ok(Trace { name, commands })
    }

    /// The memory as the trace's `mem_init` and `mem_load` commands leave it before any unit runs.
    pub fn initial_memory(&self) -> Memory {
        let mut memory = Memory::default();
        for (_, command) in &self.commands {
            match command {
                Command::MemInit { address, size } => memory.zero(*address, *size),
                Command::MemLoad { records, .. } => {
                    for (address, bytes) in records {
                        memory.write(*address, bytes);
                    }
                }
                _ => {}
            }
        }
        memory
    }
}

/// The records of a `.dat` file: (offset, bytes). Some files wrap their records in a `{`
/// line and a `}` line; a record may end in `,` with or without a space before it.
pub fn load_dat(path: &Path) -> Result<Vec<(u64, Vec<u8>)>, TraceError> {
    let text = std::fs::read_to_string(path).map_err(|e| TraceError { file: path.to_path_buf(), line: 0, message: e.to_string() })?;
    let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect();
    let wrapped = lines.first().is_some_and(|(_, l)| *l == "{");
    if wrapped && lines.last().is_none_or(|(_, l)| *l != "}" || lines.len() < 2) {
        return Err(TraceError { file: path.to_path_buf(), line: lines.last().map_or(0, |l| l.0), message: "the records open with '{' but do not close with '}'".into() });
    }
    let body = if wrapped { &lines[1..lines.len() - 1] } else { &lines[..] };
    let mut records = Vec::new();
    for &(line_number, line) in body {
        let err = |message: String| TraceError { file: path.to_path_buf(), line: line_number, message };
        let record = line.strip_suffix(',').unwrap_or(line).trim_end();
        let fields = record
            .strip_prefix('{')
            .and_then(|l| l.strip_suffix('}'))
            .ok_or_else(|| err(format!("expected '{{offset:.., size:.., payload:..}}', found '{line}'")))?;
        let mut fields = fields.splitn(3, ',').map(str::trim);
        let mut field = |key: &str| {
            fields.next().and_then(|f| f.strip_prefix(key)).and_then(|f| f.strip_prefix(':')).ok_or_else(|| err(format!("expected '{key}:' in '{line}'")))
        };
        let offset = number(field("offset")?, 64).map_err(err)?;
        let size = number(field("size")?, 32).map_err(err)? as usize;
        let bytes = field("payload")?.split_whitespace().map(|w| number(w, 8).map(|b| b as u8)).collect::<Result<Vec<u8>, _>>().map_err(err)?;
        if bytes.len() != size {
            return Err(err(format!("size {size}, but {} payload bytes", bytes.len())));
        }
        records.push((offset, bytes));
    }
    Ok(records)
}
