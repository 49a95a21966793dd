//! The convolution datapath's MAC array with double-buffered accumulators (TRM L1027-1076,
//! digest §0, §5.1; docs/ethos.md, "Convolution datapath", overlapped output): the 32
//! dot-product units of the U65-256 shape (as [`super::MacUnit`], which stays the unit the MAC
//! tests drive) and a drain bank of 32 accumulators that takes all of them in one cycle
//! (`load`), so that the output lanes drain one OFM group while the next accumulates, reading
//! [`LANES`](super::output_lanes::LANES) (16) entries a cycle, one OFM row of the 2x2 block. Model:
//! `model/src/ethos/conv_mac.rs`.
use super::output_lanes::LANES;
use super::DotPair;
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
    /// 0 conv, 1 depthwise.
    pub mode: Signal<In, Bits<2>>,
    pub pad: Signal<In, Bits<4>>,
    pub act0: Signal<In, Bits<72>>,
    pub act1: Signal<In, Bits<72>>,
    pub act2: Signal<In, Bits<72>>,
    pub act3: Signal<In, Bits<72>>,
    pub w0: Signal<In, Bits<72>>,
    pub w1: Signal<In, Bits<72>>,
    pub w2: Signal<In, Bits<72>>,
    pub w3: Signal<In, Bits<72>>,
    pub w4: Signal<In, Bits<72>>,
    pub w5: Signal<In, Bits<72>>,
    pub w6: Signal<In, Bits<72>>,
    pub w7: Signal<In, Bits<72>>,
    /// The datapath is not held: the bank and `acc_out` may change.
    pub advance: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub read_index: Signal<In, Bit>,
    pub acc_out: [Signal<Out, Bits<40>>; LANES],
    /// Stage 2 runs a packed depthwise cycle (docs/ethos.md, "Depthwise tap packing"): unit
    /// (a, b, o), accumulator `8 * (2a + b) + o`, takes its operands from the second feed
    /// (`depthwise_feed.rs`) instead: act lane `3j + kx` is lane `o` of `win{j}{b + kx}`,
    /// weight lane `3j + kx` lane `o` of `k{a}{j}{kx}`, lanes 6 and 7 zero, no padding (the
    /// feed's words are 0 there); the caller sets the conv mode.
    pub packed_cycle: Signal<In, Bit>,
    pub win00: Signal<In, Bits<72>>,
    pub win01: Signal<In, Bits<72>>,
    pub win02: Signal<In, Bits<72>>,
    pub win03: Signal<In, Bits<72>>,
    pub win10: Signal<In, Bits<72>>,
    pub win11: Signal<In, Bits<72>>,
    pub win12: Signal<In, Bits<72>>,
    pub win13: Signal<In, Bits<72>>,
    pub k000: Signal<In, Bits<72>>,
    pub k001: Signal<In, Bits<72>>,
    pub k002: Signal<In, Bits<72>>,
    pub k010: Signal<In, Bits<72>>,
    pub k011: Signal<In, Bits<72>>,
    pub k012: Signal<In, Bits<72>>,
    pub k100: Signal<In, Bits<72>>,
    pub k101: Signal<In, Bits<72>>,
    pub k102: Signal<In, Bits<72>>,
    pub k110: Signal<In, Bits<72>>,
    pub k111: Signal<In, Bits<72>>,
    pub k112: Signal<In, Bits<72>>,
    /// Packed words: `operands[8b + o]` gives the window of column b (`act`, shared by both
    /// units of pair `8b + o`) and kernel row b's weights of channel o (`w`; row a's words are
    /// the same for both columns, so each pair takes row 0 from `operands[o]` and row 1 from
    /// `operands[8 + o]`).
    operands: [PackedOperands; 16],
    pairs: [DotPair; 16],
    bank: [RegEn<Bits<40>>; 32],
    acc_q: [RegEn<Bits<40>>; LANES],
    weights: [Signal<Local, Bits<72>>; 8],
}

