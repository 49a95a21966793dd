//! The host driver of the MNIST NPU (seeds/002 §9): what a master system does at the
//! chip's pins to run a multilayer perceptron. Each dense layer runs as back-to-back
//! inference frames, two neurons per frame; the host reads the results from PISO_OUT on
//! D_OUT, from the FIFO, or (last layer) takes the comparator's index, and requantizes
//! them to the next layer's inputs.
use super::network::{requantize, Layer, Network};
use super::program::{Frame, Program, Ssfr, FIRST_BYTE_AFTER_SSFR_WINDOW, MIN_CONTINUOUS_N};
use npu_model::mnist::chip::{In, Out};
use npu_model::mnist::fifo;
use npu_model::mnist::output_mux::sel_out;

/// Where the host reads a layer's outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputPath {
    /// Each frame's four bytes on D_OUT as FSM_OUT shifts them (SEL_OUT 001).
    PisoOut,
    /// Every frame's bytes into the FIFO, read with RD_EN after the layer (SEL_OUT 000).
    Fifo,
    /// Hidden layers as `PisoOut`; the last layer only through the comparator's index
    /// (SEL_OUT 010): the host never sees its scores.
    Comparator,
}

impl OutputPath {
    pub const ALL: [OutputPath; 3] = [
        OutputPath::PisoOut,
        OutputPath::Fifo,
        OutputPath::Comparator,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OutputPath::PisoOut => "piso",
            OutputPath::Fifo => "fifo",
            OutputPath::Comparator => "comparator",
        }
    }
}

/// The frames that compute `layer` for `inputs`: neurons 2k and 2k+1 in frame k (MAC1 and
/// MAC2; an odd last neuron is paired with an all-zero one), N = the input length.
pub fn frames(layer: &Layer, inputs: &[i8], ssfr: Ssfr) -> Vec<Frame> {
    assert!(
        layer.weights.iter().all(|row| row.len() == inputs.len()),
        "every weight row must have the input's length"
    );
    let ssfr = Ssfr {
        bypass_relu1: !layer.relu,
        bypass_relu2: !layer.relu,
        ..ssfr
    };
    let zero = vec![0; inputs.len()];
    (0..layer.weights.len().div_ceil(2))
        .map(|k| {
            let (w1, w2) = (
                &layer.weights[2 * k],
                layer.weights.get(2 * k + 1).unwrap_or(&zero),
            );
            Frame {
                bias1: layer.biases[2 * k],
                bias2: layer.biases.get(2 * k + 1).copied().unwrap_or(0),
                pairs: (0..inputs.len())
                    .map(|i| [w1[i], inputs[i], w2[i], inputs[i]])
                    .collect(),
                ssfr,
            }
        })
        .collect()
}

/// Where a layer's results appear in the outputs of its program.
#[derive(Clone, Debug)]
enum Readout {
    /// The cycle of each frame's first D_OUT byte.
    Bytes(Vec<usize>),
    /// The cycle at which the index is valid on D_OUT.
    Index(usize),
}

/// Appends `layer`'s frames to `program` (back to back when N allows, §9.2), and for the
/// FIFO the reads after every [`FIFO_FRAMES`] of them; returns where its results appear.
fn layer_program(
    program: &mut Program,
    layer: &Layer,
    inputs: &[i8],
    path: OutputPath,
    last: bool,
) -> Readout {
    let ssfr = match (path, last) {
        (OutputPath::Fifo, _) => Ssfr {
            sel_out: sel_out::FIFO,
            en_fifo: true,
            ..Ssfr::default()
        },
        (OutputPath::Comparator, true) => {
            assert!(layer.biases.len() % 2 == 0, "the comparator path needs an even neuron count: a padding neuron would be compared too");
            // The comparator restarts from 0x8000 and index 0 for this layer.
            program.configure(Ssfr {
                sel_out: sel_out::INDEX,
                rst_comp: true,
                ..Ssfr::default()
            });
            Ssfr {
                sel_out: sel_out::INDEX,
                en_comp: true,
                ..Ssfr::default()
            }
        }
        _ => Ssfr {
            sel_out: sel_out::PISO_OUT,
            ..Ssfr::default()
        },
    };
    let frames = frames(layer, inputs, ssfr);
    match (path, last) {
        (OutputPath::Fifo, _) => {
            // The FIFO holds DEPTH bytes and drops writes when full (§6.6): a layer wider than
            // 2·DEPTH/4 neurons runs as groups of DEPTH/4 frames, each read out before the next.
            let mut starts = Vec::with_capacity(frames.len());
            for group in frames.chunks(FIFO_FRAMES) {
                run_frames(program, group);
                // Each byte shows on D_OUT the cycle after its read.
                let first = program.read_fifo(4 * group.len()) + 1;
                starts.extend((0..group.len()).map(|k| first + 4 * k));
            }
            program.idle(1);
            Readout::Bytes(starts)
        }
        (OutputPath::Comparator, true) => {
            run_frames(program, &frames);
            // Frames leaves the finishing sequence behind the last window, longer than the
            // index takes to become valid.
            Readout::Index(program.cycles.len() - 1)
        }
        _ => Readout::Bytes(run_frames(program, &frames).into_iter().map(|w| w + FIRST_BYTE_AFTER_SSFR_WINDOW).collect()),
    }
}

