//! CSC with its CBUF (seeds/001, "Convolution sequence controller", "Convolution buffer"), the
//! model of the exported top `csc_cbuf` (RTL `npu_hdl::nvdla::csc_cbuf::CscCbuf`): the
//! [`Csc`] sequence reading the [`Cbuf`] entries CDMA writes through the write port, the layer
//! given as CSC's register fields (docs/nvdla.md "CSC RTL").
//!
//! Each cycle, in this order: `reset`; else `start` begins a layer with the fields of this
//! cycle (which must hold while it runs), the cycle does nothing else; else `weights_ready`
//! (the current kernel group's weights are in CBUF) ends a wait for them, then CSC takes its
//! step, reading CBUF as it is before this cycle's write (the RTL's registered reads see the
//! old word when a write to the same entry comes on the same edge). Then the write.
use super::cbuf::Cbuf;
use super::cmac;
use super::csc::{Csc, CscLayer};

/// Every input port (the rust-hdl names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub reset: bool,
    /// CDMA's write: `wr_entry` = bank * 512 + entry.
    pub wr_valid: bool,
    pub wr_entry: u16,
    pub wr_data: u64,
    pub start: bool,
    pub weights_ready: bool,
    /// CACC's `busy_full`: no stripe starts.
    pub hold: bool,
    /// CSC's register fields (minus one where the RDL's name says EXT, and WEIGHT_KERNEL,
    /// DATAOUT_WIDTH/HEIGHT: the count minus one too).
    pub datain_width_ext: u16,
    pub datain_height_ext: u16,
    pub datain_channel_ext: u16,
    pub weight_width_ext: u8,
    pub weight_height_ext: u8,
    pub weight_kernel: u16,
    pub conv_x_stride_ext: u8,
    pub conv_y_stride_ext: u8,
    pub x_dilation_ext: u8,
    pub y_dilation_ext: u8,
    pub pad_left: u8,
    pub pad_top: u8,
    pub dataout_width: u16,
    pub dataout_height: u16,
    pub pad_value: u16,
    pub data_bank: u8,
}

impl In {
    /// The layer the fields describe.
    pub fn layer(&self) -> CscLayer {
        let n = |v: u16| usize::from(v) + 1;
        let m = |v: u8| usize::from(v) + 1;
        CscLayer {
            width: n(self.datain_width_ext),
            height: n(self.datain_height_ext),
            channels: n(self.datain_channel_ext),
            kernel_width: m(self.weight_width_ext),
            kernel_height: m(self.weight_height_ext),
            kernels: n(self.weight_kernel),
            stride: (m(self.conv_x_stride_ext), m(self.conv_y_stride_ext)),
            dilation: (m(self.x_dilation_ext), m(self.y_dilation_ext)),
            pad_left: usize::from(self.pad_left),
            pad_top: usize::from(self.pad_top),
            out_width: n(self.dataout_width),
            out_height: n(self.dataout_height),
            pad_value: self.pad_value as u8 as i8,
            data_banks: m(self.data_bank),
        }
    }

    /// The fields of `layer` (sizes at least 1, within the registers' widths).
    pub fn with_layer(self, l: &CscLayer) -> Self {
        let n = |v: usize| (v - 1) as u16;
        let m = |v: usize| (v - 1) as u8;
        In {
            datain_width_ext: n(l.width),
            datain_height_ext: n(l.height),
            datain_channel_ext: n(l.channels),
            weight_width_ext: m(l.kernel_width),
            weight_height_ext: m(l.kernel_height),
            weight_kernel: n(l.kernels),
            conv_x_stride_ext: m(l.stride.0),
            conv_y_stride_ext: m(l.stride.1),
            x_dilation_ext: m(l.dilation.0),
            y_dilation_ext: m(l.dilation.1),
            pad_left: l.pad_left as u8,
            pad_top: l.pad_top as u8,
            dataout_width: n(l.out_width),
            dataout_height: n(l.out_height),
            pad_value: u16::from(l.pad_value as u8),
            data_bank: m(l.data_banks),
            ..self
        }
    }
}

/// Every output port: CSC's registered outputs towards CMAC, and its state towards CDMA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub wt_valid: bool,
    pub wt_kernel: u8,
    pub wt_data: u64,
    pub dat_valid: bool,
    pub dat_data: u64,
    pub dat_stripe_first: bool,
    pub dat_acc_first: bool,
    pub dat_acc_last: bool,
    pub dat_layer_last: bool,
    pub running: bool,
    /// Running and waiting for kernel group `group`'s weights: CDMA may overwrite the weight
    /// banks, then raises `weights_ready`.
    pub wants_weights: bool,
    pub group: u16,
}

