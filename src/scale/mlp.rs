//! A two-layer perceptron (inputs → hidden ReLU → logits) trained by this module and
//! quantized to ScaleNPU's integer matrix arithmetic, then run on the unit layer by layer;
//! shared by the Iris ([`super::iris`]) and MNIST ([`super::mnist`]) workloads, which say
//! what differs between them through [`Workload`]: the samples and their features, the
//! network's shape, the normalization and the training's hyperparameters.
//!
//! # The hardware's arithmetic ([`reference_layer`])
//!
//! A layer multiplies an int16 input matrix X (m × k) by an int16 weight matrix W (k × n,
//! row-major by k): acc = Σₖ x·w + b, a wrapping 32-bit sum with an optional int32 bias b
//! per column; then ReLU if enabled (acc = max(acc, 0)); then an arithmetic right shift
//! (0..=255; shifts of 31 or more leave 0 or -1); then the low 16 bits are the output
//! (no saturation). Layer 2 takes layer 1's int16 outputs as they are, without ReLU; the
//! predicted class is the first largest of its outputs (the logits).
//!
//! # Quantization ([`quantize`])
//!
//! The float network is h = ReLU(W₁ᵀ·s(x) + b₁), z = W₂ᵀ·h + b₂, where s(x) = (x − μ)/σ
//! normalizes each feature ([`Workload::normalization`]: Iris standardizes each measurement
//! with the training set's mean and deviation, as SGD converges much better on standardized
//! inputs; MNIST divides every pixel by the same constant). The normalization is folded into
//! layer 1 (weights W₁/σ, biases b₁ − Σ μ·W₁/σ), so the hardware's input is simply the
//! raw feature on a binary scale, x_q = round(x·2^a), computed on the CPU
//! ([`Model::inputs`]).
//!
//! Every scale is a power of two. With weights w_q = round(w·2^e₁), layer 1's sum is the
//! float sum times 2^(a+e₁), so its biases enter at that scale: b_q = round(b·2^(a+e₁)).
//! The shift s₁ leaves the hidden activations at scale 2^c, c = a + e₁ − s₁; layer 2 is
//! quantized the same way on top of c (w_q = round(w·2^e₂), b_q = round(b·2^(c+e₂))), and
//! its shift s₂ leaves the logits at a positive scale, which argmax ignores. The rounding
//! of inputs, weights and biases and the flooring shifts are the only differences from
//! the float network.
//!
//! The values the CPU rounds, inputs and weights, get one precision p: the inputs' and
//! each layer's weights' largest magnitude over the training samples is at most 2^p,
//! so a, e₁ and e₂ are the largest exponents with max·2^e ≤ 2^p (a in 0..=15: inputs are
//! never scaled down). The values the hardware computes, hidden activations and logits,
//! use the int16 range as well as headroom allows: s₁ and s₂ are the smallest shifts that
//! keep them within ±2^14 on the training samples, a factor 2 below the int16 limits for
//! samples training has not seen. A precision at which an accumulator passes 2^30 (half
//! the 32-bit range) is not considered.
//!
//! p is chosen by measurement on the training samples: the smallest p (from 3 up) at which
//! the integer network classifies every training sample as the float network does, so that
//! it has the float network's training accuracy, plus two guard bits for samples nearer a
//! decision boundary (or the largest p the accumulators allow). More bits than that buy no
//! accuracy and only eat into the 32-bit accumulators' headroom.
//!
//! # Model file ([`Model::to_text`], [`Model::parse`])
//!
//! ```text
//! HEADER                                [`Workload::HEADER`]
//! input_exponent A                      inputs are round(feature · 2^A)
//! layer K N relu|linear shift S         then, for each of the two layers:
//! bias B1 .. BN                         or `bias none`
//! W[0][0] .. W[0][N-1]                  K lines of N weights
//! ```
//!
//! `#` starts a comment; blank lines are ignored.
use super::driver::{exit_code_name, run_layers, Bench};
use crate::integer;
use npu_model::scale::engine::SUCCESS;
use npu_model::scale::result_buffer::results_fit;
use npu_model::scale::scale_npu::{In, Out};
use crate::argmax;
use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};
use std::fmt::Write as _;
use std::marker::PhantomData;
use std::ops::RangeInclusive;

