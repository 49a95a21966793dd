//! The float side of the Ethos-U65's MNIST network (`super::mnist_cnn`): its layers, forward
//! pass, backward pass and SGD training, in plain f32. Kept apart from the quantization and the
//! NPU runs because nothing here is int8 or touches Vela; `mnist_cnn` quantizes what this
//! trains.

use super::mnist_cnn::{pixels, CLASSES};
use crate::mnist::data::Digit;
use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};

const EPOCHS: usize = 6;
const BATCH: usize = 16;

/// A float convolution, weights OHWI (`out · kh · kw · in`, input channel fastest), SAME
/// padding, stride 1, or a dense layer (a VALID convolution whose kernel covers its input).
#[derive(Clone, Debug)]
pub struct FloatConv {
    /// Input (h, w, c).
    pub input: (usize, usize, usize),
    pub kernel: (usize, usize),
    pub out_channels: usize,
    /// SAME padding (else VALID).
    pub same: bool,
    pub relu: bool,
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

impl FloatConv {
    fn new(rng: &mut SmallRng, input: (usize, usize, usize), kernel: (usize, usize), out_channels: usize, same: bool, relu: bool) -> Self {
        let fan_in = kernel.0 * kernel.1 * input.2;
        let limit = (6.0 / fan_in as f32).sqrt();
        Self {
            input,
            kernel,
            out_channels,
            same,
            relu,
            weights: (0..fan_in * out_channels).map(|_| rng.gen_range(-limit..limit)).collect(),
            bias: vec![0.0; out_channels],
        }
    }

    pub fn output(&self) -> (usize, usize, usize) {
        let (h, w, _) = self.input;
        if self.same {
            (h, w, self.out_channels)
        } else {
            (h - self.kernel.0 + 1, w - self.kernel.1 + 1, self.out_channels)
        }
    }

    /// Top and left padding: SAME with stride 1 puts `(k - 1) / 2` before.
    fn offset(&self) -> (isize, isize) {
        if self.same {
            (((self.kernel.0 - 1) / 2) as isize, ((self.kernel.1 - 1) / 2) as isize)
        } else {
            (0, 0)
        }
    }

