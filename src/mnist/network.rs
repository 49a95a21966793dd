//! A quantized multilayer perceptron in the chip's number formats, its text file, and the
//! plain integer reference of its arithmetic (matrix products, no chip timing).
//!
//! Arithmetic (seeds/002 §6.2, Eqn. 1 and 2): inputs, weights and biases are 8-bit; a
//! neuron is bias·16 (Q4.4 placed into Q8.8) plus the products, clamped to 16 bits after
//! every addition as the 2CASC does, then ReLU unless bypassed. Between layers the host
//! requantizes each 16-bit output to the next layer's 8-bit input ([`requantize`]).
use super::data::{FileError, PIXELS};
use super::quoted;
use std::fmt::Write as _;
use std::path::Path;

/// A dense layer: one row of weights per neuron, all rows as long as the layer's input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    pub weights: Vec<Vec<i8>>,
    pub biases: Vec<i8>,
    /// ReLU on the outputs (seeds/002 §6.3 recommends bypassing it in the output layer).
    pub relu: bool,
    /// Right shift that requantizes the outputs to the next layer's inputs; 0 in the last layer.
    pub shift: u32,
}

/// Pixels enter the chip as `pixel >> input_shift`; the last layer's outputs are the scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub input_shift: u32,
    pub layers: Vec<Layer>,
}

/// Eqn. 2 for one neuron: bias·16 plus the products, clamped after every addition.
pub fn eqn2(bias: i8, pairs: impl IntoIterator<Item = (i8, i8)>) -> i16 {
    let mut acc = i32::from(bias) * 16;
    for (a, b) in pairs {
        acc = (acc + i32::from(a) * i32::from(b)).clamp(-32768, 32767);
    }
    acc as i16
}

/// Eqn. 1, unless bypassed.
pub fn relu(x: i16, bypass: bool) -> i16 {
    if bypass || x >= 0 {
        x
    } else {
        0
    }
}

/// A 16-bit output as the next layer's 8-bit input: shifted right with rounding to nearest
/// (halves up), clamped to -128..=127.
pub fn requantize(y: i16, shift: u32) -> i8 {
    let rounded = if shift == 0 {
        i32::from(y)
    } else {
        (i32::from(y) + (1 << (shift - 1))) >> shift
    };
    rounded.clamp(-128, 127) as i8
}

impl Layer {
    /// The layer's outputs for `x`: a matrix-vector product with Eqn. 2 per row.
    pub fn outputs(&self, x: &[i8]) -> Vec<i16> {
        self.weights
            .iter()
            .zip(&self.biases)
            .map(|(row, &b)| {
                relu(
                    eqn2(b, row.iter().copied().zip(x.iter().copied())),
                    !self.relu,
                )
            })
            .collect()
    }
}

impl Network {
    /// The chip's input for a digit's pixels.
    pub fn inputs(&self, pixels: &[u8]) -> Vec<i8> {
        pixels
            .iter()
            .map(|&p| (p >> self.input_shift) as i8)
            .collect()
    }

