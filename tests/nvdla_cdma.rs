//! NVDLA's CDMA (hdl/src/nvdla/cdma.rs): the Verilated RTL in lock step with its cycle-level
//! model (`npu_model::nvdla::cdma::Cdma`) on random layers, behind a stalling memory and a
//! bench playing CSC's side of the weight handshake. Every CBUF write is the same on both
//! sides (the harness compares every output every cycle); the bench keeps CBUF from those
//! writes and compares it with the plain placement (`CdmaLayer::place_features`,
//! `place_weights`, addresses by multiplication, byte by byte) when the features are in
//! (`dat_done`) and at each kernel group's `weights_ready`. The weights lie in memory in
//! NVIDIA's packed layout as the convolution reference writes it
//! (`nvdla_bench::conv_reference::Conv::weight_bytes`), everything else is random bytes.
//! Layers CBUF cannot hold end with `error` and its code, no read and no write.
//! `SEED` repeats a run, `CYCLES` sets its length.
mod nvdla_bench;
use npu::cosim::lockstep::{drive, Coverage, Run};
use npu::cosim::tops::cdma::Cdma;
use npu::model::nvdla::cbuf::{Cbuf, BANKS, BANK_ENTRIES};
use npu::model::nvdla::cdma::{CdmaError, CdmaLayer, Converter, In, Out};
use npu::model::nvdla::csc::CscLayer;
use nvdla_bench::conv_reference::Conv;
use rand::rngs::SmallRng;
use rand::Rng;
use std::cell::RefCell;
use std::collections::HashMap;

/// Cycles a layer may take at most (the largest drawn here takes under 20 000).
const LAYER_LIMIT: u64 = 200_000;

/// Memory: the weights where the layer put them, random bytes (a hash of the address)
/// elsewhere, so that gaps and bytes past the cube are never 0 by chance.
#[derive(Default)]
struct Memory {
    seed: u64,
    written: HashMap<u64, u8>,
}

