//! `npu scale run`: the example layer file gives the same report on the Verilated unit and
//! on its model, with result rows equal to the integer reference; layers the rules refuse
//! end with CPU_ERR / MEM_ERR (never hang) and the unit runs the next legal layer; a
//! malformed file exits non-zero naming the file and the line.
use npu::scale::{layer::reference, layer_file};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scale/two_layers.txt");
/// Far above what any layer here takes (milliseconds); a run past it is a hang.
const DEADLINE: Duration = Duration::from_secs(120);

const SUCCESS: u8 = 1;
const MEM_ERR: u8 = 2;
const CPU_ERR: u8 = 3;

/// Runs `npu args`, killing it and failing the test if it has not ended by [`DEADLINE`].
fn npu(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_npu"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs npu");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("npu {args:?} did not end within {DEADLINE:?}: the unit hung");
        }
        thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn scratch(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scale_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// One layer of the report.
#[derive(Debug, PartialEq)]
struct Reported {
    exit_code: u8,
    rows: Vec<Vec<i16>>,
}

/// Reads `layer N: EXITCODE c (NAME) after K cycles (...)` lines and the result rows under them.
fn report(stdout: &str) -> Vec<Reported> {
    let mut layers: Vec<Reported> = Vec::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("layer ") {
            let (n, rest) = rest.split_once(": EXITCODE ").unwrap_or_else(|| panic!("bad line `{line}`"));
            assert_eq!(n.parse::<usize>().unwrap(), layers.len() + 1, "`{line}`");
            let words: Vec<&str> = rest.split_whitespace().collect();
            let exit_code: u8 = words[0].parse().unwrap();
            let name = ["(UNUSED)", "(SUCCESS)", "(MEM_ERR)", "(CPU_ERR)"][usize::from(exit_code & 3)];
            assert_eq!((words[1], words[2], words[4]), (name, "after", "cycles"), "`{line}`");
            words[3].parse::<u64>().unwrap();
            layers.push(Reported { exit_code, rows: Vec::new() });
        } else if line.trim_start().starts_with("RESULT ") {
            assert!(layers.last().is_some_and(|l| l.rows.is_empty()), "`{line}`");
        } else {
            let row = line
                .split_whitespace()
                .map(|v| v.parse().unwrap_or_else(|_| panic!("bad line `{line}`")))
                .collect();
            layers.last_mut().expect("a row before any layer").rows.push(row);
        }
    }
    layers
}

fn rows(values: &[i16], cols: usize) -> Vec<Vec<i16>> {
    values.chunks(cols).map(<[i16]>::to_vec).collect()
}

/// Runs `text` on the Verilated unit; the command must succeed (refused layers are not
/// command errors).
fn run_rtl(name: &str, text: &str) -> Vec<Reported> {
    let path = scratch(name, text);
    let o = npu(&["scale", "run", &path]);
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{name}: {:?}\n{stdout}{}", o.status, String::from_utf8_lossy(&o.stderr));
    assert!(stdout.lines().all(|l| !l.starts_with("layer ") || l.ends_with("(Verilated RTL)")), "{stdout}");
    report(&stdout)
}

/// Runs `text` on the Verilated unit and checks the exit codes layer by layer.
fn expect_codes(name: &str, text: &str, codes: &[u8]) -> Vec<Reported> {
    let layers = run_rtl(name, text);
    let got: Vec<u8> = layers.iter().map(|l| l.exit_code).collect();
    assert_eq!(got, codes, "{name}:\n{text}");
    layers
}

/// A legal 2x3 by 3x2 layer at BASE 0x4000 that sets every register (so nothing carries
/// over from the layer before), and its results.
const LEGAL: &str = "LAYER
INROWS 2
INCOLS 3
WGHTROWS 3
WGHTCOLS 2
REINPUTS 0
REWEIGHTS 0
SAVEOUT 1
USEBIAS 0
USESUMM 0
SHIFTAMT 0
ACTFN 0
BASE 0x4000
RESULT 0x5000
X
1 2 3
4 5 6
W
1 0
0 1
1 1
";

fn legal_rows() -> Vec<Vec<i16>> {
    vec![vec![4, 5], vec![10, 11]]
}

