//! NVDLA's CMAC and CACC (hdl/src/nvdla/cmac.rs, cacc.rs) each in lock step with its model,
//! chained as in nv_small (CMAC's partial sums into CACC), fed by a bench playing CSC on random
//! small convolutions: every delivered atom against a plain integer convolution truncated as
//! NVIDIA's C model truncates (through a double, `cmod/cacc/NV_NVDLA_cacc.cpp`), written here
//! from that, not from the models. docs/nvdla.md "CMAC", "CACC".
use npu::cosim::lockstep::{Coverage, Lockstep, Run};
use npu::cosim::tops::{cacc::Cacc, cmac::Cmac};
use npu_model::nvdla::cacc::{self, unpack_atom, BUSY_FULL_ABOVE, DELIVERY_DEPTH, STRIPE_MAX};
use npu_model::nvdla::cmac::{self, CMAC_LATENCY};
use rand::rngs::SmallRng;
use rand::Rng;
use std::collections::VecDeque;

/// One stripe as CSC sends it: the 8 kernels' weights, one pixel atom per op, and the tags.
struct Stripe {
    weights: [u64; 8],
    pixels: Vec<u64>,
    acc_first: bool,
    acc_last: bool,
    layer_last: bool,
}

/// A convolution with stride 1 and no padding (CSC's business, not CMAC's or CACC's): the
/// stripes in CSC's order and the atoms SDP must receive.
struct Layer {
    stripes: Vec<Stripe>,
    expected: Vec<[i32; 8]>,
    clip: u8,
    ties: (u64, u64),
    saturated: (u64, u64),
    /// SDP's ready pattern: 0 always, 1 at random, 2 long stalls.
    stall_mode: u8,
}

fn byte(rng: &mut SmallRng) -> i8 {
    match rng.gen_range(0..16) {
        0 | 1 => -128,
        2 => 127,
        _ => rng.gen(),
    }
}

fn atom(values: impl Iterator<Item = i8>) -> u64 {
    values.enumerate().fold(0, |a, (c, v)| a | (u64::from(v as u8) << (8 * c)))
}

/// The C model's truncation: `in / 2^clip` as a double, `+-0.5`, cast toward zero, then
/// saturated to int32.
fn c_model_truncate(sum: i64, clip: u8) -> (i32, bool) {
    let out = sum as f64 / 2f64.powi(i32::from(clip));
    let rounded = if out > 0.0 { (out + 0.5) as i64 } else { (out - 0.5) as i64 };
    let clamped = rounded.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
    (clamped as i32, clamped != rounded)
}

/// `input[y][x][c]` (h x w x channels) convolved with `kernels` 8 x r x s x channels.
#[allow(clippy::too_many_arguments)]
fn layer(out_w: usize, out_h: usize, r: usize, s: usize, channels: usize, block: usize, clip: u8, input: &[i8], kernels: &[i8], stall_mode: u8) -> Layer {
    let in_w = out_w + s - 1;
    let at = |y: usize, x: usize, c: usize| if c < channels { input[(y * in_w + x) * channels + c] } else { 0 };
    let weight = |k: usize, dy: usize, dx: usize, c: usize| if c < channels { kernels[((k * r + dy) * s + dx) * channels + c] } else { 0 };
    let groups = channels.div_ceil(8);
    let pixels: Vec<(usize, usize)> = (0..out_h).flat_map(|y| (0..out_w).map(move |x| (y, x))).collect();
    let mut stripes = Vec::new();
    for chunk in pixels.chunks(block) {
        for g in 0..groups {
            for dy in 0..r {
                for dx in 0..s {
                    stripes.push(Stripe {
                        weights: std::array::from_fn(|k| atom((0..8).map(|c| weight(k, dy, dx, 8 * g + c)))),
                        pixels: chunk.iter().map(|&(y, x)| atom((0..8).map(|c| at(y + dy, x + dx, 8 * g + c)))).collect(),
                        acc_first: g == 0 && dy == 0 && dx == 0,
                        acc_last: g == groups - 1 && dy == r - 1 && dx == s - 1,
                        layer_last: false,
                    });
                }
            }
        }
    }
    stripes.last_mut().unwrap().layer_last = true;
    let (mut ties, mut saturated) = ((0, 0), (0, 0));
    let expected = pixels
        .iter()
        .map(|&(y, x)| {
            std::array::from_fn(|k| {
                let mut sum = 0i64;
                for dy in 0..r {
                    for dx in 0..s {
                        for c in 0..channels {
                            sum += i64::from(at(y + dy, x + dx, c)) * i64::from(weight(k, dy, dx, c));
                        }
                    }
                }
                if clip > 0 && sum.rem_euclid(1 << clip) == 1 << (clip - 1) {
                    if sum > 0 { ties.0 += 1 } else { ties.1 += 1 }
                }
                let (value, sat) = c_model_truncate(sum, clip);
                if sat {
                    if sum > 0 { saturated.0 += 1 } else { saturated.1 += 1 }
                }
                value
            })
        })
        .collect();
    Layer { stripes, expected, clip, ties, saturated, stall_mode }
}