impl Memory {
    fn read(&self, address: u64) -> u8 {
        self.written.get(&address).copied().unwrap_or_else(|| {
            let mut z = address ^ self.seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
    }

    fn atom(&self, address: u64) -> u64 {
        u64::from_le_bytes(std::array::from_fn(|k| self.read(address.wrapping_add(k as u64))))
    }
}

/// A layer as drawn: the CDMA layer, what the bench expects of it, what it covers.
struct Drawn {
    layer: CdmaLayer,
    refused: Option<CdmaError>,
    kinds: Vec<&'static str>,
}

/// A layer that fits: a cube of up to 10 x 8 x 40 (channel counts often not a multiple of
/// 8), gaps between lines and surfaces, up to 20 kernels of up to 4 x 4, the converter in
/// about 40 % of layers, banks just large enough or larger.
fn fitting_layer(rng: &mut SmallRng, memory: &mut Memory) -> Drawn {
    let mut kinds = Vec::new();
    let (w, h) = (rng.gen_range(1..=10usize), rng.gen_range(1..=8usize));
    let channels = if rng.gen_bool(0.2) { 8 * rng.gen_range(1..=5) } else { rng.gen_range(1..=40) };
    let (kw, kh) = (rng.gen_range(1..=4usize), rng.gen_range(1..=4usize));
    let kernels = if rng.gen_bool(0.2) { 8 * rng.gen_range(1..=2) } else { rng.gen_range(1..=20) };
    let line_gap = if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..=40u64) };
    let surface_gap = if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..=100u64) };
    let line = 8 * w as u64 + line_gap;
    let surface = line * h as u64 + surface_gap;
    let feature_base = 0x1000_0000 + if rng.gen_bool(0.8) { 8 * rng.gen_range(0..64) } else { rng.gen_range(0..512) };
    let weight_base = 0x2000_0000 + if rng.gen_bool(0.6) { 32 * rng.gen_range(0..16) } else { rng.gen_range(0..512) };
    let mut csc = CscLayer { width: w, height: h, channels, kernel_width: kw, kernel_height: kh, kernels, stride: (1, 1), dilation: (1, 1), out_width: 1, out_height: 1, ..CscLayer::default() };
    csc.data_banks = csc.data_entries().div_ceil(BANK_ENTRIES) + if rng.gen_bool(0.3) { rng.gen_range(0..3) } else { 0 };
    let weight_banks = csc.weight_entries().div_ceil(BANK_ENTRIES) + if rng.gen_bool(0.3) { rng.gen_range(0..3) } else { 0 };
    let converter = rng.gen_bool(0.4).then(|| {
        let wide = rng.gen_bool(0.3);
        Converter {
            offset: if wide { rng.gen() } else { rng.gen_range(-64..64) },
            scale: if wide { rng.gen() } else { rng.gen_range(-8..9) },
            // Wide truncations 3 times in 10 (1 in 5 gave 12 layers of 34 or more a run, 6 at the least).
            truncate: if rng.gen_bool(0.3) { rng.gen_range(30..64) } else { rng.gen_range(0..6) },
        }
    });
    // The weights in NVIDIA's packed layout, as the convolution reference lays them out.
    let conv = Conv {
        width: w,
        height: h,
        channels,
        kernel_width: kw,
        kernel_height: kh,
        kernels,
        stride: (1, 1),
        dilation: (1, 1),
        pad_left: 0,
        pad_top: 0,
        out_width: 1,
        out_height: 1,
        pad_value: 0,
        converter: None,
        clip_truncate: 0,
    };
    let weights: Vec<i8> = (0..kernels * kw * kh * channels).map(|_| rng.gen()).collect();
    for (k, byte) in conv.weight_bytes(&weights).into_iter().enumerate() {
        memory.written.insert(weight_base + k as u64, byte);
    }
    for (cond, kind) in [
        (channels % 8 != 0, "partial last surface"),
        (channels > 8, "several surfaces"),
        (kernels % 8 != 0, "partial last kernel group"),
        (kernels > 8, "several kernel groups"),
        (line_gap > 0, "gap between lines"),
        (surface_gap > 0, "gap between surfaces"),
        (feature_base % 8 != 0, "feature base not a multiple of 8"),
        (weight_base % 8 != 0, "weight base not a multiple of 8"),
        (converter.is_some(), "converter on"),
        (converter.is_none(), "converter off"),
        (converter.is_some_and(|c| c.truncate >= 34), "converter truncation of 34 or more"),
        (csc.data_entries() == csc.data_banks * BANK_ENTRIES, "feature cube filling its data banks"),
    ] {
        if cond {
            kinds.push(kind);
        }
    }
    let layer = CdmaLayer { csc, feature_base, line_stride: line, surface_stride: surface, weight_base, weight_banks, converter };
    Drawn { refused: layer.check().err(), layer, kinds }
}

