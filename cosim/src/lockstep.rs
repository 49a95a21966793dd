//! The lock-step harness every co-simulation test uses: a [`Dut`] and its behavioural model
//! take the same input each cycle and must give the same outputs.
//!
//! - The Verilated model starts from random state ([`DutOptions::x_seed`] from the test
//!   seed); both sides then take the model's reset input for one cycle, whose outputs are not
//!   compared. A register that the reset does not define shows up as a mismatch.
//! - The seed is printed; `SEED` and `CYCLES` override it and the cycle count.
//! - The model names what each cycle did ([`npu_model::Block::events`]); those names, and any
//!   the test adds, are counted in a [`Coverage`] that the test asserts.
use crate::{Dut, DutOptions, In, Out};
use npu_model::Block;
use rand::{rngs::SmallRng, SeedableRng};
use std::{collections::BTreeMap, collections::VecDeque, fmt};

/// Seed and length of one test run.
#[derive(Clone, Debug)]
pub struct Run {
    pub test: String,
    pub seed: u64,
    pub cycles: u64,
}

impl Run {
    /// `default_cycles` cycles from a fresh random seed, unless `CYCLES` or `SEED` say
    /// otherwise. Prints both, so any run can be repeated.
    pub fn from_env(test: &str, default_cycles: u64) -> Self {
        let env = |name: &str| {
            std::env::var(name).ok().map(|v| v.parse::<u64>().unwrap_or_else(|_| panic!("{name}={v} is not a number")))
        };
        let seed = env("SEED").unwrap_or_else(rand::random);
        let cycles = env("CYCLES").unwrap_or(default_cycles);
        eprintln!("{test}: SEED={seed} CYCLES={cycles}");
        Self { test: test.into(), seed, cycles }
    }

    /// A run over a fixed sequence of `cycles` inputs (no randomness).
    pub fn fixed(test: &str, cycles: usize) -> Self {
        Self { test: test.into(), seed: 0, cycles: cycles as u64 }
    }

    pub fn rng(&self) -> SmallRng {
        SmallRng::seed_from_u64(self.seed)
    }
}

/// Named counters of what a run exercised.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    counts: BTreeMap<String, u64>,
}

impl Coverage {
    pub fn hit(&mut self, what: &str) {
        match self.counts.get_mut(what) {
            Some(n) => *n += 1,
            None => {
                self.counts.insert(what.to_string(), 1);
            }
        }
    }

    /// Adds the counts of another run (for a test made of several runs).
    pub fn merge(&mut self, other: &Coverage) {
        for (what, n) in &other.counts {
            *self.counts.entry(what.clone()).or_default() += n;
        }
    }

    pub fn count(&self, what: &str) -> u64 {
        self.counts.get(what).copied().unwrap_or(0)
    }

    /// Panics, with the whole table, unless every item of `required` was seen.
    pub fn require(&self, required: &[&str]) {
        let missing: Vec<_> = required.iter().filter(|r| self.count(r) == 0).collect();
        assert!(missing.is_empty(), "coverage holes: {missing:?}\n{self}");
    }
}

impl fmt::Display for Coverage {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (what, n) in &self.counts {
            writeln!(f, "  {n:>10}  {what}")?;
        }
        Ok(())
    }
}

/// The first cycle at which the Verilated block and its model disagreed.
pub struct Mismatch<D: Dut> {
    pub run: Run,
    pub cycle: u64,
    pub input: In<D>,
    pub expected: Out<D>,
    pub actual: Out<D>,
    /// Up to eight inputs of the cycles before, oldest first.
    pub before: Vec<In<D>>,
}

impl<D: Dut> fmt::Display for Mismatch<D> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let Run { test, seed, .. } = &self.run;
        writeln!(f, "{}: Verilog and model differ at cycle {} of test {test}, seed {seed}", D::NAME, self.cycle)?;
        writeln!(f, "  inputs:  {:?}", self.input)?;
        writeln!(f, "  model:   {:?}", self.expected)?;
        writeln!(f, "  verilog: {:?}", self.actual)?;
        for (k, i) in self.before.iter().rev().enumerate() {
            writeln!(f, "  cycle {}: {i:?}", self.cycle as i64 - 1 - k as i64)?;
        }
        write!(f, "  reproduce: SEED={seed} NPU_WAVES={}.fst cargo test {test}", D::NAME)
    }
}

