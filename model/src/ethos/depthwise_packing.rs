//! Depthwise tap packing for the Ethos-U65 convolution datapath (issue 19; docs/ethos.md,
//! "Depthwise tap packing"): the mapping of a DEPTHWISE_CONV_2D layer onto the 32 dot-product
//! units of 8 lanes (TRM L1033-1076, digest §0, §5.1) in which a unit's 8 lanes take up to 6
//! kernel taps of its own channel, rather than lane `o` of one tap of 8 channels (the mapping
//! `conv_datapath.rs` runs today, Table 4-129's 1/8 rate).
//!
//! This is the design's behavioural model, ahead of its RTL: it moves the data exactly as the
//! datapath is to move it (four IFM reads a cycle of 8 channels each, a kernel register, a
//! store of two window columns, the lanes of each unit) and counts the cycles, so that the
//! mapping's arithmetic and its cycle bound are checked against TFLite's reference before
//! the traversal is built (`tests/ethos_depthwise_packing.rs`). Not in lock step with
//! anything yet: the datapath still runs every depthwise layer tap by tap.
//!
//! The mapping, per 8-channel OFM group, per 2x2 OFM block (raster, as the datapath walks):
//! - The group's first block runs tap by tap as today (one kernel element a cycle, OFM
//!   channel `o` on lane `o`), and each element's weight row, read for it anyway, is also
//!   kept in the kernel register (up to 9 elements of 8 weights): no cycle is spent loading it.
//! - Every other block of the group walks the block's IFM window by rows. Window row `r`
//!   (IFM row `block_y·sy - pad_top + r`, `r < R = sy + (kh - 1)·dy + 1`) and window column
//!   `c` (IFM column `block_x - pad_left + c`, `c < 4`). OFM position (a, b) of the block uses
//!   window row `r` for kernel row `ky = (r - a·sy) / dy` (when whole and below `kh`) and
//!   window column `b + kx` for kernel column `kx`.
//! - A "fresh" block (the first of its OFM row of blocks, or the one after the group's first)
//!   takes one window row a cycle: the four ports read its four columns. A "reuse" block takes
//!   two window rows a cycle: its columns 0 and 1 are the previous block's columns 2 and 3,
//!   kept in the column store (R rows x 2 words), and the four ports read columns 2 and 3 of
//!   the two rows. Either way the store then holds columns 2 and 3 of the rows just taken.
//! - In a cycle over window rows `r_0` (and `r_1 = r_0 + 1`), unit (a, b, o) takes lane
//!   `3j + kx` = activation (window row `r_j`, column `b + kx`, channel `o`) times kernel
//!   register (`ky(a, r_j)`, `kx`, `o`), 0 where `ky` is not a kernel row; lanes 6 and 7 are 0.
//!   The unit sums its 8 lanes (the conv mode of `dot_pair.rs`: no new arithmetic).
//!   Activations outside the IFM, and channels beyond its depth, are 0 (as the IFM lanes
//!   zero them today), so padding needs no per-unit `pad`.
//!
//! Where it applies ([`packed`]): stride and dilation 1 in x, a kernel 2 or 3 wide, at most 3
//! high, and a window of at most 4 rows (`sy + (kh - 1)·dy + 1 <= 4`; the column store and
//! the kernel register are sized for that) and no more rows than taps (so that a fresh block,
//! one row a cycle, is never slower than tap by tap: a 1x2 kernel at stride 2 in y is not packed). Every other depthwise layer (1-wide kernels, which
//! gain nothing; strides or dilations in x, wide or tall kernels, Vela's sub-kernels) keeps
//! the tap-by-tap mapping.

/// A depthwise layer's registers as the datapath latches them (undilated kernel sides,
/// `dilation` 1 or 2, top/left padding).
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    pub ifm: (usize, usize, usize),
    pub ofm: (usize, usize),
    pub kernel: (usize, usize),
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub pad: (usize, usize),
}

impl Layer {
    /// Window rows of a block in the packed mapping.
    pub fn window_rows(&self) -> usize {
        self.stride.0 + (self.kernel.0 - 1) * self.dilation.0 + 1
    }
}

