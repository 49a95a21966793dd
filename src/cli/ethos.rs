//! `npu ethos`: Arm Ethos-U65 compressed weight streams (TRM 4.7) through the project's encoder
//! and the Verilated weight decoder.
use super::{check_writable, check_written, dut_options, engine_name, Failure, Outcome};
use clap::Subcommand;
use npu::cosim::Dut;
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum Ethos {
    /// Decodes a compressed weight stream and prints one weight per line
    ///
    /// The stream's bytes are as Vela writes them. It runs through the Verilated weight
    /// decoder, or its model with --model; cycles and weights per cycle go to stderr. A
    /// malformed stream prints the weights delivered before the fault, then the fault, and
    /// exits 2: an empty file has no end marker; of a file whose length is not a multiple of
    /// 4 bytes only the whole 32-bit words are decoded, then its length is the fault; padding
    /// after the end marker may be 15 bytes at most. Weights are printed as they are decoded.
    /// NPU_WAVES=FILE.fst writes a waveform of the Verilated run.
    Decode {
        /// The stream file
        stream: PathBuf,
        /// Run the decoder's behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
    },
    /// Classifies held-out MNIST digits with a CNN compiled by Vela, from its command stream
    ///
    /// Trains the project's small CNN (conv, max pool, conv, max pool, dense; about 20 s) on
    /// the 4000 training digits of `npu mnist`, quantizes it to int8, compiles it with Vela
    /// 5.2 for ethos-u65-256, and runs the command stream once per held-out digit on the
    /// Verilated NPU in lock step with its cycle-accurate model, as `npu ethos run` does
    /// (--model: the model alone; --executor: the reference executor alone), and on the
    /// reference executor (src/ethos/executor/). Every digit's logits are compared with
    /// TFLite's reference kernels (its FULLY_CONNECTED, which rounds once where the NPU rounds
    /// twice, as the equivalent CONV_2D 1x1; docs/ethos.md); exit 1 at a difference, 2 if the
    /// NPU refuses an operation (named). Prints the first digit's operations with the kernel
    /// unit's cycles, the NPU cycles per digit and the accuracy.
    Mnist {
        /// Classify N held-out digits, spread over the classes, instead of all 1000
        #[arg(long, value_name = "N")]
        images: Option<usize>,
        /// Run the NPU's cycle-accurate model alone instead of the Verilated RTL in lock step
        #[arg(long)]
        model: bool,
        /// Run the reference executor alone (no NPU)
        #[arg(long, conflicts_with = "model")]
        executor: bool,
        /// Compile with Vela's legacy (Python) core instead of its default C++ core
        #[arg(long)]
        legacy_core: bool,
    },
    /// Runs a TensorFlow Lite model on the NPU from Vela's command stream, against TFLite
    ///
    /// Vela 5.2 compiles the int8 model for ethos-u65-256 (system config
    /// Ethos_U65_Client_Server, memory mode Dedicated_Sram_384KB), unless the file already
    /// holds Vela's ethos-u operator. The command stream and its regions go into the bench's
    /// memory (always ready, data the next cycle) and run on the Verilated NPU in lock step
    /// with its cycle-accurate model (--model: the model alone). The reference executor runs
    /// the stream too, and TFLite's reference kernels run the file on the same input (a file
    /// of Vela's: the executor's output is the reference). Prints one line per operation
    /// (kind, IFM, OFM, kernel, the kernel unit's cycles, useful MACs per cycle), the NPU's
    /// cycles against Vela's own estimate, then whether every output element is identical. Exit status: 0 identical, 1 a difference
    /// (the first differing element) or the RTL leaving its model, 2 a bad file or input or
    /// an operation the NPU does not run yet (named, with its command's offset).
    Run {
        /// The .tflite file (int8, one input and one output)
        model_file: PathBuf,
        /// The NPU's cycle-accurate model alone instead of the Verilated RTL in lock step
        #[arg(long)]
        model: bool,
        /// The model input as an .npy file of int8 (its shape, with or without the batch of 1)
        #[arg(long, value_name = "FILE.npy")]
        input: Option<PathBuf>,
        /// Seed of the random input (and of the Verilated NPU's power-up state); printed
        #[arg(long)]
        seed: Option<u64>,
        /// Compile with Vela's legacy (Python) core, which DMAs the weights into SRAM
        #[arg(long)]
        legacy_core: bool,
        /// Write the Verilated NPU's waveform (every internal signal) to this FST file
        #[arg(long, value_name = "FILE.fst")]
        waves: Option<PathBuf>,
    },
    /// Encodes weights into a stream with the project's own encoder
    ///
    /// The weights file holds integers -255..255, whitespace separated, # comments.
    Encode {
        /// The weights file
        weights: PathBuf,
        /// Where to write the stream
        stream: PathBuf,
    },
}

