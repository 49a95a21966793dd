//! The MNIST demo (`npu mnist`): held-out digits classified by the Verilated chip, driven
//! at its pins by the host driver, each digit checked against the chip model (every output
//! pin, every cycle) and against the plain integer reference (every neuron of every layer).
use super::data::{self, Digit, FileError};
use super::driver::{cycle_bound, Host, Inference, OutputPath};
use super::network::Network;
use crate::argmax;
use npu_cosim::tops::mnist_npu::MnistNpu;
use npu_cosim::{Dut, DutOptions};
use npu_model::mnist::chip::{Chip, Out};
use npu_model::Block;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The datasheet's clock (seeds/002 §1): simulated time per image is cycles / 6.25 MHz.
pub const CLKEXT_HZ: f64 = 6.25e6;

#[derive(Clone, Debug)]
pub struct Options {
    /// The digit file; fetched into `data_dir` when `None`.
    pub data: Option<PathBuf>,
    pub data_dir: PathBuf,
    pub weights: PathBuf,
    /// How many held-out digits (all when `None`), taken class by class in turn.
    pub images: Option<usize>,
    pub path: OutputPath,
    /// Also run this image (0-based, in run order) on a fresh Verilated chip that writes an
    /// FST waveform to the file.
    pub waves: Option<(usize, PathBuf)>,
    pub progress: bool,
}

impl Options {
    /// The defaults in the project at `root`: the committed weights, the digits cached in
    /// `build/data/`, every held-out digit through PISO_OUT, no waveform, no progress bar.
    pub fn in_project(root: &Path) -> Self {
        Self {
            data: None,
            data_dir: root.join("build/data"),
            weights: root.join("data/mnist_mlp.txt"),
            images: None,
            path: OutputPath::PisoOut,
            waves: None,
            progress: false,
        }
    }

    /// The `npu mnist` command that runs the first `image` + 1 digits of this run again, with
    /// every option that shapes it (weights, data, output path), and writes a waveform of
    /// digit `image`: the chip sees the same pins up to the end of that digit.
    pub fn reproducer(&self, image: usize) -> String {
        let mut words: Vec<String> = ["npu", "mnist", "--images", &(image + 1).to_string(), "--output", self.path.name()].map(String::from).into();
        words.extend(["--weights".into(), self.weights.to_string_lossy().into_owned()]);
        if let Some(data) = &self.data {
            words.extend(["--data".into(), data.to_string_lossy().into_owned()]);
        }
        words.extend(["--waves".into(), image.to_string(), "digit.fst".into()]);
        // try_join fails only on a NUL byte, which no path has.
        shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
    }
}

/// The held-out digits, class by class in turn (0, 1, .., 9, 0, ..), so that every prefix
/// of the list is balanced.
pub fn held_out_digits(all: &[Digit]) -> Vec<Digit> {
    let mut held: Vec<(usize, Digit)> = Vec::new();
    let mut seen = [0usize; 10];
    for d in all
        .iter()
        .enumerate()
        .filter(|(i, _)| data::held_out(*i))
        .map(|(_, d)| d)
    {
        let class = usize::from(d.label);
        held.push((seen[class] * 10 + class, d.clone()));
        seen[class] += 1;
    }
    held.sort_by_key(|(rank, _)| *rank);
    held.into_iter().map(|(_, d)| d).collect()
}

/// The digits training may use: all that are not held out.
pub fn training_digits(all: &[Digit]) -> Vec<Digit> {
    all.iter()
        .enumerate()
        .filter(|(i, _)| !data::held_out(*i))
        .map(|(_, d)| d.clone())
        .collect()
}

#[derive(Debug)]
pub enum Error {
    File(FileError),
    /// The option asks for something the run cannot do.
    Usage(String),
    /// The chip disagreed with the model or with the integer reference.
    Mismatch(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::File(e) => write!(f, "{e}"),
            Error::Usage(m) => write!(f, "{m}"),
            Error::Mismatch(m) => write!(f, "MISMATCH: {m}"),
        }
    }
}