/// A layer CBUF cannot hold, one of the three refusals, or one that just fits.
fn edge_layer(rng: &mut SmallRng, memory: &mut Memory) -> Drawn {
    let mut drawn = fitting_layer(rng, memory);
    drawn.kinds.clear();
    let l = &mut drawn.layer;
    // The two layers that just fit twice as often as each refusal: drawn 1 layer in 25 each
    // (1 in 5 edge layers), about 200 layers a run gave them 8 hits on average, 3 at
    // the least in 30 seeds, a seed with none about 3e-4.
    match rng.gen_range(0..7) {
        0 => {
            l.csc.data_banks = rng.gen_range(1..=32);
            l.weight_banks = rng.gen_range(BANKS + 1 - l.csc.data_banks..=32);
        }
        1 => {
            (l.csc.width, l.csc.height, l.csc.data_banks) = (rng.gen_range(30..=100), rng.gen_range(18..=40), 1);
            l.line_stride = 8 * l.csc.width as u64;
            l.surface_stride = l.line_stride * l.csc.height as u64;
        }
        2 => {
            (l.csc.channels, l.csc.kernel_width, l.csc.kernel_height, l.weight_banks) = (rng.gen_range(57..=64), 3, 3, 1);
            l.csc.data_banks = l.csc.data_entries().div_ceil(BANK_ENTRIES);
        }
        edge => {
            // 64 x 8 x 8: exactly the one data bank; or an 8 x 1 kernel of 64 channels:
            // exactly the one weight bank.
            (l.csc.width, l.csc.height, l.csc.channels, l.csc.data_banks) = (64, 8, 8, 1);
            if edge < 5 {
                drawn.kinds.push("feature cube filling its data banks");
            } else {
                (l.csc.width, l.csc.height, l.csc.channels, l.csc.kernel_width, l.csc.kernel_height, l.weight_banks) = (1, 1, 64, 8, 1, 1);
                drawn.kinds.push("weights filling their weight banks");
            }
            l.line_stride = 8 * l.csc.width as u64;
            l.surface_stride = l.line_stride * l.csc.height as u64;
            l.csc.kernels = l.csc.kernels.min(8);
        }
    }
    // The weights of the changed shape: random bytes.
    memory.written.clear();
    drawn.refused = l.check().err();
    drawn
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Between layers: `start` low, the parameters random (they must not matter).
    Between(u64),
    Running,
}

struct Bench {
    run_seed: u64,
    memory: Memory,
    drawn: Drawn,
    ports: In,
    layer_text: String,
    phase: Phase,
    started: u64,
    /// The one outstanding read: address and the cycle its data comes.
    read: Option<(u64, u64)>,
    stall: f64,
    latency: u64,
    cbuf: Cbuf,
    /// CSC's side: wants the group `group` from cycle `want_at` on.
    want_at: Option<u64>,
    wants: bool,
    group: usize,
    features_in: bool,
    writes: u64,
    requests: u64,
    local: Coverage,
    layers: u64,
    refused: u64,
}

impl Bench {
    fn what(&self, cycle: u64) -> String {
        format!("cycle {cycle}, seed {}, {}", self.run_seed, self.layer_text)
    }

