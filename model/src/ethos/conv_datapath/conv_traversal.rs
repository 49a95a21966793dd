//! The traversal of the convolution datapath's model (RTL `hdl/src/ethos/conv_traversal.rs`):
//! which tap the MAC phase is at (the 2x2 OFM block, the OFM group, the sub-kernel, the kernel
//! element, the IFM channel group), its IFM positions, and the step to the next tap.
use super::*;

/// The layer registers of the weight-row address.
pub(super) fn rows_layer(i: &In) -> weight_rows::Layer {
    weight_rows::Layer {
        depthwise: i.depthwise,
        part_kernel: i.part_kernel,
        ofm_depth: i.ofm_depth,
        block_groups_m1: i.block_groups_m1,
    }
}

/// The sub-kernels along one side: (the most a sub-kernel has, `8 / dilation`; the first
/// sub-kernel's side; the current one's; whether another follows; the next one's).
struct Side {
    most: u32,
    first: u32,
    current: u32,
    more: bool,
    next: u32,
}

fn side(kernel: u8, origin: u32, dilated: bool) -> Side {
    let kernel = u32::from(kernel & 15);
    let most = if dilated { 4 } else { 8 };
    let rest = kernel.wrapping_sub(origin) & 15;
    let rest2 = rest.wrapping_sub(most) & 15;
    Side { most, first: kernel.min(most), current: rest.min(most), more: most < rest, next: rest2.min(most) }
}

/// The tap's position inside the IFM and OFM, as the RTL decides it.
pub(super) struct Taps {
    pub(super) pad: u8,
    /// IFM row and column of each position (12 bits of `origin + k - 8`).
    pub(super) ifm: [(u32, u32); 4],
    pub(super) group: u32,
    pub(super) live: u32,
    last_u: bool,
    kx_more: bool,
    ky_more: bool,
    sy: Side,
    sx: Side,
    /// MAC (or DECODE, overlapped), and the tap is issued: not a group's last tap while the
    /// output walk waits; in DECODE, not before its weight row is written, nor the layer's
    /// last tap before the decoder is done.
    pub(super) issue: bool,
    pub(super) last_tap: bool,
    /// DECODE: the tap's weight row is not written yet.
    pub(super) row_wait: bool,
    /// DECODE: the layer's last tap, which waits for the decoder's `done`.
    pub(super) layer_wait: bool,
    /// The packed depthwise walk: the layer is packed, the block is (its cycles step no
    /// kernel element; its last is the group's last tap), the walk's shape, and what the
    /// next block is (a group's first, a row of blocks' first).
    pub(super) layer_packed: bool,
    pub(super) packed_block: bool,
    packed_last: bool,
    pub(super) shape: depthwise_walk::Shape,
    next_first: bool,
    next_row_start: bool,
}

/// Whether the packed mapping runs the layer, and its window rows (`depthwise_walk.rs`'s
/// `layer_packed`, in its widths: `R = sy + (kh - 1)·dy + 1`; for a kernel 2 or more high
/// `kh·kw >= 4 >= R`, so "no more window rows than taps" is checked for one row only).
pub(super) fn packed_layer(i: &In) -> (bool, depthwise_walk::Shape) {
    let (kh, kw) = (u32::from(i.kernel_height & 15), u32::from(i.kernel_width & 15));
    let spread = (kh.wrapping_sub(1) & 63) << u32::from(i.dilation_y) & 63;
    let rows = (u32::from(i.stride_y & 3) + spread + 1) & 63;
    let packed = i.depthwise
        && i.pack_depthwise
        && i.stride_x & 3 == 1
        && !i.dilation_x
        && (2..=3).contains(&kw)
        && (1..=3).contains(&kh)
        && rows <= 4
        && (kh != 1 || rows <= kw);
    (packed, depthwise_walk::Shape { window_rows: rows, ifm_height: u32::from(i.ifm_height), ifm_width: u32::from(i.ifm_width) })
}