impl From<FileError> for Error {
    fn from(e: FileError) -> Self {
        Error::File(e)
    }
}

#[derive(Clone, Debug)]
pub struct Report {
    pub shape: Vec<usize>,
    pub images: usize,
    pub correct: usize,
    /// confusion[label][prediction].
    pub confusion: [[usize; 10]; 10],
    /// Cycles of the first image (each image takes the same number).
    pub cycles_per_image: usize,
    pub cycle_bound: usize,
    pub chip_time: Duration,
    pub model_time: Duration,
}

impl Report {
    pub fn accuracy(&self) -> f64 {
        self.correct as f64 / self.images as f64
    }

    pub fn summary(&self) -> String {
        let mut s = String::new();
        let shape: Vec<String> = std::iter::once(data::PIXELS)
            .chain(self.shape.iter().copied())
            .map(|n| n.to_string())
            .collect();
        s += &format!(
            "network {}: {} of {} held-out digits correct, accuracy {:.2} %\n",
            shape.join("-"),
            self.correct,
            self.images,
            100.0 * self.accuracy()
        );
        s += "every neuron of every layer equal on the Verilated chip, the chip model and the integer reference\n\n";
        s += "confusion matrix (rows: true digit, columns: chip's prediction)\n      ";
        s += &(0..10).map(|p| format!("{p:>5}")).collect::<String>();
        for (label, row) in self.confusion.iter().enumerate() {
            s += &format!("\n   {label:>2} ");
            s += &row.iter().map(|n| format!("{n:>5}")).collect::<String>();
        }
        let over = 100.0 * (self.cycles_per_image as f64 / self.cycle_bound as f64 - 1.0);
        s += &format!(
            "\n\nchip cycles per image: {} (2-MAC bound {}: {over:+.2} %)\n",
            self.cycles_per_image, self.cycle_bound
        );
        s += &format!(
            "simulated time per image at 6.25 MHz: {:.3} ms\n",
            self.cycles_per_image as f64 / CLKEXT_HZ * 1e3
        );
        let cycles = (self.cycles_per_image * self.images) as f64;
        for (what, t) in [
            ("Verilated chip", self.chip_time),
            ("chip model", self.model_time),
        ] {
            let secs = t.as_secs_f64();
            s += &format!(
                "wall clock, {what}: {:.0} images/s ({:.2} M cycles/s)\n",
                self.images as f64 / secs,
                cycles / secs / 1e6
            );
        }
        s
    }
}

/// Compares one input's inference on the Verilated chip with the model's (every output
/// pin, every cycle) and with the integer reference (every neuron the host read, the
/// prediction); the message names what differs and both values.
pub fn compare(network: &Network, pixels: &[u8], chip: &Inference, model: &Inference) -> Result<(), String> {
    let pins = |o: &Out| format!("D_OUT {:02x} FULL {} EMPTY {}", o.D_OUT, u8::from(o.FULL), u8::from(o.EMPTY));
    if let Some(cycle) = chip.pins.iter().zip(&model.pins).position(|(c, m)| c != m) {
        return Err(format!("output pins differ in cycle {cycle} of the digit: Verilated chip {}, model {}", pins(&chip.pins[cycle]), pins(&model.pins[cycle])));
    }
    if chip != model {
        return Err(format!("Verilated chip and model differ\nchip:  {}\nmodel: {}", results(chip), results(model)));
    }
    let reference = network.reference(pixels);
    for (k, (got, want)) in chip.layers.iter().zip(&reference).enumerate() {
        // Empty: the last layer on the comparator path, where the host reads only the index.
        if !got.is_empty() && got != want {
            return Err(format!("layer {}: chip {}, integer reference {}", k + 1, values(got), values(want)));
        }
    }
    let predicted = argmax(reference.last().unwrap());
    if chip.prediction != predicted {
        return Err(format!("chip predicts {}{}, the integer reference {predicted}", chip.prediction, index(chip.index)));
    }
    Ok(())
}

