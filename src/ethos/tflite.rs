//! TensorFlow Lite itself as the independent oracle of a quantized int8 convolution: PyPI
//! `ai-edge-litert` (the TFLite interpreter without TensorFlow) runs one-operator models that
//! `tflite_oracle.py` builds in memory with the flatbuffer builders of PyPI `ethos-u-vela`
//! (`ethosu.vela.tflite`). Both are installed once into the venv `build/tflite-venv`.
//!
//! The interpreter uses TFLite's reference kernels (`OpResolverType.BUILTIN_REF`, that is
//! `BuiltinRefOpResolver`, which brings no default delegate), and the script checks for every
//! model that the execution plan is the one CONV_2D or DEPTHWISE_CONV_2D node, so XNNPACK
//! cannot have taken it over. [`crate::ethos::conv`] is the plain-integer Rust version of the
//! same kernels; `tests/ethos_tflite.rs` shows the two agree element for element.
use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGES: [&str; 2] = ["ai-edge-litert==2.3.0", "ethos-u-vela==5.2.0"];
const ORACLE: &str = include_str!("tflite_oracle.py");

/// Padding of the layer's input, as TFLite's `Padding`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Output size `ceil(in / stride)`; the zero border is split with the odd element at the
    /// bottom/right (`conv::padding_offsets`).
    Same,
    /// No border: output size `(in - kernel) / stride + 1`; needs `in >= kernel`.
    Valid,
}

/// Fused activation, as TFLite's `ActivationFunctionType`; it only narrows the output's
/// clamp range (`conv::activation_range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    None,
    /// Real output >= 0.
    Relu,
    /// Real output in 0..=6.
    Relu6,
    /// Real output in -1..=1.
    ReluN1To1,
}

impl Activation {
    pub const ALL: [Activation; 4] = [
        Activation::None,
        Activation::Relu,
        Activation::Relu6,
        Activation::ReluN1To1,
    ];

    /// The value of TFLite's `ActivationFunctionType`.
    fn tflite_code(self) -> u32 {
        match self {
            Activation::None => 0,
            Activation::Relu => 1,
            Activation::ReluN1To1 => 2,
            Activation::Relu6 => 3,
        }
    }
}

/// One quantized int8 convolution layer (batch 1, depth multiplier 1), with its
/// data: everything TFLite's CONV_2D or DEPTHWISE_CONV_2D needs to compute its output.
/// Real values are `scale * (q - zero_point)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvLayer {
    /// Input height, width and channels (h, w, c).
    pub input_shape: (usize, usize, usize),
    /// The input, NHWC: `h * w * c` values, channel fastest.
    pub input: Vec<i8>,
    /// Input scale (per tensor).
    pub input_scale: f32,
    /// Input zero point (per tensor), -128..=127.
    pub input_zero_point: i8,
    /// Kernel height and width (kh, kw).
    pub kernel: (usize, usize),
    /// Output channels; for a depthwise layer it equals the input channels.
    pub out_channels: usize,
    /// Weights, symmetric (zero point 0): conv OHWI (`out_channels * kh * kw * c`, input
    /// channel fastest), depthwise 1HWC (`kh * kw * c`, channel fastest).
    pub weights: Vec<i8>,
    /// Weight scale per output channel (TFLite's per-channel quantization: dimension 0 of
    /// the OHWI conv weights, dimension 3 of the 1HWC depthwise weights).
    pub weight_scales: Vec<f32>,
    /// Bias per output channel, in units of `input_scale * weight_scales[o]`, zero point 0.
    pub bias: Vec<i32>,
    /// Output scale (per tensor).
    pub output_scale: f32,
    /// Output zero point (per tensor), -128..=127.
    pub output_zero_point: i8,
    /// Stride (sh, sw), each >= 1.
    pub stride: (usize, usize),
    /// Dilation (dh, dw), each >= 1: kernel element (fy, fx) reads the input `fy·dh`, `fx·dw`
    /// on; the kernel covers `(k - 1)·d + 1` input rows and columns.
    pub dilation: (usize, usize),
    pub padding: Padding,
    pub activation: Activation,
    /// DEPTHWISE_CONV_2D instead of CONV_2D.
    pub depthwise: bool,
}

