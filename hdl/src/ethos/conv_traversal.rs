//! The Ethos-U65 convolution datapath's traversal counters (`conv_datapath.rs`; TRM §4,
//! digest §1.9, §5): which 2x2 OFM block, 8-channel OFM group, kernel element and IFM channel
//! group the MAC phase is at, and its stage-2 registers (the output walk, `output_walk.rs`,
//! drains each group's accumulators meanwhile). The next values read registers only (the counters, the datapath's state
//! and the latched layer registers); `advance` (low while the datapath is held) is the
//! registers' clock enable, so Verilator evaluates this block once a cycle rather than on
//! every change of the datapath's inputs (docs/ethos.md, "Verilated speed").
//! The sides of Vela's sub-kernels come from the sub-block `sub_kernels.rs`, the OFM block and
//! group from `block_walk.rs`, the verdicts on the tap (more to walk, the group's last, a
//! wait) from `tap_verdicts.rs`.
use super::conv_control::{STATE_CHECK, STATE_DECODE, STATE_DONE, STATE_DRAIN, STATE_MAC, STATE_OUT};
use super::conv_datapath::DIM_BITS;
use super::block_walk::BlockWalk;
use super::sub_kernels::SubKernels;
use super::tap_verdicts::TapVerdicts;
use super::weight_rows::{STEP_CLEAR, STEP_ELEMENT, STEP_GROUP, STEP_LAST, STEP_NONE, STEP_REPEAT, STEP_UNIT};
use crate::primitives::constant as k;
use crate::primitives::{RegEn, ZeroExtend};
use rust_hdl::prelude::*;

/// `phase_next`: the state after this cycle for MAC, OUT and DRAIN (else `phase`). MAC walks
/// one tap a cycle, in Vela's stream order of a group's weights: depth-first conv, the
/// 8-channel groups `u` of the 32-channel block (those beyond the IFM depth skipped), then the
/// kernel elements of a sub-kernel, then sub-kernels, then blocks; part-kernel-first, the
/// kernel elements of a sub-kernel, then the 8-channel groups `u` of the 16-channel IFM block
/// (those holding channels), then sub-kernels, then blocks (`cg_base` steps by 2); depthwise,
/// elements, then sub-kernels. A sub-kernel (Vela's `decomp_h`/`decomp_w`, `SubKernelMax`) is
/// at most `8 / dilation` a side, y outside x, at (`sy`, `sx`); the tap's kernel position is
/// (`sy + ky`, `sx + kx`) (outputs `ky`, `kx`). `sub_h`/`sub_w` are the current sub-kernel's
/// sides, `next_h`/`next_w` those of the sub-kernel the tap steps to (the weight-row
/// address's rows per group, `weight_rows.rs`). `row_step` tells the weight-row address what the tap did.
/// After a group's last tap, the same OFM group in the next 2x2 block (raster order), or the
/// next OFM group from the first block, or, after the layer's last, OUT until the output walk
/// reads its last entry, then DRAIN (4 cycles): every block of a group before the next group,
/// so that a group's weight rows are decoded long before the layer's last. The traversal
/// runs in DECODE too (decode overlapped with MAC): there a tap waits while its weight row is
/// not written yet (`row_ready` low), and the layer's last tap waits for the decoder's end
/// (so that a stream that decodes to too many or too few weights is still refused before
/// OUT). A group's last tap is not issued while the walk could not take the group
/// (`drain_wait`): no IFM read, no weight step, nothing into the MAC unit. The block, its
/// IFM origin and the OFM group are `BlockWalk`'s registers (block_walk.rs).
#[derive(LogicBlock)]
pub struct ConvTraversal {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    pub phase: Signal<In, Bits<3>>,
    pub ifm_depth: Signal<In, Bits<DIM_BITS>>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    pub pad_top: Signal<In, Bits<3>>,
    pub pad_left: Signal<In, Bits<3>>,
    pub depthwise: Signal<In, Bit>,
    pub part_kernel: Signal<In, Bit>,
    /// Dilation 2 (else 1) in y and x: sub-kernels of at most 4 (else 8) a side.
    pub dilation_y: Signal<In, Bit>,
    pub dilation_x: Signal<In, Bit>,
    pub phase_next: Signal<Out, Bits<3>>,
    pub block_y: Signal<Out, Bits<13>>,
    pub block_x: Signal<Out, Bits<13>>,
    pub origin_y: Signal<Out, Bits<14>>,
    pub origin_x: Signal<Out, Bits<14>>,
    pub og: Signal<Out, Bits<9>>,
    /// `STEP_*` of `weight_rows.rs`.
    pub row_step: Signal<Out, Bits<3>>,
    pub cg_base: Signal<Out, Bits<9>>,
    pub u: Signal<Out, Bits<2>>,
    /// The tap's kernel position: the sub-kernel's origin plus the element's.
    pub ky: Signal<Out, Bits<4>>,
    pub kx: Signal<Out, Bits<4>>,
    pub sub_h: Signal<Out, Bits<4>>,
    pub sub_w: Signal<Out, Bits<4>>,
    pub next_h: Signal<Out, Bits<4>>,
    pub next_w: Signal<Out, Bits<4>>,
    /// The output walk (`output_walk.rs`): a group's last tap must wait; OUT's last entry.
    pub drain_wait: Signal<In, Bit>,
    pub drain_finishing: Signal<In, Bit>,
    /// DECODE: the tap's weight row is written (the weight buffer's rows so far are beyond it).
    pub row_ready: Signal<In, Bit>,
    /// MAC, not waiting: this cycle's tap is issued (IFM reads, weight row, stage 2).
    pub issue: Signal<Out, Bit>,
    /// The issued tap is its OFM group's last.
    pub issue_last: Signal<Out, Bit>,
    /// Stage 2.
    pub mac_valid2: Signal<Out, Bit>,
    pub clear2: Signal<Out, Bit>,
    /// The packed depthwise walk (`depthwise_walk.rs`): the block is packed (it steps no
    /// kernel element; its last cycle, `packed_last`, is the group's last tap); the next
    /// block is a group's first / a row of blocks' first.
    pub block_packed: Signal<In, Bit>,
    pub packed_last: Signal<In, Bit>,
    pub next_first: Signal<Out, Bit>,
    pub next_row_start: Signal<Out, Bit>,