impl Ethos {
    pub fn run(self) -> Outcome {
        match self {
            Ethos::Decode { stream, model } => decode(&stream, model),
            Ethos::Encode { weights, stream } => encode(&weights, &stream),
            Ethos::Mnist { images, model, executor, legacy_core } => mnist(images, model, executor, legacy_core),
            Ethos::Run { model_file, model, input, seed, legacy_core, waves } => run(&model_file, model, input.as_deref(), seed, legacy_core, waves),
        }
    }
}

fn decode(path: &Path, model: bool) -> Outcome {
    use npu::cosim::tops::weight_decoder::WeightDecoder as Verilated;
    use npu::ethos::driver::{decode_each, Outcome};
    use npu::model::ethos::weight_decoder::WeightDecoder;
    let name = path.display();
    let stream = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let options = dut_options()?;
    // Each weight is written as it leaves the decoder, so memory does not grow with the
    // stream's zero runs. After a failed write the rest are dropped; the fault still shows.
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut write_error = None;
    let sink = |w: i16| {
        if write_error.is_none() {
            write_error = writeln!(out, "{w}").err();
        }
    };
    let tally = if model {
        let mut decoder = WeightDecoder::default();
        decode_each(&stream, |i| decoder.step(i), sink)
    } else {
        let mut decoder = Verilated::open(&options);
        decode_each(&stream, |i| decoder.step(i), sink)
    };
    if let Some(e) = write_error.or_else(|| out.flush().err()) {
        return Err(format!("standard output: {e}").into());
    }
    if let Some(file) = options.waves.as_ref().filter(|_| !model) {
        check_written(file)?;
    }
    let summary = format!(
        "{name}: {} weights from {} bytes in {} cycles ({:.2} weights per cycle, {})",
        tally.weights,
        stream.len(),
        tally.cycles,
        tally.weights as f64 / tally.cycles.max(1) as f64,
        engine_name(model)
    );
    match tally.outcome {
        Outcome::Done => {
            eprintln!("{summary}");
            Ok(())
        }
        fault => Err(format!("{summary}\n{name}: {fault}").into()),
    }
}

fn encode(input: &Path, output: &Path) -> Outcome {
    use npu::ethos::encoder::{encode, EncodeOptions};
    let name = input.display();
    let text = std::fs::read_to_string(input).map_err(|e| format!("{name}: {e}"))?;
    let weights = npu::ethos::weights::parse_weights(&text).map_err(|(line, message)| format!("{name}:{line}: {message}"))?;
    if weights.is_empty() {
        return Err(format!("{name}: no weights: the file has only blank lines and comments").into());
    }
    check_writable(output)?;
    let stream = encode(&weights, &EncodeOptions::default()).map_err(|e| format!("{name}: {e}"))?;
    std::fs::write(output, &stream).map_err(|e| format!("{}: {e}", output.display()))?;
    eprintln!(
        "{}: {} weights in {} bytes ({:.2} bits per weight)",
        output.display(),
        weights.len(),
        stream.len(),
        8.0 * stream.len() as f64 / weights.len().max(1) as f64
    );
    Ok(())
}

