//! CSC, the convolution sequence controller (seeds/001 "Convolution sequence controller"),
//! direct convolution, int8, as nv_small runs it. Model: `npu_model::nvdla::csc` (cycle by
//! cycle); ports, timing and decisions: docs/nvdla.md "CSC RTL".
//!
//! Order, per kernel group of 8 kernels: for each block of up to [`STRIPE_MAX`] output pixels
//! (x fastest), for each channel block, for each tap (r, s) in row order, one stripe: the 8
//! weight loads (kernels 0..7 of the group, zeros past the last kernel), then one atomic op
//! per pixel of the block (the 8 channels of the input pixel the tap reads, the padding value
//! outside the cube, zeros in lanes past the last channel), with CACC's tags.
//!
//! - `start` (the layer's fields on the input ports, held while it runs) begins a layer; CSC
//!   then waits for kernel group 0's weights: `wants_weights` until CDMA raises
//!   `weights_ready` (taken in the same cycle); after each kernel group's last stripe it waits
//!   for the next group's. `group` is the group it works on or waits for.
//! - A stripe's first weight load waits while `hold` (CACC's `busy_full`) is high.
//! - Each cycle it loads a weight or issues an op; the CBUF read ([`super::Cbuf`]'s registered
//!   read ports) happens on the edge that registers the decision, so the data reaches the
//!   outputs (towards CMAC, `dat_*` and `wt_*`, zero when not valid) one cycle after the
//!   decision, as the model's registered outputs.
#[path = "csc_address.rs"]
pub mod csc_address;
pub use csc_address::CscAddress;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Output pixels a stripe covers at most (CACC's assembly entries).
pub const STRIPE_MAX: usize = 32;

#[derive(LogicBlock)]
pub struct Csc {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
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
    /// CBUF's read ports.
    pub dat_rd_valid: Signal<Out, Bit>,
    pub dat_rd_entry: Signal<Out, Bits<14>>,
    pub dat_rd_data: Signal<In, Bits<64>>,
    pub wt_rd_valid: Signal<Out, Bit>,
    pub wt_rd_entry: Signal<Out, Bits<14>>,
    pub wt_rd_data: Signal<In, Bits<64>>,
    /// Towards CMAC.
    pub wt_valid: Signal<Out, Bit>,
    pub wt_kernel: Signal<Out, Bits<3>>,
    pub wt_data: Signal<Out, Bits<64>>,
    pub dat_valid: Signal<Out, Bit>,
    pub dat_data: Signal<Out, Bits<64>>,
    pub dat_stripe_first: Signal<Out, Bit>,
    pub dat_acc_first: Signal<Out, Bit>,
    pub dat_acc_last: Signal<Out, Bit>,
    pub dat_layer_last: Signal<Out, Bit>,
    /// Towards CDMA.
    pub running: Signal<Out, Bit>,
    pub wants_weights: Signal<Out, Bit>,
    pub group: Signal<Out, Bits<10>>,
    address: CscAddress,
    /// The sequence: running, waiting for weights, kernel group, the block's first pixel,
    /// the current pixel and its index in the block, channel block, tap, weight stripe,
    /// weight loads done in this stripe (8: issuing ops).
    run: Reg<Bit>,
    waits: Reg<Bit>,
    grp: Reg<Bits<10>>,
    block_ox: Reg<Bits<13>>,
    block_oy: Reg<Bits<13>>,
    ox: Reg<Bits<13>>,
    oy: Reg<Bits<13>>,
    pixel: Reg<Bits<5>>,
    cblock: Reg<Bits<10>>,
    r: Reg<Bits<5>>,
    s: Reg<Bits<5>>,
    stripe: Reg<Bits<14>>,
    load: Reg<Bits<4>>,
    /// The decision registered towards CMAC (the data comes from CBUF's read registers).
    wt_valid_q: Reg<Bit>,
    wt_kernel_q: Reg<Bits<3>>,
    kernel_zero_q: Reg<Bit>,
    dat_valid_q: Reg<Bit>,
    pad_q: Reg<Bit>,
    stripe_first_q: Reg<Bit>,
    acc_first_q: Reg<Bit>,
    acc_last_q: Reg<Bit>,
    layer_last_q: Reg<Bit>,
    mask_q: Reg<Bits<64>>,
    pad_word_q: Reg<Bits<64>>,
    waiting: Signal<Local, Bit>,
    last_tap: Signal<Local, Bit>,
    last_block: Signal<Local, Bit>,
    last_group: Signal<Local, Bit>,
    layer_last_pixel: Signal<Local, Bit>,
    last_pixel: Signal<Local, Bit>,
    next_ox: Signal<Local, Bits<13>>,
    next_oy: Signal<Local, Bits<13>>,
    zero3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    eight4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    one5: Constant<Bits<5>>,
    last5: Constant<Bits<5>>,
    zero10: Constant<Bits<10>>,
    one10: Constant<Bits<10>>,
    zero13: Constant<Bits<13>>,
    one13: Constant<Bits<13>>,
    zero14: Constant<Bits<14>>,
    one14: Constant<Bits<14>>,
    zero64: Constant<Bits<64>>,
}

impl Default for Csc {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            weights_ready: Default::default(),
            hold: Default::default(),
            datain_width_ext: Default::default(),
            datain_height_ext: Default::default(),
            datain_channel_ext: Default::default(),
            weight_width_ext: Default::default(),
            weight_height_ext: Default::default(),
            weight_kernel: Default::default(),
            conv_x_stride_ext: Default::default(),
            conv_y_stride_ext: Default::default(),
            x_dilation_ext: Default::default(),
            y_dilation_ext: Default::default(),
            pad_left: Default::default(),
            pad_top: Default::default(),
            dataout_width: Default::default(),
            dataout_height: Default::default(),
            pad_value: Default::default(),
            data_bank: Default::default(),
            dat_rd_valid: Default::default(),
            dat_rd_entry: Default::default(),
            dat_rd_data: Default::default(),
            wt_rd_valid: Default::default(),
            wt_rd_entry: Default::default(),
            wt_rd_data: Default::default(),
            wt_valid: Default::default(),
            wt_kernel: Default::default(),
            wt_data: Default::default(),
            dat_valid: Default::default(),
            dat_data: Default::default(),
            dat_stripe_first: Default::default(),
            dat_acc_first: Default::default(),
            dat_acc_last: Default::default(),
            dat_layer_last: Default::default(),
            running: Default::default(),
            wants_weights: Default::default(),
            group: Default::default(),
            address: Default::default(),
            run: Default::default(),
            waits: Default::default(),
            grp: Default::default(),
            block_ox: Default::default(),
            block_oy: Default::default(),
            ox: Default::default(),
            oy: Default::default(),
            pixel: Default::default(),
            cblock: Default::default(),
            r: Default::default(),
            s: Default::default(),
            stripe: Default::default(),
            load: Default::default(),
            wt_valid_q: Default::default(),
            wt_kernel_q: Default::default(),
            kernel_zero_q: Default::default(),
            dat_valid_q: Default::default(),
            pad_q: Default::default(),
            stripe_first_q: Default::default(),
            acc_first_q: Default::default(),
            acc_last_q: Default::default(),
            layer_last_q: Default::default(),
            mask_q: Default::default(),
            pad_word_q: Default::default(),
            waiting: Default::default(),
            last_tap: Default::default(),
            last_block: Default::default(),
            last_group: Default::default(),
            layer_last_pixel: Default::default(),
            last_pixel: Default::default(),
            next_ox: Default::default(),
            next_oy: Default::default(),
            zero3: Constant::new(0.into()),
            zero4: Constant::new(0.into()),
            one4: Constant::new(1.into()),
            eight4: Constant::new(8.into()),
            zero5: Constant::new(0.into()),
            one5: Constant::new(1.into()),
            last5: Constant::new(((STRIPE_MAX - 1) as u64).into()),
            zero10: Constant::new(0.into()),
            one10: Constant::new(1.into()),
            zero13: Constant::new(0.into()),
            one13: Constant::new(1.into()),
            zero14: Constant::new(0.into()),
            one14: Constant::new(1.into()),
            zero64: Constant::new(0.into()),
        }
    }
}

