//! Quantized int8 convolution on the Ethos-U65 convolution datapath (the rust-hdl traversal
//! unit with the weight decoder, MAC unit and output unit inside), Verilated and in lock step
//! with its model every cycle, against TensorFlow Lite's reference kernels, element by
//! element, for hundreds of random layers; and the bad inputs the unit must refuse. `SEED`
//! repeats a run, `CYCLES` sets the number of layers.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::conv::{channel_scales, random_layer, random_layer_with_depths, reference};
use npu::ethos::conv_datapath::{lockstep, ConvError, Job, Stats};
use npu::ethos::tflite::{dilated_kernel, output_shape, ConvLayer, Padding, TfLite};
use rand::Rng;
use npu::model::ethos::conv_datapath::{check_shape, In, SHAPE_KERNEL, SHAPE_WEIGHT_ROWS};
use npu::model::ethos::weight_decoder::DecodeError;

/// TFLite scales with a wrapping int32 left shift when a channel's effective scale is above 1;
/// the datapath's product is exact (docs/ethos.md): such layers are outside its contract.
fn within_contract(layer: &ConvLayer) -> bool {
    channel_scales(layer).iter().all(|&(_, shift)| shift <= 0)
}

/// One job in lock step (seed `seed`, the unit held in a quarter of the cycles with `hold`),
/// panicking with the mismatch report.
fn run_job(test: &str, seed: u64, job: &Job, hold: bool, coverage: &mut Coverage) -> Result<(Vec<i8>, Stats), ConvError> {
    let run = Run {
        test: test.into(),
        seed,
        cycles: 0,
    };
    let (result, layer_coverage) = lockstep(&run, job, hold).unwrap_or_else(|mismatch| panic!("{mismatch}\n  layer: {}", job.layer.describe()));
    coverage.merge(&layer_coverage);
    result
}

/// `layer` with dilation 2 in y, x or both, on the sides of at most 5 (a 5 dilated is 9
/// rows or columns, two sub-kernels of Vela's, SAME padding 4; a side of 9-10 dilated would
/// need a padding above the datapath's 7); a VALID layer whose dilated kernel no longer fits
/// its input becomes SAME.
fn dilated<R: Rng>(layer: ConvLayer, rng: &mut R) -> ConvLayer {
    let (kh, kw) = layer.kernel;
    let (dy, dx) = [(2, 1), (1, 2), (2, 2)][rng.gen_range(0..3)];
    let dilation = (if kh <= 5 { dy } else { 1 }, if kw <= 5 { dx } else { 1 });
    let mut layer = ConvLayer { dilation, ..layer };
    let (h, w, _) = layer.input_shape;
    let (eh, ew) = dilated_kernel(&layer);
    if layer.padding == Padding::Valid && (eh > h || ew > w) {
        layer.padding = Padding::Same;
    }
    layer
}

/// `layer` with a kernel of 9 or 10 rows and 1 to 10 columns (or the other way round), new
/// random weights: Vela's sub-kernels (at most 8 a side), walked by the datapath. SAME, or
/// VALID where the input holds the kernel.
fn large<R: Rng>(layer: ConvLayer, rng: &mut R) -> ConvLayer {
    let mut kernel = (rng.gen_range(9..=10), rng.gen_range(1..=10));
    if rng.gen_bool(0.5) {
        kernel = (kernel.1, kernel.0);
    }
    with_kernel(layer, kernel, rng)
}

/// `layer` with a kernel of 5 rows at y dilation 2 (two sub-kernels of Vela's: 4 rows and 1),
/// 1-5 columns at x dilation 1 or 2.
fn dilated_five<R: Rng>(layer: ConvLayer, rng: &mut R) -> ConvLayer {
    let layer = with_kernel(layer, (5, rng.gen_range(1..=5)), rng);
    let mut layer = ConvLayer { dilation: (2, rng.gen_range(1..=2)), ..layer };
    let (h, w, _) = layer.input_shape;
    let (eh, ew) = dilated_kernel(&layer);
    if eh > h || ew > w {
        layer.padding = Padding::Same;
    }
    layer
}

