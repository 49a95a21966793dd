//! The kernel unit's registers and its LATCH sequence (TRM §4.6; docs/ethos.md, "Kernel
//! unit"): the copies of the `NPU_SET_*` registers the unit reads, read from the front end's
//! debug port while the front end is held, so the front end may go on with later commands while
//! the unit runs. The scalar registers are kept here (each only the bits the unit reads, in
//! the one clocked process of [`super::scalar_registers::ScalarRegisters`]); the
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
use super::scalar_registers::ScalarRegisters;
use crate::primitives::Concat;
use rust_hdl::prelude::*;

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
    weight_basep_join: Concat<8, 32, 40>,
    scale_basep_join: Concat<8, 32, 40>,
    /// LATCH: the debug-port reads and where each value goes.
    sequencer: LatchSequencer,
    /// The scalar copies, in one clocked process (`scalar_registers.rs`).
    scalars: ScalarRegisters,
    /// Bits read nowhere, named as lint expects.
    unused_bits: Signal<Local, Bit>,
}

impl Default for KernelRegisters {
    fn default() -> Self {
        assert!(scalar::COUNT <= 64, "scalar ids are 6 bits");
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
            weight_basep_join: Default::default(),
            scale_basep_join: Default::default(),
            sequencer: Default::default(),
            scalars: Default::default(),
            unused_bits: Default::default(),
        }
    }
}

impl Logic for KernelRegisters {
    #[hdl_gen]
    fn update(&mut self) {

        // LATCH (the sequencer): the debug port, the feature-map loads, the scalar writes.
        self.sequencer.clock.next = self.clock.val();
        self.sequencer.reset.next = self.reset.val();
        self.sequencer.start.next = self.start.val();
        self.sequencer.ifm_region.next = self.scalars.ifm_region.val().get_bits::<3>(0);
        self.sequencer.ifm2_region.next = self.scalars.ifm2_region.val().get_bits::<3>(0);
        self.sequencer.ofm_region.next = self.scalars.ofm_region.val().get_bits::<3>(0);
        self.sequencer.weight_region.next = self.scalars.weight_region.val().get_bits::<3>(0);
        self.sequencer.scale_region.next = self.scalars.scale_region.val().get_bits::<3>(0);
        self.debug_index.next = self.sequencer.debug_index.val();
        self.debug_hold.next = self.sequencer.debug_hold.val();
        self.latched.next = self.sequencer.latched.val();
        self.ifm_load.next = self.sequencer.ifm_load.val();
        self.ifm2_load.next = self.sequencer.ifm2_load.val();
        self.ofm_load.next = self.sequencer.ofm_load.val();
        self.load_slot.next = self.sequencer.load_slot.val();
        self.load_value.next = self.debug_value.val().get_bits::<40>(0);
        // The scalar copies: LATCH writes register `scalar_id` (module `scalar`'s ids).
        self.scalars.clock.next = self.clock.val();
        self.scalars.reset.next = self.reset.val();
        self.scalars.write.next = self.sequencer.scalar_write.val();
        self.scalars.id.next = self.sequencer.scalar_id.val();
        self.scalars.value.next = self.debug_value.val().get_bits::<40>(0);
        self.unused_bits.next = self.debug_value.val().get_bits::<8>(40).any();
        self.ifm_region.next = self.scalars.ifm_region.val();
        self.ifm2_region.next = self.scalars.ifm2_region.val();
        self.ofm_region.next = self.scalars.ofm_region.val();
        self.ifm_zero_point.next = self.scalars.ifm_zero_point.val();
        self.ifm2_zero_point.next = self.scalars.ifm2_zero_point.val();
        self.ofm_zero_point.next = self.scalars.ofm_zero_point.val();
        self.ifm_precision.next = self.scalars.ifm_precision.val();
        self.ifm2_precision.next = self.scalars.ifm2_precision.val();
        self.ofm_precision.next = self.scalars.ofm_precision.val();
        self.ifm2_broadcast.next = self.scalars.ifm2_broadcast.val();
        self.ifm2_scalar.next = self.scalars.ifm2_scalar.val();
        self.opa_scale.next = self.scalars.opa_scale.val();
        self.opb_scale.next = self.scalars.opb_scale.val();
        self.ofm_scale.next = self.scalars.ofm_scale.val();
        self.activation.next = self.scalars.activation.val();
        self.activation_min.next = self.scalars.activation_min.val();
        self.activation_max.next = self.scalars.activation_max.val();
        self.acc_format.next = self.scalars.acc_format.val();
        self.ifm_upscale.next = self.scalars.ifm_upscale.val();
        self.ofm_height_m1.next = self.scalars.ofm_height_m1.val();
        self.ofm_width_m1.next = self.scalars.ofm_width_m1.val();
        self.ofm_depth_m1.next = self.scalars.ofm_depth_m1.val();
        self.kernel_height_m1.next = self.scalars.kernel_height_m1.val();
        self.kernel_width_m1.next = self.scalars.kernel_width_m1.val();
        self.kernel_stride.next = self.scalars.kernel_stride.val();
        self.ifm_pad_top.next = self.scalars.ifm_pad_top.val();
        self.ifm_pad_left.next = self.scalars.ifm_pad_left.val();
        self.ifm_pad_bottom.next = self.scalars.ifm_pad_bottom.val();
        self.ifm_pad_right.next = self.scalars.ifm_pad_right.val();
        self.ifm_depth_m1.next = self.scalars.ifm_depth_m1.val();
        self.ofm_blk_depth_m1.next = self.scalars.ofm_blk_depth_m1.val();
        self.weight_region.next = self.scalars.weight_region.val();
        self.scale_region.next = self.scalars.scale_region.val();
        self.weight_base.next = self.scalars.weight_base.val();
        self.weight_length.next = self.scalars.weight_length.val();
        self.scale_base.next = self.scalars.scale_base.val();
        self.scale_length.next = self.scalars.scale_length.val();
        self.ifm_stride_c.next = self.scalars.ifm_stride_c.val();
        self.weight_basep_join.high.next = self.scalars.weight_basep_high.val();
        self.weight_basep_join.low.next = self.scalars.weight_basep_low.val();
        self.weight_basep.next = self.weight_basep_join.joined.val();
        self.scale_basep_join.high.next = self.scalars.scale_basep_high.val();
        self.scale_basep_join.low.next = self.scalars.scale_basep_low.val();
        self.scale_basep.next = self.scale_basep_join.joined.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(KernelRegisters::default, "kernel_registers");
}