    fn new_layer(&mut self, rng: &mut SmallRng, cycle: u64) {
        self.memory = Memory { seed: rng.gen(), written: HashMap::new() };
        // Edge layers 3 in 10 (was 1 in 5), so that each refusal stays as frequent with the
        // two fits drawn twice.
        self.drawn = if rng.gen_bool(0.3) { edge_layer(rng, &mut self.memory) } else { fitting_layer(rng, &mut self.memory) };
        self.ports = In::of_layer(&self.drawn.layer);
        self.layer_text = format!("layer {} ({:?})", self.layers + self.refused, self.drawn.layer);
        self.phase = Phase::Running;
        self.started = cycle;
        (self.stall, self.latency) = ([0.0, 0.5, 0.8][rng.gen_range(0..3)], [1, 1, 3, 8][rng.gen_range(0..4)]);
        self.cbuf = Cbuf::default();
        // CSC wants the first group at once, or after a while (perhaps after the features).
        self.want_at = Some(cycle + if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..2000) });
        (self.wants, self.group, self.features_in, self.writes, self.requests) = (false, 0, false, 0, 0);
    }

    fn stimulus(&mut self, rng: &mut SmallRng, cycle: u64) -> In {
        let mut input = match self.phase {
            Phase::Between(until) if cycle >= until => {
                self.new_layer(rng, cycle);
                In { start: true, ..self.ports.clone() }
            }
            Phase::Between(_) => {
                // Anything, as long as `start` is low.
                let mut junk = In::of_layer(&fitting_layer(rng, &mut Memory::default()).layer);
                junk.cvt_en = rng.gen();
                junk.wants_weights = rng.gen();
                junk
            }
            Phase::Running => {
                // Now and then; often in a refused layer's two cycles (a start in the cycle of
                // its `error` is taken).
                // Half the time there: 0.3 gave a start in the cycle of `error` 11 times a
                // run on average, 4 at the least in 30 seeds.
                let start = rng.gen_bool(if self.drawn.refused.is_some() { 0.5 } else { 0.01 });
                if start {
                    self.local.hit("start while running (ignored)");
                }
                In { start, ..self.ports.clone() }
            }
        };
        if self.phase == Phase::Running {
            if self.want_at.is_some_and(|at| cycle >= at) {
                (self.wants, self.want_at) = (true, None);
            }
            input.wants_weights = self.wants;
        }
        input.dbb_req_ready = !rng.gen_bool(self.stall);
        if let Some((address, _)) = self.read.filter(|&(_, at)| at <= cycle) {
            input.dbb_resp_valid = true;
            input.dbb_resp_data = self.memory.atom(address);
        }
        input
    }

    /// Compares CBUF's entries `first..first + count` with the reference's.
    fn compare(&self, reference: &Cbuf, first: usize, count: usize, what: &str) {
        for e in first..first + count {
            let (got, want) = (self.cbuf.read(e), reference.read(e));
            assert_eq!(got, want, "{what}: CBUF entry {e} (bank {}, entry {}) is {got:#018x}, the placement {want:#018x}", e / BANK_ENTRIES, e % BANK_ENTRIES);
        }
    }

    fn check(&mut self, input: &In, out: &Out, cycle: u64) {
        let what = self.what(cycle);
        if input.dbb_resp_valid {
            self.read = None;
        }
        if out.dbb_req_valid && input.dbb_req_ready {
            assert!(self.read.is_none(), "{what}: a second read while one is outstanding");
            self.read = Some((out.dbb_req_addr, cycle + self.latency));
            self.requests += 1;
        }
        if out.dbb_req_valid && !input.dbb_req_ready {
            self.local.hit("memory not ready");
        }
        if self.phase != Phase::Running {
            assert!(!out.cbuf_wr_valid && !out.dbb_req_valid && !out.running, "{what}: CDMA busy between layers: {out:?}");
            return;
        }
        let l = self.drawn.layer;
        let read = |a: u64| self.memory.read(a);
        if out.cbuf_wr_valid {
            let e = usize::from(out.cbuf_wr_entry);
            let weights = l.csc.data_banks * BANK_ENTRIES;
            if !self.features_in {
                assert!(e < l.csc.data_entries(), "{what}: feature write at entry {e} past the cube's {}", l.csc.data_entries());
            } else {
                assert!(self.wants, "{what}: a weight write while CSC does not want weights");
                assert!((weights..weights + l.csc.weight_entries()).contains(&e), "{what}: weight write at entry {e} outside the group's");
            }
            self.cbuf.write(e, out.cbuf_wr_data);
            self.writes += 1;
        }
        if out.dat_done {
            assert!(!self.features_in, "{what}: dat_done twice");
            self.features_in = true;
            let mut reference = Cbuf::default();
            l.place_features(&mut reference, read);
            self.compare(&reference, 0, l.csc.data_entries(), &format!("{what}: features"));
            assert_eq!(self.writes, l.csc.data_entries() as u64, "{what}: feature writes");
            self.local.hit("features placed as the reference");
            if self.wants {
                self.local.hit("csc wanted weights before the features were in");
            }
        }
        if out.weights_ready {
            assert!(self.features_in && self.wants, "{what}: weights_ready without a request or before the features");
            let mut reference = Cbuf::default();
            l.place_weights(&mut reference, self.group, read);
            let first = l.csc.data_banks * BANK_ENTRIES;
            self.compare(&reference, first, l.csc.weight_entries(), &format!("{what}: kernel group {}", self.group));
            self.local.hit("kernel group placed as the reference");
            self.group += 1;
            self.wants = false;
            assert_eq!(out.wt_done, self.group == l.csc.kernel_groups(), "{what}: wt_done with group {}", self.group);
            if self.group < l.csc.kernel_groups() {
                self.want_at = Some(cycle + 1 + if self.group % 2 == 0 { 0 } else { (cycle * 7919) % 300 });
            }
        } else {
            assert!(!out.wt_done, "{what}: wt_done without weights_ready");
        }
        // A start in the cycle of `error` is taken (CDMA is idle again): the layer is checked
        // and refused once more.
        let restarted = out.error && input.start;
        if restarted {
            self.local.hit("start in the cycle of error: refused again");
            self.started = cycle;
        }
        let ended = out.wt_done || out.error && !restarted;
        if out.error {
            let expected = self.drawn.refused.unwrap_or_else(|| panic!("{what}: refused with code {}", out.error_code));
            assert_eq!(out.error_code, expected.code(), "{what}: error code, expected {expected}");
            assert_eq!((self.writes, self.requests), (0, 0), "{what}: a refused layer wrote CBUF or read memory");
            self.local.hit(["", "refused: banks", "refused: features", "refused: weights"][usize::from(expected.code())]);
            self.refused += 1;
        }
        if out.wt_done {
            assert!(self.drawn.refused.is_none(), "{what}: ran a layer it should refuse: {:?}", self.drawn.refused);
            for kind in &self.drawn.kinds {
                self.local.hit(kind);
            }
            self.layers += 1;
        }
        if ended {
            self.phase = Phase::Between(cycle + 1 + cycle % 5);
        } else {
            assert!(cycle - self.started < LAYER_LIMIT, "{what}: the layer did not end (a hang)");
        }
    }
}

