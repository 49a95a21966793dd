//! CDMA's refusal of a layer CBUF cannot hold (docs/nvdla.md "CDMA", bad input): the data
//! and weight banks together more than CBUF's 32, the feature cube (width x height x channel
//! blocks entries) more than the data banks' 512 entries each, or one kernel group's weights
//! (channel blocks x kernel taps x 8 entries) more than the weight banks hold; checked in
//! that order, the first that fails is the code (1, 2, 3; 0 fits). Combinational, Verilog
//! for its exact widths (the products need multipliers rust-hdl does not have). Model:
//! `npu_model::nvdla::cdma::CdmaLayer::check`.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CdmaCheck {
    /// Counts minus 1, as the registers hold them.
    pub width: Signal<In, Bits<13>>,
    pub height: Signal<In, Bits<13>>,
    pub channel: Signal<In, Bits<13>>,
    pub kernel_width: Signal<In, Bits<5>>,
    pub kernel_height: Signal<In, Bits<5>>,
    pub data_bank: Signal<In, Bits<5>>,
    pub weight_bank: Signal<In, Bits<5>>,
    pub code: Signal<Out, Bits<2>>,
}

impl Logic for CdmaCheck {
    /// Not simulated by rust-hdl: the Verilog's behaviour is checked in lock step against the
    /// model.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.code.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire unused_channel_low = ^channel[2:0];\n\
             wire [6:0] banks = {2'b0, data_bank} + {2'b0, weight_bank} + 7'd2;\n\
             wire [10:0] blocks = {1'b0, channel[12:3]} + 11'd1;\n\
             wire [27:0] plane = {14'h0, {1'b0, width} + 14'd1} * {14'h0, {1'b0, height} + 14'd1};\n\
             wire [38:0] entries = {11'h0, plane} * {28'h0, blocks};\n\
             wire [14:0] room = ({10'h0, data_bank} + 15'd1) << 9;\n\
             wire [11:0] taps = {6'h0, {1'b0, kernel_width} + 6'd1} * {6'h0, {1'b0, kernel_height} + 6'd1};\n\
             wire [25:0] weight_entries = ({15'h0, blocks} * {14'h0, taps}) << 3;\n\
             wire [14:0] weight_room = ({10'h0, weight_bank} + 15'd1) << 9;\n\
             always @(*) code = banks > 7'd32 ? 2'd1 : entries > {24'h0, room} ? 2'd2 : weight_entries > {11'h0, weight_room} ? 2'd3 : 2'd0;"
                .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdmaCheck::default, "nvdla_cdma_check");
}