impl ConvLayer {
    /// Why TFLite could not run this layer, if it cannot: sizes of the vectors, a zero
    /// dimension, a VALID kernel larger than the input, a depthwise layer whose output
    /// channels differ from its input channels, a scale that is not positive and finite, an
    /// output scale so small that the activation's quantized bound exceeds int32.
    pub fn check(&self) -> Result<(), String> {
        let (h, w, c) = self.input_shape;
        let (kh, kw) = self.kernel;
        let (sh, sw) = self.stride;
        let (dh, dw) = self.dilation;
        if [h, w, c, kh, kw, sh, sw, dh, dw, self.out_channels].contains(&0) {
            return Err("a dimension, kernel size, stride, dilation or channel count is 0".into());
        }
        if self.depthwise && self.out_channels != c {
            return Err(format!(
                "depthwise with {c} input channels but {} output channels",
                self.out_channels
            ));
        }
        let (eh, ew) = dilated_kernel(self);
        if self.padding == Padding::Valid && (eh > h || ew > w) {
            let dilated = if (dh, dw) == (1, 1) { String::new() } else { format!(" of dilation {dh}x{dw}") };
            return Err(format!("VALID {kh}x{kw} kernel{dilated} on a {h}x{w} input"));
        }
        let weights = kh * kw * c * if self.depthwise { 1 } else { self.out_channels };
        let lengths = [
            ("input", self.input.len(), h * w * c),
            ("weights", self.weights.len(), weights),
            ("weight_scales", self.weight_scales.len(), self.out_channels),
            ("bias", self.bias.len(), self.out_channels),
        ];
        for (name, got, want) in lengths {
            if got != want {
                return Err(format!("{name} has {got} values, not {want}"));
            }
        }
        let scales = [self.input_scale, self.output_scale];
        if !scales
            .iter()
            .chain(&self.weight_scales)
            .all(|s| s.is_finite() && *s > 0.0)
        {
            return Err("a scale is not positive and finite".into());
        }
        // TFLite's CalculateActivationRangeQuantized computes zero_point + (int32)roundf(bound
        // / output_scale) in f32. It refuses a quotient above int32's largest value as f32
        // (2^31) but takes one of exactly 2^31, whose cast is undefined (x86 gives -2^31,
        // then the zero point is added): SEED=11 of `random_layers_match_tflite` once drew
        // such a layer (RELU_N1_TO_1, output scale 2^-31) and TFLite's output was that
        // wrap's low byte. So 2^31 steps or more are refused. Below 2^31 the next f32 is
        // 2^31 - 128, and an int8 zero point keeps that within int32 both ways.
        let bound = match self.activation {
            Activation::Relu6 => 6.0f32,
            Activation::ReluN1To1 => 1.0,
            Activation::None | Activation::Relu => 0.0,
        };
        if (bound / self.output_scale).round() >= 2_147_483_648.0 {
            return Err(format!(
                "{:?} bound {bound} / output scale {:e} is 2^31 steps or more (TFLite rejects it or wraps)",
                self.activation, self.output_scale
            ));
        }
        Ok(())
    }

    /// The layer's parameters without its data (for messages).
    pub fn describe(&self) -> String {
        format!(
            "{} input {:?} scale {:e} zp {}, kernel {:?}, {} output channels, stride {:?}, dilation {:?}, \
             {:?} padding, activation {:?}, output scale {:e} zp {}, weight scales {:?}, bias {:?}",
            if self.depthwise {
                "DEPTHWISE_CONV_2D"
            } else {
                "CONV_2D"
            },
            self.input_shape,
            self.input_scale,
            self.input_zero_point,
            self.kernel,
            self.out_channels,
            self.stride,
            self.dilation,
            self.padding,
            self.activation,
            self.output_scale,
            self.output_zero_point,
            self.weight_scales,
            self.bias,
        )
    }
}

/// The input rows and columns the kernel covers, `(k - 1)·dilation + 1` each.
pub fn dilated_kernel(layer: &ConvLayer) -> (usize, usize) {
    let extent = |k: usize, d: usize| k.saturating_sub(1) * d + 1;
    (extent(layer.kernel.0, layer.dilation.0), extent(layer.kernel.1, layer.dilation.1))
}

