//! The test bench's memory behind the Ethos-U65 NPU's memory master port (docs/ethos.md,
//! "Memory port"): a byte memory of a given size that answers 64-bit reads in order after a
//! random latency, takes 64-bit writes with byte strobes (the write response after a random
//! latency), stalls address handshakes at random, answers an access beyond its size with an
//! error, and records every byte written. The one implementation the lock-step tests use (and `npu ethos run` will).
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::collections::VecDeque;
use std::ops::RangeInclusive;

/// How the memory answers: the probability that `ar_ready` is low in a cycle, and the cycles
/// from an accepted address to its data (at least 1: the data never comes in the cycle the
/// address is taken).
#[derive(Clone, Debug)]
pub struct Timing {
    pub stall: f64,
    pub latency: RangeInclusive<u64>,
}

impl Timing {
    /// Always ready, data the next cycle.
    pub fn fastest() -> Self {
        Self { stall: 0.0, latency: 1..=1 }
    }

    /// A random timing: stalls up to half the cycles, latencies up to 12 cycles.
    pub fn random(rng: &mut impl Rng) -> Self {
        let low = rng.gen_range(1..=4);
        Self { stall: rng.gen_range(0.0..0.5), latency: low..=low + rng.gen_range(0..=8) }
    }
}

/// One read's answer on the R channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadData {
    pub data: u64,
    /// SLVERR/DECERR: the beat is not inside the memory.
    pub error: bool,
}

/// The memory and its read channel.
pub struct Memory {
    bytes: Vec<u8>,
    timing: Timing,
    rng: SmallRng,
    /// Accepted reads, oldest first: aligned address and the cycle its data is due.
    reads: VecDeque<(u64, u64)>,
    ready: bool,
    /// Accepted writes' responses, oldest first: error, and the cycle it is due.
    writes: VecDeque<(bool, u64)>,
    write_ready: bool,
    /// Every byte address written, in order.
    pub written: Vec<u64>,
    /// Counts of what happened, for coverage: stalled cycles, reads, errors.
    pub stalls: u64,
    pub read_beats: u64,
    pub read_errors: u64,
}

impl Memory {
    /// `size` bytes of zeros.
    pub fn new(size: usize, timing: Timing, seed: u64) -> Self {
        Self {
            bytes: vec![0; size],
            timing,
            rng: SmallRng::seed_from_u64(seed),
            reads: VecDeque::new(),
            ready: true,
            writes: VecDeque::new(),
            write_ready: true,
            written: Vec::new(),
            stalls: 0,
            read_beats: 0,
            read_errors: 0,
        }
    }

    /// Copies `data` to `address`, or says why it does not fit.
    pub fn load(&mut self, address: u64, data: &[u8]) -> Result<(), String> {
        let end = address.checked_add(data.len() as u64).filter(|&end| end <= self.bytes.len() as u64);
        match end {
            Some(end) => {
                self.bytes[address as usize..end as usize].copy_from_slice(data);
                Ok(())
            }
            None => Err(format!(
                "{} bytes at {address:#x} do not fit the memory of {} bytes",
                data.len(),
                self.bytes.len()
            )),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The read channel's inputs in `cycle`: `ar_ready`, and the data due now (in order).
    pub fn read_channel(&mut self, cycle: u64) -> (bool, Option<ReadData>) {
        self.ready = !self.rng.gen_bool(self.timing.stall);
        let due = self.reads.front().is_some_and(|&(_, at)| at <= cycle);
        let data = due.then(|| {
            let (address, _) = self.reads.pop_front().unwrap();
            self.read_beats += 1;
            match self.word(address) {
                Some(data) => ReadData { data, error: false },
                None => {
                    self.read_errors += 1;
                    ReadData { data: 0, error: true }
                }
            }
        });
        (self.ready, data)
    }

    /// After `cycle`: an address the NPU presented (`ar_valid`) is taken if the memory was
    /// ready; its data is due after the latency, and after every read before it.
    pub fn observe(&mut self, cycle: u64, ar_valid: bool, ar_addr: u64) {
        if !ar_valid {
            return;
        }
        if !self.ready {
            self.stalls += 1;
            return;
        }
        let latency = self.rng.gen_range(self.timing.latency.clone()).max(1);
        let after_last = self.reads.back().map_or(0, |&(_, at)| at + 1);
        self.reads.push_back((ar_addr, (cycle + latency).max(after_last)));
    }

    /// The write channel's inputs in `cycle`: `aw_ready`, and the response due now (its error).
    pub fn write_channel(&mut self, cycle: u64) -> (bool, Option<bool>) {
        self.write_ready = !self.rng.gen_bool(self.timing.stall);
        let due = self.writes.front().is_some_and(|&(_, at)| at <= cycle);
        (self.write_ready, due.then(|| self.writes.pop_front().unwrap().0))
    }

    /// After `cycle`: a write the NPU presented (`aw_valid` with its data and strobes) is
    /// taken if the memory was ready: the strobed bytes are written (none if the word is not
    /// inside the memory: an error response), the response due after the latency.
    pub fn observe_write(&mut self, cycle: u64, aw_valid: bool, addr: u64, data: u64, strb: u8) {
        if !aw_valid {
            return;
        }
        if !self.write_ready {
            self.stalls += 1;
            return;
        }
        let inside = self.word(addr).is_some();
        if inside {
            for byte in 0..8 {
                if strb >> byte & 1 != 0 {
                    self.bytes[addr as usize + byte] = (data >> (8 * byte)) as u8;
                    self.written.push(addr + byte as u64);
                }
            }
        }
        let latency = self.rng.gen_range(self.timing.latency.clone()).max(1);
        let after_last = self.writes.back().map_or(0, |&(_, at)| at + 1);
        self.writes.push_back((!inside, (cycle + latency).max(after_last)));
    }

    /// The 64-bit little-endian word at aligned `address`, if inside the memory.
    fn word(&self, address: u64) -> Option<u64> {
        let start = usize::try_from(address).ok()?;
        let bytes = self.bytes.get(start..start.checked_add(8)?)?;
        Some(u64::from_le_bytes(bytes.try_into().unwrap()))
    }
}
