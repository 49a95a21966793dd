//! Small quantized int8 networks (batch 1, NHWC) as the oracle sees them: a graph of TFLite
//! operators that `tflite_oracle.py` builds into a `.tflite` model with Vela's flatbuffer
//! builders (the helpers that build the one-layer models of [`crate::ethos::tflite`]), runs
//! in TFLite's interpreter with the reference kernels (checking every operator ran as
//! itself), and compiles with Vela 5.2 for ethos-u65-256 in the same process (many networks
//! per Python process: about 20 ms a compile instead of a second for a `vela` process).
//!
//! A network is serialized to the script as JSON ([`Network::to_json`]); tensor 0 is the
//! input, operator `i` writes tensor `i + 1`, the last operator's tensor is the output.
//! [`random_network`] draws the networks the executor's tests run.
use super::tflite::{Activation, Padding, TfLite, VelaCore};
use rand::seq::SliceRandom;
use rand::Rng;
use serde::Deserialize;
use serde_json::{json, Value};

/// Quantization of a tensor: real = `scale * (q - zero_point)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quant {
    pub scale: f32,
    pub zero_point: i8,
}

/// The operators a network may hold (TFLite's builtin names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Conv2d,
    DepthwiseConv2d,
    MaxPool2d,
    AveragePool2d,
    Add,
    Sub,
    Mul,
    Maximum,
    Minimum,
    /// With `keep_num_dims`: the last axis times a units x channels matrix at each (y, x),
    /// so a classifier is this on a 1x1 tensor (no RESHAPE needed).
    FullyConnected,
    /// A new shape for the same NHWC bytes (a flatten before a FULLY_CONNECTED); not drawn
    /// by [`random_network`]: Vela turns it into no command at all.
    Reshape,
    /// Height and width times 2, 4 or 8 (align_corners false; half_pixel_centers as drawn,
    /// which gives the same integer positions at these factors). Vela 5.2 lowers it to one
    /// POOL average 1x1 over the IFM upscaled 2x2 by nearest neighbour (IFM_UPSCALE 1) per
    /// factor 2 (docs/ethos.md, "IFM upscale").
    ResizeNearestNeighbor { half_pixel_centers: bool },
    /// Height and width times 2, 4 or 8 (align_corners and half_pixel_centers false, the
    /// only form Vela 5.2 puts on the NPU at these factors): 1x1 nearest-upscale pools, then
    /// an average pool of `factor x factor` padded right and bottom by `factor - 1` over the
    /// last 2x2 nearest upscale.
    ResizeBilinear,
    /// RESIZE_NEAREST_NEIGHBOR with align_corners: a side `n` to `(n - 1)·factor + 1`, factor
    /// 2, 4 or 8 (a side of 1 stays 1). Vela 5.2 lowers it to 1x1 nearest-upscale pools, then a
    /// DEPTHWISE `factor x factor` over the last 2x2 nearest upscale (IFM_UPSCALE 1) whose one
    /// non-zero weight selects the element (`convert_resizenn_ac_to_depthwise_conv`); drawn
    /// only by the tests that name it.
    ResizeNearestNeighborAlignCorners,
    /// A transposed convolution (OHWI weights, per-channel scales, bias), stride 2x2 as
    /// drawn (see [`random_network`]), SAME (output `input·stride`) or VALID (`(input - 1)·stride + kernel`). Vela 5.2
    /// lowers stride 2 to a CONV stride 1 over the IFM upscaled 2x2 by zero insertion
    /// (IFM_UPSCALE 2; docs/ethos.md, "IFM upscale"); drawn only by the tests that name it.
    TransposeConv,
}

impl Kind {
    /// Every operator [`random_network`] draws by default (not the resizes, drawn by the
    /// tests that name them: [`Kind::RESIZES`]).
    pub const ALL: [Kind; 10] = [
        Kind::Conv2d,
        Kind::DepthwiseConv2d,
        Kind::MaxPool2d,
        Kind::AveragePool2d,
        Kind::Add,
        Kind::Sub,
        Kind::Mul,
        Kind::Maximum,
        Kind::Minimum,
        Kind::FullyConnected,
    ];

    /// The resize operators Vela lowers with IFM_UPSCALE.
    pub const RESIZES: [Kind; 3] = [
        Kind::ResizeNearestNeighbor { half_pixel_centers: false },
        Kind::ResizeNearestNeighbor { half_pixel_centers: true },
        Kind::ResizeBilinear,
    ];