/// How many frames the FIFO path runs between reads: their four bytes each fill the
/// DEPTH-byte FIFO (seeds/002 §6.6) exactly.
pub const FIFO_FRAMES: usize = fifo::DEPTH / 4;

/// Appends `frames` (all with the same N) back to back when N allows it (§9.2), else one
/// at a time, each with its own EN_FSM and finishing sequence: with N < MIN_CONTINUOUS_N
/// back to back, FSM_OUT would miss EN_ReLU and FSM_ACC could wait for OUT_DONE forever
/// (docs/mnist.md, "Back-to-back frames with N < 4"). Returns each frame's SSFR window.
fn run_frames(program: &mut Program, frames: &[Frame]) -> Vec<usize> {
    let n = frames.first().map_or(0, |f| f.pairs.len());
    if n >= MIN_CONTINUOUS_N {
        program.frames(frames)
    } else {
        frames.iter().flat_map(|f| program.frames(std::slice::from_ref(f))).collect()
    }
}

/// A layer's outputs from D_OUT: per frame OUT2[15:8], OUT2[7:0], OUT1[15:8], OUT1[7:0].
pub fn read_bytes(outputs: &[Out], starts: &[usize], neurons: usize) -> Vec<i16> {
    let mut values = Vec::with_capacity(neurons + 1);
    for &s in starts {
        let byte = |k: usize| outputs[s + k].D_OUT;
        values.extend([
            i16::from_be_bytes([byte(2), byte(3)]),
            i16::from_be_bytes([byte(0), byte(1)]),
        ]);
    }
    values.truncate(neurons);
    values
}

/// What the chip gave for one digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    /// Every layer's outputs as read from the chip; the last layer's is empty on the
    /// comparator path.
    pub layers: Vec<Vec<i16>>,
    /// The comparator's index (1-based, as on D_OUT) on the comparator path.
    pub index: Option<u8>,
    /// The predicted class: the comparator's index - 1, or the argmax of the last layer.
    pub prediction: usize,
    /// The chip's output pins in every cycle of this digit.
    pub pins: Vec<Out>,
}

/// A master system at the chip's pins: `step` applies one cycle's inputs and returns the
/// outputs sampled before the clock edge, on the Verilated chip or on its model.
pub struct Host<F: FnMut(&In) -> Out> {
    step: F,
    /// CLKEXT cycles driven so far.
    pub cycles: usize,
}

impl<F: FnMut(&In) -> Out> Host<F> {
    /// Starts with a cycle of RST_GLO: the chip powers up in an unknown state.
    pub fn new(step: F) -> Self {
        let mut host = Self { step, cycles: 0 };
        let mut reset = Program::default();
        reset.reset();
        host.execute(&reset);
        host
    }

    fn execute(&mut self, program: &Program) -> Vec<Out> {
        self.cycles += program.cycles.len();
        program
            .cycles
            .iter()
            .map(|pins| (self.step)(pins))
            .collect()
    }

    /// Runs `network` on one digit, layer by layer.
    pub fn classify(&mut self, network: &Network, pixels: &[u8], path: OutputPath) -> Inference {
        let mut x = network.inputs(pixels);
        let mut inference = Inference {
            layers: Vec::new(),
            index: None,
            prediction: 0,
            pins: Vec::new(),
        };
        for (k, layer) in network.layers.iter().enumerate() {
            let last = k + 1 == network.layers.len();
            let mut program = Program::default();
            let readout = layer_program(&mut program, layer, &x, path, last);
            let outputs = self.execute(&program);
            let y = match readout {
                Readout::Bytes(starts) => read_bytes(&outputs, &starts, layer.biases.len()),
                Readout::Index(cycle) => {
                    inference.index = Some(outputs[cycle].D_OUT);
                    Vec::new()
                }
            };
            inference.pins.extend(outputs);
            x = y.iter().map(|&v| requantize(v, layer.shift)).collect();
            if last {
                inference.prediction = match inference.index {
                    Some(index) => usize::from(index).wrapping_sub(1),
                    None => crate::argmax(&y),
                };
            }
            inference.layers.push(y);
        }
        inference
    }
}

/// The fewest CLKEXT cycles a 2-MAC chip needs for `network`: per layer, ceil(neurons / 2)
/// frames of N + 2 cycles (issue 4's bound; N + 2 is the back-to-back frame, docs/mnist.md).
pub fn cycle_bound(network: &Network) -> usize {
    network
        .layers
        .iter()
        .map(|l| l.biases.len().div_ceil(2) * (l.weights[0].len() + 2))
        .sum()
}
