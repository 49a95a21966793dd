//! Auto comparator (seeds/002 §6.7, §9.5). RTL: `hdl/src/mnist/comparator.rs`.
//!
//! Decisions (docs/mnist.md):
//! - Trig is EN_ReLU delayed by one cycle (`trig_q`): the ReLU registers capture at the end of
//!   the EN_ReLU cycle, so the comparator compares their outputs in the next cycle. The index
//!   is then valid 3 cycles after the SSFR window, as §9.5 says.
//! - Numbering: every compared neuron gets the next index, from 1, in input order; a frame
//!   gives ReLU1 the lower index and ReLU2 the next. In manual mode (`single`, SEL_CON low)
//!   MAC2 is disabled and only ReLU1 is compared, one index per frame. Indices saturate at 255.
//! - Replacement needs a strictly larger value, so of equal values the first (lower index)
//!   wins, within a frame too. The first compared neuron is always taken, so index 0 means
//!   exactly "nothing compared since reset", even if every value was 0x8000.
//! - RST_COMP wins over a comparison in the same cycle; EN_COMP low skips the comparison and
//!   does not count the neurons.
//! - `freeze` (EN_PISO_DEB) holds everything, `trig_q` included.

pub const RESET_LARGEST: i16 = i16::MIN;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub freeze: bool,
    pub trig: bool,
    pub en_comp: bool,
    pub rst_comp: bool,
    pub single: bool,
    pub relu1: i16,
    pub relu2: i16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub index: u8,
    pub largest: i16,
}

pub struct Comparator {
    trig_q: bool,
    /// Neurons compared since the last reset (saturating).
    seen: u8,
    index: u8,
    largest: i16,
    event: &'static str,
}

impl Default for Comparator {
    fn default() -> Self {
        Self { trig_q: false, seen: 0, index: 0, largest: RESET_LARGEST, event: "" }
    }
}

impl Comparator {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        Out { index: self.index, largest: self.largest }
    }

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        if i.reset {
            *self = Self::default();
            "reset"
        } else if i.freeze {
            "freeze"
        } else {
            let trig_q = std::mem::replace(&mut self.trig_q, i.trig);
            if i.rst_comp {
                (self.seen, self.index, self.largest) = (0, 0, RESET_LARGEST);
                "rst_comp"
            } else if !trig_q {
                "idle"
            } else if !i.en_comp {
                "trigger disabled"
            } else {
                let event = self.compare(i);
                if self.seen == u8::MAX { "index saturated" } else { event }
            }
        }
    }

    fn compare(&mut self, i: &In) -> &'static str {
        let first = self.seen.saturating_add(1);
        let (value, index) = if !i.single && i.relu2 > i.relu1 { (i.relu2, self.seen.saturating_add(2)) } else { (i.relu1, first) };
        self.seen = if i.single { first } else { self.seen.saturating_add(2) };
        if self.index == 0 || value > self.largest {
            (self.index, self.largest) = (index, value);
            if index == first { "update from relu1" } else { "update from relu2" }
        } else if value == self.largest {
            "tie keeps earlier"
        } else {
            "keep"
        }
    }
}

crate::sequential_block!(Comparator);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Block;

    /// Table 4 of seeds/002 with rows 4 to 6 corrected to follow the text of §6.7: neurons
    /// are numbered 1, 2 in frame 2, 3, 4 in frame 3, and so on; a strictly larger value wins.
    #[test]
    fn corrected_table_4() {
        // (ReLU1, ReLU2, EN_COMP, RST_COMP) of each frame, then (index, largest) after it.
        let rows: [((u16, u16, bool, bool), (u8, u16)); 6] = [
            ((0x0000, 0x0000, false, true), (0, 0x8000)),
            ((0xFFF1, 0xFFF2, true, false), (2, 0xFFF2)),
            ((0xFFF4, 0xFFF3, true, false), (3, 0xFFF4)),
            ((0xFFFF, 0xFFFF, true, false), (5, 0xFFFF)), // datasheet: 3, FFF4
            ((0x0000, 0x0003, true, false), (8, 0x0003)), // datasheet: 8, 0001
            ((0x0001, 0x0002, true, false), (8, 0x0003)), // datasheet: 8, 0002
        ];
        let mut c = Comparator::default();
        for ((r1, r2, en_comp, rst_comp), (index, largest)) in rows {
            let base = In { en_comp, rst_comp, relu1: r1 as i16, relu2: r2 as i16, ..In::default() };
            c.step(&In { trig: true, ..base.clone() });
            c.step(&base);
            assert_eq!(c.outputs(), Out { index, largest: largest as i16 });
        }
    }
}