    cg_base_q: RegEn<Bits<9>>,
    u_q: RegEn<Bits<2>>,
    ky_q: RegEn<Bits<3>>,
    kx_q: RegEn<Bits<3>>,
    sy_q: RegEn<Bits<4>>,
    sx_q: RegEn<Bits<4>>,
    first: RegEn<Bit>,
    sides: SubKernels,
    /// The OFM block and group: `block_walk.rs`.
    walk: BlockWalk,
    /// The tap's verdicts: `tap_verdicts.rs`.
    verdicts: TapVerdicts,
    drain: RegEn<Bits<2>>,
    mac_valid2_q: RegEn<Bit>,
    clear2_q: RegEn<Bit>,

    ky4: ZeroExtend<3, 4>,
    kx4: ZeroExtend<3, 4>,
    in_check: Signal<Local, Bit>,
    in_mac: Signal<Local, Bit>,
    in_decode: Signal<Local, Bit>,
    in_out: Signal<Local, Bit>,
    in_drain: Signal<Local, Bit>,

    state_check: Constant<Bits<3>>,
    state_mac: Constant<Bits<3>>,
    state_decode: Constant<Bits<3>>,
    step_repeat: Constant<Bits<3>>,
    state_out: Constant<Bits<3>>,
    state_drain: Constant<Bits<3>>,
    state_done: Constant<Bits<3>>,
    zero2: Constant<Bits<2>>,
    zero3: Constant<Bits<3>>,
    zero9: Constant<Bits<9>>,
    one2: Constant<Bits<2>>,
    one3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    step_none: Constant<Bits<3>>,
    step_group: Constant<Bits<3>>,
    step_element: Constant<Bits<3>>,
    step_unit: Constant<Bits<3>>,
    step_last: Constant<Bits<3>>,
    step_clear: Constant<Bits<3>>,
    three2: Constant<Bits<2>>,
}

