//! The Ethos-U65 convolution datapath's CHECK (`conv_datapath.rs`): every layer register in
//! range, and the weight rows the layer needs in Vela's order (digest §1.9): per 8-channel
//! OFM group, conv depth-first: 4 rows of 8 IFM channels per 32-channel IFM block and kernel
//! element; part-kernel-first: per 8-channel IFM group, one row per kernel element padded to
//! a multiple of 4 elements; depthwise: one row per kernel element, padded likewise. Computed from
//! the latched layer registers (`layer_registers.rs`) alone. A kernel side is 1..=15 (4-bit
//! ports). Vela splits a side above `8 / dilation` into sub-kernels (`SubKernelMax`, digest
//! §1.9) of `E'` elements each, padded to a multiple of 4 part-kernel-first and depthwise;
//! the sum of the padded `E'` over the sub-kernels is `roundup(KH·KW, 4)`, as for one kernel:
//! every sub-kernel but the bottom-right one has a side of 8 or 4 (a multiple of 4), and the
//! bottom-right one's `ry·rx` equals `KH·KW` modulo 4 (`ry = KH mod 8` or `mod 4`). So the
//! count is the one of an unsplit kernel.
use super::conv_datapath::{DIM_BITS, SHAPE_DEPTHWISE, SHAPE_DIMS, SHAPE_KERNEL, SHAPE_STRIDE, SHAPE_WEIGHT_ROWS, WEIGHT_ROWS};
use crate::primitives::constant as k;
use crate::primitives::{MulU, ZeroExtend};
use rust_hdl::prelude::*;

/// `shape`: the `SHAPE_*` bits of the registers out of range (0: the layer runs);
/// `total_rows`: the weight rows it needs (low 13 bits; checked against the buffer's 4096);
/// `scale_bias_limit`: the scale/bias stream's most bytes, 10 per OFM channel padded to 16.
#[derive(LogicBlock)]
pub struct LayerCheck {
    /// The datapath is in CHECK, the only phase that reads `shape`: outside it `shape` is 0 and
    /// Verilator skips its comparisons (issue 19).
    pub checking: Signal<In, Bit>,
    pub ifm_height: Signal<In, Bits<DIM_BITS>>,
    pub ifm_width: Signal<In, Bits<DIM_BITS>>,
    pub ifm_depth: Signal<In, Bits<DIM_BITS>>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    pub depthwise: Signal<In, Bit>,
    pub part_kernel: Signal<In, Bit>,
    pub shape: Signal<Out, Bits<20>>,
    pub total_rows: Signal<Out, Bits<13>>,
    pub scale_bias_limit: Signal<Out, Bits<20>>,

    elements: MulU<4, 4, 8>,
    conv_rows: MulU<13, 8, 16>,
    part_kernel_rows: MulU<13, 8, 16>,
    padded_elements: Signal<Local, Bits<8>>,
    groups: Signal<Local, Bits<13>>,
    total: MulU<13, 16, 26>,
    ifm_depth13: ZeroExtend<12, 13>,
    ofm_depth13: ZeroExtend<12, 13>,
    ofm_depth20: ZeroExtend<12, 20>,
    elements16: ZeroExtend<8, 16>,
    per_og: Signal<Local, Bits<16>>,
    blocks: Signal<Local, Bits<13>>,
    ogs: Signal<Local, Bits<13>>,
    shape_dims: Constant<Bits<20>>,
    shape_kernel: Constant<Bits<20>>,
    shape_stride: Constant<Bits<20>>,
    shape_depthwise: Constant<Bits<20>>,
    shape_weight_rows: Constant<Bits<20>>,
    zero2: Constant<Bits<2>>,
    zero4: Constant<Bits<4>>,
    zero12: Constant<Bits<12>>,
    zero20: Constant<Bits<20>>,
    three16: Constant<Bits<16>>,
    round4_16: Constant<Bits<16>>,
    three8: Constant<Bits<8>>,
    round4_8: Constant<Bits<8>>,
    seven13: Constant<Bits<13>>,
    thirty_one13: Constant<Bits<13>>,
    rows_max26: Constant<Bits<26>>,
    fifteen20: Constant<Bits<20>>,
    round20: Constant<Bits<20>>,
    shift1: Constant<Bits<4>>,
    shift2: Constant<Bits<4>>,
    shift3: Constant<Bits<4>>,
    shift5: Constant<Bits<4>>,
}

