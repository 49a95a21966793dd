//! `npu ethos run MODEL.tflite` as a user runs it: an uncompiled int8 model (a max pool, then
//! an ADD of a broadcast constant) compiled by Vela with both cores and run on the Verilated
//! NPU in lock step with its model, and on the model alone (the same table, cycle for cycle),
//! its output identical to TFLite's; a file Vela already compiled, checked against the
//! reference executor; an input from an `.npy` file; a waveform; and the refusals (exit 2): a
//! 9x1 CONV of y dilation 2 (SAME: a top padding of 8, above the datapath's 7: the convolution
//! unit's CHECK, on the RTL and on the model), a file that is no model, an input of the wrong
//! shape; and a DEPTHWISE_CONV_2D, a part-kernel-first 1x1 CONV, a dilated 2x2 CONV and a 9x1
//! CONV (two sub-kernels) that run on the RTL and on the model (the same table), identical to
//! TFLite.
use npu::ethos::network::{Constant, Kind, Network, Op, Operand, Quant, Window};
use npu::ethos::tflite::{Activation, Padding, TfLite};
use std::path::PathBuf;
use std::process::{Command, Output};

fn npu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npu")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("runs npu")
}

fn scratch(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ethos_run");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}

fn oracle() -> TfLite {
    TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"))
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A 6x6x5 input, max pooled 2x2 stride 2, plus a per-channel constant with ReLU.
fn pool_add() -> Network {
    let input_quant = Quant { scale: 0.05, zero_point: -3 };
    let pool = Op {
        kind: Kind::MaxPool2d,
        inputs: vec![Operand::Tensor(0)],
        shape: [3, 3, 5],
        quant: input_quant,
        activation: Activation::None,
        window: Some(Window { kernel: (2, 2), stride: (2, 2), padding: Padding::Valid, dilation: (1, 1) }),
        weights: None,
    };
    let constant = Constant { shape: [1, 1, 5], data: vec![-128, -7, 0, 9, 127], quant: Quant { scale: 0.02, zero_point: 1 } };
    let add = Op {
        kind: Kind::Add,
        inputs: vec![Operand::Tensor(1), Operand::Constant(constant)],
        shape: [3, 3, 5],
        quant: Quant { scale: 0.04, zero_point: -20 },
        activation: Activation::Relu,
        window: None,
        weights: None,
    };
    Network { input_shape: [6, 6, 5], input_quant, input: (0..180).map(|i| (i * 37 % 256) as u8 as i8).collect(), ops: vec![pool, add] }
}

/// The operation lines of the report (between the header and the total), and the total.
fn table(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.contains("POOL") || l.contains("ELEMENTWISE") || l.contains("DEPTHWISE") || l.starts_with("NPU cycles")).collect()
}

#[test]
fn a_model_runs_on_the_rtl_and_the_model_identical_to_tflite() {
    let tflite = oracle();
    let file = scratch("pool_add.tflite");
    std::fs::write(&file, &tflite.network_files(&[pool_add()], None).unwrap()[0]).unwrap();
    let waves = scratch("pool_add.fst");
    let _ = std::fs::remove_file(&waves);
    let rtl = npu(&["ethos", "run", &file, "--seed", "7", "--waves", &waves]);
    let (stdout, stderr) = text(&rtl);
    assert_eq!(rtl.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("on the Verilated NPU, in lock step with its model every cycle"), "{stdout}");
    assert!(stdout.contains("output: all 45 elements identical to TFLite's reference kernels"), "{stdout}");
    assert!(stderr.contains("random input, --seed 7"), "{stderr}");
    assert!(stdout.contains("Vela's estimate for ethos-u65-256: ") && stdout.contains("MaxPool "), "{stdout}");
    assert!(std::fs::metadata(&waves).unwrap().len() > 0, "the waveform is written");
    let rows = table(&stdout);
    assert_eq!(rows.len(), 3, "{stdout}");
    for (row, (kind, ifm, ofm)) in rows.iter().zip([("POOL max", "6x6x5", "3x3x5"), ("ELEMENTWISE add", "3x3x5", "3x3x5")]) {
        let words: Vec<&str> = row.split_whitespace().collect();
        assert!(row.contains(kind) && row.contains(ifm) && row.contains(ofm), "{row}");
        let cycles: u64 = words[words.len() - 2].parse().unwrap_or_else(|_| panic!("cycles in {row}"));
        assert!(cycles > 45, "{row}: at least a cycle per output element");
    }

    let model = npu(&["ethos", "run", &file, "--seed", "7", "--model"]);
    let (model_stdout, stderr) = text(&model);
    assert_eq!(model.status.code(), Some(0), "{model_stdout}{stderr}");
    assert!(model_stdout.contains("on the NPU's cycle-accurate model"), "{model_stdout}");
    assert_eq!(table(&model_stdout), rows, "the model takes the RTL's cycles");

    // The network's own input as an .npy file, through the legacy core's stream.
    let npy = scratch("pool_add.npy");
    let net = pool_add();
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 6, 6, 5), }".to_string();
    header.push_str(&" ".repeat(63 - (10 + header.len()) % 64));
    header.push('\n');
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(net.input.iter().map(|&v| v as u8));
    std::fs::write(&npy, bytes).unwrap();
    let legacy = npu(&["ethos", "run", &file, "--input", &npy, "--legacy-core"]);
    let (stdout, stderr) = text(&legacy);
    assert_eq!(legacy.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("legacy core") && stdout.contains("identical to TFLite's"), "{stdout}");
    assert!(stderr.contains("input from") && stderr.contains("pool_add.npy"), "{stderr}");

    // A one-byte change of the input shape is refused before anything runs.
    let short = scratch("short.npy");
    let mut data = std::fs::read(&npy).unwrap();
    data.pop();
    std::fs::write(&short, data).unwrap();
    let o = npu(&["ethos", "run", &file, "--input", &short, "--model"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o).1.contains("short.npy: its data"), "{:?}", text(&o));
}

