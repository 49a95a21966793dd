//! The convolution unit's OFM queue and its write channel (RTL `hdl/src/ethos/ofm_queue.rs`):
//! [`QUEUE`] entries, each one cycle of the datapath's OFM port (up to 16 values), each value
//! written as one strobed byte at the OFM feature map's address.
use super::*;

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
                let a = address(&self.regs.maps[2], e.y, e.x + column, (e.c + channel) & 0xFFFF);
                self.w_addr = a & !7;
                self.w_strb = 1 << (a & 7);
                self.w_data = u64::from_le_bytes([e.data[usize::from(self.q_at)]; 8]);
                self.wr = 1;
                if self.q_at & 7 == e.n_m1 && (self.q_at >= 8 || !e.second) {
                    self.q_head = (self.q_head + 1) % QUEUE as u8;
                    self.q_at = 0;
                    count -= 1;
                } else if self.q_at & 7 == e.n_m1 {
                    self.q_at = 8;
                    self.events.push("OFM entry: second column");
                } else {
                    self.q_at += 1;
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
