//! The convolution datapath's output walk (`conv_datapath.rs`; TRM §2, digest §2; docs/ethos.md,
//! "Convolution datapath", output lanes): which accumulators of the drain bank (`conv_mac.rs`)
//! enter the 16 output lanes (`output_lanes.rs`), at which OFM element, while the traversal
//! (`conv_traversal.rs`) already walks the next OFM group's taps. Model:
//! `model/src/ethos/output_walk.rs`.
//!
//! A group's last tap (`issue_last`, with the group's 2x2 block and OFM group) accumulates in
//! the next cycle (stage 2); in the cycle after (stage 3, `load`) the bank takes the
//! accumulators and the walk the group's position, and from the next cycle it reads step
//! `k` (the OFM row of the 2x2 block) a cycle, 2 cycles: bank entries 16k + i for lane i =
//! 0..15 (lanes 0-7: position (row k, column 0), channels 8·og + i; lanes 8-15: (row k,
//! column 1), channels 8·og + i - 8), with their channels' parameters (`out_valid1`, a lane
//! mask: a lane reads only for an element inside the OFM, so the set lanes are lanes 0..n-1,
//! and 8..8+n-1 too when the right column is inside, n = 1..8 the channels left in the group;
//! `param_address`, the OFM group og = the channels' address in the 8 parameter memories),
//! then stage 2 (`out_valid2`, the element) beside the bank's registered read, and the
//! element's pipeline beside the output units (`ofm_*`, lane 0's element: row, left column,
//! channel 8·og). `must_wait`: a last tap now would load the bank before step 1 is read: only
//! when a load is two cycles away (`pend2`: the walk would read step 0 in the load's cycle and
//! step 1 after it); a load in this cycle (`pend3`) starts a walk whose step 1 is read in the
//! edge that a last tap issued now loads the bank at, which takes the old entries. So groups
//! of one tap cost 2 cycles and longer ones never wait. `finishing`: step 1 now and nothing
//! pending (OUT ends). Every register has `advance` (not held) as its enable.
use super::conv_datapath::DIM_BITS;
use crate::primitives::constant as k;
use crate::primitives::{Reg, RegEn, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct OutputWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    /// The traversal advances too (`advance` and not `hold_mac`): the pending group's
    /// registers and the load move only with it; the walk itself with `advance`.
    pub traverse: Signal<In, Bit>,
    /// CHECK: nothing pending, nothing to walk.
    pub restart: Signal<In, Bit>,
    pub issue_last: Signal<In, Bit>,
    pub block_y: Signal<In, Bits<13>>,
    pub block_x: Signal<In, Bits<13>>,
    pub og: Signal<In, Bits<9>>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    pub must_wait: Signal<Out, Bit>,
    pub finishing: Signal<Out, Bit>,
    /// A group drains (the walk's steps): the only cycles whose drain-bank read reaches the
    /// output lanes (`ConvMac`'s `draining`).
    pub draining: Signal<Out, Bit>,
    pub load: Signal<Out, Bit>,
    pub read_index: Signal<Out, Bit>,
    /// Lane i's element is inside the OFM (bit i).
    out_valid1: Signal<Local, Bits<16>>,
    /// The parameters' address of the step's channels, 8·og / 8.
    pub param_address: Signal<Out, Bits<9>>,
    /// The 8 parameter memories' read enables: memory j serves lanes j and j + 8 (the same
    /// channel at the row's two positions).
    pub param_read: Signal<Out, Bits<8>>,
    /// Stage 2's lane mask, none without `advance`.
    pub out_valid2: Signal<Out, Bits<16>>,
    /// The element leaving the output unit (stage 2 three cycles on, as its value, never held).
    pub ofm_y: Signal<Out, Bits<12>>,
    pub ofm_x: Signal<Out, Bits<12>>,
    pub ofm_channel: Signal<Out, Bits<12>>,

    pend2: RegEn<Bit>,
    pend3: RegEn<Bit>,
    p_y: RegEn<Bits<13>>,
    p_x: RegEn<Bits<13>>,
    p_og: RegEn<Bits<9>>,
    a_y: RegEn<Bits<13>>,
    a_x: RegEn<Bits<13>>,
    a_og: RegEn<Bits<9>>,
    busy: RegEn<Bit>,
    k: RegEn<Bit>,
    out_valid2_q: RegEn<Bits<16>>,
    ofm_y2_q: RegEn<Bits<12>>,
    ofm_x2_q: RegEn<Bits<12>>,
    ofm_c2_q: RegEn<Bits<12>>,
    y_pipe: [Reg<Bits<12>>; 3],
    x_pipe: [Reg<Bits<12>>; 3],
    c_pipe: [Reg<Bits<12>>; 3],

    ofm_height13: ZeroExtend<12, 13>,
    ofm_width13: ZeroExtend<12, 13>,
    ofm_depth13: ZeroExtend<12, 13>,
    og13: ZeroExtend<9, 13>,
    row1: Signal<Local, Bit>,
    col1: Signal<Local, Bit>,
    channel: Signal<Local, Bits<13>>,
    in_ofm: Signal<Local, Bit>,
    /// Channel 8·og + j of the step's row is inside the OFM.
    lanes: [Signal<Local, Bit>; 8],
    lane_index: [Constant<Bits<13>>; 8],
    /// Lanes 0..n-1, and the same with lanes 8..8+n-1, for n = 1..=8 (index n - 1).
    masks: [Constant<Bits<16>>; 8],
    both_masks: [Constant<Bits<16>>; 8],
    zero16: Constant<Bits<16>>,
    one12: Constant<Bits<12>>,
    one13: Constant<Bits<13>>,
    shift3: Constant<Bits<4>>,
}

