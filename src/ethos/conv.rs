//! The plain-integer reference of a quantized int8 convolution: exactly what TFLite's
//! reference kernels compute (`reference_integer_ops::ConvPerChannel` and
//! `DepthwiseConvPerChannel`, with the parameters `kernel_util.cc`'s
//! `PopulateConvolutionQuantizationParams` and `CalculateActivationRangeQuantized` derive),
//! written out so that each step a datapath performs can be called on its own:
//!
//! 1. [`accumulators`]: per output element the int32 sum over the kernel window of
//!    `weight * (input - input_zero_point)`, taps outside the input skipped (zero padding,
//!    offsets from [`padding_offsets`]), plus the channel's bias;
//! 2. [`channel_scales`]: per output channel the effective scale
//!    `input_scale * weight_scale / output_scale` in double ([`effective_scale`]) turned into a
//!    31-bit multiplier and a shift ([`quantize_multiplier`]);
//! 3. [`multiply_by_quantized_multiplier`]: the accumulator scaled by TFLite's two-stage
//!    double rounding;
//! 4. [`requantize`]: plus the output zero point, clamped to [`activation_range`].
//!
//! [`reference`] chains them. `tests/ethos_tflite.rs` checks it element for element against
//! TFLite itself ([`crate::ethos::tflite`]). [`random_layer`] draws the layers for that test.
//!
//! TFLite's arithmetic is C++ on int32 whose overflow is undefined; where it can overflow
//! (the accumulator sum, which the layers here keep far from 2^31, and the left shift of
//! [`multiply_by_quantized_multiplier`]) this module wraps, as the compiled kernels do.
use crate::ethos::tflite::{dilated_kernel, output_shape, Activation, ConvLayer, Padding};
use rand::Rng;

/// `x = significand * 2^exponent` with `|significand|` in [0.5, 1), as C's `frexp`
/// (0, infinities and NaN are returned as they are, with exponent 0).
pub(crate) fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * 2f64.powi(64), -64) // subnormal: normalise first
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let significand = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (significand, exponent + bias)
}