    /// TFLite's name of the builtin operator.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Conv2d => "CONV_2D",
            Kind::DepthwiseConv2d => "DEPTHWISE_CONV_2D",
            Kind::MaxPool2d => "MAX_POOL_2D",
            Kind::AveragePool2d => "AVERAGE_POOL_2D",
            Kind::Add => "ADD",
            Kind::Sub => "SUB",
            Kind::Mul => "MUL",
            Kind::Maximum => "MAXIMUM",
            Kind::Minimum => "MINIMUM",
            Kind::FullyConnected => "FULLY_CONNECTED",
            Kind::Reshape => "RESHAPE",
            Kind::ResizeNearestNeighbor { .. } | Kind::ResizeNearestNeighborAlignCorners => "RESIZE_NEAREST_NEIGHBOR",
            Kind::ResizeBilinear => "RESIZE_BILINEAR",
            Kind::TransposeConv => "TRANSPOSE_CONV",
        }
    }

    /// Two operands.
    pub fn elementwise(self) -> bool {
        matches!(self, Kind::Add | Kind::Sub | Kind::Mul | Kind::Maximum | Kind::Minimum)
    }

    /// A fused activation is part of TFLite's options (MAXIMUM and MINIMUM have none).
    fn fuses_activation(self) -> bool {
        !matches!(self, Kind::Maximum | Kind::Minimum | Kind::Reshape | Kind::ResizeNearestNeighbor { .. } | Kind::ResizeNearestNeighborAlignCorners | Kind::ResizeBilinear)
    }

    /// A RESIZE_NEAREST_NEIGHBOR or RESIZE_BILINEAR.
    pub fn resize(self) -> bool {
        matches!(self, Kind::ResizeNearestNeighbor { .. } | Kind::ResizeNearestNeighborAlignCorners | Kind::ResizeBilinear)
    }
}

/// A constant operand: its shape (4-D, batch 1, broadcast where a side is 1), data, quantization.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub shape: [usize; 3],
    pub data: Vec<i8>,
    pub quant: Quant,
}

/// An operand: an earlier tensor of the network, or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Tensor(usize),
    Constant(Constant),
}

/// Kernel window of convolutions and pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// (height, width).
    pub kernel: (usize, usize),
    /// (y, x).
    pub stride: (usize, usize),
    pub padding: Padding,
    /// (y, x); 1 but for convolutions.
    pub dilation: (usize, usize),
}

/// Weights of a convolution: conv OHWI, depthwise 1HWC, fully connected OI; biases per
/// output channel, scales per output channel or one for all (per-tensor quantization).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub weights: Vec<i8>,
    pub scales: Vec<f32>,
    pub bias: Vec<i32>,
}

/// One operator and the tensor it writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub kind: Kind,
    pub inputs: Vec<Operand>,
    /// (h, w, c) of the output.
    pub shape: [usize; 3],
    pub quant: Quant,
    pub activation: Activation,
    pub window: Option<Window>,
    pub weights: Option<Weights>,
}

/// A network: its input and operators (tensor 0 is the input, operator i writes tensor i + 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub input_shape: [usize; 3],
    pub input_quant: Quant,
    pub input: Vec<i8>,
    pub ops: Vec<Op>,
}

fn quant_json(shape: &[usize], q: Quant) -> Value {
    json!({"shape": shape, "scale": q.scale, "zero_point": q.zero_point})
}

fn activation_code(a: Activation) -> u32 {
    match a {
        Activation::None => 0,
        Activation::Relu => 1,
        Activation::ReluN1To1 => 2,
        Activation::Relu6 => 3,
    }
}

impl Network {
    /// Shape and quantization of tensor `t`.
    pub fn tensor(&self, t: usize) -> ([usize; 3], Quant) {
        match t {
            0 => (self.input_shape, self.input_quant),
            _ => (self.ops[t - 1].shape, self.ops[t - 1].quant),
        }
    }

    /// The output's (h, w, c).
    pub fn output_shape(&self) -> [usize; 3] {
        self.tensor(self.ops.len()).0
    }