impl Default for OutputWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            traverse: Default::default(),
            restart: Default::default(),
            issue_last: Default::default(),
            block_y: Default::default(),
            block_x: Default::default(),
            og: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            ofm_depth: Default::default(),
            must_wait: Default::default(),
            finishing: Default::default(),
            draining: Default::default(),
            load: Default::default(),
            read_index: Default::default(),
            out_valid1: Default::default(),
            param_address: Default::default(),
            param_read: Default::default(),
            out_valid2: Default::default(),
            ofm_y: Default::default(),
            ofm_x: Default::default(),
            ofm_channel: Default::default(),
            pend2: Default::default(),
            pend3: Default::default(),
            p_y: Default::default(),
            p_x: Default::default(),
            p_og: Default::default(),
            a_y: Default::default(),
            a_x: Default::default(),
            a_og: Default::default(),
            busy: Default::default(),
            k: Default::default(),
            out_valid2_q: Default::default(),
            ofm_y2_q: Default::default(),
            ofm_x2_q: Default::default(),
            ofm_c2_q: Default::default(),
            y_pipe: Default::default(),
            x_pipe: Default::default(),
            c_pipe: Default::default(),
            ofm_height13: Default::default(),
            ofm_width13: Default::default(),
            ofm_depth13: Default::default(),
            og13: Default::default(),
            row1: Default::default(),
            col1: Default::default(),
            channel: Default::default(),
            in_ofm: Default::default(),
            lanes: Default::default(),
            lane_index: std::array::from_fn(|j| k(j as u64)),
            masks: std::array::from_fn(|n| k((2u64 << n) - 1)),
            both_masks: std::array::from_fn(|n| k(((2u64 << n) - 1) * 0x101)),
            zero16: k(0),
            one12: k(1),
            one13: k(1),
            shift3: k(3),
        }
    }
}

