//! The kernel unit's registers and its LATCH sequence (TRM §4.6; docs/ethos.md, "Kernel
//! unit"): the copies of the `NPU_SET_*` registers the unit reads, read from the front end's
//! debug port while the front end is held, so the front end may go on with later commands while
//! the unit runs. The scalar registers are kept here (each only the bits the unit reads); the
//! feature-map registers go to the unit's three [`super::feature_map::FeatureMap`] blocks
//! through `load`, `load_slot` and `load_value`. The model is
//! `model/src/ethos/kernel_registers.rs`.
//!
//! LATCH: from `start`, [`LATCH_STEPS`] cycles with `debug_hold` high. Step k reads
//! register-file entry [`latch_table`]`[k].0`, then the BASEP pairs of the IFM, IFM2, OFM,
//! weight and scale regions (the region registers are read first, so they are known by then);
//! the value read at step k arrives at step k + 1 and goes to its target. `latched` is high in
//! the last step. One table for every kernel (docs/ethos.md, "Convolution unit": one ROM pair,
//! one sequence; the convolution unit's scalars cost each ELEMENTWISE and POOL 16 cycles).
//!
//! The sequence is the sub-block [`LatchSequencer`] (`latch_sequencer.rs`), its table and ROMs
//! plain Rust in `latch_table.rs`; this block keeps the scalar copies it writes.
use super::latch_sequencer::LatchSequencer;
use crate::primitives::{Concat, Reg};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

pub use super::latch_table::{basep_target, latch_table, scalar, BASEP_STEPS, LATCH_STEPS, MAPS};


/// Ports: `start` begins LATCH; the debug port (`debug_index`, `debug_hold` out,
/// `debug_value` in); `latched` in LATCH's last step; the feature-map loads (`ifm_load`,
/// `ifm2_load`, `ofm_load` with `load_slot` and `load_value`); the scalar registers.
#[derive(LogicBlock)]
pub struct KernelRegisters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub debug_value: Signal<In, Bits<48>>,
    pub debug_index: Signal<Out, Bits<7>>,
    pub debug_hold: Signal<Out, Bit>,
    pub latched: Signal<Out, Bit>,
    pub ifm_load: Signal<Out, Bit>,
    pub ifm2_load: Signal<Out, Bit>,
    pub ofm_load: Signal<Out, Bit>,
    pub load_slot: Signal<Out, Bits<4>>,
    pub load_value: Signal<Out, Bits<40>>,
    // The scalar registers (module `scalar`'s ids, in order).
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
    pub kernel_height_m1: Signal<Out, Bits<16>>,
    pub kernel_width_m1: Signal<Out, Bits<16>>,
    pub kernel_stride: Signal<Out, Bits<16>>,
    pub ifm_pad_top: Signal<Out, Bits<16>>,
    pub ifm_pad_left: Signal<Out, Bits<16>>,
    pub ifm_pad_bottom: Signal<Out, Bits<16>>,
    pub ifm_pad_right: Signal<Out, Bits<16>>,
    pub ifm_depth_m1: Signal<Out, Bits<16>>,
    pub ofm_blk_depth_m1: Signal<Out, Bits<16>>,
    pub weight_region: Signal<Out, Bits<16>>,
    pub scale_region: Signal<Out, Bits<16>>,
    pub weight_base: Signal<Out, Bits<40>>,
    pub weight_length: Signal<Out, Bits<40>>,
    pub scale_base: Signal<Out, Bits<40>>,
    pub scale_length: Signal<Out, Bits<40>>,
    pub ifm_stride_c: Signal<Out, Bits<40>>,
    /// The BASEPs of the weight and scale regions ({high, low}).
    pub weight_basep: Signal<Out, Bits<40>>,
    pub scale_basep: Signal<Out, Bits<40>>,
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
    r_kernel_height_m1: Reg<Bits<16>>,
    r_kernel_width_m1: Reg<Bits<16>>,
    r_kernel_stride: Reg<Bits<16>>,
    r_ifm_pad_top: Reg<Bits<16>>,
    r_ifm_pad_left: Reg<Bits<16>>,
    r_ifm_pad_bottom: Reg<Bits<16>>,
    r_ifm_pad_right: Reg<Bits<16>>,
    r_ifm_depth_m1: Reg<Bits<16>>,
    r_ofm_blk_depth_m1: Reg<Bits<16>>,
    r_weight_region: Reg<Bits<16>>,
    r_scale_region: Reg<Bits<16>>,
    r_weight_base: Reg<Bits<40>>,
    r_weight_length: Reg<Bits<40>>,
    r_scale_base: Reg<Bits<40>>,
    r_scale_length: Reg<Bits<40>>,
    r_ifm_stride_c: Reg<Bits<40>>,
    r_weight_basep_low: Reg<Bits<32>>,
    r_weight_basep_high: Reg<Bits<8>>,
    r_scale_basep_low: Reg<Bits<32>>,
    r_scale_basep_high: Reg<Bits<8>>,
    weight_basep_join: Concat<8, 32, 40>,
    scale_basep_join: Concat<8, 32, 40>,
    /// LATCH: the debug-port reads and where each value goes.
    sequencer: LatchSequencer,
    scalar_select: Signal<Local, Bits<64>>,
    /// Bits read nowhere, named as lint expects.
    unused_bits: Signal<Local, Bit>,
    one64: Constant<Bits<64>>,
}