impl Default for ConvTraversal {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            phase: Default::default(),
            ifm_depth: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            ofm_depth: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            pad_top: Default::default(),
            pad_left: Default::default(),
            depthwise: Default::default(),
            part_kernel: Default::default(),
            dilation_y: Default::default(),
            dilation_x: Default::default(),
            phase_next: Default::default(),
            block_y: Default::default(),
            block_x: Default::default(),
            origin_y: Default::default(),
            origin_x: Default::default(),
            og: Default::default(),
            row_step: Default::default(),
            cg_base: Default::default(),
            u: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            sub_h: Default::default(),
            sub_w: Default::default(),
            next_h: Default::default(),
            next_w: Default::default(),
            drain_wait: Default::default(),
            drain_finishing: Default::default(),
            row_ready: Default::default(),
            issue: Default::default(),
            issue_last: Default::default(),
            mac_valid2: Default::default(),
            clear2: Default::default(),
            block_packed: Default::default(),
            packed_last: Default::default(),
            next_first: Default::default(),
            next_row_start: Default::default(),
            cg_base_q: Default::default(),
            u_q: Default::default(),
            ky_q: Default::default(),
            kx_q: Default::default(),
            sy_q: Default::default(),
            sx_q: Default::default(),
            first: Default::default(),
            sides: Default::default(),
            walk: Default::default(),
            verdicts: Default::default(),
            drain: Default::default(),
            mac_valid2_q: Default::default(),
            clear2_q: Default::default(),
            ky4: Default::default(),
            kx4: Default::default(),
            in_check: Default::default(),
            in_mac: Default::default(),
            in_decode: Default::default(),
            in_out: Default::default(),
            in_drain: Default::default(),
            state_check: k(STATE_CHECK),
            state_mac: k(STATE_MAC),
            state_decode: k(STATE_DECODE),
            step_repeat: k(STEP_REPEAT),
            state_out: k(STATE_OUT),
            state_drain: k(STATE_DRAIN),
            state_done: k(STATE_DONE),
            zero2: k(0),
            zero3: k(0),
            zero9: k(0),
            one2: k(1),
            one3: k(1),
            zero4: k(0),
            step_none: k(STEP_NONE),
            step_group: k(STEP_GROUP),
            step_element: k(STEP_ELEMENT),
            step_unit: k(STEP_UNIT),
            step_last: k(STEP_LAST),
            step_clear: k(STEP_CLEAR),
            three2: k(3),
        }
    }
}