/// What a workload brings to the shared MLP: its samples, the network's shape, the model
/// file's header, the normalization and the training's hyperparameters.
pub trait Workload: Clone + std::fmt::Debug + PartialEq + Eq {
    type Sample;
    /// The first line of the model file.
    const HEADER: &'static str;
    /// Where the model file's format and arithmetic are described (its comment line).
    const SOURCE: &'static str;
    /// What one sample is called in messages ("flower", "digit").
    const SAMPLE: &'static str;
    /// Features per sample: the first layer's inputs.
    const INPUTS: usize;
    /// Neurons of the hidden layer [`train`] trains.
    const HIDDEN: usize;
    /// Classes: the second layer's outputs.
    const CLASSES: usize;
    const TRAINING: Training;
    fn features(sample: &Self::Sample) -> &[f32];
    fn label(sample: &Self::Sample) -> u8;
    /// The float network's input normalization, (mean, deviation) per feature, measured on
    /// the training samples.
    fn normalization(training: &[Self::Sample]) -> (Vec<f32>, Vec<f32>);
}

/// The float training's hyperparameters ([`train_float`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Training {
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f32,
    pub momentum: f32,
}

/// Per-feature standardization: each feature's mean and deviation over `training`.
pub fn standardization<W: Workload>(training: &[W::Sample]) -> (Vec<f32>, Vec<f32>) {
    let count = training.len() as f32;
    let mean: Vec<f32> = (0..W::INPUTS)
        .map(|i| training.iter().map(|f| W::features(f)[i]).sum::<f32>() / count)
        .collect();
    let deviation = (0..W::INPUTS)
        .map(|i| {
            let variance = training
                .iter()
                .map(|f| (W::features(f)[i] - mean[i]).powi(2))
                .sum::<f32>()
                / count;
            variance.sqrt().max(1e-6)
        })
        .collect();
    (mean, deviation)
}

/// The precisions of inputs and weights [`quantize`] considers (see the module documentation).
const PRECISIONS: RangeInclusive<u32> = 3..=14;
/// Bits added to the smallest precision that reproduces the float network's decisions.
const GUARD_BITS: u32 = 2;
/// The largest accumulator magnitude a quantized layer may reach on the training samples:
/// half the 32-bit range.
const ACCUMULATOR_LIMIT: i64 = 1 << 30;
/// The largest output magnitude a quantized layer may reach on the training samples: half
/// the 16-bit range.
const ACTIVATION_LIMIT: i64 = 1 << 14;
const MAX_INPUT_EXPONENT: u8 = 15;
/// The most inputs or outputs a layer may have, and the most samples in one batch: the
/// unit's dimension registers (INROWS, INCOLS, WGHTROWS, WGHTCOLS) are 8 bits (seeds/004).
pub const MAX_LAYER_SIZE: u8 = u8::MAX;

/// One layer in the hardware's formats (arithmetic in the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// Inputs per row of X (rows of W).
    pub k: usize,
    /// Outputs per row (columns of W).
    pub n: usize,
    /// W, k × n, row-major by k: the weight from input `i` to output `j` is `weights[i * n + j]`.
    pub weights: Vec<i16>,
    /// One per output, or empty for no bias.
    pub bias: Vec<i32>,
    pub shift: u8,
    pub relu: bool,
}

/// The layer's outputs for `x` (m × k, row-major), m × n row-major: the hardware's
/// arithmetic in plain integer loops (`scale::layer::reference`).
pub fn reference_layer(x: &[i16], m: usize, layer: &Layer) -> Vec<i16> {
    let Layer { k, n, .. } = *layer;
    assert_eq!(x.len(), m * k, "x is not {m} × {k}");
    assert_eq!(layer.weights.len(), k * n, "the weights are not {k} × {n}");
    assert!(
        layer.bias.is_empty() || layer.bias.len() == n,
        "not one bias per output"
    );
    super::layer::reference(x, &layer.weights, m, k, n, &layer.bias, &[], layer.relu, layer.shift)
}

/// The layer's accumulators after ReLU, before the shift, summed in 64 bits: exact, where
/// the hardware's 32-bit sums wrap around. For measuring headroom.
pub fn exact_accumulators(x: &[i16], m: usize, layer: &Layer) -> Vec<i64> {
    let (k, n) = (layer.k, layer.n);
    let mut acc = Vec::with_capacity(m * n);
    for row in x.chunks(k).take(m) {
        for col in 0..n {
            let sum: i64 = row
                .iter()
                .enumerate()
                .map(|(i, &v)| i64::from(v) * i64::from(layer.weights[i * n + col]))
                .sum::<i64>()
                + layer.bias.get(col).map_or(0, |&b| i64::from(b));
            acc.push(if layer.relu { sum.max(0) } else { sum });
        }
    }
    acc
}

