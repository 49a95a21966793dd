//! The kernel unit's CHECK verdict (TRM §4.6; digest `shared/spec/ethos-u65.md` §2.3, §3.2):
//! whether the LATCHed registers, with the operation (`pool`) and its mode, ask for something
//! the unit does not implement. A sub-block of [`super::Elementwise`], which answers
//! `kernel_error` = `ERROR_UNSUPPORTED` in CHECK, before anything is read or written, when
//! `unsupported` is set; the model is `model/src/ethos/elementwise_check.rs`.
//!
//! Decisions (the TRM leaves these open; the front end makes the code a
//! STATUS.cmd_parse_error):
//! - Refused: an ELEMENTWISE mode above 4 or a POOL mode above 1 (`mode_bad`, kept by the
//!   unit from `kernel_mode`), an IFM, IFM2 (ELEMENTWISE, unless scalar) or OFM that is not
//!   signed 8-bit NHWC/NHCWB16, ACTIVATION[4:0] ≠ 0 (lookup table, tanh, sigmoid),
//!   ACC_FORMAT > 1, IFM_UPSCALE ≠ 0 (but 1, nearest, on a POOL: the tap's IFM element is
//!   (iy / 2, ix / 2) of `pooling_alu.rs`'s tap in the upscaled map), ADD/SUB scale mode 3,
//!   ADD/SUB scale mode 1 or 2 with OPA_SHIFT below [`super::elementwise_alu::MIN_OPA_SHIFT`],
//!   a region above 7, an IFM or IFM2 zero point or an IFM2 scalar outside -128..127 (int8
//!   maps; the bound keeps the ALU's sums in 40 bits), a POOL with dilation (TFLite pools have
//!   none) or a kernel side above `MAX_KERNEL_M1 + 1` (the sum stays in 32 bits).
//! - A POOL's IFM2 registers are neither checked nor read.
//!
//! Ports: `pool`, `mode` and `mode_bad` (the unit's registers) and the LATCHed `NPU_SET_*`
//! copies the verdict reads, whole or the field read (`scalar_operand`: IFM2_BROADCAST[7],
//! `opa_shift`: OPA_SCALE[37:32], `dilation`: KERNEL_STRIDE[4:3], the zero points' and
//! the scalar's bits 15:7, all equal for a value in -128..127); out: `unsupported`.
//! Combinational: its inputs are all registers, so CHECK reads the verdict in its one cycle.
use super::pooling_alu::MAX_KERNEL_M1;
use crate::primitives::constant as k;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ElementwiseCheck {
    pub pool: Signal<In, Bit>,
    pub mode: Signal<In, Bits<3>>,
    pub mode_bad: Signal<In, Bit>,
    pub ifm_precision: Signal<In, Bits<10>>,
    pub ifm2_precision: Signal<In, Bits<8>>,
    pub ofm_precision: Signal<In, Bits<16>>,
    pub scalar_operand: Signal<In, Bit>,
    pub activation: Signal<In, Bits<5>>,
    pub acc_format: Signal<In, Bits<16>>,
    pub ifm_upscale: Signal<In, Bits<16>>,
    pub opa_shift: Signal<In, Bits<6>>,
    pub ifm_region: Signal<In, Bits<16>>,
    pub ifm2_region: Signal<In, Bits<16>>,
    pub ofm_region: Signal<In, Bits<16>>,
    /// Bits 15:7 of the IFM and IFM2 zero points and the IFM2 scalar.
    pub ifm_zero_point_high: Signal<In, Bits<9>>,
    pub ifm2_zero_point_high: Signal<In, Bits<9>>,
    pub ifm2_scalar_high: Signal<In, Bits<9>>,
    pub dilation: Signal<In, Bits<2>>,
    pub kernel_height_m1: Signal<In, Bits<16>>,
    pub kernel_width_m1: Signal<In, Bits<16>>,
    pub unsupported: Signal<Out, Bit>,
    add_sub: Signal<Local, Bit>,
    /// The IFM2 map is read (an ELEMENTWISE without the scalar).
    ifm2_read: Signal<Local, Bit>,
    /// Bits read nowhere (precision fields the unit keeps whole), named as lint expects.
    unused_bits: Signal<Local, Bit>,
    max_kernel_m1: Constant<Bits<16>>,
    mode_add: Constant<Bits<3>>,
    mode_sub: Constant<Bits<3>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    zero5: Constant<Bits<5>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    max_region16: Constant<Bits<16>>,
    min_shift: Constant<Bits<6>>,
    int8_high_zero: Constant<Bits<9>>,
    int8_high_ones: Constant<Bits<9>>,
}

