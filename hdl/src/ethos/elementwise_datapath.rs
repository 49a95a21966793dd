//! The kernel unit's arithmetic for one OFM element (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §2.2-§2.3): an ELEMENTWISE's in the 8 lanes
//! (`elementwise_lanes.rs`: operands minus their zero points, swapped by IFM2_BROADCAST bit 6,
//! the elementwise ALU, the output unit's two stages), a word of 8 channels in word mode, lane
//! 0 an element at a time (its operands are the words' low bytes: the arithmetic is written
//! once); a POOL's tap and average through the pooling ALU (`pooling_alu.rs`; the running max
//! or sum is `pool_taps.rs`'s), then its own ScaleProduct and Requantize (`requantize.rs`) for
//! the OFM scale, zero point and clamp; the byte repeated over the 64-bit write word. A
//! sub-block of [`super::Elementwise`], whose documentation has the decisions; the model is
//! `model/src/ethos/elementwise_datapath.rs` (the lanes' `elementwise_lanes.rs`).
//!
//! Ports: the unit's registers (`pool`, `mode`, the element `y`, `x`, the tap `ky`, `kx`, the
//! pool's `acc` and `count`) and the LATCHed
//! `NPU_SET_*` copies it reads, and word mode's `word_calc`, `ifm_word`, `ifm2_word`; out: the
//! tap's IFM position (`iy`, `ix`, `in_ifm`), `w_data`, the result byte in every lane, and
//! `word_data`, the lanes' word. Combinational: its inputs
//! are all registers of the unit, so the unit's state machine reads the outputs in the same
//! cycle without a loop.
use super::elementwise_lanes::ElementwiseLanes;
use super::pooling_alu::PoolingAlu;
use super::requantize::{Requantize, ScaleProduct};
use crate::primitives::constant as k;
use crate::primitives::Concat;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ElementwiseDatapath {
    /// The unit is in its calculation state, the one cycle an element's `w_data` is taken
    /// (`ElementwiseMemory`'s write word): the ALU, scale product and requantize compute only
    /// then, and `w_data` is 0 in the other cycles, which nothing reads.
    pub calc: Signal<In, Bit>,
    pub pool: Signal<In, Bit>,
    pub mode: Signal<In, Bits<3>>,
    pub y: Signal<In, Bits<16>>,
    pub x: Signal<In, Bits<16>>,
    pub ky: Signal<In, Bits<16>>,
    pub kx: Signal<In, Bits<16>>,
    pub acc: Signal<In, Bits<256>>,
    /// The element's lane of `acc` (its channel mod 8) when the pool runs `word_lanes`.
    pub lane: Signal<In, Bits<3>>,
    pub word_lanes: Signal<In, Bit>,
    pub count: Signal<In, Bits<17>>,
    pub ifm_zero_point: Signal<In, Bits<16>>,
    pub ifm2_zero_point: Signal<In, Bits<16>>,
    pub ofm_zero_point: Signal<In, Bits<16>>,
    /// IFM_PRECISION[9:8], the ADD/SUB scale mode.
    pub scale_mode: Signal<In, Bits<2>>,
    /// IFM2_PRECISION[0]: the IFM2 zero point is signed.
    pub ifm2_signed: Signal<In, Bit>,
    /// OFM_PRECISION[15:14].
    pub rounding: Signal<In, Bits<2>>,
    /// IFM2_BROADCAST[7]: the IFM2 operand is the scalar; [6]: the operands are swapped.
    pub scalar_operand: Signal<In, Bit>,
    pub swap: Signal<In, Bit>,
    pub ifm2_scalar: Signal<In, Bits<16>>,
    pub opa_scale: Signal<In, Bits<38>>,
    pub opb_scale: Signal<In, Bits<16>>,
    pub ofm_scale: Signal<In, Bits<38>>,
    pub activation_min: Signal<In, Bits<16>>,
    pub activation_max: Signal<In, Bits<16>>,
    pub ofm_height_m1: Signal<In, Bits<16>>,
    pub ofm_width_m1: Signal<In, Bits<16>>,
    pub kernel_height_m1: Signal<In, Bits<16>>,
    pub kernel_width_m1: Signal<In, Bits<16>>,
    pub kernel_stride: Signal<In, Bits<16>>,
    pub ifm_pad_top: Signal<In, Bits<16>>,
    pub ifm_pad_left: Signal<In, Bits<16>>,
    pub ifm_pad_bottom: Signal<In, Bits<16>>,
    pub ifm_pad_right: Signal<In, Bits<16>>,
    pub iy: Signal<Out, Bits<16>>,
    pub ix: Signal<Out, Bits<16>>,
    pub in_ifm: Signal<Out, Bit>,
    pub w_data: Signal<Out, Bits<64>>,
    /// Word mode (issue 19): the 8 lanes (`elementwise_lanes.rs`) compute the OFM bytes of
    /// the word's channels from `ifm_word` and `ifm2_word` (the unit's registers) when
    /// `word_calc` (the word's result is taken this cycle), into `word_data`, from the same
    /// LATCHed copies as the element's arithmetic.
    pub word_calc: Signal<In, Bit>,
    pub ifm_word: Signal<In, Bits<64>>,
    pub ifm2_word: Signal<In, Bits<64>>,
    pub word_data: Signal<Out, Bits<64>>,
    lanes: ElementwiseLanes,
    scale_product: ScaleProduct,
    requantize: Requantize,
    pooling: PoolingAlu,
    // Width helpers.
    byte16: Concat<8, 8, 16>,
    byte32: Concat<16, 16, 32>,
    byte64: Concat<32, 32, 64>,
    padded: Signal<Local, Bit>,
    /// The element's OFM byte: lane 0's, or the pool's.
    result_byte: Signal<Local, Bits<8>>,
    /// Bits read nowhere, named as lint expects.
    unused_bits: Signal<Local, Bit>,
    zero3: Constant<Bits<3>>,
    zero6: Constant<Bits<6>>,
    zero40: Constant<Bits<40>>,
    one_scale: Constant<Bits<32>>,
}

