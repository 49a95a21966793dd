//! The test bench of the Ethos-U65 command front end (`npu_hdl::ethos::CommandFrontEnd`):
//! it plays the driver's sequence over APB (wait for the reset to finish, BASEPs, QBASE,
//! QSIZE, CMD.transition_to_running, wait for the IRQ, read STATUS until the NPU stopped, read
//! QREAD, clear the IRQ and its history),
//! serves the memory master port from [`Memory`], and answers the kernel handshake after a
//! random latency, standing for the kernel units. At each `kernel_start` it holds the front
//! end (`debug_hold`) and reads the whole `NPU_SET_*` register file through the debug port,
//! so a test can compare it with the host reference (`npu::ethos::operation`). Runs the
//! Verilated RTL and the model in lock step (the one harness, `npu_cosim::lockstep`).
use super::memory::{Memory, Timing};
use npu_cosim::lockstep::{drive, Coverage, Mismatch, Run};
use npu_cosim::tops::command_front_end::CommandFrontEnd as Dut;
use npu_hdl::ethos::command_set::register_count;
use npu_model::ethos::command_front_end::{self as model, In, Out};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ops::RangeInclusive;

/// What to run: a command stream placed in memory at `qbase`, the BASEPs the driver writes,
/// the memory's size and timing, and how the stand-in kernel units answer.
#[derive(Clone, Debug)]
pub struct Job {
    pub stream: Vec<u32>,
    pub qbase: u64,
    /// QSIZE as the driver writes it (normally the stream's length in bytes).
    pub qsize: u32,
    pub basep: [u32; 16],
    /// Other data to load (the regions), by address.
    pub data: Vec<(u64, Vec<u8>)>,
    pub memory_size: usize,
    pub timing: Timing,
    /// Cycles from `kernel_start` to `kernel_done`.
    pub kernel_latency: RangeInclusive<u64>,
    /// The `kernel_error` code each kernel answers with, in order (0 when the list is short).
    pub kernel_errors: Vec<u8>,
    /// Registers the driver reads after writing BASEPs, QBASE and QSIZE, before the start.
    pub probes: Vec<u16>,
}

impl Job {
    /// `stream` at `qbase`, QSIZE its length, in a 64 KB memory of the given timing.
    pub fn new(stream: Vec<u32>, qbase: u64, timing: Timing) -> Self {
        let qsize = (4 * stream.len()) as u32;
        Self {
            stream,
            qbase,
            qsize,
            basep: [0; 16],
            data: Vec::new(),
            memory_size: 1 << 16,
            timing,
            kernel_latency: 1..=40,
            kernel_errors: Vec::new(),
            probes: Vec::new(),
        }
    }
}

/// A kernel the front end started, with the register file as it was then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelStart {
    pub cycle: u64,
    /// Index in `npu_hdl::ethos::command_set::KERNEL_OPS`.
    pub op: u8,
    pub mode: u16,
    /// Register-file entries in `command_set::register` order.
    pub registers: Vec<u64>,
}

/// What the driver saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub kernels: Vec<KernelStart>,
    /// The values of `Job::probes`.
    pub probed: Vec<u32>,
    /// STATUS and QREAD read after the IRQ, once STATUS says the NPU stopped.
    pub status: u32,
    pub qread: u32,
    /// STATUS and `irq` after the driver cleared the IRQ and its history.
    pub status_cleared: u32,
    pub irq_cleared: bool,
    /// The memory after the run, and every byte address the NPU wrote, in order.
    pub memory: Vec<u8>,
    pub written: Vec<u64>,
    /// Cycles from the start (the CMD write) to the STATUS read that saw the NPU stopped.
    pub cycles: u64,
}

/// CMD value the driver writes to clear the IRQ and its whole history (Q-channels kept on).
pub const CMD_CLEAR: u32 = 0xffff_0000 | 2 | 0xc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Read STATUS until reset_status is 0.
    PollReset,
    Write(u16, u32),
    Read(u16),
    WaitIrq,
    /// Read STATUS until the NPU has stopped (an IRQ command raises the IRQ and goes on).
    PollStopped,
    Done,
}

