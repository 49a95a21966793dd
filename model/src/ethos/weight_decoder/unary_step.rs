//! The weight decoder model's unary step (RTL `hdl/src/ethos/unary_step.rs`; TRM §4.7, digest
//! `shared/spec/ethos-u65.md` §1.6): a chunk's unary part read as up to 12 weight and 12 zero-run
//! quotients into a quotient bank (the RTL's `quotient_banks.rs`), and in the same cycle the
//! first group of the remainders that follow it (`remainder_group.rs`).
use super::*;

impl WeightDecoder {
    /// One chunk's unary part (§1.6): `wunary0`, `zunary`, `wunary1`; and in the same cycle
    /// the first group of the remainders that follow it (the chunk before's), if their bits
    /// are buffered and their queue has room (else the `Remainder` step takes them).
    pub(super) fn unary(&mut self, queued: (usize, usize)) -> Result<Step, DecodeError> {
        let s = &self.slice;
        let c = &self.chunks;
        let balance = c.wq_i as i32 - c.zq_i as i32;
        let w_en = (balance < 8 || !s.alternating()) && c.wq_i < s.w_cnt();
        let z_en = balance >= 0 && s.alternating() && c.zq_i < s.z_cnt();
        let w_unary = w_en && !s.uncompressed();
        let zunary_len = if s.zdiv < 3 { 12 } else { 8 };
        let wunary0 = if w_unary { self.bits(0, 12) } else { 0 };
        let zunary_at = if w_unary { 12 } else { 0 };
        let wunary1_at = zunary_at + if z_en { zunary_len } else { 0 };
        let need = wunary1_at + wunary0.count_ones();
        if !self.need(need)? {
            return Ok(Step::Wait);
        }
        let zunary = self.bits(zunary_at, zunary_len);
        let wunary1 = self.bits(wunary1_at, 12);
        let (w_cnt, z_cnt, wtrunc, unc) = (s.w_cnt(), s.z_cnt(), s.wtrunc, s.uncompressed());
        let max_zq = MAX_ZERO_RUN >> s.zdiv;
        let bank = c.bank;
        let c = &mut self.chunks;
        let (mut wq_i, mut zq_i, mut wq, mut zq) = (c.wq_i, c.zq_i, c.wq, c.zq);
        let (carried_w, carried_z) = (wq > 0, zq > 0);
        if w_unary {
            let mut j = 0;
            for i in 0..CHUNK {
                if wq_i >= w_cnt {
                    break;
                }
                let mut step = 0;
                if (wunary0 >> i) & 1 == 1 {
                    step = 1 + ((wunary1 >> j) & 1);
                    j += 1;
                }
                wq += step;
                if wq > 31 {
                    return Err(DecodeError::Quotient);
                }
                if step < 2 || wtrunc {
                    self.wbank[bank][(wq_i - c.wq_i) as usize] = wq;
                    wq_i += 1;
                    wq = 0;
                }
            }
        } else if w_en && unc {
            let n = (w_cnt - wq_i).min(if s.ubits() <= 5 { 12 } else { 8 });
            self.wbank[bank][..n as usize].fill(0);
            wq_i += n;
        }
        if z_en {
            for i in 0..zunary_len {
                if zq_i >= z_cnt {
                    break;
                }
                if (zunary >> i) & 1 == 1 {
                    zq += 1;
                    if zq > max_zq {
                        return Err(DecodeError::ZeroRun);
                    }
                } else {
                    self.zbank[bank][(zq_i - c.zq_i) as usize] = zq;
                    zq_i += 1;
                    zq = 0;
                }
            }
        }
        let c = &mut self.chunks;
        c.w_due = c.wq_i;
        c.z_due = c.zq_i;
        (c.wq_i, c.zq_i, c.wq, c.zq) = (wq_i, zq_i, wq, zq);
        c.more = w_en || z_en;
        c.bank ^= 1;
        c.w_slot = 0;
        c.z_slot = 0;
        let owed = c.wr_i < c.w_due || c.zr_i < c.z_due;
        self.state = if owed {
            State::Remainder
        } else if c.more {
            State::Unary
        } else {
            State::Header
        };
        let mut consumed = need;
        if owed {
            if let Some(bits) = self.remainder_group(need, queued)? {
                consumed += bits;
                self.event("unary part with remainders");
            } else {
                self.event("unary part alone, its remainders not buffered or no room");
            }
        }
        self.event(match (w_en, z_en) {
            (true, true) => "chunk with weights and zero runs",
            (true, false) if self.slice.alternating() => "chunk with weights only (balance < 0)",
            (true, false) => "chunk with weights",
            (false, true) => "chunk with zero runs only (balance >= 8)",
            (false, false) => "last chunk (remainders only)",
        });
        if (carried_w && w_unary) || wq > 0 {
            self.event("weight quotient across chunks");
        }
        if (carried_z && z_en) || zq > 0 {
            self.event("zero run across chunks");
        }
        Ok(Step::Consume(consumed))
    }
}
