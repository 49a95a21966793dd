//! Mutation testing of an exported top, as YosysHQ's mcy does it with yosys's `mutate`:
//! yosys lists N mutations of the top's netlist (`prep`; `mutate -list N -seed S`: inverted
//! bits, constants, swapped operands, stuck signals), each is applied (`mutate <args>;
//! write_verilog`) and verilated into a shared library with the co-simulation's own shim
//! ([`bridge::shared_library`]), and the top's lock-step tests run with the environment
//! pointing its handle at that library ([`bridge::MutantLibrary`]). A mutant is killed when
//! a test fails, survives when all pass; one that does not build is an error, counted apart.
//!
//! The unmutated netlist goes through the same steps first and must pass: otherwise every
//! mutant would look killed.
use crate::bridge::{self, MutantLibrary, MUTANT_LIB_VAR, MUTANT_TOP_VAR};
use crate::Top;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A top's tests as one command: a test binary and the arguments that select its tests. A
/// top's suite may be several (its tests in several binaries): they run in turn, and the
/// first that fails kills the mutant.
#[derive(Clone, Debug)]
pub struct Suite {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// What a run does.
#[derive(Clone, Debug)]
pub struct Options {
    /// Mutations listed per top.
    pub count: usize,
    /// Seed of yosys's choice of mutations, and `SEED` of the tests' random stimulus.
    pub seed: u64,
    /// `CYCLES` of the tests: the cycle budget of a random lock-step test (0: their default).
    pub cycles: u64,
    /// Working folder: `<dir>/<top>/` gets the netlists, libraries and logs.
    pub dir: PathBuf,
    /// Where Verilator's runtime is compiled once, position-independent.
    pub runtime: PathBuf,
}

/// One mutation as yosys lists it: the `mutate ...` command that applies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation {
    pub command: String,
}

impl Mutation {
    /// The values of an option of the command (`-module`, `-wire`, `-mode`, ...); `-src`
    /// comes several times.
    fn options(&self, name: &str) -> Vec<&str> {
        let words: Vec<&str> = self.command.split_whitespace().collect();
        words.windows(2).filter(|w| w[0] == name).map(|w| w[1]).collect()
    }

    pub fn option(&self, name: &str) -> Option<&str> {
        self.options(name).first().copied()
    }

    /// The source places yosys tags the mutated cell with (`file:line.col-line.col`).
    pub fn sources(&self) -> Vec<&str> {
        self.options("-src")
    }

    /// The signal it changes, as `wire[bit]`, when yosys names one.
    pub fn signal(&self) -> Option<String> {
        let wire = self.option("-wire")?;
        Some(match self.option("-wirebit") {
            Some(bit) => format!("{wire}[{bit}]"),
            None => wire.to_string(),
        })
    }
}

/// How one run of the tests ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestOutcome {
    Passed,
    Failed,
    /// Still running after the time limit: killed by it (a mutant that hangs a test).
    TimedOut,
}

/// The result of one top.
#[derive(Clone, Debug, Default)]
pub struct TopResult {
    pub top: String,
    pub killed: Vec<Mutation>,
    /// Of the killed, those that made a test run past the time limit.
    pub timed_out: usize,
    pub survived: Vec<Mutation>,
    /// Of the survivors, those whose netlist is the unmutated one, text for text: yosys's
    /// change left every cell as it was (a constant bit set to the value it already has), so
    /// they are equivalent by construction; they are not built or run.
    pub unchanged: Vec<Mutation>,
    /// Mutants that did not build (yosys, Verilator or the compiler failed), with why.
    pub errors: Vec<(Mutation, String)>,
    /// Time spent building (yosys, Verilator, compiler) and testing the mutants that ran,
    /// the reference apart: what a mutant costs ([`TopResult::per_mutant`]).
    pub build_time: Duration,
    pub test_time: Duration,
}

