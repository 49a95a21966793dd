//! `npu scale`: ScaleNPU (seeds/004) layers through its register map, and the Iris classifier.
use super::{check_writable, check_written, dut_options, engine_name, Failure, Outcome};
use clap::Subcommand;
use npu::cosim::{Dut, DutOptions};
use npu::model::scale::scale_npu::{In, Out, ScaleNpu};
use npu::model::Block;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The training run that wrote data/iris_mlp.txt.
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
}

impl Scale {
    pub fn run(self) -> Outcome {
        match self {
            Scale::Run { layers, model } => run(&layers, model),
            Scale::Iris { model, weights } => iris(model, &weights),
            Scale::TrainIris { out } => train_iris(&out),
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

/// Runs `layers` on a freshly reset unit, memory answering the next cycle; checks the
/// waveform was written when `NPU_WAVES` asked for one.
fn run_layers(model: bool, layers: &[npu::scale::layer::Layer]) -> Result<Vec<npu::scale::driver::Outcome>, String> {
    use npu::scale::{driver, memory::Timing};
    let options = dut_options()?;
    let outcomes = {
        let mut step = unit(model, &options);
        let mut bench = driver::Bench::new(Timing::IDEAL, 0.0, 1);
        driver::reset(&mut *step);
        driver::run_layers(&mut *step, &mut bench, layers)
    };
    if let Some(file) = options.waves.as_ref().filter(|_| !model) {
        check_written(file)?;
    }
    Ok(outcomes)
}

fn run(path: &Path, model: bool) -> Outcome {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let layers = npu::scale::layer_file::parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let outcomes = run_layers(model, &layers)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let write_error = |e: std::io::Error| format!("standard output: {e}");
    for (n, (layer, o)) in layers.iter().zip(&outcomes).enumerate() {
        let code = npu_hdl::scale::regmap::EXIT_CODES.iter().find(|&&(_, code)| code == u32::from(o.exit_code));
        let code_name = code.map_or("not a defined exit code", |&(name, _)| name);
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
    let flowers = iris::load(&iris::fetch(Path::new("build/data"))?)?;
    let text = std::fs::read_to_string(weights).map_err(|e| format!("{}: {e}", weights.display()))?;
    let mlp = iris::Model::parse(&text).map_err(|e| format!("{}: {e}", weights.display()))?;
    let outcomes = run_layers(model, &mlp.unit_layers(&flowers))?;
    let [hidden, logits] = mlp.reference(&flowers);
    for (n, (o, reference)) in outcomes.iter().zip([&hidden, &logits]).enumerate() {
        if o.exit_code != 1 {
            return Err(Failure::Check(format!("layer {}: EXITCODE {}, not 1 (DONE)", n + 1, o.exit_code)));
        }
        if let Some(k) = (0..reference.len()).find(|&k| o.result.get(k) != reference.get(k)) {
            return Err(Failure::Check(format!(
                "layer {}: result {k} is {}, the integer reference's {}",
                n + 1,
                o.result.get(k).map_or("missing".to_string(), i16::to_string),
                reference[k]
            )));
        }
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
        engine_name(model),
        flowers.len(),
        outcomes[0].cycles,
        outcomes[1].cycles
    );
    println!(
        "accuracy: held-out {held_right}/{held} = {:.2} %, all {right}/{} = {:.2} %",
        100.0 * held_right as f64 / held as f64,
        flowers.len(),
        100.0 * right as f64 / flowers.len() as f64
    );
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