impl Logic for Csc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, run, waits, grp, block_ox, block_oy, ox, oy, pixel, cblock, r, s, stripe, load, wt_valid_q, wt_kernel_q, kernel_zero_q, dat_valid_q,
            pad_q, stripe_first_q, acc_first_q, acc_last_q, layer_last_q, mask_q, pad_word_q
        );
        self.run.reset.next = self.reset.val();
        self.waits.reset.next = self.reset.val();
        self.grp.reset.next = self.reset.val();
        self.block_ox.reset.next = self.reset.val();
        self.block_oy.reset.next = self.reset.val();
        self.ox.reset.next = self.reset.val();
        self.oy.reset.next = self.reset.val();
        self.pixel.reset.next = self.reset.val();
        self.cblock.reset.next = self.reset.val();
        self.r.reset.next = self.reset.val();
        self.s.reset.next = self.reset.val();
        self.stripe.reset.next = self.reset.val();
        self.load.reset.next = self.reset.val();
        self.wt_valid_q.reset.next = self.reset.val();
        self.wt_kernel_q.reset.next = self.reset.val();
        self.kernel_zero_q.reset.next = self.reset.val();
        self.dat_valid_q.reset.next = self.reset.val();
        self.pad_q.reset.next = self.reset.val();
        self.stripe_first_q.reset.next = self.reset.val();
        self.acc_first_q.reset.next = self.reset.val();
        self.acc_last_q.reset.next = self.reset.val();
        self.layer_last_q.reset.next = self.reset.val();
        self.mask_q.reset.next = self.reset.val();
        self.pad_word_q.reset.next = self.reset.val();

        // The position's addresses.
        self.address.ox.next = self.ox.q.val();
        self.address.oy.next = self.oy.q.val();
        self.address.r.next = self.r.q.val();
        self.address.s.next = self.s.q.val();
        self.address.cblock.next = self.cblock.q.val();
        self.address.group.next = self.grp.q.val();
        self.address.load.next = self.load.q.val().get_bits::<3>(0);
        self.address.stripe.next = self.stripe.q.val();
        self.address.datain_width_ext.next = self.datain_width_ext.val();
        self.address.datain_height_ext.next = self.datain_height_ext.val();
        self.address.datain_channel_ext.next = self.datain_channel_ext.val();
        self.address.weight_kernel.next = self.weight_kernel.val();
        self.address.conv_x_stride_ext.next = self.conv_x_stride_ext.val();
        self.address.conv_y_stride_ext.next = self.conv_y_stride_ext.val();
        self.address.x_dilation_ext.next = self.x_dilation_ext.val();
        self.address.y_dilation_ext.next = self.y_dilation_ext.val();
        self.address.pad_left.next = self.pad_left.val();
        self.address.pad_top.next = self.pad_top.val();
        self.address.pad_value.next = self.pad_value.val();
        self.address.data_bank.next = self.data_bank.val();
        self.dat_rd_entry.next = self.address.data_entry.val();
        self.wt_rd_entry.next = self.address.weight_entry.val();

        // Where the position is.
        self.last_tap.next = (self.r.q.val() == self.weight_height_ext.val()) & (self.s.q.val() == self.weight_width_ext.val());
        self.last_block.next = self.address.last_block.val();
        self.last_group.next = self.grp.q.val() == self.weight_kernel.val().get_bits::<10>(3);
        self.layer_last_pixel.next = (self.ox.q.val() == self.dataout_width.val()) & (self.oy.q.val() == self.dataout_height.val());
        self.last_pixel.next = (self.pixel.q.val() == self.last5.val()) | self.layer_last_pixel.val();
        self.next_ox.next = self.ox.q.val() + self.one13.val();
        self.next_oy.next = self.oy.q.val();
        if self.ox.q.val() == self.dataout_width.val() {
            self.next_ox.next = self.zero13.val();
            self.next_oy.next = self.oy.q.val() + self.one13.val();
        }

        self.waiting.next = self.waits.q.val() & !self.weights_ready.val();

        // The decision of this cycle, registered; nothing unless set below.
        self.dat_rd_valid.next = false;
        self.wt_rd_valid.next = false;
        self.wt_valid_q.d.next = false;
        self.wt_kernel_q.d.next = self.zero3.val();
        self.kernel_zero_q.d.next = false;
        self.dat_valid_q.d.next = false;
        self.pad_q.d.next = false;
        self.stripe_first_q.d.next = false;
        self.acc_first_q.d.next = false;
        self.acc_last_q.d.next = false;
        self.layer_last_q.d.next = false;
        if self.weights_ready.val() {
            self.waits.d.next = false;
        }
        if self.start.val() {
            self.run.d.next = true;
            self.waits.d.next = true;
            self.grp.d.next = self.zero10.val();
            self.block_ox.d.next = self.zero13.val();
            self.block_oy.d.next = self.zero13.val();
            self.ox.d.next = self.zero13.val();
            self.oy.d.next = self.zero13.val();
            self.pixel.d.next = self.zero5.val();
            self.cblock.d.next = self.zero10.val();
            self.r.d.next = self.zero5.val();
            self.s.d.next = self.zero5.val();
            self.stripe.d.next = self.zero14.val();
            self.load.d.next = self.zero4.val();
        } else if self.run.q.val() & !self.waiting.val() {
            if self.load.q.val() != self.eight4.val() {
                // A weight load, unless CACC holds the stripe's start.
                if !((self.load.q.val() == self.zero4.val()) & self.hold.val()) {
                    self.wt_valid_q.d.next = true;
                    self.wt_kernel_q.d.next = self.load.q.val().get_bits::<3>(0);
                    self.kernel_zero_q.d.next = !self.address.kernel_valid.val();
                    self.mask_q.d.next = self.address.mask.val();
                    self.wt_rd_valid.next = self.address.kernel_valid.val();
                    self.load.d.next = self.load.q.val() + self.one4.val();
                }
            } else {
                // An atomic op, then the next position: pixel, tap, channel block, pixel
                // block, kernel group.
                self.dat_valid_q.d.next = true;
                self.pad_q.d.next = !self.address.in_cube.val();
                self.mask_q.d.next = self.address.mask.val();
                self.pad_word_q.d.next = self.address.pad_word.val();
                self.dat_rd_valid.next = self.address.in_cube.val();
                self.stripe_first_q.d.next = self.pixel.q.val() == self.zero5.val();
                self.acc_first_q.d.next = (self.r.q.val() == self.zero5.val()) & (self.s.q.val() == self.zero5.val()) & (self.cblock.q.val() == self.zero10.val());
                self.acc_last_q.d.next = self.last_tap.val() & self.last_block.val();
                self.layer_last_q.d.next = self.layer_last_pixel.val() & self.last_tap.val() & self.last_block.val() & self.last_group.val();
                if !self.last_pixel.val() {
                    self.pixel.d.next = self.pixel.q.val() + self.one5.val();
                    self.ox.d.next = self.next_ox.val();
                    self.oy.d.next = self.next_oy.val();
                } else {
                    self.load.d.next = self.zero4.val();
                    self.pixel.d.next = self.zero5.val();
                    self.ox.d.next = self.block_ox.q.val();
                    self.oy.d.next = self.block_oy.q.val();
                    if !self.last_tap.val() {
                        if self.s.q.val() == self.weight_width_ext.val() {
                            self.s.d.next = self.zero5.val();
                            self.r.d.next = self.r.q.val() + self.one5.val();
                        } else {
                            self.s.d.next = self.s.q.val() + self.one5.val();
                        }
                        self.stripe.d.next = self.stripe.q.val() + self.one14.val();
                    } else if !self.last_block.val() {
                        self.r.d.next = self.zero5.val();
                        self.s.d.next = self.zero5.val();
                        self.cblock.d.next = self.cblock.q.val() + self.one10.val();
                        self.stripe.d.next = self.stripe.q.val() + self.one14.val();
                    } else if !self.layer_last_pixel.val() {
                        self.r.d.next = self.zero5.val();
                        self.s.d.next = self.zero5.val();
                        self.cblock.d.next = self.zero10.val();
                        self.stripe.d.next = self.zero14.val();
                        self.block_ox.d.next = self.next_ox.val();
                        self.block_oy.d.next = self.next_oy.val();
                        self.ox.d.next = self.next_ox.val();
                        self.oy.d.next = self.next_oy.val();
                    } else if !self.last_group.val() {
                        self.r.d.next = self.zero5.val();
                        self.s.d.next = self.zero5.val();
                        self.cblock.d.next = self.zero10.val();
                        self.stripe.d.next = self.zero14.val();
                        self.block_ox.d.next = self.zero13.val();
                        self.block_oy.d.next = self.zero13.val();
                        self.ox.d.next = self.zero13.val();
                        self.oy.d.next = self.zero13.val();
                        self.grp.d.next = self.grp.q.val() + self.one10.val();
                        self.waits.d.next = true;
                    } else {
                        self.run.d.next = false;
                    }
                }
            }
        }

        // Towards CMAC: the registered decision with CBUF's word (zeros when not valid).
        self.wt_valid.next = self.wt_valid_q.q.val();
        self.wt_kernel.next = self.wt_kernel_q.q.val();
        self.wt_data.next = self.zero64.val();
        if self.wt_valid_q.q.val() & !self.kernel_zero_q.q.val() {
            self.wt_data.next = self.wt_rd_data.val() & self.mask_q.q.val();
        }
        self.dat_valid.next = self.dat_valid_q.q.val();
        self.dat_data.next = self.zero64.val();
        if self.dat_valid_q.q.val() {
            if self.pad_q.q.val() {
                self.dat_data.next = self.pad_word_q.q.val() & self.mask_q.q.val();
            } else {
                self.dat_data.next = self.dat_rd_data.val() & self.mask_q.q.val();
            }
        }
        self.dat_stripe_first.next = self.stripe_first_q.q.val();
        self.dat_acc_first.next = self.acc_first_q.q.val();
        self.dat_acc_last.next = self.acc_last_q.q.val();
        self.dat_layer_last.next = self.layer_last_q.q.val();
        self.running.next = self.run.q.val();
        self.wants_weights.next = self.run.q.val() & self.waits.q.val();
        self.group.next = self.grp.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Csc::default, "nvdla_csc");
}
