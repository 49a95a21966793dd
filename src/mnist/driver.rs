//! The host driver of a dense layer on the MNIST NPU (seeds/002 §9): two neurons per
//! inference frame, back to back, results read from PISO_OUT on D_OUT.
use super::program::{Frame, Program, Ssfr, FIRST_BYTE_AFTER_SSFR_WINDOW, MIN_CONTINUOUS_N};
use npu_model::mnist::chip::Out;
use npu_model::mnist::output_mux::sel_out;

/// A dense layer in the chip's number formats: weights, inputs and biases Q4.4, outputs Q8.8.
#[derive(Clone, Debug)]
pub struct Layer {
    /// One row of weights per neuron, all rows as long as the input.
    pub weights: Vec<Vec<i8>>,
    pub biases: Vec<i8>,
    /// ReLU on the outputs (seeds/002 §6.3 recommends bypassing it in the output layer).
    pub relu: bool,
}

impl Layer {
    /// The frames that compute the layer for `inputs`: neurons 2k and 2k+1 in frame k (MAC1
    /// and MAC2; an odd last neuron is paired with an all-zero one), N = the input length.
    pub fn frames(&self, inputs: &[i8]) -> Vec<Frame> {
        assert!(self.weights.iter().all(|row| row.len() == inputs.len()), "every weight row must have the input's length");
        let ssfr = Ssfr { sel_out: sel_out::PISO_OUT, bypass_relu1: !self.relu, bypass_relu2: !self.relu, ..Ssfr::default() };
        let zero = vec![0; inputs.len()];
        (0..self.weights.len().div_ceil(2))
            .map(|k| {
                let (w1, w2) = (&self.weights[2 * k], self.weights.get(2 * k + 1).unwrap_or(&zero));
                Frame {
                    bias1: self.biases[2 * k],
                    bias2: self.biases.get(2 * k + 1).copied().unwrap_or(0),
                    pairs: (0..inputs.len()).map(|i| [w1[i], inputs[i], w2[i], inputs[i]]).collect(),
                    ssfr,
                }
            })
            .collect()
    }
}

/// Appends the layer's frames to `program` (back to back when N allows, §9.2) and returns
/// the cycles at which each frame's four result bytes start on D_OUT.
pub fn run_layer(program: &mut Program, layer: &Layer, inputs: &[i8]) -> Vec<usize> {
    let frames = layer.frames(inputs);
    let windows = if inputs.len() >= MIN_CONTINUOUS_N {
        program.frames(&frames)
    } else {
        frames.iter().flat_map(|f| program.frames(std::slice::from_ref(f))).collect()
    };
    windows.into_iter().map(|w| w + FIRST_BYTE_AFTER_SSFR_WINDOW).collect()
}

/// The layer's outputs from D_OUT: per frame OUT2[15:8], OUT2[7:0], OUT1[15:8], OUT1[7:0].
pub fn read_layer(outputs: &[Out], starts: &[usize], neurons: usize) -> Vec<i16> {
    let mut values = Vec::with_capacity(neurons + 1);
    for &s in starts {
        let byte = |k: usize| outputs[s + k].D_OUT;
        let out2 = i16::from_be_bytes([byte(0), byte(1)]);
        let out1 = i16::from_be_bytes([byte(2), byte(3)]);
        values.extend([out1, out2]);
    }
    values.truncate(neurons);
    values
}
