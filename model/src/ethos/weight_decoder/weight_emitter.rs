//! The weight decoder model's beat emitter (RTL `hdl/src/ethos/weight_emitter.rs`; TRM §4.7,
//! digest `shared/spec/ethos-u65.md` §1.6): the next output beat of up to 4 weights from the
//! zeros still owed and the heads of the two queues.
use super::*;

impl WeightDecoder {
    /// The next output beat from the queues, if there is one (the output register is free).
    pub(super) fn emit(&mut self) {
        let mut lanes = [0i16; LANES];
        let mut count = 0;
        if self.zeros_left > 0 {
            count = self.zeros_left.min(LANES as u32) as usize;
            self.zeros_left -= count as u32;
            self.event("beat of zeros");
        } else if self.weights.front().is_some_and(|w| !w.1) {
            while count < LANES && self.weights.front().is_some_and(|w| !w.1) {
                lanes[count] = self.weights.pop_front().unwrap().0;
                count += 1;
            }
            self.event(if count == LANES { "beat of 4 plain weights" } else { "beat of plain weights" });
        } else if let Some(&(run, true)) = self.zero_runs.front() {
            self.zero_runs.pop_front();
            count = run.min(LANES as u32) as usize;
            self.zeros_left = run - count as u32;
            self.event(if run == 0 { "leading zero run empty" } else { "beat of leading zeros" });
        } else {
            // Pairs (weight, zero run) while they fit; a run that does not fit goes on in
            // the next beats.
            let mut pairs = 0;
            while count < LANES && self.zeros_left == 0 {
                let (Some(&(w, true)), Some(&(run, false))) = (self.weights.front(), self.zero_runs.front()) else {
                    break;
                };
                self.weights.pop_front();
                self.zero_runs.pop_front();
                lanes[count] = w;
                count += 1;
                let fit = run.min((LANES - count) as u32);
                count += fit as usize;
                self.zeros_left = run - fit;
                pairs += 1;
            }
            if pairs > 1 {
                self.event("beat of several pairs");
            } else if pairs == 1 {
                self.event("beat of one pair");
            }
        }
        self.out_valid = count > 0;
        self.out_count = count as u8;
        self.out_data = lanes.iter().enumerate().fold(0, |d, (k, &w)| d | (u64::from(w as u16 & 0x1FF) << (9 * k)));
    }
}
