//! The convolution datapath's OFM block walk (`conv_traversal.rs`; TRM §4, digest §1.9, §5):
//! the 2x2 OFM block (`block_y`, `block_x`) and its first IFM row and column plus 8
//! (`origin_y`, `origin_x`, so that padding above and left stays non-negative), and the 8-channel
//! OFM group (`og`), in raster order of blocks within a group. `ConvTraversal` decides the step
//! from `more_x`, `more_y` and `last_og` and says which it takes: CHECK starts the layer
//! (`init`), a group's last tap moves to the next block in the row (`next_x`), the next row
//! (`next_y`), the next group's first block (`next_group`) or, after the layer's last, back to
//! group 0 (`layer_end`). Its own block so that the traversal stays under 500 lines
//! (docs/ethos.md, "Verilated speed", decoder step); the step's loads read only the inputs and
//! the registers, none of the values this block computes for `ConvTraversal`, so the two blocks
//! form no combinational loop in the Verilated model (UNOPTFLAT). `advance` (low while the
//! datapath is held) is the registers' clock enable, as in `ConvTraversal`.
use super::conv_datapath::DIM_BITS;
use crate::primitives::constant as k;
use crate::primitives::{RegEn, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BlockWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    pub pad_top: Signal<In, Bits<3>>,
    pub pad_left: Signal<In, Bits<3>>,
    /// The traversal is in DECODE or MAC, the only phases that read `more_*` and `last_og`
    /// (with `issue`): outside them they are 0 and Verilator skips them (issue 19).
    pub active: Signal<In, Bit>,
    /// The step `ConvTraversal` takes this cycle (at most one).
    pub init: Signal<In, Bit>,
    pub next_x: Signal<In, Bit>,
    pub next_y: Signal<In, Bit>,
    pub next_group: Signal<In, Bit>,
    pub layer_end: Signal<In, Bit>,
    pub block_y: Signal<Out, Bits<13>>,
    pub block_x: Signal<Out, Bits<13>>,
    pub origin_y: Signal<Out, Bits<14>>,
    pub origin_x: Signal<Out, Bits<14>>,
    pub og: Signal<Out, Bits<9>>,
    /// Another block follows in the row, another row of blocks follows; the group is the last.
    pub more_x: Signal<Out, Bit>,
    pub more_y: Signal<Out, Bit>,
    pub last_og: Signal<Out, Bit>,

    block_y_q: RegEn<Bits<13>>,
    block_x_q: RegEn<Bits<13>>,
    origin_y_q: RegEn<Bits<14>>,
    origin_x_q: RegEn<Bits<14>>,
    og_q: RegEn<Bits<9>>,
    ofm_depth13: ZeroExtend<12, 13>,
    ofm_height13: ZeroExtend<12, 13>,
    ofm_width13: ZeroExtend<12, 13>,
    stride_y14: ZeroExtend<2, 14>,
    stride_x14: ZeroExtend<2, 14>,
    pad_top14: ZeroExtend<3, 14>,
    pad_left14: ZeroExtend<3, 14>,
    og13: ZeroExtend<9, 13>,
    zero9: Constant<Bits<9>>,
    zero13: Constant<Bits<13>>,
    one9: Constant<Bits<9>>,
    one13: Constant<Bits<13>>,
    two13: Constant<Bits<13>>,
    eight14: Constant<Bits<14>>,
    shift1: Constant<Bits<4>>,
    shift3: Constant<Bits<4>>,
}

impl Default for BlockWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            ofm_depth: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            pad_top: Default::default(),
            pad_left: Default::default(),
            init: Default::default(),
            active: Default::default(),
            next_x: Default::default(),
            next_y: Default::default(),
            next_group: Default::default(),
            layer_end: Default::default(),
            block_y: Default::default(),
            block_x: Default::default(),
            origin_y: Default::default(),
            origin_x: Default::default(),
            og: Default::default(),
            more_x: Default::default(),
            more_y: Default::default(),
            last_og: Default::default(),
            block_y_q: Default::default(),
            block_x_q: Default::default(),
            origin_y_q: Default::default(),
            origin_x_q: Default::default(),
            og_q: Default::default(),
            ofm_depth13: Default::default(),
            ofm_height13: Default::default(),
            ofm_width13: Default::default(),
            stride_y14: Default::default(),
            stride_x14: Default::default(),
            pad_top14: Default::default(),
            pad_left14: Default::default(),
            og13: Default::default(),
            zero9: k(0),
            zero13: k(0),
            one9: k(1),
            one13: k(1),
            two13: k(2),
            eight14: k(8),
            shift1: k(1),
            shift3: k(3),
        }
    }
}