/// A depthwise `layer` made one the packed mapping runs with stride or dilation 2 in y only
/// (docs/ethos.md, "Depthwise tap packing": a window of at most 4 rows): kernel 2x2, 2x3 or
/// 1x3 at stride (2, 1), or 2x2 or 2x3 at dilation (2, 1); `random_layer` draws strides and
/// dilations in both directions, which the packed mapping does not take.
fn packed_in_y<R: Rng>(layer: ConvLayer, rng: &mut R) -> ConvLayer {
    let strided = rng.gen_bool(0.5);
    let kernels: &[(usize, usize)] = if strided { &[(2, 2), (2, 3), (1, 3)] } else { &[(2, 2), (2, 3)] };
    let layer = with_kernel(layer, kernels[rng.gen_range(0..kernels.len())], rng);
    let (stride, dilation) = if strided { ((2, 1), (1, 1)) } else { ((1, 1), (2, 1)) };
    let mut layer = ConvLayer { stride, dilation, ..layer };
    let (h, w, _) = layer.input_shape;
    let (eh, ew) = dilated_kernel(&layer);
    if eh > h || ew > w {
        layer.padding = Padding::Same;
    }
    layer
}

/// `layer` with `kernel` and new random weights; SAME where the input does not hold it.
fn with_kernel<R: Rng>(layer: ConvLayer, kernel: (usize, usize), rng: &mut R) -> ConvLayer {
    let (h, w, c) = layer.input_shape;
    let padding = if h < kernel.0 || w < kernel.1 { Padding::Same } else { layer.padding };
    let count = kernel.0 * kernel.1 * if layer.depthwise { c } else { c * layer.out_channels };
    let weights = (0..count).map(|_| rng.gen_range(-127..=127)).collect();
    ConvLayer { kernel, padding, weights, ..layer }
}

