//! NVDLA's cube walk (hdl/src/nvdla/cube_walk.rs) on the Verilated RTL in lock step with its
//! model, on random cubes: every address it gives is compared with a plain reference of
//! NVDLA's memory layout written here from seeds/001 "Data formats" and the RDL's stride
//! registers (atom (x, y, surface) of a cube at `base + surface * SURFACE_STRIDE + y *
//! LINE_STRIDE + 8x`), computed by multiplication, not by running pointers; the walk's
//! flags against the reference's loop indices. Three kinds of cube: SDP's and PDP's order (x
//! fastest, strides 8, line, surface with random gaps), CDP's (surfaces of an (x, y) first,
//! one more innermost position for its padding surface), and any strides (wrapping at 2^64).
//! `SEED` repeats a run, `CYCLES` sets its length.
use npu::cosim::lockstep::{drive, Coverage, Run};
use npu::cosim::tops::cube_walk::CubeWalk;
use npu_model::nvdla::cube_walk::In;
use rand::rngs::SmallRng;
use rand::Rng;
use std::cell::RefCell;

/// A cube as the test draws it: base, strides and counts, innermost first.
#[derive(Clone, Debug, Default)]
struct Shape {
    kind: &'static str,
    base: u64,
    strides: [u64; 3],
    counts: [u64; 3],
}

impl Shape {
    /// Every position in walk order: its indices and the address NVDLA's layout gives it.
    fn positions(&self) -> Vec<([u64; 3], u64)> {
        let mut all = Vec::new();
        for i2 in 0..self.counts[2] {
            for i1 in 0..self.counts[1] {
                for i0 in 0..self.counts[0] {
                    let offset = [i0, i1, i2].iter().zip(self.strides).fold(0u64, |a, (&i, s)| a.wrapping_add(i.wrapping_mul(s)));
                    all.push(([i0, i1, i2], self.base.wrapping_add(offset)));
                }
            }
        }
        all
    }

    fn input(&self) -> In {
        let last = self.counts.map(|c| (c - 1) as u16);
        In { base: self.base, stride0: self.strides[0], stride1: self.strides[1], stride2: self.strides[2], last0: last[0], last1: last[1], last2: last[2], ..In::default() }
    }
}

/// A count: mostly small (walks end often), at times 1, now and then large.
fn count(rng: &mut SmallRng, large: u64) -> u64 {
    match rng.gen_range(0..10) {
        0 => 1,
        1 => rng.gen_range(1..=large),
        _ => rng.gen_range(1..=5),
    }
}

/// `long`: one run of 8192 positions, the counters' full width.
fn random_shape(rng: &mut SmallRng, long: bool) -> Shape {
    let base = if rng.gen_bool(0.1) { u64::MAX - rng.gen_range(0..4096) } else { rng.gen::<u64>() & 0xffff_fff8 };
    let gap = |rng: &mut SmallRng| if rng.gen() { 0 } else { 8 * rng.gen_range(1..4) };
    if long {
        return Shape { kind: "any strides", base, strides: [rng.gen(), rng.gen(), rng.gen()], counts: [8192, 1, 1] };
    }
    // At most 10 000 positions a cube: three large counts at once (up to 160 000 positions)
    // took half of a run's cycles, and SEED=1207437678326998902 completed 620 walks.
    loop {
        let shape = other_shape(rng, base, gap);
        if shape.counts.iter().product::<u64>() <= 10_000 {
            return shape;
        }
    }
}

fn other_shape(rng: &mut SmallRng, base: u64, gap: impl Fn(&mut SmallRng) -> u64) -> Shape {
    match rng.gen_range(0..3) {
        0 => {
            // SDP's and PDP's order: width x height atoms a surface (RDL: 13-bit WIDTH and
            // HEIGHT), CHANNEL / 8 + 1 surfaces.
            let (w, h, s) = (count(rng, 200), count(rng, 40), count(rng, 20));
            let line = 8 * w + gap(rng);
            let surface = line * h + gap(rng);
            Shape { kind: "atoms x fastest", base, strides: [8, line, surface], counts: [w, h, s] }
        }
        1 => {
            // CDP's order: the surfaces of an (x, y), then x, then lines; one more surface
            // position for the padding past the cube.
            let (w, h, s) = (count(rng, 40), count(rng, 20), count(rng, 30));
            let line = 8 * w + gap(rng);
            let surface = line * h + gap(rng);
            Shape { kind: "surfaces first", base, strides: [surface, 8, line], counts: [s + 1, w, h] }
        }
        _ => {
            let counts = [count(rng, 50), count(rng, 50), count(rng, 50)];
            Shape { kind: "any strides", base, strides: [rng.gen(), rng.gen(), rng.gen()], counts }
        }
    }
}

