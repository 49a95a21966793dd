//! The kernel unit's 8 elementwise lanes (TRM §4.6; digest `shared/spec/ethos-u65.md`
//! §2.2-§2.3; issue 19, docs/ethos.md "Elementwise unit timing", *Word mode*): an ELEMENTWISE
//! a word of channels at a time computes the OFM bytes of 8 channels in one cycle, lane i from
//! byte i of the IFM word and of the IFM2 word (or the IFM2 scalar). Each lane is the
//! element-at-a-time arithmetic of `elementwise_datapath.rs` (operands minus their zero
//! points, swapped by IFM2_BROADCAST bit 6, the elementwise ALU `elementwise_alu.rs`, then the
//! output unit's two stages `ScaleProduct` and `Requantize` of `requantize.rs`), built from the
//! same blocks, not rewritten. A sub-block of `elementwise_datapath.rs`; the model is
//! `model/src/ethos/elementwise_lanes.rs`.
//!
//! Ports: `enable` (the word's result is taken this cycle: the lanes compute only then, as the
//! datapath's `calc`), `ifm_word`, `ifm2_word` and the LATCHed copies the datapath reads; out:
//! `w_data`, lane i's OFM byte at bits 8i+7:8i. Lanes beyond the map's last channel compute
//! bytes nobody writes (the OFM strobes leave them out). Combinational: its inputs are
//! registers of the unit.
use super::elementwise_alu::ElementwiseAlu;
use super::requantize::{Requantize, ScaleProduct};
use crate::primitives::constant as k;
use crate::primitives::{Concat, SignExtendBits, ZeroExtend};
use rust_hdl::prelude::*;

/// One lane: the OFM byte of one channel from its IFM byte `a` and IFM2 byte `b`.
#[derive(LogicBlock)]
pub struct ElementwiseLane {
    pub enable: Signal<In, Bit>,
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    /// The zero points as 18-bit operands (the IFM2's signed or not), the IFM2 operand when it
    /// is the scalar (already minus its zero point), and whether it is.
    pub ifm_zp18: Signal<In, Bits<18>>,
    pub ifm2_zp18: Signal<In, Bits<18>>,
    pub scalar18: Signal<In, Bits<18>>,
    pub scalar_operand: Signal<In, Bit>,
    pub swap: Signal<In, Bit>,
    pub mode: Signal<In, Bits<3>>,
    pub scale_mode: Signal<In, Bits<2>>,
    pub opa_scale: Signal<In, Bits<38>>,
    pub opb_scale: Signal<In, Bits<16>>,
    pub ofm_scale: Signal<In, Bits<38>>,
    pub rounding: Signal<In, Bits<2>>,
    pub ofm_zero_point: Signal<In, Bits<16>>,
    pub activation_min: Signal<In, Bits<16>>,
    pub activation_max: Signal<In, Bits<16>>,
    pub value: Signal<Out, Bits<8>>,
    alu: ElementwiseAlu,
    scale_product: ScaleProduct,
    requantize: Requantize,
    a18: SignExtendBits<8, 18>,
    b18: SignExtendBits<8, 18>,
    first: Signal<Local, Bits<18>>,
    second: Signal<Local, Bits<18>>,
    /// Bits read nowhere, named as lint expects.
    unused_bits: Signal<Local, Bit>,
    zero40: Constant<Bits<40>>,
}

impl Default for ElementwiseLane {
    fn default() -> Self {
        Self {
            enable: Default::default(),
            a: Default::default(),
            b: Default::default(),
            ifm_zp18: Default::default(),
            ifm2_zp18: Default::default(),
            scalar18: Default::default(),
            scalar_operand: Default::default(),
            swap: Default::default(),
            mode: Default::default(),
            scale_mode: Default::default(),
            opa_scale: Default::default(),
            opb_scale: Default::default(),
            ofm_scale: Default::default(),
            rounding: Default::default(),
            ofm_zero_point: Default::default(),
            activation_min: Default::default(),
            activation_max: Default::default(),
            value: Default::default(),
            alu: Default::default(),
            scale_product: Default::default(),
            requantize: Default::default(),
            a18: Default::default(),
            b18: Default::default(),
            first: Default::default(),
            second: Default::default(),
            unused_bits: Default::default(),
            zero40: k(0),
        }
    }
}

