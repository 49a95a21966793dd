//! Driving ScaleNPU as its CPU and memory would: register writes and reads over AXI4-Lite,
//! waiting for the interrupt, and the bench memory behind the memory master port. The same
//! code drives the Verilated RTL, the model, or both in lock step (anything that steps
//! `npu_model::scale::scale_npu::{In, Out}`); used by `npu scale run`, the tests and the
//! benchmark.
use super::layer::{get_matrix, Layer};
use super::memory::{Memory, Response, Timing, Write};
use npu_hdl::scale::regmap;
use npu_model::scale::engine::{MEM_BYTES, SUCCESS};
use npu_model::scale::scale_npu::{In, Out};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::collections::VecDeque;

/// The byte offset of a register, from the register map (the description the RTL and the C
/// header are generated from).
pub fn offset(name: &str) -> u8 {
    regmap::register(name).offset as u8
}

/// The register map's name of an exit code (`CPU_ERR`), or "not a defined exit code" for a
/// value it does not define.
pub fn exit_code_name(code: u8) -> &'static str {
    regmap::EXIT_CODES.iter().find(|&&(_, c)| c == u32::from(code)).map_or("not a defined exit code", |&(name, _)| name)
}

/// One bus operation of the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Write `data` with byte strobes `strb` to `addr`.
    Write { addr: u8, data: u32, strb: u8 },
    Read { addr: u8 },
    /// Wait until `irq` is high (at most `limit` cycles).
    WaitIrq { limit: u64 },
}

impl Op {
    pub fn write(name: &str, data: u32) -> Op {
        Op::Write { addr: offset(name), data, strb: 0xF }
    }
    pub fn read(name: &str) -> Op {
        Op::Read { addr: offset(name) }
    }
}

/// What an operation gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// A write's response (`bresp`).
    Written { addr: u8, resp: u8 },
    /// A read's data and response.
    Read { addr: u8, data: u32, resp: u8 },
    /// The interrupt came this many cycles after the wait began; `None` if it did not.
    Irq { after: Option<u64> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Address (and data) offered, not yet taken.
    Offer,
    /// Taken, waiting for the response.
    Respond,
}

/// The CPU and the memory around the unit. Each cycle: [`Bench::input`], step the unit,
/// [`Bench::observe`].
pub struct Bench {
    pub memory: Memory,
    ops: VecDeque<Op>,
    phase: Phase,
    waited: u64,
    pub done: Vec<Done>,
    /// Probability that the CPU leaves a valid or ready low in a cycle (bus jitter).
    pub jitter: f64,
    rng: SmallRng,
    response: Response,
    pub cycle: u64,
}

impl Bench {
    pub fn new(timing: Timing, jitter: f64, seed: u64) -> Self {
        Self {
            memory: Memory::new(MEM_BYTES as usize, timing),
            ops: VecDeque::new(),
            phase: Phase::Offer,
            waited: 0,
            done: Vec::new(),
            jitter,
            rng: SmallRng::seed_from_u64(seed),
            response: Response::default(),
            cycle: 0,
        }
    }

    pub fn push(&mut self, op: Op) {
        self.ops.push_back(op);
    }

    /// No operation left.
    pub fn idle(&self) -> bool {
        self.ops.is_empty()
    }

    /// The register writes of a layer (every configuration register, then INIT).
    pub fn push_layer(&mut self, layer: &Layer) {
        let r = &layer.regs;
        for (name, value) in [
            ("INROWS", u32::from(r.inrows)),
            ("INCOLS", u32::from(r.incols)),
            ("WGHTROWS", u32::from(r.wghtrows)),
            ("WGHTCOLS", u32::from(r.wghtcols)),
            ("REINPUTS", u32::from(r.reinputs)),
            ("REWEIGHTS", u32::from(r.reweights)),
            ("SAVEOUT", u32::from(r.saveout)),
            ("USEBIAS", u32::from(r.usebias)),
            ("USESUMM", u32::from(r.usesumm)),
            ("SHIFTAMT", u32::from(r.shiftamt)),
            ("ACTFN", u32::from(r.actfn)),
            ("BASE", r.base),
            ("RESULT", r.result),
            ("INIT", 1),
        ] {
            self.push(Op::write(name, value));
        }
    }

