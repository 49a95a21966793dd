//! The test bench of the Ethos-U65 NPU top (`npu_hdl::ethos::Npu`: command front end and
//! kernel unit on one memory port): it loads a Vela-compiled model's memory image
//! ([`crate::ethos::executor::Memory::load`]) and command stream into the testbench memory
//! ([`super::memory::Memory`]), plays the driver's sequence over APB (wait for the reset clear,
//! BASEPs, QBASE, QSIZE, CMD.transition_to_running, wait for the IRQ, read STATUS), and runs
//! the Verilated RTL and the model in lock step (`npu_cosim::lockstep`), or the model alone.
use super::executor::Memory as Image;
use super::memory::{Memory, Timing};
use npu_cosim::lockstep::{Coverage, Lockstep, Mismatch, Run};
use npu_cosim::tops::ethos_npu::EthosNpu as Dut;
use npu_model::ethos::command_front_end::{BASEP0, CMD, QBASE0, QBASE1, QSIZE, RESET_STATUS, RUNNING, STATUS};
use npu_model::ethos::npu::{In, Npu, Out};
use npu_model::Block;
use std::collections::VecDeque;
use std::path::PathBuf;

/// What the driver saw: STATUS once the NPU stopped, the memory after the run, every byte
/// address written, the cycles from the start (the CMD write) to the STATUS read that saw it
/// stopped, and each kernel operation the kernel unit took, in order.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: u32,
    pub memory: Vec<u8>,
    pub written: Vec<u64>,
    pub cycles: u64,
    pub kernels: Vec<Kernel>,
}

/// One kernel operation (NPU_OP_CONV, _DEPTHWISE, _POOL, _ELEMENTWISE) as the kernel unit
/// handled it: the cycles, counted from the start, at which it took the operation and at
/// which it finished it (None: it never did), and whether it refused the operation (an
/// operation or a field value it does not run; STATUS then has cmd_parse_error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub start: u64,
    pub end: Option<u64>,
    pub refused: bool,
}

impl Kernel {
    /// Cycles from taking the operation to finishing it.
    pub fn cycles(&self) -> Option<u64> {
        self.end.map(|end| end - self.start)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    PollReset,
    Write(u16, u32),
    WaitIrq,
    PollStopped,
}

/// The memory and the driver's sequence around the NPU, one cycle at a time: [`Bench::input`]
/// gives the cycle's inputs, [`Bench::observe`] takes its outputs and the model's events.
struct Bench {
    memory: Memory,
    steps: VecDeque<Step>,
    /// Whether the APB access in progress is in its access phase (the cycle after setup).
    access: bool,
    cycle: u64,
    start: u64,
    status: Option<(u32, u64)>,
    kernels: Vec<Kernel>,
}

impl Bench {
    /// `stream` over `image` (its bytes at address 0, its region bases the BASEPs; the stream
    /// after it at a 16-byte boundary) in a memory of `timing`.
    fn new(image: &Image, stream: &[u32], timing: Timing, seed: u64) -> Self {
        let qbase = (image.bytes.len() as u64).next_multiple_of(16);
        let mut memory = Memory::new(qbase as usize + 4 * stream.len() + 64, timing, seed);
        memory.load(0, &image.bytes).expect("the image fits");
        let words: Vec<u8> = stream.iter().flat_map(|w| w.to_le_bytes()).collect();
        memory.load(qbase, &words).expect("the stream fits");
        let mut steps: VecDeque<Step> = [Step::PollReset].into();
        for (r, &base) in image.base.iter().enumerate() {
            steps.push_back(Step::Write(BASEP0 + 8 * r as u16, base as u32));
            steps.push_back(Step::Write(BASEP0 + 8 * r as u16 + 4, (base >> 32) as u32));
        }
        steps.extend([
            Step::Write(QBASE0, qbase as u32),
            Step::Write(QBASE1, (qbase >> 32) as u32),
            Step::Write(QSIZE, 4 * stream.len() as u32),
            Step::Write(CMD, 0xc | 1),
            Step::WaitIrq,
            Step::PollStopped,
        ]);
        Self { memory, steps, access: false, cycle: 0, start: 0, status: None, kernels: Vec::new() }
    }

    fn input(&mut self) -> In {
        let (mem_ar_ready, data) = self.memory.read_channel(self.cycle);
        let (mem_aw_ready, response) = self.memory.write_channel(self.cycle);
        let mut input = In {
            mem_ar_ready,
            mem_aw_ready,
            mem_b_valid: response.is_some(),
            mem_b_error: response == Some(true),
            mem_r_valid: data.is_some(),
            mem_r_data: data.map_or(0, |d| d.data),
            mem_r_error: data.is_some_and(|d| d.error),
            ..In::default()
        };
        let (write, addr, wdata) = match self.steps.front() {
            Some(Step::PollReset | Step::PollStopped) => (false, STATUS, 0),
            Some(&Step::Write(addr, value)) => (true, addr, value),
            _ => return input,
        };
        (input.apb_sel, input.apb_enable, input.apb_write, input.apb_addr, input.apb_wdata) = (true, self.access, write, addr, wdata);
        input
    }

