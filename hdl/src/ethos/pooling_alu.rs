//! The kernel unit's pooling arithmetic (NPU_OP_POOL, TRM §4.6; digest §2.3 gives no formula,
//! the formulas are the reference executor's, `npu::ethos::executor`, proven equal to TFLite):
//! where a kernel tap lies in the IFM and whether it is inside it, and the result before the
//! OFM scale (the running max or sum is `pool_lanes.rs`'s, 8 channels at once). The model is `npu_model::ethos::elementwise` (`tap`,
//! `accumulate`, `pool_value`); docs/ethos.md, "Kernel unit".
//!
//! ```text
//! tap (ky, kx) of OFM element (y, x):  iy = y·stride_y + ky - PAD_TOP,  ix = x·stride_x + kx - PAD_LEFT
//! inside:  0 <= iy < h, 0 <= ix < w,  h = OFM_HEIGHT·stride_y + KERNEL_HEIGHT - stride_y - PAD_TOP - PAD_BOTTOM (w alike)
//! value:  max, or the sum; average over padding: sum / count rounded half away from zero
//! ```
//! Strides come from KERNEL_STRIDE (`{[11:9], [1]} + 1` for y, `{[8:6], [0]} + 1` for x).
//! The unit takes kernels of at most 256 x 256 taps without dilation (it refuses others in
//! CHECK), so the sum fits in 32 bits and the count in 17.
//!
//! Written as a Verilog leaf (like `elementwise_alu.rs`): the tap position is a signed
//! 16 x 5-bit product and signed comparisons, the average a signed division rounded half away from zero; rust-hdl's `Bits` are unsigned,
//! multiply only 16 x 16 bits and do not divide. The control around it is rust-hdl.
use rust_hdl::prelude::*;

/// The largest KERNEL_HEIGHT_M1 and KERNEL_WIDTH_M1 a pool may have.
pub const MAX_KERNEL_M1: u16 = 255;

/// Ports: the tap (`y`, `x`, `ky`, `kx`) and the registers it needs give `iy`, `ix`, `in_ifm`;
/// the element's lane of the running max or sum `acc` of `count` taps (`divide`: average over padding) gives `value`.
#[derive(LogicBlock, Default)]
pub struct PoolingAlu {
    pub y: Signal<In, Bits<16>>,
    pub x: Signal<In, Bits<16>>,
    pub ky: Signal<In, Bits<16>>,
    pub kx: Signal<In, Bits<16>>,
    pub kernel_stride: Signal<In, Bits<16>>,
    pub kernel_height_m1: Signal<In, Bits<16>>,
    pub kernel_width_m1: Signal<In, Bits<16>>,
    pub ofm_height_m1: Signal<In, Bits<16>>,
    pub ofm_width_m1: Signal<In, Bits<16>>,
    pub pad_top: Signal<In, Bits<16>>,
    pub pad_left: Signal<In, Bits<16>>,
    pub pad_bottom: Signal<In, Bits<16>>,
    pub pad_right: Signal<In, Bits<16>>,
    /// The pool's 8 lanes of running max or sum (`pool_lanes.rs`): lane `lane` with
    /// `word_lanes`, else lane 0, is the element's.
    pub acc: Signal<In, Bits<256>>,
    pub lane: Signal<In, Bits<3>>,
    pub word_lanes: Signal<In, Bit>,
    pub count: Signal<In, Bits<17>>,
    pub divide: Signal<In, Bit>,
    pub iy: Signal<Out, Bits<16>>,
    pub ix: Signal<Out, Bits<16>>,
    pub in_ifm: Signal<Out, Bit>,
    pub value: Signal<Out, Bits<40>>,
}

impl Logic for PoolingAlu {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.iy.connect();
        self.ix.connect();
        self.in_ifm.connect();
        self.value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "reg signed [23:0] sy;\n\
             reg signed [23:0] sx;\n\
             reg signed [23:0] ty;\n\
             reg signed [23:0] tx;\n\
             reg signed [23:0] h;\n\
             reg signed [23:0] w;\n\
             reg signed [31:0] sum;\n\
             reg signed [31:0] n;\n\
             reg signed [31:0] q;\n\
             reg unused_high;\n\
             always @(*) begin\n    \
                 sy = $signed({20'd0, kernel_stride[11:9], kernel_stride[1]}) + 24'sd1;\n    \
                 sx = $signed({20'd0, kernel_stride[8:6], kernel_stride[0]}) + 24'sd1;\n    \
                 ty = $signed({8'd0, y}) * sy + $signed({8'd0, ky}) - $signed({8'd0, pad_top});\n    \
                 tx = $signed({8'd0, x}) * sx + $signed({8'd0, kx}) - $signed({8'd0, pad_left});\n    \
                 h = $signed({8'd0, ofm_height_m1}) * sy + $signed({8'd0, kernel_height_m1}) + 24'sd1 - $signed({8'd0, pad_top}) - $signed({8'd0, pad_bottom});\n    \
                 w = $signed({8'd0, ofm_width_m1}) * sx + $signed({8'd0, kernel_width_m1}) + 24'sd1 - $signed({8'd0, pad_left}) - $signed({8'd0, pad_right});\n    \
                 in_ifm = (ty >= 24'sd0) && (ty < h) && (tx >= 24'sd0) && (tx < w);\n    \
                 iy = ty[15:0];\n    \
                 ix = tx[15:0];\n    \
                 unused_high = ^{ty[23:16], tx[23:16], kernel_stride[15:12], kernel_stride[5:2]};\n    \
                 sum = word_lanes ? $signed(acc[{lane, 5'd0} +: 32]) : $signed(acc[31:0]);\n    \
                 n = $signed({15'd0, count});\n    \
                 q = sum;\n    \
                 if (divide) begin\n        \
                     if (count == 17'd0) q = 32'sd0;\n        \
                     else if (sum >= 32'sd0) q = (sum + (n >>> 1)) / n;\n        \
                     else q = (sum - (n >>> 1)) / n;\n    \
                 end\n    \
                 value = {{8{q[31]}}, q};\n\
             end"
                .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PoolingAlu::default, "pooling_alu");
}
