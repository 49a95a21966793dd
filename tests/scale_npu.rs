//! ScaleNPU, the whole unit (hdl/src/scale/scale_npu.rs): lock step against its model with
//! random layer programs written through AXI4-Lite, random memory stalls and latencies,
//! refused writes and error responses; exit codes against the documented rules, results
//! against the plain integer reference; and the Iris and MNIST MLPs run layer by layer with
//! REINPUTS.
use npu::cosim::lockstep::{drive, Run};
use npu::cosim::tops::scale_npu::ScaleNpu;
use npu::scale::driver::{self, Bench, Done, Op};
use npu::scale::{iris, mnist};
use npu::scale::layer::Layer;
use npu::scale::memory::Timing;
use npu::scale::program::{random_layer, reinput_cases_shown, History, REINPUT_CASES};
use npu_model::scale::engine::{CPU_ERR, MEM_ERR, SUCCESS};
use npu_model::scale::scale_npu::ScaleNpu as Model;
use npu_model::Block;
use rand::Rng;
use std::cell::RefCell;
use std::path::Path;

#[test]
fn array_size_is_the_same_in_rtl_and_model() {
    assert_eq!(npu_hdl::scale::SIZE, npu_model::scale::SIZE);
    assert_eq!(npu_hdl::scale::RESULT_WORDS, npu_model::scale::RESULT_WORDS);
    assert_eq!(npu_hdl::scale::X_WORDS, npu_model::scale::X_WORDS);
    assert_eq!(npu_hdl::scale::OUT_WORDS, npu_model::scale::OUT_WORDS);
}

/// A layer in flight in the lock-step bench.
struct Current {
    layer: Layer,
    /// The rules' verdict before memory (CPU_ERR / MEM_ERR at PLAN), if any.
    check: Option<u8>,
    /// A write refused during the layer (it stops the layer: the write comes right after
    /// INIT, without bus jitter, long before the layer could finish).
    refused_write: bool,
    error_response: bool,
    /// The REINPUTS cases the layer exercises (`History::reinput_cases`).
    cases: Vec<&'static str>,
}