    /// Takes the cycle's outputs and the model's events; false once the driver is done (or
    /// found the NPU in reset after its reset clear: a run that cannot start).
    fn observe(&mut self, out: &Out, events: &[&'static str], coverage: Option<&mut Coverage>) -> bool {
        let cycle = self.cycle;
        self.cycle += 1;
        let stalls = self.memory.stalls;
        self.memory.observe(cycle, out.mem_ar_valid, out.mem_ar_addr);
        self.memory.observe_write(cycle, out.mem_aw_valid, out.mem_aw_addr, out.mem_w_data, out.mem_w_strb);
        if let Some(coverage) = coverage {
            if self.memory.stalls > stalls {
                coverage.hit("bench: address stalled");
            }
        }
        for &event in events {
            match event {
                "start pool" | "start elementwise" | "start conv" | "start depthwise" | "other kernel refused" => {
                    self.kernels.push(Kernel { start: cycle - self.start, end: None, refused: event == "other kernel refused" })
                }
                "unsupported" => self.kernels.last_mut().expect("a kernel started").refused = true,
                "done" => self.kernels.last_mut().expect("a kernel started").end = Some(cycle - self.start),
                _ => {}
            }
        }
        match self.steps.front().copied() {
            Some(Step::WaitIrq) => {
                if out.irq {
                    self.steps.pop_front();
                }
            }
            Some(_) if !self.access => self.access = true,
            Some(step) => {
                self.access = false;
                match step {
                    Step::PollReset if out.apb_rdata & RESET_STATUS != 0 => return true,
                    Step::PollStopped if out.apb_rdata & RUNNING != 0 => return true,
                    Step::PollStopped => self.status = Some((out.apb_rdata, cycle - self.start)),
                    Step::Write(CMD, _) => self.start = cycle,
                    _ => {}
                }
                self.steps.pop_front();
            }
            None => return false,
        }
        !self.steps.is_empty()
    }

    fn outcome(self) -> Option<Outcome> {
        let Bench { memory, status, kernels, .. } = self;
        status.map(|(status, cycles)| Outcome { status, memory: memory.bytes().to_vec(), written: memory.written, cycles, kernels })
    }
}

/// Runs `stream` over `image` (its bytes at address 0, its region bases the BASEPs; the stream
/// after it at a 16-byte boundary) on the NPU and its model in lock step, the memory of
/// `timing`. `None` when the driver's sequence did not finish within `run.cycles`: a hang.
pub fn lockstep(run: &Run, image: &Image, stream: &[u32], timing: Timing) -> Result<(Option<Outcome>, Coverage), Box<Mismatch<Dut>>> {
    lockstep_with_waves(run, None, image, stream, timing)
}

/// [`lockstep`] writing the Verilated NPU's waveform to `waves` (else where `NPU_WAVES` says).
pub fn lockstep_with_waves(run: &Run, waves: Option<PathBuf>, image: &Image, stream: &[u32], timing: Timing) -> Result<(Option<Outcome>, Coverage), Box<Mismatch<Dut>>> {
    let mut bench = Bench::new(image, stream, timing, run.seed);
    let mut pair = Lockstep::<Dut>::open_with_waves(run, waves);
    for _ in 0..run.cycles {
        let out = pair.step(&bench.input())?;
        let (model, coverage) = pair.model_and_coverage();
        if !bench.observe(&out, model.events(), Some(coverage)) {
            break;
        }
    }
    Ok((bench.outcome(), pair.coverage))
}

/// One side of the NPU run alone: its outputs each cycle and the model's events (none for the
/// Verilated NPU, so an [`Outcome`] from it lists no kernels).
pub trait Alone {
    fn cycle(&mut self, input: &In) -> Out;
    fn cycle_events(&self) -> &[&'static str];
}

impl Alone for Npu {
    fn cycle(&mut self, input: &In) -> Out {
        self.step(input)
    }
    fn cycle_events(&self) -> &[&'static str] {
        self.events()
    }
}

impl Alone for Dut {
    fn cycle(&mut self, input: &In) -> Out {
        npu_cosim::Dut::step(self, input)
    }
    fn cycle_events(&self) -> &[&'static str] {
        &[]
    }
}

/// [`lockstep`] on one side alone, freshly opened (`seed` draws the memory's stalls): the
/// model (`npu ethos run --model`), or the Verilated NPU (`make bench`'s speed).
pub fn alone(npu: &mut impl Alone, image: &Image, stream: &[u32], timing: Timing, seed: u64, cycles: u64) -> Option<Outcome> {
    alone_observed(npu, image, stream, timing, seed, cycles, &mut |_| {})
}

/// [`alone`], handing each cycle's events to `seen` (the bench's stalls among them, as
/// "bench: address stalled").
pub fn alone_observed(npu: &mut impl Alone, image: &Image, stream: &[u32], timing: Timing, seed: u64, cycles: u64, seen: &mut dyn FnMut(&[&'static str])) -> Option<Outcome> {
    let mut bench = Bench::new(image, stream, timing, seed);
    npu.cycle(&Npu::reset_input().expect("the NPU has a reset"));
    for _ in 0..cycles {
        let out = npu.cycle(&bench.input());
        let stalls = bench.memory.stalls;
        let more = bench.observe(&out, npu.cycle_events(), None);
        seen(npu.cycle_events());
        if bench.memory.stalls > stalls {
            seen(&["bench: address stalled"]);
        }
        if !more {
            break;
        }
    }
    bench.outcome()
}