    /// The request `tflite_oracle.py` reads (`network run` / `network compile`).
    pub fn to_json(&self) -> Value {
        let mut input = quant_json(&self.input_shape, self.input_quant);
        input["data"] = json!(self.input);
        let ops: Vec<Value> = self
            .ops
            .iter()
            .map(|op| {
                let inputs: Vec<Value> = op
                    .inputs
                    .iter()
                    .map(|o| match o {
                        Operand::Tensor(t) => json!({"Tensor": t}),
                        Operand::Constant(c) => {
                            let shape = [1, c.shape[0], c.shape[1], c.shape[2]];
                            let mut v = quant_json(&shape, c.quant);
                            v["data"] = json!(c.data);
                            json!({ "Constant": v })
                        }
                    })
                    .collect();
                let mut v = json!({
                    "kind": op.kind.name(),
                    "inputs": inputs,
                    "output": quant_json(&op.shape, op.quant),
                    "activation": activation_code(op.activation),
                });
                if op.kind.resize() {
                    v["align_corners"] = json!(op.kind == Kind::ResizeNearestNeighborAlignCorners);
                    v["half_pixel_centers"] = json!(op.kind == Kind::ResizeNearestNeighbor { half_pixel_centers: true });
                }
                if let Some(w) = op.window {
                    v["kernel"] = json!([w.kernel.0, w.kernel.1]);
                    v["stride"] = json!([w.stride.0, w.stride.1]);
                    v["dilation"] = json!([w.dilation.0, w.dilation.1]);
                    v["padding"] = json!(match w.padding {
                        Padding::Same => 0,
                        Padding::Valid => 1,
                    });
                }
                if let Some(w) = &op.weights {
                    v["weights"] = json!(w.weights);
                    v["weight_scales"] = json!(w.scales);
                    v["bias"] = json!(w.bias);
                }
                v
            })
            .collect();
        json!({"input": input, "ops": ops})
    }

    /// The network with every FULLY_CONNECTED written as the CONV_2D 1x1 (stride 1, VALID)
    /// that computes the same sums: the arithmetic Vela programs for a fully connected layer.
    /// TFLite's own FULLY_CONNECTED rounds once (its per-channel kernel scales with the int64
    /// `MultiplyByQuantizedMultiplier`), where its CONV_2D and the NPU's output unit, as Vela
    /// programs it (OFM_PRECISION rounding TFL), round twice; Vela's lowering cannot equal
    /// TFLite there bit for bit (docs/ethos.md, `tests/ethos_network.rs`
    /// `fully_connected_rounds_once_in_tflite_twice_on_the_npu`), so a network's fully
    /// connected layers are checked against this form.
    pub fn with_fully_connected_as_conv(&self) -> Network {
        let mut net = self.clone();
        for op in net.ops.iter_mut().filter(|op| op.kind == Kind::FullyConnected) {
            op.kind = Kind::Conv2d;
            op.window = Some(Window { kernel: (1, 1), stride: (1, 1), padding: Padding::Valid, dilation: (1, 1) });
        }
        net
    }

    /// The scale/bias record of every FULLY_CONNECTED output channel in the two forms Vela
    /// writes: `(float32, double)`, each Vela's 10-byte record (`encode_bias`: bias int40,
    /// scale uint32, shift 6 bits, little endian) of `quantise_scale(real)` (the significand
    /// rounded half away from zero to 31 bits, shift `31 - exponent`, scale 0 and shift 16
    /// outside 0..64). Vela 5.2's legacy core (`weight_compressor.py`, `_prepare_scale_and_bias`)
    /// takes `real = f64(f32(ifm_scale * weight_scale)) / f64(ofm_scale)` for a FULLY_CONNECTED
    /// (its comment: "TensorFlow Lite casts the scales slightly differently ... for
    /// FullyConnected operators"), the product rounded to float32; Regor does so where the
    /// weights have one scale (per tensor, or a single unit) and takes
    /// `f64(ifm_scale) * f64(weight_scale) / f64(ofm_scale)` for per-channel weights, as TFLite's
    /// CONV_2D does (the form a FULLY_CONNECTED is compared with). The multipliers differ in their low bits
    /// (docs/ethos.md, "Vela scales a FULLY_CONNECTED from a float32 product";
    /// `tests/ethos_network.rs`).
    pub fn fully_connected_scale_records(&self) -> Vec<([u8; 10], [u8; 10])> {
        fn record(bias: i32, real: f64) -> [u8; 10] {
            let (significand, exponent) = crate::ethos::conv::frexp(real);
            let (scale, shift) = match 31 - exponent {
                shift @ 0..=63 => ((significand * (1u64 << 31) as f64).round() as u32, shift as u8),
                _ => (0, 16),
            };
            crate::ethos::conv_datapath::scale_bias_record(bias, scale, shift)
        }
        let mut records = Vec::new();
        for op in self.ops.iter().filter(|op| op.kind == Kind::FullyConnected) {
            let Some(Operand::Tensor(t)) = op.inputs.first() else { continue };
            let (ifm, ofm) = (self.tensor(*t).1.scale, op.quant.scale);
            let w = op.weights.as_ref().expect("a FULLY_CONNECTED has weights");
            for (c, &bias) in w.bias.iter().enumerate() {
                let ws = w.scales[if w.scales.len() == 1 { 0 } else { c }];
                let float32 = f64::from(ifm * ws) / f64::from(ofm);
                let double = f64::from(ifm) * f64::from(ws) / f64::from(ofm);
                records.push((record(bias, float32), record(bias, double)));
            }
        }
        records
    }

