//! ScaleNPU's layer engine and systolic array (hdl/src/scale/engine.rs) against its model in
//! lock step, on random layer programs with random memory stalls and latencies (each of the
//! memory port's two channels its own), injected error responses and refused register writes; every layer's exit code against the
//! documented rules and its results against the plain integer reference.
use npu::cosim::lockstep::{drive, Coverage, Run};
use npu::cosim::tops::scale_engine::ScaleEngine;
use npu::scale::layer::{matrix_bytes, Layer};
use npu::scale::memory::{Memory, Timing, Write};
use npu::scale::program::{random_layer, reinput_cases_shown, value16, History, REINPUT_CASES};
use npu_model::scale::engine::{In, State, CPU_ERR, MEM_BYTES, MEM_ERR, SUCCESS, WORD_BYTES};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;

/// What may go wrong in a layer on purpose.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    /// A refused register write (`write_while_busy`) this many cycles after the start.
    WriteWhileBusy(u64),
    /// The memory answers an error at this address.
    ErrorAt(u32),
}

struct Bench {
    memory: Memory,
    history: History,
    layer: Layer,
    fault: Fault,
    started: Option<u64>,
    /// The fault took effect (a refused write while running, or an error response).
    stopped: Option<u8>,
    refused_at: Option<u64>,
    /// The rules' code if the layer stops at PLAN.
    check: Option<u8>,
    /// The REINPUTS cases the layer exercises (`History::reinput_cases`).
    cases: Vec<&'static str>,
    cycle: u64,
    layers: u64,
    /// The layer's memory timing (read channel, write channel), and how the FIFO is filled on
    /// purpose (`Fill`): X rows read at its address so far, the write channel held, the cycle
    /// the hold ends.
    timing: (Timing, Timing),
    fill: Option<Fill>,
    fill_reads: u32,
    held: bool,
    hold_until: Option<u64>,
}

fn config(layer: &Layer) -> In {
    let r = &layer.regs;
    In {
        inrows: r.inrows,
        incols: r.incols,
        wghtrows: r.wghtrows,
        wghtcols: r.wghtcols,
        reinputs: r.reinputs,
        reweights: r.reweights,
        saveout: r.saveout,
        usebias: r.usebias,
        usesumm: r.usesumm,
        shiftamt: r.shiftamt,
        actfn: r.actfn,
        base: r.base,
        result: r.result,
        ..In::default()
    }
}

/// A layer of a run: the layer, its fault, the memory's timing while it runs (read channel,
/// write channel), and how to fill the output FIFO on purpose.
struct Drawn {
    layer: Layer,
    fault: Fault,
    timing: (Timing, Timing),
    fill: Option<Fill>,
}

/// The output FIFO filled on purpose (`output_writer_edge_cases_drawn_on_purpose`, kind 0): the
/// write channel takes `writes` writes, then none until `HOLD_CYCLES` after the read channel
/// took the second column tile's last X row (the second read of `last_x_row`), then takes a
/// request every cycle.
#[derive(Clone, Copy, Debug)]
struct Fill {
    writes: usize,
    last_x_row: u32,
}

type Draw<'a> = dyn FnMut(&mut SmallRng, &History, u64) -> Drawn + 'a;

/// How long the write channel holds after the read `Fill::last_x_row` names: longer than a
/// row's way from its request to its result word (a latency of up to 12, then `2·SIZE + 1`
/// cycles).
const HOLD_CYCLES: u64 = 4 * npu_model::scale::SIZE as u64;