impl Logic for BlockWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, block_y_q, block_x_q, origin_y_q, origin_x_q, og_q);
        self.block_y_q.reset.next = self.reset.val();
        self.block_y_q.enable.next = self.advance.val();
        self.block_x_q.reset.next = self.reset.val();
        self.block_x_q.enable.next = self.advance.val();
        self.origin_y_q.reset.next = self.reset.val();
        self.origin_y_q.enable.next = self.advance.val();
        self.origin_x_q.reset.next = self.reset.val();
        self.origin_x_q.enable.next = self.advance.val();
        self.og_q.reset.next = self.reset.val();
        self.og_q.enable.next = self.advance.val();
        self.ofm_depth13.narrow.next = self.ofm_depth.val();
        self.ofm_height13.narrow.next = self.ofm_height.val();
        self.ofm_width13.narrow.next = self.ofm_width.val();
        self.stride_y14.narrow.next = self.stride_y.val();
        self.stride_x14.narrow.next = self.stride_x.val();
        self.pad_top14.narrow.next = self.pad_top.val();
        self.pad_left14.narrow.next = self.pad_left.val();
        self.og13.narrow.next = self.og_q.q.val();
        self.block_y.next = self.block_y_q.q.val();
        self.block_x.next = self.block_x_q.q.val();
        self.origin_y.next = self.origin_y_q.q.val();
        self.origin_x.next = self.origin_x_q.q.val();
        self.og.next = self.og_q.q.val();
        self.more_x.next = false;
        self.more_y.next = false;
        self.last_og.next = false;
        if self.active.val() {
            self.more_x.next = (self.block_x_q.q.val() + self.two13.val()) < self.ofm_width13.wide.val();
            self.more_y.next = (self.block_y_q.q.val() + self.two13.val()) < self.ofm_height13.wide.val();
            self.last_og.next = ((self.og13.wide.val() + self.one13.val()) << self.shift3.val()) >= self.ofm_depth13.wide.val();
        }

        if self.init.val() {
            self.block_y_q.d.next = self.zero13.val();
            self.block_x_q.d.next = self.zero13.val();
            self.origin_y_q.d.next = self.eight14.val() - self.pad_top14.wide.val();
            self.origin_x_q.d.next = self.eight14.val() - self.pad_left14.wide.val();
            self.og_q.d.next = self.zero9.val();
        }
        if self.next_x.val() {
            self.block_x_q.d.next = self.block_x_q.q.val() + self.two13.val();
            self.origin_x_q.d.next = self.origin_x_q.q.val() + (self.stride_x14.wide.val() << self.shift1.val());
        }
        if self.next_y.val() {
            self.block_x_q.d.next = self.zero13.val();
            self.block_y_q.d.next = self.block_y_q.q.val() + self.two13.val();
            self.origin_x_q.d.next = self.eight14.val() - self.pad_left14.wide.val();
            self.origin_y_q.d.next = self.origin_y_q.q.val() + (self.stride_y14.wide.val() << self.shift1.val());
        }
        if self.next_group.val() {
            self.og_q.d.next = self.og_q.q.val() + self.one9.val();
            self.block_x_q.d.next = self.zero13.val();
            self.block_y_q.d.next = self.zero13.val();
            self.origin_x_q.d.next = self.eight14.val() - self.pad_left14.wide.val();
            self.origin_y_q.d.next = self.eight14.val() - self.pad_top14.wide.val();
        }
        if self.layer_end.val() {
            // back to the first group; the layer's last tap
            self.og_q.d.next = self.zero9.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(BlockWalk::default, "block_walk");
}
