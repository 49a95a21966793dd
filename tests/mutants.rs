//! Smoke run of the mutation testing of issue 21 (`make mutants`, `npu_gen::mutants`), so
//! the machinery cannot rot: a few yosys mutants of the ReLU, each verilated into a shared
//! library that the ReLU's handle opens at run time, are all killed by the ReLU's own
//! lock-step test; the unmutated netlist passes it; a library that is missing, not a
//! library, another top's or one with other ports is refused at open; and a mutant's
//! library, built without tracing, refuses to write waves.
use npu::cosim::tops::relu::Relu;
use npu::cosim::{Dut, PortDirection};
use npu_gen::bridge::{self, MutantLibrary};
use npu_gen::mutants::{self, Options, Suite, TestOutcome};
use npu_gen::{Direction, Port, Top};
use std::path::Path;
use std::time::Duration;

/// The ReLU's lock-step test (tests/relu.rs), compiled into this binary too: the test the
/// smoke run judges the mutants with, run in a child process of this binary.
#[path = "relu.rs"]
mod relu;
const RELU_TEST: &str = "relu::relu_random_lockstep";

/// The ReLU as npu-gen exported it: the Verilog and ports the static model was built from.
fn relu_top() -> Top {
    let ports = Relu::PORTS
        .iter()
        .map(|p| Port {
            name: p.name.into(),
            direction: if p.direction == PortDirection::In { Direction::In } else { Direction::Out },
            width: p.width,
            signed: p.signed,
        })
        .collect();
    Top {
        name: "relu",
        model: "npu_model::mnist::relu::Relu",
        source: "hdl/src/mnist/relu.rs",
        for_users: false,
        gate_level: false,
        verilog: Relu::VERILOG.into(),
        ports,
    }
}

fn refusal(library: &Path, top: &str, signature: &str) -> String {
    match MutantLibrary::open(library, top, signature) {
        Ok(_) => panic!("{} was taken as the library of {top}", library.display()),
        Err(e) => e,
    }
}

