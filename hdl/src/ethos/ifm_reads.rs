//! The Ethos-U65 convolution datapath's four IFM read ports (`conv_datapath.rs`; digest §5):
//! for the MAC phase's tap, the IFM element each position of the 2x2 OFM block reads, the
//! 8-channel group, which positions fall in the padding, and how many of the group's channels
//! are inside the IFM. Computed from the layer's ports, as the model does in every state.
use super::conv_datapath::DIM_BITS;
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

/// The tap (`ky`, `kx`) is `k·dilation` rows/columns below/right of the origin.
/// `origin_*` are the block's first IFM row/column plus 8 (so that padding above/left stays
/// non-negative): inside the IFM is 0 <= iy - 8 < H (below 0 wraps to above any height).
/// Position p of the block (0 (0,0), 1 (0,1), 2 (1,0), 3 (1,1)) reads (`y{p}`, `x{p}`) when
/// `mac` and not `pad[p]`; `live`: the group's channels inside the IFM depth (0..=8).
#[derive(LogicBlock)]
pub struct IfmReads {
    pub mac: Signal<In, Bit>,
    pub origin_y: Signal<In, Bits<14>>,
    pub origin_x: Signal<In, Bits<14>>,
    /// The kernel position (0..=14; a sub-kernel's origin plus the element's).
    pub ky: Signal<In, Bits<4>>,
    pub kx: Signal<In, Bits<4>>,
    pub block_y: Signal<In, Bits<13>>,
    pub block_x: Signal<In, Bits<13>>,
    pub cg_base: Signal<In, Bits<9>>,
    pub u: Signal<In, Bits<2>>,
    pub og: Signal<In, Bits<9>>,
    pub ifm_height: Signal<In, Bits<DIM_BITS>>,
    pub ifm_width: Signal<In, Bits<DIM_BITS>>,
    pub ifm_depth: Signal<In, Bits<DIM_BITS>>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    /// Dilation 2 (else 1) in y and x: tap (ky, kx) reads `ky·dilation`, `kx·dilation` on.
    pub dilation_y: Signal<In, Bit>,
    pub dilation_x: Signal<In, Bit>,
    pub depthwise: Signal<In, Bit>,
    pub read0: Signal<Out, Bit>,
    pub read1: Signal<Out, Bit>,
    pub read2: Signal<Out, Bit>,
    pub read3: Signal<Out, Bit>,
    pub y0: Signal<Out, Bits<DIM_BITS>>,
    pub y1: Signal<Out, Bits<DIM_BITS>>,
    pub x0: Signal<Out, Bits<DIM_BITS>>,
    pub x1: Signal<Out, Bits<DIM_BITS>>,
    pub group: Signal<Out, Bits<9>>,
    pub pad: Signal<Out, Bits<4>>,
    pub live: Signal<Out, Bits<4>>,

    ifm_depth13: ZeroExtend<12, 13>,
    ofm_height13: ZeroExtend<12, 13>,
    ofm_width13: ZeroExtend<12, 13>,
    ifm_height14: ZeroExtend<12, 14>,
    ifm_width14: ZeroExtend<12, 14>,
    ky14: ZeroExtend<4, 14>,
    kx14: ZeroExtend<4, 14>,
    stride_y14: ZeroExtend<2, 14>,
    stride_x14: ZeroExtend<2, 14>,
    u9: ZeroExtend<2, 9>,
    group13: ZeroExtend<9, 13>,
    dky: Signal<Local, Bits<14>>,
    dkx: Signal<Local, Bits<14>>,
    iy0: Signal<Local, Bits<14>>,
    iy1: Signal<Local, Bits<14>>,
    ix0: Signal<Local, Bits<14>>,
    ix1: Signal<Local, Bits<14>>,
    row1: Signal<Local, Bit>,
    col1: Signal<Local, Bit>,
    ifm_row0: Signal<Local, Bits<14>>,
    ifm_row1: Signal<Local, Bits<14>>,
    ifm_col0: Signal<Local, Bits<14>>,
    ifm_col1: Signal<Local, Bits<14>>,
    in_y0: Signal<Local, Bit>,
    in_y1: Signal<Local, Bit>,
    in_x0: Signal<Local, Bit>,
    in_x1: Signal<Local, Bit>,
    cg: Signal<Local, Bits<9>>,
    remaining: Signal<Local, Bits<13>>,
    zero4: Constant<Bits<4>>,
    one13: Constant<Bits<13>>,
    eight4: Constant<Bits<4>>,
    eight13: Constant<Bits<13>>,
    eight14: Constant<Bits<14>>,
    shift1: Constant<Bits<4>>,
    shift3: Constant<Bits<4>>,
    pad_bit: [Constant<Bits<4>>; 4],
}