impl Default for ElementwiseDatapath {
    fn default() -> Self {
        Self {
            calc: Default::default(),
            word_calc: Default::default(),
            ifm_word: Default::default(),
            ifm2_word: Default::default(),
            word_data: Default::default(),
            lanes: Default::default(),
            pool: Default::default(),
            mode: Default::default(),
            y: Default::default(),
            x: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            acc: Default::default(),
            lane: Default::default(),
            word_lanes: Default::default(),
            count: Default::default(),
            ifm_zero_point: Default::default(),
            scale_mode: Default::default(),
            ifm2_signed: Default::default(),
            rounding: Default::default(),
            scalar_operand: Default::default(),
            swap: Default::default(),
            ifm2_zero_point: Default::default(),
            ofm_zero_point: Default::default(),
            ifm2_scalar: Default::default(),
            opa_scale: Default::default(),
            opb_scale: Default::default(),
            ofm_scale: Default::default(),
            activation_min: Default::default(),
            activation_max: Default::default(),
            ofm_height_m1: Default::default(),
            ofm_width_m1: Default::default(),
            kernel_height_m1: Default::default(),
            kernel_width_m1: Default::default(),
            kernel_stride: Default::default(),
            ifm_pad_top: Default::default(),
            ifm_pad_left: Default::default(),
            ifm_pad_bottom: Default::default(),
            ifm_pad_right: Default::default(),
            iy: Default::default(),
            ix: Default::default(),
            in_ifm: Default::default(),
            w_data: Default::default(),
            scale_product: Default::default(),
            requantize: Default::default(),
            pooling: Default::default(),
            byte16: Default::default(),
            byte32: Default::default(),
            byte64: Default::default(),
            padded: Default::default(),
            result_byte: Default::default(),
            unused_bits: Default::default(),
            zero3: k(0),
            zero6: k(0),
            zero40: k(0),
            one_scale: k(1),
        }
    }
}