/// A random layer as `random_layer` draws it, with one fault in four and the run's memory
/// timing or, half the time, the memory of `make bench`.
fn random_draw(rng: &mut SmallRng, history: &History, timing: (Timing, Timing)) -> Drawn {
    let layer = random_layer(rng, history, 0.15);
    let fault = match rng.gen_range(0..8) {
        0 => Fault::WriteWhileBusy(rng.gen_range(0..200)),
        1 if !layer.regs.reinputs => Fault::ErrorAt(layer.regs.base),
        1 if layer.regs.saveout => Fault::ErrorAt(layer.regs.result),
        // The second column tile's first weight row: loaded ahead, in the first
        // column tile's last STREAM or in NEXTN.
        2 if usize::from(layer.regs.wghtcols) > npu_model::scale::SIZE && !layer.regs.reweights => {
            let x_bytes = if layer.regs.reinputs { 0 } else { matrix_bytes(layer.regs.inrows, layer.regs.incols) };
            Fault::ErrorAt(layer.regs.base.wrapping_add(x_bytes).wrapping_add(WORD_BYTES))
        }
        _ => Fault::None,
    };
    // Half the layers on the memory of `make bench` (no stall, latency 1): only there
    // does a K tile of one row come so soon after the one before that its KSTART
    // waits for the rows of the K tile before that to leave the array.
    Drawn { layer, fault, timing: if rng.gen_bool(0.5) { (Timing::IDEAL, Timing::IDEAL) } else { timing }, fill: None }
}

#[test]
fn random_layers_match_the_model_and_the_reference() {
    let run = Run::from_env("scale_engine::random_layers_match_the_model_and_the_reference", 1_000_000);
    let mut rng = run.rng();
    // Each channel its own stalls and latencies.
    // The write channel stalls at least 15 times in 100: "STREAM waits for room in the
    // output FIFO" came 2 and 4 times in 2 of 15 seeds (a write channel that hardly stalls
    // leaves the FIFO room), a seed with none not far.
    let mut channel = |least: f64| Timing { stall: rng.gen_range(least..0.5), latency: (1, rng.gen_range(1..12)) };
    let timing = (channel(0.0), channel(0.15));
    eprintln!("memory (read channel, write channel): {timing:?}");
    let (coverage, layers) = run_layers(&run, timing, &mut |rng, history, _| random_draw(rng, history, timing));
    eprintln!("{layers} layers; coverage:\n{coverage}");
    let mut required: Vec<&str> = State::ALL.iter().map(|s| s.name()).collect();
    required.extend([
        "exit SUCCESS",
        "exit MEM_ERR",
        "exit CPU_ERR",
        "exit CPU_ERR at check",
        "exit MEM_ERR at check",
        "exit CPU_ERR after abort",
        "exit MEM_ERR after error response",
        "request stalled",
        "accumulate",
        "results checked",
        "results checked, several K and N tiles",
        "results checked, K tiles 2048 bytes of W apart or more",
        "next K tile follows rows in the array",
        "KSTART waits for its bank",
        // The look-ahead weight load (docs/scale.md, "Where the cycles go now", 1).
        "weight row loaded while streaming",
        "weight row loaded between column tiles",
        "look-ahead load waits for its bank",
        "STREAM waits for the look-ahead load",
        "K tile starts with weights loaded ahead",
        "error response to a look-ahead load",
        // Results written while the next column tile streams (docs/scale.md, "Where the cycles
        // go now", 2); the rarer cases are drawn on purpose in
        // `output_writer_edge_cases_drawn_on_purpose`.
        "result written while streaming",
        "result written in NSTART/BIAS/KSTART",
        "result written in NEXTN",
        "result written in DRAIN",
        "DRAIN waits for the writer",
        "STREAM waits for room in the output FIFO",
        "output FIFO wraps",
        "layer stopped while the writer holds words",
        "error response to a write while streaming",
        // The read and the write channel side by side (docs/scale.md, "Memory master port and
        // the AXI4 bridge").
        "write and read issued in the same cycle",
        "write channel stalled while reads go on",
        "error response to a write while reads are outstanding",
        "FLUSH waits for the write channel",
        "REINPUTS layer succeeded",
        "REWEIGHTS layer succeeded",
        "USEBIAS layer succeeded",
        "USESUMM layer succeeded",
        "ACTFN layer succeeded",
    ]);
    required.extend(REINPUT_CASES);
    required.extend(["result buffer read", "result stored and written", "result stored, not written"]);
    required.extend(["X row stored in the X buffer", "X row from the X buffer", "X re-read from memory: it does not fit the X buffer"]);
    coverage.require(&required);
}