/// Neuron values for a message: `[1 -2 3]`.
fn values(v: &[i16]) -> String {
    format!("[{}]", v.iter().map(i16::to_string).collect::<Vec<_>>().join(" "))
}

/// The comparator's index for a message, when there is one.
fn index(index: Option<u8>) -> String {
    index.map_or(String::new(), |i| format!(" (comparator index {i})"))
}

/// Every layer's values and the index, for a message.
fn results(inference: &Inference) -> String {
    let layers: Vec<String> = inference.layers.iter().map(|l| values(l.as_slice())).collect();
    format!("{}{}", layers.join(", "), index(inference.index))
}

/// [`compare`] for image `image` of the run, with the command that reproduces it.
fn check(image: usize, digit: &Digit, network: &Network, chip: &Inference, model: &Inference, options: &Options) -> Result<(), Error> {
    compare(network, &digit.pixels, chip, model).map_err(|m| {
        Error::Mismatch(format!(
            "image {image} (label {}), output path {}: {m}\nreproduce with a waveform: {}",
            digit.label,
            options.path.name(),
            options.reproducer(image)
        ))
    })
}

/// The progress bar on stderr (`options.progress`); indicatif draws nothing when stderr is
/// not a terminal, so logs and pipes get only the report.
fn progress_bar(options: &Options, digits: usize) -> ProgressBar {
    if !options.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(digits as u64), ProgressDrawTarget::stderr());
    // The template is a constant: a fault in it is a bug, which every `npu mnist` run would
    // hit (tests/mnist_cli.rs runs one).
    bar.set_style(ProgressStyle::with_template("[{bar:30}] {pos}/{len} digits, {msg}").expect("a valid template").progress_chars("#>-"));
    bar
}

/// Runs the demo; any disagreement between chip, model and reference is an error.
pub fn run(options: &Options) -> Result<Report, Error> {
    let network = Network::load(&options.weights)?;
    if network.shape().last() != Some(&10) {
        return Err(FileError::new(
            &options.weights,
            None,
            format!(
                "the last layer has {} neurons, not one per digit (10)",
                network.shape().last().copied().unwrap_or(0)
            ),
        )
        .into());
    }
    let data_file = match &options.data {
        Some(file) => file.clone(),
        None => data::fetch(&options.data_dir)?,
    };
    let all = data::load(&data_file)?;
    let mut digits = held_out_digits(&all);
    if digits.is_empty() {
        return Err(FileError::new(&data_file, None, format!("{} digits and none held out: the held-out digits are every fifth line", all.len())).into());
    }
    if let Some(n) = options.images {
        if n == 0 || n > digits.len() {
            return Err(Error::Usage(format!(
                "--images {n}: choose 1 to {} held-out digits",
                digits.len()
            )));
        }
        digits.truncate(n);
    }
    if let Some((image, _)) = &options.waves {
        if *image >= digits.len() {
            return Err(Error::Usage(format!(
                "--waves {image}: the run has images 0 to {}",
                digits.len() - 1
            )));
        }
    }

    // x_seed 1: the chip powers up in a random state; the host's first cycle resets it.
    let mut dut = MnistNpu::open(&DutOptions {
        x_seed: 1,
        waves: None,
    });
    let mut chip = Host::new(|pins| dut.step(pins));
    let mut model_chip = Chip::default();
    let mut model = Host::new(|pins| model_chip.step(pins));
    let mut report = Report {
        shape: network.shape(),
        images: digits.len(),
        correct: 0,
        confusion: [[0; 10]; 10],
        cycles_per_image: 0,
        cycle_bound: cycle_bound(&network),
        chip_time: Duration::ZERO,
        model_time: Duration::ZERO,
    };
    let (started, bar) = (Instant::now(), progress_bar(options, digits.len()));
    for (image, digit) in digits.iter().enumerate() {
        let (t, cycles) = (Instant::now(), chip.cycles);
        let on_chip = chip.classify(&network, &digit.pixels, options.path);
        report.chip_time += t.elapsed();
        let t = Instant::now();
        let on_model = model.classify(&network, &digit.pixels, options.path);
        report.model_time += t.elapsed();
        check(image, digit, &network, &on_chip, &on_model, options)?;
        if image == 0 {
            report.cycles_per_image = chip.cycles - cycles;
        }
        if let Some((_, file)) = options.waves.as_ref().filter(|(k, _)| *k == image) {
            waves(&network, digit, options.path, file, &on_chip)?;
        }
        report.correct += usize::from(on_chip.prediction == usize::from(digit.label));
        report.confusion[usize::from(digit.label)][on_chip.prediction.min(9)] += 1;
        let rate = (image + 1) as f64 / started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{:.1} % correct, {rate:.0} images/s", 100.0 * report.correct as f64 / (image + 1) as f64));
        bar.inc(1);
    }
    bar.finish();
    Ok(report)
}

