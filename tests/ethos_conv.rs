//! Quantized int8 convolution on the Ethos-U65 datapath blocks (weight decoder, MAC unit and
//! output unit, Verilated, each in lock step with its model; `npu::ethos::conv_datapath`)
//! against TensorFlow Lite's reference kernels, element by element, for hundreds of random
//! layers; and the bad inputs the datapath must refuse. `SEED` repeats a run, `CYCLES` sets
//! the number of layers.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::conv::{channel_scales, random_layer, reference};
use npu::ethos::conv_datapath::{run, ConvError, Job, Lockstep};
use npu::ethos::tflite::{output_shape, Activation, ConvLayer, Padding, TfLite};
use npu::model::ethos::weight_decoder::DecodeError;

/// TFLite scales with a wrapping int32 left shift when a channel's effective scale is above 1;
/// the datapath's product is exact (docs/ethos.md): such layers are outside its contract.
fn within_contract(layer: &ConvLayer) -> bool {
    channel_scales(layer).iter().all(|&(_, shift)| shift <= 0)
}

#[test]
fn random_layers_equal_tflite() {
    let run_info = Run::from_env("ethos_conv::random_layers_equal_tflite", 300);
    let mut rng = run_info.rng();
    let layers: Vec<ConvLayer> = std::iter::from_fn(|| Some(random_layer(&mut rng))).filter(within_contract).take(run_info.cycles as usize).collect();
    let tflite = TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"));
    let expected = tflite.run(&layers).unwrap_or_else(|e| panic!("{e}"));
    let mut units = Lockstep::open(run_info.seed | 1);
    let mut coverage = Coverage::default();
    let (mut macs, mut cycles) = (0u64, 0u64);
    for (i, (layer, tflite_out)) in layers.iter().zip(&expected).enumerate() {
        let job = Job::new(layer).unwrap_or_else(|e| panic!("layer {i}: {e}"));
        let (got, stats) = run(&job, &mut units).unwrap_or_else(|e| panic!("SEED={} layer {i}: {e}\n{}", run_info.seed, layer.describe()));
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
        if tflite_out.contains(&-128) && tflite_out.contains(&127) {
            coverage.hit("outputs at both int8 limits");
        }
        if layer.input_shape.2 > 8 {
            coverage.hit("more than 8 IFM channels");
        }
        if layer.out_channels > 8 {
            coverage.hit("more than 8 OFM channels");
        }
    }
    eprintln!(
        "{} layers identical to TFLite; {:.1} useful MACs per cycle overall; lock step {:?} cycles (decoder, MAC, output unit); coverage:\n{coverage}",
        layers.len(),
        macs as f64 / cycles as f64,
        units.compared
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
        "outputs at both int8 limits",
        "more than 8 IFM channels",
        "more than 8 OFM channels",
    ]);
}

fn small_layer() -> ConvLayer {
    let mut rng = Run::fixed("small", 0).rng();
    std::iter::from_fn(|| Some(random_layer(&mut rng))).find(|l| within_contract(l) && !l.depthwise && l.out_channels > 1).unwrap()
}

#[test]
fn bad_streams_and_shapes_are_refused() {
    let layer = small_layer();
    let job = Job::new(&layer).unwrap();
    let mut units = Lockstep::open(5);
    let channels = layer.out_channels;
    // A scale/bias stream one record short, too long, with reserved bits set.
    let mut short = job.clone();
    short.scale_bias.truncate(10 * (channels - 1));
    assert_eq!(run(&short, &mut units).unwrap_err(), ConvError::ScaleBiasShort { channels, bytes: 10 * (channels - 1) });
    let mut long = job.clone();
    long.scale_bias.extend([0; 32]);
    assert!(matches!(run(&long, &mut units).unwrap_err(), ConvError::ScaleBiasLong { .. }));
    let mut reserved = job.clone();
    reserved.scale_bias[9] |= 0x80;
    assert_eq!(run(&reserved, &mut units).unwrap_err(), ConvError::ScaleBiasReserved { channel: 0 });
    // A weight stream of another kernel (well formed, wrong count), and a cut one.
    let mut other = layer.clone();
    other.out_channels += 8;
    other.weights.extend(vec![1; 8 * layer.kernel.0 * layer.kernel.1 * layer.input_shape.2]);
    other.weight_scales.extend(vec![0.01; 8]);
    other.bias.extend(vec![0; 8]);
    let mut wrong = job.clone();
    wrong.weight_stream = Job::new(&other).unwrap().weight_stream;
    assert!(matches!(run(&wrong, &mut units).unwrap_err(), ConvError::WeightCount { expected, decoded } if decoded > expected));
    let mut cut = job.clone();
    cut.weight_stream.truncate(cut.weight_stream.len() / 2);
    assert!(matches!(run(&cut, &mut units).unwrap_err(), ConvError::WeightStream(DecodeError::Truncated | DecodeError::MissingEnd | DecodeError::Length)));
    // Shapes the datapath cannot take.
    let mut big = layer.clone();
    big.kernel = (9, 1);
    big.input_shape.0 = big.input_shape.0.max(9);
    big.input = vec![0; big.input_shape.0 * big.input_shape.1 * big.input_shape.2];
    big.weights = vec![0; big.out_channels * 9 * big.input_shape.2];
    assert!(matches!(run(&Job::new(&big).unwrap(), &mut units).unwrap_err(), ConvError::Unsupported(why) if why.contains("kernel 9x1")));
    let mut strided = layer.clone();
    strided.stride = (4, 1);
    assert!(matches!(run(&Job::new(&strided).unwrap(), &mut units).unwrap_err(), ConvError::Unsupported(why) if why.contains("stride")));
    // And the good streams still work on the same units afterwards.
    let (out, _) = run(&job, &mut units).unwrap();
    assert_eq!(out, reference(&layer));
    let _ = Activation::None;
}