fn mnist(images: Option<usize>, model: bool, executor: bool, legacy_core: bool) -> Outcome {
    use npu::ethos::mnist_cnn::{classify, trained};
    use npu::ethos::run::{table, Engine, RunError};
    use npu::ethos::tflite::{TfLite, VelaCore};
    use npu::mnist::{data, demo};
    // Paths relative to the working directory, the project's root, as the other commands.
    let root = Path::new("");
    let all = data::load(&data::fetch(&root.join("build/data")).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let held_out: Vec<&data::Digit> = all.iter().enumerate().filter(|(i, _)| data::held_out(*i)).map(|(_, d)| d).collect();
    let count = match images {
        Some(0) => return Err("--images 0: nothing to classify".to_string().into()),
        Some(n) => n.min(held_out.len()),
        None => held_out.len(),
    };
    let digits: Vec<&data::Digit> = held_out.iter().step_by(held_out.len() / count).take(count).copied().collect();
    eprintln!("training the CNN on {} digits (seed 1)...", all.len() - held_out.len());
    let cnn = trained(&demo::training_digits(&all));
    let core = if legacy_core { VelaCore::Legacy } else { VelaCore::Regor };
    let tflite = TfLite::in_project(root)?;
    let (engine, on) = match (executor, model) {
        (true, _) => (None, "the reference executor"),
        (false, true) => (Some(Engine::Model), "the NPU's cycle-accurate model and the reference executor"),
        (false, false) => (Some(Engine::Rtl { waves: None }), "the Verilated NPU (in lock step with its model every cycle) and the reference executor"),
    };
    let run = classify(&cnn, &digits, core, &tflite, engine.as_ref()).map_err(|e| match e {
        RunError::Input(m) => Failure::Input(m),
        RunError::Check(m) => Failure::Check(m),
    })?;
    println!("Vela 5.2, ethos-u65-256, {} core: {} command words, {} operations", core.name(), run.stream_words, run.operations);
    if let Some(report) = &run.first_report {
        println!("the first digit on the NPU:");
        print!("{}", table(report));
    }
    if let Some((k, label, what, got, want)) = run.first_difference {
        let list = |v: &[i8]| v.iter().map(i8::to_string).collect::<Vec<_>>().join(" ");
        return Err(Failure::Check(format!("digit {k} (label {label}): logits {} from {what}, {} from TFLite", list(&got), list(&want))));
    }
    if let (Some(least), Some(most)) = (run.npu_cycles.iter().min(), run.npu_cycles.iter().max()) {
        let total: u64 = run.npu_cycles.iter().sum();
        println!(
            "NPU cycles per digit: {least} to {most}, mean {:.0}; {total} in all, {:.3} M cycles/s simulated ({:.1} s of wall clock on the NPU)",
            total as f64 / run.npu_cycles.len() as f64,
            total as f64 / run.npu_seconds / 1e6,
            run.npu_seconds
        );
    }
    println!(
        "{}/{} held-out digits classified ({:.2} %) by {on}; every logit identical to TFLite",
        run.correct,
        run.digits,
        100.0 * run.correct as f64 / run.digits as f64
    );
    println!(
        "(TFLite with the FULLY_CONNECTED as the CONV_2D 1x1 Vela's arithmetic is; its own FULLY_CONNECTED rounds once: {} digits differ from it, by at most {})",
        run.fully_connected_rounding, run.largest_rounding_difference
    );
    Ok(())
}

fn run(path: &Path, model: bool, input: Option<&Path>, seed: Option<u64>, legacy_core: bool, waves: Option<PathBuf>) -> Outcome {
    use npu::ethos::run::{run, table, Engine, RunError};
    use npu::ethos::tflite::{TfLite, VelaCore};
    if model && waves.is_some() {
        return Err("--waves writes the Verilated NPU's waveform; --model runs no RTL".to_string().into());
    }
    if let Some(file) = &waves {
        check_writable(file)?;
    }
    let name = path.display();
    let file = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let tflite = TfLite::in_project(Path::new(""))?;
    let core = if legacy_core { VelaCore::Legacy } else { VelaCore::Regor };
    let npy = match input {
        Some(npy) => Some((npy.display().to_string(), std::fs::read(npy).map_err(|e| format!("{}: {e}", npy.display()))?)),
        None => None,
    };
    let seed = seed.unwrap_or_else(rand::random);
    match &npy {
        Some((npy_name, _)) => eprintln!("{name}: input from {npy_name}"),
        None => eprintln!("{name}: random input, --seed {seed}"),
    }
    let engine = if model { Engine::Model } else { Engine::Rtl { waves: waves.clone() } };
    let report = run(&tflite, &file, core, npy.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())), seed, &engine).map_err(|e| match e {
        RunError::Input(m) => Failure::Input(format!("{name}: {m}")),
        RunError::Check(m) => Failure::Check(format!("{name}: {m}")),
    })?;
    let on = if model { "NPU's cycle-accurate model" } else { "Verilated NPU, in lock step with its model every cycle" };
    println!("{name}: Vela 5.2, ethos-u65-256, {} core: {} command words, on the {on}", core.name(), report.stream_words);
    print!("{}", table(&report));
    println!("output: all {} elements identical to {}", report.compared, report.reference);
    if let Some(file) = &waves {
        check_written(file)?;
    }
    Ok(())
}