    /// The unit's inputs for the coming cycle.
    pub fn input(&mut self) -> In {
        self.response = self.memory.drive(&mut self.rng);
        let m = self.response;
        let mut i = In {
            mem_rd_req_ready: m.rd_req_ready,
            mem_rd_resp_valid: m.rd_valid,
            mem_rd_resp_data: m.rd_data,
            mem_rd_resp_error: m.rd_error,
            mem_wr_req_ready: m.wr_req_ready,
            mem_wr_resp_valid: m.wr_valid,
            mem_wr_resp_error: m.wr_error,
            ..In::default()
        };
        let calm = !self.rng.gen_bool(self.jitter);
        match (self.ops.front(), self.phase) {
            (Some(&Op::Write { addr, data, strb }), Phase::Offer) if calm => {
                (i.awvalid, i.awaddr, i.wvalid, i.wdata, i.wstrb) = (true, addr, true, data, strb);
            }
            (Some(Op::Write { .. }), Phase::Respond) => i.bready = calm,
            (Some(&Op::Read { addr }), Phase::Offer) if calm => (i.arvalid, i.araddr) = (true, addr),
            (Some(Op::Read { .. }), Phase::Respond) => i.rready = calm,
            _ => {}
        }
        i
    }

    /// The unit's outputs of the cycle that `input` drove.
    pub fn observe(&mut self, i: &In, o: &Out) {
        let write = o.mem_wr_req_valid.then_some(Write { addr: o.mem_wr_req_addr, wdata: o.mem_wr_req_wdata });
        self.memory.observe(&mut self.rng, o.mem_rd_req_valid.then_some(o.mem_rd_req_addr), write);
        self.cycle += 1;
        let finished = match (self.ops.front().copied(), self.phase) {
            (Some(Op::Write { .. }), Phase::Offer) => {
                if i.awvalid && o.awready && o.wready {
                    self.phase = Phase::Respond;
                }
                None
            }
            (Some(Op::Write { addr, .. }), Phase::Respond) => (i.bready && o.bvalid).then_some(Done::Written { addr, resp: o.bresp }),
            (Some(Op::Read { .. }), Phase::Offer) => {
                if i.arvalid && o.arready {
                    self.phase = Phase::Respond;
                }
                None
            }
            (Some(Op::Read { addr }), Phase::Respond) => (i.rready && o.rvalid).then_some(Done::Read { addr, data: o.rdata, resp: o.rresp }),
            (Some(Op::WaitIrq { limit }), _) => {
                self.waited += 1;
                if o.irq {
                    Some(Done::Irq { after: Some(self.waited) })
                } else {
                    (self.waited >= limit).then_some(Done::Irq { after: None })
                }
            }
            (None, _) => None,
        };
        if let Some(done) = finished {
            self.done.push(done);
            self.ops.pop_front();
            self.phase = Phase::Offer;
            self.waited = 0;
        }
    }
}

/// The outcome of one layer run through the registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub exit_code: u8,
    /// Cycles from the INIT write's response to the interrupt.
    pub cycles: u64,
    /// The result region (INROWS x WGHTCOLS at RESULT) of a layer that succeeded with
    /// SAVEOUT, else empty.
    pub result: Vec<i16>,
}

/// Cycles a layer may take before the bench calls it hung (far above any legal layer:
/// 32 x 32 tiles x 255 rows, each a few memory latencies).
pub const LAYER_CYCLE_LIMIT: u64 = 50_000_000;

/// One cycle of synchronous reset (the unit powers up in an undefined state).
pub fn reset(step: &mut dyn FnMut(&In) -> Out) {
    step(&In { reset: true, ..In::default() });
}

/// Runs `layers` one after the other on `step` (the RTL, the model, or both in lock step):
/// places each layer's image, writes its registers and INIT, waits for the interrupt, reads
/// EXITCODE and clears IRQ. Panics if the interrupt does not come (a hang is a bug).
pub fn run_layers(step: &mut dyn FnMut(&In) -> Out, bench: &mut Bench, layers: &[Layer]) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for layer in layers {
        layer.place(&mut bench.memory.bytes);
        bench.push_layer(layer);
        bench.push(Op::WaitIrq { limit: LAYER_CYCLE_LIMIT });
        bench.push(Op::read("EXITCODE"));
        bench.push(Op::write("IRQ", 1));
        bench.done.clear();
        while !bench.idle() {
            let i = bench.input();
            let o = step(&i);
            bench.observe(&i, &o);
        }
        let cycles = bench.done.iter().find_map(|d| match d {
            Done::Irq { after } => Some(after.expect("the layer never raised IRQ: the unit hung")),
            _ => None,
        });
        let exit_code = bench.done.iter().find_map(|d| match d {
            Done::Read { data, .. } => Some(*data as u8),
            _ => None,
        });
        let (r, exit_code) = (&layer.regs, exit_code.unwrap());
        let result = if exit_code == SUCCESS && r.saveout { get_matrix(&bench.memory.bytes, r.result, r.inrows, r.wghtcols) } else { Vec::new() };
        outcomes.push(Outcome { exit_code, cycles: cycles.unwrap(), result });
    }
    outcomes
}