impl<D: Dut> fmt::Debug for Mismatch<D> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Steps `D` and its model in lock step for `run.cycles` cycles of `stimulus(rng, cycle)`.
/// Returns the coverage, or the first mismatch.
pub fn check<D: Dut>(
    run: &Run,
    stimulus: impl FnMut(&mut SmallRng, u64) -> In<D>,
    mut cover: impl FnMut(&In<D>, &mut Coverage),
) -> Result<Coverage, Box<Mismatch<D>>> {
    drive::<D>(run, stimulus, |input, _, coverage| {
        cover(input, coverage);
        true
    })
}

/// [`check`] with every cycle's input and (agreed) output handed to `each`, which returns
/// whether to go on (`run.cycles` is then a limit).
pub fn drive<D: Dut>(
    run: &Run,
    mut stimulus: impl FnMut(&mut SmallRng, u64) -> In<D>,
    mut each: impl FnMut(&In<D>, &Out<D>, &mut Coverage) -> bool,
) -> Result<Coverage, Box<Mismatch<D>>> {
    let mut pair = Lockstep::<D>::open(run);
    let mut rng = run.rng();
    for cycle in 0..run.cycles {
        let input = stimulus(&mut rng, cycle);
        let actual = pair.step(&input)?;
        let go_on = each(&input, &actual, &mut pair.coverage);
        if !go_on {
            break;
        }
    }
    Ok(pair.coverage)
}

/// A Verilated block and its model, reset, stepped together by a caller that reacts to the
/// outputs (a driver that waits for a response): [`drive`] cycle by cycle.
pub struct Lockstep<D: Dut> {
    run: Run,
    dut: D,
    model: D::Model,
    cycle: u64,
    before: VecDeque<In<D>>,
    /// The model's events so far.
    pub coverage: Coverage,
}

impl<D: Dut> Lockstep<D> {
    /// Opens the Verilated block from random state (seeded from `run.seed`) and resets both.
    pub fn open(run: &Run) -> Self {
        Self::open_with_waves(run, None)
    }

    /// [`Lockstep::open`] writing the waveform to `waves` (else where `NPU_WAVES` says).
    pub fn open_with_waves(run: &Run, waves: Option<std::path::PathBuf>) -> Self {
        let x_seed = run.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut options = DutOptions::from_env(x_seed);
        options.waves = waves.or(options.waves);
        let mut dut = D::open(&options);
        let mut model = D::Model::default();
        if let Some(reset) = D::Model::reset_input() {
            dut.step(&reset);
            model.step(&reset);
        }
        Self { run: run.clone(), dut, model, cycle: 0, before: VecDeque::with_capacity(8), coverage: Coverage::default() }
    }

    /// One cycle on both: their common output, or the mismatch.
    pub fn step(&mut self, input: &In<D>) -> Result<Out<D>, Box<Mismatch<D>>> {
        let actual = self.dut.step(input);
        let expected = self.model.step(input);
        if actual != expected {
            let before = self.before.iter().cloned().collect();
            return Err(Box::new(Mismatch { run: self.run.clone(), cycle: self.cycle, input: input.clone(), expected, actual, before }));
        }
        for event in self.model.events() {
            self.coverage.hit(event);
        }
        if self.before.len() == 8 {
            self.before.pop_front();
        }
        self.before.push_back(input.clone());
        self.cycle += 1;
        Ok(actual)
    }

    /// The model (for its events of the last cycle) and the coverage, to add what a bench saw.
    pub fn model_and_coverage(&mut self) -> (&D::Model, &mut Coverage) {
        (&self.model, &mut self.coverage)
    }
}

/// Runs a fixed input sequence (after the reset cycle) on `D` and its model in lock step,
/// panicking with the report at a mismatch, and returns the outputs of every cycle with the
/// coverage.
pub fn run_fixed<D: Dut>(test: &str, inputs: &[In<D>]) -> (Vec<Out<D>>, Coverage) {
    let mut outputs = Vec::with_capacity(inputs.len());
    match drive::<D>(&Run::fixed(test, inputs.len()), |_, cycle| inputs[cycle as usize].clone(), |_, out, _| {
        outputs.push(out.clone());
        true
    }) {
        Ok(coverage) => (outputs, coverage),
        Err(mismatch) => panic!("{mismatch}"),
    }
}

/// [`check`], panicking with the mismatch report; prints the coverage table.
pub fn assert_lockstep<D: Dut>(
    run: &Run,
    stimulus: impl FnMut(&mut SmallRng, u64) -> In<D>,
    cover: impl FnMut(&In<D>, &mut Coverage),
) -> Coverage {
    match check::<D>(run, stimulus, cover) {
        Ok(coverage) => {
            eprintln!("{}: {} cycles match; coverage:\n{coverage}", run.test, run.cycles);
            coverage
        }
        Err(mismatch) => panic!("{mismatch}"),
    }
}
