//! The convolution traversal's verdicts on the current tap (`conv_traversal.rs`; TRM §4,
//! digest §1.9, §5): whether the kernel element, the 8-channel group and the IFM block have
//! more to walk, whether the tap is its OFM group's last, and whether it must wait. A block of
//! its own beside the traversal's counters, as its sides (`sub_kernels.rs`) and blocks
//! (`block_walk.rs`) are; its inputs are registers and the traversal's ports only, so that
//! Verilator sees no loop through the two blocks (docs/ethos.md, "Verilated speed").
//!
//! Computed only in MAC and DECODE, the phases that issue taps, 0 otherwise (`groups` 4): the
//! traversal reads them only with `issue`, so in the other cycles, most of a network's when the
//! layer is not a convolution, the Verilated model skips them (docs/ethos.md, NPU step 6).
use super::conv_control::{STATE_DECODE, STATE_MAC};
use super::conv_datapath::DIM_BITS;
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

/// `last_u`: the tap's 8-channel group `u` is its IFM block's last (depth-first 4 a block,
/// part-kernel-first 2) or the IFM depth's. `kx_more`/`ky_more`: the sub-kernel (`cur_w` x
/// `cur_h`) has a next element in x / y (never in a packed block). `more_ifm`: an IFM block
/// follows the one at `cg_base`, `groups` (4, part-kernel-first 2) groups on. `last_tap`: the
/// tap is the OFM group's last (no element, group, sub-kernel or IFM block left; a packed
/// block's last cycle). `stalled`: the tap waits, the group's last while the output walk
/// could not take its accumulators (`drain_wait`), or in DECODE while its weight row is not
/// written (`row_ready`) or, the layer's last, until the decoder ends.
#[derive(LogicBlock)]
pub struct TapVerdicts {
    pub phase: Signal<In, Bits<3>>,
    pub u: Signal<In, Bits<2>>,
    pub cg_base: Signal<In, Bits<9>>,
    pub kx: Signal<In, Bits<3>>,
    pub ky: Signal<In, Bits<3>>,
    pub ifm_depth: Signal<In, Bits<DIM_BITS>>,
    pub depthwise: Signal<In, Bit>,
    pub part_kernel: Signal<In, Bit>,
    /// The current sub-kernel's sides and whether another follows in x / y (`sub_kernels.rs`).
    pub cur_w: Signal<In, Bits<4>>,
    pub cur_h: Signal<In, Bits<4>>,
    pub more_x: Signal<In, Bit>,
    pub more_y: Signal<In, Bit>,
    pub block_packed: Signal<In, Bit>,
    pub packed_last: Signal<In, Bit>,
    /// The OFM group is the layer's last; another 2x2 block follows in x / y (`block_walk.rs`).
    pub last_og: Signal<In, Bit>,
    pub block_more_x: Signal<In, Bit>,
    pub block_more_y: Signal<In, Bit>,
    pub drain_wait: Signal<In, Bit>,
    pub row_ready: Signal<In, Bit>,
    pub last_u: Signal<Out, Bit>,
    pub kx_more: Signal<Out, Bit>,
    pub ky_more: Signal<Out, Bit>,
    pub more_ifm: Signal<Out, Bit>,
    pub last_tap: Signal<Out, Bit>,
    pub stalled: Signal<Out, Bit>,
    pub groups: Signal<Out, Bits<9>>,

    ifm_depth13: ZeroExtend<12, 13>,
    ky4: ZeroExtend<3, 4>,
    kx4: ZeroExtend<3, 4>,
    u9: ZeroExtend<2, 9>,
    cg13: ZeroExtend<9, 13>,
    cg_base13: ZeroExtend<9, 13>,
    in_decode: Signal<Local, Bit>,
    cg: Signal<Local, Bits<9>>,
    u_last: Signal<Local, Bits<2>>,
    groups13: Signal<Local, Bits<13>>,
    layer_last: Signal<Local, Bit>,
    state_mac: Constant<Bits<3>>,
    state_decode: Constant<Bits<3>>,
    one2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    one4: Constant<Bits<4>>,
    two9: Constant<Bits<9>>,
    four9: Constant<Bits<9>>,
    one13: Constant<Bits<13>>,
    two13: Constant<Bits<13>>,
    four13: Constant<Bits<13>>,
    shift3: Constant<Bits<4>>,
}