#[test]
fn relu_mutants_are_all_killed_and_wrong_libraries_are_refused() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutants");
    let options = Options { count: 4, seed: 1, cycles: 20_000, dir: dir.clone(), runtime: dir.join("runtime") };
    let suite = Suite { program: std::env::current_exe().expect("this test's binary"), args: vec!["--exact".into(), RELU_TEST.into()] };
    let top = relu_top();
    // From a clean folder, so that what an earlier run (or an older version of the run)
    // left cannot pass or fail the check of what this one leaves.
    let _ = std::fs::remove_dir_all(dir.join("relu"));

    // The unmutated netlist must pass first (run returns an error otherwise).
    let result = mutants::run(&top, std::slice::from_ref(&suite), &options, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{}", mutants::summary(std::slice::from_ref(&result)));
    assert!(result.errors.is_empty(), "mutants that did not build: {:?}", result.errors);
    assert_eq!(result.tried(), options.count, "yosys listed {} mutations", result.tried());
    assert!(result.survived.is_empty(), "survivors:\n{}", mutants::report(&top, &result, &options));
    assert_eq!(result.killed.len(), options.count);
    // Each outcome is noted as it is known, and a killed mutant keeps the log of the test
    // that failed.
    let progress = std::fs::read_to_string(dir.join("relu/progress.txt")).unwrap_or_else(|e| panic!("progress.txt: {e}"));
    assert!(progress.starts_with("unmutated: built in "), "{progress}");
    // The ReLU's two modules are swapped one at a time into its exported Verilog
    // (`mutants::Swap`), the path the large tops take, not built as yosys's whole netlist.
    assert!(progress.lines().next().is_some_and(|l| l.ends_with("built from the exported Verilog with yosys's text of 2 module(s) the mutations touch")), "{progress}");
    assert_eq!(progress.lines().filter(|l| l.contains(" killed (built in ")).count(), options.count, "{progress}");
    for k in 0..options.count {
        let log = std::fs::read_to_string(dir.join(format!("relu/{k:04}/test.log"))).unwrap_or_else(|e| panic!("mutant {k}'s test.log: {e}"));
        assert!(log.contains("test result: FAILED"), "mutant {k}'s log:\n{log}");
    }

    // No yosys netlist or Verilator build stays (they are not lint clean): only the
    // reference's library, logs and scripts, and the exported Verilog yosys read.
    let mut left = Vec::new();
    let mut folders = vec![dir.join("relu")];
    while let Some(folder) = folders.pop() {
        for path in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())).map(|e| e.unwrap().path()) {
            if path.is_dir() {
                folders.push(path.clone());
            }
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if name == "obj" || (name.ends_with(".v") && name != "exported.v") {
                left.push(path);
            }
        }
    }
    assert!(left.is_empty(), "left after the run: {left:?}");

    // A swapped mutant's module is, text for text, that module in yosys's whole mutated
    // netlist (what mutants were built from before the swap): the same mutations, the same
    // cells, the same design.
    let check = dir.join("relu-swap-check");
    let _ = std::fs::remove_dir_all(&check);
    let mutations = mutants::list(&top, &check.join("list"), options.count, options.seed).unwrap_or_else(|e| panic!("{e}"));
    let whole_reference = mutants::netlist(&top, None, &check.join("unmutated")).unwrap_or_else(|e| panic!("{e}"));
    let swap = mutants::swap(&top, &whole_reference, &mutations).expect("the ReLU's modules can be swapped");
    for (k, m) in mutations.iter().enumerate() {
        let module = m.option("-module").unwrap();
        let whole = mutants::netlist(&top, Some(m), &check.join(format!("whole{k}"))).unwrap_or_else(|e| panic!("{e}"));
        let swapped = mutants::swapped_netlist(&top, &swap, m, &check.join("unmutated").join(mutants::PREPARED), &check.join(format!("swapped{k}"))).unwrap_or_else(|e| panic!("{e}"));
        let text = mutants::module_text(&swapped.verilog, module).unwrap_or_else(|| panic!("no module {module} in the swapped mutant"));
        assert_eq!(Some(text), mutants::module_text(&whole.verilog, module), "{}", m.command);
        assert_ne!(Some(text), mutants::module_text(&whole_reference.verilog, module), "{} changed nothing", m.command);
    }
    std::fs::remove_dir_all(&check).unwrap_or_else(|e| panic!("{}: {e}", check.display()));

    // Wrong libraries, refused by the check the handle makes at open.
    let reference = dir.join("relu/unmutated/librelu.so");
    let script = dir.join("relu/unmutated/script.ys");
    let missing = refusal(&dir.join("no-such-library.so"), "relu", Relu::PORT_SIGNATURE);
    assert!(missing.ends_with("for relu: no such file"), "{missing}");
    let not_a_library = refusal(&script, "relu", Relu::PORT_SIGNATURE);
    assert!(not_a_library.contains("cannot load it"), "{not_a_library}");
    let other_top = refusal(&reference, "comparator", Relu::PORT_SIGNATURE);
    assert!(other_top.contains("is not a library of comparator: no npu_comparator_ports"), "{other_top}");
    MutantLibrary::open(&reference, "relu", Relu::PORT_SIGNATURE).unwrap_or_else(|e| panic!("the reference is the ReLU's library: {e}"));

    // The same through the handle, in the test process: a ReLU library built without the
    // `bypass` port, and a file that is no library, make the lock-step test fail at open
    // with the reason, instead of running on the statically linked ReLU.
    let mut narrow = relu_top();
    narrow.ports.retain(|p| p.name != "bypass");
    let narrow_dir = dir.join("relu-without-bypass");
    let narrow_library = bridge::shared_library(&narrow, &narrow_dir, &options.runtime).unwrap_or_else(|e| panic!("{e}"));
    let refusals = [(&narrow_library, "has other ports than the top:\n  library: in reset 1, in en_relu 1, in x 16, out y 16\n  top:     in reset 1, in en_relu 1, in bypass 1, in x 16, out y 16"), (&script, "cannot load it")];
    for (library, reason) in refusals {
        let log = narrow_dir.join("refused.log");
        let outcome = mutants::test(&suite, "relu", library, &options, &log, Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
        let output = std::fs::read_to_string(&log).unwrap_or_default();
        assert_eq!(outcome, TestOutcome::Failed, "the ReLU test ran on {}:\n{output}", library.display());
        assert!(output.contains(reason), "the refusal does not say why ({reason}):\n{output}");
    }

    // A mutant's library is built without tracing: a test asking it for waves fails at open
    // with the reason, instead of running without them.
    let waves = narrow_dir.join("waves.fst");
    let output = std::process::Command::new(&suite.program)
        .args(&suite.args)
        .env(bridge::MUTANT_TOP_VAR, "relu")
        .env(bridge::MUTANT_LIB_VAR, &reference)
        .env("NPU_WAVES", &waves)
        .env("CYCLES", "1000")
        .output()
        .expect("this test's binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the ReLU test ran on a mutant's library with NPU_WAVES set:\n{text}");
    assert!(text.contains("is built without tracing, so it writes no waves: unset NPU_WAVES"), "{text}");
    assert!(!waves.exists(), "{} was written", waves.display());
}
