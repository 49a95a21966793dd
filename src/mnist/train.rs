//! Trains the demo's multilayer perceptron (784-32-10, ReLU) in floating point and
//! quantizes it to the chip's 8-bit formats. Deterministic: the same digits and seed give
//! the same weight file (`npu mnist train` rewrites `data/mnist_mlp.txt`).
//!
//! Quantization, for a float network z1 = W1·x + b1, h = ReLU(z1), z2 = W2·h + b2 with
//! x = pixel/255: the chip's input is x_q = pixel >> s (so x ≈ x_q·2^s/255), the weights
//! w_q = round(w·k), and the Eqn. 2 sum of a layer is then its float sum times
//! c·k (c the input's scale), the bias entering as b_q·16 with b_q = round(b·c·k/16). The
//! hidden outputs are requantized by a right shift r. s, k1, r and k2 are chosen by
//! measuring the integer network's accuracy on training digits: this also picks scales for
//! which the 16-bit accumulator rarely saturates.
use super::data::{Digit, PIXELS};
use super::network::{Layer, Network};
use crate::argmax;
use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};

pub const HIDDEN: usize = 32;
const CLASSES: usize = 10;
const EPOCHS: usize = 30;
const BATCH: usize = 16;

/// A float dense layer, weights row-major (one row per neuron).
struct Dense {
    inputs: usize,
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Dense {
    fn new(rng: &mut SmallRng, inputs: usize, outputs: usize) -> Self {
        let limit = (6.0 / inputs as f32).sqrt();
        Self {
            inputs,
            w: (0..inputs * outputs)
                .map(|_| rng.gen_range(-limit..limit))
                .collect(),
            b: vec![0.0; outputs],
        }
    }

    fn forward(&self, x: &[f32]) -> Vec<f32> {
        self.w
            .chunks(self.inputs)
            .zip(&self.b)
            .map(|(row, b)| b + row.iter().zip(x).map(|(w, x)| w * x).sum::<f32>())
            .collect()
    }
}

/// The digit moved by (dx, dy) pixels, scaled to 0..1: training sees shifted copies, which
/// makes up for having only 4000 digits.
pub fn shifted(d: &Digit, dx: i32, dy: i32) -> Vec<f32> {
    let mut x = vec![0.0; PIXELS];
    for r in 0..28i32 {
        for c in 0..28i32 {
            let (sr, sc) = (r - dy, c - dx);
            if (0..28).contains(&sr) && (0..28).contains(&sc) {
                x[(r * 28 + c) as usize] = f32::from(d.pixels[(sr * 28 + sc) as usize]) / 255.0;
            }
        }
    }
    x
}

/// Float training: SGD with momentum on softmax cross-entropy, random shifts of up to one
/// pixel, learning rate decaying linearly.
fn train_float(digits: &[Digit], seed: u64) -> (Dense, Dense) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut l1, mut l2) = (
        Dense::new(&mut rng, PIXELS, HIDDEN),
        Dense::new(&mut rng, HIDDEN, CLASSES),
    );
    let (mut v1w, mut v1b, mut v2w, mut v2b) = (
        vec![0.0; l1.w.len()],
        vec![0.0; HIDDEN],
        vec![0.0; l2.w.len()],
        vec![0.0; CLASSES],
    );
    let mut order: Vec<usize> = (0..digits.len()).collect();
    for epoch in 0..EPOCHS {
        let lr = 0.05 * (1.0 - epoch as f32 / EPOCHS as f32) + 0.002;
        order.shuffle(&mut rng);
        for batch in order.chunks(BATCH) {
            let (mut g1w, mut g1b, mut g2w, mut g2b) = (
                vec![0.0; l1.w.len()],
                vec![0.0; HIDDEN],
                vec![0.0; l2.w.len()],
                vec![0.0; CLASSES],
            );
            for &i in batch {
                let x = shifted(&digits[i], rng.gen_range(-1..=1), rng.gen_range(-1..=1));
                let z1 = l1.forward(&x);
                let h: Vec<f32> = z1.iter().map(|&z| z.max(0.0)).collect();
                let z2 = l2.forward(&h);
                // Softmax cross-entropy: dL/dz2 = p - onehot.
                let m = z2.iter().fold(f32::MIN, |a, &b| a.max(b));
                let e: Vec<f32> = z2.iter().map(|&z| (z - m).exp()).collect();
                let sum: f32 = e.iter().sum();
                let d2: Vec<f32> = e
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| {
                        v / sum
                            - if k == usize::from(digits[i].label) {
                                1.0
                            } else {
                                0.0
                            }
                    })
                    .collect();
                let mut d1 = vec![0.0; HIDDEN];
                for (k, &d) in d2.iter().enumerate() {
                    g2b[k] += d;
                    for j in 0..HIDDEN {
                        g2w[k * HIDDEN + j] += d * h[j];
                        d1[j] += d * l2.w[k * HIDDEN + j];
                    }
                }
                for j in 0..HIDDEN {
                    let d = if z1[j] > 0.0 { d1[j] } else { 0.0 };
                    if d != 0.0 {
                        g1b[j] += d;
                        for (g, &xi) in g1w[j * PIXELS..(j + 1) * PIXELS].iter_mut().zip(&x) {
                            *g += d * xi;
                        }
                    }
                }
            }
            let scale = lr / batch.len() as f32;
            for (p, v, g) in [
                (&mut l1.w, &mut v1w, &g1w),
                (&mut l1.b, &mut v1b, &g1b),
                (&mut l2.w, &mut v2w, &g2w),
                (&mut l2.b, &mut v2b, &g2b),
            ] {
                for ((p, v), g) in p.iter_mut().zip(v.iter_mut()).zip(g) {
                    *v = 0.9 * *v - scale * g;
                    *p += *v;
                }
            }
        }
    }
    (l1, l2)
}

