//! NVIDIA's nv_small trace tests (`shared/nvdla/`, read from `NVDLA_TRACES` or the shared
//! folder beside the repository): every trace and memory image reads without error, the
//! CRC-32 of the pass-through tests' input equals what the trace expects of the output (so the
//! format, the memory placement and the CRC are read as NVIDIA's player reads them), and which
//! traces already pass on their initial memory (three do: a player that ran nothing would
//! pass those).
use npu::nvdla::trace::{Command, Trace};
use std::path::PathBuf;

fn traces_dir() -> PathBuf {
    let dir = npu::nvdla::shared_folder("NVDLA_TRACES", "traces", std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(dir.is_dir(), "NVIDIA's traces are not at {} (set NVDLA_TRACES to their folder)", dir.display());
    dir
}

fn all_traces() -> Vec<Trace> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(traces_dir()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs.iter().map(|d| Trace::load(d).unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// Traces whose checks already pass on the memory they load (their output image is preloaded
/// with the expected result, or the check covers input): passing them proves nothing, so
/// docs/nvdla.md names them and the player's verdict must not rest on them alone.
const WEAK: [&str; 3] = ["cdp_1x1x1_lrn3_int8_0", "sdp_1x8192x1_pass_through_int8_0", "sdp_5x24x18_bs_int8_mem_0"];

#[test]
fn every_trace_reads_and_only_the_weak_ones_pass_on_their_initial_memory() {
    let traces = all_traces();
    let mut weak = Vec::new();
    let count = |prefix: &str| traces.iter().filter(|t| t.name.starts_with(prefix)).count();
    // shared/nvdla/README.md: 20 SDP, 12 PDP, 19 CDP, 9 direct-convolution tests.
    assert_eq!([count("sdp_"), count("pdp_"), count("cdp_"), count("dc_")], [20, 12, 19, 9]);
    for trace in &traces {
        let memory = trace.initial_memory();
        let checks: Vec<_> = trace.commands.iter().filter_map(|(_, c)| match c {
            Command::CheckCrc { address, size, crc, .. } => Some((*address, *size, *crc)),
            _ => None,
        }).collect();
        assert!(!checks.is_empty(), "{}", trace.name);
        if checks.iter().all(|&(address, size, crc)| memory.crc32(address, size) == crc) {
            weak.push(trace.name.as_str());
        }
        assert!(trace.commands.iter().any(|(_, c)| matches!(c, Command::Interrupt { .. })), "{}: waits for no unit", trace.name);
    }
    assert_eq!(weak, WEAK, "traces whose checks pass before any unit runs");
}

/// README: for these tests the CRC-32 of the input image equals the expected CRC.
#[test]
fn pass_through_tests_expect_their_input() {
    let names = ["pdp_8x8x32_1x1_int8_0", "pdp_8x8x32_1x1_int8_1", "sdp_8x8x32_bypass_int8_0", "sdp_8x8x32_bypass_int8_1", "cdp_8x8x32_lrn3_int8_1"];
    for name in names {
        let trace = Trace::load(&traces_dir().join(name)).unwrap_or_else(|e| panic!("{e}"));
        let memory = trace.initial_memory();
        let input = trace.commands.iter().find_map(|(_, c)| match c {
            Command::MemLoad { file, records } if file.to_string_lossy().contains("input") => records.first().map(|r| r.0),
            _ => None,
        });
        let input = input.unwrap_or_else(|| panic!("{name}: no input image"));
        for (_, command) in &trace.commands {
            if let Command::CheckCrc { address, size, crc, .. } = command {
                assert_eq!(memory.crc32(input, *size), *crc, "{name}: the input at {input:#x}");
                assert_ne!(memory.crc32(*address, *size), *crc, "{name}: the output region before the unit runs");
            }
        }
    }
}

/// A copy of NVIDIA's test `name` in a temporary folder of its own (`tag` tells the copies
/// apart), so a test can damage it; the damaged lines come from the real files.
fn copy_of(name: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-nvdla-{}-{tag}", std::process::id())).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(traces_dir().join(name)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn lines_of(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(String::from).collect()
}

/// `verb(a, b, ...);` with argument `k` replaced by `value`.
fn with_argument(line: &str, k: usize, value: &str) -> String {
    let (verb, rest) = line.split_once('(').unwrap();
    let mut args: Vec<String> = rest.trim_end().trim_end_matches(';').trim_end_matches(')').split(',').map(|a| a.trim().to_string()).collect();
    args[k] = value.to_string();
    format!("{verb}({});", args.join(", "))
}

/// Damaged copies of a real trace and of its memory image: each malformed line is refused
/// with its file, its line and what is wrong; nothing is skipped.
#[test]
fn malformed_lines_are_refused_with_file_and_line() {
    const NAME: &str = "cdp_1x1x1_lrn3_int8_0";
    let cfg_of = |dir: &std::path::Path| dir.join(format!("{NAME}.cfg"));
    let original = lines_of(&cfg_of(&traces_dir().join(NAME)));
    let first = |verb: &str| original.iter().position(|l| l.starts_with(verb)).unwrap_or_else(|| panic!("{NAME} has no {verb}"));
    let (reg_write, mem_load, mem_init, check_crc, intr_notify) = (first("reg_write("), first("mem_load("), first("mem_init("), first("check_crc("), first("intr_notify("));
    let value = |v: &str| with_argument(&original[reg_write], 1, v);
    let cases: Vec<(usize, String, &str)> = vec![
        (reg_write, original[reg_write].trim_end().trim_end_matches(';').to_string(), "expected 'command(arguments);'"),
        (reg_write, original[reg_write].replacen("NVDLA_", "", 1), "is not a register"),
        (reg_write, value("0x1FFFFFFFF"), "`0x1FFFFFFFF` is not an integer in 0..=4294967295"),
        (reg_write, value("0x+1"), "`0x+1` is not an integer"),
        (mem_load, with_argument(&original[mem_load], 2, "\"../x.dat\""), "must name a file in the test's folder"),
        (mem_init, original[mem_init].replace("ALL_ZERO", "ALL_ONE"), "is not ALL_ZERO"),
        (check_crc, with_argument(&original[check_crc], 1, "dram"), "'dram' is not the primary memory"),
        (intr_notify, format!("{});", original[intr_notify].split(',').next().unwrap()), "intr_notify takes 2 arguments, found 1"),
        (reg_write, format!("{}\nfrobnicate(1);", original[reg_write]), "'frobnicate' is not a trace command"),
    ];
    for (k, (index, replacement, message)) in cases.into_iter().enumerate() {
        let dir = copy_of(NAME, &format!("cfg{k}"));
        let mut lines = original.clone();
        let line = index + 1 + replacement.lines().count() - 1;
        lines[index] = replacement;
        std::fs::write(cfg_of(&dir), lines.join("\n")).unwrap();
        let e = Trace::load(&dir).unwrap_err();
        assert!(e.line == line && e.message.contains(message), "{}: expected line {line}, '{message}': {e}", lines[index]);
    }
    let dir = copy_of(NAME, "nocheck");
    std::fs::write(cfg_of(&dir), original.iter().filter(|l| !l.starts_with("check_crc(")).cloned().collect::<Vec<_>>().join("\n")).unwrap();
    let e = Trace::load(&dir).unwrap_err();
    assert!(e.message.contains("checks nothing"), "{e}");

    // The image the first mem_load names: its first record damaged, or its closing '}' gone.
    let image = original[mem_load].split('"').nth(1).unwrap().to_string();
    let dat = lines_of(&traces_dir().join(NAME).join(&image));
    let record = dat.iter().position(|l| l.trim_start().starts_with("{offset")).unwrap();
    let r = dat[record].clone();
    let last_byte = r.rfind(" 0x").unwrap();
    let first_byte = r.find("payload:").unwrap() + "payload:".len();
    let size = r.split("size:").nth(1).unwrap().split(',').next().unwrap().trim().to_string();
    let cases: Vec<(String, String)> = vec![
        (format!("{}{}", &r[..last_byte], &r[r.rfind('}').unwrap()..]), format!("size {size}, but")),
        (r.replacen(&format!("size:{size}, "), "", 1), "expected 'size:'".into()),
        (format!("{}0x100{}", &r[..first_byte], &r[first_byte + 4..]), "`0x100` is not an integer in 0..=255".into()),
        (r.replacen('{', "", 1), "expected '{offset".into()),
    ];
    for (k, (replacement, message)) in cases.into_iter().enumerate() {
        let dir = copy_of(NAME, &format!("dat{k}"));
        let mut lines = dat.clone();
        lines[record] = replacement;
        std::fs::write(dir.join(&image), lines.join("\n")).unwrap();
        let e = Trace::load(&dir).unwrap_err();
        assert!(e.file.ends_with(&image) && e.line == record + 1 && e.message.contains(&message), "{}: {e}", lines[record]);
    }
    assert_eq!(dat.first().map(|l| l.trim()), Some("{"), "{image} is not in the braced layout");
    let dir = copy_of(NAME, "unclosed");
    let unclosed: Vec<String> = dat.iter().filter(|l| l.trim() != "}").cloned().collect();
    std::fs::write(dir.join(&image), unclosed.join("\n")).unwrap();
    let e = Trace::load(&dir).unwrap_err();
    assert!(e.line == unclosed.len() && e.message.contains("do not close with '}'"), "{e}");
}

/// Every command of a real trace is read: as many as the file has lines that are neither
/// blank nor comments, each register write named by its unit and register.
#[test]
fn every_command_of_a_trace_is_read() {
    let name = "sdp_8x8x32_bypass_int8_0";
    let text = std::fs::read_to_string(traces_dir().join(name).join(format!("{name}.cfg"))).unwrap();
    let statements: Vec<&str> = text.lines().map(|l| l.split("//").next().unwrap().trim()).filter(|l| !l.is_empty()).collect();
    let trace = Trace::load(&traces_dir().join(name)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(trace.commands.len(), statements.len());
    for ((_, command), statement) in trace.commands.iter().zip(&statements) {
        if let Command::RegWrite { register, .. } = command {
            assert!(statement.starts_with(&format!("reg_write(NVDLA_{}.{}", register.unit, register.name)), "{statement}: {register}");
        }
    }
}
