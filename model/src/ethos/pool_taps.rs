//! The pool's tap walk and drain (RTL `hdl/src/ethos/pool_taps.rs`, whose comment has the
//! timing and the decisions; issue 19): a part of the [`super::Elementwise`] model (a child
//! module, for the unit's fields). A tap's word counts in the 8 lanes as it comes; the walk
//! steps as a tap's read is taken, so that WAIT_A offers the next tap's read as the data come;
//! after a word's last tap its lanes go to the drain, which hands one lane a cycle to the OFM
//! write buffer beside the next word's taps.
use super::{datapath, memory, scalar, state, Elementwise, In};

/// A pool's word in the drain: its lanes' max or sum, the taps inside, the OFM byte address of
/// lane 0, the lane it offers next and its last lane.
#[derive(Clone, Copy, Debug)]
pub(super) struct Drain {
    acc: [i32; 8],
    count: u32,
    addr: u64,
    lane: u8,
    last: u8,
}

impl Elementwise {
    /// A pool's tap took its IFM `word` (shifted so that the tap's byte is lane 0): it counts
    /// in every lane as it comes (issue 19: no cycle of its own), then the next tap.
    pub(super) fn tap_taken(&mut self, word: u64) {
        self.accumulate(word);
        self.next_tap();
    }

    fn accumulate(&mut self, word: u64) {
        datapath::accumulate_lanes(&self.regs, self.mode, &mut self.acc, self.count, word);
        self.count += 1;
    }

    /// The tap is the word's last.
    fn last_tap(&self) -> bool {
        self.kx == self.param(scalar::KERNEL_WIDTH_M1) && self.ky == self.param(scalar::KERNEL_HEIGHT_M1)
    }

    /// The walk's next tap, row by row (after the last the RTL's registers wrap as here; the
    /// word's end starts them afresh).
    fn step_tap(&mut self) {
        let (row_end, last_row) = (self.kx == self.param(scalar::KERNEL_WIDTH_M1), self.ky == self.param(scalar::KERNEL_HEIGHT_M1));
        self.kx = if row_end { 0 } else { self.kx + 1 };
        self.ky += u16::from(row_end && !last_row);
    }

    /// The pool's next tap (READ_A: the tap from the cache or in the padding); after the last,
    /// [`Self::word_end`].
    pub(super) fn next_tap(&mut self) {
        let last = self.last_tap();
        self.step_tap();
        self.state = state::READ_A;
        if last {
            self.word_end();
        }
    }

    /// The tap's read is taken: the walk steps at once, keeping whether the read in flight is
    /// the word's last (issue 19: WAIT_A offers the next tap's read as this one's data come).
    pub(super) fn tap_issued(&mut self) {
        self.flight_last = self.last_tap();
        self.step_tap();
    }

    /// The read a pool's WAIT_A (the caller's state) offers while it waits, granted as the
    /// data come without error (the arbiter, `npu.rs`): the next tap's IFM address, when the
    /// read in flight is not the word's last, the tap is inside and not in the word that comes
    /// (the cache has that word after this read: READ_A takes it).
    pub(super) fn next_read(&self) -> Option<u64> {
        let offered = self.pool && !self.flight_last && self.tap().2;
        Some(self.ifm_address()).filter(|a| offered && a & !7 != self.a_addr & !7)
    }

    /// WAIT_A's tap word came (no error): it counts; after the word's last tap the word ends,
    /// else the next tap's read offered in this cycle ([`Self::next_read`]) keeps WAIT_A when
    /// taken (an inside tap a cycle; the arbiter grants it as this read completes, `npu.rs`),
    /// else READ_A takes the next tap.
    pub(super) fn tap_data(&mut self, word: u64, i: &In) {
        self.accumulate(word);
        self.state = state::READ_A;
        if self.flight_last {
            self.word_end();
            return;
        }
        if let Some(addr) = self.next_read().filter(|&a| !self.out.conflict(a) && !self.out.error) {
            self.events.push("pool: next tap's read offered while the data come");
            if i.mem_ar_ready {
                self.a_addr = addr;
                self.tap_issued();
                self.state = state::WAIT_A;
            }
        }
    }

    /// A pool's word has its taps: its lanes go to the drain when it is free (it was empty or
    /// took its last lane at this edge), the taps start afresh and the walk goes to the next
    /// word (after the last, FLUSH); else CALC waits for the drain (issue 19).
    pub(super) fn word_end(&mut self) {
        if self.drain.is_some() {
            self.state = state::CALC;
            self.events.push("pool: word waits for the drain");
            return;
        }
        let lanes = memory::word_lanes(&self.regs);
        let last = if lanes { self.param(scalar::OFM_DEPTH_M1).saturating_sub(self.c).min(7) as u8 } else { 0 };
        if lanes && last != 7 {
            self.events.push("pool: last lanes of a partial word");
        }
        self.drain = Some(Drain { acc: self.acc, count: self.count, addr: self.ofm_address(), lane: 0, last });
        (self.ky, self.kx, self.acc, self.count) = (0, 0, [0; 8], 0);
        self.events.push("pool: word to the drain");
        self.advance();
    }

    /// The drain's byte at this edge (before the state machine's): its OFM address and byte
    /// when the write buffer takes it (none after an error), the drain at its next lane.
    pub(super) fn drain_step(&mut self) -> Option<(u64, u8)> {
        let on = self.drain.is_some() && self.error == 0;
        self.drain_busy = on && !self.out.error;
        let d = self.drain.as_mut().filter(|_| on)?;
        let addr = d.addr + u64::from(d.lane);
        if self.out.error || !self.out.can_take(addr) {
            return None;
        }
        let v = datapath::pool_value(&self.regs, self.mode, d.acc[usize::from(d.lane)], d.count);
        if d.lane == d.last {
            self.drain = None;
        } else {
            d.lane += 1;
            self.events.push("pool: next lane of the word");
        }
        if matches!(self.state, state::READ_A | state::WAIT_A) {
            self.events.push("pool: drain beside the taps");
        }
        Some((addr, v))
    }
}
