//! The test bench's memory behind ScaleNPU's memory master port: byte-addressed, one word
//! (`16·SIZE` bits) per request, with a read channel and a write channel, each with its own
//! random stalls and latency.
//!
//! Protocol (docs/scale.md, "Memory master port and the AXI4 bridge"): a channel takes a
//! request in a cycle where its `req_valid` and `req_ready` are both high; every request gets
//! exactly one response on its own channel (`resp_valid` for one cycle, with read data or as an
//! acknowledgement) at least one cycle later, in the channel's request order; `resp_error` marks
//! an access the memory refuses (outside it, or injected). The channels are independent: a
//! response on one says nothing about the other's order. This maps one to one onto AXI4
//! single-beat bursts (AR/R and AW+W/B) with the unit always ready for R and B.
use npu_model::scale::engine::WORD_BYTES;
use rand::{rngs::SmallRng, Rng};
use std::collections::VecDeque;

/// How a channel answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Probability that the channel's `req_ready` is low in a cycle.
    pub stall: f64,
    /// Latency of a response in cycles, drawn from this range (at least 1).
    pub latency: (u32, u32),
}

impl Timing {
    /// A channel that takes a request every cycle and answers the next.
    pub const IDEAL: Timing = Timing { stall: 0.0, latency: (1, 1) };
}

/// A write request as the unit offers it.
#[derive(Clone, Copy, Debug)]
pub struct Write {
    pub addr: u32,
    pub wdata: u128,
}

#[derive(Clone, Debug)]
struct Pending {
    due: u64,
    data: u128,
    error: bool,
}

/// One channel: its timing, its responses in order, its ready of the cycle.
#[derive(Clone, Debug)]
struct Channel {
    timing: Timing,
    queue: VecDeque<Pending>,
    ready: bool,
}

impl Channel {
    fn new(timing: Timing) -> Self {
        Self { timing, queue: VecDeque::new(), ready: true }
    }

    /// Draws the cycle's ready; the response due now, if any.
    fn drive(&mut self, rng: &mut SmallRng, now: u64) -> Option<Pending> {
        self.ready = !rng.gen_bool(self.timing.stall);
        let answer = self.queue.front().filter(|p| p.due <= now).cloned();
        if answer.is_some() {
            self.queue.pop_front();
        }
        answer
    }

    /// Queues the response to a request taken now.
    fn answer(&mut self, rng: &mut SmallRng, now: u64, data: u128, error: bool) {
        let (lo, hi) = self.timing.latency;
        let latency = u64::from(rng.gen_range(lo.max(1)..=hi.max(lo.max(1))));
        // Responses stay in order: never due before the one ahead.
        let due = (now + latency).max(self.queue.back().map_or(0, |p| p.due));
        self.queue.push_back(Pending { due, data, error });
    }
}

pub struct Memory {
    pub bytes: Vec<u8>,
    read: Channel,
    write: Channel,
    now: u64,
    /// Addresses at which an access answers with an error (fault injection), on either channel.
    pub faulty: Vec<u32>,
    /// Every write taken, in order (address, data).
    pub writes: Vec<(u32, u128)>,
    pub reads: u64,
}

/// The memory's inputs to the unit for one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Response {
    pub rd_req_ready: bool,
    pub rd_valid: bool,
    pub rd_data: u128,
    pub rd_error: bool,
    pub wr_req_ready: bool,
    pub wr_valid: bool,
    pub wr_error: bool,
}

impl Memory {
    /// Both channels answer as `timing` says (each draws its own stalls and latencies).
    pub fn new(size: usize, timing: Timing) -> Self {
        Self::with_timings(size, timing, timing)
    }

    pub fn with_timings(size: usize, read: Timing, write: Timing) -> Self {
        Self { bytes: vec![0; size], read: Channel::new(read), write: Channel::new(write), now: 0, faulty: Vec::new(), writes: Vec::new(), reads: 0 }
    }

    /// Both channels answer from now on as `timing` says (responses already due keep their order).
    pub fn set_timing(&mut self, timing: Timing) {
        self.set_timings(timing, timing);
    }

    pub fn set_timings(&mut self, read: Timing, write: Timing) {
        (self.read.timing, self.write.timing) = (read, write);
    }

    /// The write channel alone answers from now on as `timing` says.
    pub fn set_write_timing(&mut self, timing: Timing) {
        self.write.timing = timing;
    }

    pub fn write_timing(&self) -> Timing {
        self.write.timing
    }

    /// What the memory drives in the coming cycle.
    pub fn drive(&mut self, rng: &mut SmallRng) -> Response {
        let read = self.read.drive(rng, self.now);
        let write = self.write.drive(rng, self.now);
        Response {
            rd_req_ready: self.read.ready,
            rd_valid: read.is_some(),
            rd_data: read.as_ref().map_or(0, |p| p.data),
            rd_error: read.is_some_and(|p| p.error),
            wr_req_ready: self.write.ready,
            wr_valid: write.is_some(),
            wr_error: write.is_some_and(|p| p.error),
        }
    }

    /// The cycle's requests, if the unit offered them (each taken if its channel was ready):
    /// a read at `read`, a write. A write and a read of the same word in one cycle: the read
    /// sees the memory before the write (the unit never reads what it writes in a layer).
    pub fn observe(&mut self, rng: &mut SmallRng, read: Option<u32>, write: Option<Write>) {
        if let (Some(addr), true) = (read, self.read.ready) {
            let at = addr as usize;
            let error = !self.inside(addr) || self.faulty.contains(&addr);
            let mut data = 0;
            if !error {
                let mut le = [0u8; 16];
                le[..WORD_BYTES as usize].copy_from_slice(&self.bytes[at..at + WORD_BYTES as usize]);
                data = u128::from_le_bytes(le);
                self.reads += 1;
            }
            self.read.answer(rng, self.now, data, error);
        }
        if let (Some(w), true) = (write, self.write.ready) {
            let at = w.addr as usize;
            let error = !self.inside(w.addr) || self.faulty.contains(&w.addr);
            if !error {
                self.bytes[at..at + WORD_BYTES as usize].copy_from_slice(&w.wdata.to_le_bytes()[..WORD_BYTES as usize]);
                self.writes.push((w.addr, w.wdata));
            }
            self.write.answer(rng, self.now, 0, error);
        }
        self.now += 1;
    }

    /// A word-aligned word inside the memory.
    fn inside(&self, addr: u32) -> bool {
        addr % WORD_BYTES == 0 && addr as usize + WORD_BYTES as usize <= self.bytes.len()
    }

    /// No response outstanding on either channel.
    pub fn idle(&self) -> bool {
        self.read.queue.is_empty() && self.write.queue.is_empty()
    }
}