    /// Calls `f(output index, input index, weight index)` for every product of the layer.
    fn for_each_tap(&self, mut f: impl FnMut(usize, usize, usize)) {
        let (h, w, c) = self.input;
        let (oh, ow, oc) = self.output();
        let (kh, kw) = self.kernel;
        let (top, left) = self.offset();
        for oy in 0..oh {
            for ox in 0..ow {
                for ky in 0..kh {
                    let y = oy as isize + ky as isize - top;
                    if y < 0 || y >= h as isize {
                        continue;
                    }
                    for kx in 0..kw {
                        let x = ox as isize + kx as isize - left;
                        if x < 0 || x >= w as isize {
                            continue;
                        }
                        let input = (y as usize * w + x as usize) * c;
                        for o in 0..oc {
                            let weight = ((o * kh + ky) * kw + kx) * c;
                            let out = (oy * ow + ox) * oc + o;
                            for i in 0..c {
                                f(out, input + i, weight + i);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The pre-activation sums, NHWC.
    fn forward(&self, x: &[f32]) -> Vec<f32> {
        let (oh, ow, oc) = self.output();
        let mut z: Vec<f32> = (0..oh * ow * oc).map(|i| self.bias[i % oc]).collect();
        self.for_each_tap(|o, i, w| z[o] += x[i] * self.weights[w]);
        z
    }
}

/// 2x2 max pooling with stride 2 over an even-sized NHWC map; `argmax` remembers the
/// input each output came from, for the backward pass.
fn max_pool(x: &[f32], (h, w, c): (usize, usize, usize)) -> (Vec<f32>, Vec<usize>) {
    let (oh, ow) = (h / 2, w / 2);
    let mut out = Vec::with_capacity(oh * ow * c);
    let mut argmax = Vec::with_capacity(oh * ow * c);
    for oy in 0..oh {
        for ox in 0..ow {
            for ch in 0..c {
                let candidates = [(0, 0), (0, 1), (1, 0), (1, 1)].map(|(dy, dx)| ((2 * oy + dy) * w + 2 * ox + dx) * c + ch);
                let best = candidates.into_iter().fold(candidates[0], |a, b| if x[b] > x[a] { b } else { a });
                out.push(x[best]);
                argmax.push(best);
            }
        }
    }
    (out, argmax)
}

/// The float network: two convolutions with pooling, then the dense layer.
#[derive(Clone, Debug)]
pub struct FloatCnn {
    pub conv1: FloatConv,
    pub conv2: FloatConv,
    pub dense: FloatConv,
}

/// Every intermediate tensor of one forward pass (NHWC), kept for training and calibration.
pub struct Activations {
    pub input: Vec<f32>,
    pub conv1: Vec<f32>,
    pub pool1: Vec<f32>,
    pub conv2: Vec<f32>,
    pub pool2: Vec<f32>,
    pub logits: Vec<f32>,
    argmax1: Vec<usize>,
    argmax2: Vec<usize>,
}

fn relu(mut z: Vec<f32>) -> Vec<f32> {
    z.iter_mut().for_each(|v| *v = v.max(0.0));
    z
}

impl FloatCnn {
    fn new(rng: &mut SmallRng) -> Self {
        Self {
            conv1: FloatConv::new(rng, (28, 28, 1), (3, 3), 8, true, true),
            conv2: FloatConv::new(rng, (14, 14, 8), (3, 3), 16, true, true),
            dense: FloatConv::new(rng, (7, 7, 16), (7, 7), CLASSES, false, false),
        }
    }

    pub fn forward(&self, input: Vec<f32>) -> Activations {
        let conv1 = relu(self.conv1.forward(&input));
        let (pool1, argmax1) = max_pool(&conv1, self.conv1.output());
        let conv2 = relu(self.conv2.forward(&pool1));
        let (pool2, argmax2) = max_pool(&conv2, self.conv2.output());
        let logits = self.dense.forward(&pool2);
        Activations { input, conv1, pool1, conv2, pool2, logits, argmax1, argmax2 }
    }
}

/// Gradients of one layer.
struct Gradient {
    weights: Vec<f32>,
    bias: Vec<f32>,
}

impl Gradient {
    fn zero(layer: &FloatConv) -> Self {
        Self { weights: vec![0.0; layer.weights.len()], bias: vec![0.0; layer.bias.len()] }
    }

    /// Adds the gradient of `layer` for output gradient `dz` and input `x`; returns the input's
    /// gradient when `propagate`.
    fn add(&mut self, layer: &FloatConv, x: &[f32], dz: &[f32], propagate: bool) -> Vec<f32> {
        let oc = layer.out_channels;
        for (o, d) in dz.iter().enumerate() {
            self.bias[o % oc] += d;
        }
        let mut dx = vec![0.0; if propagate { x.len() } else { 0 }];
        layer.for_each_tap(|o, i, w| {
            let d = dz[o];
            if d != 0.0 {
                self.weights[w] += d * x[i];
                if propagate {
                    dx[i] += d * layer.weights[w];
                }
            }
        });
        dx
    }
}

/// The gradient through a ReLU and a 2x2 max pool back to the pre-activation sums.
fn unpool_relu(d_pooled: &[f32], argmax: &[usize], z: &[f32]) -> Vec<f32> {
    let mut dz = vec![0.0; z.len()];
    for (d, &from) in d_pooled.iter().zip(argmax) {
        if z[from] > 0.0 {
            dz[from] += d;
        }
    }
    dz
}

/// Float training: SGD with momentum on softmax cross-entropy, random shifts of up to one
/// pixel, learning rate decaying linearly. Deterministic for a seed.
pub fn train_float(digits: &[Digit], seed: u64) -> FloatCnn {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut net = FloatCnn::new(&mut rng);
    let mut velocity: Vec<Gradient> = [&net.conv1, &net.conv2, &net.dense].map(Gradient::zero).into();
    let mut order: Vec<usize> = (0..digits.len()).collect();
    for epoch in 0..EPOCHS {
        let lr = 0.03 * (1.0 - epoch as f32 / EPOCHS as f32) + 0.002;
        order.shuffle(&mut rng);
        for batch in order.chunks(BATCH) {
            let mut grads: Vec<Gradient> = [&net.conv1, &net.conv2, &net.dense].map(Gradient::zero).into();
            for &i in batch {
                let a = net.forward(pixels(&digits[i], rng.gen_range(-1..=1), rng.gen_range(-1..=1)));
                // Softmax cross-entropy: dL/dlogits = p - onehot.
                let m = a.logits.iter().fold(f32::MIN, |x, &y| x.max(y));
                let e: Vec<f32> = a.logits.iter().map(|&z| (z - m).exp()).collect();
                let sum: f32 = e.iter().sum();
                let d_logits: Vec<f32> =
                    e.iter().enumerate().map(|(k, &v)| v / sum - f32::from(k == usize::from(digits[i].label))).collect();
                let d_pool2 = grads[2].add(&net.dense, &a.pool2, &d_logits, true);
                let d_conv2 = unpool_relu(&d_pool2, &a.argmax2, &a.conv2);
                let d_pool1 = grads[1].add(&net.conv2, &a.pool1, &d_conv2, true);
                let d_conv1 = unpool_relu(&d_pool1, &a.argmax1, &a.conv1);
                grads[0].add(&net.conv1, &a.input, &d_conv1, false);
            }
            let scale = lr / batch.len() as f32;
            for ((layer, v), g) in [&mut net.conv1, &mut net.conv2, &mut net.dense].into_iter().zip(&mut velocity).zip(&grads) {
                for (p, v, g) in [(&mut layer.weights, &mut v.weights, &g.weights), (&mut layer.bias, &mut v.bias, &g.bias)] {
                    for ((p, v), g) in p.iter_mut().zip(v.iter_mut()).zip(g) {
                        *v = 0.9 * *v - scale * g;
                        *p += *v;
                    }
                }
            }
        }
    }
    net
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The backward pass against finite differences of L = Σ dz·z on a small SAME convolution:
    /// the weight, bias and input gradients.
    #[test]
    fn convolution_gradients_equal_finite_differences() {
        let mut rng = SmallRng::seed_from_u64(7);
        let layer = FloatConv::new(&mut rng, (4, 5, 3), (3, 3), 2, true, false);
        let x: Vec<f32> = (0..4 * 5 * 3).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let dz: Vec<f32> = (0..4 * 5 * 2).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let loss = |l: &FloatConv, x: &[f32]| l.forward(x).iter().zip(&dz).map(|(z, d)| f64::from(z * d)).sum::<f64>();
        let mut g = Gradient::zero(&layer);
        let dx = g.add(&layer, &x, &dz, true);
        let h = 1e-2f32;
        let close = |numeric: f64, analytic: f32, what: &str| {
            assert!((numeric - f64::from(analytic)).abs() < 1e-2, "{what}: finite difference {numeric}, backward {analytic}")
        };
        for i in 0..layer.weights.len() {
            let (mut up, mut down) = (layer.clone(), layer.clone());
            up.weights[i] += h;
            down.weights[i] -= h;
            close((loss(&up, &x) - loss(&down, &x)) / f64::from(2.0 * h), g.weights[i], &format!("weight {i}"));
        }
        for o in 0..2 {
            let (mut up, mut down) = (layer.clone(), layer.clone());
            up.bias[o] += h;
            down.bias[o] -= h;
            close((loss(&up, &x) - loss(&down, &x)) / f64::from(2.0 * h), g.bias[o], &format!("bias {o}"));
        }
        for i in 0..x.len() {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[i] += h;
            down[i] -= h;
            close((loss(&layer, &up) - loss(&layer, &down)) / f64::from(2.0 * h), dx[i], &format!("input {i}"));
        }
    }

    #[test]
    fn max_pool_gradient_goes_to_the_largest_positive_input() {
        // One 2x2 window per channel, 2 channels: the gradient reaches the maximum only,
        // and not at all when that maximum was cut by the ReLU.
        let x = [0.5, -1.0, 0.1, -0.5, 0.9, -0.2, 0.2, -0.1];
        let (pooled, argmax) = max_pool(&x, (2, 2, 2));
        assert_eq!(pooled, [0.9, -0.1]);
        assert_eq!(unpool_relu(&[1.0, 1.0], &argmax, &x), [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    }
}