impl Logic for ElementwiseDatapath {
    #[hdl_gen]
    fn update(&mut self) {
        // The lanes (`elementwise_lanes.rs`): a word in word mode; an element at a time, lane 0
        // (its operands are the words' low bytes), the same arithmetic, written once.
        self.lanes.enable.next = self.word_calc.val() | (self.calc.val() & !self.pool.val());
        self.lanes.ifm_word.next = self.ifm_word.val();
        self.lanes.ifm2_word.next = self.ifm2_word.val();
        self.lanes.ifm_zero_point.next = self.ifm_zero_point.val();
        self.lanes.ifm2_zero_point.next = self.ifm2_zero_point.val();
        self.lanes.ifm2_signed.next = self.ifm2_signed.val();
        self.lanes.ifm2_scalar.next = self.ifm2_scalar.val();
        self.lanes.scalar_operand.next = self.scalar_operand.val();
        self.lanes.swap.next = self.swap.val();
        self.lanes.mode.next = self.mode.val();
        self.lanes.scale_mode.next = self.scale_mode.val();
        self.lanes.opa_scale.next = self.opa_scale.val();
        self.lanes.opb_scale.next = self.opb_scale.val();
        self.lanes.ofm_scale.next = self.ofm_scale.val();
        self.lanes.rounding.next = self.rounding.val();
        self.lanes.ofm_zero_point.next = self.ofm_zero_point.val();
        self.lanes.activation_min.next = self.activation_min.val();
        self.lanes.activation_max.next = self.activation_max.val();
        self.word_data.next = self.lanes.w_data.val();
        // The OFM scale, zero point and clamp of a pool's value (the lanes have their own).
        self.scale_product.enable.next = self.calc.val() & self.pool.val();
        self.requantize.enable.next = self.calc.val() & self.pool.val();
        // A pool's tap and accumulator (average over padding when any PAD register is set).
        self.padded.next =
            self.ifm_pad_top.val().any() | self.ifm_pad_left.val().any() | self.ifm_pad_bottom.val().any() | self.ifm_pad_right.val().any();
        self.pooling.y.next = self.y.val();
        self.pooling.x.next = self.x.val();
        self.pooling.ky.next = self.ky.val();
        self.pooling.kx.next = self.kx.val();
        self.pooling.kernel_stride.next = self.kernel_stride.val();
        self.pooling.kernel_height_m1.next = self.kernel_height_m1.val();
        self.pooling.kernel_width_m1.next = self.kernel_width_m1.val();
        self.pooling.ofm_height_m1.next = self.ofm_height_m1.val();
        self.pooling.ofm_width_m1.next = self.ofm_width_m1.val();
        self.pooling.pad_top.next = self.ifm_pad_top.val();
        self.pooling.pad_left.next = self.ifm_pad_left.val();
        self.pooling.pad_bottom.next = self.ifm_pad_bottom.val();
        self.pooling.pad_right.next = self.ifm_pad_right.val();
        self.pooling.acc.next = self.acc.val();
        self.pooling.lane.next = self.lane.val();
        self.pooling.word_lanes.next = self.word_lanes.val();
        self.pooling.count.next = self.count.val();
        self.pooling.divide.next = (self.mode.val() != self.zero3.val()) & self.padded.val();
        self.iy.next = self.pooling.iy.val();
        self.ix.next = self.pooling.ix.val();
        self.in_ifm.next = self.pooling.in_ifm.val();
        // The OFM scale, zero point and clamp: a max, or an average over padding, passes
        // unscaled (scale 1, shift 0: exact in every rounding mode).
        self.scale_product.acc.next = self.pooling.value.val();
        self.scale_product.bias.next = self.zero40.val();
        self.scale_product.scale.next = self.ofm_scale.val().get_bits::<32>(0);
        self.requantize.shift.next = self.ofm_scale.val().get_bits::<6>(32);
        if (self.mode.val() == self.zero3.val()) | self.padded.val() {
            self.scale_product.scale.next = self.one_scale.val();
            self.requantize.shift.next = self.zero6.val();
        }
        self.requantize.product.next = self.scale_product.product.val();
        self.requantize.rounding.next = self.rounding.val();
        self.requantize.zero_point.next = self.ofm_zero_point.val();
        self.requantize.act_min.next = self.activation_min.val();
        self.requantize.act_max.next = self.activation_max.val();
        self.result_byte.next = self.lanes.w_data.val().get_bits::<8>(0);
        if self.pool.val() {
            self.result_byte.next = self.requantize.value.val().get_bits::<8>(0);
        }
        self.byte16.high.next = self.result_byte.val();
        self.byte16.low.next = self.result_byte.val();
        self.byte32.high.next = self.byte16.joined.val();
        self.byte32.low.next = self.byte16.joined.val();
        self.byte64.high.next = self.byte32.joined.val();
        self.byte64.low.next = self.byte32.joined.val();
        self.w_data.next = self.byte64.joined.val();
        self.unused_bits.next = self.requantize.value.val().get_bits::<8>(8).any();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseDatapath::default, "elementwise_datapath");
}