#[test]
fn random_layers_equal_tflite() {
    let test = "ethos_conv::random_layers_equal_tflite";
    let run_info = Run::from_env(test, 300);
    let mut rng = run_info.rng();
    // One in eight with more than one 32-channel IFM block (the conv traversal's outer loop);
    // one in ten (drawn on purpose: two in twenty) with a kernel side of 9-10 and one in
    // twenty with a side of 5 at dilation 2 (sub-kernels); one in five dilated.
    let layers: Vec<ConvLayer> = (0..)
        .map(|i| {
            let layer = if i % 8 == 7 {
                random_layer_with_depths(&mut rng, 33..=72)
            } else {
                random_layer(&mut rng)
            };
            let layer = match i % 20 {
                4 | 14 => large(layer, &mut rng),
                9 => return dilated_five(layer, &mut rng),
                // Packed depthwise with stride or dilation 2 in y (packed: `i % 4 != 2` below).
                3 | 13 if layer.depthwise => return packed_in_y(layer, &mut rng),
                _ => layer,
            };
            if rng.gen_bool(0.2) {
                dilated(layer, &mut rng)
            } else {
                layer
            }
        })
        .filter(within_contract)
        .take(run_info.cycles as usize)
        .collect();
    let tflite = TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    let expected = tflite.run(&layers).unwrap_or_else(|e| panic!("{e}"));
    let mut coverage = Coverage::default();
    let (mut macs, mut cycles) = (0u64, 0u64);
    for (i, (layer, tflite_out)) in layers.iter().zip(&expected).enumerate() {
        // Vela's weight orders: depth-first or part-kernel-first, OFM blocks of 8 to 128 channels.
        // Drawn on purpose: blocks of 16 twice as often (the only depth above 8 that a layer
        // of at most 24 OFM channels ends partially: 8 such layers a run, 3 at the least in
        // 12 seeds), and the layers of more than 32 IFM channels depth-first 3 times in 4
        // with blocks above 8 (6 a run of "depth-first, OFM blocks above 8 channels, more
        // than one IFM block", 2 at the least in 12 seeds, a miss about 2e-3).
        let deep = layer.input_shape.2 > 32;
        let part_kernel = rng.gen_bool(if deep { 0.25 } else { 0.5 });
        let blocks = [8, 8, 16, 16, 24, 32, 40, 64, 128];
        let ofm_block_depth = blocks[rng.gen_range(if deep { 2 } else { 0 }..blocks.len())];
        let mut job = Job::with_order(layer, part_kernel, ofm_block_depth).unwrap_or_else(|e| panic!("layer {i}: {e}"));
        // Depthwise: the packed mapping in three layers of four, tap by tap in the fourth
        // (from the layer's index, not the generator, so that the layers drawn stay those of
        // each seed).
        job.pack_depthwise = layer.depthwise && i % 4 != 2;
        let seed = run_info.seed.wrapping_add(i as u64);
        // One layer in four held at random (the NPU's convolution unit holds it while it serves
        // the IFM reads and OFM writes).
        let (got, stats) = run_job(test, seed, &job, i % 4 == 1, &mut coverage)
            .unwrap_or_else(|e| panic!("SEED={} layer {i}: {e}\n{}", run_info.seed, layer.describe()));
        assert_eq!(
            &reference(layer),
            tflite_out,
            "the integer reference and TFLite differ (SEED={}, layer {i})",
            run_info.seed
        );
        if let Some(k) = (0..got.len()).find(|&k| got[k] != tflite_out[k]) {
            let (_, out_w, out_c) = output_shape(layer);
            panic!(
                "SEED={} layer {i} ({}, OFM blocks of {ofm_block_depth}): the datapath gives {} at (y {}, x {}, c {}), TFLite {}\n  {}",
                run_info.seed,
                if job.part_kernel { "part-kernel-first" } else { "depth-first" },
                got[k],
                k / out_c / out_w,
                k / out_c % out_w,
                k % out_c,
                tflite_out[k],
                layer.describe()
            );
        }
        macs += stats.useful_macs;
        cycles += stats.cycles();
        coverage.hit(if layer.depthwise { "depthwise" } else { "conv" });
        coverage.hit(match layer.padding {
            Padding::Same => "padding SAME",
            Padding::Valid => "padding VALID",
        });
        coverage.hit(&format!("{:?}", layer.activation));
        coverage.hit(&format!("kernel {}x{}", layer.kernel.0, layer.kernel.1));
        if layer.stride != (1, 1) {
            coverage.hit("stride 2");
        }
        let split = |k: usize, d: usize| k > 8 / d;
        if split(layer.kernel.0, layer.dilation.0) || split(layer.kernel.1, layer.dilation.1) {
            coverage.hit(if layer.depthwise { "sub-kernels depthwise" } else { "sub-kernels conv" });
            if layer.dilation != (1, 1) {
                coverage.hit("dilated sub-kernels");
            }
            if !layer.depthwise {
                coverage.hit(if job.part_kernel { "sub-kernels part-kernel-first" } else { "sub-kernels depth-first" });
            }
        }
        if layer.dilation != (1, 1) {
            coverage.hit(if layer.depthwise { "dilated depthwise" } else { "dilated conv" });
            if layer.stride != (1, 1) {
                coverage.hit("dilated with stride 2");
            }
        }
        if tflite_out.contains(&-128) && tflite_out.contains(&127) {
            coverage.hit("outputs at both int8 limits");
        }
        if layer.input_shape.2 > 32 {
            coverage.hit("more than one 32-channel IFM block");
        }
        if layer.out_channels > 8 {
            coverage.hit("more than 8 OFM channels");
        }
        if !layer.depthwise {
            let blocks = layer.out_channels.div_ceil(ofm_block_depth);
            coverage.hit(if job.part_kernel { "part-kernel-first" } else { "depth-first" });
            if blocks > 1 && layer.out_channels % ofm_block_depth != 0 && ofm_block_depth > 8 {
                coverage.hit("OFM blocks above 8 channels, the last one partial");
            }
            if ofm_block_depth > 8 && layer.out_channels > 8 && layer.input_shape.2 > 32 && !job.part_kernel {
                coverage.hit("depth-first, OFM blocks above 8 channels, more than one IFM block");
            }
            if job.part_kernel && layer.kernel.0 * layer.kernel.1 % 4 != 0 && layer.input_shape.2 > 8 {
                coverage.hit("part-kernel-first, padded elements, more than one IFM group");
            }
        }
    }
    eprintln!(
        "{} layers identical to TFLite; {:.1} useful MACs per cycle overall; coverage:\n{coverage}",
        layers.len(),
        macs as f64 / cycles as f64
    );
    coverage.require(&[
        "conv",
        "depthwise",
        "padding SAME",
        "padding VALID",
        "None",
        "Relu",
        "Relu6",
        "ReluN1To1",
        "kernel 1x1",
        "kernel 3x3",
        "stride 2",
        "dilated conv",
        "dilated depthwise",
        "dilated with stride 2",
        "sub-kernels conv",
        "sub-kernels depthwise",
        "sub-kernels depth-first",
        "sub-kernels part-kernel-first",
        "dilated sub-kernels",
        "outputs at both int8 limits",
        "more than one 32-channel IFM block",
        "more than 8 OFM channels",
        "depth-first",
        "part-kernel-first",
        "OFM blocks above 8 channels, the last one partial",
        "depth-first, OFM blocks above 8 channels, more than one IFM block",
        "part-kernel-first, padded elements, more than one IFM group",
        // The unit's own states and cases, from its model.
        "check",
        "decode",
        "scale/bias",
        "scale/bias padding",
        "mac",
        "padded tap",
        "channel groups beyond the IFM skipped",
        "next IFM block",
        "next IFM micro-block",
        "out",
        "drain",
        "done",
        "stream stalled",
        "held",
        "held in MAC",
        "held in OUT",
        "held in DRAIN",
        "held while a value leaves",
        "MAC held, the output walk goes on",
        // Decode overlapped with MAC: taps issued while the decoder still runs, a tap waiting
        // for its weight row (the decoder behind), the layer's last tap waiting for the
        // decoder's end, and the unit held while it decodes.
        "decode overlapped with MAC",
        "tap waits for its weight row",
        "the layer's last tap waits for the decoder",
        "held in DECODE",
        // The 16 output lanes: several elements leave in one cycle; a step with fewer than 8
        // channels where the OFM depth ends; both columns of a block's row at once, and the
        // left one alone where the OFM width ends.
        "several lanes valid at once",
        "a partial group of lanes",
        "lanes of both columns at once",
        "lanes of the left column only",
        // Depthwise tap packing (docs/ethos.md, "Depthwise tap packing"): the group's first
        // block tap by tap (the kernel register), fresh and reuse blocks, padding in a packed
        // cycle, a packed block past the OFM edge, 2-wide kernels, stride and dilation 2 in y.
        "tap-by-tap block of a packed layer",
        "packed depthwise cycle",
        "fresh block",
        "reuse block",
        "padding in a packed cycle",
        "a packed block past the OFM edge",
        "packed, 2-wide kernel",
        "packed, stride 2-3 in y",
        "packed, dilation 2 in y",
    ]);
}