/// `bad` (one layer) then [`LEGAL`]: `bad` ends with `code`, then the unit runs LEGAL.
fn refused_then_recovers(name: &str, bad: &str, code: u8) {
    let layers = expect_codes(name, &format!("{bad}{LEGAL}"), &[code, SUCCESS]);
    assert_eq!(layers[1].rows, legal_rows(), "{name}: the layer after the refused one");
}

#[test]
fn example_runs_alike_on_rtl_and_model_and_equals_the_reference() {
    let rtl = npu(&["scale", "run", EXAMPLE]);
    let model = npu(&["scale", "run", EXAMPLE, "--model"]);
    for o in [&rtl, &model] {
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (rtl, model) = (String::from_utf8(rtl.stdout).unwrap(), String::from_utf8(model.stdout).unwrap());
    assert_eq!(rtl.matches("(Verilated RTL)").count(), 2, "{rtl}");
    assert_eq!(model.matches("(model)").count(), 2, "{model}");
    assert_eq!(rtl.replace("(Verilated RTL)", "(model)"), model);

    let layers = layer_file::parse(&std::fs::read_to_string(EXAMPLE).unwrap()).unwrap();
    let (a, b) = (&layers[0], &layers[1]);
    let (m, k, n) = (usize::from(a.regs.inrows), usize::from(a.regs.incols), usize::from(a.regs.wghtcols));
    let first = reference(&a.x, &a.w, m, k, n, &a.bias, &[], a.regs.actfn, a.regs.shiftamt);
    assert!(b.regs.reinputs && !b.regs.usebias && !b.regs.usesumm);
    let second = reference(&first, &b.w, m, n, usize::from(b.regs.wghtcols), &[], &[], b.regs.actfn, b.regs.shiftamt);
    let expected = vec![
        Reported {
            exit_code: SUCCESS,
            rows: rows(&first, n),
        },
        Reported {
            exit_code: SUCCESS,
            rows: rows(&second, usize::from(b.regs.wghtcols)),
        },
    ];
    assert_eq!(report(&rtl), expected, "{rtl}");
    assert!(rtl.contains("RESULT 0x1000, 3 x 4:") && rtl.contains("RESULT 0x2000, 3 x 2:"), "{rtl}");
}

#[test]
fn zero_dimensions_are_cpu_err() {
    let head = "SAVEOUT 1\nBASE 0x0\nRESULT 0x1000\n";
    refused_then_recovers(
        "zero_inrows.txt",
        &format!("{head}INROWS 0\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 2\nW\n1 0\n0 1\n"),
        CPU_ERR,
    );
    refused_then_recovers(
        "zero_wghtcols.txt",
        &format!("{head}INROWS 2\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 0\nX\n1 2\n3 4\n"),
        CPU_ERR,
    );
    // INCOLS = WGHTROWS = 0: equal, but zero (no X or W to give).
    refused_then_recovers("zero_incols.txt", &format!("{head}INROWS 2\nINCOLS 0\nWGHTROWS 0\nWGHTCOLS 2\n"), CPU_ERR);
}

#[test]
fn incols_other_than_wghtrows_is_cpu_err() {
    let bad = "INROWS 2\nINCOLS 3\nWGHTROWS 2\nWGHTCOLS 2\nSAVEOUT 1\nRESULT 0x1000\nX\n1 2 3\n4 5 6\nW\n1 0\n0 1\n";
    refused_then_recovers("incols_wghtrows.txt", bad, CPU_ERR);
}

#[test]
fn reinputs_without_kept_results_is_cpu_err() {
    let square = "INROWS 2\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 2\nBASE 0x0\nRESULT 0x1000\n";
    let w = "W\n1 0\n0 1\n";
    // The first layer has no previous results.
    refused_then_recovers("reinputs_first.txt", &format!("{square}SAVEOUT 1\nREINPUTS 1\n{w}"), CPU_ERR);
    // The previous layer succeeded without saving: its results are kept on chip all the same
    // (X times the identity is X).
    let unsaved = format!("{square}SAVEOUT 0\nX\n1 2\n3 4\n{w}LAYER\nSAVEOUT 1\nREINPUTS 1\n{w}{LEGAL}");
    let layers = expect_codes("reinputs_unsaved.txt", &unsaved, &[SUCCESS, SUCCESS, SUCCESS]);
    assert_eq!(layers[1].rows, [[1, 2], [3, 4]]);
    // The previous layer saved 2 x 2 results; this one wants 3 rows.
    let rows3 = format!("{square}SAVEOUT 1\nX\n1 2\n3 4\n{w}LAYER\nINROWS 3\nREINPUTS 1\n{w}{LEGAL}");
    expect_codes("reinputs_shape.txt", &rows3, &[SUCCESS, CPU_ERR, SUCCESS]);
    // The previous layer was refused: nothing to reuse.
    // (A register is set once in a layer: this one's BASE replaces the square's.)
    let misaligned = square.replace("BASE 0x0", "BASE 0x8");
    let refused = format!("{misaligned}SAVEOUT 1\nX\n1 2\n3 4\n{w}LAYER\nBASE 0x0\nREINPUTS 1\n{w}{LEGAL}");
    expect_codes("reinputs_refused.txt", &refused, &[MEM_ERR, CPU_ERR, SUCCESS]);
}

#[test]
fn reweights_after_more_than_one_tile_is_cpu_err() {
    let w9 = "W\n1 2 3 4 5 6 7 8 9\n-1 -2 -3 -4 -5 -6 -7 -8 -9\n";
    let w8 = "W\n1 2 3 4 5 6 7 8\n1 1 1 1 1 1 1 1\n";
    let text = format!(
        "INROWS 1\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 9\nSAVEOUT 1\nBASE 0x0\nRESULT 0x1000\nX\n3 1\n{w9}\
         LAYER\nREWEIGHTS 1\nX\n3 1\n\
         LAYER\nREWEIGHTS 0\nWGHTCOLS 8\nX\n3 1\n{w8}\
         LAYER\nREWEIGHTS 1\nX\n1 -1\n{LEGAL}"
    );
    // 9 columns leave no weights in the 8 x 8 array; 8 columns do.
    let layers = expect_codes("reweights_wide.txt", &text, &[SUCCESS, CPU_ERR, SUCCESS, SUCCESS, SUCCESS]);
    assert_eq!(layers[0].rows, vec![vec![2, 4, 6, 8, 10, 12, 14, 16, 18]]);
    assert_eq!(layers[2].rows, vec![vec![4, 7, 10, 13, 16, 19, 22, 25]]);
    assert_eq!(layers[3].rows, vec![vec![0, 1, 2, 3, 4, 5, 6, 7]], "the reused weights");
    assert_eq!(layers[4].rows, legal_rows());
}

#[test]
fn misaligned_base_is_mem_err() {
    let bad = "INROWS 2\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 2\nSAVEOUT 1\nBASE 0x8\nRESULT 0x1000\nX\n1 2\n3 4\nW\n1 0\n0 1\n";
    refused_then_recovers("base_misaligned.txt", bad, MEM_ERR);
}

#[test]
fn image_past_the_memory_window_is_mem_err() {
    let x: String = (0..2).map(|r| (0..16).map(|c| format!("{} ", r * 16 + c)).collect::<String>() + "\n").collect();
    let w: String = (0..16).map(|r| format!("{}\n", r % 3)).collect();
    // X alone is 2 rows x 32 bytes; 16 bytes are left at 0xFFFF0.
    let bad = format!("INROWS 2\nINCOLS 16\nWGHTROWS 16\nWGHTCOLS 1\nSAVEOUT 1\nBASE 0xFFFF0\nRESULT 0x1000\nX\n{x}W\n{w}");
    refused_then_recovers("base_past_end.txt", &bad, MEM_ERR);
    // The same 0x140-byte image at 0xFFEC0 ends exactly at 1 MiB.
    let fits = bad.replace("BASE 0xFFFF0", "BASE 0xFFEC0");
    expect_codes("base_at_end.txt", &fits, &[SUCCESS]);
}

#[test]
fn result_outside_the_window_or_misaligned_is_mem_err() {
    let layer = "INROWS 2\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 2\nBASE 0x0\nX\n1 2\n3 4\nW\n1 0\n0 1\n";
    refused_then_recovers("result_far.txt", &format!("SAVEOUT 1\nRESULT 0xFFFFFFF0\n{layer}"), MEM_ERR);
    // 2 rows x 16 bytes from 0xFFFF0 run 16 bytes past the window.
    refused_then_recovers("result_past_end.txt", &format!("SAVEOUT 1\nRESULT 0xFFFF0\n{layer}"), MEM_ERR);
    refused_then_recovers("result_misaligned.txt", &format!("SAVEOUT 1\nRESULT 0x1008\n{layer}"), MEM_ERR);
    // Without SAVEOUT, RESULT is not used.
    expect_codes(
        "result_unused.txt",
        &format!("SAVEOUT 0\nRESULT 0xFFFFFFF0\n{layer}{LEGAL}"),
        &[SUCCESS, SUCCESS],
    );
}

#[test]
fn base_is_not_checked_when_nothing_is_read_from_it() {
    // REINPUTS and REWEIGHTS, no bias or sums: BASE 0x8 is never used.
    let text = "INROWS 2\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 2\nSAVEOUT 1\nBASE 0x0\nRESULT 0x1000\nX\n1 2\n3 4\nW\n1 1\n0 1\n\
                LAYER\nREINPUTS 1\nREWEIGHTS 1\nBASE 0x8\nRESULT 0x2000\n";
    let layers = expect_codes("base_unused.txt", text, &[SUCCESS, SUCCESS]);
    assert_eq!(layers[0].rows, vec![vec![1, 3], vec![3, 7]]);
    assert_eq!(layers[1].rows, vec![vec![1, 4], vec![3, 10]]);
}

#[test]
fn malformed_file_fails_naming_file_and_line() {
    let (layer_3, unused_bias) = (format!("{}LAYER 3\n", &LEGAL[6..]), format!("{}BIAS 1 2\n", &LEGAL[6..]));
    let cases = [
        ("bad_range.txt", "# comment\nINCOLS 2\nINROWS 256\n", "line 3: INROWS is an 8-bit field: `256` is not an integer in 0..=255"),
        ("bad_row.txt", "INROWS 2\nINCOLS 2\nWGHTROWS 2\nWGHTCOLS 2\nX\n1 2\n3\n", "line 7: a row of X needs 2 values, not 1"),
        ("bad_register.txt", "INROWS 2\n\nBOGUS 1\n", "line 3: unknown register or section `BOGUS`"),
        // An empty file used to run an all-zero layer and exit 0; junk after a section name
        // used to be ignored.
        ("empty.txt", "", "the file holds no layer: it has only blank lines and comments"),
        ("comments.txt", "# nothing\n\n  # here\n", "the file holds no layer: it has only blank lines and comments"),
        ("junk_x.txt", "INROWS 1\nINCOLS 1\nX junk\n1\n", "line 3: `X` stands alone on its line; found `junk` after it"),
        ("layer_3.txt", layer_3.as_str(), "line 21: `LAYER` stands alone on its line; found `3` after it"),
        ("twice.txt", "INROWS 1\nINROWS 2\n", "line 2: INROWS is set twice in layer 1 (first on line 1)"),
        ("unused_bias.txt", unused_bias.as_str(), "line 21: BIAS is given but not read: USEBIAS is 0"),
    ];
    for (name, text, message) in cases {
        let path = scratch(name, text);
        for extra in [&[][..], &["--model"]] {
            let o = npu(&[&["scale", "run", path.as_str()][..], extra].concat());
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{name} {extra:?}: {stderr}");
            assert_eq!(stderr.trim_end(), format!("error: {path}: {message}"), "{name} {extra:?}");
            assert!(o.stdout.is_empty(), "{name} {extra:?}: no layer runs");
        }
    }
    let o = npu(&["scale", "run", "/nonexistent/layers.txt"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/layers.txt"));
}

/// `npu scale iris --weights FILE` refuses a hidden layer the unit's 8-bit dimension registers
/// cannot hold (it used to be truncated to 8 bits, then fail with a Rust Debug dump), naming
/// the file, the line and the limit.
#[test]
fn iris_refuses_a_hidden_layer_the_registers_cannot_hold() {
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/iris_mlp.txt")).unwrap();
    for hidden in ["256", "65535"] {
        let text = committed.replacen("layer 4 8 relu", &format!("layer 4 {hidden} relu"), 1);
        assert_ne!(text, committed, "data/iris_mlp.txt's first layer is 4 -> 8");
        let path = scratch(&format!("iris_{hidden}.txt"), &text);
        let o = npu(&["scale", "iris", "--model", "--weights", &path]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "error: {path}: line 4: `{hidden}` is not an integer in 1..=255: a layer's size must fit the unit's 8-bit INCOLS, WGHTROWS and WGHTCOLS registers"
            )
        );
        assert!(o.stdout.is_empty());
    }
}

/// What `npu args` prints on the Verilated unit, which must succeed and print the same on the
/// model (`--model`), but for the unit's name.
fn report_alike_on_rtl_and_model(args: &[&str]) -> String {
    let rtl = npu(args);
    let model = npu(&[args, &["--model"]].concat());
    for o in [&rtl, &model] {
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (rtl, model) = (String::from_utf8(rtl.stdout).unwrap(), String::from_utf8(model.stdout).unwrap());
    assert_eq!(rtl.replace("(Verilated RTL)", "(model)"), model);
    rtl
}

/// `npu scale iris` prints the report `iris::run` gives, alike on the Verilated unit and on its
/// model: 150 flowers, the committed model's held-out accuracy (docs/scale.md, "Iris").
#[test]
fn iris_reports_alike_on_rtl_and_model() {
    let rtl = report_alike_on_rtl_and_model(&["scale", "iris"]);
    let lines: Vec<&str> = rtl.lines().collect();
    assert_eq!(lines.len(), 2, "{rtl}");
    assert!(lines[0].starts_with("Iris MLP 4-8-3 on ScaleNPU (Verilated RTL): 150 flowers in 2 layers, "), "{rtl}");
    assert!(lines[0].ends_with(" cycles; every hidden value and logit equals the integer reference"), "{rtl}");
    assert!(lines[1].starts_with("accuracy: held-out 29/30 = 96.67 %, all 148/150 = 98.67 %"), "{rtl}");
}

/// `npu scale mnist` prints the report `mnist::run` gives, alike on the Verilated unit and on
/// its model (docs/scale.md, "MNIST"): all 1000 held-out digits in 4 batches, at least 90 %
/// of them right.
#[test]
fn mnist_reports_alike_on_rtl_and_model() {
    let rtl = report_alike_on_rtl_and_model(&["scale", "mnist"]);
    let lines: Vec<&str> = rtl.lines().collect();
    assert_eq!(lines.len(), 3, "{rtl}");
    assert_eq!(
        lines[0],
        "MNIST MLP 196-32-10 on ScaleNPU (Verilated RTL): 1000 held-out digits in 4 batches of up to 255, \
         2 layers each (the second by REINPUTS); every hidden value and logit equals the integer reference"
    );
    let right: usize = lines[1].strip_prefix("accuracy: ").and_then(|r| r.split('/').next()).and_then(|r| r.parse().ok()).unwrap_or_else(|| panic!("{rtl}"));
    assert!(lines[1].starts_with(&format!("accuracy: {right}/1000 = ")), "{rtl}");
    assert!(right >= 900, "{rtl}");
    assert!(lines[2].starts_with("cycles: layer 1 "), "{rtl}");
}

/// `npu scale mnist` refuses a digit count outside 1..=1000 and a model file of another
/// network, exit status 2 with a message naming what is wrong, before running anything.
#[test]
fn mnist_refuses_bad_counts_and_other_models() {
    for (args, message) in [
        (&["--images", "0"][..], "error: --images 0: choose 1 to 1000 held-out digits"),
        (&["--images", "1001"], "error: --images 1001: choose 1 to 1000 held-out digits"),
        (&["--weights", "data/iris_mlp.txt"], "error: data/iris_mlp.txt: line 1: expected the header `npu-scale-mnist-mlp 1`, found `npu-iris-mlp 1`"),
    ] {
        let o = npu(&[&["scale", "mnist", "--model"][..], args].concat());
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        // `--images 1001` needs the digits' count, so on a fresh checkout the one-time
        // "fetching ..." line of the download comes before the error.
        let lines: Vec<&str> = stderr.trim_end().lines().collect();
        assert_eq!(lines.last().copied(), Some(message));
        assert!(lines[..lines.len() - 1].iter().all(|l| l.starts_with("fetching ")), "{args:?}: {stderr}");
        assert!(o.stdout.is_empty());
    }
}