impl TopResult {
    /// Mutants that built and ran.
    pub fn tried(&self) -> usize {
        self.killed.len() + self.survived.len()
    }

    /// Average build and test time of the mutants that ran.
    pub fn per_mutant(&self) -> (Duration, Duration) {
        let n = self.tried().saturating_sub(self.unchanged.len()).max(1) as u32;
        (self.build_time / n, self.test_time / n)
    }

    /// Killed of tried, in percent.
    pub fn score(&self) -> f64 {
        if self.tried() == 0 { 0.0 } else { 100.0 * self.killed.len() as f64 / self.tried() as f64 }
    }
}

/// Runs a yosys script in `dir` (file names relative to it, so the source tags are short).
fn yosys(dir: &Path, script: &str, what: &str) -> Result<(), String> {
    let file = dir.join("script.ys");
    std::fs::write(&file, script).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    bridge::run(Command::new("yosys").current_dir(dir).args(["-q", "-l", "yosys.log", "-s", "script.ys"])).map_err(|e| format!("{what}: {e}"))
}

/// Writes the top's exported Verilog into `dir` as `exported.v` (the netlist built from it
/// is `<top>.v`) and returns the yosys commands that read and prepare it.
fn read_and_prep(top: &Top, dir: &Path) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let source = dir.join("exported.v");
    std::fs::write(&source, &top.verilog).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    Ok(format!("read_verilog exported.v\nprep -top {}\n", top.name))
}

/// The `count` mutations yosys picks for `top` with `seed`, sampled evenly over its cells.
pub fn list(top: &Top, dir: &Path, count: usize, seed: u64) -> Result<Vec<Mutation>, String> {
    let script = read_and_prep(top, dir)? + &format!("mutate -list {count} -seed {seed} -o mutations.txt\n");
    yosys(dir, &script, &format!("{}: yosys mutate -list", top.name))?;
    let path = dir.join("mutations.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text.lines().filter(|l| l.starts_with("mutate ")).map(|l| Mutation { command: l.trim().to_string() }).collect())
}

/// The top's netlist after `prep` with `mutation` applied (none: the unmutated reference), as
/// a top with the original's name and ports, built in `dir`.
pub fn netlist(top: &Top, mutation: Option<&Mutation>, dir: &Path) -> Result<Top, String> {
    let mut script = read_and_prep(top, dir)?;
    if let Some(m) = mutation {
        script += &m.command;
        script += "\n";
    }
    // splitnets: `prep` may drive one bit of a vector from another bit of the same vector
    // (cdp_dp's `assign e_index0[8] = e_index0[9]`, two sign bits merged). Verilator then sees
    // the whole vector feeding itself (UNOPTFLAT), orders its readers wrongly and reads stale
    // values, so the unmutated netlist failed its lock step where the hardware is right.
    // Single-bit nets have no such false loop; the logic is the same. `opt_clean -purge`
    // drops the wires nothing reads (the flattened sub-blocks' clock and reset). yosys's
    // output is not lint clean in general (ReLU's netlist passes `verilator --lint-only -Wall`,
    // larger ones do not: unused bits of split nets, widths yosys leaves to extension), so
    // the bridge's Mutant flavour waives its style, and `run` deletes every netlist once it
    // is built: none stays beside the tree's lint-clean Verilog.
    let file = format!("{}.v", top.name);
    if mutation.is_none() {
        // The prepared design as yosys holds it (names of cells included), which a
        // [`Swap`] run's mutants read instead of reading and preparing the Verilog again.
        script += &format!("write_rtlil {PREPARED}\n");
    }
    script += &format!("splitnets\nopt_clean -purge\nwrite_verilog -noattr {file}\n");
    yosys(dir, &script, &format!("{}: yosys netlist", top.name))?;
    let path = dir.join(&file);
    let netlist = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // yosys keeps the sub-modules in the file too: the project's waivers head it, as they do
    // the exported Verilog.
    let verilog = crate::lint_waivers() + &netlist;
    std::fs::write(&path, &verilog).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(with_verilog(top, verilog))
}

/// The modules of a Verilog text, in order: each one's name and the bytes from its `module`
/// keyword to the end of its `endmodule` line. Both rust-hdl's export and yosys's
/// `write_verilog` start a module with `module <name>(` at the start of a line and end it with
/// a line that starts with `endmodule`.
pub fn module_spans(verilog: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut spans = Vec::new();
    let mut open: Option<(String, usize)> = None;
    let mut at = 0;
    for line in verilog.split_inclusive('\n') {
        let text = line.trim();
        if open.is_none() {
            if let Some(rest) = text.strip_prefix("module ") {
                let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
                open = Some((name, at + (line.len() - line.trim_start().len())));
            }
        } else if text.strip_prefix("endmodule").is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '/'])) {
            let (name, start) = open.take().unwrap();
            spans.push((name, start..at + line.trim_end().len()));
        }
        at += line.len();
    }
    spans
}

