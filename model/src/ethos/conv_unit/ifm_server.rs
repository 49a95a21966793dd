//! The convolution unit's IFM server (RTL `hdl/src/ethos/ifm_server.rs`, behind
//! `hdl/src/ethos/ifm_upscale.rs`): per position of the datapath's four IFM read ports, the
//! one or two words of the group's bytes read, gathered and released to the datapath at once.
//! The same for a tap's 2x2 block and a packed depthwise cycle's four elements of their own
//! rows and columns (docs/ethos.md, "Convolution unit", packed depthwise).
use super::*;

impl ConvUnit {

    /// Position `p`'s read: the group's byte address, its byte count, whether it reads, whether
    /// it is an inserted zero (the RTL's `ifm_upscale.rs`: with IFM_UPSCALE 1 or 2 the datapath
    /// walks the IFM upscaled 2x2 and position (y, x) reads IFM element (y / 2, x / 2); with 2
    /// a position at an odd row or column reads nothing and gathers the zero point).
    pub(super) fn ifm_read(&self, o: &dp::Out, p: usize) -> (u64, u64, bool, bool) {
        let r = o.ifm_reads()[p];
        let mode = self.p(scalar::IFM_UPSCALE) & 3;
        let inserted = mode == 2 && (r.y | r.x) & 1 == 1;
        let (y, x) = if mode == 0 { (r.y, r.x) } else { (r.y >> 1, r.x >> 1) };
        let a = address(&self.regs.maps[0], y, x, r.group << 3);
        let depth = u64::from(self.p(scalar::IFM_DEPTH_M1)) + 1;
        let n = depth.saturating_sub(u64::from(r.group) << 3).min(8);
        (a, n, r.read && !inserted, r.read && inserted)
    }

    pub(super) fn next_position(&mut self) {
        if self.ifs_p == 3 {
            self.ifs_ready = true;
        } else {
            self.ifs_p += 1;
        }
    }

    /// A word of the position served came in (`data`): the first of a group across two
    /// words, or the position's last.
    pub(super) fn ifm_response(&mut self, o: &dp::Out, data: u64) {
                let p = usize::from(self.ifs_p);
                let (a, n, _, _) = self.ifm_read(&o, p);
                let off = a & 7;
                if !self.ifs_word {
                    self.pending[p] = data >> (8 * off);
                    if off + n > 8 {
                        self.ifs_word = true;
                        self.events.push("IFM group across two words");
                    } else {
                        self.next_position();
                    }
                } else {
                    self.pending[p] |= data << (8 * (8 - off));
                    self.ifs_word = false;
                    self.next_position();
                }
    }

    /// The read channel is free for the server: the position served asks for its word, or
    /// is passed (an inserted zero gathered as the zero point's word, a position not read).
    pub(super) fn ifm_request(&mut self, o: &dp::Out) {
        let p = usize::from(self.ifs_p);
        let (a, _, read, zero) = self.ifm_read(&o, p);
        if read {
            self.rd = 1;
            self.rd_addr = ((a & !7) + if self.ifs_word { 8 } else { 0 }) & MASK40;
            self.rd_for = FOR_IFM;
            match self.p(scalar::IFM_UPSCALE) {
                1 => self.events.push("IFM upscale: nearest, element read"),
                2 => self.events.push("IFM upscale: zeros, element read"),
                _ => {}
            }
        } else if zero {
            self.pending[p] = u64::from_le_bytes([self.p(scalar::IFM_ZERO_POINT) as u8; 8]);
            self.next_position();
            self.events.push("IFM upscale: zero inserted");
        } else {
            self.next_position();
            self.events.push("IFM position not read");
        }
    }

    /// The packed depthwise walk as the NPU runs it (coverage, required by `ethos_npu`'s conv
    /// networks): the datapath's packing events of this cycle under names of the NPU's, and
    /// how the server met a packed cycle the datapath issued in it (`tap_reads`: it read a
    /// position; `release`: the server released it).
    pub(super) fn packing_events(&mut self, o: &dp::Out, tap_reads: bool, release: bool) {
        let seen = self.datapath.events();
        let issued = seen.iter().any(|e| matches!(*e, "fresh block" | "reuse block"));
        for e in seen {
            match *e {
                "packed depthwise cycle" => self.events.push("packed depthwise cycle in the NPU"),
                "padding in a packed cycle" => self.events.push("padding in a packed cycle in the NPU"),
                "tap-by-tap block of a packed layer" => self.events.push("tap-by-tap block of a packed layer in the NPU"),
                "fresh block" if release => self.events.push("packed fresh cycle served"),
                "reuse block" if release => self.events.push("packed reuse cycle served"),
                _ => {}
            }
        }
        if !issued {
            return;
        }
        if !tap_reads {
            self.events.push("packed cycle without reads");
        } else if o.ifm_reads().iter().any(|r| !r.read) {
            self.events.push("packed cycle with a port not read");
        }
        if o.state == dp::STATE_DECODE {
            self.events.push("packed cycle in DECODE");
        }
        if self.p(scalar::IFM_UPSCALE) != 0 {
            self.events.push("packed cycle, IFM upscale");
        }
    }
}
