//! The exported Verilog itself: lint-clean under `verilator -Wall` alone and all together,
//! every register defined by reset whatever its power-up state, waveforms on request.
use npu::cosim::tops::{
    self, comparator::Comparator, downcounter::Downcounter, fifo::Fifo, fsm_acc::FsmAcc, fsm_out::FsmOut, input_buffer::InputBuffer, mac::Mac,
    piso_deb::PisoDeb, piso_out::PisoOut, relu::Relu, ssfr::Ssfr,
};
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

/// Before reset, state comes from the seed (so the check below can fail: the outputs differ
/// between seeds or from the reset value); after the model's reset input, the outputs are
/// the model's whatever the seed.
fn reset_defines_state<D: Dut>() {
    let reset = D::Model::reset_input().expect("a clocked top has a reset");
    let mut before: Vec<Out<D>> = Vec::new();
    let mut after = None;
    for x_seed in 1..=8 {
        let mut dut = D::open(&DutOptions { x_seed, waves: None });
        let mut model = D::Model::default();
        before.push(dut.step(&reset));
        model.step(&reset);
        let out = dut.step(&reset);
        assert_eq!(out, model.step(&reset), "{}: after reset, x_seed {x_seed}", D::NAME);
        after = Some(out);
    }
    let after = after.unwrap();
    assert!(before.iter().any(|o| *o != before[0] || *o != after), "{}: random initial state did not show: {before:?}", D::NAME);
}

#[test]
fn reset_defines_every_register() {
    reset_defines_state::<Comparator>();
    reset_defines_state::<Downcounter>();
    reset_defines_state::<Fifo>();
    reset_defines_state::<FsmAcc>();
    reset_defines_state::<FsmOut>();
    reset_defines_state::<InputBuffer>();
    reset_defines_state::<Mac>();
    reset_defines_state::<PisoDeb>();
    reset_defines_state::<PisoOut>();
    reset_defines_state::<Relu>();
    reset_defines_state::<Ssfr>();
    // The chip: tests/mnist_npu.rs, chip_reset_defines_every_register.
}

#[test]
fn waveforms_show_internal_signals() {
    let path = scratch("waves").join("mac.fst");
    {
        let mut mac = Mac::open(&DutOptions { x_seed: 1, waves: Some(path.clone()) });
        mac.step(&npu::model::mnist::mac::Mac::reset_input().unwrap());
    }
    let waves = npu::waves::Waves::read(&path).unwrap_or_else(|e| panic!("{e}"));
    for signal in ["acc", "sum17", "product", "q"] {
        assert!(waves.names().any(|n| n.ends_with(&format!(".{signal}"))), "{signal} missing from the waveform of {}", path.display());
    }
}
