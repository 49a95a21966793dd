//! SDP's walk over its cubes (seeds/001 "Single Data Point Processor" and "Data formats": a
//! cube is stored as 8-channel surfaces of lines of 8-byte atoms): the position of the atom
//! in the cube (x fastest, then lines, then 8-channel surfaces) and, as running pointers
//! (atom, line start, surface start), the addresses of its input atom, its output atom and
//! its BS and BN operand words, so no multiplier is needed; they wrap at 2^64 as the model's
//! do. The sub-block of [`super::sdp::Sdp`] that holds its counters and pointers. Model:
//! `npu_model::nvdla::sdp` (the whole engine; the split is the RTL's alone).
//!
//! - `start` (a layer starts) goes to position (0, 0, 0) with every pointer at its base.
//! - `step` (the atom's write is taken) goes to the next position: the output pointers
//!   always, the input and operand atoms only when the atom was not the last and the layer
//!   is not a flying one (`fly`; a flying layer reads nothing). The line and surface starts
//!   of all four step with the position.
//! - The cube's last x, y and surface (`last_x`, `last_y`, `last_surface`) and the strides
//!   are read at each step: they hold during a layer.
//! - `last` says the position is the cube's last; `next_src` is the input atom a step goes
//!   to (combinational, for the engine's next read address); `dst`, `bs` and `bn` are the
//!   current output atom's and operand words' addresses (registers).
use crate::primitives::Reg;
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

#[derive(LogicBlock)]
pub struct SdpWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub step: Signal<In, Bit>,
    pub fly: Signal<In, Bit>,
    pub last_x: Signal<In, Bits<13>>,
    pub last_y: Signal<In, Bits<13>>,
    pub last_surface: Signal<In, Bits<10>>,
    /// The input and output cubes' bases and strides (D_SRC_*, D_DST_*).
    pub src_base: Signal<In, Bits<64>>,
    pub src_line: Signal<In, Bits<64>>,
    pub src_surface: Signal<In, Bits<64>>,
    pub dst_base: Signal<In, Bits<64>>,
    pub dst_line: Signal<In, Bits<64>>,
    pub dst_surface: Signal<In, Bits<64>>,
    /// The BS and BN operand reads' bases and their layouts' steps (along x, to the next
    /// line, to the next surface: [`super::sdp_operands::SdpOperands`]).
    pub bs_base: Signal<In, Bits<64>>,
    pub bs_x_step: Signal<In, Bits<64>>,
    pub bs_line_step: Signal<In, Bits<64>>,
    pub bs_surface_step: Signal<In, Bits<64>>,
    pub bn_base: Signal<In, Bits<64>>,
    pub bn_x_step: Signal<In, Bits<64>>,
    pub bn_line_step: Signal<In, Bits<64>>,
    pub bn_surface_step: Signal<In, Bits<64>>,
    pub last: Signal<Out, Bit>,
    pub next_src: Signal<Out, Bits<64>>,
    pub dst: Signal<Out, Bits<64>>,
    pub bs: Signal<Out, Bits<64>>,
    pub bn: Signal<Out, Bits<64>>,
    x: Reg<Bits<13>>,
    y: Reg<Bits<13>>,
    surface: Reg<Bits<10>>,
    src_atom: Reg<Bits<64>>,
    src_row: Reg<Bits<64>>,
    src_plane: Reg<Bits<64>>,
    dst_atom: Reg<Bits<64>>,
    dst_row: Reg<Bits<64>>,
    dst_plane: Reg<Bits<64>>,
    bs_atom: Reg<Bits<64>>,
    bs_row: Reg<Bits<64>>,
    bs_plane: Reg<Bits<64>>,
    bn_atom: Reg<Bits<64>>,
    bn_row: Reg<Bits<64>>,
    bn_plane: Reg<Bits<64>>,
    x_end: Signal<Local, Bit>,
    y_end: Signal<Local, Bit>,
    next_bs: Signal<Local, Bits<64>>,
    next_bn: Signal<Local, Bits<64>>,
    zero13: Constant<Bits<13>>,
    one13: Constant<Bits<13>>,
    zero10: Constant<Bits<10>>,
    one10: Constant<Bits<10>>,
    atom_bytes: Constant<Bits<64>>,
}

impl Default for SdpWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            step: Default::default(),
            fly: Default::default(),
            last_x: Default::default(),
            last_y: Default::default(),
            last_surface: Default::default(),
            src_base: Default::default(),
            src_line: Default::default(),
            src_surface: Default::default(),
            dst_base: Default::default(),
            dst_line: Default::default(),
            dst_surface: Default::default(),
            bs_base: Default::default(),
            bs_x_step: Default::default(),
            bs_line_step: Default::default(),
            bs_surface_step: Default::default(),
            bn_base: Default::default(),
            bn_x_step: Default::default(),
            bn_line_step: Default::default(),
            bn_surface_step: Default::default(),
            last: Default::default(),
            next_src: Default::default(),
            dst: Default::default(),
            bs: Default::default(),
            bn: Default::default(),
            x: Default::default(),
            y: Default::default(),
            surface: Default::default(),
            src_atom: Default::default(),
            src_row: Default::default(),
            src_plane: Default::default(),
            dst_atom: Default::default(),
            dst_row: Default::default(),
            dst_plane: Default::default(),
            bs_atom: Default::default(),
            bs_row: Default::default(),
            bs_plane: Default::default(),
            bn_atom: Default::default(),
            bn_row: Default::default(),
            bn_plane: Default::default(),
            x_end: Default::default(),
            y_end: Default::default(),
            next_bs: Default::default(),
            next_bn: Default::default(),
            zero13: k(0),
            one13: k(1),
            zero10: k(0),
            one10: k(1),
            atom_bytes: k(8),
        }
    }
}