    /// One line per operator, for messages.
    pub fn describe(&self) -> String {
        let mut s = format!("input {:?} {:?}\n", self.input_shape, self.input_quant);
        for (i, op) in self.ops.iter().enumerate() {
            let inputs: Vec<String> = op
                .inputs
                .iter()
                .map(|o| match o {
                    Operand::Tensor(t) => format!("t{t}"),
                    Operand::Constant(c) => format!("const {:?} {:?}", c.shape, c.quant),
                })
                .collect();
            s += &format!(
                "t{} = {}({}) -> {:?} {:?} {:?}",
                i + 1,
                op.kind.name(),
                inputs.join(", "),
                op.shape,
                op.quant,
                op.activation
            );
            if let Some(w) = op.window {
                s += &format!(" kernel {:?} stride {:?} dilation {:?} {:?}", w.kernel, w.stride, w.dilation, w.padding);
            }
            if let Some(w) = &op.weights {
                s += &format!(" weight scales {:?}", w.scales);
            }
            s += "\n";
        }
        s
    }
}

/// Where a model input or output lives in the compiled model's memory.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Placement {
    pub region: u32,
    pub offset: u64,
    pub shape: Vec<usize>,
    pub elem_size: usize,
}

impl Placement {
    /// Bytes of the tensor.
    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.elem_size
    }
}

/// A model as Vela compiled it (the fields of its raw `.npz`, `rawdata_writer.py`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct CompiledModel {
    /// The driver payload (`npu::ethos::command_stream::DriverPayload`).
    pub cmd_data: Vec<u8>,
    /// The read-only region's bytes (weights, scales, constants).
    pub weight_data: Vec<u8>,
    pub weight_region: u32,
    pub scratch_region: u32,
    pub scratch_size: usize,
    pub scratch_fast_region: u32,
    pub scratch_fast_size: usize,
    pub inputs: Vec<Placement>,
    pub outputs: Vec<Placement>,
    /// The command lines of Vela's `--verbose-register-command-stream` listing.
    pub listing: String,
    /// Vela's performance estimate per operation (empty for a file Vela had already compiled).
    #[serde(default)]
    pub estimate: Vec<crate::ethos::tflite::OpEstimate>,
    /// Vela's "CPU operators = N" (None if it printed no such line).
    pub cpu_operators: Option<usize>,
}

#[derive(Deserialize)]
enum CompileAnswer {
    Compiled(CompiledModel),
    Refused(String),
}

impl TfLite {
    /// TFLite's output (NHWC, flattened) of each network, reference kernels, one Python process.
    pub fn run_networks(&self, networks: &[Network]) -> Result<Vec<Vec<i8>>, String> {
        let outputs: Vec<Vec<i8>> = self.json_call(&["network", "run"], networks)?;
        for (i, (n, out)) in networks.iter().zip(&outputs).enumerate() {
            let want: usize = n.output_shape().iter().product();
            if out.len() != want {
                return Err(format!("network {i}: TFLite gave {} output values, not {want}", out.len()));
            }
        }
        Ok(outputs)
    }