/// A layer of `m x k x n` with SAVEOUT, no REINPUTS or REWEIGHTS, its image in the first
/// quarter of the memory and its results in the second half, as `random_layer` places them.
fn shaped_layer(rng: &mut SmallRng, (m, k, n): (u8, u8, u8)) -> Layer {
    let mut layer = random_layer(rng, &History::default(), 0.0);
    let r = &mut layer.regs;
    (r.inrows, r.incols, r.wghtrows, r.wghtcols) = (m, k, k, n);
    (r.reinputs, r.reweights, r.saveout) = (false, false, true);
    let (m, k, n) = (usize::from(m), usize::from(k), usize::from(n));
    layer.x = (0..m * k).map(|_| value16(rng)).collect();
    layer.w = (0..k * n).map(|_| value16(rng)).collect();
    layer.bias = (0..n).map(|_| rng.gen_range(-1 << 20..1 << 20)).collect();
    layer.sums = (0..n).map(|_| rng.gen_range(-1000..1000)).collect();
    let quarter_words = (MEM_BYTES / u64::from(WORD_BYTES)) as u32 / 4;
    layer.regs.base = rng.gen_range(0..quarter_words / 2) * WORD_BYTES;
    layer.regs.result = rng.gen_range(2 * quarter_words..3 * quarter_words) * WORD_BYTES;
    layer
}

/// The output writer's rare cases, each drawn on purpose in turn (docs/scale.md, "Test plan"):
/// 0. the output FIFO full (`OUT_WORDS` words unread): 200 to 255 rows of an X too large for
///    the X buffer (re-read from memory by each of three column tiles), the read channel taking
///    a request every cycle and the write channel one in about 20 cycles. The second column
///    tile's last K tile waits for room (the first one's words are still there); the write
///    channel takes exactly `2·INROWS - 257` writes, which leaves room for INROWS rows with one
///    word in the FIFO's read register and `256 - INROWS` in the FIFO (`Fill`), then none
///    until the second column tile's last result word is in: the K tile's rows exactly fill
///    the FIFO;
/// 1. a layer stopped by a refused register write while the FIFO holds words (they are
///    dropped at DONE, never written: `History::settle` checks every write lies in RESULT);
/// 2. an error response to one of its writes, a word of the first column tile's first half,
///    written while its later rows are read from memory (a read channel that takes a request
///    in 40 to 70 % of the cycles, a write channel in 70 to 100 %);
/// 3. none of these: the last DRAIN waits for the writer.
/// Kinds 1 to 3: 60 to 130 rows, two to four column tiles, X in the X buffer; but for kind 2, a
/// read channel that takes a request in 50 to 100 % of the cycles and a write channel in 5 to
/// 20 % (the FIFO fills while the next column tile streams, and wraps; a stop waits for the
/// write channel).
#[test]
fn output_writer_edge_cases_drawn_on_purpose() {
    let run = Run::from_env("scale_engine::output_writer_edge_cases_drawn_on_purpose", 200_000);
    let n = npu_model::scale::SIZE as u8;
    let (coverage, layers) = run_layers(&run, (Timing::IDEAL, Timing::IDEAL), &mut |rng, _, index| {
        if index % 4 == 0 {
            let (m, k) = (rng.gen_range(200..=255), rng.gen_range(8 * n + 1..=9 * n));
            let layer = shaped_layer(rng, (m, k, 3 * n));
            let k_words = k.div_ceil(n);
            let last_x_row = layer.regs.base + (u32::from(m) - 1) * u32::from(k_words) * WORD_BYTES + (u32::from(k_words) - 1) * WORD_BYTES;
            let fill = Fill { writes: 2 * usize::from(m) - 257, last_x_row };
            let timing = (Timing { stall: 0.0, latency: (1, 12) }, Timing { stall: 0.95, latency: (1, 12) });
            return Drawn { layer, fault: Fault::None, timing, fill: Some(fill) };
        }
        let (m, k, cols) = (rng.gen_range(60..=130), rng.gen_range(1..=n), rng.gen_range(n + 1..=4 * n));
        let layer = shaped_layer(rng, (m, k, cols));
        let fault = match index % 4 {
            1 => Fault::WriteWhileBusy(rng.gen_range(200..1500)),
            // A word of the first half of the first column tile, written while its later rows
            // are read from memory (the write channel fast here).
            2 => Fault::ErrorAt(layer.regs.result + rng.gen_range(1..u32::from(m) / 2) * WORD_BYTES * u32::from(cols.div_ceil(n))),
            _ => Fault::None,
        };
        let timing = if index % 4 == 2 {
            (Timing { stall: rng.gen_range(0.3..0.6), latency: (1, 12) }, Timing { stall: rng.gen_range(0.0..0.3), latency: (1, 12) })
        } else {
            (Timing { stall: rng.gen_range(0.0..0.5), latency: (1, 12) }, Timing { stall: rng.gen_range(0.8..0.95), latency: (1, 12) })
        };
        Drawn { layer, fault, timing, fill: None }
    });
    eprintln!("{layers} layers; coverage:\n{coverage}");
    coverage.require(&[
        "output FIFO full",
        "output FIFO wraps",
        "STREAM waits for room in the output FIFO",
        "layer stopped while the writer holds words",
        "words dropped at DONE",
        "error response to a write while streaming",
        "error response to a write while reads are outstanding",
        "FLUSH waits for the write channel",
        "write channel stalled while reads go on",
        "DRAIN waits for the writer",
        "exit CPU_ERR after abort",
        "exit MEM_ERR after error response",
        "results checked",
        "write channel held until a column tile's last word is in",
    ]);
}