/// The output's height, width and channels as TFLite computes them (`ComputeOutSize`): SAME
/// `ceil(in / stride)`, VALID `(in - dilated kernel) / stride + 1`.
pub fn output_shape(layer: &ConvLayer) -> (usize, usize, usize) {
    let (h, w, _) = layer.input_shape;
    let (kh, kw) = dilated_kernel(layer);
    let (sh, sw) = layer.stride;
    let size = |input: usize, kernel: usize, stride: usize| match layer.padding {
        Padding::Same => input.div_ceil(stride),
        Padding::Valid => (input + stride).saturating_sub(kernel) / stride,
    };
    (size(h, kh, sh), size(w, kw, sw), layer.out_channels)
}

/// A venv's Python with `ai-edge-litert` and `ethos-u-vela` installed.
#[derive(Clone, Debug)]
pub struct TfLite {
    python: PathBuf,
}

impl TfLite {
    /// TFLite in the venv `build/tflite-venv` of the project at `root`, created on first use.
    /// Threads take turns; several processes may race: each builds a venv of its own next to
    /// it (named with its process id) and renames it into place, and whoever finds the place
    /// taken discards its copy.
    pub fn in_project(root: &Path) -> Result<TfLite, String> {
        Self::in_venv(&root.join("build/tflite-venv"))
    }

    /// TFLite in the venv `venv`, created on first use (as [`TfLite::in_project`]).
    pub fn in_venv(venv: &Path) -> Result<TfLite, String> {
        let check = "from ai_edge_litert.interpreter import Interpreter, OpResolverType; from ethosu.vela.tflite import Model";
        crate::pypi::venv_python(venv, &PACKAGES, check, "the TFLite oracle").map(|python| TfLite { python })
    }

    /// TFLite's output of each layer (NHWC, of [`output_shape`]), all in one Python process.
    /// A layer that fails [`ConvLayer::check`] or that TFLite rejects is an error naming it.
    pub fn run(&self, layers: &[ConvLayer]) -> Result<Vec<Vec<i8>>, String> {
        let answer = self.call(&[], request(layers)?)?;
        let mut pos = 0;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let bytes = answer
                .get(pos..pos + n)
                .ok_or("the TFLite oracle's answer is cut short")?;
            pos += n;
            Ok(bytes)
        };
        let mut outputs = Vec::with_capacity(layers.len());
        for (i, layer) in layers.iter().enumerate() {
            let shape: Vec<usize> = take(12)?
                .chunks(4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
                .collect();
            let expected = output_shape(layer);
            if (shape[0], shape[1], shape[2]) != expected {
                return Err(format!(
                    "layer {i}: TFLite's output is {shape:?}, output_shape says {expected:?}"
                ));
            }
            let n = shape.iter().product();
            outputs.push(take(n)?.iter().map(|&b| b as i8).collect());
        }
        if pos != answer.len() {
            return Err(format!(
                "the TFLite oracle answered {} bytes more than expected",
                answer.len() - pos
            ));
        }
        Ok(outputs)
    }