/// The text of module `name` in `verilog`, if it holds exactly one module of that name.
pub fn module_text<'a>(verilog: &'a str, name: &str) -> Option<&'a str> {
    let mut found = module_spans(verilog).into_iter().filter(|(n, _)| n == name);
    match (found.next(), found.next()) {
        (Some((_, span)), None) => Some(&verilog[span]),
        _ => None,
    }
}

/// `verilog` with each module named in `replacements` replaced by the given text (a whole
/// `module ... endmodule`); an error names a module it does not hold exactly once.
pub fn with_modules(verilog: &str, replacements: &std::collections::BTreeMap<String, String>) -> Result<String, String> {
    let spans = module_spans(verilog);
    for name in replacements.keys() {
        let count = spans.iter().filter(|(n, _)| n == name).count();
        if count != 1 {
            return Err(format!("module {name} is defined {count} times in the Verilog"));
        }
    }
    let mut out = String::with_capacity(verilog.len());
    let mut at = 0;
    for (name, span) in spans {
        if let Some(text) = replacements.get(&name) {
            out += &verilog[at..span.start];
            out += text;
            at = span.end;
        }
    }
    out += &verilog[at..];
    Ok(out)
}

/// The netlists a run builds, when every mutated module can be swapped alone.
///
/// yosys keeps the hierarchy (`prep` does not flatten; rust-hdl writes a module per
/// instance), so a mutation changes one module of the netlist (`mutate -module M`), and
/// `splitnets` and `opt_clean` work module by module: module M's text in the whole mutated
/// netlist is what yosys writes for M alone. A mutant is therefore built from the top's
/// exported Verilog with M replaced by yosys's text of it, mutated ([`swapped_netlist`]).
/// The reference, which must pass, is the exported Verilog with every module the run's
/// mutations touch replaced by yosys's unmutated text: it checks each text a mutant is built
/// from, and the exported modules are the ones the static build verilates. Why: the whole
/// netlist's `splitnets` turns every vector into single-bit nets (conv_datapath: 604 KB of
/// exported Verilog, a 5.5 MB netlist, 74 MB of C++ from Verilator, 13.6 minutes a mutant);
/// one module of it is a small part.
pub struct Swap {
    /// The unmutated text yosys writes for each module a mutation touches.
    pub modules: std::collections::BTreeMap<String, String>,
    /// The reference: the exported Verilog with those modules replaced.
    pub reference: Top,
}

/// `top` with other Verilog (a netlist of it).
fn with_verilog(top: &Top, verilog: String) -> Top {
    Top { name: top.name, model: top.model, source: top.source, for_users: false, gate_level: false, verilog, ports: top.ports.clone() }
}