impl Default for KernelRegisters {
    fn default() -> Self {
        assert!(scalar::COUNT <= 64, "scalar ids select through a 64-bit one-hot word");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            debug_value: Default::default(),
            debug_index: Default::default(),
            debug_hold: Default::default(),
            latched: Default::default(),
            ifm_load: Default::default(),
            ifm2_load: Default::default(),
            ofm_load: Default::default(),
            load_slot: Default::default(),
            load_value: Default::default(),
            ifm_region: Default::default(),
            ifm2_region: Default::default(),
            ofm_region: Default::default(),
            ifm_zero_point: Default::default(),
            ifm2_zero_point: Default::default(),
            ofm_zero_point: Default::default(),
            ifm_precision: Default::default(),
            ifm2_precision: Default::default(),
            ofm_precision: Default::default(),
            ifm2_broadcast: Default::default(),
            ifm2_scalar: Default::default(),
            opa_scale: Default::default(),
            opb_scale: Default::default(),
            ofm_scale: Default::default(),
            activation: Default::default(),
            activation_min: Default::default(),
            activation_max: Default::default(),
            acc_format: Default::default(),
            ifm_upscale: Default::default(),
            ofm_height_m1: Default::default(),
            ofm_width_m1: Default::default(),
            ofm_depth_m1: Default::default(),
            kernel_height_m1: Default::default(),
            kernel_width_m1: Default::default(),
            kernel_stride: Default::default(),
            ifm_pad_top: Default::default(),
            ifm_pad_left: Default::default(),
            ifm_pad_bottom: Default::default(),
            ifm_pad_right: Default::default(),
            ifm_depth_m1: Default::default(),
            ofm_blk_depth_m1: Default::default(),
            weight_region: Default::default(),
            scale_region: Default::default(),
            weight_base: Default::default(),
            weight_length: Default::default(),
            scale_base: Default::default(),
            scale_length: Default::default(),
            ifm_stride_c: Default::default(),
            weight_basep: Default::default(),
            scale_basep: Default::default(),
            r_ifm_region: Default::default(),
            r_ifm2_region: Default::default(),
            r_ofm_region: Default::default(),
            r_ifm_zero_point: Default::default(),
            r_ifm2_zero_point: Default::default(),
            r_ofm_zero_point: Default::default(),
            r_ifm_precision: Default::default(),
            r_ifm2_precision: Default::default(),
            r_ofm_precision: Default::default(),
            r_ifm2_broadcast: Default::default(),
            r_ifm2_scalar: Default::default(),
            r_opa_scale: Default::default(),
            r_opb_scale: Default::default(),
            r_ofm_scale: Default::default(),
            r_activation: Default::default(),
            r_activation_min: Default::default(),
            r_activation_max: Default::default(),
            r_acc_format: Default::default(),
            r_ifm_upscale: Default::default(),
            r_ofm_height_m1: Default::default(),
            r_ofm_width_m1: Default::default(),
            r_ofm_depth_m1: Default::default(),
            r_kernel_height_m1: Default::default(),
            r_kernel_width_m1: Default::default(),
            r_kernel_stride: Default::default(),
            r_ifm_pad_top: Default::default(),
            r_ifm_pad_left: Default::default(),
            r_ifm_pad_bottom: Default::default(),
            r_ifm_pad_right: Default::default(),
            r_ifm_depth_m1: Default::default(),
            r_ofm_blk_depth_m1: Default::default(),
            r_weight_region: Default::default(),
            r_scale_region: Default::default(),
            r_weight_base: Default::default(),
            r_weight_length: Default::default(),
            r_scale_base: Default::default(),
            r_scale_length: Default::default(),
            r_ifm_stride_c: Default::default(),
            r_weight_basep_low: Default::default(),
            r_weight_basep_high: Default::default(),
            r_scale_basep_low: Default::default(),
            r_scale_basep_high: Default::default(),
            weight_basep_join: Default::default(),
            scale_basep_join: Default::default(),
            sequencer: Default::default(),
            scalar_select: Default::default(),
            unused_bits: Default::default(),
            one64: k(1),
        }
    }
}

