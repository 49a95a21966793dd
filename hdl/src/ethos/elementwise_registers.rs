//! The elementwise unit's scalar registers (`super::elementwise::scalar`): the copies of the
//! `NPU_SET_*` registers it reads, written during LATCH from the front end's debug port, so
//! the front end may go on with later commands while the unit runs (TRM §4.6; docs/ethos.md,
//! "Elementwise unit"). Each keeps only the bits the unit reads. The model keeps them in
//! `npu_model::ethos::elementwise`.
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Ports: at the clock edge with `write`, the register whose bit is set in the one-hot
/// `select` (bit = scalar id) takes the low bits of `value`; the outputs are the registers.
#[derive(LogicBlock, Default)]
pub struct ElementwiseRegisters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub select: Signal<In, Bits<22>>,
    pub value: Signal<In, Bits<48>>,
    pub ifm_region: Signal<Out, Bits<16>>,
    pub ifm2_region: Signal<Out, Bits<16>>,
    pub ofm_region: Signal<Out, Bits<16>>,
    pub ifm_zero_point: Signal<Out, Bits<16>>,
    pub ifm2_zero_point: Signal<Out, Bits<16>>,
    pub ofm_zero_point: Signal<Out, Bits<16>>,
    pub ifm_precision: Signal<Out, Bits<10>>,
    pub ifm2_precision: Signal<Out, Bits<8>>,
    pub ofm_precision: Signal<Out, Bits<16>>,
    pub ifm2_broadcast: Signal<Out, Bits<8>>,
    pub ifm2_scalar: Signal<Out, Bits<16>>,
    pub opa_scale: Signal<Out, Bits<38>>,
    pub opb_scale: Signal<Out, Bits<16>>,
    pub ofm_scale: Signal<Out, Bits<38>>,
    pub activation: Signal<Out, Bits<5>>,
    pub activation_min: Signal<Out, Bits<16>>,
    pub activation_max: Signal<Out, Bits<16>>,
    pub acc_format: Signal<Out, Bits<16>>,
    pub ifm_upscale: Signal<Out, Bits<16>>,
    pub ofm_height_m1: Signal<Out, Bits<16>>,
    pub ofm_width_m1: Signal<Out, Bits<16>>,
    pub ofm_depth_m1: Signal<Out, Bits<16>>,
    r_ifm_region: Reg<Bits<16>>,
    r_ifm2_region: Reg<Bits<16>>,
    r_ofm_region: Reg<Bits<16>>,
    r_ifm_zero_point: Reg<Bits<16>>,
    r_ifm2_zero_point: Reg<Bits<16>>,
    r_ofm_zero_point: Reg<Bits<16>>,
    r_ifm_precision: Reg<Bits<10>>,
    r_ifm2_precision: Reg<Bits<8>>,
    r_ofm_precision: Reg<Bits<16>>,
    r_ifm2_broadcast: Reg<Bits<8>>,
    r_ifm2_scalar: Reg<Bits<16>>,
    r_opa_scale: Reg<Bits<38>>,
    r_opb_scale: Reg<Bits<16>>,
    r_ofm_scale: Reg<Bits<38>>,
    r_activation: Reg<Bits<5>>,
    r_activation_min: Reg<Bits<16>>,
    r_activation_max: Reg<Bits<16>>,
    r_acc_format: Reg<Bits<16>>,
    r_ifm_upscale: Reg<Bits<16>>,
    r_ofm_height_m1: Reg<Bits<16>>,
    r_ofm_width_m1: Reg<Bits<16>>,
    r_ofm_depth_m1: Reg<Bits<16>>,
    /// Bits read nowhere (the value's bits 47:38), named as lint expects.
    unused_bits: Signal<Local, Bit>,
}

