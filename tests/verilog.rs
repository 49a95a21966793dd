//! The exported Verilog itself: lint-clean under `verilator -Wall` alone and all together,
//! every register defined by reset whatever its power-up state, waveforms on request.
use npu::cosim::tops::{self, input_buffer::InputBuffer, mac::Mac, piso_deb::PisoDeb, ssfr::Ssfr};
use npu::cosim::{Dut, DutOptions, Out};
use npu::model::Block;
use std::{path::PathBuf, process::Command};

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("npu-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn verilator_lint(args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new("verilator").arg("--lint-only").arg("-Wall").args(args).output().expect("run verilator");
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && text.is_empty(), "verilator -Wall {args:?}:\n{text}");
    text
}

#[test]
fn every_top_lints_clean_alone_and_together() {
    let dir = scratch("lint");
    let files: Vec<PathBuf> = tops::ALL
        .iter()
        .map(|(name, verilog)| {
            let path = dir.join(format!("{name}.v"));
            std::fs::write(&path, verilog).unwrap();
            path
        })
        .collect();
    for file in &files {
        verilator_lint(&[file.as_os_str()]);
    }
    // All files in one run, each top in turn: a module defined twice would be an error.
    for (name, _) in tops::ALL {
        let mut args: Vec<&std::ffi::OsStr> = vec!["--top-module".as_ref(), name.as_ref()];
        args.extend(files.iter().map(|f| f.as_os_str()));
        verilator_lint(&args);
    }
    for (name, verilog) in tops::ALL {
        assert!(verilog.contains(&format!("module {name}(")), "{name}: top module is not named after the block");
        assert!(!verilog.contains("module top"), "{name}: a module is still called top");
        assert!(!verilog.contains("initial"), "{name}: state must come from reset, not from an initial block");
    }
}

/// Before reset, state comes from the seed (so the check below can fail); after the model's
/// reset input, the outputs are the model's whatever the seed.
fn reset_defines_state<D: Dut>() {
    let reset = D::Model::reset_input().expect("a clocked top has a reset");
    let mut before: Vec<Out<D>> = Vec::new();
    for x_seed in 1..=8 {
        let mut dut = D::open(&DutOptions { x_seed, waves: None });
        let mut model = D::Model::default();
        before.push(dut.step(&reset));
        model.step(&reset);
        assert_eq!(dut.step(&reset), model.step(&reset), "{}: after reset, x_seed {x_seed}", D::NAME);
    }
    assert!(before.iter().any(|o| *o != before[0]), "{}: random initial state did not show: {before:?}", D::NAME);
}

#[test]
fn reset_defines_every_register() {
    reset_defines_state::<InputBuffer>();
    reset_defines_state::<Mac>();
    reset_defines_state::<PisoDeb>();
    reset_defines_state::<Ssfr>();
}

#[test]
fn waveforms_show_internal_signals() {
    let path = scratch("waves").join("mac.fst");
    {
        let mut mac = Mac::open(&DutOptions { x_seed: 1, waves: Some(path.clone()) });
        mac.step(&npu::model::mnist::mac::Mac::reset_input().unwrap());
    }
    let vcd = Command::new("fst2vcd").arg(&path).output().expect("fst2vcd (gtkwave) is installed by make deps");
    let vcd = String::from_utf8_lossy(&vcd.stdout);
    for signal in ["acc", "sum17", "product", " q "] {
        assert!(vcd.contains(signal), "{signal:?} missing from the waveform of {}", path.display());
    }
}