impl Logic for KernelRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_ifm_region, r_ifm2_region, r_ofm_region, r_ifm_zero_point, r_ifm2_zero_point, r_ofm_zero_point, r_ifm_precision, r_ifm2_precision, r_ofm_precision, r_ifm2_broadcast, r_ifm2_scalar, r_opa_scale, r_opb_scale, r_ofm_scale, r_activation, r_activation_min, r_activation_max, r_acc_format, r_ifm_upscale, r_ofm_height_m1, r_ofm_width_m1, r_ofm_depth_m1, r_kernel_height_m1, r_kernel_width_m1, r_kernel_stride, r_ifm_pad_top, r_ifm_pad_left, r_ifm_pad_bottom, r_ifm_pad_right, r_ifm_depth_m1, r_ofm_blk_depth_m1, r_weight_region, r_scale_region, r_weight_base, r_weight_length, r_scale_base, r_scale_length, r_ifm_stride_c, r_weight_basep_low, r_weight_basep_high, r_scale_basep_low, r_scale_basep_high);
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
        self.r_kernel_height_m1.reset.next = self.reset.val();
        self.r_kernel_width_m1.reset.next = self.reset.val();
        self.r_kernel_stride.reset.next = self.reset.val();
        self.r_ifm_pad_top.reset.next = self.reset.val();
        self.r_ifm_pad_left.reset.next = self.reset.val();
        self.r_ifm_pad_bottom.reset.next = self.reset.val();
        self.r_ifm_pad_right.reset.next = self.reset.val();
        self.r_ifm_depth_m1.reset.next = self.reset.val();
        self.r_ofm_blk_depth_m1.reset.next = self.reset.val();
        self.r_weight_region.reset.next = self.reset.val();
        self.r_scale_region.reset.next = self.reset.val();
        self.r_weight_base.reset.next = self.reset.val();
        self.r_weight_length.reset.next = self.reset.val();
        self.r_scale_base.reset.next = self.reset.val();
        self.r_scale_length.reset.next = self.reset.val();
        self.r_ifm_stride_c.reset.next = self.reset.val();
        self.r_weight_basep_low.reset.next = self.reset.val();
        self.r_weight_basep_high.reset.next = self.reset.val();
        self.r_scale_basep_low.reset.next = self.reset.val();
        self.r_scale_basep_high.reset.next = self.reset.val();

        // LATCH (the sequencer): the debug port, the feature-map loads, the scalar writes.
        self.sequencer.clock.next = self.clock.val();
        self.sequencer.reset.next = self.reset.val();
        self.sequencer.start.next = self.start.val();
        self.sequencer.ifm_region.next = self.r_ifm_region.q.val().get_bits::<3>(0);
        self.sequencer.ifm2_region.next = self.r_ifm2_region.q.val().get_bits::<3>(0);
        self.sequencer.ofm_region.next = self.r_ofm_region.q.val().get_bits::<3>(0);
        self.sequencer.weight_region.next = self.r_weight_region.q.val().get_bits::<3>(0);
        self.sequencer.scale_region.next = self.r_scale_region.q.val().get_bits::<3>(0);
        self.debug_index.next = self.sequencer.debug_index.val();
        self.debug_hold.next = self.sequencer.debug_hold.val();
        self.latched.next = self.sequencer.latched.val();
        self.ifm_load.next = self.sequencer.ifm_load.val();
        self.ifm2_load.next = self.sequencer.ifm2_load.val();
        self.ofm_load.next = self.sequencer.ofm_load.val();
        self.load_slot.next = self.sequencer.load_slot.val();
        self.load_value.next = self.debug_value.val().get_bits::<40>(0);
        // Scalar id `scalar_id` (the ids of module `scalar`, in order), one-hot.
        self.scalar_select.next = self.one64.val() << self.sequencer.scalar_id.val();
        self.unused_bits.next = self.debug_value.val().get_bits::<10>(38).any() | self.scalar_select.val().get_bits::<22>(42).any();
        if self.sequencer.scalar_write.val() {
            if self.scalar_select.val().get_bit(0) {
                self.r_ifm_region.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(1) {
                self.r_ifm2_region.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(2) {
                self.r_ofm_region.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(3) {
                self.r_ifm_zero_point.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(4) {
                self.r_ifm2_zero_point.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(5) {
                self.r_ofm_zero_point.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(6) {
                self.r_ifm_precision.d.next = self.debug_value.val().get_bits::<10>(0);
            }
            if self.scalar_select.val().get_bit(7) {
                self.r_ifm2_precision.d.next = self.debug_value.val().get_bits::<8>(0);
            }
            if self.scalar_select.val().get_bit(8) {
                self.r_ofm_precision.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(9) {
                self.r_ifm2_broadcast.d.next = self.debug_value.val().get_bits::<8>(0);
            }
            if self.scalar_select.val().get_bit(10) {
                self.r_ifm2_scalar.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(11) {
                self.r_opa_scale.d.next = self.debug_value.val().get_bits::<38>(0);
            }
            if self.scalar_select.val().get_bit(12) {
                self.r_opb_scale.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(13) {
                self.r_ofm_scale.d.next = self.debug_value.val().get_bits::<38>(0);
            }
            if self.scalar_select.val().get_bit(14) {
                self.r_activation.d.next = self.debug_value.val().get_bits::<5>(0);
            }
            if self.scalar_select.val().get_bit(15) {
                self.r_activation_min.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(16) {
                self.r_activation_max.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(17) {
                self.r_acc_format.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(18) {
                self.r_ifm_upscale.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(19) {
                self.r_ofm_height_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(20) {
                self.r_ofm_width_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(21) {
                self.r_ofm_depth_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(22) {
                self.r_kernel_height_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(23) {
                self.r_kernel_width_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(24) {
                self.r_kernel_stride.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(25) {
                self.r_ifm_pad_top.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(26) {
                self.r_ifm_pad_left.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(27) {
                self.r_ifm_pad_bottom.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(28) {
                self.r_ifm_pad_right.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(29) {
                self.r_ifm_depth_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(30) {
                self.r_ofm_blk_depth_m1.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(31) {
                self.r_weight_region.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(32) {
                self.r_scale_region.d.next = self.debug_value.val().get_bits::<16>(0);
            }
            if self.scalar_select.val().get_bit(33) {
                self.r_weight_base.d.next = self.debug_value.val().get_bits::<40>(0);
            }
            if self.scalar_select.val().get_bit(34) {
                self.r_weight_length.d.next = self.debug_value.val().get_bits::<40>(0);
            }
            if self.scalar_select.val().get_bit(35) {
                self.r_scale_base.d.next = self.debug_value.val().get_bits::<40>(0);
            }
            if self.scalar_select.val().get_bit(36) {
                self.r_scale_length.d.next = self.debug_value.val().get_bits::<40>(0);
            }
            if self.scalar_select.val().get_bit(37) {
                self.r_ifm_stride_c.d.next = self.debug_value.val().get_bits::<40>(0);
            }
            if self.scalar_select.val().get_bit(38) {
                self.r_weight_basep_low.d.next = self.debug_value.val().get_bits::<32>(0);
            }
            if self.scalar_select.val().get_bit(39) {
                self.r_weight_basep_high.d.next = self.debug_value.val().get_bits::<8>(0);
            }
            if self.scalar_select.val().get_bit(40) {
                self.r_scale_basep_low.d.next = self.debug_value.val().get_bits::<32>(0);
            }
            if self.scalar_select.val().get_bit(41) {
                self.r_scale_basep_high.d.next = self.debug_value.val().get_bits::<8>(0);
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
        self.kernel_height_m1.next = self.r_kernel_height_m1.q.val();
        self.kernel_width_m1.next = self.r_kernel_width_m1.q.val();
        self.kernel_stride.next = self.r_kernel_stride.q.val();
        self.ifm_pad_top.next = self.r_ifm_pad_top.q.val();
        self.ifm_pad_left.next = self.r_ifm_pad_left.q.val();
        self.ifm_pad_bottom.next = self.r_ifm_pad_bottom.q.val();
        self.ifm_pad_right.next = self.r_ifm_pad_right.q.val();
        self.ifm_depth_m1.next = self.r_ifm_depth_m1.q.val();
        self.ofm_blk_depth_m1.next = self.r_ofm_blk_depth_m1.q.val();
        self.weight_region.next = self.r_weight_region.q.val();
        self.scale_region.next = self.r_scale_region.q.val();
        self.weight_base.next = self.r_weight_base.q.val();
        self.weight_length.next = self.r_weight_length.q.val();
        self.scale_base.next = self.r_scale_base.q.val();
        self.scale_length.next = self.r_scale_length.q.val();
        self.ifm_stride_c.next = self.r_ifm_stride_c.q.val();
        self.weight_basep_join.high.next = self.r_weight_basep_high.q.val();
        self.weight_basep_join.low.next = self.r_weight_basep_low.q.val();
        self.weight_basep.next = self.weight_basep_join.joined.val();
        self.scale_basep_join.high.next = self.r_scale_basep_high.q.val();
        self.scale_basep_join.low.next = self.r_scale_basep_low.q.val();
        self.scale_basep.next = self.scale_basep_join.joined.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(KernelRegisters::default, "kernel_registers");
}
