//! Ethos-U65 MAC unit of the U65-256 shape (TRM L1033-1076, Tables 4-126..129; digest §0, §5.1):
//! per cycle 2x2 OFM positions x 8 OFM channels x 8 IFM channels = 256 MACs of 9-bit signed
//! operands (int8 activations minus their zero point, int8 weights), 40-bit accumulators. Model
//! and modes: `model/src/ethos/mac_unit.rs`.
use super::DotPair;
use rust_hdl::prelude::*;

/// 32 dot-product units, accumulator `8p + o` for OFM position `p` (0..4: (0,0), (0,1), (1,0),
/// (1,1)) and OFM channel `o` (0..8), in 16 [`DotPair`]s: `pairs[8p + o]` (p 0, 1) holds
/// accumulators `8p + o` (`acc_lo`) and `8(p + 2) + o` (`acc_hi`), which share the weight word. `act0..act3` carry the 8 IFM channels of each position
/// (lane `i` = bits `9i+8:9i`), `w0..w7` the 8 IFM-channel weights of each OFM channel (for
/// depthwise, channel `o`'s weight in lane `o`). `pad[p]` marks a position outside the IFM.
/// `acc_out` is accumulator `read_index` (8p + o), as the output unit takes them one a cycle.
#[derive(LogicBlock)]
pub struct MacUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    /// 0 conv, 1 depthwise, 2 max pooling.
    pub mode: Signal<In, Bits<2>>,
    pub act16_high: Signal<In, Bit>,
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
    pub read_index: Signal<In, Bits<5>>,
    pub acc_out: Signal<Out, Bits<40>>,
    pairs: [DotPair; 16],
    index: [Constant<Bits<5>>; 32],
    weights: [Signal<Local, Bits<72>>; 8],
    zero54: Constant<Bits<54>>,
}

impl Default for MacUnit {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            mode: Default::default(),
            act16_high: Default::default(),
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
            read_index: Default::default(),
            acc_out: Default::default(),
            pairs: std::array::from_fn(|k| DotPair::new(k % 8)),
            index: std::array::from_fn(|k| Constant::new((k as u64).into())),
            weights: Default::default(),
            zero54: Constant::new(0u64.into()),
        }
    }
}

impl Logic for MacUnit {
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
        self.acc_out.next = self.pairs[0].acc_lo.val();
        for k in 0..16 {
            self.pairs[k].clock.next = self.clock.val();
            self.pairs[k].reset.next = self.reset.val();
            self.pairs[k].enable.next = self.enable.val();
            self.pairs[k].clear.next = self.clear.val();
            self.pairs[k].mode.next = self.mode.val();
            self.pairs[k].act16_high.next = self.act16_high.val();
            // No packed depthwise feed here (`conv_mac.rs` has one).
            self.pairs[k].packed_cycle.next = false;
            self.pairs[k].pact.next = self.zero54.val();
            self.pairs[k].pw_lo.next = self.zero54.val();
            self.pairs[k].pw_hi.next = self.zero54.val();
            if self.read_index.val() == self.index[k].val() {
                self.acc_out.next = self.pairs[k].acc_lo.val();
            }
            if self.read_index.val() == self.index[16 + k].val() {
                self.acc_out.next = self.pairs[k].acc_hi.val();
            }
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
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(MacUnit::default, "mac_unit");
}
