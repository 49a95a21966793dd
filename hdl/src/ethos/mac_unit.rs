//! Ethos-U65 MAC unit of the U65-256 shape (TRM L1033-1076, Tables 4-126..129; digest §0, §5.1):
//! per cycle 2x2 OFM positions x 8 OFM channels x 8 IFM channels = 256 MACs of 9-bit signed
//! operands (int8 activations minus their zero point, int8 weights), 40-bit accumulators. Model
//! and modes: `model/src/ethos/mac_unit.rs`.
use super::DotProduct;
use rust_hdl::prelude::*;

/// 32 [`DotProduct`] units, `dots[8p + o]` for OFM position `p` (0..4: (0,0), (0,1), (1,0),
/// (1,1)) and OFM channel `o` (0..8). `act0..act3` carry the 8 IFM channels of each position
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
    dots: [DotProduct; 32],
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
            dots: std::array::from_fn(|k| DotProduct::new(k % 8)),
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
        self.acc_out.next = self.dots[0].acc.val();
        for k in 0..32 {
            self.dots[k].clock.next = self.clock.val();
            self.dots[k].reset.next = self.reset.val();
            self.dots[k].enable.next = self.enable.val();
            self.dots[k].clear.next = self.clear.val();
            self.dots[k].mode.next = self.mode.val();
            self.dots[k].act16_high.next = self.act16_high.val();
            // No packed depthwise feed here (`conv_mac.rs` has one).
            self.dots[k].packed_cycle.next = false;
            self.dots[k].pact.next = self.zero54.val();
            self.dots[k].pw.next = self.zero54.val();
            if self.read_index.val() == self.index[k].val() {
                self.acc_out.next = self.dots[k].acc.val();
            }
        }
        for o in 0..8 {
            self.dots[o].act.next = self.act0.val();
            self.dots[o].pad.next = self.pad.val().get_bit(0);
            self.dots[o].w.next = self.weights[o].val();
            self.dots[8 + o].act.next = self.act1.val();
            self.dots[8 + o].pad.next = self.pad.val().get_bit(1);
            self.dots[8 + o].w.next = self.weights[o].val();
            self.dots[16 + o].act.next = self.act2.val();
            self.dots[16 + o].pad.next = self.pad.val().get_bit(2);
            self.dots[16 + o].w.next = self.weights[o].val();
            self.dots[24 + o].act.next = self.act3.val();
            self.dots[24 + o].pad.next = self.pad.val().get_bit(3);
            self.dots[24 + o].w.next = self.weights[o].val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(MacUnit::default, "mac_unit");
}
