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

/// The packed walk and feed in the datapath's cycle-level form (`conv_datapath::depthwise_walk`
/// and `depthwise_feed`, what the RTL is to run): the walk issues a cycle's reads, their data
/// (with noise on every port not read and every lane beyond the depth, as the lock-step bench
/// drives them) reach stage 2 in the next cycle, where the feed gives the window and kernel
/// words, each unit's lanes are wired from them and the 32 units sum their 8 lanes (conv mode). Every accumulator and every
/// (group, block)'s cycles equal `depthwise_packing.rs`'s, and so do its IFM reads.
#[test]
fn packed_walk_in_stage_two_equals_the_mapping() {
    use npu::model::ethos::conv_datapath::depthwise_feed::{DepthwiseFeed, Stage2};
    use npu::model::ethos::conv_datapath::depthwise_walk::{DepthwiseWalk, Kind, Shape};
    use npu::model::ethos::mac_unit::unpack;
    let run_info = Run::from_env("packed_walk_in_stage_two_equals_the_mapping", 300);
    let mut rng = SmallRng::seed_from_u64(run_info.seed);
    let mut coverage: BTreeMap<&str, usize> = BTreeMap::new();
    for i in 0..run_info.cycles {
        let layer = random_depthwise(&mut rng);
        let (expected, schedule) = run(&layer);
        let m = packing_layer(&layer);
        let is_packed = packed(&m);
        let (ih, iw, c) = m.ifm;
        let (oh, ow) = m.ofm;
        let (kh, kw) = m.kernel;
        let (sy, sx) = m.stride;
        let (dy, dx) = m.dilation;
        let zp = i16::from(layer.input_zero_point);
        let shape = Shape { window_rows: m.window_rows() as u32, ifm_height: ih as u32, ifm_width: iw as u32 };
        let weight = |ky: usize, kx: usize, og: usize, o: usize| if 8 * og + o < c { i16::from(layer.weights[(ky * kw + kx) * c + 8 * og + o]) } else { 0 };
        // An IFM port's lanes as the datapath's IFM lanes give them: minus the zero point,
        // channels beyond the depth 0; a port not read carries noise.
        let port_lanes = |rng: &mut SmallRng, read: bool, y: u32, x: u32, og: usize| -> [i16; 8] {
            std::array::from_fn(|o| {
                let noise = i16::from(rng.gen::<i8>()) - zp;
                if !read {
                    noise
                } else if 8 * og + o < c {
                    i16::from(layer.input[((y - 8) as usize * iw + (x - 8) as usize) * c + 8 * og + o]) - zp
                } else {
                    0
                }
            })
        };
        let mut sums = vec![0i64; oh * ow * c];
        let mut block_cycles = Vec::new();
        let mut reads = 0;
        let mut walk = DepthwiseWalk::default();
        let mut feed = DepthwiseFeed::default();
        for og in 0..c.div_ceil(8) {
            for by in (0..oh).step_by(2) {
                for bx in (0..ow).step_by(2) {
                    let origin = ((by * sy) as u32 + 8 - m.pad.0 as u32, (bx * sx) as u32 + 8 - m.pad.1 as u32);
                    let mut acc = [[[0i64; 8]; 2]; 2];
                    let mut cycles = 0;
                    if walk.kind == Kind::PerTap {
                        // Tap by tap (the datapath's mapping today); stage 2 loads the kernel register.
                        for ky in 0..kh {
                            for kx in 0..kw {
                                cycles += 1;
                                let words: [u128; 8] = std::array::from_fn(|o| {
                                    npu::model::ethos::mac_unit::pack(&std::array::from_fn(|l| if l == o { weight(ky, kx, og, o) } else { 0 }))
                                });
                                if is_packed {
                                    feed.load(ky, kx, &words);
                                }
                                for (a, row) in acc.iter_mut().enumerate() {
                                    for (b, unit) in row.iter_mut().enumerate() {
                                        let y = origin.0 as i64 + (a * sy + ky * dy) as i64;
                                        let x = origin.1 as i64 + (b * sx + kx * dx) as i64;
                                        if y >= 8 && x >= 8 && ((y - 8) as usize) < ih && ((x - 8) as usize) < iw {
                                            reads += 1;
                                            let lanes = port_lanes(&mut rng, true, y as u32, x as u32, og);
                                            for o in 0..8 {
                                                unit[o] += i64::from(lanes[o]) * i64::from(weight(ky, kx, og, o));
                                            }
                                        }
                                    }
                                }
                            }
                        }
                        *coverage.entry("tap-by-tap block").or_default() += 1;
                    } else {
                        *coverage.entry(if walk.kind == Kind::Fresh { "fresh block" } else { "reuse block" }).or_default() += 1;
                        loop {
                            cycles += 1;
                            // The issue cycle: the walk's reads and stage 2's registers.
                            let issued = walk.reads(&shape, origin.0, origin.1);
                            let stage2 = Stage2 {
                                reuse: walk.kind == Kind::Reuse,
                                row: walk.row,
                                rows: walk.rows(&shape),
                                pad: (0..4).fold(0, |pad, p| pad | u8::from(issued[p].pad) << p),
                            };
                            assert!(issued.iter().any(|r| r.read || r.pad), "SEED={} layer {i}: a packed cycle takes no row", run_info.seed);
                            *coverage.entry("packed cycle with padding").or_default() += usize::from(stage2.pad != 0);
                            *coverage.entry("reuse cycle over one window row").or_default() += usize::from(stage2.reuse && stage2.rows == 1);
                            reads += issued.iter().filter(|r| r.read).count();
                            let last = walk.last(&shape);
                            // Stage 2, the next cycle: the ports' data, the feed, the units.
                            let lanes: [[i16; 8]; 4] = std::array::from_fn(|p| port_lanes(&mut rng, issued[p].read, issued[p].y, issued[p].x, og));
                            let words = feed.feed(&stage2, &lanes, sy as u32, dy as u32, (kh as u32, kw as u32));
                            for (a, row) in acc.iter_mut().enumerate() {
                                for (b, unit) in row.iter_mut().enumerate() {
                                    for o in 0..8 {
                                        let (x, w) = words.unit(a, b, o);
                                        let (x, w) = (unpack(x), unpack(w));
                                        unit[o] += (0..8).map(|l| i64::from(x[l]) * i64::from(w[l])).sum::<i64>();
                                    }
                                }
                            }
                            if last {
                                break;
                            }
                            walk.step(&shape, false, is_packed, false, false);
                        }
                    }
                    block_cycles.push(cycles);
                    let next_row_start = bx + 2 >= ow;
                    let next_first = next_row_start && by + 2 >= oh;
                    walk.step(&shape, true, is_packed, next_first, next_row_start);
                    for (a, row) in acc.iter().enumerate() {
                        for (b, unit) in row.iter().enumerate() {
                            let (y, x) = (by + a, bx + b);
                            if y < oh && x < ow {
                                for o in 0..8 {
                                    if 8 * og + o < c {
                                        sums[(y * ow + x) * c + 8 * og + o] = unit[o];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(walk, DepthwiseWalk::default(), "SEED={} layer {i}: the walk ends tap by tap", run_info.seed);
        if let Some(k) = (0..expected.len()).find(|&k| sums[k] != expected[k]) {
            panic!("SEED={} layer {i}: element {k} is {}, the mapping's {}\n  {}", run_info.seed, sums[k], expected[k], layer.describe());
        }
        assert_eq!(block_cycles, schedule.block_cycles, "SEED={} layer {i}: cycles\n  {}", run_info.seed, layer.describe());
        assert_eq!(reads, schedule.reads, "SEED={} layer {i}: IFM reads", run_info.seed);
        *coverage.entry(if is_packed { "packed layer" } else { "tap-by-tap layer" }).or_default() += 1;
    }
    eprintln!("coverage (SEED={}): {coverage:#?}", run_info.seed);
    let required = ["packed layer", "tap-by-tap layer", "tap-by-tap block", "fresh block", "reuse block", "packed cycle with padding", "reuse cycle over one window row"];
    let missing: Vec<_> = required.iter().filter(|case| coverage.get(*case).copied().unwrap_or(0) < 4).collect();
    assert!(missing.is_empty(), "SEED={}: cases seen fewer than 4 times: {missing:?}", run_info.seed);
}
