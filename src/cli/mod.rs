//! The commands of `npu`, one module per NPU; the shared pieces: how a command fails, and the
//! checks made on output paths before any long work starts.
pub mod ethos;
pub mod mnist;
pub mod nvdla;
pub mod scale;

use npu::cosim::DutOptions;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Why a command did not succeed; the message is for a person (no Rust `Debug` text).
#[derive(Debug)]
pub enum Failure {
    /// A refused input or an unusable path: exit status 2, as clap's usage errors.
    Input(String),
    /// The RTL and its model or reference disagreed: exit status 1.
    Check(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Input(message)
    }
}

impl Failure {
    pub fn report(&self) -> ExitCode {
        match self {
            Failure::Input(m) => {
                eprintln!("error: {m}");
                ExitCode::from(2)
            }
            Failure::Check(m) => {
                eprintln!("check failed: {m}");
                ExitCode::from(1)
            }
        }
    }
}

pub type Outcome = Result<(), Failure>;

/// Checks that `path` can be written, before the work that produces it: a missing folder,
/// a folder in its place or a read-only file is an error naming the path. An existing file
/// is opened without truncating it (its content stays until the command writes it), and a
/// probe file created here is removed again, so a later failure leaves nothing behind.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let existed = path.exists();
    if path.is_dir() {
        return Err(format!("{}: is a folder, not a file", path.display()));
    }
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("{}: cannot be written: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// How a command opens a Verilated top: random power-up state (x_seed 1), as on silicon, and
/// the waveform file `NPU_WAVES` names, checked writable here, before the run, because the
/// Verilated model's FST writer fails silently.
pub fn dut_options() -> Result<DutOptions, String> {
    let waves = std::env::var_os("NPU_WAVES").map(PathBuf::from);
    if let Some(path) = &waves {
        check_writable(path).map_err(|e| format!("NPU_WAVES={e}"))?;
    }
    Ok(DutOptions { x_seed: 1, waves })
}

/// After a run that wrote a waveform: the file must be there and not empty.
pub fn check_written(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > 0 => {
            eprintln!("waveform written: {}", path.display());
            Ok(())
        }
        _ => Err(format!("{}: the waveform was not written", path.display())),
    }
}

/// Where a command runs: the Verilated RTL, or the behavioural model with `--model`.
pub fn engine_name(model: bool) -> &'static str {
    if model {
        "model"
    } else {
        "Verilated RTL"
    }
}