impl Default for IfmReads {
    fn default() -> Self {
        Self {
            mac: Default::default(),
            origin_y: Default::default(),
            origin_x: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            block_y: Default::default(),
            block_x: Default::default(),
            cg_base: Default::default(),
            u: Default::default(),
            og: Default::default(),
            ifm_height: Default::default(),
            ifm_width: Default::default(),
            ifm_depth: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            dilation_y: Default::default(),
            dilation_x: Default::default(),
            depthwise: Default::default(),
            read0: Default::default(),
            read1: Default::default(),
            read2: Default::default(),
            read3: Default::default(),
            y0: Default::default(),
            y1: Default::default(),
            x0: Default::default(),
            x1: Default::default(),
            group: Default::default(),
            pad: Default::default(),
            live: Default::default(),
            ifm_depth13: Default::default(),
            ofm_height13: Default::default(),
            ofm_width13: Default::default(),
            ifm_height14: Default::default(),
            ifm_width14: Default::default(),
            ky14: Default::default(),
            kx14: Default::default(),
            stride_y14: Default::default(),
            stride_x14: Default::default(),
            u9: Default::default(),
            group13: Default::default(),
            dky: Default::default(),
            dkx: Default::default(),
            iy0: Default::default(),
            iy1: Default::default(),
            ix0: Default::default(),
            ix1: Default::default(),
            row1: Default::default(),
            col1: Default::default(),
            ifm_row0: Default::default(),
            ifm_row1: Default::default(),
            ifm_col0: Default::default(),
            ifm_col1: Default::default(),
            in_y0: Default::default(),
            in_y1: Default::default(),
            in_x0: Default::default(),
            in_x1: Default::default(),
            cg: Default::default(),
            remaining: Default::default(),
            zero4: k(0),
            one13: k(1),
            eight4: k(8),
            eight13: k(8),
            eight14: k(8),
            shift1: k(1),
            shift3: k(3),
            pad_bit: std::array::from_fn(|p| k(1 << p)),
        }
    }
}

impl Logic for IfmReads {
    #[hdl_gen]
    fn update(&mut self) {
        self.ky14.narrow.next = self.ky.val();
        self.kx14.narrow.next = self.kx.val();
        self.stride_y14.narrow.next = self.stride_y.val();
        self.stride_x14.narrow.next = self.stride_x.val();
        self.ofm_height13.narrow.next = self.ofm_height.val();
        self.ofm_width13.narrow.next = self.ofm_width.val();
        self.ifm_height14.narrow.next = self.ifm_height.val();
        self.ifm_width14.narrow.next = self.ifm_width.val();
        self.ifm_depth13.narrow.next = self.ifm_depth.val();
        // The IFM position `ofm·stride + k·dilation - pad` (dilation 1 or 2: KERNEL_STRIDE
        // bits 4 and 3, TRM §4.6).
        self.dky.next = self.ky14.wide.val();
        if self.dilation_y.val() {
            self.dky.next = self.ky14.wide.val() << self.shift1.val();
        }
        self.dkx.next = self.kx14.wide.val();
        if self.dilation_x.val() {
            self.dkx.next = self.kx14.wide.val() << self.shift1.val();
        }
        self.iy0.next = self.origin_y.val() + self.dky.val();
        self.iy1.next = self.iy0.val() + self.stride_y14.wide.val();
        self.ix0.next = self.origin_x.val() + self.dkx.val();
        self.ix1.next = self.ix0.val() + self.stride_x14.wide.val();
        self.row1.next = (self.block_y.val() + self.one13.val()) < self.ofm_height13.wide.val();
        self.col1.next = (self.block_x.val() + self.one13.val()) < self.ofm_width13.wide.val();
        self.ifm_row0.next = self.iy0.val() - self.eight14.val();
        self.ifm_row1.next = self.iy1.val() - self.eight14.val();
        self.ifm_col0.next = self.ix0.val() - self.eight14.val();
        self.ifm_col1.next = self.ix1.val() - self.eight14.val();
        self.in_y0.next = self.ifm_row0.val() < self.ifm_height14.wide.val();
        self.in_y1.next = self.row1.val() & (self.ifm_row1.val() < self.ifm_height14.wide.val());
        self.in_x0.next = self.ifm_col0.val() < self.ifm_width14.wide.val();
        self.in_x1.next = self.col1.val() & (self.ifm_col1.val() < self.ifm_width14.wide.val());
        self.pad.next = self.zero4.val();
        if !(self.in_y0.val() & self.in_x0.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[0].val();
        }
        if !(self.in_y0.val() & self.in_x1.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[1].val();
        }
        if !(self.in_y1.val() & self.in_x0.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[2].val();
        }
        if !(self.in_y1.val() & self.in_x1.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[3].val();
        }
        self.u9.narrow.next = self.u.val();
        self.cg.next = self.cg_base.val() + self.u9.wide.val();
        self.group.next = self.cg.val();
        if self.depthwise.val() {
            self.group.next = self.og.val();
        }
        self.group13.narrow.next = self.group.val();
        self.remaining.next = self.ifm_depth13.wide.val() - (self.group13.wide.val() << self.shift3.val());
        self.live.next = self.remaining.val().get_bits::<4>(0);
        if self.remaining.val() >= self.eight13.val() {
            self.live.next = self.eight4.val();
        }
        self.read0.next = self.mac.val() & !self.pad.val().get_bit(0);
        self.read1.next = self.mac.val() & !self.pad.val().get_bit(1);
        self.read2.next = self.mac.val() & !self.pad.val().get_bit(2);
        self.read3.next = self.mac.val() & !self.pad.val().get_bit(3);
        self.y0.next = self.ifm_row0.val().get_bits::<12>(0);
        self.y1.next = self.ifm_row1.val().get_bits::<12>(0);
        self.x0.next = self.ifm_col0.val().get_bits::<12>(0);
        self.x1.next = self.ifm_col1.val().get_bits::<12>(0);
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(IfmReads::default, "ifm_reads");
}