fn random_layer(rng: &mut SmallRng, n: u64) -> Layer {
    let clip = match rng.gen_range(0..10) {
        0..=5 => rng.gen_range(0..=8),
        6..=8 => rng.gen_range(9..=16),
        _ => rng.gen_range(17..=31),
    };
    let (out_w, out_h) = (rng.gen_range(1..=7), rng.gen_range(1..=7));
    // Every third layer a 1x1 convolution of at most 8 channels: every stripe delivers, which
    // with SDP stalling fills the delivery buffer.
    let (r, s, channels) = if n % 3 == 0 { (1, 1, rng.gen_range(1..=8)) } else { (rng.gen_range(1..=3), rng.gen_range(1..=3), rng.gen_range(1..=20)) };
    let kernels_used = rng.gen_range(1..=8);
    let input: Vec<i8> = (0..(out_w + s - 1) * (out_h + r - 1) * channels).map(|_| byte(rng)).collect();
    // Kernels past the layer's count are zeros, as CSC sends them.
    let kernels: Vec<i8> = (0..8 * r * s * channels).map(|i| if i / (r * s * channels) < kernels_used { byte(rng) } else { 0 }).collect();
    let block = if rng.gen_bool(0.5) { STRIPE_MAX } else { rng.gen_range(1..=STRIPE_MAX) };
    layer(out_w, out_h, r, s, channels, block, clip, &input, &kernels, if n % 3 == 0 { 2 } else { rng.gen_range(0..3) })
}

/// One output pixel of 4 x 4 or 5 x 4 taps over 8192 channels of extreme values with
/// CLIP_TRUNCATE 0: +2^31 (-128 x -128 everywhere) saturates up, 20 x 8192 x -128 x 127 down.
fn saturating_layer(positive: bool) -> Layer {
    let (r, channels) = (if positive { 4 } else { 5 }, 8192);
    let input = vec![-128i8; r * 4 * channels];
    let kernels = vec![if positive { -128i8 } else { 127 }; 8 * r * 4 * channels];
    layer(1, 1, r, 4, channels, 1, 0, &input, &kernels, 0)
}

/// The bench playing CSC: weight loads into the shadow bank once the active bank has taken
/// the stripe before (a load may come with that stripe's first op), ops with random gaps, no
/// stripe with `acc_last` started while `busy_full` (seen one cycle late, through a register)
/// is high.
struct Csc {
    layer: Layer,
    /// Stripes started, and ops of the last one issued.
    started: usize,
    ops: usize,
    /// Kernels of stripe `started` loaded into the shadow bank.
    loaded: usize,
    shadow: [u64; 8],
    busy_seen: bool,
    /// Cycles without an op since the layer's last op (the clip changes after the pipeline).
    quiet: usize,
}

impl Csc {
    fn done_issuing(&self) -> bool {
        self.started == self.layer.stripes.len() && self.ops == self.layer.stripes[self.started - 1].pixels.len()
    }

    fn cycle(&mut self, rng: &mut SmallRng, local: &mut Coverage) -> cmac::In {
        let mut input = cmac::In::default();
        let stripes = &self.layer.stripes;
        let in_stripe = self.started > 0 && self.ops < stripes[self.started - 1].pixels.len();
        if in_stripe && rng.gen_bool(0.85) {
            let stripe = &stripes[self.started - 1];
            input = self.op(stripe, false);
            self.ops += 1;
        } else if !in_stripe && self.started < stripes.len() && self.loaded == 8 && rng.gen_bool(0.85) {
            let stripe = &stripes[self.started];
            if stripe.acc_last && self.busy_seen {
                local.hit("CSC waits on busy_full");
            } else {
                input = self.op(stripe, true);
                self.started += 1;
                self.ops = 1;
                self.loaded = 0;
            }
        }
        // Loads for stripe `started` (the next to start), skipping kernels the shadow holds.
        if self.started < self.layer.stripes.len() && rng.gen_bool(0.8) {
            let want = self.layer.stripes[self.started].weights;
            while self.loaded < 8 && self.shadow[self.loaded] == want[self.loaded] {
                self.loaded += 1;
            }
            if self.loaded < 8 {
                input.wt_valid = true;
                input.wt_kernel = self.loaded as u8;
                input.wt_data = want[self.loaded];
                self.shadow[self.loaded] = want[self.loaded];
                self.loaded += 1;
                if input.dat_stripe_first {
                    local.hit("weight load with a stripe's first op");
                }
            }
        }
        self.quiet = if input.dat_valid { 0 } else { self.quiet + 1 };
        input
    }

