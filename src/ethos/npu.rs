//! The test bench of the Ethos-U65 NPU top (`npu_hdl::ethos::Npu`: command front end and
//! elementwise unit on one memory port): it loads a Vela-compiled model's memory image
//! ([`crate::ethos::executor::Memory::load`]) and command stream into the testbench memory
//! ([`super::memory::Memory`]), plays the driver's sequence over APB (wait for the reset clear,
//! BASEPs, QBASE, QSIZE, CMD.transition_to_running, wait for the IRQ, read STATUS), and runs
//! the Verilated RTL and the model in lock step (`npu_cosim::lockstep`).
use super::executor::Memory as Image;
use super::memory::{Memory, Timing};
use npu_cosim::lockstep::{drive, Coverage, Mismatch, Run};
use npu_cosim::tops::ethos_npu::EthosNpu as Dut;
use npu_model::ethos::command_front_end::{BASEP0, CMD, QBASE0, QBASE1, QSIZE, RESET_STATUS, RUNNING, STATUS};
use npu_model::ethos::npu::{In, Out};
use std::collections::VecDeque;

/// What the driver saw: STATUS once the NPU stopped, the memory after the run, every byte
/// address written, and the cycles from the start to the STATUS read that saw it stopped.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: u32,
    pub memory: Vec<u8>,
    pub written: Vec<u64>,
    pub cycles: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    PollReset,
    Write(u16, u32),
    WaitIrq,
    PollStopped,
}

/// Runs `stream` over `image` (its bytes at address 0, its region bases the BASEPs; the stream
/// after it at a 16-byte boundary) on the NPU and its model in lock step, the memory of
/// `timing`. `None` when the driver's sequence did not finish within `run.cycles`: a hang.
pub fn lockstep(run: &Run, image: &Image, stream: &[u32], timing: Timing) -> Result<(Option<Outcome>, Coverage), Box<Mismatch<Dut>>> {
    let qbase = (image.bytes.len() as u64).next_multiple_of(16);
    let mut memory = Memory::new(qbase as usize + 4 * stream.len() + 64, timing, run.seed);
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
    let (access, mut start, mut status) = (std::cell::Cell::new(false), 0, None);
    let memory = std::cell::RefCell::new(memory);
    let steps = std::cell::RefCell::new(steps);
    let mut cycles = 0;
    let coverage = drive::<Dut>(
        run,
        |_, cycle| {
            let mut memory = memory.borrow_mut();
            let steps = steps.borrow();
            let (mem_ar_ready, data) = memory.read_channel(cycle);
            let (mem_aw_ready, response) = memory.write_channel(cycle);
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
            let (write, addr, wdata) = match steps.front() {
                Some(Step::PollReset | Step::PollStopped) => (false, STATUS, 0),
                Some(&Step::Write(addr, value)) => (true, addr, value),
                _ => return input,
            };
            (input.apb_sel, input.apb_enable, input.apb_write, input.apb_addr, input.apb_wdata) = (true, access.get(), write, addr, wdata);
            input
        },
        |_, out: &Out, coverage| {
            let mut memory = memory.borrow_mut();
            let mut steps = steps.borrow_mut();
            cycles += 1;
            let cycle = cycles - 1;
            let stalls = memory.stalls;
            memory.observe(cycle, out.mem_ar_valid, out.mem_ar_addr);
            memory.observe_write(cycle, out.mem_aw_valid, out.mem_aw_addr, out.mem_w_data, out.mem_w_strb);
            if memory.stalls > stalls {
                coverage.hit("bench: address stalled");
            }
            match steps.front().copied() {
                Some(Step::WaitIrq) => {
                    if out.irq {
                        steps.pop_front();
                    }
                }
                Some(_) if !access.get() => access.set(true),
                Some(step) => {
                    access.set(false);
                    match step {
                        Step::PollReset if out.apb_rdata & RESET_STATUS != 0 => return true,
                        Step::PollStopped if out.apb_rdata & RUNNING != 0 => return true,
                        Step::PollStopped => status = Some((out.apb_rdata, cycle - start)),
                        Step::Write(CMD, _) => start = cycle,
                        _ => {}
                    }
                    steps.pop_front();
                }
                None => return false,
            }
            !steps.is_empty()
        },
    )?;
    let memory = memory.into_inner();
    Ok((status.map(|(status, cycles)| Outcome { status, memory: memory.bytes().to_vec(), written: memory.written, cycles }), coverage))
}