impl Logic for ElementwiseLane {
    #[hdl_gen]
    fn update(&mut self) {
        self.a18.narrow.next = self.a.val();
        self.b18.narrow.next = self.b.val();
        self.first.next = self.a18.wide.val() - self.ifm_zp18.val();
        self.second.next = self.b18.wide.val() - self.ifm2_zp18.val();
        if self.scalar_operand.val() {
            self.second.next = self.scalar18.val();
        }
        self.alu.enable.next = self.enable.val();
        self.scale_product.enable.next = self.enable.val();
        self.requantize.enable.next = self.enable.val();
        self.alu.mode.next = self.mode.val();
        self.alu.scale_mode.next = self.scale_mode.val();
        self.alu.a.next = self.first.val();
        self.alu.b.next = self.second.val();
        if self.swap.val() {
            self.alu.a.next = self.second.val();
            self.alu.b.next = self.first.val();
        }
        self.alu.opa_scale.next = self.opa_scale.val().get_bits::<32>(0);
        self.alu.opa_shift.next = self.opa_scale.val().get_bits::<6>(32);
        self.alu.opb_scale.next = self.opb_scale.val();
        self.scale_product.acc.next = self.alu.result.val();
        self.scale_product.bias.next = self.zero40.val();
        self.scale_product.scale.next = self.ofm_scale.val().get_bits::<32>(0);
        self.requantize.shift.next = self.ofm_scale.val().get_bits::<6>(32);
        self.requantize.product.next = self.scale_product.product.val();
        self.requantize.rounding.next = self.rounding.val();
        self.requantize.zero_point.next = self.ofm_zero_point.val();
        self.requantize.act_min.next = self.activation_min.val();
        self.requantize.act_max.next = self.activation_max.val();
        self.value.next = self.requantize.value.val().get_bits::<8>(0);
        self.unused_bits.next = self.requantize.value.val().get_bits::<8>(8).any();
    }
}

/// The 8 lanes and the operands they share.
#[derive(LogicBlock)]
pub struct ElementwiseLanes {
    pub enable: Signal<In, Bit>,
    pub ifm_word: Signal<In, Bits<64>>,
    pub ifm2_word: Signal<In, Bits<64>>,
    pub ifm_zero_point: Signal<In, Bits<16>>,
    pub ifm2_zero_point: Signal<In, Bits<16>>,
    /// IFM2_PRECISION[0]: the IFM2 zero point is signed.
    pub ifm2_signed: Signal<In, Bit>,
    pub ifm2_scalar: Signal<In, Bits<16>>,
    pub scalar_operand: Signal<In, Bit>,
    pub swap: Signal<In, Bit>,
    pub mode: Signal<In, Bits<3>>,
    pub scale_mode: Signal<In, Bits<2>>,
    pub opa_scale: Signal<In, Bits<38>>,
    pub opb_scale: Signal<In, Bits<16>>,
    pub ofm_scale: Signal<In, Bits<38>>,
    pub rounding: Signal<In, Bits<2>>,
    pub ofm_zero_point: Signal<In, Bits<16>>,
    pub activation_min: Signal<In, Bits<16>>,
    pub activation_max: Signal<In, Bits<16>>,
    pub w_data: Signal<Out, Bits<64>>,
    lane: [ElementwiseLane; 8],
    ifm_zp18: SignExtendBits<16, 18>,
    ifm2_zp18_signed: SignExtendBits<16, 18>,
    ifm2_zp18_unsigned: ZeroExtend<16, 18>,
    scalar18: SignExtendBits<16, 18>,
    ifm2_zp18: Signal<Local, Bits<18>>,
    pairs: [Concat<8, 8, 16>; 4],
    quads: [Concat<16, 16, 32>; 2],
    word: Concat<32, 32, 64>,
}

