//! Depthwise tap packing (issue 19; docs/ethos.md, "Depthwise tap packing"): the packed
//! mapping's model (`npu_model::ethos::depthwise_packing`), which moves the data as the
//! datapath is to (four IFM reads a cycle, the kernel register, the column store, the lanes of
//! each dot-product unit), gives every accumulator of TFLite's integer reference
//! (`conv::accumulators`, itself equal to TFLite in `ethos_tflite.rs`) on random depthwise
//! layers, packed and tap by tap, every case of the mapping seen (coverage asserted); and
//! its cycles on the bench's depthwise layer, counted by hand from the design. `SEED` repeats
//! a run, `CYCLES` sets the number of layers.
use npu::cosim::lockstep::Run;
use npu::ethos::conv::accumulators;
use npu::ethos::conv_datapath::bench_layers;
use npu::ethos::depthwise_packing::{packing_layer, run};
use npu::ethos::tflite::{dilated_kernel, output_shape, Activation, ConvLayer, Padding};
use npu::model::ethos::depthwise_packing::packed;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// A random depthwise layer: packed shapes (kernels 1-3 high and 2-3 wide, strides and
/// dilations in y) half the time, else any kernel up to 5, strides and dilations in x too.
fn random_depthwise(rng: &mut SmallRng) -> ConvLayer {
    loop {
        let (h, w, c) = (rng.gen_range(1..=11), rng.gen_range(1..=11), rng.gen_range(1..=40));
        let packable = rng.gen_bool(0.5);
        let kernel = if packable { (rng.gen_range(1..=3), rng.gen_range(2..=3)) } else { (rng.gen_range(1..=5), rng.gen_range(1..=5)) };
        let stride = if packable { (rng.gen_range(1..=3), 1) } else { (rng.gen_range(1..=3), rng.gen_range(1..=2)) };
        let dilation = (if rng.gen_bool(0.25) { 2 } else { 1 }, if !packable && rng.gen_bool(0.25) { 2 } else { 1 });
        let layer = ConvLayer {
            input_shape: (h, w, c),
            input: (0..h * w * c).map(|_| rng.gen()).collect(),
            input_scale: 0.02,
            input_zero_point: rng.gen(),
            kernel,
            out_channels: c,
            weights: (0..kernel.0 * kernel.1 * c).map(|_| rng.gen_range(-127..=127)).collect(),
            weight_scales: vec![0.005; c],
            bias: (0..c).map(|_| rng.gen_range(-5000..5000)).collect(),
            output_scale: 0.5,
            output_zero_point: 0,
            stride,
            dilation,
            padding: if rng.gen_bool(0.6) { Padding::Same } else { Padding::Valid },
            activation: Activation::None,
            depthwise: true,
        };
        let (eh, ew) = dilated_kernel(&layer);
        if layer.check().is_ok() && (layer.padding == Padding::Same || (eh <= h && ew <= w)) {
            return layer;
        }
    }
}