/// Whether the packed mapping runs `layer` (else the tap-by-tap mapping).
pub fn packed(layer: &Layer) -> bool {
    let (kh, kw) = layer.kernel;
    let rows = layer.window_rows();
    layer.stride.1 == 1 && layer.dilation.1 == 1 && (2..=3).contains(&kw) && (1..=3).contains(&kh) && rows <= 4 && rows <= kh * kw
}

/// How a 2x2 block of one OFM group runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// One kernel element a cycle, lane `o` of OFM channel `o` (and the kernel register loaded).
    PerTap,
    /// One window row a cycle, four columns read.
    Fresh,
    /// Two window rows a cycle, columns 0 and 1 from the column store.
    Reuse,
}

/// Cycles and the cases seen.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// MAC cycles of every (OFM group, block), in the traversal's order.
    pub block_cycles: Vec<usize>,
    pub per_tap_blocks: usize,
    pub fresh_blocks: usize,
    pub reuse_blocks: usize,
    /// Reuse cycles over one window row only (an odd window row count's last).
    pub single_row_pairs: usize,
    /// Fresh blocks at the start of an OFM row of blocks other than the layer's first.
    pub fresh_at_row_start: usize,
    /// Cycles in which a unit's window row is no kernel row for one of the block's OFM rows.
    pub rows_not_in_kernel: usize,
    /// Packed cycles with a read outside the IFM (padding, 0 without a read).
    pub padded_packed_cycles: usize,
    /// Packed blocks whose second OFM column or row is outside the OFM.
    pub packed_edge_blocks: usize,
    /// IFM reads issued.
    pub reads: usize,
}

impl Schedule {
    /// The MAC phase's cycles with `lanes` output lanes: the walk drains a block's 32
    /// accumulators in `32 / lanes` cycles, and a block's last cycle waits for it.
    pub fn cycles_with_lanes(&self, lanes: usize) -> usize {
        self.block_cycles.iter().map(|&t| t.max(32 / lanes)).sum()
    }
}

