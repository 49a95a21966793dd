//! The weight decoder model's remainder steps (RTL `hdl/src/ethos/remainder_group.rs`; TRM §4.7,
//! digest `shared/spec/ethos-u65.md` §1.3-1.6): the group of up to 4 remainders of the chunk
//! before, weights first, then zero runs, each weight's index from its quotient (the quotient
//! banks, the RTL's `quotient_banks.rs`) and its field, its value from the palette or direct, and
//! the finished values and runs pushed into the two queues (the RTL's `weight_queues.rs`).
use super::*;

impl Slice {
    /// The signed weight of index `idx` (§1.3), or the fault.
    fn value(&self, idx: u32) -> Result<i16, DecodeError> {
        let raw = if idx < self.palsize {
            self.palette[idx as usize]
        } else {
            let tmp = idx - self.palsize + self.dirofs;
            if tmp > 511 {
                return Err(DecodeError::Value);
            }
            tmp
        };
        let magnitude = (raw >> 1) as i16;
        Ok(if raw & 1 == 1 { -magnitude } else { magnitude })
    }
}

impl WeightDecoder {
    /// Up to 4 remainders of the previous chunk: weights first, then zero runs (§1.6).
    pub(super) fn remainder(&mut self, queued: (usize, usize)) -> Result<Step, DecodeError> {
        let c = &self.chunks;
        let bits = if c.wr_i < c.w_due {
            (c.w_due - c.wr_i).min(4) * self.slice.wremain_bits()
        } else {
            (c.z_due - c.zr_i).min(4) * self.slice.zdiv
        };
        if !self.need(bits)? {
            return Ok(Step::Wait);
        }
        Ok(match self.remainder_group(0, queued)? {
            Some(bits) => Step::Consume(bits),
            None => Step::Wait,
        })
    }

    /// The next group of up to 4 remainders, `at` bits into the buffer: the bits it takes,
    /// or `None` if they are not all buffered or their queue has no room for 4.
    pub(super) fn remainder_group(&mut self, at: u32, (weights, zero_runs): (usize, usize)) -> Result<Option<u32>, DecodeError> {
        let s = &self.slice;
        let c = &self.chunks;
        // U(n) filled the other bank; this phase finishes chunk n-1, in `bank`.
        let bank = c.bank;
        let consumed = if c.wr_i < c.w_due {
            let k = (c.w_due - c.wr_i).min(4);
            let bits = s.wremain_bits();
            if self.fill < at + k * bits || weights > QUEUE_DEPTH - LANES {
                return Ok(None);
            }
            for j in 0..k {
                let rem = self.bits(at + j * bits, bits);
                let idx = if s.uncompressed() { rem } else { (self.wbank[bank][c.w_slot + j as usize] << s.wdiv) | rem };
                if idx > 511 {
                    return Err(DecodeError::Index);
                }
                self.weights.push_back((s.value(idx)?, s.alternating()));
            }
            let c = &mut self.chunks;
            c.wr_i += k;
            c.w_slot += k as usize;
            self.event("weight remainders");
            k * bits
        } else {
            let k = (c.z_due - c.zr_i).min(4);
            if self.fill < at + k * s.zdiv || zero_runs > QUEUE_DEPTH - LANES {
                return Ok(None);
            }
            for j in 0..k {
                let run = (self.zbank[bank][c.z_slot + j as usize] << s.zdiv) | self.bits(at + j * s.zdiv, s.zdiv);
                self.zero_runs.push_back((run, s.newpal && c.zr_i + j == 0));
            }
            let c = &mut self.chunks;
            c.zr_i += k;
            c.z_slot += k as usize;
            self.event("zero-run remainders");
            k * self.slice.zdiv
        };
        let c = &self.chunks;
        self.state = if c.wr_i < c.w_due || c.zr_i < c.z_due {
            State::Remainder
        } else if c.more {
            State::Unary
        } else {
            State::Header
        };
        Ok(Some(consumed))
    }
}
