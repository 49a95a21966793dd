//! The convolution datapath's MAC array with double-buffered accumulators (TRM L1027-1076,
//! digest §0, §5.1; docs/ethos.md, "Convolution datapath", overlapped output): the 32
//! dot-product units of the U65-256 shape (as [`super::MacUnit`], which stays the unit the MAC
//! tests drive) and a drain bank of 32 accumulators that takes all of them in one cycle
//! (`load`), so that the output lanes drain one OFM group while the next accumulates, reading
//! [`LANES`](super::output_lanes::LANES) (16) entries a cycle, one OFM row of the 2x2 block. Model:
//! `model/src/ethos/conv_mac.rs`.
use super::output_lanes::LANES;
use super::DotPair;
use crate::primitives::constant as k;
use crate::primitives::{PackedOperands, RegEn};
use rust_hdl::prelude::*;

/// Accumulator `8p + o` for OFM position `p` and channel `o`, fed as [`super::MacUnit`]'s and
/// paired as its are: `pairs[8p + o]` (p 0, 1) holds `8p + o` and `8(p + 2) + o`. `load`
/// (with `advance`) copies every accumulator into the bank at the clock edge, the same edge at
/// which the units may clear for the next group (the bank takes the old values). `acc_out[i]`
/// are registers: bank entries `16 * read_index + i` of the previous `advance` cycle (the 16
/// output lanes: OFM row `read_index` of the 2x2 block, lanes 0-7 its left position's 8
/// channels, lanes 8-15 its right one's).
#[derive(LogicBlock)]
pub struct ConvMac {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    /// The layer is depthwise: the depthwise mode (1), except in a packed cycle, which runs
    /// the conv mode (0) on the second feed.
    pub depthwise: Signal<In, Bit>,
    pub pad: Signal<In, Bits<4>>,
    /// OFM position p's IFM lanes, and the weight row's 8 words (word o: OFM channel o).
    pub act: [Signal<In, Bits<72>>; 4],
    pub w: [Signal<In, Bits<72>>; 8],
    /// The datapath is not held: the bank and `acc_out` may change.
    pub advance: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub read_index: Signal<In, Bit>,
    pub acc_out: [Signal<Out, Bits<40>>; LANES],
    /// Stage 2 runs a packed depthwise cycle (docs/ethos.md, "Depthwise tap packing"): unit
    /// (a, b, o), accumulator `8 * (2a + b) + o`, takes its operands from the second feed
    /// (`depthwise_feed.rs`) instead: act lane `3j + kx` is lane `o` of `win[4j + b + kx]`,
    /// weight lane `3j + kx` lane `o` of `kernel[6a + 3j + kx]`, lanes 6 and 7 zero, no padding
    /// (the feed's words are 0 there), in the conv mode.
    pub packed_cycle: Signal<In, Bit>,
    pub win: [Signal<In, Bits<72>>; 8],
    pub kernel: [Signal<In, Bits<72>>; 12],
    /// Packed words: `operands[8b + o]` gives the window of column b (`act`, shared by both
    /// units of pair `8b + o`) and kernel row b's weights of channel o (`w`; row a's words are
    /// the same for both columns, so each pair takes row 0 from `operands[o]` and row 1 from
    /// `operands[8 + o]`).
    operands: [PackedOperands; 16],
    pairs: [DotPair; 16],
    bank: [RegEn<Bits<40>>; 32],
    acc_q: [RegEn<Bits<40>>; LANES],
    mode: Signal<Local, Bits<2>>,
    conv_mode: Constant<Bits<2>>,
    depthwise_mode: Constant<Bits<2>>,
}

impl Default for ConvMac {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            depthwise: Default::default(),
            pad: Default::default(),
            act: Default::default(),
            w: Default::default(),
            advance: Default::default(),
            load: Default::default(),
            read_index: Default::default(),
            acc_out: Default::default(),
            packed_cycle: Default::default(),
            win: Default::default(),
            kernel: Default::default(),
            operands: Default::default(),
            pairs: std::array::from_fn(|k| DotPair::new(k % 8)),
            bank: Default::default(),
            acc_q: Default::default(),
            mode: Default::default(),
            conv_mode: k(0),
            depthwise_mode: k(1),
        }
    }
}

