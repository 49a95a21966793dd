//! CSC with its CBUF (seeds/001 "Convolution core"), the exported top `csc_cbuf`: the
//! convolution buffer's write port for CDMA (`wr_valid`, `wr_entry` = bank * 512 + entry,
//! `wr_data`), CSC's layer fields (CSC's registers, to be wired from the CSB with the engine),
//! its handshake with CDMA (`start`, `wants_weights`, `group`, `weights_ready`), CACC's
//! `busy_full` as `hold`, and CSC's outputs towards CMAC. CSC reads CBUF through its two
//! registered read ports. Model: `npu_model::nvdla::csc_cbuf`; docs/nvdla.md "CSC RTL".
use super::{Cbuf, Csc};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CscCbuf {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wr_valid: Signal<In, Bit>,
    pub wr_entry: Signal<In, Bits<14>>,
    pub wr_data: Signal<In, Bits<64>>,
    pub start: Signal<In, Bit>,
    pub weights_ready: Signal<In, Bit>,
    pub hold: Signal<In, Bit>,
    pub datain_width_ext: Signal<In, Bits<13>>,
    pub datain_height_ext: Signal<In, Bits<13>>,
    pub datain_channel_ext: Signal<In, Bits<13>>,
    pub weight_width_ext: Signal<In, Bits<5>>,
    pub weight_height_ext: Signal<In, Bits<5>>,
    pub weight_kernel: Signal<In, Bits<13>>,
    pub conv_x_stride_ext: Signal<In, Bits<3>>,
    pub conv_y_stride_ext: Signal<In, Bits<3>>,
    pub x_dilation_ext: Signal<In, Bits<5>>,
    pub y_dilation_ext: Signal<In, Bits<5>>,
    pub pad_left: Signal<In, Bits<5>>,
    pub pad_top: Signal<In, Bits<5>>,
    pub dataout_width: Signal<In, Bits<13>>,
    pub dataout_height: Signal<In, Bits<13>>,
    pub pad_value: Signal<In, Bits<16>>,
    pub data_bank: Signal<In, Bits<5>>,
    pub wt_valid: Signal<Out, Bit>,
    pub wt_kernel: Signal<Out, Bits<3>>,
    pub wt_data: Signal<Out, Bits<64>>,
    pub dat_valid: Signal<Out, Bit>,
    pub dat_data: Signal<Out, Bits<64>>,
    pub dat_stripe_first: Signal<Out, Bit>,
    pub dat_acc_first: Signal<Out, Bit>,
    pub dat_acc_last: Signal<Out, Bit>,
    pub dat_layer_last: Signal<Out, Bit>,
    pub running: Signal<Out, Bit>,
    pub wants_weights: Signal<Out, Bit>,
    pub group: Signal<Out, Bits<10>>,
    cbuf: Cbuf,
    csc: Csc,
}

impl Logic for CscCbuf {
    #[hdl_gen]
    fn update(&mut self) {
        self.cbuf.clock.next = self.clock.val();
        self.cbuf.reset.next = self.reset.val();
        self.csc.clock.next = self.clock.val();
        self.csc.reset.next = self.reset.val();
        self.cbuf.wr_valid.next = self.wr_valid.val();
        self.cbuf.wr_entry.next = self.wr_entry.val();
        self.cbuf.wr_data.next = self.wr_data.val();
        self.cbuf.dat_rd_valid.next = self.csc.dat_rd_valid.val();
        self.cbuf.dat_rd_entry.next = self.csc.dat_rd_entry.val();
        self.csc.dat_rd_data.next = self.cbuf.dat_rd_data.val();
        self.cbuf.wt_rd_valid.next = self.csc.wt_rd_valid.val();
        self.cbuf.wt_rd_entry.next = self.csc.wt_rd_entry.val();
        self.csc.wt_rd_data.next = self.cbuf.wt_rd_data.val();
        self.csc.start.next = self.start.val();
        self.csc.weights_ready.next = self.weights_ready.val();
        self.csc.hold.next = self.hold.val();
        self.csc.datain_width_ext.next = self.datain_width_ext.val();
        self.csc.datain_height_ext.next = self.datain_height_ext.val();
        self.csc.datain_channel_ext.next = self.datain_channel_ext.val();
        self.csc.weight_width_ext.next = self.weight_width_ext.val();
        self.csc.weight_height_ext.next = self.weight_height_ext.val();
        self.csc.weight_kernel.next = self.weight_kernel.val();
        self.csc.conv_x_stride_ext.next = self.conv_x_stride_ext.val();
        self.csc.conv_y_stride_ext.next = self.conv_y_stride_ext.val();
        self.csc.x_dilation_ext.next = self.x_dilation_ext.val();
        self.csc.y_dilation_ext.next = self.y_dilation_ext.val();
        self.csc.pad_left.next = self.pad_left.val();
        self.csc.pad_top.next = self.pad_top.val();
        self.csc.dataout_width.next = self.dataout_width.val();
        self.csc.dataout_height.next = self.dataout_height.val();
        self.csc.pad_value.next = self.pad_value.val();
        self.csc.data_bank.next = self.data_bank.val();
        self.wt_valid.next = self.csc.wt_valid.val();
        self.wt_kernel.next = self.csc.wt_kernel.val();
        self.wt_data.next = self.csc.wt_data.val();
        self.dat_valid.next = self.csc.dat_valid.val();
        self.dat_data.next = self.csc.dat_data.val();
        self.dat_stripe_first.next = self.csc.dat_stripe_first.val();
        self.dat_acc_first.next = self.csc.dat_acc_first.val();
        self.dat_acc_last.next = self.csc.dat_acc_last.val();
        self.dat_layer_last.next = self.csc.dat_layer_last.val();
        self.running.next = self.csc.running.val();
        self.wants_weights.next = self.csc.wants_weights.val();
        self.group.next = self.csc.group.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CscCbuf::default, "nvdla_csc_cbuf");
}