    /// Each layer's one-operator model compiled by Vela for `ethos-u65-256` with `core`
    /// (Vela's raw output and its `--verbose-register-command-stream` listing), all in one
    /// Python process. Vela's options are named, not left to its defaults: the `vela.ini` it
    /// ships, system config `Ethos_U65_Client_Server`, memory mode `Dedicated_Sram_384KB`.
    pub fn compile(&self, layers: &[ConvLayer], core: VelaCore) -> Result<Vec<Compiled>, String> {
        let answer = self.call(&["compile", core.name()], request(layers)?)?;
        let mut rest = &answer[..];
        let mut take = || -> Result<Vec<u8>, String> {
            let cut = || "the Vela compile's answer is cut short".to_string();
            let n = u32::from_le_bytes(rest.get(..4).ok_or_else(cut)?.try_into().unwrap()) as usize;
            let bytes = rest.get(4..4 + n).ok_or_else(cut)?.to_vec();
            rest = &rest[4 + n..];
            Ok(bytes)
        };
        let compiled = (0..layers.len())
            .map(|_| {
                Ok(Compiled {
                    cmd_data: take()?,
                    weight_data: take()?,
                    listing: String::from_utf8(take()?).map_err(|e| format!("Vela's listing: {e}"))?,
                    estimate: serde_json::from_slice(&take()?).map_err(|e| format!("Vela's performance estimate: {e}"))?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        if !rest.is_empty() {
            return Err(format!("the Vela compile answered {} bytes more than expected", rest.len()));
        }
        Ok(compiled)
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.python);
        // Isolated from the user's Python settings; one thread is enough for these layers.
        command
            .arg("-I")
            .env("OPENBLAS_NUM_THREADS", "1")
            .env("TF_CPP_MIN_LOG_LEVEL", "2");
        command
    }

    pub(super) fn call(&self, args: &[&str], request: Vec<u8>) -> Result<Vec<u8>, String> {
        let mut command = self.command();
        command.args(["-c", ORACLE]).args(args);
        crate::pypi::exchange(command, request, "TFLite oracle")
    }
}

/// Which of Vela 5.2's compilers: the C++ core ("Regor", the default) or the older Python
/// core (`--debug-force-legacy-core`, which DMAs weights into SRAM). They write different but
/// equivalent streams; an executor runs both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VelaCore {
    Regor,
    Legacy,
}

impl VelaCore {
    pub const ALL: [VelaCore; 2] = [VelaCore::Regor, VelaCore::Legacy];

    pub fn name(self) -> &'static str {
        match self {
            VelaCore::Regor => "regor",
            VelaCore::Legacy => "legacy",
        }
    }
}

/// A model as Vela compiled it (`--output-format raw`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The driver payload: header and command stream (`npu::ethos::command_stream`).
    pub cmd_data: Vec<u8>,
    /// The read-only region: weight streams and scale/bias records.
    pub weight_data: Vec<u8>,
    /// The command lines of Vela's `--verbose-register-command-stream` listing.
    pub listing: String,
    /// Vela's performance estimate of each operation.
    pub estimate: Vec<OpEstimate>,
}

/// One operation's row of Vela's `--verbose-performance` table: the vendor's model of the
/// silicon (ethos-u65-256 at Vela's system config), the figure the bench sets the NPU's
/// cycles against.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct OpEstimate {
    /// The operator as Vela names it (`Conv2D`, `CONV_2D`, ...: the two cores differ).
    pub operator: String,
    /// Op Cycles: the whole operation, memory transfers included.
    pub cycles: u64,
    /// NPU: the compute part.
    pub npu_cycles: u64,
    /// MAC Count.
    pub macs: u64,
}

/// The oracle's request for `layers` (format: `tflite_oracle.py`).
fn request(layers: &[ConvLayer]) -> Result<Vec<u8>, String> {
    let mut request = Vec::new();
    let u32s = |request: &mut Vec<u8>, values: &[usize]| {
        for &v in values {
            let v = u32::try_from(v).expect("layer dimension exceeds 32 bits");
            request.extend_from_slice(&v.to_le_bytes());
        }
    };
    u32s(&mut request, &[layers.len()]);
    for (i, layer) in layers.iter().enumerate() {
        layer.check().map_err(|e| format!("layer {i}: {e}"))?;
        let (h, w, c) = layer.input_shape;
        let fields = [
            h,
            w,
            c,
            layer.kernel.0,
            layer.kernel.1,
            layer.out_channels,
            layer.stride.0,
            layer.stride.1,
            match layer.padding {
                Padding::Same => 0,
                Padding::Valid => 1,
            },
            layer.activation.tflite_code() as usize,
            usize::from(layer.depthwise),
            layer.dilation.0,
            layer.dilation.1,
        ];
        u32s(&mut request, &fields);
        for zp in [layer.input_zero_point, layer.output_zero_point] {
            request.extend_from_slice(&i32::from(zp).to_le_bytes());
        }
        for scale in [layer.input_scale, layer.output_scale] {
            request.extend_from_slice(&scale.to_le_bytes());
        }
        request.extend(layer.input.iter().map(|&v| v as u8));
        request.extend(layer.weights.iter().map(|&v| v as u8));
        request.extend(layer.weight_scales.iter().flat_map(|s| s.to_le_bytes()));
        request.extend(layer.bias.iter().flat_map(|b| b.to_le_bytes()));
    }
    Ok(request)
}