struct Bench {
    steps: VecDeque<Step>,
    access: bool,
    memory: Memory,
    kernel_latency: RangeInclusive<u64>,
    kernel_errors: Vec<u8>,
    kernel_due: Option<(u64, u8)>,
    /// Register-file entries read so far at the last kernel start, while holding.
    reading: Option<(usize, Vec<u64>)>,
    kernels: Vec<KernelStart>,
    reads: Vec<u32>,
    start_cycle: u64,
    stop_cycle: u64,
    irq_at_end: bool,
    cycle: u64,
    /// The kernel units' latencies.
    rng: SmallRng,
}

impl Bench {
    fn new(job: &Job, seed: u64) -> Result<Self, String> {
        let mut memory = Memory::new(job.memory_size, job.timing.clone(), seed);
        let bytes: Vec<u8> = job.stream.iter().flat_map(|w| w.to_le_bytes()).collect();
        // An empty stream is not loaded: its QBASE may lie outside the memory (a queue that
        // is only fetched from, to see the fetch's address and its bus error).
        if !bytes.is_empty() {
            memory.load(job.qbase, &bytes).map_err(|e| format!("command stream: {e}"))?;
        }
        for (address, data) in &job.data {
            memory.load(*address, data)?;
        }
        let mut steps = vec![Step::PollReset];
        for (k, &value) in job.basep.iter().enumerate() {
            steps.push(Step::Write(model::BASEP0 + 4 * k as u16, value));
        }
        steps.extend([
            Step::Write(model::QBASE0, job.qbase as u32),
            Step::Write(model::QBASE1, (job.qbase >> 32) as u32),
            Step::Write(model::QSIZE, job.qsize),
        ]);
        steps.extend(job.probes.iter().map(|&addr| Step::Read(addr)));
        steps.extend([
            Step::Write(model::CMD, 0xc | 1),
            Step::WaitIrq,
            Step::PollStopped,
            Step::Read(model::QREAD),
            Step::Write(model::CMD, CMD_CLEAR),
            Step::Read(model::STATUS),
            Step::Done,
        ]);
        Ok(Self {
            steps: steps.into(),
            access: false,
            memory,
            kernel_latency: job.kernel_latency.clone(),
            kernel_errors: job.kernel_errors.clone(),
            kernel_due: None,
            reading: None,
            kernels: Vec::new(),
            reads: Vec::new(),
            start_cycle: 0,
            stop_cycle: 0,
            irq_at_end: false,
            cycle: 0,
            rng: SmallRng::seed_from_u64(seed ^ 0x6b65_726e_656c),
        })
    }

    fn input(&mut self, rng: &mut impl Rng, cycle: u64) -> In {
        self.cycle = cycle;
        let (mem_ar_ready, data) = self.memory.read_channel(cycle);
        let (mem_aw_ready, response) = self.memory.write_channel(cycle);
        let mut input = In {
            mem_ar_ready,
            mem_aw_ready,
            mem_b_valid: response.is_some(),
            mem_b_error: response == Some(true),
            mem_r_valid: data.is_some(),
            mem_r_data: data.map_or(0, |d| d.data),
            mem_r_error: data.is_some_and(|d| d.error),
            debug_index: rng.gen_range(0..128),
            ..In::default()
        };
        if let Some((due, error)) = self.kernel_due {
            if due <= cycle {
                input.kernel_done = true;
                input.kernel_error = error;
            }
        }
        if let Some((read, _)) = &self.reading {
            input.debug_hold = true;
            input.debug_index = (*read).min(register_count() - 1) as u8;
        }
        let (write, addr, wdata) = match self.steps.front() {
            Some(Step::PollReset | Step::PollStopped) => (false, model::STATUS, 0),
            Some(&Step::Read(addr)) => (false, addr, 0),
            Some(&Step::Write(addr, value)) => (true, addr, value),
            _ => return input,
        };
        input.apb_sel = true;
        input.apb_enable = self.access;
        input.apb_write = write;
        input.apb_addr = addr;
        input.apb_wdata = wdata;
        input
    }