/// Runs `layer` on the packed mapping (or the tap-by-tap one where [`packed`] says no):
/// `ifm` is HWC int8, `weights` 1HWC (`(ky·kw + kx)·c + o`), `zero_point` the IFM's. Returns
/// each OFM element's accumulator without the bias (HWC), as the dot-product units leave it,
/// and the schedule.
pub fn run(layer: &Layer, ifm: &[i8], weights: &[i8], zero_point: i32) -> (Vec<i64>, Schedule) {
    let (ih, iw, c) = layer.ifm;
    let (oh, ow) = layer.ofm;
    let (kh, kw) = layer.kernel;
    let (sy, sx) = layer.stride;
    let (dy, dx) = layer.dilation;
    let pack = packed(layer);
    let mut out = vec![0i64; oh * ow * c];
    let mut s = Schedule::default();
    // One IFM read: 8 channels of group `og` at (y, x) relative to the padding, 0 outside.
    let read = |y: isize, x: isize, og: usize, s: &mut Schedule| -> [i64; 8] {
        if y < 0 || x < 0 || y as usize >= ih || x as usize >= iw {
            return [0; 8];
        }
        s.reads += 1;
        std::array::from_fn(|o| {
            let ch = 8 * og + o;
            if ch < c {
                i64::from(ifm[(y as usize * iw + x as usize) * c + ch]) - i64::from(zero_point)
            } else {
                0
            }
        })
    };
    let weight = |ky: usize, kx: usize, og: usize| -> [i64; 8] {
        std::array::from_fn(|o| if 8 * og + o < c { i64::from(weights[(ky * kw + kx) * c + 8 * og + o]) } else { 0 })
    };
    for og in 0..c.div_ceil(8) {
        let mut kernel_register = [[[0i64; 8]; 3]; 3];
        // Window rows x columns 2 and 3 of the previous block.
        let mut store = [[[0i64; 8]; 2]; 4];
        let mut first = true;
        let mut previous = BlockKind::PerTap;
        for by in (0..oh).step_by(2) {
            for bx in (0..ow).step_by(2) {
                let y0 = (by * sy) as isize - layer.pad.0 as isize;
                let x0 = (bx * sx) as isize - layer.pad.1 as isize;
                let mut dots = [[[0i64; 8]; 2]; 2];
                let kind = if !pack || first {
                    BlockKind::PerTap
                } else if bx == 0 || previous == BlockKind::PerTap {
                    BlockKind::Fresh
                } else {
                    BlockKind::Reuse
                };
                let edge = bx + 1 >= ow || by + 1 >= oh;
                let mut cycles = 0;
                match kind {
                    BlockKind::PerTap => {
                        s.per_tap_blocks += 1;
                        for ky in 0..kh {
                            for kx in 0..kw {
                                cycles += 1;
                                let w = weight(ky, kx, og);
                                if pack {
                                    kernel_register[ky][kx] = w;
                                }
                                for (a, row) in dots.iter_mut().enumerate() {
                                    for (b, unit) in row.iter_mut().enumerate() {
                                        let act = read(y0 + (a * sy + ky * dy) as isize, x0 + (b * sx + kx * dx) as isize, og, &mut s);
                                        for o in 0..8 {
                                            unit[o] += act[o] * w[o];
                                        }
                                    }
                                }
                            }
                        }
                    }
                    BlockKind::Fresh | BlockKind::Reuse => {
                        if kind == BlockKind::Fresh {
                            s.fresh_blocks += 1;
                            s.fresh_at_row_start += usize::from(bx == 0 && by > 0);
                        } else {
                            s.reuse_blocks += 1;
                        }
                        s.packed_edge_blocks += usize::from(edge);
                        let rows_a_cycle = if kind == BlockKind::Fresh { 1 } else { 2 };
                        for r0 in (0..layer.window_rows()).step_by(rows_a_cycle) {
                            cycles += 1;
                            let rows: Vec<usize> = (r0..(r0 + rows_a_cycle).min(layer.window_rows())).collect();
                            if rows.len() < rows_a_cycle {
                                s.single_row_pairs += 1;
                            }
                            let reads_before = s.reads;
                            let mut outside = false;
                            // The window words of this cycle: [j][column].
                            let window: Vec<[[i64; 8]; 4]> = rows
                                .iter()
                                .map(|&r| {
                                    let y = y0 + r as isize;
                                    let mut words = [[0i64; 8]; 4];
                                    for (col, word) in words.iter_mut().enumerate() {
                                        if kind == BlockKind::Reuse && col < 2 {
                                            *word = store[r][col];
                                        } else {
                                            let x = x0 + col as isize;
                                            outside |= y < 0 || x < 0 || y as usize >= ih || x as usize >= iw;
                                            *word = read(y, x, og, &mut s);
                                        }
                                    }
                                    store[r] = [words[2], words[3]];
                                    words
                                })
                                .collect();
                            assert!(s.reads - reads_before <= 4, "a packed cycle reads at most four words");
                            s.padded_packed_cycles += usize::from(outside);
                            for (a, row) in dots.iter_mut().enumerate() {
                                for (b, unit) in row.iter_mut().enumerate() {
                                    for o in 0..8 {
                                        let mut lanes_act = [0i64; 8];
                                        let mut lanes_w = [0i64; 8];
                                        for (j, &r) in rows.iter().enumerate() {
                                            let d = r as isize - (a * sy) as isize;
                                            let ky = (d >= 0 && d as usize % dy == 0 && (d as usize) / dy < kh).then(|| d as usize / dy);
                                            if ky.is_none() && o == 0 && b == 0 {
                                                s.rows_not_in_kernel += 1;
                                            }
                                            for kx in 0..kw {
                                                lanes_act[3 * j + kx] = window[j][b + kx][o];
                                                lanes_w[3 * j + kx] = ky.map_or(0, |ky| kernel_register[ky][kx][o]);
                                            }
                                        }
                                        unit[o] += lanes_act.iter().zip(&lanes_w).map(|(x, w)| x * w).sum::<i64>();
                                    }
                                }
                            }
                        }
                    }
                }
                first = false;
                previous = kind;
                s.block_cycles.push(cycles);
                for (a, row) in dots.iter().enumerate() {
                    for (b, unit) in row.iter().enumerate() {
                        let (y, x) = (by + a, bx + b);
                        if y < oh && x < ow {
                            for o in 0..8 {
                                if 8 * og + o < c {
                                    out[(y * ow + x) * c + 8 * og + o] = unit[o];
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    (out, s)
}
