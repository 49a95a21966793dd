//! The convolution unit's layer registers and CHECK (RTL `hdl/src/ethos/conv_layer.rs`): the
//! latched registers read as the datapath's layer registers, the IFM extent, the stream
//! addresses and what CHECK refuses (the list is the RTL's `conv_unit.rs` module comment).
use super::*;

/// The strides of KERNEL_STRIDE (y, x), each 1 + {bit, bit}.
pub fn strides(s: u16) -> (u16, u16) {
    ((((s >> 9) & 7) << 1 | (s >> 1) & 1) + 1, (((s >> 6) & 7) << 1 | s & 1) + 1)
}

impl ConvUnit {
    pub(super) fn p(&self, id: usize) -> u16 {
        self.regs.param(id)
    }

    /// The IFM rows and columns the OFM reads (the executor's `ifm_extent`): `(OFM - 1)·stride
    /// + KERNEL_M1 + 1 - pad before - pad after` (KERNEL_M1 is the dilated side minus 1; the
    /// RTL computes it in 20 bits with the stride's low 2 bits, equal whenever CHECK lets the
    /// layer run).
    pub(super) fn extent(&self) -> (i64, i64) {
        let p = |id| i64::from(self.p(id));
        let (sy, sx) = strides(self.p(scalar::KERNEL_STRIDE));
        let h = p(scalar::OFM_HEIGHT_M1) * i64::from(sy) + p(scalar::KERNEL_HEIGHT_M1) + 1 - p(scalar::IFM_PAD_TOP) - p(scalar::IFM_PAD_BOTTOM);
        let w = p(scalar::OFM_WIDTH_M1) * i64::from(sx) + p(scalar::KERNEL_WIDTH_M1) + 1 - p(scalar::IFM_PAD_LEFT) - p(scalar::IFM_PAD_RIGHT);
        (h, w)
    }

    pub(super) fn stream_start(&self, scale: bool) -> u64 {
        let base = if scale { scalar::SCALE_BASE } else { scalar::WEIGHT_BASE };
        (self.regs.stream_basep(scale) + self.regs.wide(base)) & MASK40
    }

    /// Whether the latched registers ask for what the unit does not do (CHECK; the list is the
    /// RTL's module comment).
    pub fn unsupported(&self) -> bool {
        let p = |id| self.p(id);
        let int8 = |precision: u16, size_shift: u16| precision & 1 == 0 || (precision >> size_shift) & 3 != 0 || (precision >> 6) & 3 > 1;
        let s = p(scalar::KERNEL_STRIDE);
        let (sy, sx) = strides(s);
        let not_int8 = |v: u16| !(-128..=127).contains(&(v as i16));
        let (h, w) = self.extent();
        let length = |id| self.regs.wide(id);
        int8(p(scalar::IFM_PRECISION), 2)
            || int8(p(scalar::OFM_PRECISION), 1)
            || p(scalar::OFM_PRECISION) >> 14 != 0
            || ((p(scalar::IFM_PRECISION) >> 6) & 3 == 0 && self.regs.wide(scalar::IFM_STRIDE_C) != 1)
            || p(scalar::ACTIVATION) & 0x1f != 0
            || p(scalar::ACC_FORMAT) > 1
            // IFM_UPSCALE: 2 (zero insertion, Vela's TRANSPOSE_CONV) on a CONV, 1 (nearest,
            // RESIZE_NEAREST_NEIGHBOR with align_corners) on a DEPTHWISE.
            || match p(scalar::IFM_UPSCALE) {
                0 => false,
                1 => !self.depthwise,
                2 => self.depthwise,
                _ => true,
            }
            || [scalar::IFM_REGION, scalar::OFM_REGION, scalar::WEIGHT_REGION, scalar::SCALE_REGION].iter().any(|&id| p(id) > 7)
            || [scalar::IFM_ZERO_POINT, scalar::OFM_ZERO_POINT, scalar::ACTIVATION_MIN, scalar::ACTIVATION_MAX].iter().any(|&id| not_int8(p(id)))
            // A dilation whose dilated side minus 1 is odd: no whole kernel fits it.
            || (s & 0x10 != 0 && p(scalar::KERNEL_HEIGHT_M1) & 1 != 0)
            || (s & 0x08 != 0 && p(scalar::KERNEL_WIDTH_M1) & 1 != 0)
            // A side above 15 (the datapath's 4-bit kernel ports).
            || p(scalar::KERNEL_HEIGHT_M1) > if s & 0x10 != 0 { 28 } else { 14 }
            || p(scalar::KERNEL_WIDTH_M1) > if s & 0x08 != 0 { 28 } else { 14 }
            || sy > 3
            || sx > 3
            || p(scalar::IFM_PAD_TOP) > 7
            || p(scalar::IFM_PAD_LEFT) > 7
            || p(scalar::OFM_BLK_DEPTH_M1) & 7 != 7
            || p(scalar::OFM_BLK_DEPTH_M1) > 127
            || [scalar::OFM_HEIGHT_M1, scalar::OFM_WIDTH_M1, scalar::OFM_DEPTH_M1, scalar::IFM_DEPTH_M1].iter().any(|&id| p(id) > 4094)
            || !(1..=4095).contains(&h)
            || !(1..=4095).contains(&w)
            || self.stream_start(false) & 15 != 0
            || self.stream_start(true) & 15 != 0
            || [scalar::WEIGHT_LENGTH, scalar::SCALE_LENGTH].iter().any(|&id| length(id) & 15 != 0 || length(id) == 0 || length(id) >> 32 != 0)
    }

