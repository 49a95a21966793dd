//! ScaleNPU's layer engine and systolic array (hdl/src/scale/engine.rs) against its model in
//! lock step, on random layer programs with random memory stalls and latencies, injected
//! error responses and refused register writes; every layer's exit code against the
//! documented rules and its results against the plain integer reference.
use npu::cosim::lockstep::{drive, Run};
use npu::cosim::tops::scale_engine::ScaleEngine;
use npu::scale::layer::{matrix_bytes, Layer};
use npu::scale::memory::{Memory, Request, Timing};
use npu::scale::program::{random_layer, reinput_cases_shown, History, REINPUT_CASES};
use npu_model::scale::engine::{In, State, CPU_ERR, MEM_BYTES, MEM_ERR, SUCCESS, WORD_BYTES};
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

#[test]
fn random_layers_match_the_model_and_the_reference() {
    let run = Run::from_env("scale_engine::random_layers_match_the_model_and_the_reference", 1_000_000);
    let mut rng = run.rng();
    let timing = Timing { stall: rng.gen_range(0.0..0.5), latency: (1, rng.gen_range(1..12)) };
    eprintln!("memory: {timing:?}");
    let bench = RefCell::new(Bench {
        memory: Memory::new(MEM_BYTES as usize, timing),
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
    });
    let coverage = drive::<ScaleEngine>(
        &run,
        |rng, cycle| {
            let mut b = bench.borrow_mut();
            b.cycle = cycle;
            if b.started.is_none() {
                // A new layer: its image, its registers, the start pulse.
                let layer = random_layer(rng, &b.history, 0.15);
                layer.place(&mut b.memory.bytes);
                b.check = b.history.check(&layer);
                b.cases = b.history.reinput_cases(&layer);
                b.fault = match rng.gen_range(0..8) {
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
                b.memory.faulty = match b.fault {
                    Fault::ErrorAt(addr) => vec![addr],
                    _ => vec![],
                };
                b.memory.writes.clear();
                // Half the layers on the memory of `make bench` (no stall, latency 1): only there
                // does a K tile of one row come so soon after the one before that its KSTART
                // waits for the rows of the K tile before that to leave the array.
                b.memory.set_timing(if rng.gen_bool(0.5) { Timing::IDEAL } else { timing });
                b.memory.writes.clear();
                b.layer = layer;
                b.started = Some(cycle);
                b.stopped = None;
                b.refused_at = None;
                let mem = b.memory.drive(rng);
                return In { start: true, mem_req_ready: mem.req_ready, mem_resp_valid: mem.valid, mem_resp_data: mem.data, mem_resp_error: mem.error, ..config(&b.layer) };
            }
            let since = cycle - b.started.unwrap();
            let mem = b.memory.drive(rng);
            In {
                write_while_busy: b.fault == Fault::WriteWhileBusy(since),
                mem_req_ready: mem.req_ready,
                mem_resp_valid: mem.valid,
                mem_resp_data: mem.data,
                mem_resp_error: mem.error,
                ..config(&b.layer)
            }
        },
        |input, out, coverage| {
            let mut b = bench.borrow_mut();
            let rng = &mut rand::rngs::SmallRng::seed_from_u64(b.cycle ^ run.seed);
            let request = out.mem_req_valid.then_some(Request { write: out.mem_req_write, addr: out.mem_req_addr, wdata: out.mem_req_wdata });
            b.memory.observe(rng, request);
            // A refused write stops the layer unless it finishes within a cycle (docs/scale.md).
            if input.write_while_busy && out.busy {
                b.refused_at = Some(b.cycle);
            }
            if input.mem_resp_valid && input.mem_resp_error && b.stopped.is_none() {
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
    eprintln!("{} layers; coverage:\n{coverage}", b.layers);
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
        // go now", 2).
        "result written while streaming",
        "result written in NSTART/BIAS/KSTART",
        "STREAM waits for room in the output FIFO",
        "write waits for reads outstanding",
        "read waits for writes outstanding",
        "error response to a write while streaming",
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

