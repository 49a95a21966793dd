//! The Ethos-U65's MNIST network: a small convolutional classifier trained here in floating
//! point on the same 4000 training digits as the MNIST chip's MLP (`crate::mnist::data`), then
//! quantized to TFLite's int8 scheme so that Vela can compile it and TFLite can check it.
//!
//! Shape: 28x28x1 → CONV 3x3x8 (SAME, ReLU) → MAX_POOL 2x2/2 → CONV 3x3x16 (SAME, ReLU) →
//! MAX_POOL 2x2/2 → RESHAPE 1x1x784 → FULLY_CONNECTED 784 → 10. Every operator is one Vela
//! puts on the NPU.
//!
//! Quantization (TFLite's post-training int8 scheme, which Vela expects): activations per
//! tensor, asymmetric, `real = scale · (q - zero_point)`, their ranges measured on training
//! digits; weights symmetric per output channel, `scale = max|w| / 127`; biases int32 in units
//! of `input_scale · weight_scale`. The input is the pixel, `real = pixel / 255`, so
//! `q = pixel - 128` with scale 1/255 and zero point -128 is exact.
use super::conv;
pub use super::cnn_training::{train_float, Activations, FloatCnn, FloatConv};
use super::network::{Kind, Network, Op, Operand, Quant, Weights, Window};
use super::tflite::{output_shape, Activation, ConvLayer, Padding};
use crate::mnist::data::Digit;
/// The digit's pixels scaled to 0..1 and moved by (dx, dy): the MLP's training input, reused.
pub use crate::mnist::train::shifted as pixels;

pub const CLASSES: usize = 10;

/// The quantized network: the three layers as [`ConvLayer`]s without input data, for the
/// integer reference (`conv::reference`): the dense layer as a 7x7 VALID convolution over the
/// pooled 7x7x16 map, the same sums as FULLY_CONNECTED on the flattened NHWC map with weights
/// in OHWI order. The pools keep their input's scale and zero point, as TFLite's MAX_POOL_2D
/// requires. [`QuantCnn::network`] gives the TFLite graph.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantCnn {
    pub conv1: ConvLayer,
    pub conv2: ConvLayer,
    pub dense: ConvLayer,
}

/// Asymmetric int8 parameters (scale, zero point) covering `lo..=hi` (which must hold 0).
fn activation_params(lo: f32, hi: f32) -> (f32, i8) {
    let (lo, hi) = (lo.min(0.0), hi.max(0.0));
    let scale = ((hi - lo) / 255.0).max(f32::MIN_POSITIVE);
    let zero_point = (-128.0 - lo / scale).round().clamp(-128.0, 127.0) as i8;
    (scale, zero_point)
}

fn quantize_layer(layer: &FloatConv, input: (f32, i8), output: (f32, i8), per_channel: bool) -> ConvLayer {
    let per_out = layer.weights.len() / layer.out_channels;
    let max_abs = |w: &[f32]| w.iter().fold(f32::MIN_POSITIVE, |a, &b| a.max(b.abs()));
    let weight_scales: Vec<f32> = if per_channel {
        layer.weights.chunks(per_out).map(|w| max_abs(w) / 127.0).collect()
    } else {
        vec![max_abs(&layer.weights) / 127.0; layer.out_channels]
    };
    let weights = layer
        .weights
        .iter()
        .enumerate()
        .map(|(i, &w)| (w / weight_scales[i / per_out]).round().clamp(-127.0, 127.0) as i8)
        .collect();
    let bias = layer.bias.iter().zip(&weight_scales).map(|(&b, &s)| (f64::from(b) / (f64::from(input.0) * f64::from(s))).round() as i32).collect();
    ConvLayer {
        input_shape: layer.input,
        input: Vec::new(),
        input_scale: input.0,
        input_zero_point: input.1,
        kernel: layer.kernel,
        out_channels: layer.out_channels,
        weights,
        weight_scales,
        bias,
        output_scale: output.0,
        output_zero_point: output.1,
        stride: (1, 1),
        dilation: (1, 1),
        padding: if layer.same { Padding::Same } else { Padding::Valid },
        activation: if layer.relu { Activation::Relu } else { Activation::None },
        depthwise: false,
    }
}

/// Quantizes `net` with activation ranges measured on `calibration` (the largest value of
/// each ReLU output, the logits' extremes). The input is exact: scale 1/255, zero point -128.
pub fn quantize(net: &FloatCnn, calibration: &[Digit]) -> QuantCnn {
    let (mut max1, mut max2, mut lo, mut hi) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for d in calibration {
        let a = net.forward(pixels(d, 0, 0));
        max1 = a.conv1.iter().fold(max1, |m, &v| m.max(v));
        max2 = a.conv2.iter().fold(max2, |m, &v| m.max(v));
        (lo, hi) = a.logits.iter().fold((lo, hi), |(l, h), &v| (l.min(v), h.max(v)));
    }
    let input = (1.0 / 255.0, -128);
    let (a1, a2, logits) = (activation_params(0.0, max1), activation_params(0.0, max2), activation_params(lo, hi));
    QuantCnn {
        conv1: quantize_layer(&net.conv1, input, a1, true),
        conv2: quantize_layer(&net.conv2, a1, a2, true),
        dense: quantize_layer(&net.dense, a2, logits, false),
    }
}

