//! The output writer, a sub-block of the layer engine (`engine.rs`): OUT's two-stage pipeline
//! that reads a column tile's accumulators row by row (stage 1) into the array's output
//! register (stage 2), from where a result word goes to memory (SAVEOUT) and to the result
//! buffer. RTL: `hdl/src/scale/output_writer.rs`; docs/scale.md, "Timing".

/// What the writer does in a cycle (combinational, from its registers and its inputs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// The result word leaves the output register (written, or only stored).
    pub emit: bool,
    /// Read accumulator row `row` (stage 1).
    pub read: bool,
    pub row: usize,
    /// Load the output register from the row read the cycle before (stage 2).
    pub load: bool,
    adv1: bool,
    adv2: bool,
}

#[derive(Clone, Debug, Default)]
pub struct OutputWriter {
    next_row: u32,
    p1: bool,
    p2: bool,
}

impl OutputWriter {
    /// A result word is in the output register (with SAVEOUT, offered to memory).
    pub fn pending(&self) -> bool {
        self.p2
    }

    /// The cycle's step: `active` in OUT; stage 2 moves on when it is empty, when memory takes
    /// its word (`accept`), or without SAVEOUT (the word only goes to the result buffer);
    /// stage 1 when stage 2 takes its row.
    pub fn step(&self, active: bool, inrows: u8, saveout: bool, stop: bool, accept: bool) -> Step {
        let adv2 = !self.p2 || accept || (!saveout && !stop);
        let adv1 = !self.p1 || adv2;
        Step {
            emit: active && self.p2 && adv2,
            read: active && adv1 && self.next_row < u32::from(inrows),
            row: self.next_row as usize,
            // Only data read for a row: the accumulator memory has no reset.
            load: active && adv2 && self.p1,
            adv1,
            adv2,
        }
    }

    /// The rising edge in OUT.
    pub fn clock(&mut self, s: &Step) {
        if s.adv2 {
            self.p2 = self.p1;
        }
        if s.adv1 {
            self.p1 = s.read;
            self.next_row += u32::from(s.read);
        }
    }

    /// Entering OUT: the pipeline starts empty at row 0.
    pub fn restart(&mut self) {
        *self = Self::default();
    }
}