/// The modules `mutations` touch, yosys's unmutated text of each taken from the whole
/// reference `netlist` (as [`netlist`] writes it), and the reference built from the exported
/// Verilog with them; `None` when a module cannot be swapped alone (a name yosys changed, a
/// mutation without `-module`): the run then builds every netlist whole.
pub fn swap(top: &Top, netlist: &Top, mutations: &[Mutation]) -> Option<Swap> {
    let mut modules = std::collections::BTreeMap::new();
    for m in mutations {
        let name = m.option("-module")?;
        module_text(&top.verilog, name)?;
        modules.insert(name.to_string(), module_text(&netlist.verilog, name)?.to_string());
    }
    let verilog = with_modules(&top.verilog, &modules).ok()?;
    Some(Swap { modules, reference: with_verilog(netlist, verilog) })
}

/// The file, in the reference's folder, of the design after `prep` (yosys's RTLIL, which
/// keeps every cell's name): [`netlist`] writes it for the reference.
pub const PREPARED: &str = "prepared.il";

/// The mutant of `mutation` for a [`Swap`] run: yosys applies it to the prepared design
/// (`prepared`, the reference's [`PREPARED`]: the same cells `mutate -list` named) and writes
/// the mutated module alone (`splitnets` and `opt_clean -purge` on it, as [`netlist`] does
/// on all), which replaces that module in the exported Verilog. Every other module is the
/// exported Verilog's: yosys's text of the modules other mutants touch would only make the
/// mutant's C++ larger (conv_datapath's weight decoder core is 127 KB exported, 752 KB
/// bit-split); each of those texts is checked by the reference instead.
pub fn swapped_netlist(top: &Top, swap: &Swap, mutation: &Mutation, prepared: &Path, dir: &Path) -> Result<Top, String> {
    let module = mutation.option("-module").ok_or_else(|| format!("{}: no -module", mutation.command))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let script = format!(
        "read_rtlil {}\n{}\nsplitnets {module}\nopt_clean -purge {module}\nselect {module}\nwrite_verilog -noattr -selected module.v\n",
        prepared.display(),
        mutation.command
    );
    yosys(dir, &script, &format!("{}: yosys mutant of {module}", top.name))?;
    let path = dir.join("module.v");
    let written = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = module_text(&written, module).ok_or_else(|| format!("{}: yosys wrote no module {module}", path.display()))?;
    if swap.modules.get(module).is_some_and(|unmutated| unmutated == text) {
        // yosys's change left the module as it was: the reference, text for text.
        return Ok(swap.reference.clone());
    }
    let modules = [(module.to_string(), text.to_string())].into_iter().collect();
    Ok(with_verilog(&swap.reference, with_modules(&top.verilog, &modules)?))
}

/// Builds `netlist` into its shared library in `dir` and checks that the top's handle would
/// take it (the same check as at open), so a refused library is an error, not a kill.
pub fn build(netlist: &Top, dir: &Path, runtime: &Path) -> Result<PathBuf, String> {
    let library = bridge::shared_library(netlist, dir, runtime)?;
    MutantLibrary::open(&library, netlist.name, &bridge::port_signature(netlist))?;
    Ok(library)
}

/// Runs `suite` with the top's handle on `library`; its output goes to `log`. `limit` bounds
/// the run's time.
pub fn test(suite: &Suite, top: &str, library: &Path, options: &Options, log: &Path, limit: Duration) -> Result<TestOutcome, String> {
    use wait_timeout::ChildExt;
    let file = std::fs::File::create(log).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
    let err = file.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
    let mut command = Command::new(&suite.program);
    command.args(&suite.args).env(MUTANT_TOP_VAR, top).env(MUTANT_LIB_VAR, library).env("SEED", options.seed.to_string()).env_remove("NPU_WAVES");
    match options.cycles {
        0 => command.env_remove("CYCLES"),
        cycles => command.env("CYCLES", cycles.to_string()),
    };
    let mut child = command
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", suite.program.display()))?;
    match child.wait_timeout(limit).map_err(|e| format!("{}: {e}", suite.program.display()))? {
        Some(status) if status.success() => Ok(TestOutcome::Passed),
        Some(_) => Ok(TestOutcome::Failed),
        None => {
            child.kill().ok();
            child.wait().ok();
            Ok(TestOutcome::TimedOut)
        }
    }
}

