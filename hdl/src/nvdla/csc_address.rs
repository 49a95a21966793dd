//! CSC's address arithmetic (seeds/001 "Convolution sequence controller"; placement in
//! docs/nvdla.md "CSC's sequence and CBUF placement"), combinational. Verilog for its widths
//! and products, as [`super::cacc::CaccLanes`]. Model: `npu_model::nvdla::csc`
//! (`Csc::feature`, `CscLayer::data_entry`, `weight_entry`, `lane_mask`).
//!
//! For output pixel (ox, oy) at tap (r, s) of channel block `cblock`: the input position
//! x = ox*SX + s*DX - PAD_LEFT, y = oy*SY + r*DY - PAD_TOP, `in_cube` the cube or not, and its
//! CBUF entry `(cblock*H + y)*W + x` (modulo 2^14, as the model's entry index); for kernel
//! `load` of group `group` at weight stripe `stripe` (= channel block * taps + tap): the
//! entry `(DATA_BANK+1)*512 + stripe*8 + load` (modulo 2^14) and `kernel_valid` (the kernel
//! is below the layer's count); the lanes of the channel block in_cube the cube (`mask`, all
//! lanes but in a last, partial block); the padding value's low byte in every lane. The
//! products are small (13 x 4, 5 x 6 and 14 x 14 bits): a later refinement may keep them as
//! running pointers.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CscAddress {
    pub ox: Signal<In, Bits<13>>,
    pub oy: Signal<In, Bits<13>>,
    pub r: Signal<In, Bits<5>>,
    pub s: Signal<In, Bits<5>>,
    pub cblock: Signal<In, Bits<10>>,
    pub group: Signal<In, Bits<10>>,
    pub load: Signal<In, Bits<3>>,
    pub stripe: Signal<In, Bits<14>>,
    pub datain_width_ext: Signal<In, Bits<13>>,
    pub datain_height_ext: Signal<In, Bits<13>>,
    pub datain_channel_ext: Signal<In, Bits<13>>,
    pub weight_kernel: Signal<In, Bits<13>>,
    pub conv_x_stride_ext: Signal<In, Bits<3>>,
    pub conv_y_stride_ext: Signal<In, Bits<3>>,
    pub x_dilation_ext: Signal<In, Bits<5>>,
    pub y_dilation_ext: Signal<In, Bits<5>>,
    pub pad_left: Signal<In, Bits<5>>,
    pub pad_top: Signal<In, Bits<5>>,
    pub pad_value: Signal<In, Bits<16>>,
    pub data_bank: Signal<In, Bits<5>>,
    /// The channel block is the last.
    pub last_block: Signal<Out, Bit>,
    pub in_cube: Signal<Out, Bit>,
    pub data_entry: Signal<Out, Bits<14>>,
    pub weight_entry: Signal<Out, Bits<14>>,
    pub kernel_valid: Signal<Out, Bit>,
    pub mask: Signal<Out, Bits<64>>,
    pub pad_word: Signal<Out, Bits<64>>,
}

impl Logic for CscAddress {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::csc`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.last_block.connect();
        self.in_cube.connect();
        self.data_entry.connect();
        self.weight_entry.connect();
        self.kernel_valid.connect();
        self.mask.connect();
        self.pad_word.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire [17:0] sx = {15'h0, conv_x_stride_ext} + 18'h1;\n\
             wire [17:0] sy = {15'h0, conv_y_stride_ext} + 18'h1;\n\
             wire [17:0] dx = {13'h0, x_dilation_ext} + 18'h1;\n\
             wire [17:0] dy = {13'h0, y_dilation_ext} + 18'h1;\n\
             wire [17:0] xs = {5'h0, ox} * sx + {13'h0, s} * dx;\n\
             wire [17:0] ys = {5'h0, oy} * sy + {13'h0, r} * dy;\n\
             wire [17:0] pl = {13'h0, pad_left};\n\
             wire [17:0] pt = {13'h0, pad_top};\n\
             wire [17:0] x = xs - pl;\n\
             wire [17:0] y = ys - pt;\n\
             wire [13:0] w = {1'b0, datain_width_ext} + 14'h1;\n\
             wire [13:0] h = {1'b0, datain_height_ext} + 14'h1;\n\
             wire [13:0] row = {4'h0, cblock} * h + y[13:0];\n\
             wire [63:0] part = {64{1'b1}} >> {~datain_channel_ext[2:0], 3'b000};\n\
             wire unused_high = ^{x[17:14], y[17:14], stripe[13:11], pad_value[15:8]};\n\
             always @(*) begin\n    \
                 last_block = cblock == datain_channel_ext[12:3];\n    \
                 in_cube = xs >= pl && x <= {5'h0, datain_width_ext} && ys >= pt && y <= {5'h0, datain_height_ext};\n    \
                 data_entry = row * w + x[13:0];\n    \
                 weight_entry = {data_bank, 9'h0} + 14'h200 + {stripe[10:0], load};\n    \
                 kernel_valid = {group, load} <= weight_kernel;\n    \
                 mask = cblock == datain_channel_ext[12:3] ? part : {64{1'b1}};\n    \
                 pad_word = {8{pad_value[7:0]}};\n\
             end"
            .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CscAddress::default, "nvdla_csc_address");
}