/// BASE is checked only where the layer reads memory at it (docs/scale.md, "Exit codes"): a
/// REINPUTS and REWEIGHTS layer without USEBIAS or USESUMM takes everything from on chip, so
/// any BASE runs, and STREAM's request generator still starts at it (no request is made, but
/// the read channel's address shows it; the lock step compares it every cycle). Pairs of
/// layers: an `m x k x k` layer (k up to SIZE, so its weights stay on chip), then the same
/// shape with REINPUTS and REWEIGHTS and a BASE from the whole 32-bit range above the memory
/// window, bit `20 + pair % 12` always set, so every bit above the window is drawn in turn
/// (it kills a mutant that flips an address bit only when a higher one is set,
/// docs/scale.md, "Mutation score (issue 21)").
#[test]
fn unchecked_base_above_the_window_runs_from_on_chip() {
    let run = Run::from_env("scale_engine::unchecked_base_above_the_window_runs_from_on_chip", 60_000);
    let n = npu_model::scale::SIZE as u8;
    let mut shape = (1, 1);
    let mut drawn_base = None;
    let mut bits = Coverage::default();
    let (coverage, layers) = run_layers(&run, (Timing::IDEAL, Timing::IDEAL), &mut |rng, history, index| {
        // The layer before this one ended (run_layers asserted its exit code and results).
        if let Some(base) = drawn_base.take() {
            for bit in 20..32 {
                if base & (1 << bit) != 0 {
                    bits.hit(&format!("BASE bit {bit} in a layer that succeeded"));
                }
            }
        }
        if index % 2 == 0 {
            shape = (rng.gen_range(1..=64), rng.gen_range(1..=n));
            let layer = shaped_layer(rng, (shape.0, shape.1, shape.1));
            return Drawn { layer, fault: Fault::None, timing: (Timing::IDEAL, Timing::IDEAL), fill: None };
        }
        let mut layer = shaped_layer(rng, (shape.0, shape.1, shape.1));
        let r = &mut layer.regs;
        (r.reinputs, r.reweights, r.usebias, r.usesumm) = (true, true, false, false);
        r.base = rng.gen::<u32>() | (1 << (20 + (index / 2) % 12));
        assert_eq!(history.check(&layer), None, "the rules run this layer: {:?}", layer.regs);
        drawn_base = Some(layer.regs.base);
        Drawn { layer, fault: Fault::None, timing: (Timing::IDEAL, Timing::IDEAL), fill: None }
    });
    eprintln!("{layers} layers; coverage:\n{coverage}\n{bits}");
    coverage.require(&["REINPUTS layer succeeded", "REWEIGHTS layer succeeded", "results checked"]);
    let required: Vec<String> = (20..32).map(|bit| format!("BASE bit {bit} in a layer that succeeded")).collect();
    bits.require(&required.iter().map(String::as_str).collect::<Vec<_>>());
}