impl Logic for OutputWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pend2, pend3, p_y, p_x, p_og, a_y, a_x, a_og, busy, k, out_valid2_q, ofm_y2_q, ofm_x2_q, ofm_c2_q);
        self.pend2.reset.next = self.reset.val();
        self.pend3.reset.next = self.reset.val();
        self.p_y.reset.next = self.reset.val();
        self.p_x.reset.next = self.reset.val();
        self.p_og.reset.next = self.reset.val();
        self.a_y.reset.next = self.reset.val();
        self.a_x.reset.next = self.reset.val();
        self.a_og.reset.next = self.reset.val();
        self.busy.reset.next = self.reset.val();
        self.k.reset.next = self.reset.val();
        self.out_valid2_q.reset.next = self.reset.val();
        self.ofm_y2_q.reset.next = self.reset.val();
        self.ofm_x2_q.reset.next = self.reset.val();
        self.ofm_c2_q.reset.next = self.reset.val();
        self.pend2.enable.next = self.advance.val() & self.traverse.val();
        self.pend3.enable.next = self.advance.val() & self.traverse.val();
        self.p_y.enable.next = self.advance.val() & self.traverse.val() & self.issue_last.val();
        self.p_x.enable.next = self.advance.val() & self.traverse.val() & self.issue_last.val();
        self.p_og.enable.next = self.advance.val() & self.traverse.val() & self.issue_last.val();
        self.a_y.enable.next = self.advance.val() & self.traverse.val() & self.pend3.q.val();
        self.a_x.enable.next = self.advance.val() & self.traverse.val() & self.pend3.q.val();
        self.a_og.enable.next = self.advance.val() & self.traverse.val() & self.pend3.q.val();
        self.busy.enable.next = self.advance.val();
        self.k.enable.next = self.advance.val();
        self.out_valid2_q.enable.next = self.advance.val();
        self.ofm_y2_q.enable.next = self.advance.val();
        self.ofm_x2_q.enable.next = self.advance.val();
        self.ofm_c2_q.enable.next = self.advance.val();

        self.must_wait.next = self.pend2.q.val();
        self.finishing.next = self.busy.q.val() & self.k.q.val() & !self.pend2.q.val() & !self.pend3.q.val();
        self.load.next = self.pend3.q.val();
        self.draining.next = self.busy.q.val();
        self.read_index.next = self.k.q.val();
        // Held, no element enters the output lanes: this gate reads a register and `advance`
        // alone, so it takes nothing of the walk into Verilator's input region (the parameters'
        // read enables, which would share the lane mask, are gated in `output_lanes.rs`).
        self.out_valid2.next = self.zero16.val();
        if self.advance.val() {
            self.out_valid2.next = self.out_valid2_q.q.val();
        }

        // The pending group, then the walk.
        self.pend2.d.next = self.issue_last.val() & !self.restart.val();
        self.pend3.d.next = self.pend2.q.val() & !self.restart.val();
        self.p_y.d.next = self.block_y.val();
        self.p_x.d.next = self.block_x.val();
        self.p_og.d.next = self.og.val();
        self.a_y.d.next = self.p_y.q.val();
        self.a_x.d.next = self.p_x.q.val();
        self.a_og.d.next = self.p_og.q.val();
        self.busy.d.next = self.busy.q.val();
        self.k.d.next = self.k.q.val();
        if self.busy.q.val() {
            self.k.d.next = !self.k.q.val();
            if self.k.q.val() {
                self.busy.d.next = false;
            }
        }
        if self.pend3.q.val() & self.traverse.val() {
            self.busy.d.next = true;
            self.k.d.next = false;
        }
        if self.restart.val() {
            self.busy.d.next = false;
            self.k.d.next = false;
        }

        // Step k (the block's row k): lane 0's channel 8·og, and which lanes' elements are
        // inside the OFM.
        self.ofm_height13.narrow.next = self.ofm_height.val();
        self.ofm_width13.narrow.next = self.ofm_width.val();
        self.ofm_depth13.narrow.next = self.ofm_depth.val();
        self.og13.narrow.next = self.a_og.q.val();
        self.channel.next = self.og13.wide.val() << self.shift3.val();
        self.param_address.next = self.a_og.q.val();
        // The lane mask is computed only while the walk is busy: idle, every lane is outside
        // (`busy` is in each lane's term) and the mask is 0, so the Verilated model skips the
        // bound checks in the cycles without a block to drain, most of an NPU's (docs/ethos.md,
        // "Verilated speed", NPU step 7). The defaults are the idle values.
        self.row1.next = false;
        self.col1.next = false;
        self.in_ofm.next = false;
        for j in 0..8 {
            self.lanes[j].next = false;
        }
        self.out_valid1.next = self.zero16.val();
        if self.busy.q.val() {
            self.row1.next = (self.a_y.q.val() + self.one13.val()) < self.ofm_height13.wide.val();
            self.col1.next = (self.a_x.q.val() + self.one13.val()) < self.ofm_width13.wide.val();
            self.in_ofm.next = !self.k.q.val() | self.row1.val();
            for j in 0..8 {
                self.lanes[j].next =
                    self.in_ofm.val() & ((self.channel.val() + self.lane_index[j].val()) < self.ofm_depth13.wide.val());
            }
            for j in 0..8 {
                if self.lanes[j].val() {
                    self.out_valid1.next = self.masks[j].val();
                    if self.col1.val() {
                        self.out_valid1.next = self.both_masks[j].val();
                    }
                }
            }
        }

        self.param_read.next = self.out_valid1.val().get_bits::<8>(0) | self.out_valid1.val().get_bits::<8>(8);

        // Stage 2, beside the bank's registered read.
        self.out_valid2_q.d.next = self.out_valid1.val();
        self.ofm_y2_q.d.next = self.a_y.q.val().get_bits::<12>(0);
        if self.k.q.val() {
            self.ofm_y2_q.d.next = self.a_y.q.val().get_bits::<12>(0) + self.one12.val();
        }
        self.ofm_x2_q.d.next = self.a_x.q.val().get_bits::<12>(0);
        self.ofm_c2_q.d.next = self.channel.val().get_bits::<12>(0);

        // The OFM address pipeline beside the output unit's three stages.
        for i in 0..3 {
            self.y_pipe[i].clock.next = self.clock.val();
            self.x_pipe[i].clock.next = self.clock.val();
            self.c_pipe[i].clock.next = self.clock.val();
            self.y_pipe[i].reset.next = self.reset.val();
            self.x_pipe[i].reset.next = self.reset.val();
            self.c_pipe[i].reset.next = self.reset.val();
        }
        self.y_pipe[0].d.next = self.ofm_y2_q.q.val();
        self.x_pipe[0].d.next = self.ofm_x2_q.q.val();
        self.c_pipe[0].d.next = self.ofm_c2_q.q.val();
        for i in 1..3 {
            self.y_pipe[i].d.next = self.y_pipe[i - 1].q.val();
            self.x_pipe[i].d.next = self.x_pipe[i - 1].q.val();
            self.c_pipe[i].d.next = self.c_pipe[i - 1].q.val();
        }
        self.ofm_y.next = self.y_pipe[2].q.val();
        self.ofm_x.next = self.x_pipe[2].q.val();
        self.ofm_channel.next = self.c_pipe[2].q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputWalk::default, "output_walk");
}