    /// Each network compiled by Vela with `core`, or Vela's reason for refusing it (an error,
    /// or an operator it would leave to the CPU), all in one Python process.
    pub fn compile_networks(&self, networks: &[Network], core: VelaCore) -> Result<Vec<Result<CompiledModel, String>>, String> {
        let answers: Vec<CompileAnswer> = self.json_call(&["network", "compile", core.name()], networks)?;
        Ok(answers
            .into_iter()
            .map(|a| match a {
                CompileAnswer::Compiled(c) if c.cpu_operators == Some(0) => Ok(c),
                CompileAnswer::Compiled(c) => Err(format!("Vela leaves {:?} operators to the CPU", c.cpu_operators)),
                CompileAnswer::Refused(why) => Err(why),
            })
            .collect())
    }

    /// Each network as a `.tflite` file: uncompiled (`vela` false), or Vela's `.tflite`
    /// output, whose NPU part is one `ethos-u` custom operator (`vela` true, with `core`).
    pub fn network_files(&self, networks: &[Network], vela: Option<VelaCore>) -> Result<Vec<Vec<u8>>, String> {
        match vela {
            None => self.json_call(&["network", "tflite", "-"], networks),
            Some(core) => self.json_call(&["network", "vela-tflite", core.name()], networks),
        }
    }

    /// A `.tflite` file's bytes as the NPU runs them (the `npu ethos run` path): if the file
    /// already holds an `ethos-u` custom operator, its command stream, read-only data,
    /// scratch sizes and tensor places come from the file itself (`listing` is then empty and
    /// `cpu_operators` counts the file's other operators); otherwise Vela compiles it with
    /// `core` as [`TfLite::compile_networks`] does. All files in one Python process.
    pub fn compile_files(&self, models: &[Vec<u8>], core: VelaCore) -> Result<Vec<CompiledModel>, String> {
        self.json_call(&["file", "compile", core.name()], models)
    }

    /// TFLite's output (flattened, int8) of each `.tflite` file on its input (the input
    /// tensor's int8 elements in order), every operator on the reference kernels, all in one
    /// Python process. A file holding Vela's `ethos-u` operator, a model with more than one
    /// input or output or with other than int8 ones, or an input of the wrong length is an
    /// error saying so.
    pub fn run_files(&self, runs: &[FileRun]) -> Result<Vec<Vec<i8>>, String> {
        self.json_call(&["file", "run", "-"], runs)
    }

    fn json_call<T: serde::de::DeserializeOwned, R: ToJson>(&self, args: &[&str], items: &[R]) -> Result<T, String> {
        let request: Vec<Value> = items.iter().map(ToJson::to_json).collect();
        let answer = self.call(args, serde_json::to_vec(&request).expect("JSON of numbers and strings"))?;
        serde_json::from_slice(&answer).map_err(|e| format!("the TFLite oracle's answer: {e}"))
    }
}

/// What goes to the oracle as one JSON item.
trait ToJson {
    fn to_json(&self) -> Value;
}

impl ToJson for Network {
    fn to_json(&self) -> Value {
        Network::to_json(self)
    }
}

/// A `.tflite` file and the input to run it on ([`TfLite::run_files`]).
pub struct FileRun {
    pub model: Vec<u8>,
    pub input: Vec<i8>,
}

impl ToJson for FileRun {
    fn to_json(&self) -> Value {
        json!({ "model": self.model, "input": self.input })
    }
}

impl ToJson for Vec<u8> {
    fn to_json(&self) -> Value {
        json!(self)
    }
}

/// What [`random_network`] may draw.
#[derive(Clone, Debug)]
pub struct Choice {
    /// Operators to draw from.
    pub kinds: Vec<Kind>,
    /// Operators per network.
    pub ops: std::ops::RangeInclusive<usize>,
    /// The input's height and width, each.
    pub side: std::ops::RangeInclusive<usize>,
    /// The input's channels, and a convolution's output channels.
    pub channels: std::ops::RangeInclusive<usize>,
    /// A pool's kernel height and width, each.
    pub pool_kernel: std::ops::RangeInclusive<usize>,
    /// The chance that a convolution draws a dilation (then 1 or 2 in y and in x, each).
    pub dilated: f64,
}