#[test]
fn packed_depthwise_equals_the_reference() {
    let run_info = Run::from_env("packed_depthwise_equals_the_reference", 400);
    let mut rng = SmallRng::seed_from_u64(run_info.seed);
    let mut coverage: BTreeMap<&str, usize> = BTreeMap::new();
    for i in 0..run_info.cycles {
        let layer = random_depthwise(&mut rng);
        let (sums, schedule) = run(&layer);
        let expected: Vec<i64> = accumulators(&layer)
            .iter()
            .enumerate()
            .map(|(k, &acc)| i64::from(acc) - i64::from(layer.bias[k % layer.out_channels]))
            .collect();
        if let Some(k) = (0..expected.len()).find(|&k| sums[k] != expected[k]) {
            panic!("SEED={} layer {i}: element {k} is {}, the reference {}\n  {}", run_info.seed, sums[k], expected[k], layer.describe());
        }
        let model_layer = packing_layer(&layer);
        let is_packed = packed(&model_layer);
        let (oh, ow, c) = output_shape(&layer);
        let blocks = oh.div_ceil(2) * ow.div_ceil(2) * c.div_ceil(8);
        assert_eq!(schedule.block_cycles.len(), blocks, "SEED={} layer {i}: one entry per (group, block)", run_info.seed);
        let mut count = |case: &'static str, n: usize| *coverage.entry(case).or_default() += n;
        if is_packed {
            count("packed layer", 1);
            // A packed block takes no more cycles than its taps (the first of a group is its taps).
            let taps = layer.kernel.0 * layer.kernel.1;
            assert!(schedule.block_cycles.iter().all(|&t| t <= taps), "SEED={} layer {i}: a packed block slower than its taps", run_info.seed);
            assert_eq!(schedule.per_tap_blocks, c.div_ceil(8), "SEED={} layer {i}: one tap-by-tap block a group", run_info.seed);
            count("packed, stride 2 or 3 in y", usize::from(layer.stride.0 > 1));
            count("packed, dilation 2 in y", usize::from(layer.dilation.0 > 1));
            count("packed, kernel 2 wide (lanes 2 and 5 idle)", usize::from(layer.kernel.1 == 2));
        } else {
            count("tap-by-tap layer (not packed)", 1);
            assert_eq!(schedule.fresh_blocks + schedule.reuse_blocks, 0);
            assert_eq!(schedule.per_tap_blocks, blocks);
        }
        count("fresh block (one window row a cycle)", schedule.fresh_blocks);
        count("reuse block (two window rows a cycle, columns 0-1 stored)", schedule.reuse_blocks);
        count("fresh block at a row start (store refilled)", schedule.fresh_at_row_start);
        count("reuse cycle over one window row (odd row count)", schedule.single_row_pairs);
        count("window row outside one OFM row's kernel rows", schedule.rows_not_in_kernel);
        count("packed cycle with padding", schedule.padded_packed_cycles);
        count("packed block past the OFM edge", schedule.packed_edge_blocks);
    }
    eprintln!("coverage (SEED={}): {coverage:#?}", run_info.seed);
    let required = [
        "packed layer",
        "tap-by-tap layer (not packed)",
        "packed, stride 2 or 3 in y",
        "packed, dilation 2 in y",
        "packed, kernel 2 wide (lanes 2 and 5 idle)",
        "fresh block (one window row a cycle)",
        "reuse block (two window rows a cycle, columns 0-1 stored)",
        "fresh block at a row start (store refilled)",
        "reuse cycle over one window row (odd row count)",
        "window row outside one OFM row's kernel rows",
        "packed cycle with padding",
        "packed block past the OFM edge",
    ];
    let missing: Vec<_> = required.iter().filter(|case| coverage.get(*case).copied().unwrap_or(0) < 4).collect();
    assert!(missing.is_empty(), "SEED={}: cases seen fewer than 4 times: {missing:?}", run_info.seed);
}

/// The bench's depthwise 3x3, 16x16x32 (stride 1, SAME): per OFM group, the first block tap by
/// tap (9 cycles), the second fresh (4 window rows, 4), the other six of the first row of blocks
/// reuse (2 each), and each later row of blocks one fresh (4) and seven reuse (14): 9 + 4 + 12 +
/// 7 x 18 = 151 a group, 604 for the 4 groups (2304 tap by tap). With 4 output lanes a block
/// costs at least 8 cycles (the walk), so 4 x (9 + 63 x 8) = 2052; with 8 lanes, 4 cycles:
/// 4 x (9 + 4 + 6 x 4 + 7 x 32) = 1044; with 16, 2: 604 again (no block below 2).
#[test]
fn bench_layer_cycles_on_the_packed_mapping() {
    // The bench's own layer (`make bench`, section `conv`), values and all.
    let [.., (name, layer)] = bench_layers();
    assert_eq!((name, layer.input_shape, layer.kernel, layer.depthwise), ("depthwise 3x3, 16x16x32", (16, 16, 32), (3, 3), true));
    let (sums, schedule) = run(&layer);
    // `run` gives the accumulators without the bias; `accumulators` adds it.
    let c = layer.out_channels;
    let expected: Vec<i64> = accumulators(&layer).into_iter().enumerate().map(|(i, acc)| i64::from(acc) - i64::from(layer.bias[i % c])).collect();
    assert_eq!(sums, expected);
    assert_eq!(schedule.block_cycles.iter().sum::<usize>(), 604);
    assert_eq!((schedule.per_tap_blocks, schedule.fresh_blocks, schedule.reuse_blocks), (4, 32, 220));
    assert_eq!(schedule.cycles_with_lanes(4), 2052);
    assert_eq!(schedule.cycles_with_lanes(8), 1044);
    assert_eq!(schedule.cycles_with_lanes(16), 604);
}