/// TFLite's `QuantizeMultiplier` (double-rounding build): `real ≈ multiplier * 2^(shift - 31)`
/// with `multiplier` in [2^30, 2^31) for positive `real`. The significand of `frexp(real)` is
/// rounded half away from zero to 31 bits; if that rounds up to 2^31 it is halved and the
/// shift raised by one. A shift below -31 (`real` below about 2^-32) gives `(0, 0)`, as does
/// `real == 0`. `shift > 0` is a left shift.
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (significand, mut shift) = frexp(real);
    let mut fixed = (significand * (1u64 << 31) as f64).round() as i64;
    assert!(fixed <= 1 << 31, "QuantizeMultiplier of {real}");
    if fixed == 1 << 31 {
        fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    (fixed as i32, shift)
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul`: `a * b / 2^31` rounded to nearest, ties
/// toward +infinity (the nudge is `2^30` for a non-negative product, `1 - 2^30` for a negative
/// one, and the division truncates); `a == b == i32::MIN` saturates to `i32::MAX`.
pub fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    let product = i64::from(a) * i64::from(b);
    let nudge = if product >= 0 { 1 << 30 } else { 1 - (1 << 30) };
    ((product + nudge) / (1 << 31)) as i32
}

/// gemmlowp's `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away from
/// zero. `exponent` 0..=31.
pub fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    assert!(exponent <= 31, "RoundingDivideByPOT by 2^{exponent}");
    let mask = ((1i64 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// TFLite's `MultiplyByQuantizedMultiplier(int32_t x, ...)` of the default (double-rounding)
/// build: `x` shifted left by `max(shift, 0)` (in int32, wrapping on overflow as the
/// compiled kernel does), [`saturating_rounding_doubling_high_mul`] by `multiplier`, then
/// [`rounding_divide_by_pot`] by `max(-shift, 0)`. `shift` -31..=30.
pub fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    assert!((-31..=30).contains(&shift), "shift {shift} out of -31..=30");
    let left = shift.max(0) as u32;
    let right = (-shift).max(0) as u32;
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(x.wrapping_mul(1 << left), multiplier),
        right,
    )
}

/// The same scaling as one multiply, one add and one arithmetic shift, as the TOSA reference
/// model's `apply_scale_32(x, multiplier, 31 - shift, double_round = true)` writes it:
/// `(x * multiplier + 2^(30 - shift) ± 2^30 [the ± term only when shift < 0, its sign that of
/// x]) >> (31 - shift)`, in 64 bits, not narrowed. It equals
/// [`multiply_by_quantized_multiplier`] for every `multiplier` >= 0 whenever `x * 2^shift`
/// fits in int32 for `shift > 0` (always for `shift <= 0`); where that left shift overflows,
/// TFLite wraps and this does not (module tests, `tests/ethos_tflite.rs`).
pub fn tosa_apply_scale_32(x: i32, multiplier: i32, shift: i32) -> i64 {
    assert!((-31..=30).contains(&shift), "shift {shift} out of -31..=30");
    let total = 31 - shift;
    let mut round = 1i64 << (total - 1);
    if shift < 0 {
        round += if x >= 0 { 1 << 30 } else { -(1 << 30) };
    }
    (i64::from(x) * i64::from(multiplier) + round) >> total
}

/// `input_scale * weight_scales[channel] / output_scale` in double, from the f32 scales, in
/// the order TFLite's `PopulateConvolutionQuantizationParams` evaluates it.
pub fn effective_scale(layer: &ConvLayer, channel: usize) -> f64 {
    f64::from(layer.input_scale) * f64::from(layer.weight_scales[channel])
        / f64::from(layer.output_scale)
}

/// Per output channel, [`quantize_multiplier`] of its [`effective_scale`]:
/// `(multiplier, shift)`.
pub fn channel_scales(layer: &ConvLayer) -> Vec<(i32, i32)> {
    (0..layer.out_channels)
        .map(|o| quantize_multiplier(effective_scale(layer, o)))
        .collect()
}

/// The zero border above and left of the input (top, left), as TFLite's
/// `ComputePaddingWithOffset`: half the total padding `(out - 1) * stride + dilated kernel -
/// in` (if positive), rounded down; the odd element goes below and right. VALID gives (0, 0).
pub fn padding_offsets(layer: &ConvLayer) -> (usize, usize) {
    let (out_h, out_w, _) = output_shape(layer);
    let (kh, kw) = dilated_kernel(layer);
    let (h, w, _) = layer.input_shape;
    let pad = |out: usize, stride: usize, kernel: usize, input: usize| {
        ((out.max(1) - 1) * stride + kernel).saturating_sub(input) / 2
    };
    (
        pad(out_h, layer.stride.0, kh, h),
        pad(out_w, layer.stride.1, kw, w),
    )
}

/// The IFM element (y, x) under kernel tap `(fy, fx)` of output element `(oy, ox)`, or `None`
/// where the tap falls on padding: `o·stride + f·dilation - pad`.
pub fn input_tap(layer: &ConvLayer, (oy, ox): (usize, usize), (fy, fx): (usize, usize)) -> Option<(usize, usize)> {
    let (pad_top, pad_left) = padding_offsets(layer);
    let (h, w, _) = layer.input_shape;
    let y = (oy * layer.stride.0 + fy * layer.dilation.0).checked_sub(pad_top).filter(|&y| y < h)?;
    let x = (ox * layer.stride.1 + fx * layer.dilation.1).checked_sub(pad_left).filter(|&x| x < w)?;
    Some((y, x))
}

/// The int32 accumulator of every output element (NHWC order, [`output_shape`]) before
/// scaling: the sum over the in-image taps of `weight * (input - input_zero_point)`, plus the
/// channel's bias. Conv: all input channels of the tap; depthwise: the output's own channel.
pub fn accumulators(layer: &ConvLayer) -> Vec<i32> {
    layer
        .check()
        .unwrap_or_else(|e| panic!("{e}: {}", layer.describe()));
    let (out_h, out_w, out_c) = output_shape(layer);
    let (_, w, c) = layer.input_shape;
    let (kh, kw) = layer.kernel;
    let zero_point = i32::from(layer.input_zero_point);
    let mut sums = Vec::with_capacity(out_h * out_w * out_c);
    for oy in 0..out_h {
        for ox in 0..out_w {
            for o in 0..out_c {
                let mut acc = 0i32;
                for fy in 0..kh {
                    for fx in 0..kw {
                        let Some((y, x)) = input_tap(layer, (oy, ox), (fy, fx)) else {
                            continue;
                        };
                        let pixel = &layer.input[(y * w + x) * c..][..c];
                        if layer.depthwise {
                            let weight = layer.weights[(fy * kw + fx) * c + o];
                            acc = acc.wrapping_add(
                                i32::from(weight) * (i32::from(pixel[o]) - zero_point),
                            );
                        } else {
                            let weights = &layer.weights[((o * kh + fy) * kw + fx) * c..][..c];
                            for (&weight, &value) in weights.iter().zip(pixel) {
                                acc = acc.wrapping_add(
                                    i32::from(weight) * (i32::from(value) - zero_point),
                                );
                            }
                        }
                    }
                }
                sums.push(acc.wrapping_add(layer.bias[o]));
            }
        }
    }
    sums
}

/// TFLite's `Quantize(scale, zero_point, f)` of `kernel_util.cc`: `zero_point +
/// roundf(f / scale)`, the division and rounding (half away from zero) in f32.
fn quantize_real(scale: f32, zero_point: i8, real: f32) -> i64 {
    i64::from(zero_point) + (real / scale).round() as i64
}

/// The output clamp range (min, max) as TFLite's `CalculateActivationRangeQuantized` for an
/// int8 output: -128..=127, narrowed for RELU to values >= the quantized 0.0, for RELU6 to
/// the quantized 0.0..=6.0, for RELU_N1_TO_1 to the quantized -1.0..=1.0.
pub fn activation_range(layer: &ConvLayer) -> (i32, i32) {
    let (qmin, qmax) = (i64::from(i8::MIN), i64::from(i8::MAX));
    let q = |real| quantize_real(layer.output_scale, layer.output_zero_point, real);
    let (min, max) = match layer.activation {
        Activation::None => (qmin, qmax),
        Activation::Relu => (qmin.max(q(0.0)), qmax),
        Activation::Relu6 => (qmin.max(q(0.0)), qmax.min(q(6.0))),
        Activation::ReluN1To1 => (qmin.max(q(-1.0)), qmax.min(q(1.0))),
    };
    // TFLite rejects a layer whose quantized bound does not fit in int32; clamped to the
    // int8 range here it no longer matters.
    (min.clamp(qmin, qmax) as i32, max.clamp(qmin, qmax) as i32)
}

/// One output value from its accumulator: [`multiply_by_quantized_multiplier`], plus the
/// output zero point (int32, wrapping), clamped to `range` ([`activation_range`]).
pub fn requantize(
    acc: i32,
    (multiplier, shift): (i32, i32),
    output_zero_point: i8,
    (min, max): (i32, i32),
) -> i8 {
    let scaled = multiply_by_quantized_multiplier(acc, multiplier, shift);
    scaled
        .wrapping_add(i32::from(output_zero_point))
        .max(min)
        .min(max) as i8
}

/// TFLite's output of the layer (NHWC, [`output_shape`]), computed in integers.
pub fn reference(layer: &ConvLayer) -> Vec<i8> {
    let scales = channel_scales(layer);
    let range = activation_range(layer);
    accumulators(layer)
        .into_iter()
        .enumerate()
        .map(|(i, acc)| {
            let o = i % layer.out_channels;
            requantize(acc, scales[o], layer.output_zero_point, range)
        })
        .collect()
}

/// `10^u` with `u` uniform in `lo..hi`.
fn log_uniform<R: Rng + ?Sized>(rng: &mut R, lo: f64, hi: f64) -> f64 {
    10f64.powf(rng.gen_range(lo.log10()..hi.log10()))
}

/// A zero point: often an extreme or 0, otherwise any.
fn zero_point<R: Rng + ?Sized>(rng: &mut R) -> i8 {
    match rng.gen_range(0..10) {
        0 => -128,
        1 => 127,
        2 => 0,
        _ => rng.gen(),
    }
}

/// A random layer for differential tests, small enough to run hundreds in seconds: input
/// 1..=12 x 1..=12 x 1..=24, 1..=24 output channels, kernels mostly 1x1 and 3x3 (some 2x2,
/// 5x5, 1x3, 3x1), strides 1 or 2 per axis, SAME or VALID, any activation, about a third
/// depthwise. Zero points are often -128, 127 or 0; the input scale is 0.001..0.1; weight
/// scales are spread over up to six decades across the channels; the data comes in several
/// distributions (uniform, narrow, extremes, sparse); one layer in eight has power-of-two
/// scales (exact multipliers, rounding ties). The output scale is set from the
/// layer's real accumulator range, so that some layers saturate much of their output and
/// others little or none; one in ten has effective scales above 1 (left shifts, with some
/// accumulators that overflow int32 when shifted).
pub fn random_layer<R: Rng + ?Sized>(rng: &mut R) -> ConvLayer {
    random_layer_with_depths(rng, 1..=24)
}

/// [`random_layer`] with an IFM depth from `depths`.
pub fn random_layer_with_depths<R: Rng + ?Sized>(rng: &mut R, depths: std::ops::RangeInclusive<usize>) -> ConvLayer {
    let depthwise = rng.gen_bool(0.35);
    let kernel = match rng.gen_range(0..20) {
        0..=5 => (1, 1),
        6..=13 => (3, 3),
        14 | 15 => (2, 2),
        16 | 17 => (5, 5),
        18 => (1, 3),
        _ => (3, 1),
    };
    let stride = match rng.gen_range(0..6) {
        0..=2 => (1, 1),
        3 | 4 => (2, 2),
        _ => (rng.gen_range(1..=2), rng.gen_range(1..=2)),
    };
    let padding = if rng.gen_bool(0.5) {
        Padding::Same
    } else {
        Padding::Valid
    };
    let activation = Activation::ALL[rng.gen_range(0..4)];
    let smallest = |k: usize| if padding == Padding::Valid { k } else { 1 };
    let h = rng.gen_range(smallest(kernel.0)..=12);
    let w = rng.gen_range(smallest(kernel.1)..=12);
    let c = rng.gen_range(depths);
    let out_channels = if depthwise { c } else { rng.gen_range(1..=24) };
    let input_zero_point = zero_point(rng);
    // One layer in eight has "round" scales: powers of two, weight scales also times 0.75 or
    // 0.625, so that the multipliers are exact (2^30, 3 * 2^29, 5 * 2^28) and the rounding
    // ties of both stages occur.
    let exact = rng.gen_bool(0.125);
    let round = |scale: f64| {
        if exact {
            2f64.powi(scale.log2().round() as i32)
        } else {
            scale
        }
    };
    let input_scale = round(log_uniform(rng, 0.001, 0.1)) as f32;

    let input: Vec<i8> = match rng.gen_range(0..6) {
        0 => (0..h * w * c)
            .map(|_| if rng.gen() { 127 } else { -128 })
            .collect(),
        1 => {
            // narrow, around the zero point
            let centre = i32::from(input_zero_point);
            (0..h * w * c)
                .map(|_| (centre + rng.gen_range(-8..=8)).clamp(-128, 127) as i8)
                .collect()
        }
        _ => (0..h * w * c).map(|_| rng.gen()).collect(),
    };
    let n_weights = kernel.0 * kernel.1 * c * if depthwise { 1 } else { out_channels };
    let weights: Vec<i8> = match rng.gen_range(0..8) {
        0 => (0..n_weights)
            .map(|_| if rng.gen() { 127 } else { -127 })
            .collect(),
        1 => (0..n_weights).map(|_| rng.gen_range(-3..=3)).collect(),
        2 => (0..n_weights)
            .map(|_| {
                if rng.gen_bool(0.8) {
                    0
                } else {
                    rng.gen_range(-127..=127)
                }
            })
            .collect(),
        _ => (0..n_weights).map(|_| rng.gen_range(-127..=127)).collect(),
    };
    let base = log_uniform(rng, 1e-4, 1e-1);
    let spread = [0.0, 0.5, 1.5, 3.0][rng.gen_range(0..4)];
    let weight_scales: Vec<f32> = (0..out_channels)
        .map(|_| {
            let fraction = [1.0, 0.75, 0.625][rng.gen_range(0..3)];
            let scale = base * 10f64.powf(rng.gen_range(-spread..=spread));
            if exact {
                (round(scale) * fraction) as f32
            } else {
                scale as f32
            }
        })
        .collect();
    let bias_magnitude = [0, 100, 10_000, 1_000_000, 1 << 24][rng.gen_range(0..5)];
    let bias: Vec<i32> = (0..out_channels)
        .map(|_| rng.gen_range(-bias_magnitude..=bias_magnitude))
        .collect();
    let mut layer = ConvLayer {
        input_shape: (h, w, c),
        input,
        input_scale,
        input_zero_point,
        kernel,
        out_channels,
        weights,
        weight_scales,
        bias,
        output_scale: 1.0,
        output_zero_point: zero_point(rng),
        stride,
        dilation: (1, 1),
        padding,
        activation,
        depthwise,
    };

    let output_scale = if rng.gen_bool(0.1) {
        // Effective scales above 1 on the channels with the largest weight scale: shifts of
        // 1..=12 to the left.
        let largest = layer.weight_scales.iter().copied().fold(0.0, f32::max);
        f64::from(layer.input_scale) * f64::from(largest) / log_uniform(rng, 1.5, 4096.0)
    } else {
        // The largest real accumulator maps to 10..1000 output steps: above 127 steps part
        // of the output saturates.
        let real_max = accumulators(&layer)
            .iter()
            .enumerate()
            .map(|(i, &acc)| {
                f64::from(acc).abs()
                    * f64::from(layer.input_scale)
                    * f64::from(layer.weight_scales[i % out_channels])
            })
            .fold(0.0, f64::max);
        let real_max = if real_max > 0.0 {
            real_max
        } else {
            f64::from(layer.input_scale) * base * 1000.0
        };
        real_max / log_uniform(rng, 10.0, 1000.0)
    };
    layer.output_scale = round(output_scale) as f32;
    if layer.check().is_err() {
        // RELU6 or RELU_N1_TO_1 with a bound TFLite cannot quantize: a tiny output scale.
        layer.activation = [Activation::None, Activation::Relu][rng.gen_range(0..2)];
    }
    layer
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::SmallRng, SeedableRng};

    #[test]
    fn frexp_as_c() {
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(0.75), (0.75, 0));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(2f64.powi(-40)), (0.5, -39));
        assert_eq!(frexp(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
        assert_eq!(frexp(0.0), (0.0, 0));
    }

    #[test]
    fn quantize_multiplier_as_tflite() {
        // Powers of two: multiplier 2^30.
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(0.25), (1 << 30, -1));
        assert_eq!(quantize_multiplier(4.0), (1 << 30, 3));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        // 0.75 * 2^31 exactly.
        assert_eq!(quantize_multiplier(0.75), (0x6000_0000, 0));
        // 0.1 = 0.8 * 2^-3: round(0.8 * 2^31) = 1717986918.4 -> 1717986918.
        assert_eq!(quantize_multiplier(0.1), (1_717_986_918, -3));
        // A tie of the 31-bit rounding goes away from zero: (2^30 + 0.5) / 2^31.
        let tie = (f64::from(1 << 30) + 0.5) / 2f64.powi(31);
        assert_eq!(quantize_multiplier(tie), ((1 << 30) + 1, 0));
        assert_eq!(quantize_multiplier(-tie), (-(1 << 30) - 1, 0));
        // A significand that rounds up to 2^31 is halved and the shift raised.
        let almost_one = 1.0 - 2f64.powi(-33);
        assert_eq!(quantize_multiplier(almost_one), (1 << 30, 1));
        assert_eq!(quantize_multiplier(almost_one / 8.0), (1 << 30, -2));
        // Just below the halving: 1 - 2^-31 rounds to 2^31 - 1.
        assert_eq!(quantize_multiplier(1.0 - 2f64.powi(-31)), (i32::MAX, 0));
        // Shift -31 is kept; below it the multiplier is flushed to 0.
        assert_eq!(quantize_multiplier(2f64.powi(-32)), (1 << 30, -31));
        assert_eq!(quantize_multiplier(0.99 * 2f64.powi(-32)), (0, 0));
        assert_eq!(quantize_multiplier(2f64.powi(-33)), (0, 0));
        // Large scales: left shifts beyond 31 (TFLite's double-rounding build keeps them).
        assert_eq!(quantize_multiplier(2f64.powi(40)), (1 << 30, 41));
        assert_eq!(quantize_multiplier(3.0), (0x6000_0000, 2));
    }

    #[test]
    fn srdhm_and_rounding_divide_as_gemmlowp() {
        // a * b / 2^31, ties toward +infinity.
        assert_eq!(saturating_rounding_doubling_high_mul(3, 1 << 30), 2); // 1.5 -> 2
        assert_eq!(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1); // -1.5 -> -1
        assert_eq!(saturating_rounding_doubling_high_mul(1, 1 << 30), 1); // 0.5 -> 1
        assert_eq!(saturating_rounding_doubling_high_mul(-1, 1 << 30), 0); // -0.5 -> 0
        assert_eq!(saturating_rounding_doubling_high_mul(-1, (1 << 30) + 1), -1); // < -0.5
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
            i32::MAX
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MAX),
            -i32::MAX
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MAX, i32::MAX),
            i32::MAX - 1
        );
        // x / 2^e, ties away from zero.
        assert_eq!(rounding_divide_by_pot(5, 1), 3); // 2.5
        assert_eq!(rounding_divide_by_pot(-5, 1), -3); // -2.5
        assert_eq!(rounding_divide_by_pot(-7, 2), -2); // -1.75
        assert_eq!(rounding_divide_by_pot(6, 2), 2); // 1.5
        assert_eq!(rounding_divide_by_pot(-6, 2), -2); // -1.5
        assert_eq!(rounding_divide_by_pot(-5, 2), -1); // -1.25
        assert_eq!(rounding_divide_by_pot(i32::MIN, 31), -1);
        assert_eq!(rounding_divide_by_pot(i32::MAX, 31), 1);
        assert_eq!(rounding_divide_by_pot(1 << 30, 31), 1); // 0.5
        assert_eq!(rounding_divide_by_pot(-(1 << 30), 31), -1); // -0.5
        assert_eq!(rounding_divide_by_pot(-(1 << 30) + 1, 31), 0);
        assert_eq!(rounding_divide_by_pot(-17, 0), -17);
    }

    #[test]
    fn multiply_by_quantized_multiplier_as_tflite() {
        let m = |x, real| {
            let (multiplier, shift) = quantize_multiplier(real);
            multiply_by_quantized_multiplier(x, multiplier, shift)
        };
        // Scale 0.5 (multiplier 2^30, shift 0): the only rounding is SRDHM's, ties up.
        assert_eq!(m(3, 0.5), 2);
        assert_eq!(m(-3, 0.5), -1);
        // Scale 0.25 (shift -1): SRDHM is exact, RDBPOT's ties go away from zero.
        assert_eq!(m(6, 0.25), 2); // 1.5
        assert_eq!(m(-6, 0.25), -2); // -1.5
        assert_eq!(m(-2, 0.25), -1); // -0.5
        assert_eq!(m(2, 0.25), 1); // 0.5
                                   // Two roundings: 3 * 0.375 = 1.125: SRDHM 3 * 0.75 = 2.25 -> 2, then 2 / 2 -> 1;
                                   // 5 * 0.375 = 1.875: SRDHM 3.75 -> 4, then 4 / 2 -> 2.
        assert_eq!(m(3, 0.375), 1);
        assert_eq!(m(5, 0.375), 2);
        // Where two roundings differ from one: 2 * 0.1875 = 0.375 would round to 0, but SRDHM
        // gives 2 * 0.75 = 1.5 -> 2 and RDBPOT 2 / 4 = 0.5 -> 1 (tie away from zero). For -2
        // SRDHM's tie goes up: -1.5 -> -1, then -0.25 -> 0.
        assert_eq!(m(2, 0.1875), 1);
        assert_eq!(m(-2, 0.1875), 0);
        // A multiplier a little above 2^30: 21 * (2^30 + 16) / 2^31 = 10.50000016 -> 11,
        // then 11 / 16 -> 1.
        assert_eq!(multiply_by_quantized_multiplier(21, (1 << 30) + 16, -4), 1);
        // Left shifts: x * 2^shift first.
        assert_eq!(m(100, 3.0), 300);
        assert_eq!(m(-100, 1.5), -150);
        assert_eq!(m(7, 1024.0), 7168);
        // The left shift wraps as the compiled C++ does: 2^29 * 4 -> i32::MIN, times 0.5.
        let (multiplier, shift) = quantize_multiplier(2.0); // (2^30, 2)
        assert_eq!(
            multiply_by_quantized_multiplier(1 << 29, multiplier, shift),
            -(1 << 30)
        );
        // Largest right shift.
        assert_eq!(multiply_by_quantized_multiplier(i32::MAX, i32::MAX, -31), 1);
        assert_eq!(
            multiply_by_quantized_multiplier(i32::MIN, i32::MAX, -31),
            -1
        );
        assert_eq!(multiply_by_quantized_multiplier(1 << 30, 1 << 30, -31), 0); // 0.25
        assert_eq!(multiply_by_quantized_multiplier(i32::MAX, 0, -31), 0);
        assert_eq!(multiply_by_quantized_multiplier(-1, 1 << 30, 0), 0);
        assert_eq!(
            multiply_by_quantized_multiplier(i32::MIN, 1 << 30, 0),
            -(1 << 30)
        );
    }

    fn agree(x: i32, multiplier: i32, shift: i32) {
        let two_stage = multiply_by_quantized_multiplier(x, multiplier, shift);
        let fits = shift <= 0 || i64::from(x) << shift == i64::from(x.wrapping_shl(shift as u32));
        let single = tosa_apply_scale_32(x, multiplier, shift);
        if fits {
            assert_eq!(
                i64::from(two_stage),
                single,
                "x {x} multiplier {multiplier} shift {shift}"
            );
        }
    }

    #[test]
    fn single_expression_equals_two_stages() {
        let mut rng = SmallRng::seed_from_u64(7);
        let edges = [
            0,
            1,
            -1,
            2,
            -2,
            3,
            -3,
            1 << 30,
            -(1 << 30),
            (1 << 30) + 1,
            -(1 << 30) - 1,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
        ];
        let multipliers = [
            0,
            1,
            1 << 30,
            (1 << 30) + 1,
            0x6000_0000,
            i32::MAX - 1,
            i32::MAX,
        ];
        for shift in -31..=30 {
            for &x in &edges {
                for &m in &multipliers {
                    agree(x, m, shift);
                    agree(x >> 8, m, shift);
                }
            }
            for _ in 0..20_000 {
                let x = match rng.gen_range(0..3) {
                    0 => rng.gen(),
                    1 => rng.gen_range(-70_000..70_000),
                    _ => rng.gen::<i32>() >> rng.gen_range(0..31),
                };
                let m = if rng.gen() {
                    rng.gen_range(1 << 30..=i32::MAX)
                } else {
                    rng.gen_range(0..=i32::MAX)
                };
                agree(x, m, shift);
            }
        }
        // Exact ties of either stage: x * m a multiple of 2^30.
        for shift in -31..=0 {
            for k in -64..64 {
                for m in [1 << 30, 3 << 28, 5 << 27, 0x7000_0000] {
                    let x = ((i64::from(k) << 30) / i64::from(m)) as i32;
                    agree(x, m, shift);
                    agree(k, 1 << 30, shift);
                    agree(k << 4, m, shift);
                }
            }
        }
    }

    #[test]
    fn single_expression_differs_only_where_the_left_shift_overflows() {
        // 2^29 * 2^2 overflows int32: TFLite wraps to i32::MIN, the 64-bit expression not.
        let (multiplier, shift) = quantize_multiplier(2.0);
        assert_eq!(tosa_apply_scale_32(1 << 29, multiplier, shift), 1 << 30);
        assert_eq!(
            multiply_by_quantized_multiplier(1 << 29, multiplier, shift),
            -(1 << 30)
        );
    }

    fn layer_1x1(input: Vec<i8>, weights: Vec<i8>, out_channels: usize) -> ConvLayer {
        let c = input.len();
        ConvLayer {
            input_shape: (1, 1, c),
            input,
            input_scale: 0.5,
            input_zero_point: 0,
            kernel: (1, 1),
            out_channels,
            weights,
            weight_scales: vec![0.5; out_channels],
            bias: vec![0; out_channels],
            output_scale: 0.25,
            output_zero_point: 0,
            stride: (1, 1),
            dilation: (1, 1),
            padding: Padding::Valid,
            activation: Activation::None,
            depthwise: false,
        }
    }

    #[test]
    fn a_small_layer_by_hand() {
        // Two input channels (3, -2) with zero point 1: (2, -3). Weights o0 = (1, 2),
        // o1 = (-4, 5): sums 2 - 6 = -4 and -8 - 15 = -23; bias (10, 0): 6 and -23.
        let mut layer = layer_1x1(vec![3, -2], vec![1, 2, -4, 5], 2);
        layer.input_zero_point = 1;
        layer.bias = vec![10, 0];
        assert_eq!(accumulators(&layer), vec![6, -23]);
        // Effective scale 0.5 * 0.5 / 0.25 = 1: (2^30, 1).
        assert_eq!(channel_scales(&layer), vec![(1 << 30, 1); 2]);
        assert_eq!(reference(&layer), vec![6, -23]);
        layer.output_zero_point = -110;
        assert_eq!(reference(&layer), vec![-104, -128]);
        layer.activation = Activation::Relu;
        assert_eq!(activation_range(&layer), (-110, 127));
        assert_eq!(reference(&layer), vec![-104, -110]);
        layer.activation = Activation::Relu6; // 6 / 0.25 = 24 steps
        assert_eq!(activation_range(&layer), (-110, -86));
        layer.activation = Activation::ReluN1To1;
        assert_eq!(activation_range(&layer), (-114, -106));
        assert_eq!(reference(&layer), vec![-106, -114]);
        layer.output_zero_point = 127;
        layer.activation = Activation::Relu6;
        assert_eq!(activation_range(&layer), (127, 127));
    }

    #[test]
    fn activation_range_rounds_half_away_from_zero_in_f32() {
        let mut layer = layer_1x1(vec![0], vec![0], 1);
        layer.output_scale = 4.0; // 6 / 4 = 1.5 -> 2; -1 / 4 = -0.25 -> 0
        layer.output_zero_point = 10;
        layer.activation = Activation::Relu6;
        assert_eq!(activation_range(&layer), (10, 12));
        layer.activation = Activation::ReluN1To1;
        assert_eq!(activation_range(&layer), (10, 10));
        layer.output_scale = 0.4; // 1 / 0.4 = 2.5 -> 3
        assert_eq!(activation_range(&layer), (7, 13));
    }

    #[test]
    fn same_padding_puts_the_odd_element_below() {
        let mut layer = layer_1x1(vec![0; 4 * 5], vec![0; 9], 1);
        layer.input_shape = (4, 5, 1);
        layer.kernel = (3, 3);
        layer.padding = Padding::Same;
        assert_eq!(output_shape(&layer), (4, 5, 1));
        assert_eq!(padding_offsets(&layer), (1, 1));
        layer.stride = (2, 2); // out 2 x 3: total (1*2+3-4)=1 -> 0, (2*2+3-5)=2 -> 1
        assert_eq!(output_shape(&layer), (2, 3, 1));
        assert_eq!(padding_offsets(&layer), (0, 1));
        layer.kernel = (2, 2); // total (2+2-4)=0, (4+2-5)=1 -> 0
        assert_eq!(padding_offsets(&layer), (0, 0));
        layer.kernel = (5, 5);
        layer.stride = (1, 1);
        assert_eq!(padding_offsets(&layer), (2, 2));
        layer.kernel = (3, 3);
        layer.padding = Padding::Valid;
        assert_eq!(output_shape(&layer), (2, 3, 1));
        assert_eq!(padding_offsets(&layer), (0, 0));
    }

    #[test]
    fn depthwise_uses_its_own_channel() {
        // 2x2 input, 2 channels, 2x2 kernel VALID: one output pixel per channel.
        let mut layer = layer_1x1(
            vec![1, 10, 2, 20, 3, 30, 4, 40],
            vec![1, -1, 1, -1, 1, -1, 1, -1],
            2,
        );
        layer.input_shape = (2, 2, 2);
        layer.kernel = (2, 2);
        layer.depthwise = true;
        assert_eq!(accumulators(&layer), vec![10, -100]);
    }

    #[test]
    fn random_layers_are_valid() {
        let mut rng = SmallRng::seed_from_u64(1);
        for _ in 0..300 {
            let layer = random_layer(&mut rng);
            layer.check().unwrap();
            assert!(layer.output_scale.is_normal() && layer.output_scale > 0.0);
            assert_eq!(reference(&layer).len(), {
                let (h, w, c) = output_shape(&layer);
                h * w * c
            });
        }
    }
}