#[test]
fn a_file_vela_compiled_runs_against_the_reference_executor() {
    let tflite = oracle();
    let file = scratch("pool_add_vela.tflite");
    let compiled = tflite.network_files(&[pool_add()], Some(npu::ethos::tflite::VelaCore::Regor)).unwrap();
    std::fs::write(&file, &compiled[0]).unwrap();
    let o = npu(&["ethos", "run", &file, "--seed", "3", "--model"]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("identical to the reference executor (the file is Vela's"), "{stdout}");
}

#[test]
fn operations_not_built_and_bad_inputs_exit_2_with_the_reason() {
    let tflite = oracle();
    let mut net = pool_add();
    net.input_shape = [4, 4, 3];
    net.input.truncate(48);
    net.ops = vec![Op {
        kind: Kind::Conv2d,
        inputs: vec![Operand::Tensor(0)],
        shape: [4, 4, 2],
        quant: Quant { scale: 0.1, zero_point: 0 },
        activation: Activation::None,
        window: Some(Window { kernel: (1, 1), stride: (1, 1), padding: Padding::Valid, dilation: (1, 1) }),
        weights: Some(npu::ethos::network::Weights { weights: vec![1, -2, 3, 4, 5, -6], scales: vec![0.01, 0.02], bias: vec![10, -10] }),
    }];
    let conv = scratch("conv.tflite");
    std::fs::write(&conv, &tflite.network_files(std::slice::from_ref(&net), None).unwrap()[0]).unwrap();
    // A 1x1 DEPTHWISE_CONV_2D and a 1x1 CONV (Vela makes it part-kernel-first) run on the
    // Verilated NPU's convolution unit in lock step with its model, identical to TFLite, and
    // on the model alone in the same cycles.
    let mut depthwise = net.clone();
    depthwise.ops[0].kind = Kind::DepthwiseConv2d;
    depthwise.ops[0].shape = [4, 4, 3];
    depthwise.ops[0].weights = Some(npu::ethos::network::Weights { weights: vec![1, -2, 3], scales: vec![0.01, 0.02, 0.03], bias: vec![10, -10, 5] });
    let dw = scratch("depthwise.tflite");
    std::fs::write(&dw, &tflite.network_files(&[depthwise], None).unwrap()[0]).unwrap();
    // A dilated 2x2 CONV (dilation 2 each way) runs too.
    let mut dilated = net.clone();
    dilated.ops[0].shape = [2, 2, 2];
    dilated.ops[0].window = Some(Window { kernel: (2, 2), stride: (1, 1), padding: Padding::Valid, dilation: (2, 2) });
    dilated.ops[0].weights = Some(npu::ethos::network::Weights { weights: (0..24).map(|i| i as i8 - 12).collect(), scales: vec![0.01, 0.02], bias: vec![10, -10] });
    let dilated_conv = scratch("dilated_conv.tflite");
    std::fs::write(&dilated_conv, &tflite.network_files(&[dilated], None).unwrap()[0]).unwrap();
    // A 9x1 CONV: Vela splits it into sub-kernels of 8 and 1 rows, which the datapath walks.
    let mut tall = net.clone();
    tall.ops[0].window = Some(Window { kernel: (9, 1), stride: (1, 1), padding: Padding::Same, dilation: (1, 1) });
    tall.ops[0].weights = Some(npu::ethos::network::Weights { weights: (0..54).map(|i| i as i8 - 27).collect(), scales: vec![0.01, 0.02], bias: vec![10, -10] });
    let tall_conv = scratch("tall_conv.tflite");
    std::fs::write(&tall_conv, &tflite.network_files(&[tall.clone()], None).unwrap()[0]).unwrap();
    for (file, kind) in [(&dw, "DEPTHWISE"), (&conv, "CONV"), (&dilated_conv, "CONV"), (&tall_conv, "CONV")] {
        let o = npu(&["ethos", "run", file, "--seed", "1"]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.contains("on the Verilated NPU, in lock step with its model every cycle"), "{stdout}");
        assert!(stdout.contains(kind) && stdout.contains("identical to TFLite"), "{stdout}");
        let o = npu(&["ethos", "run", file, "--seed", "1", "--model"]);
        let (model_stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{model_stdout}{stderr}");
        assert!(model_stdout.contains("identical to TFLite"), "{model_stdout}");
        assert_eq!(table(&model_stdout), table(&stdout), "the model takes the RTL's cycles");
    }
    // The same 9x1 CONV at y dilation 2: 17 rows SAME, a top padding of 8, above the 7 the
    // datapath's padding ports hold; the convolution unit's CHECK refuses it.
    tall.ops[0].window = Some(Window { kernel: (9, 1), stride: (1, 1), padding: Padding::Same, dilation: (2, 1) });
    let conv = scratch("tall_dilated_conv.tflite");
    std::fs::write(&conv, &tflite.network_files(&[tall], None).unwrap()[0]).unwrap();
    let junk = scratch("junk.tflite");
    std::fs::write(&junk, b"not a flatbuffer at all").unwrap();
    let waves = scratch("never.fst");
    let cases: [(&[&str], &str); 5] = [
        (&["ethos", "run", &conv, "--seed", "1"], "the NPU refused NPU_OP_CONV (command at byte 0x"),
        (&["ethos", "run", &conv, "--seed", "1", "--model"], "the NPU refused NPU_OP_CONV (command at byte 0x"),
        (&["ethos", "run", &junk], "junk.tflite: "),
        (&["ethos", "run", "/nonexistent/model.tflite"], "/nonexistent/model.tflite: "),
        (&["ethos", "run", &conv, "--model", "--waves", &waves], "--model runs no RTL"),
    ];
    for (args, message) in cases {
        let o = npu(args);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// A RESIZE_BILINEAR by 2 then a RESIZE_NEAREST_NEIGHBOR by 4 (3x4x5 to 6x8x5 to 24x32x5):
/// Vela lowers them to three POOL averages over the IFM upscaled 2x2 by nearest neighbour
/// (IFM_UPSCALE 1); `npu ethos run` runs them on the Verilated NPU and on the model (the same
/// table), both cores, identical to TFLite (exit 0).
#[test]
fn a_resize_model_runs_identical_to_tflite() {
    let tflite = oracle();
    let quant = Quant { scale: 0.05, zero_point: -3 };
    let resize = |kind, from, shape| Op { kind, inputs: vec![Operand::Tensor(from)], shape, quant, activation: Activation::None, window: None, weights: None };
    let net = Network {
        input_shape: [3, 4, 5],
        input_quant: quant,
        input: (0..60).map(|i| (i * 91 % 256) as u8 as i8).collect(),
        ops: vec![resize(Kind::ResizeBilinear, 0, [6, 8, 5]), resize(Kind::ResizeNearestNeighbor { half_pixel_centers: false }, 1, [24, 32, 5])],
    };
    let file = scratch("resize.tflite");
    std::fs::write(&file, &tflite.network_files(&[net], None).unwrap()[0]).unwrap();
    for core in [&[][..], &["--legacy-core"][..]] {
        let rtl = npu(&[&["ethos", "run", &file, "--seed", "5"][..], core].concat());
        let (stdout, stderr) = text(&rtl);
        assert_eq!(rtl.status.code(), Some(0), "{core:?}: {stdout}{stderr}");
        assert!(stdout.contains("on the Verilated NPU, in lock step with its model every cycle"), "{stdout}");
        assert!(stdout.contains("output: all 3840 elements identical to TFLite's reference kernels"), "{stdout}");
        let rows = table(&stdout);
        assert_eq!(rows.iter().filter(|r| r.contains("POOL average")).count(), 3, "{stdout}");
        let model = npu(&[&["ethos", "run", &file, "--seed", "5", "--model"][..], core].concat());
        let (model_stdout, stderr) = text(&model);
        assert_eq!(model.status.code(), Some(0), "{core:?}: {model_stdout}{stderr}");
        assert_eq!(table(&model_stdout), rows, "the model takes the RTL's cycles");
    }
}