#[test]
fn register_programs_match_the_model_and_the_reference() {
    let run = Run::from_env("scale_npu::register_programs_match_the_model_and_the_reference", 1_000_000);
    let mut rng = run.rng();
    // Each channel of the memory port its own stalls and latencies.
    // The write channel stalls at least 15 times in 100: below about 0.05 the output FIFO
    // never filled ("STREAM waits for room in the output FIFO" 0 times with SEED=709, write
    // stall 0.005; 2 times with SEED=4, 0.077), a seed in 10 or so.
    let mut channel = |least: f64| Timing { stall: rng.gen_range(least..0.4), latency: (1, rng.gen_range(1..10)) };
    let (read, write) = (channel(0.0), channel(0.15));
    eprintln!("memory: read channel {read:?}, write channel {write:?}");
    let mut b = Bench::new(read, 0.1, run.seed);
    b.memory.set_timings(read, write);
    let bench = RefCell::new(b);
    let history = RefCell::new(History::default());
    let current: RefCell<Option<Current>> = RefCell::new(None);
    let layers = RefCell::new(0u64);
    let coverage = drive::<ScaleNpu>(
        &run,
        |rng, _| {
            let mut b = bench.borrow_mut();
            if b.idle() {
                // Next layer: image, registers, INIT, maybe a refused write, wait, EXITCODE, clear IRQ.
                let layer = random_layer(rng, &history.borrow(), 0.15);
                layer.place(&mut b.memory.bytes);
                let refused_write = rng.gen_bool(0.1);
                let error_at = match rng.gen_range(0..10) {
                    0 if !layer.regs.reinputs => Some(layer.regs.base),
                    0 if layer.regs.saveout => Some(layer.regs.result),
                    // An error response to a result write 1 layer in 10 more: with the one
                    // above alone, "error response to a write while reads are outstanding"
                    // came 3-10 times a run (6 on average, a miss about 2e-3).
                    1 if layer.regs.saveout => Some(layer.regs.result),
                    _ => None,
                };
                b.memory.faulty = error_at.into_iter().collect();
                b.memory.writes.clear();
                b.done.clear();
                b.push_layer(&layer);
                if refused_write {
                    b.push(Op::write("SHIFTAMT", 3));
                }
                b.push(Op::WaitIrq { limit: driver::LAYER_CYCLE_LIMIT });
                b.push(Op::read("EXITCODE"));
                b.push(Op::write("IRQ", 1));
                b.jitter = if refused_write { 0.0 } else { 0.1 };
                let (check, cases) = (history.borrow().check(&layer), history.borrow().reinput_cases(&layer));
                *current.borrow_mut() = Some(Current { layer, check, refused_write, error_response: false, cases });
            }
            b.input()
        },
        |input, out, coverage| {
            let mut b = bench.borrow_mut();
            b.observe(input, out);
            let mut cur = current.borrow_mut();
            let c = cur.as_mut().unwrap();
            if (input.mem_rd_resp_valid && input.mem_rd_resp_error) || (input.mem_wr_resp_valid && input.mem_wr_resp_error) {
                c.error_response = true;
            }
            if b.idle() {
                let exit_code = b.done.iter().find_map(|d| match d {
                    Done::Read { data, .. } => Some(*data as u8),
                    _ => None,
                });
                let n = *layers.borrow();
                let expected = match (c.check, c.error_response, c.refused_write) {
                    (Some(code), _, _) => code,
                    (None, true, _) => MEM_ERR,
                    (None, false, true) => CPU_ERR,
                    (None, false, false) => SUCCESS,
                };
                assert_eq!(exit_code, Some(expected), "layer {n}: EXITCODE (SEED={}): {:?}", run.seed, c.layer.regs);
                let checked = history.borrow_mut().settle(&c.layer, expected, &b.memory.bytes, &b.memory.writes);
                let checked = checked.unwrap_or_else(|e| panic!("layer {n}: {e} (SEED={}): {:?}", run.seed, c.layer.regs));
                if checked {
                    coverage.hit("results checked");
                    let r = &c.layer.regs;
                    if r.wghtcols > 120 && usize::from(r.incols) > npu_model::scale::SIZE {
                        coverage.hit("results checked, K tiles 2048 bytes of W apart or more");
                    }
                }
                for case in reinput_cases_shown(&c.cases, expected, checked) {
                    coverage.hit(case);
                }
                coverage.hit(["exit UNUSED", "exit SUCCESS", "exit MEM_ERR", "exit CPU_ERR"][usize::from(expected)]);
                if c.refused_write && expected == CPU_ERR && c.check.is_none() {
                    coverage.hit("layer stopped by a refused write");
                }
                *layers.borrow_mut() += 1;
            }
            true
        },
    )
    .unwrap_or_else(|m| panic!("{m}"));
    eprintln!("{} layers; coverage:\n{coverage}", layers.borrow());
    let mut required: Vec<&str> = npu_model::scale::engine::State::ALL.iter().map(|s| s.name()).collect();
    required.extend(["exit SUCCESS", "exit MEM_ERR", "exit CPU_ERR", "results checked", "results checked, K tiles 2048 bytes of W apart or more", "layer stopped by a refused write", "write ignored busy", "request stalled", "irq set", "irq clear"]);
    required.extend(REINPUT_CASES);
    required.extend(["X row from the X buffer", "weight row loaded while streaming", "K tile starts with weights loaded ahead"]);
    // Results written while the next column tile streams (docs/scale.md, "Where the cycles go
    // now", 2).
    required.extend([
        "result written while streaming",
        "result written in NSTART/BIAS/KSTART",
        "result written in NEXTN",
        "result written in DRAIN",
        "DRAIN waits for the writer",
        "output FIFO wraps",
        "layer stopped while the writer holds words",
        "STREAM waits for room in the output FIFO",
        "error response to a write while streaming",
        // The read and the write channel side by side.
        "write and read issued in the same cycle",
        "write channel stalled while reads go on",
        "error response to a write while reads are outstanding",
    ]);
    coverage.require(&required);
}