/// What a mutation run reports as it goes.
pub enum Progress<'a> {
    /// The mutations are listed: this many will be tried.
    Listed(usize),
    /// One mutant is done.
    Done(&'a Mutation),
}

/// The whole run for one top: lists the mutations, checks the unmutated netlist passes
/// `suites`, then builds and tests every mutant.
pub fn run(top: &Top, suites: &[Suite], options: &Options, progress: impl FnMut(Progress)) -> Result<TopResult, String> {
    let mutations = list(top, &options.dir.join(top.name), options.count, options.seed)?;
    run_these(top, suites, options, &mutations, progress)
}

/// Runs `suites` in turn on `library` until one does not pass; the first's output goes to
/// `dir/test.log`, the next ones' to `test.2.log`, ...; each has its own time limit.
fn test_all(suites: &[Suite], top: &str, library: &Path, options: &Options, dir: &Path, limits: &[Duration]) -> Result<(TestOutcome, Vec<Duration>), String> {
    let mut took = Vec::new();
    for (i, (suite, limit)) in suites.iter().zip(limits).enumerate() {
        let log = dir.join(if i == 0 { "test.log".to_string() } else { format!("test.{}.log", i + 1) });
        let started = Instant::now();
        let outcome = test(suite, top, library, options, &log, *limit)?;
        took.push(started.elapsed());
        if outcome != TestOutcome::Passed {
            return Ok((outcome, took));
        }
    }
    Ok((TestOutcome::Passed, took))
}

/// The `mutate` commands of a file, one a line (other lines are skipped): a `mutations.txt`
/// that yosys listed, or survivors copied from a `<top>.md`, to run again with
/// [`run_these`] after a test was added or an argument needs a look at the mutated netlist.
pub fn read_list(path: &Path) -> Result<Vec<Mutation>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mutations: Vec<Mutation> = text
        .lines()
        .map(|l| l.trim().trim_start_matches("- ").trim_matches('`'))
        .filter(|l| l.starts_with("mutate "))
        .map(|l| Mutation { command: l.to_string() })
        .collect();
    if mutations.is_empty() {
        return Err(format!("{}: no line starts with `mutate `", path.display()));
    }
    Ok(mutations)
}