impl ConvDatapath {
    pub(super) fn taps(&self, i: &In) -> Taps {
        // `ofm·stride + k·dilation - pad` (+ 8).
        // The kernel position: the sub-kernel's origin plus the element's (4 bits).
        let ky = (self.walk.sy + self.walk.ky) & 15;
        let kx = (self.walk.sx + self.walk.kx) & 15;
        let iy0 = (self.walk.origin_y + (ky << u32::from(i.dilation_y))) & 0x3FFF;
        let iy1 = (iy0 + u32::from(i.stride_y)) & 0x3FFF;
        let ix0 = (self.walk.origin_x + (kx << u32::from(i.dilation_x))) & 0x3FFF;
        let ix1 = (ix0 + u32::from(i.stride_x)) & 0x3FFF;
        let row1 = self.walk.block_y + 1 < u32::from(i.ofm_height);
        let col1 = self.walk.block_x + 1 < u32::from(i.ofm_width);
        let within = |v: u32, size: u16| v >= 8 && v < u32::from(size) + 8;
        let ys = [within(iy0, i.ifm_height), row1 && within(iy1, i.ifm_height)];
        let xs = [within(ix0, i.ifm_width), col1 && within(ix1, i.ifm_width)];
        let pad = (0..4).fold(0, |pad, p| if ys[p / 2] && xs[p % 2] { pad } else { pad | 1 << p });
        let ifm12 = |v: u32| v.wrapping_sub(8) & 0xFFF;
        let cg = (self.walk.cg_base + self.walk.u) & 0x1FF;
        let group = if i.depthwise { self.walk.og } else { cg };
        let remaining = u32::from(i.ifm_depth).wrapping_sub(group << 3) & 0x1FFF;
        // The IFM block's last group: depth-first 4 (32 channels), part-kernel-first 2 (16).
        let last_u = self.walk.u == if i.part_kernel { 1 } else { 3 } || (cg + 1) << 3 >= u32::from(i.ifm_depth);
        let (sy, sx) = (side(i.kernel_height, self.walk.sy, i.dilation_y), side(i.kernel_width, self.walk.sx, i.dilation_x));
        let (layer_packed, shape) = packed_layer(i);
        let packed_block = self.walk.dw.kind != depthwise_walk::Kind::PerTap;
        let packed_last = self.walk.dw.last(&shape);
        let kx_more = self.walk.kx + 1 < sx.current && !packed_block;
        let ky_more = self.walk.ky + 1 < sy.current && !packed_block;
        let more_ifm = (self.walk.cg_base + if i.part_kernel { 2 } else { 4 }) << 3 < u32::from(i.ifm_depth);
        let last_tap =
            (i.depthwise || last_u) && !kx_more && !ky_more && !sx.more && !sy.more && (i.depthwise || !more_ifm) && (!packed_block || packed_last);
        let more_x = self.walk.block_x + 2 < u32::from(i.ofm_width);
        let more_y = self.walk.block_y + 2 < u32::from(i.ofm_height);
        let decoding = self.state == STATE_DECODE;
        let last_block = !(self.walk.block_x + 2 < u32::from(i.ofm_width)) && !(self.walk.block_y + 2 < u32::from(i.ofm_height));
        let last_og = (self.walk.og + 1) << 3 >= u32::from(i.ofm_depth);
        let row_wait = decoding && self.walk.address.row >= self.walk.rows;
        let layer_wait = decoding && last_tap && last_block && last_og;
        Taps {
            pad,
            ifm: [(iy0, ix0), (iy0, ix1), (iy1, ix0), (iy1, ix1)].map(|(y, x)| (ifm12(y), ifm12(x))),
            group,
            live: if remaining >= 8 { 8 } else { remaining & 0xF },
            last_u,
            kx_more,
            ky_more,
            sy,
            sx,
            issue: matches!(self.state, STATE_MAC | STATE_DECODE) && !(last_tap && self.out.wait()) && !row_wait && !layer_wait,
            last_tap,
            row_wait,
            layer_wait,
            layer_packed,
            packed_block,
            packed_last,
            shape,
            next_first: !more_x && !more_y,
            next_row_start: !more_x,
        }
    }

    /// The packed walk's step with an issued cycle (before the traversal's counters move).
    pub(super) fn packed_step(&mut self, i: &In, taps: &Taps) {
        use depthwise_walk::Kind;
        if taps.packed_block {
            if i.kernel_width == 2 {
                self.events.push("packed, 2-wide kernel");
            }
            if i.stride_y >= 2 {
                self.events.push("packed, stride 2-3 in y");
            }
            if i.dilation_y {
                self.events.push("packed, dilation 2 in y");
            }
            if self.walk.block_x + 1 >= u32::from(i.ofm_width) || self.walk.block_y + 1 >= u32::from(i.ofm_height) {
                self.events.push("a packed block past the OFM edge");
            }
        }
        match self.walk.dw.kind {
            Kind::Fresh => self.events.push("fresh block"),
            Kind::Reuse => self.events.push("reuse block"),
            Kind::PerTap if taps.layer_packed => self.events.push("tap-by-tap block of a packed layer"),
            Kind::PerTap => {}
        }
        self.walk.dw.step(&taps.shape, taps.last_tap, taps.layer_packed, taps.next_first, taps.next_row_start);
    }

