//! The MNIST demo on real digits (issue 4): the committed network reaches at least 90 % on
//! all 1000 held-out digits on the Verilated chip, with every neuron equal to the chip
//! model's and the integer reference's (`demo::run` fails on the first difference), on
//! every output path, in back-to-back frames within 2 % of the 2-MAC cycle bound.
use npu::mnist::demo::{self, training_digits, Options};
use npu::mnist::driver::OutputPath;
use npu::mnist::network::Network;
use npu::mnist::{data, train};
use std::path::{Path, PathBuf};

fn options(images: Option<usize>, path: OutputPath) -> Options {
    Options { images, path, ..Options::in_project(Path::new(env!("CARGO_MANIFEST_DIR"))) }
}

/// All 5000 digits and the committed network.
fn digits_and_network() -> (Vec<data::Digit>, Network) {
    let defaults = options(None, OutputPath::PisoOut);
    (data::load(&data::fetch(&defaults.data_dir).unwrap()).unwrap(), Network::load(&defaults.weights).unwrap())
}

fn run(options: &Options) -> demo::Report {
    let report = demo::run(options).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{}", report.summary());
    let limit = report.cycle_bound as f64 * 1.02;
    assert!(report.cycles_per_image as f64 <= limit, "{} cycles per image, more than 2 % over the bound {}", report.cycles_per_image, report.cycle_bound);
    report
}

#[test]
fn all_held_out_digits_on_the_chip_reach_90_percent() {
    let report = run(&options(None, OutputPath::PisoOut));
    assert_eq!(report.images, 1000);
    assert!(report.accuracy() >= 0.90, "held-out accuracy {:.2} % is below 90 %", 100.0 * report.accuracy());
    assert_eq!(report.confusion.iter().flatten().sum::<usize>(), 1000);
}

#[test]
fn fifo_and_comparator_paths_give_the_same_neurons_and_predictions() {
    for path in [OutputPath::Fifo, OutputPath::Comparator] {
        let report = run(&options(Some(50), path));
        assert_eq!(report.images, 50);
    }
}

/// The waveform of one digit: a fresh Verilated chip gives the same neurons (checked by
/// `demo::run`) and writes a waveform whose D_OUT carries the comparator's index of the
/// reference's prediction.
#[test]
fn waveform_of_one_digit() {
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mnist_demo_digit.fst");
    std::fs::remove_file(&file).ok();
    let report = run(&Options { waves: Some((1, file.clone())), ..options(Some(2), OutputPath::Comparator) });
    let waves = npu::waves::Waves::read(&file).unwrap_or_else(|e| panic!("{e}"));
    // Cycle 0 resets, cycles 1..=cycles_per_image are the digit; the host reads the index in
    // the last one.
    let last = report.cycles_per_image as u64 * npu::waves::PERIOD;
    let index = waves.value_at(waves.find("D_OUT").unwrap_or_else(|e| panic!("{e}")), last).expect("D_OUT has a value in the digit's last cycle");
    let (digits, network) = digits_and_network();
    let predicted = network.predict(&demo::held_out_digits(&digits)[1].pixels);
    assert_eq!(index, predicted as u64 + 1, "comparator index on D_OUT at the end of the digit");
}

/// `npu mnist train` reproduces the committed weights exactly, and training never saw a
/// held-out digit.
#[test]
fn training_reproduces_the_committed_weights() {
    let (digits, committed) = digits_and_network();
    let training = training_digits(&digits);
    assert_eq!(training.len(), 4000);
    let held: Vec<_> = demo::held_out_digits(&digits);
    assert!(held.iter().all(|d| !training.contains(d)), "a held-out digit is among the training digits");
    assert!(train::train(&training, 1) == committed, "training (seed 1) no longer gives data/mnist_mlp.txt: run `cargo run --release -- mnist train`");
}