impl Default for TapVerdicts {
    fn default() -> Self {
        Self {
            phase: Default::default(),
            u: Default::default(),
            cg_base: Default::default(),
            kx: Default::default(),
            ky: Default::default(),
            ifm_depth: Default::default(),
            depthwise: Default::default(),
            part_kernel: Default::default(),
            cur_w: Default::default(),
            cur_h: Default::default(),
            more_x: Default::default(),
            more_y: Default::default(),
            block_packed: Default::default(),
            packed_last: Default::default(),
            last_og: Default::default(),
            block_more_x: Default::default(),
            block_more_y: Default::default(),
            drain_wait: Default::default(),
            row_ready: Default::default(),
            last_u: Default::default(),
            kx_more: Default::default(),
            ky_more: Default::default(),
            more_ifm: Default::default(),
            last_tap: Default::default(),
            stalled: Default::default(),
            groups: Default::default(),
            ifm_depth13: Default::default(),
            ky4: Default::default(),
            kx4: Default::default(),
            u9: Default::default(),
            cg13: Default::default(),
            cg_base13: Default::default(),
            in_decode: Default::default(),
            cg: Default::default(),
            u_last: Default::default(),
            groups13: Default::default(),
            layer_last: Default::default(),
            state_mac: k(STATE_MAC),
            state_decode: k(STATE_DECODE),
            one2: k(1),
            three2: k(3),
            one4: k(1),
            two9: k(2),
            four9: k(4),
            one13: k(1),
            two13: k(2),
            four13: k(4),
            shift3: k(3),
        }
    }
}

impl Logic for TapVerdicts {
    #[hdl_gen]
    fn update(&mut self) {
        self.in_decode.next = self.phase.val() == self.state_decode.val();
        self.ifm_depth13.narrow.next = self.ifm_depth.val();
        self.u9.narrow.next = self.u.val();
        self.cg_base13.narrow.next = self.cg_base.val();
        self.ky4.narrow.next = self.ky.val();
        self.kx4.narrow.next = self.kx.val();
        self.cg.next = self.cg_base.val() + self.u9.wide.val();
        self.cg13.narrow.next = self.cg.val();
        self.u_last.next = self.three2.val();
        self.last_u.next = false;
        self.kx_more.next = false;
        self.ky_more.next = false;
        self.groups13.next = self.four13.val();
        self.groups.next = self.four9.val();
        self.more_ifm.next = false;
        self.last_tap.next = false;
        self.layer_last.next = false;
        self.stalled.next = false;
        if (self.phase.val() == self.state_mac.val()) | self.in_decode.val() {
            // The last 8-channel group of the IFM block: depth-first 4 a block, part-kernel-first 2.
            if self.part_kernel.val() {
                self.u_last.next = self.one2.val();
            }
            self.last_u.next = (self.u.val() == self.u_last.val())
                | (((self.cg13.wide.val() + self.one13.val()) << self.shift3.val()) >= self.ifm_depth13.wide.val());
            self.kx_more.next = ((self.kx4.wide.val() + self.one4.val()) < self.cur_w.val()) & !self.block_packed.val();
            self.ky_more.next = ((self.ky4.wide.val() + self.one4.val()) < self.cur_h.val()) & !self.block_packed.val();
            // The next IFM block: depth-first 4 groups (32 channels), part-kernel-first 2 (16).
            if self.part_kernel.val() {
                self.groups13.next = self.two13.val();
                self.groups.next = self.two9.val();
            }
            self.more_ifm.next = ((self.cg_base13.wide.val() + self.groups13.val()) << self.shift3.val()) < self.ifm_depth13.wide.val();

            // The group's last tap waits while the output walk could not take its accumulators.
            self.last_tap.next = (self.depthwise.val() | self.last_u.val())
                & !self.kx_more.val()
                & !self.ky_more.val()
                & !self.more_x.val()
                & !self.more_y.val()
                & (self.depthwise.val() | !self.more_ifm.val())
                & (!self.block_packed.val() | self.packed_last.val());
            self.layer_last.next = self.last_tap.val() & self.last_og.val() & !self.block_more_x.val() & !self.block_more_y.val();
            self.stalled.next = (self.last_tap.val() & self.drain_wait.val())
                | (self.in_decode.val() & (!self.row_ready.val() | self.layer_last.val()));
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(TapVerdicts::default, "tap_verdicts");
}