/// One digit on a fresh Verilated chip that writes every internal signal to `file`; its
/// neurons must equal those of the main run.
fn waves(
    network: &Network,
    digit: &Digit,
    path: OutputPath,
    file: &std::path::Path,
    expected: &Inference,
) -> Result<(), Error> {
    let mut dut = MnistNpu::open(&DutOptions {
        x_seed: 1,
        waves: Some(file.to_path_buf()),
    });
    let mut host = Host::new(|pins| dut.step(pins));
    let inference = host.classify(network, &digit.pixels, path);
    if (&inference.layers, inference.index) != (&expected.layers, expected.index) {
        return Err(Error::Mismatch(format!(
            "the waveform run of the digit differs from the main run: {} against {}",
            results(&inference),
            results(expected)
        )));
    }
    eprintln!(
        "waveform of one digit (label {}, {} cycles from reset): {}",
        digit.label,
        host.cycles,
        file.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mnist::network::Layer;

    /// `check` catches each kind of disagreement: a pin, a neuron, the prediction.
    #[test]
    fn check_reports_every_kind_of_mismatch() {
        let layer = |neurons: usize, inputs: usize, relu| Layer { weights: vec![vec![3; inputs]; neurons], biases: (0..neurons as i8).collect(), relu, shift: 2 };
        let network = Network { input_shift: 2, layers: vec![layer(3, 4, true), layer(10, 3, false)] };
        let digit = Digit { pixels: vec![200, 10, 0, 90], label: 9 };
        let mut chip = Chip::default();
        let good = Host::new(|pins| chip.step(pins)).classify(&network, &digit.pixels, OutputPath::PisoOut);
        let options = Options { weights: "my weights.txt".into(), data: Some("digits.csv.gz".into()), ..Options::in_project(Path::new("")) };
        assert!(check(0, &digit, &network, &good, &good, &options).is_ok());

        let mut pin = good.clone();
        pin.pins[5].FULL = !pin.pins[5].FULL;
        let mut neuron = good.clone();
        neuron.layers[0][1] += 1;
        let mut prediction = good.clone();
        prediction.prediction = 3;
        for (chip, model, expected) in [
            (&pin, &good, "output pins differ in cycle 5 of the digit: Verilated chip D_OUT"),
            (&neuron, &neuron, "layer 1: chip"),
            (&prediction, &prediction, "chip predicts 3"),
        ] {
            let error = check(4, &digit, &network, chip, model, &options).unwrap_err().to_string();
            assert!(error.contains(expected) && error.contains("image 4 (label 9)"), "{error}");
            // Every option of the run, so the command replays the same pins.
            let command = "npu mnist --images 5 --output piso --weights 'my weights.txt' --data digits.csv.gz --waves 4 digit.fst";
            assert!(error.ends_with(&format!("reproduce with a waveform: {command}")), "{error}");
            assert!(!error.contains("Some(") && !error.contains("Out {"), "no Rust Debug text: {error}");
        }
    }
}