impl Logic for ElementwiseRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_ifm_region, r_ifm2_region, r_ofm_region, r_ifm_zero_point, r_ifm2_zero_point, r_ofm_zero_point, r_ifm_precision, r_ifm2_precision, r_ofm_precision, r_ifm2_broadcast, r_ifm2_scalar, r_opa_scale, r_opb_scale, r_ofm_scale, r_activation, r_activation_min, r_activation_max, r_acc_format, r_ifm_upscale, r_ofm_height_m1, r_ofm_width_m1, r_ofm_depth_m1);
        self.r_ifm_region.reset.next = self.reset.val();
        self.r_ifm2_region.reset.next = self.reset.val();
        self.r_ofm_region.reset.next = self.reset.val();
        self.r_ifm_zero_point.reset.next = self.reset.val();
        self.r_ifm2_zero_point.reset.next = self.reset.val();
        self.r_ofm_zero_point.reset.next = self.reset.val();
        self.r_ifm_precision.reset.next = self.reset.val();
        self.r_ifm2_precision.reset.next = self.reset.val();
        self.r_ofm_precision.reset.next = self.reset.val();
        self.r_ifm2_broadcast.reset.next = self.reset.val();
        self.r_ifm2_scalar.reset.next = self.reset.val();
        self.r_opa_scale.reset.next = self.reset.val();
        self.r_opb_scale.reset.next = self.reset.val();
        self.r_ofm_scale.reset.next = self.reset.val();
        self.r_activation.reset.next = self.reset.val();
        self.r_activation_min.reset.next = self.reset.val();
        self.r_activation_max.reset.next = self.reset.val();
        self.r_acc_format.reset.next = self.reset.val();
        self.r_ifm_upscale.reset.next = self.reset.val();
        self.r_ofm_height_m1.reset.next = self.reset.val();
        self.r_ofm_width_m1.reset.next = self.reset.val();
        self.r_ofm_depth_m1.reset.next = self.reset.val();
        if self.write.val() {
            if self.select.val().get_bit(0) {
                self.r_ifm_region.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(1) {
                self.r_ifm2_region.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(2) {
                self.r_ofm_region.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(3) {
                self.r_ifm_zero_point.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(4) {
                self.r_ifm2_zero_point.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(5) {
                self.r_ofm_zero_point.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(6) {
                self.r_ifm_precision.d.next = self.value.val().get_bits::<10>(0);
            }
            if self.select.val().get_bit(7) {
                self.r_ifm2_precision.d.next = self.value.val().get_bits::<8>(0);
            }
            if self.select.val().get_bit(8) {
                self.r_ofm_precision.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(9) {
                self.r_ifm2_broadcast.d.next = self.value.val().get_bits::<8>(0);
            }
            if self.select.val().get_bit(10) {
                self.r_ifm2_scalar.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(11) {
                self.r_opa_scale.d.next = self.value.val().get_bits::<38>(0);
            }
            if self.select.val().get_bit(12) {
                self.r_opb_scale.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(13) {
                self.r_ofm_scale.d.next = self.value.val().get_bits::<38>(0);
            }
            if self.select.val().get_bit(14) {
                self.r_activation.d.next = self.value.val().get_bits::<5>(0);
            }
            if self.select.val().get_bit(15) {
                self.r_activation_min.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(16) {
                self.r_activation_max.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(17) {
                self.r_acc_format.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(18) {
                self.r_ifm_upscale.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(19) {
                self.r_ofm_height_m1.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(20) {
                self.r_ofm_width_m1.d.next = self.value.val().get_bits::<16>(0);
            }
            if self.select.val().get_bit(21) {
                self.r_ofm_depth_m1.d.next = self.value.val().get_bits::<16>(0);
            }
        }
        self.ifm_region.next = self.r_ifm_region.q.val();
        self.ifm2_region.next = self.r_ifm2_region.q.val();
        self.ofm_region.next = self.r_ofm_region.q.val();
        self.ifm_zero_point.next = self.r_ifm_zero_point.q.val();
        self.ifm2_zero_point.next = self.r_ifm2_zero_point.q.val();
        self.ofm_zero_point.next = self.r_ofm_zero_point.q.val();
        self.ifm_precision.next = self.r_ifm_precision.q.val();
        self.ifm2_precision.next = self.r_ifm2_precision.q.val();
        self.ofm_precision.next = self.r_ofm_precision.q.val();
        self.ifm2_broadcast.next = self.r_ifm2_broadcast.q.val();
        self.ifm2_scalar.next = self.r_ifm2_scalar.q.val();
        self.opa_scale.next = self.r_opa_scale.q.val();
        self.opb_scale.next = self.r_opb_scale.q.val();
        self.ofm_scale.next = self.r_ofm_scale.q.val();
        self.activation.next = self.r_activation.q.val();
        self.activation_min.next = self.r_activation_min.q.val();
        self.activation_max.next = self.r_activation_max.q.val();
        self.acc_format.next = self.r_acc_format.q.val();
        self.ifm_upscale.next = self.r_ifm_upscale.q.val();
        self.ofm_height_m1.next = self.r_ofm_height_m1.q.val();
        self.ofm_width_m1.next = self.r_ofm_width_m1.q.val();
        self.ofm_depth_m1.next = self.r_ofm_depth_m1.q.val();
        self.unused_bits.next = self.value.val().get_bits::<10>(38).any();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseRegisters::default(), "elementwise_registers");
}