impl Out {
    /// CMAC's inputs.
    pub fn cmac(&self) -> cmac::In {
        cmac::In {
            reset: false,
            wt_valid: self.wt_valid,
            wt_kernel: self.wt_kernel,
            wt_data: self.wt_data,
            dat_valid: self.dat_valid,
            dat_data: self.dat_data,
            dat_stripe_first: self.dat_stripe_first,
            dat_acc_first: self.dat_acc_first,
            dat_acc_last: self.dat_acc_last,
            dat_layer_last: self.dat_layer_last,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct CscCbuf {
    cbuf: Cbuf,
    csc: Csc,
    events: Vec<&'static str>,
}

impl CscCbuf {
    /// The outputs of this cycle (before the edge): CSC's registered outputs and its state.
    pub fn outputs(&self) -> Out {
        let o = self.csc.registered();
        Out {
            wt_valid: o.wt_valid,
            wt_kernel: o.wt_kernel,
            wt_data: o.wt_data,
            dat_valid: o.dat_valid,
            dat_data: o.dat_data,
            dat_stripe_first: o.dat_stripe_first,
            dat_acc_first: o.dat_acc_first,
            dat_acc_last: o.dat_acc_last,
            dat_layer_last: o.dat_layer_last,
            running: self.csc.running(),
            wants_weights: self.csc.wants_weights(),
            group: self.csc.group() as u16,
        }
    }
}

impl crate::Block for CscCbuf {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, i: &In) -> Out {
        let out = self.outputs();
        self.events.clear();
        if i.reset {
            // CBUF's entries have no reset (the RTL's memory neither).
            self.csc = Csc::default();
            return out;
        }
        if i.start {
            self.csc.start(i.layer());
            self.events.push("csc start");
        } else {
            if i.weights_ready {
                self.csc.weights_ready();
            }
            self.csc.step(&self.cbuf, i.hold, &mut self.events);
        }
        if i.wr_valid {
            self.cbuf.write(usize::from(i.wr_entry), i.wr_data);
            self.events.push("cbuf write");
        }
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Block;

    /// A one-pixel layer (one channel, one 1 x 1 kernel), cycle by cycle: the wait for the
    /// weights, 8 loads (kernels past the first 0), one op with every tag, the data masked to
    /// the layer's one channel; the outputs come the cycle after the decision.
    #[test]
    fn a_one_pixel_layer_cycle_by_cycle() {
        let layer = CscLayer { width: 1, height: 1, channels: 1, kernel_width: 1, kernel_height: 1, kernels: 1, stride: (1, 1), dilation: (1, 1), out_width: 1, out_height: 1, pad_value: -1, data_banks: 1, ..CscLayer::default() };
        let fields = In::default().with_layer(&layer);
        assert_eq!(fields.layer(), layer);
        let mut b = CscCbuf::default();
        b.step(&CscCbuf::reset_input().unwrap());
        b.step(&In { wr_valid: true, wr_entry: 0, wr_data: 0x1234_5678_9abc_de05, ..fields.clone() });
        b.step(&In { start: true, ..fields.clone() });
        let out = b.step(&fields);
        assert!(out.running && out.wants_weights && out.group == 0 && !out.wt_valid);
        assert_eq!(b.events(), ["csc wait weights"]);
        b.step(&In { wr_valid: true, wr_entry: 512, wr_data: 0xff03, ..fields.clone() });
        let out = b.step(&In { weights_ready: true, ..fields.clone() });
        assert!(out.wants_weights && !out.wt_valid, "the load decided with weights_ready shows a cycle later");
        let out = b.step(&fields);
        assert!(out.wt_valid && out.wt_kernel == 0 && out.wt_data == 3 && !out.wants_weights);
        for k in 1..8 {
            let out = b.step(&fields);
            assert!(out.wt_valid && out.wt_kernel == k && out.wt_data == 0, "kernel {k} is past the last");
        }
        let out = b.step(&fields);
        assert!(out.dat_valid && out.dat_data == 5 && out.dat_stripe_first && out.dat_acc_first && out.dat_acc_last && out.dat_layer_last);
        assert!(!out.running && !out.wants_weights);
        assert_eq!(b.step(&fields), Out::default());
    }
}
