//! The Ethos-U65 convolution datapath's layer registers (`conv_datapath.rs`), latched when a
//! layer starts. The datapath's port contract already holds them from `start` to `done`, so
//! inside a layer the latched values equal the ports; what the copy buys is that the logic
//! reading them (the layer check, the traversal counters, the weight gathering) reads
//! registers only, and Verilator evaluates it once a cycle rather than on every change of the
//! inputs (docs/ethos.md, "Verilated speed"). The outputs that the model computes from the
//! ports in every state (the IFM read address, the output unit's zero point and clamp) still
//! read the ports.
use super::conv_datapath::DIM_BITS;
use crate::primitives::RegEn;
use rust_hdl::prelude::*;

/// `load` (IDLE and `start`) copies the ports `*_in` into the registers `*`.
#[derive(LogicBlock, Default)]
pub struct LayerRegisters {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub ifm_height_in: Signal<In, Bits<DIM_BITS>>,
    pub ifm_width_in: Signal<In, Bits<DIM_BITS>>,
    pub ifm_depth_in: Signal<In, Bits<DIM_BITS>>,
    pub ofm_height_in: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width_in: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth_in: Signal<In, Bits<DIM_BITS>>,
    pub kernel_height_in: Signal<In, Bits<4>>,
    pub kernel_width_in: Signal<In, Bits<4>>,
    pub stride_y_in: Signal<In, Bits<2>>,
    pub stride_x_in: Signal<In, Bits<2>>,
    pub pad_top_in: Signal<In, Bits<3>>,
    pub pad_left_in: Signal<In, Bits<3>>,
    pub depthwise_in: Signal<In, Bit>,
    pub part_kernel_in: Signal<In, Bit>,
    pub block_groups_m1_in: Signal<In, Bits<4>>,
    pub dilation_y_in: Signal<In, Bit>,
    pub dilation_x_in: Signal<In, Bit>,
    pub pack_depthwise_in: Signal<In, Bit>,
    pub ifm_height: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_width: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_depth: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_height: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_width: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<Out, Bits<DIM_BITS>>,
    pub kernel_height: Signal<Out, Bits<4>>,
    pub kernel_width: Signal<Out, Bits<4>>,
    pub stride_y: Signal<Out, Bits<2>>,
    pub stride_x: Signal<Out, Bits<2>>,
    pub pad_top: Signal<Out, Bits<3>>,
    pub pad_left: Signal<Out, Bits<3>>,
    pub depthwise: Signal<Out, Bit>,
    pub part_kernel: Signal<Out, Bit>,
    pub block_groups_m1: Signal<Out, Bits<4>>,
    pub dilation_y: Signal<Out, Bit>,
    pub dilation_x: Signal<Out, Bit>,
    pub pack_depthwise: Signal<Out, Bit>,
    ifm_height_q: RegEn<Bits<DIM_BITS>>,
    ifm_width_q: RegEn<Bits<DIM_BITS>>,
    ifm_depth_q: RegEn<Bits<DIM_BITS>>,
    ofm_height_q: RegEn<Bits<DIM_BITS>>,
    ofm_width_q: RegEn<Bits<DIM_BITS>>,
    ofm_depth_q: RegEn<Bits<DIM_BITS>>,
    kernel_height_q: RegEn<Bits<4>>,
    kernel_width_q: RegEn<Bits<4>>,
    stride_y_q: RegEn<Bits<2>>,
    stride_x_q: RegEn<Bits<2>>,
    pad_top_q: RegEn<Bits<3>>,
    pad_left_q: RegEn<Bits<3>>,
    depthwise_q: RegEn<Bit>,
    part_kernel_q: RegEn<Bit>,
    block_groups_m1_q: RegEn<Bits<4>>,
    dilation_y_q: RegEn<Bit>,
    dilation_x_q: RegEn<Bit>,
    pack_depthwise_q: RegEn<Bit>,
}

