//! ScaleNPU's output writer, a sub-block of the layer engine (`engine.rs`): OUT's two-stage
//! pipeline that reads a column tile's accumulators row by row (stage 1) into the array's
//! output register (stage 2), from where a result word goes to memory (SAVEOUT) and to the
//! result buffer. Model: `model/src/scale/output_writer.rs`; docs/scale.md, "Timing".
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct OutputWriter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The engine is in OUT; it enters OUT (the pipeline starts empty at row 0).
    pub active: Signal<In, Bit>,
    pub restart: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    pub saveout: Signal<In, Bit>,
    /// The layer is stopping: no further result leaves.
    pub stop: Signal<In, Bit>,
    /// The memory port takes the result word offered.
    pub accept: Signal<In, Bit>,
    /// A result word is in the output register (with SAVEOUT, offered to memory). It leaves
    /// (is written, or only stored) in a cycle of OUT where memory takes it, or without SAVEOUT
    /// while the layer is not stopping: the engine computes that itself from this register, since
    /// no output of this block may depend on its inputs (Verilator would see the engine's
    /// request logic and this block as one loop).
    pub pending: Signal<Out, Bit>,
    /// To the array: read accumulator row `row`; load the output register.
    pub read: Signal<Out, Bit>,
    pub row: Signal<Out, Bits<8>>,
    pub load: Signal<Out, Bit>,

    next_row: Reg<Bits<9>>,
    p1: Reg<Bit>,
    p2: Reg<Bit>,
    inrows9: ZeroExtend<8, 9>,
    one9: Constant<Bits<9>>,
    zero9: Constant<Bits<9>>,
    adv1: Signal<Local, Bit>,
    adv2: Signal<Local, Bit>,
}

impl Default for OutputWriter {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            restart: Default::default(),
            inrows: Default::default(),
            saveout: Default::default(),
            stop: Default::default(),
            accept: Default::default(),
            pending: Default::default(),
            read: Default::default(),
            row: Default::default(),
            load: Default::default(),
            next_row: Default::default(),
            p1: Default::default(),
            p2: Default::default(),
            inrows9: Default::default(),
            one9: Constant::new(1.into()),
            zero9: Constant::new(0.into()),
            adv1: Default::default(),
            adv2: Default::default(),
        }
    }
}

impl Logic for OutputWriter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, next_row, p1, p2);
        self.next_row.reset.next = self.reset.val();
        self.p1.reset.next = self.reset.val();
        self.p2.reset.next = self.reset.val();
        self.inrows9.narrow.next = self.inrows.val();

        // Stage 2 moves on when it is empty, when memory takes its word, or without SAVEOUT
        // (the word only goes to the result buffer); stage 1 when stage 2 takes its row.
        self.adv2.next = !self.p2.q.val() | self.accept.val() | (!self.saveout.val() & !self.stop.val());
        self.adv1.next = !self.p1.q.val() | self.adv2.val();
        self.read.next = self.active.val() & self.adv1.val() & (self.next_row.q.val() < self.inrows9.wide.val());
        // Only data read for a row: the accumulator memory has no reset.
        self.load.next = self.active.val() & self.adv2.val() & self.p1.q.val();
        self.row.next = self.next_row.q.val().get_bits::<8>(0);
        self.pending.next = self.p2.q.val();
        if self.active.val() {
            if self.adv2.val() {
                self.p2.d.next = self.p1.q.val();
            }
            if self.adv1.val() {
                self.p1.d.next = self.read.val();
                if self.read.val() {
                    self.next_row.d.next = self.next_row.q.val() + self.one9.val();
                }
            }
        }
        if self.restart.val() {
            self.next_row.d.next = self.zero9.val();
            self.p1.d.next = false;
            self.p2.d.next = false;
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputWriter::default(), "output_writer");
}
