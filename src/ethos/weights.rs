//! Weight streams for the tests and benchmarks of the Ethos-U65 weight decoder: value
//! distributions that steer the encoder into each of its coding modes, and realistic
//! quantized convolution kernels.
use rand::Rng;

/// Largest weight magnitude (9-bit signed weights).
const MAX: i16 = crate::ethos::encoder::MAX_MAGNITUDE;

/// A distribution of weight values in -255..=255.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// Uniform over the full range: no palette, large indices.
    Dense,
    /// Mostly zeros in runs of geometric length (some of thousands), small values between:
    /// alternating mode.
    Sparse,
    /// At most 32 distinct values with uneven frequencies: palette mode.
    FewValues,
    /// All zeros.
    Zeros,
    /// A single weight (whatever `len` is asked for).
    Single,
    /// Runs of equal values.
    Blocky,
    /// Laplace-distributed small values, like trained weights.
    Laplacian,
    /// Magnitudes 240..=255 of either sign: the largest codes and indices, 9-bit palette
    /// entries.
    Extremes,
}

impl Distribution {
    pub const ALL: [Distribution; 8] = [
        Self::Dense,
        Self::Sparse,
        Self::FewValues,
        Self::Zeros,
        Self::Single,
        Self::Blocky,
        Self::Laplacian,
        Self::Extremes,
    ];

    /// `len` weights (one for [`Distribution::Single`]).
    pub fn sample(&self, rng: &mut impl Rng, len: usize) -> Vec<i16> {
        match self {
            Self::Dense => (0..len).map(|_| rng.gen_range(-MAX..=MAX)).collect(),
            Self::Sparse => {
                let mean_run = if rng.gen_bool(0.2) {
                    rng.gen_range(200.0..3000.0)
                } else {
                    rng.gen_range(2.0..50.0)
                };
                let scale = rng.gen_range(1.0..30.0);
                let mut out = Vec::with_capacity(len);
                while out.len() < len {
                    let run = geometric(rng, mean_run).min(len - out.len());
                    out.resize(out.len() + run, 0);
                    if out.len() < len {
                        out.push(loop {
                            match laplace(rng, scale) {
                                0 => continue,
                                v => break v,
                            }
                        });
                    }
                }
                out
            }
            Self::FewValues => {
                let mut values: Vec<i16> = (0..rng.gen_range(1..=32))
                    .map(|_| rng.gen_range(-MAX..=MAX))
                    .collect();
                values.sort_unstable();
                values.dedup();
                // Squaring a uniform draw makes the first values the frequent ones.
                (0..len)
                    .map(|_| values[(rng.gen::<f64>().powi(2) * values.len() as f64) as usize])
                    .collect()
            }
            Self::Zeros => vec![0; len],
            Self::Single => vec![rng.gen_range(-MAX..=MAX)],
            Self::Blocky => {
                let small = rng.gen_bool(0.5);
                let mut out = Vec::with_capacity(len);
                while out.len() < len {
                    let value = if small {
                        rng.gen_range(-4..=4)
                    } else {
                        rng.gen_range(-MAX..=MAX)
                    };
                    let run = rng.gen_range(1..=64).min(len - out.len());
                    out.resize(out.len() + run, value);
                }
                out
            }
            Self::Laplacian => {
                let scale = rng.gen_range(0.5..40.0);
                (0..len).map(|_| laplace(rng, scale)).collect()
            }
            Self::Extremes => (0..len)
                .map(|_| rng.gen_range(MAX - 15..=MAX) * if rng.gen() { 1 } else { -1 })
                .collect(),
        }
    }
}

/// Geometric run length with the given mean (0 included).
fn geometric(rng: &mut impl Rng, mean: f64) -> usize {
    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    (u.ln() / (mean / (mean + 1.0)).ln()) as usize
}

/// A Laplace(0, scale) draw rounded and clamped to -255..=255.
fn laplace(rng: &mut impl Rng, scale: f64) -> i16 {
    laplace_f64(rng, scale)
        .round()
        .clamp(-f64::from(MAX), f64::from(MAX)) as i16
}

fn laplace_f64(rng: &mut impl Rng, scale: f64) -> f64 {
    let u: f64 = rng.gen_range(-0.5..0.5);
    -scale * u.signum() * (1.0 - 2.0 * u.abs()).max(f64::MIN_POSITIVE).ln()
}

/// A convolution kernel in OHWI order as a TFLite int8 model holds it: float weights from a
/// Laplace distribution (trained weights are heavy-tailed), quantized symmetrically per
/// output channel so that the largest magnitude becomes 127. The float scale (He-style
/// `sqrt(2/fan_in)`) cancels in the per-channel quantization, so it is not modelled.
pub fn conv_weights(rng: &mut impl Rng, ofm: usize, kh: usize, kw: usize, ifm: usize) -> Vec<i16> {
    let per_channel = kh * kw * ifm;
    let mut out = Vec::with_capacity(ofm * per_channel);
    for _ in 0..ofm {
        let floats: Vec<f64> = (0..per_channel).map(|_| laplace_f64(rng, 1.0)).collect();
        let max_abs = floats.iter().fold(f64::MIN_POSITIVE, |m, f| m.max(f.abs()));
        out.extend(floats.iter().map(|f| (f / max_abs * 127.0).round() as i16));
    }
    out
}

/// Reads a weights file as `npu ethos encode` takes it: integers -255..=255 (9-bit weights,
/// seeds/000 §4.7, digest §1.8) separated by white space, `#` to the end of a line a
/// comment. The first bad word is the error: its 1-based line and a message naming it.
/// A value outside the range is refused here, with its line, rather than by the encoder,
/// which can only name its position among the weights.
pub fn parse_weights(text: &str) -> Result<Vec<i16>, (usize, String)> {
    let mut weights = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or_default();
        for word in code.split_whitespace() {
            // Parsed wider than a weight, so that 300 and 70000 both get the range message.
            let weight = match word.parse::<i64>() {
                Ok(v) if (-i64::from(MAX)..=i64::from(MAX)).contains(&v) => v as i16,
                Ok(_) => return Err((n + 1, format!("'{word}' is outside -{MAX}..{MAX}"))),
                Err(_) => return Err((n + 1, format!("'{word}' is not a weight (an integer -{MAX}..{MAX})"))),
            };
            weights.push(weight);
        }
    }
    Ok(weights)
}