/// Convolutions of 257 to 320 OFM channels (output groups 32 to 39 of 8 channels: the output
/// walk's group register `a_og` above bit 5, channels above 256 in the parameter memories'
/// addresses), every element against TFLite and the integer reference, in lock step. The
/// random layers stop at 24 OFM channels; this kills the N=20 survivor of issue 21 at 17777a7
/// that flipped `a_og` bit 4 while it held a group of 32 or more (docs/ethos.md, "Convolution
/// datapath", mutation score). `CYCLES` sets the number of layers (6).
#[test]
fn deep_ofm_layers_equal_tflite() {
    let test = "ethos_conv::deep_ofm_layers_equal_tflite";
    let run_info = Run::from_env(test, 6);
    let mut rng = run_info.rng();
    let layers: Vec<ConvLayer> = std::iter::from_fn(|| {
        let layer = random_layer_with_depths(&mut rng, 1..=16);
        if layer.depthwise {
            return Some(None);
        }
        let out_channels = rng.gen_range(257..=320);
        let (kh, kw) = layer.kernel;
        let count = kh * kw * layer.input_shape.2 * out_channels;
        // Each new channel's scale and bias is one of the drawn layer's (the same ranges).
        let drawn = layer.out_channels;
        let weight_scales = (0..out_channels).map(|_| layer.weight_scales[rng.gen_range(0..drawn)]).collect();
        let bias = (0..out_channels).map(|_| layer.bias[rng.gen_range(0..drawn)]).collect();
        let weights = (0..count).map(|_| rng.gen_range(-127..=127)).collect();
        Some(Some(ConvLayer { out_channels, weights, weight_scales, bias, ..layer }))
    })
    .flatten()
    .filter(within_contract)
    .take(run_info.cycles as usize)
    .collect();
    let tflite = TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    let expected = tflite.run(&layers).unwrap_or_else(|e| panic!("{e}"));
    let mut coverage = Coverage::default();
    for (i, (layer, tflite_out)) in layers.iter().zip(&expected).enumerate() {
        assert!(layer.out_channels > 256, "layer {i}: {} OFM channels", layer.out_channels);
        let job = Job::new(layer).unwrap_or_else(|e| panic!("layer {i}: {e}"));
        let seed = run_info.seed.wrapping_add(i as u64);
        let (got, _) = run_job(test, seed, &job, i % 2 == 1, &mut coverage)
            .unwrap_or_else(|e| panic!("SEED={} layer {i}: {e}\n{}", run_info.seed, layer.describe()));
        assert_eq!(&reference(layer), tflite_out, "the integer reference and TFLite differ (SEED={}, layer {i})", run_info.seed);
        if let Some(k) = (0..got.len()).find(|&k| got[k] != tflite_out[k]) {
            let (_, out_w, out_c) = output_shape(layer);
            panic!(
                "SEED={} layer {i}: the datapath gives {} at (y {}, x {}, c {}), TFLite {}\n  {}",
                run_info.seed,
                got[k],
                k / out_c / out_w,
                k / out_c % out_w,
                k % out_c,
                tflite_out[k],
                layer.describe()
            );
        }
    }
    eprintln!("{} layers of 257-320 OFM channels identical to TFLite; coverage:\n{coverage}", layers.len());
    coverage.require(&["mac", "out", "drain", "done", "several lanes valid at once", "a partial group of lanes"]);
}