struct Bench {
    shape: Shape,
    /// The cube of this cycle's start, walked from the next cycle on.
    next_shape: Option<Shape>,
    positions: Vec<([u64; 3], u64)>,
    /// The position the walk is at (an index into `positions`), None before a start.
    at: Option<usize>,
    local: Coverage,
    walks: u64,
    /// The current cube's walk was completed (it goes on from base).
    completed: bool,
    long_done: bool,
}

impl Bench {
    fn stimulus(&mut self, rng: &mut SmallRng) -> In {
        let mut input = self.shape.input();
        let finished = self.completed && rng.gen_bool(0.5);
        let restart = self.positions.len() < 1000 && rng.gen_bool(0.002);
        if self.at.is_none() || finished || restart {
            if self.at.is_some_and(|a| a > 0) {
                self.local.hit("start in the middle of a walk");
            }
            // One walk of 8192 positions a run, after the first hundred.
            let shape = random_shape(rng, self.walks >= 100 && !self.long_done);
            self.long_done |= shape.counts[0] == 8192;
            input = shape.input();
            self.next_shape = Some(shape);
            input.start = true;
            input.step = rng.gen_bool(0.5);
            return input;
        }
        input.step = rng.gen_bool(0.7);
        input
    }

    fn check(&mut self, input: &In, out: &npu_model::nvdla::cube_walk::Out, cycle: u64, seed: u64) {
        if let Some(at) = self.at {
            let (index, addr) = self.positions[at];
            let last = self.shape.counts.map(|c| c - 1);
            let what = format!("cycle {cycle}, seed {seed}: {} cube {:?}, position {index:?}", self.shape.kind, self.shape);
            assert_eq!(out.addr, addr, "{what}: address {:#x} (RTL and model) against {addr:#x} (layout)", out.addr);
            assert_eq!(u64::from(out.index0), index[0], "{what}: index0");
            // In a start's cycle the inputs are the next cube's already: the flags and the next
            // address are of the old position in the new cube, not checked.
            if !input.start {
                let next = self.positions[(at + 1) % self.positions.len()].1;
                assert_eq!(out.next_addr, next, "{what}: next address {:#x} against {next:#x}", out.next_addr);
                assert_eq!((out.end0, out.end1), (index[0] == last[0], index[1] == last[1]), "{what}: end flags");
                assert_eq!(out.last, at + 1 == self.positions.len(), "{what}: last");
            }
            if input.step && !input.start {
                self.local.hit(self.shape.kind);
                if addr.checked_add(self.shape.strides[0]).is_none() {
                    self.local.hit("address wraps at 2^64");
                }
                if at + 1 == self.positions.len() {
                    self.walks += 1;
                    self.completed = true;
                    self.local.hit("walk completed, back to base");
                    if self.shape.counts.iter().all(|&c| c == 1) {
                        self.local.hit("a cube of one position");
                    }
                }
                if index[0] == 8191 {
                    self.local.hit("innermost index 8191");
                }
            } else if !input.start && at > 0 {
                self.local.hit("held in the middle of a walk");
            }
        }
        if input.start {
            // The new cube counts from the edge that starts it.
            self.shape = self.next_shape.take().expect("a start comes with its cube");
            self.positions = self.shape.positions();
            self.at = Some(0);
            self.completed = false;
        } else if input.step {
            self.at = self.at.map(|a| (a + 1) % self.positions.len());
        }
    }
}

#[test]
fn random_walks_match_the_memory_layout() {
    let run = Run::from_env("random_walks_match_the_memory_layout", 300_000);
    let bench = RefCell::new(Bench { shape: Shape::default(), next_shape: None, positions: Vec::new(), at: None, local: Coverage::default(), walks: 0, completed: false, long_done: false });
    let seed = run.seed;
    let mut cycle = 0;
    let mut coverage = drive::<CubeWalk>(&run, |rng, _| bench.borrow_mut().stimulus(rng), |input, out, _| {
        bench.borrow_mut().check(input, out, cycle, seed);
        cycle += 1;
        true
    })
    .unwrap_or_else(|mismatch| panic!("{mismatch}"));
    let bench = bench.into_inner();
    coverage.merge(&bench.local);
    eprintln!("{} walks completed; coverage:\n{coverage}", bench.walks);
    coverage.require(&[
        "start",
        "hold",
        "step along the innermost run",
        "step to the next innermost run",
        "step to the next outer run",
        "step past the last position: back to base",
        "atoms x fastest",
        "surfaces first",
        "any strides",
        "address wraps at 2^64",
        "walk completed, back to base",
        "a cube of one position",
        "innermost index 8191",
        "start in the middle of a walk",
        "held in the middle of a walk",
    ]);
    assert!(bench.walks > 1000, "only {} walks completed", bench.walks);
}