/// The largest magnitudes a layer reaches on some flowers, computed exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peak {
    /// Of the accumulator after ReLU, before the shift.
    pub accumulator: i64,
    /// Of the accumulator after the shift, before the truncation to 16 bits.
    pub output: i64,
}

impl Peak {
    /// Whether the 32-bit sums never wrapped around and no output lost bits to the
    /// truncation to 16 bits.
    pub fn fits(&self) -> bool {
        self.accumulator <= i64::from(i32::MAX) && self.output <= i64::from(i16::MAX)
    }
}

/// The quantized network of workload `W`: inputs are round(feature · 2^`input_exponent`),
/// then the two layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model<W> {
    pub input_exponent: u8,
    pub layers: [Layer; 2],
    workload: PhantomData<W>,
}

impl<W: Workload> Model<W> {
    pub fn new(input_exponent: u8, layers: [Layer; 2]) -> Self {
        Self { input_exponent, layers, workload: PhantomData }
    }

    /// The hardware's input for `flower`: each measurement times 2^input_exponent, rounded
    /// (saturating at the int16 limits, which measurements under 2^(15 − input_exponent)
    /// cm never reach).
    pub fn inputs(&self, flower: &W::Sample) -> Vec<i16> {
        input_row::<W>(flower, self.input_exponent).collect()
    }

    /// The inputs of `flowers`, one row each (m × 4, row-major).
    pub fn input_matrix(&self, flowers: &[W::Sample]) -> Vec<i16> {
        input_matrix::<W>(flowers, self.input_exponent)
    }

    /// Both layers' outputs for `flowers`, one row per flower: the hidden activations
    /// (m × hidden) and the logits (m × 3).
    pub fn reference(&self, flowers: &[W::Sample]) -> [Vec<i16>; 2] {
        let m = flowers.len();
        let hidden = reference_layer(&self.input_matrix(flowers), m, &self.layers[0]);
        let logits = reference_layer(&hidden, m, &self.layers[1]);
        [hidden, logits]
    }

    /// The predicted species of each flower.
    pub fn predict_batch(&self, flowers: &[W::Sample]) -> Vec<u8> {
        let [_, logits] = self.reference(flowers);
        logits
            .chunks(self.layers[1].n)
            .map(|row| argmax(row) as u8)
            .collect()
    }

    /// The fraction of `flowers` whose species the integer network predicts.
    pub fn accuracy(&self, flowers: &[W::Sample]) -> f64 {
        let predictions = self.predict_batch(flowers);
        fraction_correct::<W>(flowers, predictions)
    }

    /// Each layer's peaks on `flowers`; layer 2 sees layer 1's actual (hardware) outputs.
    pub fn peaks(&self, flowers: &[W::Sample]) -> [Peak; 2] {
        let m = flowers.len();
        let mut x = self.input_matrix(flowers);
        [0, 1].map(|l| {
            let layer = &self.layers[l];
            let acc = exact_accumulators(&x, m, layer);
            let peak = Peak {
                accumulator: acc.iter().map(|a| a.abs()).max().unwrap_or(0),
                output: acc
                    .iter()
                    .map(|a| (a >> layer.shift.min(63)).abs())
                    .max()
                    .unwrap_or(0),
            };
            x = reference_layer(&x, m, layer);
            peak
        })
    }