/// The Verilated unit stepped in lock step with its model: each cycle's outputs must be equal
/// (`workload` names the run in the message).
fn rtl_against_model(workload: &'static str) -> impl FnMut(&npu_model::scale::scale_npu::In) -> npu_model::scale::scale_npu::Out {
    let mut dut = <ScaleNpu as npu::cosim::Dut>::open(&npu::cosim::DutOptions::from_env(7));
    let mut model = Model::default();
    move |i| {
        let (out, expected) = (npu::cosim::Dut::step(&mut dut, i), model.step(i));
        // (Not in the reset cycle: the RTL powers up in a random state.)
        assert!(i.reset || out == expected, "{workload}: Verilog and model differ:\n{out:?}\n{expected:?}");
        out
    }
}

#[test]
fn iris_mlp_on_the_unit_equals_the_integer_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let flowers = iris::load(&iris::fetch(&root.join("build/data")).unwrap()).unwrap();
    let mlp = iris::Model::parse(&std::fs::read_to_string(root.join("data/iris_mlp.txt")).unwrap()).unwrap();
    let layers = mlp.unit_layers(&flowers);
    let [hidden, logits] = mlp.reference(&flowers);
    let mut step = rtl_against_model("Iris");
    let mut bench = Bench::new(Timing { stall: 0.2, latency: (1, 6) }, 0.1, 7);
    driver::reset(&mut step);
    let outcomes = driver::run_layers(&mut step, &mut bench, &layers);
    assert_eq!(outcomes.iter().map(|o| o.exit_code).collect::<Vec<_>>(), [SUCCESS, SUCCESS]);
    assert_eq!(outcomes[0].result, hidden, "hidden layer");
    assert_eq!(outcomes[1].result, logits, "logits");
    let held: Vec<usize> = (0..flowers.len()).filter(|&i| iris::held_out(i)).collect();
    let right = held.iter().filter(|&&i| npu::argmax(&logits[i * 3..i * 3 + 3]) == usize::from(flowers[i].label)).count();
    let accuracy = right as f64 / held.len() as f64;
    eprintln!("Iris on ScaleNPU: held-out accuracy {right}/{} = {:.2} %", held.len(), 100.0 * accuracy);
    assert!(accuracy >= 0.9, "held-out accuracy {accuracy}");
}

/// The MNIST MLP (docs/scale.md, "MNIST") on the Verilated unit in lock step with its model, the
/// memory stalling and answering late at random: the 1000 held-out digits in 4 batches (3 of
/// 255, the last of 235), every hidden value and logit equal to the integer reference
/// (`mnist::run_on` checks them), and at least 90 % of the digits right.
#[test]
fn mnist_mlp_on_the_unit_equals_the_integer_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let all = npu::mnist::data::load(&npu::mnist::data::fetch(&root.join("build/data")).unwrap()).unwrap();
    let digits = mnist::held_out_digits(&all);
    let mlp = mnist::Model::parse(&std::fs::read_to_string(root.join("data/scale_mnist_mlp.txt")).unwrap()).unwrap();
    let mut step = rtl_against_model("MNIST");
    let report = mnist::run_on(&mut step, &mut Bench::new(Timing { stall: 0.2, latency: (1, 6) }, 0.1, 7), &mlp, &digits).unwrap();
    assert_eq!((digits.len(), report.batches), (1000, 4));
    let right = digits.iter().zip(&report.predictions).filter(|(d, &p)| usize::from(d.label) == p).count();
    let accuracy = right as f64 / digits.len() as f64;
    eprintln!("MNIST on ScaleNPU: held-out accuracy {right}/{} = {:.2} %; cycles {:?}", digits.len(), 100.0 * accuracy, report.cycles);
    assert!(accuracy >= 0.9, "held-out accuracy {accuracy}");
}