impl Default for LayerCheck {
    fn default() -> Self {
        Self {
            checking: Default::default(),
            ifm_height: Default::default(),
            ifm_width: Default::default(),
            ifm_depth: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            ofm_depth: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            depthwise: Default::default(),
            part_kernel: Default::default(),
            shape: Default::default(),
            total_rows: Default::default(),
            scale_bias_limit: Default::default(),
            elements: Default::default(),
            conv_rows: Default::default(),
            part_kernel_rows: Default::default(),
            padded_elements: Default::default(),
            groups: Default::default(),
            total: Default::default(),
            ifm_depth13: Default::default(),
            ofm_depth13: Default::default(),
            ofm_depth20: Default::default(),
            elements16: Default::default(),
            per_og: Default::default(),
            blocks: Default::default(),
            ogs: Default::default(),
            shape_dims: k(SHAPE_DIMS),
            shape_kernel: k(SHAPE_KERNEL),
            shape_stride: k(SHAPE_STRIDE),
            shape_depthwise: k(SHAPE_DEPTHWISE),
            shape_weight_rows: k(SHAPE_WEIGHT_ROWS),
            zero2: k(0),
            zero4: k(0),
            zero12: k(0),
            zero20: k(0),
            three16: k(3),
            round4_16: k(0xFFFC),
            three8: k(3),
            round4_8: k(0xFC),
            seven13: k(7),
            thirty_one13: k(31),
            rows_max26: k(WEIGHT_ROWS),
            fifteen20: k(15),
            round20: k(0xFFFF0),
            shift1: k(1),
            shift2: k(2),
            shift3: k(3),
            shift5: k(5),
        }
    }
}

impl Logic for LayerCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.ifm_depth13.narrow.next = self.ifm_depth.val();
        self.ofm_depth13.narrow.next = self.ofm_depth.val();
        self.ofm_depth20.narrow.next = self.ofm_depth.val();
        self.elements.a.next = self.kernel_height.val();
        self.elements.b.next = self.kernel_width.val();
        self.elements16.narrow.next = self.elements.product.val();
        self.blocks.next = (self.ifm_depth13.wide.val() + self.thirty_one13.val()) >> self.shift5.val();
        self.conv_rows.a.next = self.blocks.val();
        self.conv_rows.b.next = self.elements.product.val();
        self.per_og.next = self.conv_rows.product.val() << self.shift2.val();
        self.padded_elements.next = (self.elements.product.val() + self.three8.val()) & self.round4_8.val();
        self.groups.next = (self.ifm_depth13.wide.val() + self.seven13.val()) >> self.shift3.val();
        self.part_kernel_rows.a.next = self.groups.val();
        self.part_kernel_rows.b.next = self.padded_elements.val();
        if self.part_kernel.val() {
            self.per_og.next = self.part_kernel_rows.product.val();
        }
        if self.depthwise.val() {
            self.per_og.next = (self.elements16.wide.val() + self.three16.val()) & self.round4_16.val();
        }
        self.ogs.next = (self.ofm_depth13.wide.val() + self.seven13.val()) >> self.shift3.val();
        self.total.a.next = self.ogs.val();
        self.total.b.next = self.per_og.val();
        self.total_rows.next = self.total.product.val().get_bits::<13>(0);
        self.scale_bias_limit.next = ((self.ofm_depth20.wide.val() << self.shift3.val())
            + (self.ofm_depth20.wide.val() << self.shift1.val())
            + self.fifteen20.val())
            & self.round20.val();
        self.shape.next = self.zero20.val();
        if self.checking.val() {
            if (self.ifm_height.val() == self.zero12.val())
                | (self.ifm_width.val() == self.zero12.val())
                | (self.ifm_depth.val() == self.zero12.val())
                | (self.ofm_height.val() == self.zero12.val())
                | (self.ofm_width.val() == self.zero12.val())
                | (self.ofm_depth.val() == self.zero12.val())
            {
                self.shape.next = self.shape.val() | self.shape_dims.val();
            }
            if (self.kernel_height.val() == self.zero4.val()) | (self.kernel_width.val() == self.zero4.val()) {
                self.shape.next = self.shape.val() | self.shape_kernel.val();
            }
            if (self.stride_y.val() == self.zero2.val()) | (self.stride_x.val() == self.zero2.val()) {
                self.shape.next = self.shape.val() | self.shape_stride.val();
            }
            if self.depthwise.val() & (self.ifm_depth.val() != self.ofm_depth.val()) {
                self.shape.next = self.shape.val() | self.shape_depthwise.val();
            }
            if self.total.product.val() > self.rows_max26.val() {
                self.shape.next = self.shape.val() | self.shape_weight_rows.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(LayerCheck::default, "layer_check");
}
