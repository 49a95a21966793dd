//! The walk of a DMA over a cube in memory (seeds/001 "Data formats": a feature cube is stored
//! as 8-channel surfaces of lines of 8-byte atoms; the RDL's LINE_STRIDE and SURFACE_STRIDE
//! registers give the distance between lines and between surfaces): three nested counters,
//! innermost first, and the address of the current position as running pointers (the
//! position, the start of its innermost run, the start of its middle run), so no multiplier
//! is needed. Addresses wrap at 2^64.
//!
//! The engines choose the order by the strides they give: SDP's and PDP's walk x fastest
//! (strides 8, line, surface), CDP's the surfaces of an (x, y) first (surface, 8, line). A
//! walk that needs a position past the cube at the end of each innermost run (CDP's padding
//! surface) counts one more there and does not read it.
//!
//! - `start` (wins over `step`) goes to position (0, 0, 0) at `base`; `step` to the next
//!   position; a step at the last position starts again at `base` (defined, the engines stop
//!   there). The counts (`last0..2`, each the count minus 1, as the RDL's fields) and strides
//!   are read at each step, not kept: they must hold during a walk.
//! - `addr` is the current position's address (a register); `next_addr` the one a step goes
//!   to (combinational, for an engine that registers it in the step's cycle); `end0`/`end1`
//!   say the innermost/middle counter is at its last, `last` that the position is the last.
//!
//! Model: `npu_model::nvdla::cube_walk`; docs/nvdla.md "Cube walk".
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CubeWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub step: Signal<In, Bit>,
    pub base: Signal<In, Bits<64>>,
    /// Bytes between neighbours, innermost dimension first.
    pub stride0: Signal<In, Bits<64>>,
    pub stride1: Signal<In, Bits<64>>,
    pub stride2: Signal<In, Bits<64>>,
    /// The last index of each dimension (count minus 1).
    pub last0: Signal<In, Bits<13>>,
    pub last1: Signal<In, Bits<13>>,
    pub last2: Signal<In, Bits<13>>,
    pub addr: Signal<Out, Bits<64>>,
    pub next_addr: Signal<Out, Bits<64>>,
    pub index0: Signal<Out, Bits<13>>,
    pub end0: Signal<Out, Bit>,
    pub end1: Signal<Out, Bit>,
    pub last: Signal<Out, Bit>,
    i0: Reg<Bits<13>>,
    i1: Reg<Bits<13>>,
    i2: Reg<Bits<13>>,
    /// The position, the start of its innermost run, the start of its middle run.
    position: Reg<Bits<64>>,
    run0: Reg<Bits<64>>,
    run1: Reg<Bits<64>>,
    end2: Signal<Local, Bit>,
    zero: Constant<Bits<13>>,
    one: Constant<Bits<13>>,
}

impl Default for CubeWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            step: Default::default(),
            base: Default::default(),
            stride0: Default::default(),
            stride1: Default::default(),
            stride2: Default::default(),
            last0: Default::default(),
            last1: Default::default(),
            last2: Default::default(),
            addr: Default::default(),
            next_addr: Default::default(),
            index0: Default::default(),
            end0: Default::default(),
            end1: Default::default(),
            last: Default::default(),
            i0: Default::default(),
            i1: Default::default(),
            i2: Default::default(),
            position: Default::default(),
            run0: Default::default(),
            run1: Default::default(),
            end2: Default::default(),
            zero: Constant::new(0.into()),
            one: Constant::new(1.into()),
        }
    }
}

impl Logic for CubeWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, i0, i1, i2, position, run0, run1);
        self.i0.reset.next = self.reset.val();
        self.i1.reset.next = self.reset.val();
        self.i2.reset.next = self.reset.val();
        self.position.reset.next = self.reset.val();
        self.run0.reset.next = self.reset.val();
        self.run1.reset.next = self.reset.val();
        self.addr.next = self.position.q.val();
        self.index0.next = self.i0.q.val();
        self.end0.next = self.i0.q.val() == self.last0.val();
        self.end1.next = self.i1.q.val() == self.last1.val();
        self.end2.next = self.i2.q.val() == self.last2.val();
        self.last.next = self.end0.val() & self.end1.val() & self.end2.val();
        // The next position: along the innermost run, else the next run's start (which is
        // also the new start of every run that ends here).
        self.next_addr.next = self.position.q.val() + self.stride0.val();
        if self.end0.val() {
            self.next_addr.next = self.run0.q.val() + self.stride1.val();
            if self.end1.val() {
                self.next_addr.next = self.run1.q.val() + self.stride2.val();
                if self.end2.val() {
                    self.next_addr.next = self.base.val();
                }
            }
        }
        if self.start.val() {
            self.i0.d.next = self.zero.val();
            self.i1.d.next = self.zero.val();
            self.i2.d.next = self.zero.val();
            self.position.d.next = self.base.val();
            self.run0.d.next = self.base.val();
            self.run1.d.next = self.base.val();
        } else if self.step.val() {
            self.position.d.next = self.next_addr.val();
            self.i0.d.next = self.i0.q.val() + self.one.val();
            if self.end0.val() {
                self.i0.d.next = self.zero.val();
                self.i1.d.next = self.i1.q.val() + self.one.val();
                self.run0.d.next = self.next_addr.val();
                if self.end1.val() {
                    self.i1.d.next = self.zero.val();
                    self.i2.d.next = self.i2.q.val() + self.one.val();
                    self.run1.d.next = self.next_addr.val();
                    if self.end2.val() {
                        self.i2.d.next = self.zero.val();
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CubeWalk::default, "nvdla_cube_walk");
}