impl Logic for SdpWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, x, y, surface, src_atom, src_row, src_plane, dst_atom, dst_row, dst_plane, bs_atom, bs_row, bs_plane, bn_atom, bn_row, bn_plane);
        self.x.reset.next = self.reset.val();
        self.y.reset.next = self.reset.val();
        self.surface.reset.next = self.reset.val();
        self.src_atom.reset.next = self.reset.val();
        self.src_row.reset.next = self.reset.val();
        self.src_plane.reset.next = self.reset.val();
        self.dst_atom.reset.next = self.reset.val();
        self.dst_row.reset.next = self.reset.val();
        self.dst_plane.reset.next = self.reset.val();
        self.bs_atom.reset.next = self.reset.val();
        self.bs_row.reset.next = self.reset.val();
        self.bs_plane.reset.next = self.reset.val();
        self.bn_atom.reset.next = self.reset.val();
        self.bn_row.reset.next = self.reset.val();
        self.bn_plane.reset.next = self.reset.val();
        self.dst.next = self.dst_atom.q.val();
        self.bs.next = self.bs_atom.q.val();
        self.bn.next = self.bn_atom.q.val();
        // Where the walk goes after the current atom: the next atom of the line, the next
        // line of the surface, or the next surface.
        self.x_end.next = self.x.q.val() == self.last_x.val();
        self.y_end.next = self.y.q.val() == self.last_y.val();
        self.last.next = self.x_end.val() & self.y_end.val() & (self.surface.q.val() == self.last_surface.val());
        self.next_src.next = self.src_atom.q.val() + self.atom_bytes.val();
        self.next_bs.next = self.bs_atom.q.val() + self.bs_x_step.val();
        self.next_bn.next = self.bn_atom.q.val() + self.bn_x_step.val();
        if self.x_end.val() {
            self.next_src.next = self.src_row.q.val() + self.src_line.val();
            self.next_bs.next = self.bs_row.q.val() + self.bs_line_step.val();
            self.next_bn.next = self.bn_row.q.val() + self.bn_line_step.val();
            if self.y_end.val() {
                self.next_src.next = self.src_plane.q.val() + self.src_surface.val();
                self.next_bs.next = self.bs_plane.q.val() + self.bs_surface_step.val();
                self.next_bn.next = self.bn_plane.q.val() + self.bn_surface_step.val();
            }
        }
        if self.start.val() {
            self.x.d.next = self.zero13.val();
            self.y.d.next = self.zero13.val();
            self.surface.d.next = self.zero10.val();
            self.src_atom.d.next = self.src_base.val();
            self.src_row.d.next = self.src_base.val();
            self.src_plane.d.next = self.src_base.val();
            self.dst_atom.d.next = self.dst_base.val();
            self.dst_row.d.next = self.dst_base.val();
            self.dst_plane.d.next = self.dst_base.val();
            self.bs_atom.d.next = self.bs_base.val();
            self.bs_row.d.next = self.bs_base.val();
            self.bs_plane.d.next = self.bs_base.val();
            self.bn_atom.d.next = self.bn_base.val();
            self.bn_row.d.next = self.bn_base.val();
            self.bn_plane.d.next = self.bn_base.val();
        } else if self.step.val() {
            if !self.last.val() & !self.fly.val() {
                self.src_atom.d.next = self.next_src.val();
                self.bs_atom.d.next = self.next_bs.val();
                self.bn_atom.d.next = self.next_bn.val();
            }
            self.x.d.next = self.x.q.val() + self.one13.val();
            self.dst_atom.d.next = self.dst_atom.q.val() + self.atom_bytes.val();
            if self.x_end.val() {
                self.x.d.next = self.zero13.val();
                self.y.d.next = self.y.q.val() + self.one13.val();
                self.src_row.d.next = self.src_row.q.val() + self.src_line.val();
                self.bs_row.d.next = self.bs_row.q.val() + self.bs_line_step.val();
                self.bn_row.d.next = self.bn_row.q.val() + self.bn_line_step.val();
                self.dst_row.d.next = self.dst_row.q.val() + self.dst_line.val();
                self.dst_atom.d.next = self.dst_row.q.val() + self.dst_line.val();
                if self.y_end.val() {
                    self.y.d.next = self.zero13.val();
                    self.surface.d.next = self.surface.q.val() + self.one10.val();
                    self.src_row.d.next = self.src_plane.q.val() + self.src_surface.val();
                    self.src_plane.d.next = self.src_plane.q.val() + self.src_surface.val();
                    self.bs_row.d.next = self.bs_plane.q.val() + self.bs_surface_step.val();
                    self.bs_plane.d.next = self.bs_plane.q.val() + self.bs_surface_step.val();
                    self.bn_row.d.next = self.bn_plane.q.val() + self.bn_surface_step.val();
                    self.bn_plane.d.next = self.bn_plane.q.val() + self.bn_surface_step.val();
                    self.dst_row.d.next = self.dst_plane.q.val() + self.dst_surface.val();
                    self.dst_plane.d.next = self.dst_plane.q.val() + self.dst_surface.val();
                    self.dst_atom.d.next = self.dst_plane.q.val() + self.dst_surface.val();
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SdpWalk::default, "nvdla_sdp_walk");
}