    fn op(&self, stripe: &Stripe, first: bool) -> cmac::In {
        let index = if first { 0 } else { self.ops };
        cmac::In {
            dat_valid: true,
            dat_data: stripe.pixels[index],
            dat_stripe_first: first,
            dat_acc_first: stripe.acc_first,
            dat_acc_last: stripe.acc_last,
            dat_layer_last: stripe.layer_last && index + 1 == stripe.pixels.len(),
            ..cmac::In::default()
        }
    }
}

/// SDP's ready for this cycle under `mode`; `stall` counts a long stall down.
fn sdp_ready(rng: &mut SmallRng, mode: u8, stall: &mut u32) -> bool {
    match mode {
        0 => true,
        1 => rng.gen_bool(0.5),
        _ => {
            if *stall > 0 {
                *stall -= 1;
                false
            } else {
                if rng.gen_bool(0.05) {
                    *stall = rng.gen_range(40..200);
                }
                true
            }
        }
    }
}

#[test]
fn random_stripes_match_the_models_and_a_plain_convolution() {
    let run = Run::from_env("random_stripes_match_the_models_and_a_plain_convolution", 300_000);
    let mut rng = run.rng();
    let mut cmac = Lockstep::<Cmac>::open(&run);
    let mut cacc = Lockstep::<Cacc>::open(&run);
    let mut local = Coverage::default();
    let (mut layers, mut checked, mut stall, mut cycle) = (0u64, 0u64, 0u32, 0u64);
    let (mut sat_counted, mut sat_expected) = (0u64, 0u64);
    let mut expected: VecDeque<([i32; 8], bool, u64)> = VecDeque::new();
    let mut csc: Option<Csc> = None;
    let mut clip = 0u8;
    let mut stall_mode = 0u8;
    let mut shadow = [0u64; 8];
    loop {
        // The next layer once the last one's ops are through CMAC and CACC.
        if csc.as_ref().is_none_or(|c| c.done_issuing() && c.quiet > CMAC_LATENCY) {
            if let Some(done) = csc.take() {
                shadow = done.shadow;
            }
            if cycle >= run.cycles && layers >= 4 {
                if expected.is_empty() {
                    break;
                }
            } else {
                let layer = match layers {
                    1 => saturating_layer(true),
                    3 => saturating_layer(false),
                    n => random_layer(&mut rng, n),
                };
                let last = layer.expected.len() - 1;
                expected.extend(layer.expected.iter().enumerate().map(|(i, &a)| (a, i == last, layers)));
                local_hits(&mut local, &layer);
                sat_expected += layer.saturated.0 + layer.saturated.1;
                clip = layer.clip;
                stall_mode = layer.stall_mode;
                layers += 1;
                csc = Some(Csc { layer, started: 0, ops: 0, loaded: 0, shadow, busy_seen: false, quiet: 0 });
            }
        }
        assert!(cycle < 40 * run.cycles.max(100_000), "seed {}: no progress after {cycle} cycles ({} atoms left)", run.seed, expected.len());
        let cmac_in = csc.as_mut().map_or_else(cmac::In::default, |c| c.cycle(&mut rng, &mut local));
        let psums = cmac.step(&cmac_in).unwrap_or_else(|m| panic!("{m}"));
        let cacc_in = cacc::In {
            reset: false,
            psum_valid: psums.psum_valid,
            psum_lo: psums.psum_lo,
            psum_hi: psums.psum_hi,
            psum_stripe_first: psums.psum_stripe_first,
            psum_acc_first: psums.psum_acc_first,
            psum_acc_last: psums.psum_acc_last,
            psum_layer_last: psums.psum_layer_last,
            clip_truncate: clip,
            out_ready: sdp_ready(&mut rng, stall_mode, &mut stall),
        };
        let out = cacc.step(&cacc_in).unwrap_or_else(|m| panic!("{m}"));
        if let Some(c) = csc.as_mut() {
            c.busy_seen = out.busy_full;
        }
        sat_counted += u64::from(out.sat_count);
        if out.out_valid && cacc_in.out_ready {
            let (want, last, layer) = expected.pop_front().unwrap_or_else(|| panic!("cycle {cycle}, seed {}: an atom no op asked for", run.seed));
            let got = unpack_atom(out.out_data_lo, out.out_data_hi);
            assert_eq!(got, want, "cycle {cycle}, seed {}: atom {checked} (layer {layer}): CACC delivered {got:?}, the plain convolution gives {want:?}", run.seed);
            assert_eq!(out.out_layer_last, last, "cycle {cycle}, seed {}: atom {checked}: layer_last", run.seed);
            checked += 1;
        }
        cycle += 1;
    }
    let mut coverage = cmac.coverage.clone();
    coverage.merge(&cacc.coverage);
    coverage.merge(&local);
    eprintln!("{layers} layers, {cycle} cycles, {checked} atoms checked against the plain convolution; coverage:\n{coverage}");
    assert_eq!(sat_counted, sat_expected, "seed {}: saturations counted by sat_count", run.seed);
    assert_eq!(coverage.count("delivery full: atom dropped"), 0, "seed {}: an atom was lost although CSC obeyed busy_full", run.seed);
    coverage.require(&[
        "weight load",
        "weight load with a stripe's first op",
        "stripe first: shadow to active",
        "store",
        "add",
        "deliver",
        "SDP stall",
        "busy_full",
        "CSC waits on busy_full",
        "saturation +",
        "saturation -",
        "rounding tie +",
        "rounding tie -",
        "CLIP_TRUNCATE above 16",
        "stripe of STRIPE_MAX ops",
    ]);
}

