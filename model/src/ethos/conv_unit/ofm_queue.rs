//! The convolution unit's OFM queue and its write channel (RTL `hdl/src/ethos/ofm_queue.rs`):
//! [`QUEUE`] entries, each one cycle of the datapath's OFM port (up to 16 values), a column's
//! values written as strobed 64-bit words where its channels are contiguous bytes (NHWC with
//! STRIDE_C 1, NHCWB16 within a brick: one word, or two across an 8-byte boundary), else one
//! strobed byte a value, at the OFM feature map's addresses.
use super::*;
use crate::ethos::feature_map::{brick, contiguous};

impl ConvUnit {
    /// The write channel, then the datapath's OFM port into the queue (`ok`: no error at the
    /// cycle's start; `running`: in RUN).
    pub(super) fn ofm_step(&mut self, i: &In, o: &dp::Out, ok: bool, running: bool) {
        let mut count = self.q_count;
        match self.wr {
            1 if i.mem_aw_ready => self.wr = 2,
            2 if i.mem_b_valid => {
                self.wr = 0;
                if i.mem_b_error {
                    // Over a read error of the same cycle (the RTL's error register at the
                    // cycle's start).
                    if ok {
                        self.error = ERROR_OFM;
                    }
                    self.events.push("write error");
                }
            }
            0 if ok && count > 0 => {
                let e = self.queue[usize::from(self.q_head)];
                let (column, channel) = (u16::from(self.q_at >> 3), u16::from(self.q_at & 7));
                let map = &self.regs.maps[2];
                let a = address(map, e.y, e.x + column, (e.c + channel) & 0xFFFF);
                let off = (a & 7) as u8;
                // The RTL's `word`: NHWC with STRIDE_C 1, or NHCWB16 with the channels in one
                // brick (the map's layout as the shared feature map tells it).
                let word = if brick(map) { (e.c & 15) + u16::from(e.n_m1) <= 15 } else { contiguous(map) };
                let rem = e.n_m1 - self.q_at % 8;
                let km1 = if word { rem.min(7 - off) } else { 0 };
                self.w_addr = a & !7;
                self.w_strb = (0xFF >> (7 - km1)) << off;
                self.w_data = ((u128::from_le_bytes(e.data) >> (8 * u32::from(self.q_at))) as u64) << (8 * off);
                self.wr = 1;
                if km1 == 7 {
                    self.events.push("OFM word write of 8 bytes");
                }
                if word && channel == 0 && km1 < rem {
                    self.events.push("OFM column split over two words");
                }
                if !word && rem > 0 {
                    self.events.push("OFM byte writes: channels not contiguous");
                }
                if km1 == rem && (self.q_at >= 8 || !e.second) {
                    self.q_head = (self.q_head + 1) % QUEUE as u8;
                    self.q_at = 0;
                    count -= 1;
                } else if km1 == rem {
                    self.q_at = 8;
                    self.events.push("OFM entry: second column");
                } else {
                    self.q_at += km1 + 1;
                    self.events.push("OFM entry: next lane");
                }
            }
            _ => {}
        }
        if o.ofm_valid & 1 == 1 && running {
            let tail = (usize::from(self.q_head) + usize::from(count)) % QUEUE;
            let n_m1 = (1..8).filter(|l| o.ofm_valid >> l & 1 == 1).max().unwrap_or(0);
            let data = o.ofm_data.to_le_bytes();
            let second = o.ofm_valid >> 8 & 1 == 1;
            self.queue[tail] = Ofm { y: o.ofm_y, x: o.ofm_x, c: o.ofm_channel, n_m1, second, data };
            count += 1;
            if count as usize == QUEUE - 3 {
                self.events.push("OFM queue at its limit");
                if o.ofm_valid >> 8 & 1 == 1 {
                    self.events.push("OFM queue at its limit, both columns arriving");
                }
                if o.ofm_valid == 0xFFFF {
                    self.events.push("OFM queue at its limit, 16 lanes arriving");
                }
            }
        }
        self.q_count = count;
    }
}