    /// The model file (format in the module documentation).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        writeln!(s, "{}\n# format and arithmetic: {}", W::HEADER, W::SOURCE).unwrap();
        writeln!(s, "input_exponent {}", self.input_exponent).unwrap();
        for layer in &self.layers {
            let activation = if layer.relu { "relu" } else { "linear" };
            writeln!(
                s,
                "layer {} {} {activation} shift {}",
                layer.k, layer.n, layer.shift
            )
            .unwrap();
            if layer.bias.is_empty() {
                writeln!(s, "bias none").unwrap();
            } else {
                writeln!(s, "bias {}", join(&layer.bias)).unwrap();
            }
            for row in layer.weights.chunks(layer.n) {
                writeln!(s, "{}", join(row)).unwrap();
            }
        }
        s
    }

    /// Reads a model file; a malformed line, a value out of range or a wrong shape (the
    /// network must be 4 → any → 3) is an error naming the line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = ModelLines(text.lines().enumerate(), 0);
        let (n, header) = lines.next("the header")?;
        if header != W::HEADER {
            return Err(format!(
                "line {n}: expected the header `{}`, found `{header}`", W::HEADER
            ));
        }
        let (n, line) = lines.next("input_exponent")?;
        let input_exponent = match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["input_exponent", a] => integer(a, 0..=MAX_INPUT_EXPONENT.into()).map_err(at(n))?,
            _ => {
                return Err(format!(
                    "line {n}: expected `input_exponent A`, found `{line}`"
                ))
            }
        } as u8;
        let first = parse_layer::<W>(&mut lines, 1, W::INPUTS, None)?;
        let second = parse_layer::<W>(&mut lines, 2, first.n, Some(W::CLASSES))?;
        if let Ok((n, line)) = lines.next("nothing") {
            return Err(format!(
                "line {n}: unexpected `{line}` after the second layer"
            ));
        }
        Ok(Self::new(input_exponent, [first, second]))
    }
}

/// A model file's lines, numbered from 1, and the number of the last line taken.
struct ModelLines<'a>(std::iter::Enumerate<std::str::Lines<'a>>, usize);

impl<'a> ModelLines<'a> {
    /// The next line that is not blank once its comment is removed, and its number; at the
    /// end of the file an error naming the line after the last and saying that `what` was
    /// expected there.
    fn next(&mut self, what: &str) -> Result<(usize, &'a str), String> {
        for (i, line) in self.0.by_ref() {
            self.1 = i + 1;
            let line = line.split('#').next().unwrap_or("").trim();
            if !line.is_empty() {
                return Ok((i + 1, line));
            }
        }
        Err(format!("line {}: the file ends where {what} should be", self.1 + 1))
    }
}

/// Layer `index` of a model file (its header line, biases and weights), which must take
/// `k` inputs and, if given, have `n` outputs.
fn parse_layer<W: Workload>(
    lines: &mut ModelLines,
    index: usize,
    k: usize,
    n: Option<usize>,
) -> Result<Layer, String> {
    let (number, line) = lines.next("a layer")?;
    let (declared_k, outputs, relu, shift) = match line.split_whitespace().collect::<Vec<_>>()[..] {
        ["layer", k, n, activation @ ("relu" | "linear"), "shift", s] => (
            layer_size(k).map_err(at(number))?,
            layer_size(n).map_err(at(number))?,
            activation == "relu",
            integer(s, 0..=255).map_err(at(number))? as u8,
        ),
        _ => {
            return Err(format!(
                "line {number}: expected `layer K N relu|linear shift S`, found `{line}`"
            ))
        }
    };
    if declared_k != k || n.is_some_and(|n| n != outputs) {
        return Err(format!(
            "line {number}: layer {index} is {declared_k} → {outputs}; \
             the network must be {} → hidden → {}", W::INPUTS, W::CLASSES
        ));
    }
    let (number, line) = lines.next("the biases")?;
    let bias = match line.split_whitespace().collect::<Vec<_>>()[..] {
        ["bias", "none"] => Vec::new(),
        ["bias", ref values @ ..] => {
            row(values, outputs, i32::MIN, i32::MAX).map_err(at(number))?
        }
        _ => {
            return Err(format!(
                "line {number}: expected `bias B1 .. B{outputs}` or `bias none`"
            ))
        }
    };
    let mut weights = Vec::with_capacity(k * outputs);
    for _ in 0..k {
        let (number, line) = lines.next("a row of weights")?;
        let values: Vec<&str> = line.split_whitespace().collect();
        weights.extend(row(&values, outputs, i16::MIN, i16::MAX).map_err(at(number))?);
    }
    Ok(Layer {
        k,
        n: outputs,
        weights,
        bias,
        shift,
        relu,
    })
}

/// A layer's number of inputs or outputs. The unit holds at most 255: a layer's inputs are
/// INCOLS and WGHTROWS, its outputs WGHTCOLS (and the next layer's INCOLS), all 8-bit
/// registers (seeds/004); a larger size would be truncated when written to them.
fn layer_size(word: &str) -> Result<usize, String> {
    integer(word, 1..=MAX_LAYER_SIZE.into())
        .map(|v| v as usize)
        .map_err(|e| format!("{e}: a layer's size must fit the unit's 8-bit INCOLS, WGHTROWS and WGHTCOLS registers"))
}

