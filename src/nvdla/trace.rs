//! NVIDIA's trace tests for nv_small (`shared/nvdla/README.md` describes the format; the tests
//! themselves are read from there, never kept in this repository): one folder per test with
//! `<test>.cfg`, a list of commands, and the `.dat` memory images it loads. The commands:
//!
//! ```text
//! mem_init(MEM, ADDRESS, SIZE, ALL_ZERO);       SIZE bytes from ADDRESS set to 0
//! mem_load(MEM, ADDRESS, "FILE.dat");           an image from the test's folder
//! reg_write(NVDLA_UNIT.REGISTER, VALUE);        a register write
//! poll_reg_equal(NVDLA_UNIT.REGISTER, VALUE);   wait until the register reads VALUE
//! intr_notify(UNIT, SYNC);                      wait for the unit's done interrupt
//! check_crc(SYNC, MEM, ADDRESS, SIZE, CRC);     after SYNC, CRC-32 of SIZE bytes from ADDRESS
//! ```
//!
//! MEM is the primary memory. A `.dat` file holds records `{offset:OFFSET, size:N,
//! payload:BYTE ...}`: N bytes to place at the load address plus OFFSET. Anything else in
//! either file is an error naming the file, the line and what was found; nothing is skipped
//! but `//` comments and blank lines.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str, cfg: &str, dat: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("npu-nvdla-{}-{name}", std::process::id())).join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.cfg")), cfg).unwrap();
        std::fs::write(dir.join("in.dat"), dat).unwrap();
        dir
    }

    #[test]
    fn reads_every_command_and_places_the_images() {
        let dir = folder(
            "t",
            "// c\nmem_init(pri_mem, 0x100, 0x10, ALL_ZERO);\nmem_load(pri_mem, 0x100, \"in.dat\");\nreg_write(NVDLA_ALPHA.BETA_0,0x1);\n// NVDLA_ALPHA.x\npoll_reg_equal(NVDLA_GAMMA.DELTA_0, 1);\nintr_notify(ALPHA_0, wait_a);\ncheck_crc(wait_a, 1, 0x100, 0x4, 0xb63cfbcd);\n",
            "{\n{offset:0x2, size:1, payload:0x0A} ,\n{offset:0x3, size:1, payload:0xff}\n}\n",
        );
        let trace = Trace::load(&dir).unwrap();
        assert_eq!(trace.commands.len(), 6);
        assert_eq!(trace.commands[2], (4, Command::RegWrite { register: Register { unit: "ALPHA".into(), name: "BETA_0".into() }, value: 1 }));
        let memory = trace.initial_memory();
        assert_eq!([0x100, 0x101, 0x102, 0x103].map(|a| memory.read(a)), [0, 0, 0x0a, 0xff]);
        assert_eq!(memory.crc32(0x100, 4), crc32fast::hash(&[0, 0, 0x0a, 0xff]));
    }

    #[test]
    fn malformed_lines_are_refused_with_file_and_line() {
        let good = "check_crc(s, pri_mem, 0, 4, 0);\n";
        let cases = [
            ("reg_write(NVDLA_ALPHA.X_0, 0x1)\n", 1, "expected 'command(arguments);'"),
            ("reg_write(ALPHA.X_0, 0x1);\n", 1, "'ALPHA.X_0' is not a register"),
            ("reg_write(NVDLA_ALPHA.X_0, 0x1FFFFFFFF);\n", 1, "`0x1FFFFFFFF` is not an integer in 0..=4294967295"),
            ("reg_write(NVDLA_ALPHA.X_0, 0x+1);\n", 1, "`0x+1` is not an integer"),
            ("mem_load(pri_mem, 0x0, \"../x.dat\");\n", 1, "must name a file in the test's folder"),
            ("mem_init(pri_mem, 0x0, 0x10, ALL_ONE);\n", 1, "is not ALL_ZERO"),
            ("\n\nfrobnicate(1);\n", 3, "'frobnicate' is not a trace command"),
            ("check_crc(s, dram, 0, 4, 0);\n", 1, "'dram' is not the primary memory"),
            ("intr_notify(ALPHA_0);\n", 1, "intr_notify takes 2 arguments, found 1"),
        ];
        for (k, (cfg, line, message)) in cases.into_iter().enumerate() {
            let dir = folder(&format!("bad{k}"), &format!("{cfg}{good}"), "");
            let e = Trace::load(&dir).unwrap_err();
            assert_eq!(e.line, line, "{cfg:?}: {e}");
            assert!(e.message.contains(message), "{cfg:?}: {e}");
        }
        let e = Trace::load(&folder("nocheck", "reg_write(NVDLA_ALPHA.X_0, 1);\n", "")).unwrap_err();
        assert!(e.message.contains("checks nothing"), "{e}");
        let bad_dat = [("{offset:0x0, size:3, payload:0x01 0x02},", "size 3, but 2 payload bytes"), ("{offset:0x0, payload:0x01},", "expected 'size:'"), ("{offset:0x0, size:1, payload:0x100},", "`0x100` is not an integer in 0..=255"), ("offset:0x0", "expected '{offset"), ("{\n{offset:0x0, size:1, payload:0x01},", "do not close with '}'")];
        for (k, (dat, message)) in bad_dat.into_iter().enumerate() {
            let dir = folder(&format!("dat{k}"), &format!("mem_load(pri_mem, 0x0, \"in.dat\");\n{good}"), dat);
            let e = Trace::load(&dir).unwrap_err();
            assert!(e.file.ends_with("in.dat") && e.line == dat.lines().count() && e.message.contains(message), "{dat}: {e}");
        }
    }
}
