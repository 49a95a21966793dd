//! `npu nvdla`: NVIDIA's nv_small trace tests played on the NVDLA built here (docs/nvdla.md).
use super::{check_writable, dut_options, engine_name, Failure, Outcome};
use clap::Subcommand;
use npu::model::nvdla::nv_small::{In, NvSmall, Out};
use npu::cosim::Dut;
use npu::model::Block;
use npu::nvdla::player::{self, Stop};
use npu::nvdla::trace::Trace;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum Nvdla {
    /// Plays one trace test (a folder with <test>.cfg and its .dat images) and prints each
    /// check_crc's expected and computed CRC
    ///
    /// Exit status: 0 every check passed; 1 a check failed or a wait timed out; 2 a malformed
    /// trace, or a unit or feature that is not built (the message names it).
    Trace {
        /// The test's folder (from nvdla/hw, branch nv_small, verif/tests/trace_tests/nv_small/)
        dir: PathBuf,
        /// Run the behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
        /// Write a waveform of the Verilated run (every signal) to this FST file
        #[arg(long, value_name = "FILE.fst", conflicts_with = "model")]
        waves: Option<PathBuf>,
    },
}

impl Nvdla {
    pub fn run(self) -> Outcome {
        match self {
            Nvdla::Trace { dir, model, waves } => trace(&dir, model, waves),
        }
    }
}

fn trace(dir: &std::path::Path, model: bool, waves: Option<PathBuf>) -> Outcome {
    let trace = Trace::load(dir).map_err(|e| e.to_string())?;
    let mut options = dut_options()?;
    if let Some(file) = &waves {
        check_writable(file)?;
        options.waves = Some(file.clone());
    }
    let mut step: Box<dyn FnMut(&In) -> Out> = if model {
        let mut unit = NvSmall::default();
        Box::new(move |i| unit.step(i))
    } else {
        let mut unit = npu::cosim::tops::nv_small::NvSmall::open(&options);
        Box::new(move |i| unit.step(i))
    };
    let played = player::play(&trace, &mut *step, None);
    drop(step);
    if let Some(file) = options.waves.as_ref().filter(|_| !model) {
        super::check_written(file)?;
    }
    let played = played.map_err(|stop| match stop {
        Stop::NotImplemented(m) | Stop::Malformed(m) => Failure::Input(m),
        Stop::Timeout(m) => Failure::Check(m),
    })?;
    for c in &played.checks {
        println!(
            "{}.cfg:{}: check_crc {:#x} size {:#x}: expected {:#010x}, got {:#010x}: {}",
            trace.name,
            c.line,
            c.address,
            c.size,
            c.expected,
            c.got,
            if c.passed() { "pass" } else { "FAIL" }
        );
    }
    let failed = played.checks.iter().filter(|c| !c.passed()).count();
    println!("{}: {} of {} checks passed, {} registers written, {} cycles ({})", trace.name, played.checks.len() - failed, played.checks.len(), played.registers_written, played.cycles, engine_name(model));
    if failed > 0 {
        return Err(Failure::Check(format!("{}: {failed} check_crc failed", trace.name)));
    }
    Ok(())
}