impl Logic for ConvMac {
    #[hdl_gen]
    fn update(&mut self) {
        self.mode.next = self.conv_mode.val();
        if self.depthwise.val() & !self.packed_cycle.val() {
            self.mode.next = self.depthwise_mode.val();
        }
        for i in 0..16 {
            self.acc_q[i].clock.next = self.clock.val();
            self.acc_q[i].reset.next = self.reset.val();
            self.acc_q[i].enable.next = self.advance.val();
            self.acc_q[i].d.next = self.bank[i].q.val();
            if self.read_index.val() {
                self.acc_q[i].d.next = self.bank[16 + i].q.val();
            }
            self.acc_out[i].next = self.acc_q[i].q.val();
        }
        for k in 0..16 {
            self.pairs[k].clock.next = self.clock.val();
            self.pairs[k].reset.next = self.reset.val();
            self.pairs[k].enable.next = self.enable.val();
            self.pairs[k].clear.next = self.clear.val();
            self.pairs[k].mode.next = self.mode.val();
            self.pairs[k].act16_high.next = false;
        }
        for k in 0..32 {
            self.bank[k].clock.next = self.clock.val();
            self.bank[k].reset.next = self.reset.val();
            self.bank[k].enable.next = self.load.val() & self.advance.val();
        }
        for k in 0..16 {
            self.bank[k].d.next = self.pairs[k].acc_lo.val();
            self.bank[16 + k].d.next = self.pairs[k].acc_hi.val();
        }
        for o in 0..8 {
            self.pairs[o].act_lo.next = self.act[0].val();
            self.pairs[o].act_hi.next = self.act[2].val();
            self.pairs[o].pad_lo.next = self.pad.val().get_bit(0);
            self.pairs[o].pad_hi.next = self.pad.val().get_bit(2);
            self.pairs[o].w.next = self.w[o].val();
            self.pairs[8 + o].act_lo.next = self.act[1].val();
            self.pairs[8 + o].act_hi.next = self.act[3].val();
            self.pairs[8 + o].pad_lo.next = self.pad.val().get_bit(1);
            self.pairs[8 + o].pad_hi.next = self.pad.val().get_bit(3);
            self.pairs[8 + o].w.next = self.w[o].val();
        }
        // The second feed (the `packed_cycle` doc above): column b's window and kernel row b's
        // weights of channel o in `operands[8b + o]`.
        for o in 0..8 {
            self.operands[o].a0.next = self.win[0].val().get_bits::<9>(9 * o);
            self.operands[o].a1.next = self.win[1].val().get_bits::<9>(9 * o);
            self.operands[o].a2.next = self.win[2].val().get_bits::<9>(9 * o);
            self.operands[o].a3.next = self.win[4].val().get_bits::<9>(9 * o);
            self.operands[o].a4.next = self.win[5].val().get_bits::<9>(9 * o);
            self.operands[o].a5.next = self.win[6].val().get_bits::<9>(9 * o);
            self.operands[o].k0.next = self.kernel[0].val().get_bits::<9>(9 * o);
            self.operands[o].k1.next = self.kernel[1].val().get_bits::<9>(9 * o);
            self.operands[o].k2.next = self.kernel[2].val().get_bits::<9>(9 * o);
            self.operands[o].k3.next = self.kernel[3].val().get_bits::<9>(9 * o);
            self.operands[o].k4.next = self.kernel[4].val().get_bits::<9>(9 * o);
            self.operands[o].k5.next = self.kernel[5].val().get_bits::<9>(9 * o);
            self.operands[8 + o].a0.next = self.win[1].val().get_bits::<9>(9 * o);
            self.operands[8 + o].a1.next = self.win[2].val().get_bits::<9>(9 * o);
            self.operands[8 + o].a2.next = self.win[3].val().get_bits::<9>(9 * o);
            self.operands[8 + o].a3.next = self.win[5].val().get_bits::<9>(9 * o);
            self.operands[8 + o].a4.next = self.win[6].val().get_bits::<9>(9 * o);
            self.operands[8 + o].a5.next = self.win[7].val().get_bits::<9>(9 * o);
            self.operands[8 + o].k0.next = self.kernel[6].val().get_bits::<9>(9 * o);
            self.operands[8 + o].k1.next = self.kernel[7].val().get_bits::<9>(9 * o);
            self.operands[8 + o].k2.next = self.kernel[8].val().get_bits::<9>(9 * o);
            self.operands[8 + o].k3.next = self.kernel[9].val().get_bits::<9>(9 * o);
            self.operands[8 + o].k4.next = self.kernel[10].val().get_bits::<9>(9 * o);
            self.operands[8 + o].k5.next = self.kernel[11].val().get_bits::<9>(9 * o);
        }
        // The pair chooses between its two feeds in its clocked process (`DotPair`).
        for k in 0..16 {
            self.operands[k].enable.next = self.packed_cycle.val();
            self.pairs[k].packed_cycle.next = self.packed_cycle.val();
            self.pairs[k].pact.next = self.operands[k].act.val();
        }
        for o in 0..8 {
            self.pairs[o].pw_lo.next = self.operands[o].w.val();
            self.pairs[o].pw_hi.next = self.operands[8 + o].w.val();
            self.pairs[8 + o].pw_lo.next = self.operands[o].w.val();
            self.pairs[8 + o].pw_hi.next = self.operands[8 + o].w.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvMac::default, "conv_mac");
}
