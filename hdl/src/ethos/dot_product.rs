//! One Ethos-U65 dot-product unit: the accumulator of one OFM channel at one OFM position,
//! fed 8 IFM channels a cycle (TRM L1033-1076; digest §0, §5.1). Model:
//! `model/src/ethos/mac_unit.rs`, which documents the modes.
use crate::primitives::{Dot8, Reg, SignExtendBits};
use rust_hdl::prelude::*;

/// Conv (`mode` 0): `acc (+)= Σ act[i]·w[i]`; depthwise (1): `acc (+)= act[own]·w[own]`; max
/// pooling (2): `acc = max(acc, act[own])`. `clear` starts a new accumulation (`=` instead of
/// `+=`); `act16_high` marks the high byte of 16-bit activations (its products count 256
/// times); `pad` marks an OFM position whose input is outside the IFM (adds nothing, and is
/// ignored by max). Changes only when `enable`; the accumulator is 40 bits, wrapping.
#[derive(LogicBlock)]
pub struct DotProduct {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub mode: Signal<In, Bits<2>>,
    pub act16_high: Signal<In, Bit>,
    pub pad: Signal<In, Bit>,
    pub act: Signal<In, Bits<72>>,
    pub w: Signal<In, Bits<72>>,
    pub acc: Signal<Out, Bits<40>>,

    dot: Dot8,
    sum: SignExtendBits<21, 40>,
    own_act: SignExtendBits<9, 40>,
    accumulator: Reg<Bits<40>>,
    own: Constant<Bits<7>>,
    own_lane: Constant<Bits<8>>,
    all_lanes: Constant<Bits<8>>,
    depthwise: Constant<Bits<2>>,
    max_pool: Constant<Bits<2>>,
    eight: Constant<Bits<40>>,
    /// 2^39: the sign bit, and the most negative accumulator (a cleared max).
    sign: Constant<Bits<40>>,
    zero: Constant<Bits<40>>,
    term: Signal<Local, Bits<40>>,
}

impl DotProduct {
    /// The unit of OFM channel `own` (0..8) of its group of 8.
    pub fn new(own: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            mode: Default::default(),
            act16_high: Default::default(),
            pad: Default::default(),
            act: Default::default(),
            w: Default::default(),
            acc: Default::default(),
            dot: Default::default(),
            sum: Default::default(),
            own_act: Default::default(),
            accumulator: Default::default(),
            own: Constant::new(((9 * own) as u64).into()),
            own_lane: Constant::new((1u64 << own).into()),
            all_lanes: Constant::new(0xFF.into()),
            depthwise: Constant::new(1.into()),
            max_pool: Constant::new(2.into()),
            eight: Constant::new(8.into()),
            sign: Constant::new((1u64 << 39).into()),
            zero: Constant::new(0.into()),
            term: Default::default(),
        }
    }
}

impl Logic for DotProduct {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, accumulator);
        self.accumulator.reset.next = self.reset.val();
        self.dot.a.next = self.act.val();
        self.dot.b.next = self.w.val();
        self.dot.lanes.next = self.all_lanes.val();
        if self.mode.val() == self.depthwise.val() {
            self.dot.lanes.next = self.own_lane.val();
        }
        self.sum.narrow.next = self.dot.sum.val();
        self.own_act.narrow.next = self.act.val().get_bits::<9>(self.own.val().index());
        self.term.next = self.sum.wide.val();
        if self.act16_high.val() {
            self.term.next = self.sum.wide.val() << self.eight.val();
        }
        if self.pad.val() {
            self.term.next = self.zero.val();
        }
        if self.enable.val() {
            if self.mode.val() == self.max_pool.val() {
                // Signed compare: with the sign bits flipped, the order is the unsigned one.
                if self.clear.val() {
                    self.accumulator.d.next = self.sign.val();
                    if !self.pad.val() {
                        self.accumulator.d.next = self.own_act.wide.val();
                    }
                } else if !self.pad.val()
                    & ((self.own_act.wide.val() ^ self.sign.val()) > (self.accumulator.q.val() ^ self.sign.val()))
                {
                    self.accumulator.d.next = self.own_act.wide.val();
                }
            } else if self.clear.val() {
                self.accumulator.d.next = self.term.val();
            } else {
                self.accumulator.d.next = self.accumulator.q.val() + self.term.val();
            }
        }
        self.acc.next = self.accumulator.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DotProduct::new(3), "dot_product");
}