    /// Every layer's outputs for `pixels`, layer by layer, in integer arithmetic.
    pub fn reference(&self, pixels: &[u8]) -> Vec<Vec<i16>> {
        let mut x = self.inputs(pixels);
        let mut all = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let y = layer.outputs(&x);
            x = y.iter().map(|&v| requantize(v, layer.shift)).collect();
            all.push(y);
        }
        all
    }

    /// The predicted digit: the argmax of the last layer's outputs.
    pub fn predict(&self, pixels: &[u8]) -> usize {
        crate::argmax(self.reference(pixels).last().expect("a network has layers"))
    }

    /// Neurons per layer.
    pub fn shape(&self) -> Vec<usize> {
        self.layers.iter().map(|l| l.biases.len()).collect()
    }

    /// The text file: a header line, `input_shift S`, then per layer a line
    /// `layer INPUTS NEURONS relu|linear shift S` and one line per neuron, `bias w1 .. wN`.
    pub fn to_text(&self, comment: &str) -> String {
        let mut s = String::new();
        for line in comment.lines() {
            writeln!(s, "# {line}").unwrap();
        }
        writeln!(s, "{HEADER}\ninput_shift {}", self.input_shift).unwrap();
        for layer in &self.layers {
            let inputs = layer.weights.first().map_or(0, Vec::len);
            writeln!(
                s,
                "layer {inputs} {} {} shift {}",
                layer.biases.len(),
                if layer.relu { "relu" } else { "linear" },
                layer.shift
            )
            .unwrap();
            for (row, b) in layer.weights.iter().zip(&layer.biases) {
                let values: Vec<String> =
                    std::iter::once(b).chain(row).map(i8::to_string).collect();
                writeln!(s, "{}", values.join(" ")).unwrap();
            }
        }
        s
    }

    /// Reads and checks a weight file: a wrong shape, a value outside -128..=127 or a
    /// malformed line is an error naming the line.
    pub fn load(path: &Path) -> Result<Self, FileError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| FileError::new(path, None, format!("cannot read: {e}")))?;
        Self::parse(&text).map_err(|(line, message)| FileError::new(path, line, message))
    }

    fn parse(text: &str) -> Result<Self, (Option<usize>, String)> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split('#').next().unwrap().trim()))
            .filter(|(_, l)| !l.is_empty());
        let mut next = |what: &str| {
            lines
                .next()
                .ok_or((None, format!("the file ends where {what} should be")))
        };
        let (n, header) = next("the header")?;
        if header != HEADER {
            return Err((
                Some(n),
                format!("expected the header '{HEADER}', found {}", quoted(header)),
            ));
        }
        let (n, line) = next("input_shift")?;
        let input_shift = match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["input_shift", s] => {
                number(s, 0..=7).map_err(|m| (Some(n), format!("input_shift: {m}")))? as u32
            }
            _ => return Err((Some(n), format!("expected 'input_shift S', found {}", quoted(line)))),
        };
        let mut layers = Vec::new();
        let mut inputs = PIXELS;
        while let Ok((n, line)) = next("a layer") {
            let words: Vec<&str> = line.split_whitespace().collect();
            let (declared, neurons, relu, shift) =
                match words[..] {
                    ["layer", i, o, act @ ("relu" | "linear"), "shift", s] => {
                        let at = |m: String| (Some(n), m);
                        (
                            number(i, 1..=65535).map_err(at)?,
                            number(o, 1..=65535).map_err(at)?,
                            act == "relu",
                            number(s, 0..=15).map_err(at)? as u32,
                        )
                    }
                    _ => return Err((
                        Some(n),
                        format!(
                            "expected 'layer INPUTS NEURONS relu|linear shift S', found {}",
                            quoted(line)
                        ),
                    )),
                };
            if declared as usize != inputs {
                return Err((
                    Some(n),
                    format!(
                        "layer {} takes {declared} inputs, but its input has {inputs} values",
                        layers.len() + 1
                    ),
                ));
            }
            let (mut weights, mut biases) = (Vec::new(), Vec::new());
            for k in 0..neurons {
                let (n, line) = next(&format!("neuron {} of layer {}", k + 1, layers.len() + 1))?;
                let values = line
                    .split_whitespace()
                    .map(|v| number(v, -128..=127).map(|v| v as i8))
                    .collect::<Result<Vec<i8>, _>>()
                    .map_err(|m| (Some(n), m))?;
                if values.len() != inputs + 1 {
                    return Err((
                        Some(n),
                        format!(
                            "{} values, expected a bias and {inputs} weights",
                            values.len()
                        ),
                    ));
                }
                biases.push(values[0]);
                weights.push(values[1..].to_vec());
            }
            inputs = neurons as usize;
            layers.push(Layer {
                weights,
                biases,
                relu,
                shift,
            });
        }
        if layers.is_empty() {
            return Err((None, "no layers".into()));
        }
        Ok(Self {
            input_shift,
            layers,
        })
    }
}

const HEADER: &str = "npu-mnist-mlp 1";

fn number(word: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, String> {
    let v: i64 = word
        .parse()
        .map_err(|_| format!("{} is not an integer", quoted(word)))?;
    if range.contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{v} is outside {}..={}",
            range.start(),
            range.end()
        ))
    }
}