/// The project's network: trained on `training` digits with seed 1, calibrated on every
/// fourth of them. Deterministic (about 20 s in release mode).
pub fn trained(training: &[Digit]) -> QuantCnn {
    let calibration: Vec<Digit> = training.iter().step_by(4).cloned().collect();
    quantize(&train_float(training, 1), &calibration)
}

/// The digit as the network's int8 input: `pixel - 128`.
pub fn quantized_input(d: &Digit) -> Vec<i8> {
    d.pixels.iter().map(|&p| (i16::from(p) - 128) as i8).collect()
}

/// 2x2 max pooling with stride 2 on int8 NHWC data.
fn max_pool_q(x: &[i8], (h, w, c): (usize, usize, usize)) -> Vec<i8> {
    let mut out = Vec::with_capacity(h / 2 * (w / 2) * c);
    for oy in 0..h / 2 {
        for ox in 0..w / 2 {
            for ch in 0..c {
                out.push([(0, 0), (0, 1), (1, 0), (1, 1)].map(|(dy, dx)| x[((2 * oy + dy) * w + 2 * ox + dx) * c + ch]).into_iter().max().unwrap_or(i8::MIN));
            }
        }
    }
    out
}

impl QuantCnn {
    /// The network as the oracle and Vela take it, with `input` (a digit, [`quantized_input`]):
    /// the dense layer is a RESHAPE of the pooled 7x7x16 map to 1x1x784 and a FULLY_CONNECTED
    /// with one weight scale (per-tensor: TFLite's kernel then rounds twice, as Vela programs
    /// the NPU; per channel it would round once, docs/ethos.md).
    pub fn network(&self, input: Vec<i8>) -> Network {
        let quant = |layer: &ConvLayer| Quant { scale: layer.output_scale, zero_point: layer.output_zero_point };
        let weights = |layer: &ConvLayer, scales: Vec<f32>| Some(Weights { weights: layer.weights.clone(), scales, bias: layer.bias.clone() });
        let op = |kind, from: usize, shape: [usize; 3], layer: &ConvLayer| Op {
            kind,
            inputs: vec![Operand::Tensor(from)],
            shape,
            quant: quant(layer),
            activation: Activation::None,
            window: None,
            weights: None,
        };
        let conv = |layer: &ConvLayer, from: usize| Op {
            activation: layer.activation,
            window: Some(Window { kernel: layer.kernel, stride: layer.stride, padding: layer.padding, dilation: (1, 1) }),
            weights: weights(layer, layer.weight_scales.clone()),
            ..op(Kind::Conv2d, from, output_shape(layer).into(), layer)
        };
        let pool = |layer: &ConvLayer, from: usize| {
            let (h, w, c) = output_shape(layer);
            Op { window: Some(Window { kernel: (2, 2), stride: (2, 2), padding: Padding::Valid, dilation: (1, 1) }), ..op(Kind::MaxPool2d, from, [h / 2, w / 2, c], layer) }
        };
        let (h, w, c) = self.dense.input_shape;
        let dense = Op {
            activation: self.dense.activation,
            weights: weights(&self.dense, vec![self.dense.weight_scales[0]]),
            ..op(Kind::FullyConnected, 5, [1, 1, self.dense.out_channels], &self.dense)
        };
        Network {
            input_shape: self.conv1.input_shape.into(),
            input_quant: Quant { scale: self.conv1.input_scale, zero_point: self.conv1.input_zero_point },
            input,
            ops: vec![conv(&self.conv1, 0), pool(&self.conv1, 1), conv(&self.conv2, 2), pool(&self.conv2, 3), op(Kind::Reshape, 4, [1, 1, h * w * c], &self.conv2), dense],
        }
    }

    /// The int8 logits by the project's integer reference of TFLite's kernels (`conv::reference`).
    pub fn logits(&self, input: Vec<i8>) -> Vec<i8> {
        let run = |layer: &ConvLayer, input: Vec<i8>| conv::reference(&ConvLayer { input, ..layer.clone() });
        let pool1 = max_pool_q(&run(&self.conv1, input), output_shape(&self.conv1));
        let pool2 = max_pool_q(&run(&self.conv2, pool1), output_shape(&self.conv2));
        run(&self.dense, pool2)
    }
}