fn quantize_layer(layer: &Dense, k: f32, input_scale: f32, relu: bool, shift: u32) -> Layer {
    let q = |v: f32, limit: f32| (v.round()).clamp(-limit, limit - 1.0) as i8;
    Layer {
        weights: layer
            .w
            .chunks(layer.inputs)
            .map(|row| row.iter().map(|&w| q(w * k, 128.0)).collect())
            .collect(),
        biases: layer
            .b
            .iter()
            .map(|&b| q(b * input_scale * k / 16.0, 128.0))
            .collect(),
        relu,
        shift,
    }
}

/// Fraction of `digits` the integer network classifies correctly.
pub fn accuracy(network: &Network, digits: &[Digit]) -> f64 {
    let correct = digits
        .iter()
        .filter(|d| network.predict(&d.pixels) == usize::from(d.label))
        .count();
    correct as f64 / digits.len() as f64
}

/// Trains on `digits` and returns the quantized network with the best accuracy on them.
pub fn train(digits: &[Digit], seed: u64) -> Network {
    let (l1, l2) = train_float(digits, seed);
    let max_abs = |w: &[f32]| w.iter().fold(0.0f32, |a, &b| a.max(b.abs()));
    let (m1, m2) = (max_abs(&l1.w), max_abs(&l2.w));
    // Every fourth training digit calibrates: enough to rank the candidates.
    let calibration: Vec<Digit> = digits.iter().step_by(4).cloned().collect();
    let mut best: Option<(f64, Network)> = None;
    for input_shift in 1..=4u32 {
        let c1 = 255.0 / (1u32 << input_shift) as f32;
        for f1 in [1.0, 0.7, 0.5, 0.35, 0.25] {
            let k1 = 127.0 / m1 * f1;
            let first = quantize_layer(&l1, k1, c1, true, 0);
            let hidden: Vec<Vec<i16>> = calibration
                .iter()
                .map(|d| {
                    first.outputs(
                        &Network {
                            input_shift,
                            layers: vec![],
                        }
                        .inputs(&d.pixels),
                    )
                })
                .collect();
            for shift in 0..=10u32 {
                let c2 = c1 * k1 / (1u32 << shift) as f32;
                for f2 in [1.0, 0.5, 0.25] {
                    let second = quantize_layer(&l2, 127.0 / m2 * f2, c2, false, 0);
                    let correct = hidden
                        .iter()
                        .zip(&calibration)
                        .filter(|(h, d)| {
                            let x: Vec<i8> = h
                                .iter()
                                .map(|&v| super::network::requantize(v, shift))
                                .collect();
                            argmax(&second.outputs(&x)) == usize::from(d.label)
                        })
                        .count();
                    let acc = correct as f64 / calibration.len() as f64;
                    if best.as_ref().is_none_or(|(a, _)| acc > *a) {
                        let layers = vec![
                            Layer {
                                shift,
                                ..first.clone()
                            },
                            second,
                        ];
                        best = Some((
                            acc,
                            Network {
                                input_shift,
                                layers,
                            },
                        ));
                    }
                }
            }
        }
    }
    best.expect("candidates were tried").1
}
