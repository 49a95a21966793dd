//! The FPGA flow (`npu_gen::fpga`, `make synth`): the chip on the iCE40-HX8K meets its
//! targets, the synthesis checks reject what they must, the board's pin file names every
//! pin, and the generated FuseSoC cores work in FuseSoC (lint every top, build the chip's
//! bitstream).
use npu_gen::fpga::{self, synthesize};
use npu_gen::{tops, Direction, Top};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::remove_dir_all(&dir).ok();
    dir
}

fn chip() -> Top {
    tops().into_iter().find(|t| t.name == "mnist_npu").unwrap()
}

#[test]
fn chip_fits_the_hx8k_with_room_and_closes_50_mhz() {
    let r = synthesize(&chip(), &scratch("fpga_chip"), root()).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{}", fpga::report(std::slice::from_ref(&r)));
    assert!(r.fmax_mhz.is_some_and(|f| f >= 50.0), "post-route Fmax {:?} MHz", r.fmax_mhz);
    assert!(r.logic_cells < 7680 / 2, "{} of 7680 logic cells", r.logic_cells);
    assert_eq!((r.bram, r.io), (1, 51), "the FIFO in one block RAM; 51 pins");
}

/// The checks fail the flow: a latch, a combinational loop, two drivers on a net, and a
/// memory that does not reach block RAM in the FIFO's place.
#[test]
fn synthesis_checks_reject_latches_loops_and_multiple_drivers() {
    let module = |name: &'static str, body: &str| Top {
        name,
        model: "",
        source: "tests/fpga.rs",
        for_users: false,
        gate_level: false,
        verilog: format!("module {name}(input wire clock, input wire a, input wire b, output wire y);\n{body}\nendmodule\n"),
        ports: Vec::new(),
    };
    let cases = [
        (module("latch", "reg q; always @(*) if (a) q = b; assign y = q;"), "selection is not empty: t:$dlatch"),
        (module("loop", "wire x; assign x = a ? ~x : b; assign y = x;"), "logic loop"),
        (module("two_drivers", "assign y = a; assign y = b;"), "multiple conflicting drivers"),
        (module("fifo", "reg [7:0] m [0:1]; reg q; always @(posedge clock) begin m[a] <= {8{b}}; q <= m[b][0]; end assign y = q;"), "t:SB_RAM40_4K"),
    ];
    for (top, why) in cases {
        let error = synthesize(&top, &scratch(&format!("fpga_{}", top.name)), root()).expect_err(top.name);
        assert!(error.contains("yosys synth_ice40 and checks failed") && error.contains(why), "{}: expected {why:?} in {error}", top.name);
    }
}

/// Every bit of every chip port is in the board's PCF exactly once, and nothing else is.
#[test]
fn board_pins_name_every_chip_port_bit_once() {
    let pcf = std::fs::read_to_string(root().join(fpga::pcf("mnist_npu").unwrap())).unwrap();
    let mut names = Vec::new();
    let mut balls = BTreeSet::new();
    for line in pcf.lines().map(|l| l.split('#').next().unwrap().trim()).filter(|l| !l.is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(words.len() == 3 && words[0] == "set_io", "unexpected line {line:?}");
        names.push(words[1].to_string());
        assert!(balls.insert(words[2].to_string()), "ball {} used twice", words[2]);
    }
    let mut expected: Vec<String> = chip()
        .ports
        .iter()
        .flat_map(|p| if p.width == 1 { vec![p.name.clone()] } else { (0..p.width).map(|k| format!("{}[{k}]", p.name)).collect() })
        .collect();
    assert!(chip().ports.iter().any(|p| p.direction == Direction::Out));
    names.sort();
    expected.sort();
    assert_eq!(names, expected);
}

/// FuseSoC (installed from PyPI into a virtual environment) finds every generated core,
/// lints every top through its `lint` target, and builds the chip's bitstream through
/// `hx8k_breakout`.
#[test]
fn fusesoc_cores_lint_every_top_and_build_the_chip() {
    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fusesoc-venv");
    let fusesoc = venv.join("bin/fusesoc");
    let run = |cmd: &mut Command| {
        let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{cmd:?} failed:\n{text}");
        text
    };
    if !fusesoc.exists() {
        run(Command::new("python3").arg("-m").arg("venv").arg(&venv));
        run(Command::new(venv.join("bin/pip")).args(["install", "--quiet", "fusesoc==2.4.7"]));
    }
    let cores = scratch("fusesoc_cores");
    let user_tops: Vec<Top> = tops().into_iter().filter(|t| t.for_users).collect();
    npu_gen::write_user_files(&user_tops, &cores, root()).unwrap();
    let work = scratch("fusesoc_work");
    std::fs::create_dir_all(&work).unwrap();
    let fusesoc = |args: &[&str]| run(Command::new(&fusesoc).current_dir(&work).arg("--cores-root").arg(&cores).args(args));
    let list = fusesoc(&["core", "list"]);
    for top in &user_tops {
        let core = format!("npu-rtl:{}:{}", top.family(), top.name);
        assert!(list.contains(&format!("{core}:0.1.0")), "{core} missing from:\n{list}");
        fusesoc(&["run", "--target", "lint", &core]);
    }
    fusesoc(&["run", "--target", "hx8k_breakout", "npu-rtl:mnist:mnist_npu"]);
    let bin = work.join("build/npu-rtl_mnist_mnist_npu_0.1.0/hx8k_breakout-icestorm/npu-rtl_mnist_mnist_npu_0.1.0.bin");
    assert!(std::fs::metadata(&bin).is_ok_and(|m| m.len() > 100_000), "no bitstream at {}", bin.display());
}