    /// The datapath's layer registers from the latched copies (widths as the RTL's ports).
    pub(super) fn layer(&self, reset: bool, start: bool, hold: bool, hold_mac: bool) -> dp::In {
        let p = |id| self.p(id);
        let (sy, sx) = strides(p(scalar::KERNEL_STRIDE));
        let (dilation_y, dilation_x) = (p(scalar::KERNEL_STRIDE) >> 4 & 1, p(scalar::KERNEL_STRIDE) >> 3 & 1);
        let (h, w) = self.extent();
        dp::In {
            reset,
            start,
            hold,
            hold_mac,
            ifm_height: (h & 0xFFF) as u16,
            ifm_width: (w & 0xFFF) as u16,
            ifm_depth: p(scalar::IFM_DEPTH_M1).wrapping_add(1) & 0xFFF,
            ofm_height: p(scalar::OFM_HEIGHT_M1).wrapping_add(1) & 0xFFF,
            ofm_width: p(scalar::OFM_WIDTH_M1).wrapping_add(1) & 0xFFF,
            ofm_depth: p(scalar::OFM_DEPTH_M1).wrapping_add(1) & 0xFFF,
            // KERNEL_*_M1 is the dilated side minus 1, `(k - 1)·dilation`.
            kernel_height: ((p(scalar::KERNEL_HEIGHT_M1) >> dilation_y).wrapping_add(1) & 15) as u8,
            kernel_width: ((p(scalar::KERNEL_WIDTH_M1) >> dilation_x).wrapping_add(1) & 15) as u8,
            dilation_y: dilation_y == 1,
            dilation_x: dilation_x == 1,
            stride_y: (sy & 3) as u8,
            stride_x: (sx & 3) as u8,
            pad_top: (p(scalar::IFM_PAD_TOP) & 7) as u8,
            pad_left: (p(scalar::IFM_PAD_LEFT) & 7) as u8,
            depthwise: self.depthwise,
            // Every DEPTHWISE packed where the datapath's mapping takes it (the RTL's comment).
            pack_depthwise: self.depthwise,
            part_kernel: p(scalar::KERNEL_STRIDE) & 4 != 0,
            block_groups_m1: (p(scalar::OFM_BLK_DEPTH_M1) >> 3 & 15) as u8,
            ifm_zero_point: p(scalar::IFM_ZERO_POINT) as i8,
            ofm_zero_point: p(scalar::OFM_ZERO_POINT) as i8,
            // Outside RUN the registers may be half latched (min above max), which the output
            // unit's model refuses; the datapath computes nothing then.
            act_min: if self.state == state::RUN { p(scalar::ACTIVATION_MIN) as i8 } else { i8::MIN },
            act_max: if self.state == state::RUN { p(scalar::ACTIVATION_MAX) as i8 } else { i8::MAX },
            ..dp::In::default()
        }
    }
}