#[test]
fn random_layers_match_the_model_and_the_placement() {
    let run = Run::from_env("random_layers_match_the_model_and_the_placement", 400_000);
    let bench = RefCell::new(Bench {
        run_seed: run.seed,
        memory: Memory::default(),
        drawn: Drawn { layer: CdmaLayer { csc: CscLayer::default(), feature_base: 0, line_stride: 0, surface_stride: 0, weight_base: 0, weight_banks: 1, converter: None }, refused: None, kinds: Vec::new() },
        ports: In::default(),
        layer_text: String::new(),
        phase: Phase::Between(3),
        started: 0,
        read: None,
        stall: 0.0,
        latency: 1,
        cbuf: Cbuf::default(),
        want_at: None,
        wants: false,
        group: 0,
        features_in: false,
        writes: 0,
        requests: 0,
        local: Coverage::default(),
        layers: 0,
        refused: 0,
    });
    let mut cycle = 0;
    let mut coverage = drive::<Cdma>(&run, |rng, cycle| bench.borrow_mut().stimulus(rng, cycle), |input, out, _| {
        bench.borrow_mut().check(input, out, cycle);
        cycle += 1;
        true
    })
    .unwrap_or_else(|mismatch| panic!("{mismatch}"));
    let bench = bench.into_inner();
    coverage.merge(&bench.local);
    eprintln!("{} layers run, {} refused; coverage:\n{coverage}", bench.layers, bench.refused);
    coverage.require(&[
        "start",
        "check passed",
        "refused: banks",
        "refused: features",
        "refused: weights",
        "feature request",
        "feature read stall",
        "feature read wait",
        "feature atom",
        "last feature atom",
        "wait for csc",
        "weight group start",
        "weight request",
        "weight read stall",
        "weight read wait",
        "weight atom",
        "weight atom of a partial block",
        "weight atom past the last kernel",
        "group ready",
        "last group ready: weights done",
        "memory not ready",
        "start while running (ignored)",
        "start in the cycle of error: refused again",
        "features placed as the reference",
        "kernel group placed as the reference",
        "csc wanted weights before the features were in",
        "partial last surface",
        "several surfaces",
        "partial last kernel group",
        "several kernel groups",
        "gap between lines",
        "gap between surfaces",
        "feature base not a multiple of 8",
        "weight base not a multiple of 8",
        "converter on",
        "converter off",
        "converter truncation of 34 or more",
        "feature cube filling its data banks",
        "weights filling their weight banks",
    ]);
    assert!(bench.layers >= 50 && bench.refused >= 5, "only {} layers and {} refusals", bench.layers, bench.refused);
}
