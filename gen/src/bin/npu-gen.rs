//! `npu-gen [OUT_DIR]`: writes per user-facing top its Verilog, a FuseSoC core, an SDC/XDC
//! clock constraint (clocked tops) and the board's pin constraints (the chip), `ports.json`
//! and the ScaleNPU register header `scale_npu_regs.h`.
//! `npu-gen synth OUT_DIR`: synthesises, checks, places and routes every user-facing top for
//! the iCE40-HX8K (`npu_gen::fpga`) and writes `OUT_DIR/report.md`.
//! `npu-gen bitstream OUT_DIR`: the same for the MNIST NPU chip alone, then its bitstream.
use npu_gen::fpga;
use std::{fs, path::Path, path::PathBuf, process::ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tops: Vec<_> = npu_gen::tops().into_iter().filter(|t| t.for_users).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["synth", dir] => synth(&tops, Path::new(dir)),
        ["bitstream", dir] => bitstream(&tops, Path::new(dir)),
        [] => verilog(&tops, Path::new("build/verilog")),
        [dir] => verilog(&tops, Path::new(dir)),
        _ => Err("usage: npu-gen [OUT_DIR] | npu-gen synth OUT_DIR | npu-gen bitstream OUT_DIR".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn verilog(tops: &[npu_gen::Top], out: &Path) -> Result<(), String> {
    for path in npu_gen::write_user_files(tops, out, &root())? {
        println!("{}", path.display());
    }
    Ok(())
}

/// The project root: the workspace above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn synth(tops: &[npu_gen::Top], dir: &Path) -> Result<(), String> {
    let tops: Vec<&npu_gen::Top> = tops.iter().filter(|t| fpga::on_ice40(t.name)).collect();
    // Two tops at a time: the build machine has two cores.
    let results: Vec<Result<fpga::Synthesis, String>> = std::thread::scope(|s| {
        let chunks: Vec<_> = tops.chunks(tops.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(move || chunk.iter().map(|t| { eprintln!("synthesising {}", t.name); fpga::synthesize(t, dir, &root()) }).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let results = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let report = fpga::report(&results);
    let path = dir.join("report.md");
    fs::write(&path, &report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    print!("{report}");
    println!("\nchecks passed for every top: no latch, check -assert (no loop, no multiple or missing driver), FIFO in block RAM\n{}", path.display());
    let slow: Vec<_> = results.iter().filter(|r| r.fmax_mhz.is_some_and(|f| f < f64::from(fpga::TARGET_MHZ))).map(|r| r.top.as_str()).collect();
    if slow.is_empty() { Ok(()) } else { Err(format!("below {} MHz after routing: {}", fpga::TARGET_MHZ, slow.join(", "))) }
}

fn bitstream(tops: &[npu_gen::Top], dir: &Path) -> Result<(), String> {
    let chip = tops.iter().find(|t| t.name == "mnist_npu").expect("the chip is a top");
    let r = fpga::synthesize(chip, dir, &root())?;
    let bin = fpga::bitstream(dir, chip.name)?;
    println!("{}: {} logic cells, {} I/O, Fmax {:.1} MHz; pins: {}", bin.display(), r.logic_cells, r.io, r.fmax_mhz.unwrap_or(0.0), fpga::pcf(chip.name).unwrap());
    Ok(())
}