fn small_layer() -> ConvLayer {
    let mut rng = Run::fixed("small", 0).rng();
    std::iter::from_fn(|| Some(random_layer(&mut rng)))
        .find(|l| within_contract(l) && !l.depthwise && l.out_channels > 1)
        .unwrap()
}

#[test]
fn bad_streams_and_shapes_are_refused() {
    let test = "ethos_conv::bad_streams_and_shapes_are_refused";
    let layer = small_layer();
    let job = Job::new(&layer).unwrap();
    let channels = layer.out_channels;
    let mut coverage = Coverage::default();
    let mut run = |job: &Job| run_job(test, 5, job, false, &mut coverage);
    // A scale/bias stream one record short (by bytes, not words), too long, with reserved bits set.
    let mut short = job.clone();
    short.scale_bias.truncate(10 * channels - 1);
    assert_eq!(
        run(&short).unwrap_err(),
        ConvError::ScaleBiasShort {
            channels,
            bytes: 10 * channels - 1
        }
    );
    let mut long = job.clone();
    long.scale_bias.extend([0; 16]);
    assert!(matches!(run(&long).unwrap_err(), ConvError::ScaleBiasLong { bytes, .. } if bytes > job.scale_bias.len()));
    let mut reserved = job.clone();
    reserved.scale_bias[10 * (channels - 1) + 9] |= 0x40;
    assert_eq!(run(&reserved).unwrap_err(), ConvError::ScaleBiasReserved { channel: channels - 1 });
    // A weight stream of a larger kernel (well formed, too many weights), of a smaller one, and a cut one.
    let with_out_channels = |out: usize| {
        let mut other = layer.clone();
        let per_channel = layer.kernel.0 * layer.kernel.1 * layer.input_shape.2;
        other.out_channels = out;
        other.weights.resize(out * per_channel, 1);
        other.weight_scales.resize(out, 0.01);
        other.bias.resize(out, 0);
        Job::new(&other).unwrap().weight_stream
    };
    let mut wrong = job.clone();
    wrong.weight_stream = with_out_channels(channels + 8);
    assert!(matches!(run(&wrong).unwrap_err(), ConvError::WeightCount { expected, decoded } if decoded > expected));
    if channels > 8 {
        let mut fewer = job.clone();
        fewer.weight_stream = with_out_channels(channels - 8);
        assert!(matches!(run(&fewer).unwrap_err(), ConvError::WeightCount { expected, decoded } if decoded < expected));
    }
    let mut cut = job.clone();
    cut.weight_stream.truncate(cut.weight_stream.len() / 2);
    assert!(matches!(
        run(&cut).unwrap_err(),
        ConvError::WeightStream(DecodeError::Truncated | DecodeError::MissingEnd | DecodeError::Length)
    ));
    // Shapes the unit refuses: a kernel side of 0 or above 15 (its 4-bit ports; the driver
    // refuses a 16x1 kernel before, so the model's CHECK is asked directly); more weight rows
    // than its buffer.
    let mut big = layer.clone();
    big.kernel = (16, 1);
    big.padding = Padding::Same;
    big.weights = vec![0; big.out_channels * 16 * big.input_shape.2];
    assert!(matches!(Job::new(&big).and_then(|j| run(&j)), Err(ConvError::Unsupported(ref m)) if m.contains("kernel")));
    for (kernel_height, kernel_width) in [(0, 3), (3, 0), (16, 1), (1, 16)] {
        let shape = In { kernel_height, kernel_width, ifm_height: 4, ifm_width: 4, ifm_depth: 8, ofm_height: 4, ofm_width: 4, ofm_depth: 8, stride_y: 1, stride_x: 1, ..In::default() };
        assert_eq!(check_shape(&shape).0, SHAPE_KERNEL, "{kernel_height}x{kernel_width}");
    }
    assert!(ConvError::Shape(SHAPE_KERNEL).to_string().contains("kernel side"));
    let mut deep = layer.clone();
    (deep.input_shape, deep.out_channels, deep.kernel) = ((3, 3, 512), 64, (3, 3));
    deep.input = vec![0; 3 * 3 * 512];
    deep.weights = vec![1; 64 * 9 * 512];
    deep.weight_scales = vec![0.01; 64];
    deep.bias = vec![0; 64];
    assert_eq!(run(&Job::new(&deep).unwrap()).unwrap_err(), ConvError::Shape(SHAPE_WEIGHT_ROWS));
    // A stride the registers cannot hold is refused by the driver.
    let mut strided = layer.clone();
    strided.stride = (4, 1);
    assert!(matches!(run(&Job::new(&strided).unwrap()).unwrap_err(), ConvError::Unsupported(why) if why.contains("stride")));
    // The good streams still work.
    let (out, _) = run(&job).unwrap();
    assert_eq!(out, reference(&layer));
    coverage.require(&[
        "scale/bias short",
        "scale/bias too long",
        "scale/bias reserved bits",
        "weight beyond the layer",
        "malformed weight stream",
    ]);
    if channels > 8 {
        coverage.require(&["weight stream short"]);
    }
}