fn local_hits(local: &mut Coverage, layer: &Layer) {
    for _ in 0..layer.ties.0 {
        local.hit("rounding tie +");
    }
    for _ in 0..layer.ties.1 {
        local.hit("rounding tie -");
    }
    if layer.clip > 16 {
        local.hit("CLIP_TRUNCATE above 16");
    }
    if layer.stripes.iter().any(|s| s.pixels.len() == STRIPE_MAX) {
        local.hit("stripe of STRIPE_MAX ops");
    }
}

/// A CSC that starts stripes whatever `busy_full` says, while SDP does not take anything:
/// the delivery buffer keeps its first DELIVERY_DEPTH atoms and drops the rest, RTL and model
/// alike, and delivers the kept ones in order once SDP is ready.
#[test]
fn a_csc_ignoring_busy_full_loses_atoms_as_the_model_says() {
    let run = Run::from_env("a_csc_ignoring_busy_full_loses_atoms_as_the_model_says", 0);
    let mut rng = run.rng();
    let mut cacc = Lockstep::<Cacc>::open(&run);
    let extra = 10;
    let atoms: Vec<[i32; 8]> = (0..DELIVERY_DEPTH + extra).map(|_| std::array::from_fn(|_| rng.gen_range(-(1 << 19)..(1 << 19)))).collect();
    for (n, a) in atoms.iter().enumerate() {
        let (lo, hi) = cmac::pack_psums(*a);
        let out = cacc
            .step(&cacc::In { psum_valid: true, psum_lo: lo, psum_hi: hi, psum_stripe_first: true, psum_acc_first: true, psum_acc_last: true, ..cacc::In::default() })
            .unwrap_or_else(|m| panic!("{m}"));
        assert_eq!(out.busy_full, n > BUSY_FULL_ABOVE, "seed {}: busy_full with {n} atoms", run.seed);
    }
    assert_eq!(cacc.coverage.count("delivery full: atom dropped"), extra as u64);
    for (n, a) in atoms.iter().take(DELIVERY_DEPTH).enumerate() {
        let out = cacc.step(&cacc::In { out_ready: true, ..cacc::In::default() }).unwrap_or_else(|m| panic!("{m}"));
        assert!(out.out_valid, "seed {}: atom {n} missing", run.seed);
        assert_eq!(unpack_atom(out.out_data_lo, out.out_data_hi), *a, "seed {}: atom {n}", run.seed);
    }
    let out = cacc.step(&cacc::In { out_ready: true, ..cacc::In::default() }).unwrap_or_else(|m| panic!("{m}"));
    assert!(!out.out_valid && out.out_data_lo == 0 && out.out_data_hi == 0, "seed {}: the buffer is empty and shows zeros", run.seed);
}