/// One classification run ([`classify`]): how many digits were right, and the first digit
/// whose logits from the command stream differ from TFLite's, if any.
#[derive(Clone, Debug)]
pub struct Classified {
    pub digits: usize,
    pub correct: usize,
    /// (digit index, label, what ran the stream, its logits, TFLite's).
    pub first_difference: Option<(usize, u8, &'static str, Vec<i8>, Vec<i8>)>,
    /// Command-stream words and operations of the compiled network.
    pub stream_words: usize,
    pub operations: usize,
    /// Digits whose logits differ from TFLite's own FULLY_CONNECTED kernel, which rounds
    /// once where the NPU, as Vela programs it, rounds twice; and the largest difference.
    pub fully_connected_rounding: usize,
    pub largest_rounding_difference: i32,
    /// On the NPU: each digit's cycles from the start command to STATUS stopped, and the
    /// first digit's report (one row per operation with the kernel unit's cycles, Vela's
    /// estimate). Empty and None on the reference executor alone.
    pub npu_cycles: Vec<u64>,
    /// Wall-clock seconds of the NPU runs alone (opening the Verilated NPU included).
    pub npu_seconds: f64,
    pub first_report: Option<super::run::Report>,
}

/// Classifies `digits` with `cnn` as an Ethos-U65 runs it: Vela compiles the network with
/// `core`, and the reference executor ([`super::executor`]) runs the command stream once per
/// digit over a fresh memory image; with `engine`, the NPU runs it too, as `npu ethos run`
/// does ([`super::run::npu_output`]: the Verilated NPU in lock step with its model, or the
/// model alone; the digit's index seeds the Verilated NPU's power-up state). Every digit's
/// logits (the executor's and the NPU's) are compared with TFLite's (reference kernels) on the
/// uncompiled network with its FULLY_CONNECTED written as the CONV_2D 1x1 that computes the
/// same sums ([`Network::with_fully_connected_as_conv`]: the arithmetic Vela programs for it),
/// and counted where they differ from TFLite's FULLY_CONNECTED kernel.
pub fn classify(
    cnn: &QuantCnn,
    digits: &[&Digit],
    core: super::tflite::VelaCore,
    tflite: &super::tflite::TfLite,
    engine: Option<&super::run::Engine>,
) -> Result<Classified, super::run::RunError> {
    use super::command_stream::{decode, DriverPayload};
    use super::executor::{execute, Memory};
    use super::run::{npu_output, rows, Report};
    let networks: Vec<Network> = digits.iter().map(|d| cnn.network(quantized_input(d))).collect();
    let first = networks.first().ok_or("no digits to classify".to_string())?;
    let as_conv: Vec<Network> = networks.iter().map(Network::with_fully_connected_as_conv).collect();
    let expected = tflite.run_networks(&as_conv)?;
    let fully_connected = tflite.run_networks(&networks)?;
    let model = tflite.compile_networks(std::slice::from_ref(first), core)?.remove(0).map_err(|e| format!("Vela ({} core): {e}", core.name()))?;
    let stream = DriverPayload::parse(&model.cmd_data).map_err(|e| e.to_string())?.stream;
    let operations = super::operation::operations(&decode(&stream).map_err(|e| e.to_string())?);
    let output = model.outputs.first().ok_or("the compiled model has no output".to_string())?;
    let mut run = Classified {
        digits: digits.len(),
        correct: 0,
        first_difference: None,
        stream_words: stream.len(),
        operations: operations.len(),
        fully_connected_rounding: 0,
        largest_rounding_difference: 0,
        npu_cycles: Vec::new(),
        npu_seconds: 0.0,
        first_report: None,
    };
    for (k, ((d, want), tflite_fc)) in digits.iter().zip(&expected).zip(&fully_connected).enumerate() {
        let input: Vec<u8> = quantized_input(d).iter().map(|&v| v as u8).collect();
        let image = Memory::load(&model, &input)?;
        let mut memory = image.clone();
        let done = execute(&operations, &mut memory).map_err(|e| format!("digit {k}: {e}"))?;
        let got: Vec<i8> = memory.tensor(output)?.iter().map(|&b| b as i8).collect();
        if got != *want && run.first_difference.is_none() {
            run.first_difference = Some((k, d.label, "the reference executor", got.clone(), want.clone()));
        }
        if let Some(engine) = engine {
            let start = std::time::Instant::now();
            let (on_npu, outcome) = npu_output(&image, &stream, &operations, k as u64, engine, output)?;
            run.npu_seconds += start.elapsed().as_secs_f64();
            if on_npu != *want && run.first_difference.is_none() {
                run.first_difference = Some((k, d.label, "the NPU", on_npu, want.clone()));
            }
            run.npu_cycles.push(outcome.cycles);
            if run.first_report.is_none() {
                run.first_report = Some(Report {
                    rows: rows(&operations, &done, &outcome.kernels),
                    stream_words: stream.len(),
                    cycles: outcome.cycles,
                    compared: want.len(),
                    reference: "TFLite's reference kernels",
                    estimate: model.estimate.clone(),
                });
            }
        }
        run.correct += usize::from(crate::argmax(&got) == usize::from(d.label));
        let largest = got.iter().zip(tflite_fc).map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs()).max().unwrap_or(0);
        run.fully_connected_rounding += usize::from(largest > 0);
        run.largest_rounding_difference = run.largest_rounding_difference.max(largest);
    }
    Ok(run)
}