impl Default for Choice {
    fn default() -> Self {
        Choice { kinds: Kind::ALL.to_vec(), ops: 1..=4, side: 1..=9, channels: 1..=40, pool_kernel: 1..=5, dilated: 0.2 }
    }
}

fn random_quant<R: Rng + ?Sized>(rng: &mut R) -> Quant {
    let zero_point = match rng.gen_range(0..4) {
        0 => -128,
        1 => 127,
        _ => rng.gen_range(-128..=127),
    };
    Quant { scale: 10f32.powf(rng.gen_range(-2.5..-0.5)), zero_point }
}

fn random_data<R: Rng + ?Sized>(rng: &mut R, n: usize) -> Vec<i8> {
    (0..n).map(|_| rng.gen()).collect()
}

/// Weights (-127..=127), per-channel scales over two decades, biases, and an output
/// quantization fitted to the range of a sum of `taps` products with inputs of `input`.
fn random_weights<R: Rng + ?Sized>(rng: &mut R, input: Quant, count: usize, channels: usize, taps: usize) -> (Vec<i8>, Vec<f32>, Vec<i32>, Quant) {
    let weights = random_data(rng, count).into_iter().map(|w| w.max(-127)).collect();
    let base = 10f32.powf(rng.gen_range(-3.0..-1.0));
    let scales = (0..channels).map(|_| base * 10f32.powf(rng.gen_range(0.0..2.0))).collect();
    let bias = (0..channels).map(|_| rng.gen_range(-3000..=3000)).collect();
    let range = input.scale * base * 10.0 * 64.0 * (taps as f32).sqrt();
    let quant = Quant { scale: (range * fitted_scale(rng)).max(MIN_SCALE), ..random_quant(rng) };
    (weights, scales, bias, quant)
}

/// The smallest output scale drawn: TFLite refuses an activation bound that exceeds int32 in
/// output steps (a product of products of small scales reaches 1e-10), and Vela encodes a
/// scale whose shift exceeds 63 as 0.
const MIN_SCALE: f32 = 1e-5;

/// An output scale, as a fraction of the result's expected range: mostly so that the range
/// fills int8, sometimes 10 times finer (saturating).
fn fitted_scale<R: Rng + ?Sized>(rng: &mut R) -> f32 {
    if rng.gen_bool(0.2) {
        1.0 / 1280.0
    } else {
        10f32.powf(rng.gen_range(-1.6..-0.6))
    }
}

/// The smallest strided, dilated CONV_2D, which Vela's legacy core folds as if it were dense
/// (docs/ethos.md, "Reference executor"): a 1x2 kernel, stride 2 and dilation 2 in x, VALID, on
/// 1x4x1 `[1, 2, 3, 4]` with weights `[1, 10]`, every scale 1 and zero point 0. TFLite reads x 0
/// and 2: `1 + 3 * 10 = 31`.
pub fn strided_dilated_example() -> Network {
    let one = Quant { scale: 1.0, zero_point: 0 };
    Network {
        input_shape: [1, 4, 1],
        input_quant: one,
        input: vec![1, 2, 3, 4],
        ops: vec![Op {
            kind: Kind::Conv2d,
            inputs: vec![Operand::Tensor(0)],
            shape: [1, 1, 1],
            quant: one,
            activation: Activation::None,
            window: Some(Window { kernel: (1, 2), stride: (1, 2), padding: Padding::Valid, dilation: (1, 2) }),
            weights: Some(Weights { weights: vec![1, 10], scales: vec![1.0], bias: vec![0] }),
        }],
    }
}