impl Logic for LayerRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        self.ifm_height_q.clock.next = self.clock.val();
        self.ifm_height_q.reset.next = self.reset.val();
        self.ifm_height_q.enable.next = self.load.val();
        self.ifm_height_q.d.next = self.ifm_height_in.val();
        self.ifm_height.next = self.ifm_height_q.q.val();
        self.ifm_width_q.clock.next = self.clock.val();
        self.ifm_width_q.reset.next = self.reset.val();
        self.ifm_width_q.enable.next = self.load.val();
        self.ifm_width_q.d.next = self.ifm_width_in.val();
        self.ifm_width.next = self.ifm_width_q.q.val();
        self.ifm_depth_q.clock.next = self.clock.val();
        self.ifm_depth_q.reset.next = self.reset.val();
        self.ifm_depth_q.enable.next = self.load.val();
        self.ifm_depth_q.d.next = self.ifm_depth_in.val();
        self.ifm_depth.next = self.ifm_depth_q.q.val();
        self.ofm_height_q.clock.next = self.clock.val();
        self.ofm_height_q.reset.next = self.reset.val();
        self.ofm_height_q.enable.next = self.load.val();
        self.ofm_height_q.d.next = self.ofm_height_in.val();
        self.ofm_height.next = self.ofm_height_q.q.val();
        self.ofm_width_q.clock.next = self.clock.val();
        self.ofm_width_q.reset.next = self.reset.val();
        self.ofm_width_q.enable.next = self.load.val();
        self.ofm_width_q.d.next = self.ofm_width_in.val();
        self.ofm_width.next = self.ofm_width_q.q.val();
        self.ofm_depth_q.clock.next = self.clock.val();
        self.ofm_depth_q.reset.next = self.reset.val();
        self.ofm_depth_q.enable.next = self.load.val();
        self.ofm_depth_q.d.next = self.ofm_depth_in.val();
        self.ofm_depth.next = self.ofm_depth_q.q.val();
        self.kernel_height_q.clock.next = self.clock.val();
        self.kernel_height_q.reset.next = self.reset.val();
        self.kernel_height_q.enable.next = self.load.val();
        self.kernel_height_q.d.next = self.kernel_height_in.val();
        self.kernel_height.next = self.kernel_height_q.q.val();
        self.kernel_width_q.clock.next = self.clock.val();
        self.kernel_width_q.reset.next = self.reset.val();
        self.kernel_width_q.enable.next = self.load.val();
        self.kernel_width_q.d.next = self.kernel_width_in.val();
        self.kernel_width.next = self.kernel_width_q.q.val();
        self.stride_y_q.clock.next = self.clock.val();
        self.stride_y_q.reset.next = self.reset.val();
        self.stride_y_q.enable.next = self.load.val();
        self.stride_y_q.d.next = self.stride_y_in.val();
        self.stride_y.next = self.stride_y_q.q.val();
        self.stride_x_q.clock.next = self.clock.val();
        self.stride_x_q.reset.next = self.reset.val();
        self.stride_x_q.enable.next = self.load.val();
        self.stride_x_q.d.next = self.stride_x_in.val();
        self.stride_x.next = self.stride_x_q.q.val();
        self.pad_top_q.clock.next = self.clock.val();
        self.pad_top_q.reset.next = self.reset.val();
        self.pad_top_q.enable.next = self.load.val();
        self.pad_top_q.d.next = self.pad_top_in.val();
        self.pad_top.next = self.pad_top_q.q.val();
        self.pad_left_q.clock.next = self.clock.val();
        self.pad_left_q.reset.next = self.reset.val();
        self.pad_left_q.enable.next = self.load.val();
        self.pad_left_q.d.next = self.pad_left_in.val();
        self.pad_left.next = self.pad_left_q.q.val();
        self.depthwise_q.clock.next = self.clock.val();
        self.depthwise_q.reset.next = self.reset.val();
        self.depthwise_q.enable.next = self.load.val();
        self.depthwise_q.d.next = self.depthwise_in.val();
        self.depthwise.next = self.depthwise_q.q.val();
        self.part_kernel_q.clock.next = self.clock.val();
        self.part_kernel_q.reset.next = self.reset.val();
        self.part_kernel_q.enable.next = self.load.val();
        self.part_kernel_q.d.next = self.part_kernel_in.val();
        self.part_kernel.next = self.part_kernel_q.q.val();
        self.block_groups_m1_q.clock.next = self.clock.val();
        self.block_groups_m1_q.reset.next = self.reset.val();
        self.block_groups_m1_q.enable.next = self.load.val();
        self.block_groups_m1_q.d.next = self.block_groups_m1_in.val();
        self.block_groups_m1.next = self.block_groups_m1_q.q.val();
        self.dilation_y_q.clock.next = self.clock.val();
        self.dilation_y_q.reset.next = self.reset.val();
        self.dilation_y_q.enable.next = self.load.val();
        self.dilation_y_q.d.next = self.dilation_y_in.val();
        self.dilation_y.next = self.dilation_y_q.q.val();
        self.dilation_x_q.clock.next = self.clock.val();
        self.dilation_x_q.reset.next = self.reset.val();
        self.dilation_x_q.enable.next = self.load.val();
        self.dilation_x_q.d.next = self.dilation_x_in.val();
        self.dilation_x.next = self.dilation_x_q.q.val();
        self.pack_depthwise_q.clock.next = self.clock.val();
        self.pack_depthwise_q.reset.next = self.reset.val();
        self.pack_depthwise_q.enable.next = self.load.val();
        self.pack_depthwise_q.d.next = self.pack_depthwise_in.val();
        self.pack_depthwise.next = self.pack_depthwise_q.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(LayerRegisters::default, "layer_registers");
}