/// Prefixes an error with its line number.
fn at(number: usize) -> impl Fn(String) -> String {
    move |e| format!("line {number}: {e}")
}

fn input_row<W: Workload>(flower: &W::Sample, exponent: u8) -> impl Iterator<Item = i16> + '_ {
    let scale = 2f32.powi(i32::from(exponent));
    W::features(flower)
        .iter()
        .map(move |&f| (f * scale).round() as i16)
}

fn input_matrix<W: Workload>(flowers: &[W::Sample], exponent: u8) -> Vec<i16> {
    flowers
        .iter()
        .flat_map(|f| input_row::<W>(f, exponent))
        .collect()
}

fn join<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(T::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Exactly `count` integers in `min..=max`.
fn row<T: TryFrom<i64>>(words: &[&str], count: usize, min: T, max: T) -> Result<Vec<T>, String>
where
    i64: From<T>,
{
    if words.len() != count {
        return Err(format!("{} values, expected {count}", words.len()));
    }
    let range = i64::from(min)..=i64::from(max);
    words
        .iter()
        .map(|w| integer(w, range.clone()).map(|v| T::try_from(v).ok().expect("in range")))
        .collect()
}

fn fraction_correct<W: Workload>(flowers: &[W::Sample], predictions: Vec<u8>) -> f64 {
    let correct = flowers
        .iter()
        .zip(predictions)
        .filter(|(f, p)| W::label(f) == *p)
        .count();
    correct as f64 / flowers.len() as f64
}

/// A float dense layer: y = Wᵀ·x + b with W k × n, row-major by k like [`Layer`]'s.
#[derive(Clone, Debug)]
struct Dense {
    k: usize,
    n: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Dense {
    fn zeros(k: usize, n: usize) -> Self {
        Self {
            k,
            n,
            w: vec![0.0; k * n],
            b: vec![0.0; n],
        }
    }

    /// He-uniform weights, zero biases.
    fn random(rng: &mut SmallRng, k: usize, n: usize) -> Self {
        let limit = (6.0 / k as f32).sqrt();
        let w = (0..k * n).map(|_| rng.gen_range(-limit..limit)).collect();
        Self {
            w,
            ..Self::zeros(k, n)
        }
    }

    fn forward(&self, x: &[f32]) -> Vec<f32> {
        let mut y = self.b.clone();
        for (row, &xi) in self.w.chunks(self.n).zip(x) {
            for (y, &w) in y.iter_mut().zip(row) {
                *y += xi * w;
            }
        }
        y
    }

    /// Adds the gradient of the loss with respect to the parameters, for input `x` and
    /// output gradient `dy`, to `grad`; returns the gradient with respect to `x`.
    fn backward(&self, x: &[f32], dy: &[f32], grad: &mut Dense) -> Vec<f32> {
        for (g, &d) in grad.b.iter_mut().zip(dy) {
            *g += d;
        }
        let rows = self.w.chunks(self.n).zip(grad.w.chunks_mut(self.n));
        x.iter()
            .zip(rows)
            .map(|(&xi, (weights, gradients))| {
                let mut dxi = 0.0;
                for ((&w, g), &d) in weights.iter().zip(gradients).zip(dy) {
                    *g += xi * d;
                    dxi += w * d;
                }
                dxi
            })
            .collect()
    }

    fn parameters_mut(&mut self) -> impl Iterator<Item = &mut f32> {
        self.w.iter_mut().chain(self.b.iter_mut())
    }

    fn max_abs_weight(&self) -> f32 {
        self.w.iter().fold(0.0, |m, w| m.max(w.abs()))
    }
}

/// The float network: normalization ([`Workload::normalization`]), inputs → hidden ReLU →
/// logits.
#[derive(Clone, Debug)]
pub struct FloatMlp<W> {
    mean: Vec<f32>,
    deviation: Vec<f32>,
    layers: [Dense; 2],
    workload: PhantomData<W>,
}

impl<W: Workload> FloatMlp<W> {
    fn standardized(&self, flower: &W::Sample) -> Vec<f32> {
        let features = W::features(flower);
        (0..W::INPUTS)
            .map(|i| (features[i] - self.mean[i]) / self.deviation[i])
            .collect()
    }

    /// The first layer's pre-activations and the logits.
    fn forward(&self, x: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let z1 = self.layers[0].forward(x);
        let logits = self.layers[1].forward(&relu(&z1));
        (z1, logits)
    }

    /// The predicted species: the first largest logit.
    pub fn predict(&self, flower: &W::Sample) -> u8 {
        let (_, logits) = self.forward(&self.standardized(flower));
        argmax(&logits) as u8
    }

    /// The fraction of `flowers` whose species the float network predicts.
    pub fn accuracy(&self, flowers: &[W::Sample]) -> f64 {
        fraction_correct::<W>(flowers, flowers.iter().map(|f| self.predict(f)).collect())
    }

    /// Layer 1 with the standardization folded in: it takes raw measurements in cm.
    fn folded_first_layer(&self) -> Dense {
        let first = &self.layers[0];
        let mut folded = first.clone();
        for i in 0..W::INPUTS {
            for j in 0..first.n {
                let w = first.w[i * first.n + j] / self.deviation[i];
                folded.w[i * first.n + j] = w;
                folded.b[j] -= self.mean[i] * w;
            }
        }
        folded
    }
}

fn relu(z: &[f32]) -> Vec<f32> {
    z.iter().map(|&v| v.max(0.0)).collect()
}

/// Float training on `flowers` (the training set): SGD with momentum on softmax
/// cross-entropy, mini-batches in an order shuffled each epoch. Deterministic: the same
/// flowers and seed give the same network.
pub fn train_float<W: Workload>(flowers: &[W::Sample], seed: u64) -> FloatMlp<W> {
    let (mean, deviation) = W::normalization(flowers);
    let Training { epochs, batch: batch_size, learning_rate, momentum } = W::TRAINING;
    let mut rng = SmallRng::seed_from_u64(seed);
    let layers = [
        Dense::random(&mut rng, W::INPUTS, W::HIDDEN),
        Dense::random(&mut rng, W::HIDDEN, W::CLASSES),
    ];
    let mut net = FloatMlp {
        mean,
        deviation,
        layers,
        workload: PhantomData,
    };
    let zeros = || {
        [
            Dense::zeros(W::INPUTS, W::HIDDEN),
            Dense::zeros(W::HIDDEN, W::CLASSES),
        ]
    };
    let mut velocity = zeros();
    let inputs: Vec<Vec<f32>> = flowers.iter().map(|f| net.standardized(f)).collect();
    let mut order: Vec<usize> = (0..flowers.len()).collect();
    for _ in 0..epochs {
        order.shuffle(&mut rng);
        for batch in order.chunks(batch_size) {
            let mut grad = zeros();
            for &i in batch {
                let x = &inputs[i];
                let (z1, logits) = net.forward(x);
                let h = relu(&z1);
                // Softmax cross-entropy: d loss / d logits = softmax − one-hot.
                let top = logits.iter().fold(f32::MIN, |a, &b| a.max(b));
                let e: Vec<f32> = logits.iter().map(|&z| (z - top).exp()).collect();
                let sum: f32 = e.iter().sum();
                let label = usize::from(W::label(&flowers[i]));
                let d2: Vec<f32> = e
                    .iter()
                    .enumerate()
                    .map(|(c, &v)| v / sum - if c == label { 1.0 } else { 0.0 })
                    .collect();
                let dh = net.layers[1].backward(&h, &d2, &mut grad[1]);
                let d1: Vec<f32> = dh
                    .iter()
                    .zip(&z1)
                    .map(|(&d, &z)| if z > 0.0 { d } else { 0.0 })
                    .collect();
                net.layers[0].backward(x, &d1, &mut grad[0]);
            }
            let step = learning_rate / batch.len() as f32;
            for ((layer, v), g) in net.layers.iter_mut().zip(&mut velocity).zip(&mut grad) {
                for ((p, v), g) in layer
                    .parameters_mut()
                    .zip(v.parameters_mut())
                    .zip(g.parameters_mut())
                {
                    *v = momentum * *v - step * *g;
                    *p += *v;
                }
            }
        }
    }
    net
}

/// Trains on `flowers` (the training set) and quantizes: [`train_float`], then [`quantize`].
pub fn train<W: Workload>(flowers: &[W::Sample], seed: u64) -> Model<W> {
    quantize(&train_float::<W>(flowers, seed), flowers)
}

/// The float network in the hardware's formats, with the precision chosen on the training
/// flowers as the module documentation describes.
pub fn quantize<W: Workload>(float: &FloatMlp<W>, training: &[W::Sample]) -> Model<W> {
    let mut candidates = precision_survey(float, training);
    let float_predictions: Vec<u8> = training.iter().map(|f| float.predict(f)).collect();
    let largest = candidates
        .last()
        .expect("some precision fits the accumulators")
        .0;
    let wanted = candidates
        .iter()
        .find(|(_, model)| model.predict_batch(training) == float_predictions)
        .map_or(largest, |(p, _)| p + GUARD_BITS);
    let chosen = candidates
        .iter()
        .rposition(|(p, _)| *p <= wanted)
        .expect("p ≤ largest");
    candidates.swap_remove(chosen).1
}

/// The quantized network at each precision whose accumulators stay within the limit on the
/// training flowers, by increasing precision.
pub fn precision_survey<W: Workload>(float: &FloatMlp<W>, training: &[W::Sample]) -> Vec<(u32, Model<W>)> {
    PRECISIONS
        .filter_map(|p| quantize_at(float, training, p).map(|m| (p, m)))
        .collect()
}

/// The largest e with `max`·2^e ≤ 2^`precision`.
fn exponent_for(max: f32, precision: u32) -> i32 {
    if max > 0.0 {
        (f64::from(precision) - f64::from(max).log2()).floor() as i32
    } else {
        precision as i32
    }
}

/// The network quantized at `precision`, or `None` if an accumulator would pass the limit.
fn quantize_at<W: Workload>(float: &FloatMlp<W>, training: &[W::Sample], precision: u32) -> Option<Model<W>> {
    let largest_input = training.iter().flat_map(|f| W::features(f)).fold(0.0, |a: f32, &b| a.max(b));
    let input_exponent = u8::try_from(exponent_for(largest_input, precision))
        .ok()
        .filter(|&a| a <= MAX_INPUT_EXPONENT)?;
    let m = training.len();
    let x = input_matrix::<W>(training, input_exponent);
    let (first, hidden_exponent) = quantize_layer(
        &float.folded_first_layer(),
        true,
        &x,
        m,
        i32::from(input_exponent),
        precision,
    )?;
    let hidden = reference_layer(&x, m, &first);
    let (second, _) = quantize_layer(
        &float.layers[1],
        false,
        &hidden,
        m,
        hidden_exponent,
        precision,
    )?;
    Some(Model::new(input_exponent, [first, second]))
}

/// `dense` quantized for inputs `x` (m rows) at scale 2^`input_exponent`, its weights at
/// `precision`, and the scale exponent of its outputs; `None` if an accumulator would pass
/// the limit.
fn quantize_layer(
    dense: &Dense,
    relu: bool,
    x: &[i16],
    m: usize,
    input_exponent: i32,
    precision: u32,
) -> Option<(Layer, i32)> {
    let weight_exponent = exponent_for(dense.max_abs_weight(), precision);
    let accumulator_exponent = input_exponent + weight_exponent;
    let at_scale = |v: f32, exponent: i32| (f64::from(v) * 2f64.powi(exponent)).round();
    let bias = dense
        .b
        .iter()
        .map(|&b| at_scale(b, accumulator_exponent))
        .map(|b| (b.abs() <= ACCUMULATOR_LIMIT as f64).then_some(b as i32))
        .collect::<Option<Vec<i32>>>()?;
    let mut layer = Layer {
        k: dense.k,
        n: dense.n,
        weights: dense
            .w
            .iter()
            .map(|&w| at_scale(w, weight_exponent) as i16)
            .collect(),
        bias,
        shift: 0,
        relu,
    };
    let acc = exact_accumulators(x, m, &layer);
    if acc.iter().any(|a| a.abs() > ACCUMULATOR_LIMIT) {
        return None;
    }
    let shift = (0..=31u8)
        .find(|&s| acc.iter().all(|&a| (a >> s).abs() <= ACTIVATION_LIMIT))
        .expect("a shift of 31 leaves 0 or -1");
    layer.shift = shift;
    Some((layer, accumulator_exponent - i32::from(shift)))
}


/// Where [`Model::unit_layers`] puts things in the unit's memory: the inputs at BASE (at most
/// 255 rows of 255 values, 255 × 32 × 16 bytes), the hidden results and the logits after.
pub const UNIT_BASE: u32 = 0;
pub const UNIT_HIDDEN: u32 = 0x4_0000;
pub const UNIT_LOGITS: u32 = 0x8_0000;

impl<W: Workload> Model<W> {
    /// The two ScaleNPU layers that classify `flowers` (at most 255, one batch): the hidden
    /// layer from the inputs at BASE, then the logits from the hidden results by REINPUTS if
    /// they fit in the unit's result buffer (docs/scale.md, "REINPUTS and the result buffer");
    /// else the second layer reads X at BASE, and its `x` is left for the caller to fill with
    /// the hidden results the first layer saved.
    pub fn unit_layers(&self, flowers: &[W::Sample]) -> [super::layer::Layer; 2] {
        use super::layer::{Layer as UnitLayer, Registers};
        let m = u8::try_from(flowers.len()).expect("at most 255 flowers in one batch");
        let layer = |l: &Layer, x: Vec<i16>, reinputs: bool, base: u32, result: u32| UnitLayer {
            regs: Registers {
                inrows: m,
                incols: l.k as u8,
                wghtrows: l.k as u8,
                wghtcols: l.n as u8,
                reinputs,
                saveout: true,
                usebias: !l.bias.is_empty(),
                shiftamt: l.shift,
                actfn: l.relu,
                base,
                result,
                ..Registers::default()
            },
            x,
            w: l.weights.clone(),
            bias: l.bias.clone(),
            sums: Vec::new(),
        };
        [
            layer(&self.layers[0], self.input_matrix(flowers), false, UNIT_BASE, UNIT_HIDDEN),
            layer(&self.layers[1], Vec::new(), results_fit(m, self.layers[0].n as u8), UNIT_BASE, UNIT_LOGITS),
        ]
    }
}


/// What [`run_batch`] measured: each layer's cycles and the unit's prediction per sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchRun {
    /// Cycles of each layer, from the INIT write's response to the interrupt.
    pub cycles: [u64; 2],
    /// The class the unit's logits pick, one per sample.
    pub predictions: Vec<usize>,
}

/// Classifies `samples` (one batch of 1..=255) on the unit `step` (the Verilated RTL or the
/// model) driven through `bench`, with [`Model::unit_layers`], and checks every hidden value
/// and logit against the integer reference. An error says which layer differs and how: its
/// exit code by name, or the first differing value with its index (sample and neuron) and
/// both values.
pub fn run_batch<W: Workload>(
    step: &mut dyn FnMut(&In) -> Out,
    bench: &mut Bench,
    model: &Model<W>,
    samples: &[W::Sample],
) -> Result<BatchRun, String> {
    if samples.is_empty() || samples.len() > usize::from(MAX_LAYER_SIZE) {
        return Err(format!(
            "{} {}s: the unit takes 1..={MAX_LAYER_SIZE} rows in one batch (INROWS is an 8-bit register)",
            samples.len(),
            W::SAMPLE
        ));
    }
    let [hidden_layer, mut logits_layer] = model.unit_layers(samples);
    let mut outcomes = run_layers(step, bench, std::slice::from_ref(&hidden_layer));
    if !logits_layer.regs.reinputs {
        // The hidden results do not fit on chip: they go back in through memory.
        logits_layer.x = outcomes[0].result.clone();
    }
    if outcomes[0].exit_code == SUCCESS {
        outcomes.extend(run_layers(step, bench, &[logits_layer]));
    }
    let reference = model.reference(samples);
    for (l, ((outcome, want), name)) in outcomes.iter().zip(&reference).zip(["hidden", "logits"]).enumerate() {
        let layer = format!("layer {} ({name})", l + 1);
        if outcome.exit_code != SUCCESS {
            return Err(format!(
                "{layer}: the unit ended with EXITCODE {} ({}), not {SUCCESS} (SUCCESS)",
                outcome.exit_code,
                exit_code_name(outcome.exit_code)
            ));
        }
        let got = &outcome.result;
        if got.len() != want.len() {
            return Err(format!("{layer}: the unit gave {} values, the integer reference {}", got.len(), want.len()));
        }
        if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
            let n = model.layers[l].n;
            return Err(format!(
                "{layer}: value {i} ({} {}, neuron {}) is {} on the unit, {} in the integer reference",
                W::SAMPLE,
                i / n,
                i % n,
                got[i],
                want[i]
            ));
        }
    }
    Ok(BatchRun {
        cycles: [outcomes[0].cycles, outcomes[1].cycles],
        predictions: outcomes[1].result.chunks(model.layers[1].n).map(argmax).collect(),
    })
}
