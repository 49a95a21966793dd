//! TensorFlow Lite itself (PyPI `ai-edge-litert`, reference kernels, installed on first use
//! into `build/tflite-venv`) against the plain-integer reference `npu::ethos::conv`: quantized
//! int8 CONV_2D and DEPTHWISE_CONV_2D layers, every output element identical. Spec:
//! `shared/spec/ethos-u65.md` §2 (output unit arithmetic) and §6 (operators). The random test
//! prints its seed; `SEED` repeats a run and `CYCLES` sets the number of layers.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::conv::{
    accumulators, activation_range, channel_scales, multiply_by_quantized_multiplier, random_layer,
    reference, saturating_rounding_doubling_high_mul, tosa_apply_scale_32,
};
use npu::ethos::tflite::{output_shape, Activation, ConvLayer, Padding, TfLite};
use std::time::Instant;

fn tflite() -> TfLite {
    TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `layers` through TFLite (in `batches` Python processes at once) and the reference,
/// panics at the first differing element, and counts what the layers exercised.
fn compare(test: &str, seed: u64, layers: &[ConvLayer], batches: usize) -> Coverage {
    let started = Instant::now();
    let oracle = tflite();
    let chunk = layers.len().div_ceil(batches.max(1)).max(1);
    let outputs: Vec<Vec<i8>> = std::thread::scope(|scope| {
        let runs: Vec<_> = layers
            .chunks(chunk)
            .map(|batch| scope.spawn(|| oracle.run(batch)))
            .collect();
        runs.into_iter()
            .flat_map(|run| run.join().unwrap().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    });
    let tflite_time = started.elapsed();
    let mut coverage = Coverage::default();
    let mut elements = 0;
    for (i, (layer, got)) in layers.iter().zip(&outputs).enumerate() {
        let expected = reference(layer);
        let (out_h, out_w, out_c) = output_shape(layer);
        assert_eq!(
            got.len(),
            expected.len(),
            "{test}: SEED={seed} layer {i}: output sizes"
        );
        if let Some(k) = (0..got.len()).find(|&k| got[k] != expected[k]) {
            let o = k % out_c;
            let acc = accumulators(layer)[k];
            let scale = channel_scales(layer)[o];
            panic!(
                "{test}: SEED={seed} layer {i} differs at output (y {}, x {}, c {o}) of \
                 {out_h}x{out_w}x{out_c}: TFLite {}, reference {}\n  accumulator {acc}, \
                 multiplier {} shift {}, activation range {:?}\n  layer: {}",
                k / out_c / out_w,
                k / out_c % out_w,
                got[k],
                expected[k],
                scale.0,
                scale.1,
                activation_range(layer),
                layer.describe()
            );
        }
        elements += got.len();
        count(layer, got, &mut coverage);
    }
    eprintln!(
        "{test}: {} layers, {elements} output elements equal in TFLite and the reference \
         (TFLite {:.1} s, all {:.1} s)\n{coverage}",
        layers.len(),
        tflite_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    coverage
}

/// What one layer exercised: its kind, and per output element the arithmetic's corner cases.
fn count(layer: &ConvLayer, output: &[i8], coverage: &mut Coverage) {
    coverage.hit(if layer.depthwise { "depthwise" } else { "conv" });
    coverage.hit(match layer.padding {
        Padding::Same => "padding SAME",
        Padding::Valid => "padding VALID",
    });
    coverage.hit(match layer.activation {
        Activation::None => "activation NONE",
        Activation::Relu => "activation RELU",
        Activation::Relu6 => "activation RELU6",
        Activation::ReluN1To1 => "activation RELU_N1_TO_1",
    });
    if layer.stride.0 == 2 || layer.stride.1 == 2 {
        coverage.hit("stride 2");
    }
    coverage.hit(&format!("kernel {}x{}", layer.kernel.0, layer.kernel.1));
    let scales = channel_scales(layer);
    for &(multiplier, shift) in &scales {
        if multiplier == 0 {
            coverage.hit("channel: multiplier flushed to 0");
        } else if shift > 0 {
            coverage.hit("channel: left shift");
        } else if shift <= -15 {
            coverage.hit("channel: right shift >= 15");
        }
    }
    let (min, max) = activation_range(layer);
    let zero_point = i32::from(layer.output_zero_point);
    for (k, (&acc, &out)) in accumulators(layer).iter().zip(output).enumerate() {
        let (multiplier, shift) = scales[k % layer.out_channels];
        let scaled = multiply_by_quantized_multiplier(acc, multiplier, shift);
        let value = scaled.wrapping_add(zero_point);
        match out {
            -128 => coverage.hit("output -128"),
            127 => coverage.hit("output 127"),
            _ => coverage.hit("output inside -127..=126"),
        }
        if value < -128 {
            coverage.hit("saturated low");
        } else if value > 127 {
            coverage.hit("saturated high");
        }
        if value < min && min > -128 {
            coverage.hit("clamped by the activation's minimum");
        }
        if value > max && max < 127 {
            coverage.hit("clamped by the activation's maximum");
        }
        // The two roundings' ties, and the one-expression form against the two stages.
        let left = shift.max(0) as u32;
        let fits = i64::from(acc) << left == i64::from(acc.wrapping_shl(left));
        if multiplier != 0 {
            let product = i64::from(acc.wrapping_shl(left)) * i64::from(multiplier);
            if product.rem_euclid(1 << 31) == 1 << 30 {
                coverage.hit("SRDHM tie");
            }
            if shift < 0 {
                let high = saturating_rounding_doubling_high_mul(acc, multiplier);
                let exponent = -shift;
                if i64::from(high).rem_euclid(1 << exponent) == 1 << (exponent - 1) {
                    coverage.hit("RoundingDivideByPOT tie");
                }
            }
        }
        if fits {
            assert_eq!(
                i64::from(scaled),
                tosa_apply_scale_32(acc, multiplier, shift),
                "one-expression form differs: acc {acc} multiplier {multiplier} shift {shift}"
            );
            coverage.hit("one-expression scaling equal to the two stages");
        } else {
            coverage.hit("left shift overflows int32 (TFLite wraps)");
        }
    }
}

#[test]
fn random_layers_match_tflite() {
    let run = Run::from_env("random_layers_match_tflite", 2000);
    let mut rng = run.rng();
    let layers: Vec<ConvLayer> = (0..run.cycles).map(|_| random_layer(&mut rng)).collect();
    let coverage = compare(&run.test, run.seed, &layers, 2);
    if run.cycles >= 500 {
        coverage.require(&[
            "conv",
            "depthwise",
            "padding SAME",
            "padding VALID",
            "activation NONE",
            "activation RELU",
            "activation RELU6",
            "activation RELU_N1_TO_1",
            "stride 2",
            "kernel 1x1",
            "kernel 3x3",
            "kernel 2x2",
            "kernel 5x5",
            "output -128",
            "output 127",
            "output inside -127..=126",
            "saturated low",
            "saturated high",
            "clamped by the activation's minimum",
            "clamped by the activation's maximum",
            "channel: left shift",
            "channel: right shift >= 15",
            "SRDHM tie",
            "RoundingDivideByPOT tie",
            "left shift overflows int32 (TFLite wraps)",
        ]);
        let inside = coverage.count("output inside -127..=126");
        let saturated = coverage.count("output -128") + coverage.count("output 127");
        assert!(inside > saturated, "mostly saturated outputs\n{coverage}");
    }
}

/// A layer of one value everywhere: input `value` with zero point `zero_point`, weights of
/// output channel `o` from `weight(o, index)`.
#[allow(clippy::too_many_arguments)]
fn uniform_layer(
    depthwise: bool,
    (h, w, c): (usize, usize, usize),
    kernel: (usize, usize),
    out_channels: usize,
    value: i8,
    zero_point: i8,
    weight: impl Fn(usize, usize) -> i8,
    stride: (usize, usize),
    padding: Padding,
) -> ConvLayer {
    let out_channels = if depthwise { c } else { out_channels };
    let per_channel = kernel.0 * kernel.1 * if depthwise { 1 } else { c };
    let weights = if depthwise {
        // 1HWC: channel fastest.
        (0..per_channel * c).map(|i| weight(i % c, i / c)).collect()
    } else {
        (0..per_channel * out_channels)
            .map(|i| weight(i / per_channel, i % per_channel))
            .collect()
    };
    ConvLayer {
        input_shape: (h, w, c),
        input: vec![value; h * w * c],
        input_scale: 0.05,
        input_zero_point: zero_point,
        kernel,
        out_channels,
        weights,
        weight_scales: vec![0.01; out_channels],
        bias: vec![0; out_channels],
        output_scale: 0.05,
        output_zero_point: 0,
        stride,
        dilation: (1, 1),
        padding,
        activation: Activation::None,
        depthwise,
    }
}

/// Weights by output channel: +127, -127, alternating, 0.
fn four_kinds(o: usize, i: usize) -> i8 {
    match o % 4 {
        0 => 127,
        1 => -127,
        2 if i % 2 == 0 => 127,
        2 => -127,
        _ => 0,
    }
}

fn directed_layers() -> Vec<ConvLayer> {
    let mut layers = Vec::new();
    // Inputs at -128 with zero point 127 (-255 after the offset) and at 127 with zero point
    // -128 (+255); weights +-127; outputs saturating both ways.
    for depthwise in [false, true] {
        for (value, zero_point) in [(-128, 127), (127, -128)] {
            for (kernel, stride, padding) in [
                ((3, 3), (1, 1), Padding::Same),
                ((5, 5), (2, 2), Padding::Valid),
                ((1, 1), (1, 1), Padding::Valid),
                ((5, 5), (1, 1), Padding::Same),
            ] {
                let layer = uniform_layer(
                    depthwise,
                    (6, 7, 24),
                    kernel,
                    8,
                    value,
                    zero_point,
                    four_kinds,
                    stride,
                    padding,
                );
                // The same with each output zero point and activation.
                for (out_zp, activation) in [
                    (0, Activation::None),
                    (-128, Activation::Relu),
                    (127, Activation::Relu6),
                    (-128, Activation::Relu6),
                    (5, Activation::ReluN1To1),
                ] {
                    let mut l = layer.clone();
                    l.output_zero_point = out_zp;
                    l.activation = activation;
                    layers.push(l);
                }
            }
        }
    }
    // A 1x1 input under a 5x5 SAME kernel: all taps but the centre are padding.
    let mut l = uniform_layer(
        false,
        (1, 1, 24),
        (5, 5),
        4,
        -128,
        127,
        four_kinds,
        (1, 1),
        Padding::Same,
    );
    l.bias = vec![
        1 << 30,
        -(1 << 30),
        i32::MAX - 8_000_000,
        i32::MIN + 8_000_000,
    ];
    layers.push(l);
    // Effective scale below 2^-32: the multiplier is flushed to 0, the output is the zero
    // point (clamped).
    let mut l = uniform_layer(
        false,
        (3, 3, 4),
        (3, 3),
        4,
        -128,
        127,
        four_kinds,
        (1, 1),
        Padding::Same,
    );
    l.input_scale = 0.001;
    l.weight_scales = vec![1e-4; 4];
    l.output_scale = 1e3;
    l.output_zero_point = -7;
    layers.push(l.clone());
    l.activation = Activation::Relu;
    layers.push(l);
    // Large left shifts (effective scales 2^10 to 2^20) on small and large accumulators.
    for (value, bias) in [(1, 0), (3, 0), (0, 1), (-128, 0)] {
        let mut l = uniform_layer(
            true,
            (3, 3, 4),
            (1, 1),
            4,
            value,
            0,
            |o, _| [1, -1, 127, -127][o],
            (1, 1),
            Padding::Valid,
        );
        l.input_scale = 1.0;
        l.weight_scales = vec![1.0, 2f32.powi(10), 2f32.powi(16), 2f32.powi(20)];
        l.output_scale = 1.0;
        l.bias = vec![bias; 4];
        layers.push(l);
    }
    // Ties of both roundings: a ramp of every int8 value through 1x1 weights of 1, with
    // effective scales 0.5 (SRDHM ties), 0.25 and 0.125 (RoundingDivideByPOT ties),
    // 0.375 and 0.1875 (both), 1/3.
    let scales = [0.5f32, 0.25, 0.125, 0.375, 0.1875, 1.0 / 3.0];
    for zero_point in [0, -128, 127, 3] {
        let mut l = uniform_layer(
            false,
            (16, 16, 1),
            (1, 1),
            scales.len(),
            0,
            zero_point,
            |_, _| 1,
            (1, 1),
            Padding::Valid,
        );
        l.input = (-128..=127).collect();
        l.input_scale = 1.0;
        l.weight_scales = scales.to_vec();
        l.output_scale = 1.0;
        layers.push(l);
    }
    layers
}

#[test]
fn directed_extremes_match_tflite() {
    let layers = directed_layers();
    let coverage = compare("directed_extremes_match_tflite", 0, &layers, 1);
    coverage.require(&[
        "conv",
        "depthwise",
        "output -128",
        "output 127",
        "saturated low",
        "saturated high",
        "activation RELU",
        "activation RELU6",
        "activation RELU_N1_TO_1",
        "stride 2",
        "channel: multiplier flushed to 0",
        "channel: left shift",
        "SRDHM tie",
        "RoundingDivideByPOT tie",
    ]);
    // The saturating layers: 24 channels x 9 taps x 255 x 127 per output.
    let first = &layers[0];
    let acc = accumulators(first);
    assert_eq!(acc[0], -255 * 127 * 24 * 4, "corner of a 3x3 SAME window");
    assert_eq!(acc[1], 255 * 127 * 24 * 4);
    let centre = (first.input_shape.1 + 1) * first.out_channels;
    assert_eq!(acc[centre], -255 * 127 * 24 * 9);
    assert_eq!(&reference(first)[centre..centre + 4], &[-128, 127, 0, 0]);
}

#[test]
fn a_bad_layer_is_named_before_python_runs() {
    let mut layer = uniform_layer(
        true,
        (2, 2, 3),
        (3, 3),
        3,
        0,
        0,
        |_, _| 1,
        (1, 1),
        Padding::Valid,
    );
    assert!(layer
        .check()
        .unwrap_err()
        .contains("VALID 3x3 kernel on a 2x2 input"));
    let error = tflite().run(&[layer.clone(), layer.clone()]).unwrap_err();
    assert!(error.starts_with("layer 0: VALID"), "{error}");
    layer.padding = Padding::Same;
    layer.out_channels = 4;
    assert!(layer.check().unwrap_err().contains("depthwise"));
    // An activation bound of exactly 2^31 output steps is refused (TFLite's cast is
    // undefined there); the next f32 below, 2^31 - 128 steps, fits with any zero point.
    layer.out_channels = 3;
    layer.activation = npu::ethos::tflite::Activation::ReluN1To1;
    for (scale, zero_point, fits) in [(2f32.powi(-31), 0, false), (1.0 / 2_147_483_520.0, 127, true), (1.0 / 2_147_483_520.0, -128, true)] {
        layer.output_scale = scale;
        layer.output_zero_point = zero_point;
        assert_eq!(layer.check().is_ok(), fits, "output scale {scale:e}, zero point {zero_point}: {:?}", layer.check());
    }
}