/// As [`run`], for the mutations given instead of those yosys lists: the unmutated netlist
/// first (it must pass), then each mutant.
pub fn run_these(top: &Top, suites: &[Suite], options: &Options, mutations: &[Mutation], mut progress: impl FnMut(Progress)) -> Result<TopResult, String> {
    let dir = options.dir.join(top.name);
    progress(Progress::Listed(mutations.len()));

    let reference_dir = dir.join("unmutated");
    let log = reference_dir.join("test.log");
    // `progress.txt`: each mutant's outcome as soon as it is known, so a run stopped before
    // its end still shows what it scored (the report is written at the end).
    let progress_file = dir.join("progress.txt");
    let note = |line: String| {
        use std::io::Write as _;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&progress_file) {
            let _ = writeln!(f, "{line}");
        }
    };
    let _ = std::fs::remove_file(&progress_file);
    // The reference's own time limit is generous (30 minutes a suite, for the large tops on
    // a loaded machine): its time sets the limit of the mutants.
    let started = Instant::now();
    let tested = netlist(top, None, &reference_dir).and_then(|whole| {
        let written = started.elapsed();
        let swap = swap(top, &whole, mutations);
        let reference = swap.as_ref().map_or(whole, |s| s.reference.clone());
        let library = build(&reference, &reference_dir, &options.runtime)?;
        let built = started.elapsed();
        let (outcome, took) = test_all(suites, top.name, &library, options, &reference_dir, &vec![Duration::from_secs(1800); suites.len()])?;
        Ok((outcome, took, written, built, reference, swap))
    });
    // Whatever the outcome: no netlist stays.
    tidy_reference(&reference_dir, top.name);
    let (outcome, took, written, built, reference, swap) = tested?;
    let how = match &swap {
        Some(s) => format!("the exported Verilog with yosys's text of {} module(s) the mutations touch", s.modules.len()),
        None => "yosys's whole netlist".to_string(),
    };
    note(format!(
        "unmutated: built in {:.0} s (yosys {:.0} s), tested in {:.0} s ({:?}); built from {how}",
        built.as_secs_f64(),
        written.as_secs_f64(),
        took.iter().sum::<Duration>().as_secs_f64(),
        outcome
    ));
    match outcome {
        TestOutcome::Passed => {}
        outcome => {
            return Err(format!(
                "{}: the unmutated netlist does not pass its tests ({}), so no mutant can be scored; see {}",
                top.name,
                if outcome == TestOutcome::Failed { "a test failed" } else { "time limit" },
                log.display()
            ))
        }
    }
    // A mutant that takes ten times as long as the real design (plus slack for a loaded
    // machine) is taken to hang the test.
    let limits: Vec<Duration> = took.iter().map(|t| *t * 10 + Duration::from_secs(30)).collect();

    let mut result = TopResult { top: top.name.to_string(), ..Default::default() };
    for (k, mutation) in mutations.iter().enumerate() {
        let mutant_dir = dir.join(format!("{k:04}"));
        let started = Instant::now();
        let mutant = match &swap {
            Some(swap) => swapped_netlist(top, swap, mutation, &reference_dir.join(PREPARED), &mutant_dir),
            None => netlist(top, Some(mutation), &mutant_dir),
        };
        let written = started.elapsed();
        if mutant.as_ref().is_ok_and(|n| n.verilog == reference.verilog) {
            result.survived.push(mutation.clone());
            result.unchanged.push(mutation.clone());
            note(format!("{k:04} equivalent (the unmutated netlist): {}", mutation.command));
            tidy(&mutant_dir, false);
            progress(Progress::Done(mutation));
            continue;
        }
        match mutant.and_then(|n| build(&n, &mutant_dir, &options.runtime)) {
            Err(e) => {
                note(format!("{k:04} did not build: {}", mutation.command));
                result.errors.push((mutation.clone(), e))
            }
            Ok(library) => {
                let built = started.elapsed();
                result.build_time += built;
                let started = Instant::now();
                let (outcome, _) = test_all(suites, top.name, &library, options, &mutant_dir, &limits)?;
                result.test_time += started.elapsed();
                let word = match outcome {
                    TestOutcome::Passed => "survived",
                    TestOutcome::Failed => "killed",
                    TestOutcome::TimedOut => "killed (time limit)",
                };
                note(format!(
                    "{k:04} {word} (built in {:.0} s, yosys {:.0} s of it, tested in {:.0} s): {}",
                    built.as_secs_f64(),
                    written.as_secs_f64(),
                    started.elapsed().as_secs_f64(),
                    mutation.command
                ));
                match outcome {
                    TestOutcome::Passed => result.survived.push(mutation.clone()),
                    TestOutcome::Failed => result.killed.push(mutation.clone()),
                    TestOutcome::TimedOut => {
                        result.timed_out += 1;
                        result.killed.push(mutation.clone());
                    }
                }
            }
        }
        tidy(&mutant_dir, result.errors.last().map(|(m, _)| m) != Some(mutation));
        progress(Progress::Done(mutation));
    }
    std::fs::remove_file(reference_dir.join(PREPARED)).ok();
    Ok(result)
}