impl Default for ConvMac {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            mode: Default::default(),
            pad: Default::default(),
            act0: Default::default(),
            act1: Default::default(),
            act2: Default::default(),
            act3: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            w4: Default::default(),
            w5: Default::default(),
            w6: Default::default(),
            w7: Default::default(),
            advance: Default::default(),
            load: Default::default(),
            read_index: Default::default(),
            acc_out: Default::default(),
            packed_cycle: Default::default(),
            win00: Default::default(),
            win01: Default::default(),
            win02: Default::default(),
            win03: Default::default(),
            win10: Default::default(),
            win11: Default::default(),
            win12: Default::default(),
            win13: Default::default(),
            k000: Default::default(),
            k001: Default::default(),
            k002: Default::default(),
            k010: Default::default(),
            k011: Default::default(),
            k012: Default::default(),
            k100: Default::default(),
            k101: Default::default(),
            k102: Default::default(),
            k110: Default::default(),
            k111: Default::default(),
            k112: Default::default(),
            operands: Default::default(),
            pairs: std::array::from_fn(|k| DotPair::new(k % 8)),
            bank: Default::default(),
            acc_q: Default::default(),
            weights: Default::default(),
        }
    }
}

impl Logic for ConvMac {
    #[hdl_gen]
    fn update(&mut self) {
        self.weights[0].next = self.w0.val();
        self.weights[1].next = self.w1.val();
        self.weights[2].next = self.w2.val();
        self.weights[3].next = self.w3.val();
        self.weights[4].next = self.w4.val();
        self.weights[5].next = self.w5.val();
        self.weights[6].next = self.w6.val();
        self.weights[7].next = self.w7.val();
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
            self.pairs[o].act_lo.next = self.act0.val();
            self.pairs[o].act_hi.next = self.act2.val();
            self.pairs[o].pad_lo.next = self.pad.val().get_bit(0);
            self.pairs[o].pad_hi.next = self.pad.val().get_bit(2);
            self.pairs[o].w.next = self.weights[o].val();
            self.pairs[8 + o].act_lo.next = self.act1.val();
            self.pairs[8 + o].act_hi.next = self.act3.val();
            self.pairs[8 + o].pad_lo.next = self.pad.val().get_bit(1);
            self.pairs[8 + o].pad_hi.next = self.pad.val().get_bit(3);
            self.pairs[8 + o].w.next = self.weights[o].val();
        }
        // The second feed (the `packed_cycle` doc above): column b's window and kernel row b's
        // weights of channel o in `operands[8b + o]`.
        for o in 0..8 {
            self.operands[o].a0.next = self.win00.val().get_bits::<9>(9 * o);
            self.operands[o].a1.next = self.win01.val().get_bits::<9>(9 * o);
            self.operands[o].a2.next = self.win02.val().get_bits::<9>(9 * o);
            self.operands[o].a3.next = self.win10.val().get_bits::<9>(9 * o);
            self.operands[o].a4.next = self.win11.val().get_bits::<9>(9 * o);
            self.operands[o].a5.next = self.win12.val().get_bits::<9>(9 * o);
            self.operands[o].k0.next = self.k000.val().get_bits::<9>(9 * o);
            self.operands[o].k1.next = self.k001.val().get_bits::<9>(9 * o);
            self.operands[o].k2.next = self.k002.val().get_bits::<9>(9 * o);
            self.operands[o].k3.next = self.k010.val().get_bits::<9>(9 * o);
            self.operands[o].k4.next = self.k011.val().get_bits::<9>(9 * o);
            self.operands[o].k5.next = self.k012.val().get_bits::<9>(9 * o);
            self.operands[8 + o].a0.next = self.win01.val().get_bits::<9>(9 * o);
            self.operands[8 + o].a1.next = self.win02.val().get_bits::<9>(9 * o);
            self.operands[8 + o].a2.next = self.win03.val().get_bits::<9>(9 * o);
            self.operands[8 + o].a3.next = self.win11.val().get_bits::<9>(9 * o);
            self.operands[8 + o].a4.next = self.win12.val().get_bits::<9>(9 * o);
            self.operands[8 + o].a5.next = self.win13.val().get_bits::<9>(9 * o);
            self.operands[8 + o].k0.next = self.k100.val().get_bits::<9>(9 * o);
            self.operands[8 + o].k1.next = self.k101.val().get_bits::<9>(9 * o);
            self.operands[8 + o].k2.next = self.k102.val().get_bits::<9>(9 * o);
            self.operands[8 + o].k3.next = self.k110.val().get_bits::<9>(9 * o);
            self.operands[8 + o].k4.next = self.k111.val().get_bits::<9>(9 * o);
            self.operands[8 + o].k5.next = self.k112.val().get_bits::<9>(9 * o);
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