/// A random network: a chain of operators from `choice`, elementwise operators taking their
/// second operand from an earlier tensor of the same shape or a constant (full, per channel
/// or scalar: broadcast), shapes and channels from `choice`, strides 1-2, kernels 1-5 (some
/// 9-10), dilation 1-2 (not in x with x stride 2 on a first CONV_2D), SAME/VALID, zero
/// points at the extremes, per-channel weight scales over decades, fused activations, resizes
/// by 2, 4 or 8 (see [`Kind`]). TFLite's rules are kept: pools, resizes and MAXIMUM/MINIMUM keep
/// their input's quantization.
pub fn random_network<R: Rng + ?Sized>(rng: &mut R, choice: &Choice) -> Network {
    let input_shape = [rng.gen_range(choice.side.clone()), rng.gen_range(choice.side.clone()), rng.gen_range(choice.channels.clone())];
    let input_quant = random_quant(rng);
    let mut net = Network {
        input_shape,
        input_quant,
        input: random_data(rng, input_shape.iter().product()),
        ops: Vec::new(),
    };
    let n = rng.gen_range(choice.ops.clone());
    while net.ops.len() < n {
        let last = net.ops.len();
        let ([h, w, c], quant) = net.tensor(last);
        let kind = *choice.kinds.choose(rng).expect("at least one operator to choose");
        let activation = if kind.fuses_activation() { *Activation::ALL.choose(rng).unwrap() } else { Activation::None };
        let op = if kind.elementwise() {
            let same: Vec<usize> = (0..last).filter(|&t| net.tensor(t).0 == [h, w, c]).collect();
            let second_quant = if matches!(kind, Kind::Maximum | Kind::Minimum) { quant } else { random_quant(rng) };
            let second = match same.choose(rng) {
                Some(&t) if rng.gen_bool(0.6) && (net.tensor(t).1 == second_quant || !matches!(kind, Kind::Maximum | Kind::Minimum)) => Operand::Tensor(t),
                _ => {
                    let shape = *[[h, w, c], [1, 1, c], [1, 1, 1]].choose(rng).unwrap();
                    Operand::Constant(Constant { shape, data: random_data(rng, shape.iter().product()), quant: second_quant })
                }
            };
            let mut inputs = vec![Operand::Tensor(last), second];
            if rng.gen_bool(0.3) {
                inputs.swap(0, 1);
            }
            // An output scale near the result's range keeps most outputs unsaturated; some
            // draws are 10x finer, so saturation is still seen.
            let (s1, s2) = (quant.scale, match &inputs[1 - usize::from(inputs[0] != Operand::Tensor(last))] {
                Operand::Tensor(t) => net.tensor(*t).1.scale,
                Operand::Constant(k) => k.quant.scale,
            });
            let range = match kind {
                Kind::Mul => s1 * s2 * 128.0,
                _ => s1.max(s2) * 2.0,
            };
            let out_quant = if matches!(kind, Kind::Maximum | Kind::Minimum) { quant } else { Quant { scale: (range * fitted_scale(rng)).max(MIN_SCALE), ..random_quant(rng) } };
            Op { kind, inputs, shape: [h, w, c], quant: out_quant, activation, window: None, weights: None }
        } else if kind.resize() {
            // Factor 2, or 4 or 8 while the output's side stays within 16; a side of 1 stays 1
            // half the time (Vela takes a factor of 1 only there).
            let shape = if kind == Kind::ResizeNearestNeighborAlignCorners {
                // align_corners: `(n - 1)·factor + 1` while the output's side stays within 17.
                let factor = **[2usize, 4, 4, 8].iter().filter(|&&f| f == 2 || f * (h.max(w) - 1) <= 16).collect::<Vec<_>>().choose(rng).unwrap();
                [(h - 1) * factor + 1, (w - 1) * factor + 1, c]
            } else {
                let factor = **[2usize, 2, 4, 8].iter().filter(|&&f| f == 2 || f * h.max(w) <= 16).collect::<Vec<_>>().choose(rng).unwrap();
                let scaled = |side: usize, rng: &mut R| if side == 1 && rng.gen_bool(0.5) { 1 } else { side * factor };
                [scaled(h, rng), scaled(w, rng), c]
            };
            Op { kind, inputs: vec![Operand::Tensor(last)], shape, quant, activation, window: None, weights: None }
        } else if kind == Kind::TransposeConv {
            // Stride 2x2 only: Vela 5.2 leaves 1x2 and 2x1 to the CPU, and stride 1 is a CONV
            // without upscale whose legacy-core lowering differs from TFLite for an even kernel
            // or VALID padding (`legacy_core_pads_stride_1_transpose_conv_as_a_conv`).
            let stride = (2, 2);
            let kernel = (rng.gen_range(1..=4), rng.gen_range(1..=4));
            let padding = if rng.gen_bool(0.5) { Padding::Same } else { Padding::Valid };
            let size = |i: usize, k: usize, s: usize| match padding {
                Padding::Same => i * s,
                Padding::Valid => (i - 1) * s + k,
            };
            let oc = rng.gen_range(choice.channels.clone());
            let taps = (kernel.0 * kernel.1 * c).div_ceil(stride.0 * stride.1);
            let (weights, scales, bias, quant) = random_weights(rng, quant, oc * kernel.0 * kernel.1 * c, oc, taps);
            let window = Some(Window { kernel, stride, padding, dilation: (1, 1) });
            let shape = [size(h, kernel.0, stride.0), size(w, kernel.1, stride.1), oc];
            Op { kind, inputs: vec![Operand::Tensor(last)], shape, quant, activation, window, weights: Some(Weights { weights, scales, bias }) }
        } else if kind == Kind::FullyConnected {
            let units = rng.gen_range(choice.channels.clone());
            let (weights, scales, bias, quant) = random_weights(rng, quant, c * units, units, c);
            Op { kind, inputs: vec![Operand::Tensor(last)], shape: [h, w, units], quant, activation, window: None, weights: Some(Weights { weights, scales, bias }) }
        } else {
            let stride = (rng.gen_range(1..=2), rng.gen_range(1..=2));
            // Convolutions: sometimes dilated, sometimes larger than the NPU's 8x8 (Vela
            // splits such kernels into sub-kernels).
            let convolution = matches!(kind, Kind::Conv2d | Kind::DepthwiseConv2d);
            let dilation = if convolution && rng.gen_bool(choice.dilated) { (rng.gen_range(1..=2), rng.gen_range(1..=2)) } else { (1, 1) };
            // Keras refuses a dilation rate with a stride above 1, but TFLite runs one and Vela
            // compiles it. One case is not drawn: as the network's first operator, Vela's
            // legacy core folds x pairs of a CONV_2D's IFM into depth to make x stride 2 a
            // stride 1 and reshapes a dilated kernel as if it were dense (test
            // `legacy_core_folds_strided_dilated_convolutions_as_dense`, docs/ethos.md).
            let stride = if last == 0 && kind == Kind::Conv2d && dilation.1 > 1 { (stride.0, 1) } else { stride };
            let large = convolution && rng.gen_bool(0.1);
            let mut kernel = if large {
                (rng.gen_range(9..=10), rng.gen_range(1..=10))
            } else if convolution {
                (rng.gen_range(1..=5), rng.gen_range(1..=5))
            } else {
                (rng.gen_range(choice.pool_kernel.clone()), rng.gen_range(choice.pool_kernel.clone()))
            };
            if rng.gen_bool(0.5) {
                kernel = (kernel.1, kernel.0);
            }
            let extent = |k: usize, d: usize| (k - 1) * d + 1;
            let mut padding = if large || rng.gen_bool(0.5) { Padding::Same } else { Padding::Valid };
            if padding == Padding::Valid && (extent(kernel.0, dilation.0) > h || extent(kernel.1, dilation.1) > w) {
                if rng.gen_bool(0.5) {
                    kernel = (kernel.0.min((h - 1) / dilation.0 + 1), kernel.1.min((w - 1) / dilation.1 + 1));
                } else {
                    padding = Padding::Same;
                }
            }
            let size = |i: usize, k: usize, s: usize| match padding {
                Padding::Same => i.div_ceil(s),
                Padding::Valid => (i - k) / s + 1,
            };
            let (oh, ow) = (size(h, extent(kernel.0, dilation.0), stride.0), size(w, extent(kernel.1, dilation.1), stride.1));
            let window = Some(Window { kernel, stride, padding, dilation });
            match kind {
                Kind::Conv2d | Kind::DepthwiseConv2d => {
                    let depthwise = kind == Kind::DepthwiseConv2d;
                    let oc = if depthwise { c } else { rng.gen_range(choice.channels.clone()) };
                    let count = kernel.0 * kernel.1 * if depthwise { c } else { c * oc };
                    let taps = kernel.0 * kernel.1 * if depthwise { 1 } else { c };
                    let (weights, scales, bias, quant) = random_weights(rng, quant, count, oc, taps);
                    let weights = Some(Weights { weights, scales, bias });
                    let out = [oh, ow, oc];
                    Op { kind, inputs: vec![Operand::Tensor(last)], shape: out, quant, activation, window, weights }
                }
                _ => Op { kind, inputs: vec![Operand::Tensor(last)], shape: [oh, ow, c], quant, activation, window, weights: None },
            }
        };
        net.ops.push(op);
    }
    net
}