/// Removes a scored mutant's files: its build takes room, and its Verilog is a deliberately
/// broken design that would fail the `verilator --lint-only -Wall` every Verilog file of the
/// tree passes. A mutant that ran keeps its test logs (`keep_log`: which test killed it, and
/// how, or a survivor's coverage); the `mutate` command in
/// `<top>.md` rebuilds its netlist.
fn tidy(mutant_dir: &Path, keep_log: bool) {
    if !keep_log {
        std::fs::remove_dir_all(mutant_dir).ok();
        return;
    }
    for entry in std::fs::read_dir(mutant_dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let log = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("test") && n.ends_with(".log"));
        if !log {
            let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        }
    }
}

/// Removes the reference's yosys netlist (`<top>.v`, not lint clean) and its Verilator
/// build (`obj/`), once its library is built and tested; the library (`lib<top>.so`, the
/// archive linked in), `test.log`, and `script.ys`, which rebuilds the netlist with
/// `yosys -s script.ys` in that folder, stay.
fn tidy_reference(reference_dir: &Path, top: &str) {
    std::fs::remove_file(reference_dir.join(format!("{top}.v"))).ok();
    std::fs::remove_dir_all(reference_dir.join("obj")).ok();
}

/// The line `place` (`file:line.col-...`) points at in the top's Verilog, if it does.
fn source_line<'a>(verilog: &'a str, place: &str) -> Option<(usize, &'a str)> {
    let line: usize = place.rsplit_once(':')?.1.split('.').next()?.parse().ok()?;
    Some((line, verilog.lines().nth(line.checked_sub(1)?)?.trim()))
}

/// `<top>.md`: the run's figures and every survivor with the mutation, the signal and the
/// source lines yosys names, and the errors.
pub fn report(top: &Top, result: &TopResult, options: &Options) -> String {
    report_with(top, result, options, &format!("make mutants TOP={} N={} SEED={}", top.name, options.count, options.seed))
}

/// [`report`] of a run of the mutations listed in the file `list` ([`run_these`]).
pub fn report_of_list(top: &Top, result: &TopResult, options: &Options, list: &Path) -> String {
    report_with(top, result, options, &format!("make mutants TOP={} MUTATIONS={} SEED={}", top.name, list.display(), options.seed))
}

