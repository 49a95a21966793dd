//! The test bench's memory behind ScaleNPU's memory master port: byte-addressed, one word
//! (`16·SIZE` bits) per request, responses in request order, with random stalls and latency.
//!
//! Protocol (docs/scale.md): a request is taken in a cycle where `mem_req_valid` and
//! `mem_req_ready` are both high; every request, read or write, gets exactly one response
//! (`mem_resp_valid` for one cycle, read data or an acknowledgement) at least one cycle later,
//! in order; `mem_resp_error` marks an access the memory refuses (outside it, or injected).
//! This maps one to one onto AXI4 single-beat bursts with the unit always ready for R and B.
use npu_model::scale::engine::WORD_BYTES;
use rand::{rngs::SmallRng, Rng};
use std::collections::VecDeque;

/// How the memory answers.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Probability that `mem_req_ready` is low in a cycle.
    pub stall: f64,
    /// Latency of a response in cycles, drawn from this range (at least 1).
    pub latency: (u32, u32),
}

impl Timing {
    /// A memory that takes a request every cycle and answers the next.
    pub const IDEAL: Timing = Timing { stall: 0.0, latency: (1, 1) };
}

/// One request as the unit offers it.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub write: bool,
    pub addr: u32,
    pub wdata: u128,
}

#[derive(Clone, Debug)]
struct Pending {
    due: u64,
    data: u128,
    error: bool,
}

pub struct Memory {
    pub bytes: Vec<u8>,
    timing: Timing,
    queue: VecDeque<Pending>,
    now: u64,
    ready: bool,
    /// Addresses at which an access answers with an error (fault injection).
    pub faulty: Vec<u32>,
    /// Every write taken, in order (address, data).
    pub writes: Vec<(u32, u128)>,
    pub reads: u64,
}

/// The memory's inputs to the unit for one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Response {
    pub req_ready: bool,
    pub valid: bool,
    pub data: u128,
    pub error: bool,
}

impl Memory {
    pub fn new(size: usize, timing: Timing) -> Self {
        Self { bytes: vec![0; size], timing, queue: VecDeque::new(), now: 0, ready: true, faulty: Vec::new(), writes: Vec::new(), reads: 0 }
    }

    /// Answers from now on as `timing` says (responses already due keep their order).
    pub fn set_timing(&mut self, timing: Timing) {
        self.timing = timing;
    }

    /// What the memory drives in the coming cycle.
    pub fn drive(&mut self, rng: &mut SmallRng) -> Response {
        self.ready = !rng.gen_bool(self.timing.stall);
        let answer = self.queue.front().filter(|p| p.due <= self.now).cloned();
        if answer.is_some() {
            self.queue.pop_front();
        }
        let Pending { data, error, .. } = answer.clone().unwrap_or(Pending { due: 0, data: 0, error: false });
        Response { req_ready: self.ready, valid: answer.is_some(), data, error }
    }

    /// The cycle's request, if the unit offered one (taken if the memory was ready).
    pub fn observe(&mut self, rng: &mut SmallRng, request: Option<Request>) {
        if let (Some(r), true) = (request, self.ready) {
            let (lo, hi) = self.timing.latency;
            let latency = u64::from(rng.gen_range(lo.max(1)..=hi.max(lo.max(1))));
            // Responses stay in order: never due before the one ahead.
            let due = (self.now + latency).max(self.queue.back().map_or(0, |p| p.due));
            let at = r.addr as usize;
            let inside = r.addr % WORD_BYTES == 0 && at + WORD_BYTES as usize <= self.bytes.len();
            let error = !inside || self.faulty.contains(&r.addr);
            let mut data = 0;
            if !error {
                let word = &mut self.bytes[at..at + WORD_BYTES as usize];
                if r.write {
                    word.copy_from_slice(&r.wdata.to_le_bytes()[..WORD_BYTES as usize]);
                    self.writes.push((r.addr, r.wdata));
                } else {
                    let mut le = [0u8; 16];
                    le[..WORD_BYTES as usize].copy_from_slice(word);
                    data = u128::from_le_bytes(le);
                    self.reads += 1;
                }
            }
            self.queue.push_back(Pending { due, data, error });
        }
        self.now += 1;
    }

    pub fn idle(&self) -> bool {
        self.queue.is_empty()
    }
}
