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
use npu::model::mnist::chip::{Chip, In, Out};
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn usage() -> String {
    format!(
        "usage: npu mnist replay TRACE [--model]\n\
         Plays a pin trace (one line per CLKEXT cycle: 8 flag characters 0/1 for {}, then DA DB DC DD\n\
         in hex, an optional xN repeat, # comments) through the Verilated chip, or its model with\n\
         --model, and prints 'cycle D_OUT FULL EMPTY' per cycle. Start the trace with RST_GLO: the\n\
         chip powers up in a random state.",
        trace::FLAG_PINS.join(" ")
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["mnist", "replay", path, rest @ ..] if rest.is_empty() || rest == ["--model"] => replay(path, !rest.is_empty()),
        _ => {
            eprintln!("{}", usage());
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
    let (mut model_chip, mut verilated);
    let step: &mut dyn FnMut(&In) -> Out = if model {
        model_chip = Chip::default();
        &mut |pins| model_chip.step(pins)
    } else {
        // x_seed 1: random power-up state, as on silicon.
        verilated = MnistNpu::open(&DutOptions::from_env(1));
        &mut |pins| verilated.step(pins)
    };
    for (cycle, pins) in cycles.iter().enumerate() {
        writeln!(out, "{}", trace::output_line(cycle, &step(pins))).unwrap();
    }
    ExitCode::SUCCESS
}
