//! The convolution datapath's output walk (RTL `hdl/src/ethos/output_walk.rs`, whose comment
//! has the timing; TRM §2, digest §2): an OFM group's last tap (stage 1) accumulates in stage
//! 2; in stage 3 (`load`) the drain bank (`conv_mac.rs`) takes the accumulators and the walk
//! the group's position, then it reads step `k` = 2p + h a cycle, 8 cycles (bank entries
//! 8p + 4h + i for output lane i, `output_lanes.rs`), while the traversal walks the next
//! group. `wait`: a last tap now would load the bank before step 7 is read. `finishing`: step 7
//! now and nothing pending.

/// A group's position: 2x2 block row, column, OFM group.
pub type Position = (u32, u32, u32);

#[derive(Clone, Debug, Default)]
pub struct OutputWalk {
    pend2: bool,
    pend3: bool,
    pending: Position,
    active: Position,
    busy: bool,
    pub k: u32,
    /// Stage 2: the lanes (bit i) of the step read in the previous cycle inside the OFM, and
    /// lane 0's element.
    pub out_valid2: u8,
    pub ofm2: (u32, u32, u32),
}

impl OutputWalk {
    pub fn wait(&self) -> bool {
        self.pend2 || self.pend3 || (self.busy && self.k < 5)
    }

    pub fn finishing(&self) -> bool {
        self.busy && self.k == 7 && !self.pend2 && !self.pend3
    }

    pub fn load(&self) -> bool {
        self.pend3
    }

    /// Stage 1: the lanes (bit i) of step `k` inside the OFM (`height`, `width`, `depth`), and
    /// lane 0's channel (12 bits, as the RTL's `channel_out`).
    pub fn entry(&self, height: u16, width: u16, depth: u16) -> (u8, u32) {
        let (y, x, og) = self.active;
        let channel = (og << 3) + ((self.k & 1) << 2);
        let inside = (self.k >> 2 & 1 == 0 || y + 1 < u32::from(height)) && (self.k >> 1 & 1 == 0 || x + 1 < u32::from(width));
        let lanes = (0..4).filter(|&i| self.busy && inside && channel + i < u32::from(depth)).fold(0, |m, i| m | 1 << i);
        (lanes, channel & 0xFFF)
    }

    /// One clock edge not held: `restart` (CHECK), the issued last tap of the group at `at`;
    /// `traverse`: the traversal advances too (else only the walk: the pending group and the
    /// load wait).
    pub fn clock(&mut self, restart: bool, issue_last: Option<Position>, entry: (u8, u32), traverse: bool) {
        let (y, x, _) = self.active;
        self.out_valid2 = entry.0;
        self.ofm2 = ((y + (self.k >> 2 & 1)) & 0xFFF, (x + (self.k >> 1 & 1)) & 0xFFF, entry.1 & 0xFFF);
        if self.busy {
            self.busy = self.k != 7;
            self.k = (self.k + 1) & 7;
        }
        if !traverse {
            return;
        }
        if self.pend3 {
            self.busy = true;
            self.k = 0;
            self.active = self.pending;
        }
        if let Some(at) = issue_last {
            self.pending = at;
        }
        self.pend3 = self.pend2 && !restart;
        self.pend2 = issue_last.is_some() && !restart;
        if restart {
            self.busy = false;
            self.k = 0;
        }
    }
}
