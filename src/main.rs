//! `npu`: command-line entry points.
//!
//! ```text
//! npu mnist replay TRACE [--model]
//! ```
//! plays a pin trace (format: `npu::mnist::trace`) through the Verilated MNIST NPU chip, or
//! through its Rust model with `--model`, and prints `cycle D_OUT FULL EMPTY` per cycle.
//! `NPU_WAVES=file.fst` also writes a waveform of the Verilated run.
use npu::cosim::tops::mnist_npu::MnistNpu;
use npu::cosim::{Dut, DutOptions};
use npu::mnist::trace;
use npu::model::{mnist::chip::Chip, Block};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str = "usage: npu mnist replay TRACE [--model]\n\
    Plays a pin trace (one line per CLKEXT cycle: 8 flag characters for RST_GLO EN_CONFIG EN_FSM\n\
    SEL_CON RD_EN EXT_EN_PISO_DEB EXT_CLR_PISO_DEB EXT_SHIFT_DEB, then DA DB DC DD in hex, an\n\
    optional xN repeat, # comments) through the Verilated chip, or its model with --model, and\n\
    prints 'cycle D_OUT FULL EMPTY' per cycle. Start the trace with RST_GLO: the chip powers up\n\
    in a random state.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["mnist", "replay", path, rest @ ..] if rest.is_empty() || rest == ["--model"] => replay(path, !rest.is_empty()),
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn replay(path: &str, model: bool) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let cycles = match trace::parse(&text) {
        Ok(cycles) => cycles,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(out, "# {} of {path}: cycle D_OUT FULL EMPTY", if model { "model" } else { "Verilated chip" }).unwrap();
    let mut print = |cycle: usize, o| writeln!(out, "{}", trace::output_line(cycle, &o)).unwrap();
    if model {
        let mut chip = Chip::default();
        for (cycle, pins) in cycles.iter().enumerate() {
            print(cycle, chip.step(pins));
        }
    } else {
        // x_seed 1: random power-up state, as on silicon.
        let mut chip = MnistNpu::open(&DutOptions::from_env(1));
        for (cycle, pins) in cycles.iter().enumerate() {
            print(cycle, chip.step(pins));
        }
    }
    ExitCode::SUCCESS
}