impl Logic for ConvTraversal {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cg_base_q, u_q, ky_q, kx_q, sy_q, sx_q, first, drain, mac_valid2_q, clear2_q);
        self.cg_base_q.reset.next = self.reset.val();
        self.cg_base_q.enable.next = self.advance.val();
        self.u_q.reset.next = self.reset.val();
        self.u_q.enable.next = self.advance.val();
        self.ky_q.reset.next = self.reset.val();
        self.ky_q.enable.next = self.advance.val();
        self.kx_q.reset.next = self.reset.val();
        self.kx_q.enable.next = self.advance.val();
        self.sy_q.reset.next = self.reset.val();
        self.sy_q.enable.next = self.advance.val();
        self.sx_q.reset.next = self.reset.val();
        self.sx_q.enable.next = self.advance.val();
        self.first.reset.next = self.reset.val();
        self.first.enable.next = self.advance.val();
        self.drain.reset.next = self.reset.val();
        self.drain.enable.next = self.advance.val();
        self.mac_valid2_q.reset.next = self.reset.val();
        self.mac_valid2_q.enable.next = self.advance.val();
        self.clear2_q.reset.next = self.reset.val();
        self.clear2_q.enable.next = self.advance.val();
        self.in_check.next = self.phase.val() == self.state_check.val();
        self.in_mac.next = self.phase.val() == self.state_mac.val();
        self.in_decode.next = self.phase.val() == self.state_decode.val();
        self.in_out.next = self.phase.val() == self.state_out.val();
        self.in_drain.next = self.phase.val() == self.state_drain.val();
        self.walk.clock.next = self.clock.val();
        self.walk.reset.next = self.reset.val();
        self.walk.advance.next = self.advance.val();
        self.walk.active.next = (self.phase.val() == self.state_mac.val()) | (self.phase.val() == self.state_decode.val());
        self.walk.ofm_height.next = self.ofm_height.val();
        self.walk.ofm_width.next = self.ofm_width.val();
        self.walk.ofm_depth.next = self.ofm_depth.val();
        self.walk.stride_y.next = self.stride_y.val();
        self.walk.stride_x.next = self.stride_x.val();
        self.walk.pad_top.next = self.pad_top.val();
        self.walk.pad_left.next = self.pad_left.val();
        self.block_y.next = self.walk.block_y.val();
        self.block_x.next = self.walk.block_x.val();
        self.origin_y.next = self.walk.origin_y.val();
        self.origin_x.next = self.walk.origin_x.val();
        self.og.next = self.walk.og.val();
        self.cg_base.next = self.cg_base_q.q.val();
        self.u.next = self.u_q.q.val();
        self.ky4.narrow.next = self.ky_q.q.val();
        self.kx4.narrow.next = self.kx_q.q.val();
        self.ky.next = self.sy_q.q.val() + self.ky4.wide.val();
        self.kx.next = self.sx_q.q.val() + self.kx4.wide.val();
        self.mac_valid2.next = self.mac_valid2_q.q.val();
        self.clear2.next = self.clear2_q.q.val();

        // Vela's sub-kernels: the current one's sides (`sub_kernels.rs`).
        // From the phase, not the `in_*` locals: a statement of its own, else Verilator sees a
        // loop through the sub-block (UNOPTFLAT).
        self.sides.active.next = (self.phase.val() == self.state_mac.val()) | (self.phase.val() == self.state_decode.val());
        self.sides.kernel_height.next = self.kernel_height.val();
        self.sides.kernel_width.next = self.kernel_width.val();
        self.sides.dilation_y.next = self.dilation_y.val();
        self.sides.dilation_x.next = self.dilation_x.val();
        self.sides.sy.next = self.sy_q.q.val();
        self.sides.sx.next = self.sx_q.q.val();
        self.sub_h.next = self.sides.cur_h.val();
        self.sub_w.next = self.sides.cur_w.val();
        self.next_first.next = !self.walk.more_x.val() & !self.walk.more_y.val();
        self.next_row_start.next = !self.walk.more_x.val();
        // The tap's verdicts (`tap_verdicts.rs`), computed only in MAC and DECODE; read only
        // with `issue`.
        self.verdicts.phase.next = self.phase.val();
        self.verdicts.u.next = self.u_q.q.val();
        self.verdicts.cg_base.next = self.cg_base_q.q.val();
        self.verdicts.kx.next = self.kx_q.q.val();
        self.verdicts.ky.next = self.ky_q.q.val();
        self.verdicts.ifm_depth.next = self.ifm_depth.val();
        self.verdicts.depthwise.next = self.depthwise.val();
        self.verdicts.part_kernel.next = self.part_kernel.val();
        self.verdicts.cur_w.next = self.sides.cur_w.val();
        self.verdicts.cur_h.next = self.sides.cur_h.val();
        self.verdicts.more_x.next = self.sides.more_x.val();
        self.verdicts.more_y.next = self.sides.more_y.val();
        self.verdicts.block_packed.next = self.block_packed.val();
        self.verdicts.packed_last.next = self.packed_last.val();
        self.verdicts.last_og.next = self.walk.last_og.val();
        self.verdicts.block_more_x.next = self.walk.more_x.val();
        self.verdicts.block_more_y.next = self.walk.more_y.val();
        self.verdicts.drain_wait.next = self.drain_wait.val();
        self.verdicts.row_ready.next = self.row_ready.val();
        self.issue.next = (self.in_mac.val() | self.in_decode.val()) & !self.verdicts.stalled.val();
        self.issue_last.next = self.issue.val() & self.verdicts.last_tap.val();

        // Stage 2: what the MAC unit takes in the next cycle.
        self.mac_valid2_q.d.next = self.issue.val();
        self.clear2_q.d.next = self.first.q.val();

        self.phase_next.next = self.phase.val();
        self.walk.init.next = self.in_check.val();
        self.walk.next_x.next = false;
        self.walk.next_y.next = false;
        self.walk.next_group.next = false;
        self.walk.layer_end.next = false;
        if self.in_check.val() {
            self.cg_base_q.d.next = self.zero9.val();
            self.u_q.d.next = self.zero2.val();
            self.ky_q.d.next = self.zero3.val();
            self.kx_q.d.next = self.zero3.val();
            self.sy_q.d.next = self.zero4.val();
            self.sx_q.d.next = self.zero4.val();
            self.first.d.next = true;
        }
        self.next_h.next = self.sides.cur_h.val();
        self.next_w.next = self.sides.cur_w.val();
        self.row_step.next = self.step_none.val();
        if self.in_check.val() {
            self.row_step.next = self.step_clear.val();
        }
        if self.issue.val() {
            self.first.d.next = false;
            if self.block_packed.val() & !self.packed_last.val() {
                // A packed block's cycle before its last: no kernel element stepped.
                self.row_step.next = self.step_none.val();
            } else if !self.depthwise.val() & !self.part_kernel.val() & !self.verdicts.last_u.val() {
                self.u_q.d.next = self.u_q.q.val() + self.one2.val();
                self.row_step.next = self.step_group.val();
            } else {
                if !self.part_kernel.val() {
                    self.u_q.d.next = self.zero2.val();
                }
                self.row_step.next = self.step_element.val();
                if self.verdicts.kx_more.val() {
                    self.kx_q.d.next = self.kx_q.q.val() + self.one3.val();
                } else if self.verdicts.ky_more.val() {
                    self.kx_q.d.next = self.zero3.val();
                    self.ky_q.d.next = self.ky_q.q.val() + self.one3.val();
                } else {
                    self.kx_q.d.next = self.zero3.val();
                    self.ky_q.d.next = self.zero3.val();
                    self.row_step.next = self.step_unit.val();
                    if self.part_kernel.val() & !self.verdicts.last_u.val() {
                        // Part-kernel-first: the block's next 8-channel group, same sub-kernel.
                        self.u_q.d.next = self.u_q.q.val() + self.one2.val();
                    } else if self.sides.more_x.val() {
                        self.u_q.d.next = self.zero2.val();
                        self.sx_q.d.next = self.sx_q.q.val() + self.sides.most_w.val();
                        self.next_w.next = self.sides.rest_w2.val();
                        if self.sides.most_w.val() < self.sides.rest_w2.val() {
                            self.next_w.next = self.sides.most_w.val();
                        }
                    } else if self.sides.more_y.val() {
                        self.u_q.d.next = self.zero2.val();
                        self.sx_q.d.next = self.zero4.val();
                        self.sy_q.d.next = self.sy_q.q.val() + self.sides.most_h.val();
                        self.next_h.next = self.sides.rest_h2.val();
                        if self.sides.most_h.val() < self.sides.rest_h2.val() {
                            self.next_h.next = self.sides.most_h.val();
                        }
                        self.next_w.next = self.sides.first_w.val();
                    } else {
                        self.u_q.d.next = self.zero2.val();
                        self.sx_q.d.next = self.zero4.val();
                        self.sy_q.d.next = self.zero4.val();
                        self.next_h.next = self.sides.first_h.val();
                        self.next_w.next = self.sides.first_w.val();
                        if !self.depthwise.val() & self.verdicts.more_ifm.val() {
                            self.cg_base_q.d.next = self.cg_base_q.q.val() + self.verdicts.groups.val();
                        } else {
                            // The group's last tap: the same group in the next block (its
                            // first row again), or the next group from the first block, or OUT.
                            self.cg_base_q.d.next = self.zero9.val();
                            self.row_step.next = self.step_repeat.val();
                            self.first.d.next = true;
                            if self.walk.more_x.val() {
                                self.walk.next_x.next = true;
                            } else if self.walk.more_y.val() {
                                self.walk.next_y.next = true;
                            } else if !self.walk.last_og.val() {
                                self.row_step.next = self.step_last.val();
                                self.walk.next_group.next = true;
                            } else {
                                // Back to the first row; the layer's last tap.
                                self.walk.layer_end.next = true;
                                self.row_step.next = self.step_clear.val();
                                self.phase_next.next = self.state_out.val();
                            }
                        }
                    }
                }
            }
        }
        // OUT: the last group's drain; its last entry enters the output unit in the next cycle.
        if self.in_out.val() & self.drain_finishing.val() {
            self.drain.d.next = self.zero2.val();
            self.phase_next.next = self.state_drain.val();
        }
        // The last value leaves the output unit 4 cycles after the last OUT cycle.
        if self.in_drain.val() {
            self.drain.d.next = self.drain.q.val() + self.one2.val();
            if self.drain.q.val() == self.three2.val() {
                self.phase_next.next = self.state_done.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvTraversal::default, "conv_traversal");
}
