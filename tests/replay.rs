//! `npu mnist replay`: a directed test's trace replays through the Verilated chip and the
//! model with the same outputs, the ones the test expects; a malformed trace is refused with
//! its line number.
use npu::mnist::program::{Frame, Program, Ssfr, FIRST_BYTE_AFTER_SSFR_WINDOW};
use npu::mnist::trace;
use npu::model::mnist::chip::In;
use npu::model::mnist::output_mux::sel_out;
use std::process::Command;

fn replay(path: &std::path::Path, model: bool) -> (bool, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_npu"));
    cmd.args(["mnist", "replay"]).arg(path);
    if model {
        cmd.arg("--model");
    }
    let out = cmd.output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn replay_gives_the_same_outputs_on_verilog_and_model() {
    // One frame: bias 1.0 (0x10 → 0x0100) and two products 0x10·0x10 = 0x0100 each.
    let ssfr = Ssfr { sel_out: sel_out::PISO_OUT, ..Ssfr::default() };
    let mut p = Program::default();
    p.reset();
    let window = p.frames(&[Frame { bias1: 0x10, bias2: 0, pairs: vec![[0x10, 0x10, 0, 0]; 2], ssfr }])[0];
    let path = scratch("frame.trace");
    std::fs::write(&path, trace::write("one frame", &p.cycles)).unwrap();
    let (ok_v, verilog, _) = replay(&path, false);
    let (ok_m, model, _) = replay(&path, true);
    assert!(ok_v && ok_m);
    // Line 0 is the header, line 1 the reset cycle (random power-up state in the Verilog).
    let body = |s: &str| s.lines().skip(2).map(String::from).collect::<Vec<_>>();
    assert_eq!(body(&verilog), body(&model));
    assert_eq!(body(&model).len(), p.cycles.len() - 1);
    let first = window + FIRST_BYTE_AFTER_SSFR_WINDOW;
    let bytes: Vec<&str> = (first..first + 4).map(|c| model.lines().nth(c + 1).unwrap().split(' ').nth(1).unwrap()).collect();
    assert_eq!(bytes, ["00", "00", "03", "00"], "OUT2 = 0, OUT1 = 0x0300");
    std::fs::remove_file(&path).ok();
}

#[test]
fn malformed_trace_is_refused_with_its_line_number() {
    let path = scratch("bad.trace");
    let good = trace::write("t", &[In { RST_GLO: true, ..In::default() }]);
    std::fs::write(&path, format!("{good}00010000 00 00 zz 00\n")).unwrap();
    let (ok, stdout, stderr) = replay(&path, true);
    assert!(!ok && stdout.is_empty());
    assert!(stderr.contains(": line 5: DC must be two hexadecimal digits"), "{stderr}");
    std::fs::remove_file(&path).ok();
}