    pub(super) fn tap(&mut self, i: &In, taps: &Taps) {
        // The address steps with the group of the tap (`next_group` may move to the next).
        let og = self.walk.og;
        self.walk.first = false;
        if taps.packed_block && !taps.packed_last {
            // A packed block's cycle before its last: no kernel element stepped.
            self.walk.address.step(Step::None, og, &rows_layer(i), (taps.sy.current, taps.sx.current), (taps.sy.current, taps.sx.current));
            return;
        }
        if taps.pad != 0 {
            self.events.push("padded tap");
        }
        let sub = (taps.sy.current, taps.sx.current);
        let mut next = sub;
        let step = if !i.depthwise && !i.part_kernel && !taps.last_u {
            self.walk.u += 1;
            Step::Group
        } else {
            if !i.part_kernel {
                if self.walk.u != 3 && !i.depthwise {
                    self.events.push("channel groups beyond the IFM skipped");
                }
                self.walk.u = 0;
            }
            if taps.kx_more {
                self.walk.kx += 1;
                Step::Element
            } else if taps.ky_more {
                self.walk.kx = 0;
                self.walk.ky += 1;
                Step::Element
            } else {
                self.walk.kx = 0;
                self.walk.ky = 0;
                if i.part_kernel && !taps.last_u {
                    self.walk.u += 1;
                    self.events.push("next IFM micro-block");
                    Step::Unit
                } else {
                    self.walk.u = 0;
                    if taps.sx.more {
                        self.walk.sx += taps.sx.most;
                        next.1 = taps.sx.next;
                        self.events.push("next sub-kernel");
                        Step::Unit
                    } else if taps.sy.more {
                        self.walk.sx = 0;
                        self.walk.sy += taps.sy.most;
                        next = (taps.sy.next, taps.sx.first);
                        self.events.push("next sub-kernel");
                        Step::Unit
                    } else {
                        self.walk.sx = 0;
                        self.walk.sy = 0;
                        next = (taps.sy.first, taps.sx.first);
                        // The next IFM block: depth-first 32 channels, part-kernel-first 16.
                        let groups = if i.part_kernel { 2 } else { 4 };
                        if !i.depthwise && (self.walk.cg_base + groups) << 3 < u32::from(i.ifm_depth) {
                            self.walk.cg_base += groups;
                            self.events.push(if i.part_kernel { "next IFM micro-block" } else { "next IFM block" });
                            Step::Unit
                        } else {
                            self.walk.cg_base = 0;
                            self.next_group(i)
                        }
                    }
                }
            }
        };
        self.walk.address.step(step, og, &rows_layer(i), sub, next);
    }

    /// After a group's last tap: the same OFM group in the next 2x2 block (raster), or the
    /// next group from the first block, or OUT, the last group's drain (the output walk takes
    /// the group meanwhile). Every block of a group before the next group: the group's weight
    /// rows are all decoded long before the layer's last, so MAC overlaps DECODE.
    fn next_group(&mut self, i: &In) -> Step {
        self.walk.first = true;
        if self.walk.block_x + 2 < u32::from(i.ofm_width) {
            self.walk.block_x += 2;
            self.walk.origin_x += 2 * u32::from(i.stride_x);
            return Step::Repeat;
        }
        if self.walk.block_y + 2 < u32::from(i.ofm_height) {
            self.walk.block_x = 0;
            self.walk.block_y += 2;
            self.walk.origin_x = 8 - u32::from(i.pad_left);
            self.walk.origin_y += 2 * u32::from(i.stride_y);
            return Step::Repeat;
        }
        if (self.walk.og + 1) << 3 < u32::from(i.ofm_depth) {
            self.walk.og += 1;
            self.walk.block_x = 0;
            self.walk.block_y = 0;
            self.walk.origin_x = 8 - u32::from(i.pad_left);
            self.walk.origin_y = 8 - u32::from(i.pad_top);
            return Step::Last;
        }
        self.walk.og = 0;
        self.state = STATE_OUT;
        Step::Clear
    }
}
