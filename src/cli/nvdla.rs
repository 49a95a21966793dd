//! `npu nvdla`: NVIDIA's nv_small trace tests played on the NVDLA built here (docs/nvdla.md).
use super::{check_writable, dut_options, engine_name, Failure, Outcome};
use clap::Subcommand;
use npu::model::nvdla::nv_small::{In, NvSmall, Out};
use npu::cosim::Dut;
use npu::model::Block;
use npu::nvdla::player::{self, Stop};
use npu::nvdla::trace::Trace;
use std::path::{Path, PathBuf};

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
    /// Plays every trace test in a folder and prints a table: test, unit, registers written,
    /// cycles, result
    ///
    /// Each sub-folder holding a .cfg file is one test (`make nvdla-traces NVDLA_TRACES=DIR`).
    /// Exit status: 0 every test passed; 1 a check failed or a wait timed out; 2 otherwise a
    /// test is malformed or needs a unit or feature that is not built (its row names it).
    Traces {
        /// The folder of test folders (nvdla/hw, branch nv_small, verif/tests/trace_tests/nv_small/)
        dir: PathBuf,
        /// Run the behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
        /// Play only the tests of these units (NVIDIA's name prefix); all by default
        #[arg(long = "unit", value_enum, value_delimiter = ',', value_name = "UNIT,...")]
        units: Vec<Unit>,
    },
}

/// The unit a trace test exercises, from NVIDIA's name prefix (`sdp_`, `pdp_`, `cdp_`, `dc_`).
#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Sdp,
    Pdp,
    Cdp,
    /// Direct convolution (CDMA, CSC, CMAC, CACC, SDP on the fly)
    Dc,
}

impl Unit {
    fn prefix(self) -> &'static str {
        match self {
            Unit::Sdp => "sdp_",
            Unit::Pdp => "pdp_",
            Unit::Cdp => "cdp_",
            Unit::Dc => "dc_",
        }
    }
}

impl Nvdla {
    pub fn run(self) -> Outcome {
        match self {
            Nvdla::Trace { dir, model, waves } => trace(&dir, model, waves),
            Nvdla::Traces { dir, model, units } => traces(&dir, model, &units),
        }
    }
}

/// Plays `trace` on the Verilated nv_small (with `options`) or its model.
fn play(trace: &Trace, model: bool, options: &npu::cosim::DutOptions) -> Result<player::Played, Stop> {
    let mut step: Box<dyn FnMut(&In) -> Out> = if model {
        let mut unit = NvSmall::default();
        Box::new(move |i| unit.step(i))
    } else {
        let mut unit = npu::cosim::tops::nv_small::NvSmall::open(options);
        Box::new(move |i| unit.step(i))
    };
    player::play(trace, &mut *step, None)
}

fn trace(dir: &Path, model: bool, waves: Option<PathBuf>) -> Outcome {
    let trace = Trace::load(dir).map_err(|e| e.to_string())?;
    let mut options = dut_options()?;
    if let Some(file) = &waves {
        check_writable(file)?;
        options.waves = Some(file.clone());
    }
    let played = play(&trace, model, &options);
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

fn traces(dir: &Path, model: bool, units: &[Unit]) -> Outcome {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let chosen = |p: &PathBuf| {
        let name = p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        units.is_empty() || units.iter().any(|u| name.starts_with(u.prefix()))
    };
    let mut tests: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| has_cfg(p) && chosen(p)).collect();
    tests.sort();
    if tests.is_empty() {
        let which = if units.is_empty() { "" } else { " of the chosen units" };
        return Err(format!("{}: no test folders{which} (sub-folders holding a .cfg file)", dir.display()).into());
    }
    let options = dut_options()?;
    let (mut failed, mut refused) = (0, 0);
    println!("{:<40} {:<5} {:>9} {:>9}  result ({})", "test", "unit", "registers", "cycles", engine_name(model));
    for path in &tests {
        let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        // NVIDIA names each test after its unit: sdp_, pdp_, cdp_, dc_ (direct convolution).
        let unit = name.split('_').next().unwrap_or("");
        let row = |registers: String, cycles: String, result: String| println!("{name:<40} {unit:<5} {registers:>9} {cycles:>9}  {result}");
        match Trace::load(path) {
            Err(e) => {
                refused += 1;
                row("-".into(), "-".into(), format!("malformed: {e}"));
            }
            Ok(trace) => match play(&trace, model, &options) {
                Ok(p) => {
                    let bad = p.checks.iter().filter(|c| !c.passed()).count();
                    failed += usize::from(bad > 0);
                    let result = if bad == 0 { format!("pass ({} checks)", p.checks.len()) } else { format!("FAIL ({bad} of {} checks)", p.checks.len()) };
                    row(p.registers_written.to_string(), p.cycles.to_string(), result);
                }
                Err(Stop::Timeout(m)) => {
                    failed += 1;
                    row("-".into(), "-".into(), format!("FAIL: {m}"));
                }
                Err(Stop::NotImplemented(m) | Stop::Malformed(m)) => {
                    refused += 1;
                    row("-".into(), "-".into(), m);
                }
            },
        }
    }
    let passed = tests.len() - failed - refused;
    println!("{passed} of {} tests passed, {failed} failed, {refused} not run (malformed or not built)", tests.len());
    match (failed, refused) {
        (0, 0) => Ok(()),
        (0, _) => Err(Failure::Input(format!("{refused} tests need what is not built or are malformed"))),
        _ => Err(Failure::Check(format!("{failed} tests failed"))),
    }
}

/// A folder holding a `.cfg` file: one trace test.
fn has_cfg(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|entries| entries.filter_map(Result::ok).any(|e| e.path().extension().is_some_and(|x| x == "cfg")))
}