    /// After a cycle; false when the sequence is done.
    fn observe(&mut self, input: &In, out: &Out, coverage: &mut Coverage) -> bool {
        let cycle = self.cycle;
        let stalls = self.memory.stalls;
        self.memory.observe(cycle, out.mem_ar_valid, out.mem_ar_addr);
        self.memory.observe_write(cycle, out.mem_aw_valid, out.mem_aw_addr, out.mem_w_data, out.mem_w_strb);
        if self.memory.stalls > stalls {
            coverage.hit("bench: address stalled");
        }
        if input.kernel_done {
            self.kernel_due = None;
        }
        if let Some((read, values)) = &mut self.reading {
            if *read > 0 {
                values.push(out.debug_value);
            }
            *read += 1;
            if values.len() == register_count() {
                self.kernels.last_mut().expect("reading for a kernel").registers = std::mem::take(values);
                self.reading = None;
            }
        }
        if out.kernel_start {
            let latency = self.rng.gen_range(self.kernel_latency.clone());
            let error = self.kernel_errors.get(self.kernels.len()).copied().unwrap_or(0);
            self.kernel_due = Some((cycle + latency.max(1), error));
            self.kernels.push(KernelStart { cycle, op: out.kernel_op, mode: out.kernel_mode, registers: Vec::new() });
            self.reading = Some((0, Vec::new()));
        }
        match self.steps.front().copied() {
            Some(Step::PollReset | Step::PollStopped | Step::Read(_) | Step::Write(..)) if !self.access => self.access = true,
            Some(step @ (Step::PollReset | Step::PollStopped | Step::Read(_) | Step::Write(..))) => {
                self.access = false;
                match step {
                    Step::PollReset if out.apb_rdata & model::RESET_STATUS != 0 => return true,
                    Step::PollStopped if out.apb_rdata & model::RUNNING != 0 => return true,
                    Step::PollStopped => {
                        self.stop_cycle = cycle;
                        self.reads.push(out.apb_rdata);
                    }
                    Step::Read(_) => self.reads.push(out.apb_rdata),
                    Step::Write(model::CMD, value) if value & 1 != 0 => self.start_cycle = cycle,
                    _ => {}
                }
                self.steps.pop_front();
                if self.steps.front() == Some(&Step::Done) {
                    self.irq_at_end = out.irq;
                }
            }
            Some(Step::WaitIrq) if out.irq => {
                self.steps.pop_front();
            }
            Some(Step::Done) => return false,
            _ => {}
        }
        true
    }
}

/// A cycle limit for `job` well above any run that does not hang: per command word the
/// register-file read of a kernel, the slowest fetch and kernel answer; per byte of the data
/// placed in memory (what a stream's DMAs may copy: the legacy core's weights) a read and a
/// write at the slowest memory. Without the second term a legacy-core layer with many weights
/// at slow random timing passed the limit and was reported as a hang
/// (`vela_streams_set_the_registers_each_kernel_sees`, SEED=8353268407460261675).
pub fn cycle_limit(job: &Job) -> u64 {
    let latency = job.timing.latency.end() + job.kernel_latency.end();
    let data: u64 = job.data.iter().map(|(_, bytes)| bytes.len() as u64).sum();
    2_000 + job.stream.len() as u64 * (register_count() as u64 + 2 * latency + 40) + data * (2 * latency + 4)
}

/// Runs `job` on the Verilated front end and its model in lock step (seed `run.seed`; the
/// cycle limit is [`cycle_limit`] unless `run.cycles` is larger). `None` when the driver's
/// sequence did not finish within the limit: the NPU hung.
pub fn lockstep(run: &Run, job: &Job) -> Result<(Option<Outcome>, Coverage), Box<Mismatch<Dut>>> {
    let bench = RefCell::new(Bench::new(job, run.seed).unwrap_or_else(|e| panic!("bad job: {e}")));
    let run = Run { cycles: run.cycles.max(cycle_limit(job)), ..run.clone() };
    let mut finished = false;
    let coverage = drive::<Dut>(&run, |rng, cycle| bench.borrow_mut().input(rng, cycle), |input, out, coverage| {
        let go_on = bench.borrow_mut().observe(input, out, coverage);
        finished = !go_on;
        go_on
    })?;
    let b = bench.into_inner();
    if !finished {
        return Ok((None, coverage));
    }
    let probes = job.probes.len();
    Ok((
        Some(Outcome {
            kernels: b.kernels,
            probed: b.reads[..probes].to_vec(),
            status: b.reads[probes],
            qread: b.reads[probes + 1],
            status_cleared: b.reads[probes + 2],
            irq_cleared: b.irq_at_end,
            cycles: b.stop_cycle - b.start_cycle,
            memory: b.memory.bytes().to_vec(),
            written: b.memory.written,
        }),
        coverage,
    ))
}