fn report_with(top: &Top, result: &TopResult, options: &Options, command: &str) -> String {
    let mut s = format!(
        "# Mutants of {t}\n\n`{command}` (tests with SEED={seed} CYCLES={cycles}): \
         {tried} tried, {killed} killed ({timed} by the time limit), {survived} survived ({unchanged} with the \
         unmutated netlist), score {score:.1} %; {errors} did not build. A mutant took {build:.0} s to build \
         and {testing:.0} s to test, on average.\n",
        t = top.name,
        seed = options.seed,
        cycles = options.cycles,
        tried = result.tried(),
        killed = result.killed.len(),
        timed = result.timed_out,
        survived = result.survived.len(),
        unchanged = result.unchanged.len(),
        score = result.score(),
        errors = result.errors.len(),
        build = result.per_mutant().0.as_secs_f64(),
        testing = result.per_mutant().1.as_secs_f64(),
    );
    if !result.survived.is_empty() {
        s += "\n## Survivors\n\nEach needs a test that kills it, or an argument that it cannot change any output.\n";
    }
    for m in &result.survived {
        writeln!(s, "\n- `{}`", m.command).unwrap();
        writeln!(s, "  - module `{}`, signal `{}`", m.option("-module").unwrap_or("?"), m.signal().unwrap_or_else(|| "(none named)".into())).unwrap();
        if result.unchanged.contains(m) {
            s += "  - equivalent: the mutated netlist is the unmutated one, text for text (not run)\n";
        }
        for place in m.sources() {
            match source_line(&top.verilog, place) {
                Some((line, text)) => writeln!(s, "  - {}.v line {line}: `{text}`", top.name).unwrap(),
                None => writeln!(s, "  - {place}").unwrap(),
            }
        }
    }
    if !result.errors.is_empty() {
        s += "\n## Did not build\n";
        for (m, e) in &result.errors {
            writeln!(s, "\n- `{}`\n\n```text\n{}\n```", m.command, e.lines().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n")).unwrap();
        }
    }
    s
}

/// The summary table over all tops run (markdown).
pub fn summary(results: &[TopResult]) -> String {
    let mut s = String::from("| top | tried | killed | survived | of them with the unmutated netlist | score | did not build |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    for r in results {
        writeln!(s, "| {} | {} | {} | {} | {} | {:.1} % | {} |", r.top, r.tried(), r.killed.len(), r.survived.len(), r.unchanged.len(), r.score(), r.errors.len()).unwrap();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_options_of_a_listed_mutation() {
        let m = Mutation {
            command: "mutate -mode inv -module relu -cell $procmux$15 -port B -portbit 14 -wire x -wirebit 14 -src relu.v:12.30-12.31 -src relu.v:38.17-38.35".into(),
        };
        assert_eq!(m.option("-mode"), Some("inv"));
        assert_eq!(m.signal().as_deref(), Some("x[14]"));
        assert_eq!(m.sources(), ["relu.v:12.30-12.31", "relu.v:38.17-38.35"]);
        let verilog = "a\nb\n  c d  \n";
        assert_eq!(source_line(verilog, "relu.v:3.1-3.2"), Some((3, "c d")));
        assert_eq!(source_line(verilog, "relu.v:9.1-9.2"), None);
        assert_eq!(Mutation { command: "mutate -mode const0 -module m -cell c -port B -portbit 1".into() }.signal(), None);
    }

    #[test]
    fn swaps_one_module_of_a_verilog_text() {
        let verilog = "// head\nmodule top(a, y);\n  sub s(.a(a), .y(y));\nendmodule // top\n\nmodule sub(a, y);\nassign y = a;\nendmodule\n";
        let names: Vec<String> = module_spans(verilog).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["top", "sub"]);
        assert_eq!(module_text(verilog, "sub"), Some("module sub(a, y);\nassign y = a;\nendmodule"));
        assert_eq!(module_text(verilog, "other"), None);
        let replaced = [("sub".to_string(), "module sub(a, y);\n  input a;\n  output y;\n  assign y = !a;\nendmodule".to_string())].into_iter().collect();
        assert_eq!(
            with_modules(verilog, &replaced).unwrap(),
            "// head\nmodule top(a, y);\n  sub s(.a(a), .y(y));\nendmodule // top\n\nmodule sub(a, y);\n  input a;\n  output y;\n  assign y = !a;\nendmodule\n"
        );
        let missing = [("none".to_string(), String::new())].into_iter().collect();
        assert!(with_modules(verilog, &missing).unwrap_err().contains("defined 0 times"));
    }

    #[test]
    fn reads_a_list_of_mutations_from_a_report_or_a_yosys_list() {
        let dir = std::env::temp_dir().join(format!("npu-gen-read-list-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("survivors.md");
        let text = "# Mutants of m\n\n- `mutate -mode inv -module m -cell $procmux$1 -port A -portbit 2`\n  - module `m`, signal `(none named)`\n  - m.v line 3: `mutate -mode x`\nmutate -mode const0 -module m -cell c -port B -portbit 1\n";
        std::fs::write(&file, text).unwrap();
        let read = read_list(&file).unwrap();
        assert_eq!(
            read.iter().map(|m| m.command.as_str()).collect::<Vec<_>>(),
            ["mutate -mode inv -module m -cell $procmux$1 -port A -portbit 2", "mutate -mode const0 -module m -cell c -port B -portbit 1"]
        );
        std::fs::write(&file, "# nothing to run\n").unwrap();
        assert!(read_list(&file).unwrap_err().contains("no line starts with"));
        assert!(read_list(&dir.join("missing")).unwrap_err().contains("cannot read"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
