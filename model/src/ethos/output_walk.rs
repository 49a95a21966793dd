//! The convolution datapath's output walk (RTL `hdl/src/ethos/output_walk.rs`, whose comment
//! has the timing; TRM §2, digest §2): an OFM group's last tap (stage 1) accumulates in stage
//! 2; in stage 3 (`load`) the drain bank (`conv_mac.rs`) takes the accumulators and the walk
//! the group's position, then it reads step `k` (the block's OFM row) a cycle, 2 cycles (bank
//! entries 16k + i for output lane i, `output_lanes.rs`: lanes 0-7 the row's left position,
//! 8-15 its right one), while the traversal walks the next group. `wait`: a last tap now
//! would load the bank before step 1 is read (only a load two cycles away, `pend2`).
//! `finishing`: step 1 now and nothing pending.

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
    pub out_valid2: u16,
    pub ofm2: (u32, u32, u32),
}

impl OutputWalk {
    pub fn wait(&self) -> bool {
        self.pend2
    }

    pub fn finishing(&self) -> bool {
        self.busy && self.k == 1 && !self.pend2 && !self.pend3
    }

    pub fn load(&self) -> bool {
        self.pend3
    }

    /// Stage 1: the lanes (bit i) of step `k` inside the OFM (`height`, `width`, `depth`):
    /// lane i at (row k, column i / 8, channel 8·og + i % 8) of the block; and lane 0's
    /// channel (12 bits, as the RTL's).
    pub fn entry(&self, height: u16, width: u16, depth: u16) -> (u16, u32) {
        let (y, x, og) = self.active;
        let channel = og << 3;
        let row = self.k == 0 || y + 1 < u32::from(height);
        let col1 = x + 1 < u32::from(width);
        let inside = |i: u32| self.busy && row && (i < 8 || col1) && channel + i % 8 < u32::from(depth);
        let lanes = (0..16).filter(|&i| inside(i)).fold(0, |m, i| m | 1 << i);
        (lanes, channel & 0xFFF)
    }

    /// One clock edge not held: `restart` (CHECK), the issued last tap of the group at `at`;
    /// `traverse`: the traversal advances too (else only the walk: the pending group and the
    /// load wait).
    pub fn clock(&mut self, restart: bool, issue_last: Option<Position>, entry: (u16, u32), traverse: bool) {
        let (y, x, _) = self.active;
        self.out_valid2 = entry.0;
        self.ofm2 = ((y + self.k) & 0xFFF, x & 0xFFF, entry.1 & 0xFFF);
        if self.busy {
            self.busy = self.k != 1;
            self.k ^= 1;
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