impl Default for ElementwiseLanes {
    fn default() -> Self {
        Self {
            enable: Default::default(),
            ifm_word: Default::default(),
            ifm2_word: Default::default(),
            ifm_zero_point: Default::default(),
            ifm2_zero_point: Default::default(),
            ifm2_signed: Default::default(),
            ifm2_scalar: Default::default(),
            scalar_operand: Default::default(),
            swap: Default::default(),
            mode: Default::default(),
            scale_mode: Default::default(),
            opa_scale: Default::default(),
            opb_scale: Default::default(),
            ofm_scale: Default::default(),
            rounding: Default::default(),
            ofm_zero_point: Default::default(),
            activation_min: Default::default(),
            activation_max: Default::default(),
            w_data: Default::default(),
            lane: Default::default(),
            ifm_zp18: Default::default(),
            ifm2_zp18_signed: Default::default(),
            ifm2_zp18_unsigned: Default::default(),
            scalar18: Default::default(),
            ifm2_zp18: Default::default(),
            pairs: Default::default(),
            quads: Default::default(),
            word: Default::default(),
        }
    }
}

impl Logic for ElementwiseLanes {
    #[hdl_gen]
    fn update(&mut self) {
        self.ifm_zp18.narrow.next = self.ifm_zero_point.val();
        self.ifm2_zp18_signed.narrow.next = self.ifm2_zero_point.val();
        self.ifm2_zp18_unsigned.narrow.next = self.ifm2_zero_point.val();
        self.scalar18.narrow.next = self.ifm2_scalar.val();
        self.ifm2_zp18.next = self.ifm2_zp18_unsigned.wide.val();
        if self.ifm2_signed.val() {
            self.ifm2_zp18.next = self.ifm2_zp18_signed.wide.val();
        }
        for i in 0..8 {
            self.lane[i].enable.next = self.enable.val();
            self.lane[i].a.next = self.ifm_word.val().get_bits::<8>(8 * i);
            self.lane[i].b.next = self.ifm2_word.val().get_bits::<8>(8 * i);
            self.lane[i].ifm_zp18.next = self.ifm_zp18.wide.val();
            self.lane[i].ifm2_zp18.next = self.ifm2_zp18.val();
            self.lane[i].scalar18.next = self.scalar18.wide.val() - self.ifm2_zp18.val();
            self.lane[i].scalar_operand.next = self.scalar_operand.val();
            self.lane[i].swap.next = self.swap.val();
            self.lane[i].mode.next = self.mode.val();
            self.lane[i].scale_mode.next = self.scale_mode.val();
            self.lane[i].opa_scale.next = self.opa_scale.val();
            self.lane[i].opb_scale.next = self.opb_scale.val();
            self.lane[i].ofm_scale.next = self.ofm_scale.val();
            self.lane[i].rounding.next = self.rounding.val();
            self.lane[i].ofm_zero_point.next = self.ofm_zero_point.val();
            self.lane[i].activation_min.next = self.activation_min.val();
            self.lane[i].activation_max.next = self.activation_max.val();
        }
        for j in 0..4 {
            self.pairs[j].low.next = self.lane[2 * j].value.val();
            self.pairs[j].high.next = self.lane[2 * j + 1].value.val();
        }
        for j in 0..2 {
            self.quads[j].low.next = self.pairs[2 * j].joined.val();
            self.quads[j].high.next = self.pairs[2 * j + 1].joined.val();
        }
        self.word.low.next = self.quads[0].joined.val();
        self.word.high.next = self.quads[1].joined.val();
        self.w_data.next = self.word.joined.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseLanes::default, "elementwise_lanes");
}