/// The engine's inputs `c` with the memory's for the cycle.
fn memory_inputs(mem: &npu::scale::memory::Response, c: In) -> In {
    In {
        mem_rd_req_ready: mem.rd_req_ready,
        mem_rd_resp_valid: mem.rd_valid,
        mem_rd_resp_data: mem.rd_data,
        mem_rd_resp_error: mem.rd_error,
        mem_wr_req_ready: mem.wr_req_ready,
        mem_wr_resp_valid: mem.wr_valid,
        mem_wr_resp_error: mem.wr_error,
        ..c
    }
}

/// Runs layers one after the other, each drawn by `draw` (with the history and the layer's
/// index), in lock step, checking every exit code against the rules and every result against
/// the integer reference; returns the coverage and how many layers ran.
fn run_layers(run: &Run, timing: (Timing, Timing), draw: &mut Draw) -> (Coverage, u64) {
    let bench = RefCell::new(Bench {
        memory: Memory::with_timings(MEM_BYTES as usize, timing.0, timing.1),
        history: History::default(),
        layer: Layer::default(),
        fault: Fault::None,
        started: None,
        stopped: None,
        refused_at: None,
        check: None,
        cases: Vec::new(),
        cycle: 0,
        layers: 0,
        timing,
        fill: None,
        fill_reads: 0,
        held: false,
        hold_until: None,
    });
    let coverage = drive::<ScaleEngine>(
        run,
        |rng, cycle| {
            let mut b = bench.borrow_mut();
            b.cycle = cycle;
            if b.started.is_none() {
                // A new layer: its image, its registers, the start pulse.
                let Drawn { layer, fault, timing, fill } = draw(rng, &b.history, b.layers);
                layer.place(&mut b.memory.bytes);
                b.check = b.history.check(&layer);
                b.cases = b.history.reinput_cases(&layer);
                b.fault = fault;
                b.memory.faulty = match b.fault {
                    Fault::ErrorAt(addr) => vec![addr],
                    _ => vec![],
                };
                (b.timing, b.fill, b.fill_reads, b.held, b.hold_until) = (timing, fill, 0, false, None);
                b.memory.set_timings(timing.0, timing.1);
                b.memory.writes.clear();
                b.layer = layer;
                b.started = Some(cycle);
                b.stopped = None;
                b.refused_at = None;
                let mem = b.memory.drive(rng);
                return In { start: true, ..memory_inputs(&mem, config(&b.layer)) };
            }
            if b.hold_until.is_some_and(|c| cycle >= c) {
                // The hold ends: the write channel takes a request every cycle.
                let fast = Timing { stall: 0.0, ..b.timing.1 };
                b.memory.set_write_timing(fast);
                b.hold_until = None;
            }
            let since = cycle - b.started.unwrap();
            let mem = b.memory.drive(rng);
            In { write_while_busy: b.fault == Fault::WriteWhileBusy(since), ..memory_inputs(&mem, config(&b.layer)) }
        },
        |input, out, coverage| {
            let mut b = bench.borrow_mut();
            let rng = &mut rand::rngs::SmallRng::seed_from_u64(b.cycle ^ run.seed);
            let write = out.mem_wr_req_valid.then_some(Write { addr: out.mem_wr_req_addr, wdata: out.mem_wr_req_wdata });
            b.memory.observe(rng, out.mem_rd_req_valid.then_some(out.mem_rd_req_addr), write);
            if let Some(fill) = b.fill {
                // `Fill`: the write channel holds after its quota, until HOLD_CYCLES after the
                // second column tile's last X row.
                if !b.held && b.memory.writes.len() == fill.writes {
                    b.held = true;
                    let held = Timing { stall: 1.0, ..b.timing.1 };
                    b.memory.set_write_timing(held);
                }
                if input.mem_rd_req_ready && out.mem_rd_req_valid && out.mem_rd_req_addr == fill.last_x_row {
                    b.fill_reads += 1;
                    if b.fill_reads == 2 && b.held {
                        b.hold_until = Some(b.cycle + 1 + HOLD_CYCLES);
                        coverage.hit("write channel held until a column tile's last word is in");
                    }
                }
            }
            // A refused write stops the layer unless it finishes within a cycle (docs/scale.md).
            if input.write_while_busy && out.busy {
                b.refused_at = Some(b.cycle);
            }
            let error = (input.mem_rd_resp_valid && input.mem_rd_resp_error) || (input.mem_wr_resp_valid && input.mem_wr_resp_error);
            if error && b.stopped.is_none() {
                b.stopped = Some(MEM_ERR);
            }
            if out.finish {
                let layer = b.layer.clone();
                if b.refused_at.is_some_and(|c| c + 1 < b.cycle) && b.stopped.is_none() {
                    b.stopped = Some(CPU_ERR);
                }
                let code = match (b.check, b.stopped) {
                    (Some(code), _) => code,
                    (None, Some(code)) => code,
                    (None, None) => SUCCESS,
                };
                assert_eq!(out.exit_code, code, "layer {} at cycle {}: exit code (SEED={}): {:?}", b.layers, b.cycle, run.seed, layer.regs);
                coverage.hit(["exit UNUSED", "exit SUCCESS", "exit MEM_ERR", "exit CPU_ERR"][usize::from(code)]);
                let bench = &mut *b;
                let checked = bench.history.settle(&layer, code, &bench.memory.bytes, &bench.memory.writes);
                let checked = checked.unwrap_or_else(|e| panic!("layer {}: {e} (SEED={}): {:?}", b.layers, run.seed, layer.regs));
                for case in reinput_cases_shown(&b.cases, code, checked) {
                    coverage.hit(case);
                }
                if checked {
                    coverage.hit("results checked");
                    let r = &layer.regs;
                    if usize::from(r.wghtcols) > npu_model::scale::SIZE && usize::from(r.incols) > npu_model::scale::SIZE {
                        coverage.hit("results checked, several K and N tiles");
                        if r.wghtcols > 120 {
                            coverage.hit("results checked, K tiles 2048 bytes of W apart or more");
                        }
                    }
                }
                for (flag, name) in [(layer.regs.reinputs, "REINPUTS"), (layer.regs.reweights, "REWEIGHTS"), (layer.regs.usebias, "USEBIAS"), (layer.regs.usesumm, "USESUMM"), (layer.regs.actfn, "ACTFN")] {
                    if flag && code == SUCCESS {
                        coverage.hit(&format!("{name} layer succeeded"));
                    }
                }
                b.started = None;
                b.layers += 1;
            }
            true
        },
    )
    .unwrap_or_else(|m| panic!("{m}"));
    let b = bench.into_inner();
    (coverage, b.layers)
}