impl Default for ElementwiseCheck {
    fn default() -> Self {
        Self {
            pool: Default::default(),
            mode: Default::default(),
            mode_bad: Default::default(),
            ifm_precision: Default::default(),
            ifm2_precision: Default::default(),
            ofm_precision: Default::default(),
            scalar_operand: Default::default(),
            activation: Default::default(),
            acc_format: Default::default(),
            ifm_upscale: Default::default(),
            opa_shift: Default::default(),
            ifm_region: Default::default(),
            ifm2_region: Default::default(),
            ofm_region: Default::default(),
            ifm_zero_point_high: Default::default(),
            ifm2_zero_point_high: Default::default(),
            ifm2_scalar_high: Default::default(),
            dilation: Default::default(),
            kernel_height_m1: Default::default(),
            kernel_width_m1: Default::default(),
            unsupported: Default::default(),
            add_sub: Default::default(),
            ifm2_read: Default::default(),
            unused_bits: Default::default(),
            max_kernel_m1: k(MAX_KERNEL_M1.into()),
            mode_add: k(1),
            mode_sub: k(2),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
            three2: k(3),
            zero5: k(0),
            zero16: k(0),
            one16: k(1),
            max_region16: k(7),
            min_shift: k(super::elementwise_alu::MIN_OPA_SHIFT.into()),
            int8_high_zero: k(0),
            int8_high_ones: k(0x1ff),
        }
    }
}

impl Logic for ElementwiseCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.add_sub.next = !self.pool.val() & ((self.mode.val() == self.mode_add.val()) | (self.mode.val() == self.mode_sub.val()));
        self.ifm2_read.next = !self.pool.val() & !self.scalar_operand.val();
        self.unsupported.next = self.mode_bad.val()
            // Signed 8-bit (PRECISION[0] signed, [3:2] or OFM's [2:1] size), NHWC or NHCWB16 ([7:6]).
            | !self.ifm_precision.val().get_bit(0)
            | (self.ifm_precision.val().get_bits::<2>(2) != self.zero2.val())
            | (self.ifm_precision.val().get_bits::<2>(6) > self.one2.val())
            | !self.ofm_precision.val().get_bit(0)
            | (self.ofm_precision.val().get_bits::<2>(1) != self.zero2.val())
            | (self.ofm_precision.val().get_bits::<2>(6) > self.one2.val())
            | (self.ifm2_read.val()
                & (!self.ifm2_precision.val().get_bit(0)
                    | (self.ifm2_precision.val().get_bits::<2>(2) != self.zero2.val())
                    | (self.ifm2_precision.val().get_bits::<2>(6) > self.one2.val())))
            | (self.activation.val() != self.zero5.val())
            | (self.acc_format.val() > self.one16.val())
            // IFM_UPSCALE: a POOL takes mode 1 (nearest), nothing else any.
            | ((self.ifm_upscale.val() != self.zero16.val()) & !(self.pool.val() & (self.ifm_upscale.val() == self.one16.val())))
            // ADD/SUB scale modes (IFM_PRECISION[9:8]).
            | (self.add_sub.val() & (self.ifm_precision.val().get_bits::<2>(8) == self.three2.val()))
            | (self.add_sub.val()
                & ((self.ifm_precision.val().get_bits::<2>(8) == self.one2.val())
                    | (self.ifm_precision.val().get_bits::<2>(8) == self.two2.val()))
                & (self.opa_shift.val() < self.min_shift.val()))
            | (self.ifm_region.val() > self.max_region16.val())
            | (self.ofm_region.val() > self.max_region16.val())
            | (self.ifm2_read.val() & (self.ifm2_region.val() > self.max_region16.val()))
            // Zero points and the scalar inside -128..127: bits 15:7 all equal (an unsigned
            // IFM2 zero point: all 0).
            | ((self.ifm_zero_point_high.val() != self.int8_high_zero.val())
                & (self.ifm_zero_point_high.val() != self.int8_high_ones.val()))
            | (!self.pool.val()
                & (self.ifm2_zero_point_high.val() != self.int8_high_zero.val())
                & (!self.ifm2_precision.val().get_bit(0)
                    | (self.ifm2_zero_point_high.val() != self.int8_high_ones.val())))
            | (!self.pool.val()
                & self.scalar_operand.val()
                & (self.ifm2_scalar_high.val() != self.int8_high_zero.val())
                & (self.ifm2_scalar_high.val() != self.int8_high_ones.val()))
            // A pool: no dilation, kernels of at most 256 x 256 taps.
            | (self.pool.val()
                & (self.dilation.val().any()
                    | (self.kernel_height_m1.val() > self.max_kernel_m1.val())
                    | (self.kernel_width_m1.val() > self.max_kernel_m1.val())));
        self.unused_bits.next = self.ifm_precision.val().get_bit(1)
            | self.ifm_precision.val().get_bits::<2>(4).any()
            | self.ifm2_precision.val().get_bit(1)
            | self.ifm2_precision.val().get_bits::<2>(4).any()
            | self.ofm_precision.val().get_bits::<3>(3).any()
            | self.ofm_precision.val().get_bits::<8>(8).any();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseCheck::default, "elementwise_check");
}
