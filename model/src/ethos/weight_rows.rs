//! The convolution datapath's weight-row address (RTL `hdl/src/ethos/weight_rows.rs`): which
//! row of the weight buffer the MAC phase reads. The buffer holds the decoded stream in stream
//! order (as DECODE writes it), so the address follows Vela's weight order (digest
//! `shared/spec/ethos-u65.md` §1.9, `src/ethos/reorder.rs`), the loops read the other way
//! round: the datapath walks one 8-channel OFM group `og` at a time; the stream has, per OFM
//! block of `8·(block_groups_m1 + 1)` channels, "regions" in order: depth-first per 32-channel
//! IFM block per sub-kernel; part-kernel-first per 16-channel IFM block per sub-kernel per
//! 8-channel IFM micro-block holding channels; depthwise per sub-kernel (Vela's sub-kernels:
//! at most `8 / dilation` a side, y outside x). A region holds per OFM group of the block its
//! `U'` rows: depth-first `4·E'` (per element of the sub-kernel's `E'`, the four IFM
//! micro-blocks), part-kernel-first and depthwise `roundup(E', 4)`. So with `n` OFM groups in
//! the current OFM block and group `j` of it: the group's rows in a region start at
//! `region + j·U'`, the next region at `region + n·U'`, the next group of the block at the
//! block's first region, and the next block after the last region. The padded elements of
//! part-kernel-first are not walked (decision, docs/ethos.md: their weights are zero, so a tap
//! there adds nothing; the address steps over them).
//!
//! Registers: `row`, `row_base` (the element's first row), `region`, `block_start`, all 13
//! bits; `j` (4 bits) and `groups`, the OFM groups of the current OFM block (5 bits: all of
//! them but in the layer's last block), set at CLEAR and when a block's last group ends.

/// What the MAC phase's tap did (the traversal's decision, `conv_traversal.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing to the address (not MAC, or held).
    None,
    /// Depth-first: the next 8-channel IFM group of the element.
    Group,
    /// The next kernel element of the sub-kernel.
    Element,
    /// The next region: sub-kernel, IFM block, or part-kernel-first IFM micro-block.
    Unit,
    /// The OFM group's last tap: the next group's first row.
    Last,
    /// CHECK, or the end of the layer: back to row 0.
    Clear,
    /// The OFM group's last tap in a 2x2 OFM block that is not the layer's last: the same
    /// group's first row again (`block_start + j·U'` of the first sub-kernel), for the next
    /// block (the traversal walks every block of a group before the next group, so that a
    /// group's rows are all decoded long before the last group's: docs/ethos.md, "Decode
    /// overlapped with MAC").
    Repeat,
}

/// The layer registers the address depends on.
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    pub depthwise: bool,
    pub part_kernel: bool,
    pub ofm_depth: u16,
    pub block_groups_m1: u8,
}

impl Layer {
    /// Rows of a group in a region of a sub-kernel of `(h, w)`: depth-first `4·E'`, else `E'`
    /// padded to a multiple of 4 (9 bits).
    pub fn unit(&self, (h, w): (u32, u32)) -> u32 {
        let elements = (h & 15) * (w & 15);
        (if self.depthwise || self.part_kernel { (elements + 3) & !3 } else { elements << 2 }) & 0x1FF
    }

    /// Rows from one kernel element to the next.
    fn element_step(&self) -> u32 {
        if self.depthwise || self.part_kernel {
            1
        } else {
            4
        }
    }
}

const MASK: u32 = 0x1FFF;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WeightRows {
    pub row: u32,
    row_base: u32,
    region: u32,
    block_start: u32,
    j: u32,
    groups: u32,
}

impl WeightRows {
    /// One clock edge (`step` is `None` when held), at OFM group `og`, in a sub-kernel of
    /// `sub` (h, w) sides, stepping to one of `next`.
    pub fn step(&mut self, step: Step, og: u32, l: &Layer, sub: (u32, u32), next: (u32, u32)) {
        let groups_in_block = u32::from(l.block_groups_m1 & 15) + 1;
        let last_of_block = self.j + 1 >= groups_in_block;
        // The OFM groups of the next block, from group 0 (CLEAR) or after this one.
        let ogs = (u32::from(l.ofm_depth) + 7) >> 3;
        let left = if step == Step::Clear { ogs } else { ogs.wrapping_sub(og).wrapping_sub(1) & MASK };
        let groups_next = if left >> 5 == 0 && left < groups_in_block { left } else { groups_in_block };
        let (region_next, j_next) = match step {
            Step::Last if !last_of_block => (self.block_start, (self.j + 1) & 15),
            Step::Last => ((self.region + self.groups * l.unit(sub)) & MASK, 0),
            _ => ((self.region + self.groups * l.unit(sub)) & MASK, self.j),
        };
        let next_row = (region_next + j_next * l.unit(next)) & MASK;
        match step {
            Step::None => {}
            Step::Group => self.row = (self.row + 1) & MASK,
            Step::Element => {
                self.row_base = (self.row_base + l.element_step()) & MASK;
                self.row = self.row_base;
            }
            Step::Unit => {
                self.region = region_next;
                self.row_base = next_row;
                self.row = next_row;
            }
            Step::Last => {
                *self = Self {
                    row: next_row,
                    row_base: next_row,
                    region: region_next,
                    block_start: if last_of_block { region_next } else { self.block_start },
                    j: j_next,
                    groups: if last_of_block { groups_next } else { self.groups },
                };
            }
            Step::Repeat => {
                self.region = self.block_start;
                self.row_base = (self.block_start + self.j * l.unit(next)) & MASK;
                self.row = self.row_base;
            }
            Step::Clear => {
                *self = Self {
                    groups: groups_next,
                    ..Self::default()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A layer's shape for the walk: IFM depth, kernel sides, dilation 2 in y / x.
    struct Shape {
        ifm_depth: u32,
        kernel: (u32, u32),
        dilation: (bool, bool),
    }

    /// The sub-kernels (origin, sides), y outside x, at most `8 / dilation` a side.
    fn sub_kernels(s: &Shape) -> Vec<(u32, u32)> {
        let (dh, dw) = (if s.dilation.0 { 4 } else { 8 }, if s.dilation.1 { 4 } else { 8 });
        let mut subs = Vec::new();
        for sy in (0..s.kernel.0).step_by(dh) {
            for sx in (0..s.kernel.1).step_by(dw) {
                subs.push(((s.kernel.0 - sy).min(dh as u32), (s.kernel.1 - sx).min(dw as u32)));
            }
        }
        subs
    }

    /// The IFM blocks and, per block, the units walked inside a sub-kernel (part-kernel-first:
    /// its 8-channel micro-blocks holding channels) and the 8-channel groups of an element
    /// (depth-first: those holding channels).
    fn ifm_blocks(l: &Layer, s: &Shape) -> Vec<(u32, u32)> {
        if l.depthwise {
            return vec![(1, 1)];
        }
        let block = if l.part_kernel { 16 } else { 32 };
        (0..s.ifm_depth.div_ceil(block)).map(|b| (s.ifm_depth - b * block).div_ceil(8).min(block / 8)).map(|g| if l.part_kernel { (g, 1) } else { (1, g) }).collect()
    }

    /// Where each weight row is in the stream, `reorder.rs`'s loops written out here: key
    /// (OFM group, IFM block, sub-kernel, micro-block, element, IFM group of the element).
    fn stream_rows(l: &Layer, s: &Shape) -> HashMap<(u32, usize, usize, u32, u32, u32), u32> {
        let ogs = u32::from(l.ofm_depth).div_ceil(8);
        let n = u32::from(l.block_groups_m1) + 1;
        let mut rows = HashMap::new();
        let mut row = 0;
        for block in (0..ogs).step_by(n as usize) {
            for (b, &(units, live)) in ifm_blocks(l, s).iter().enumerate() {
                for (k, &sub) in sub_kernels(s).iter().enumerate() {
                    for m in 0..units {
                        for og in block..(block + n).min(ogs) {
                            let elements = sub.0 * sub.1;
                            let padded = if l.depthwise || l.part_kernel { elements.next_multiple_of(4) } else { elements };
                            for e in 0..padded {
                                for g in 0..if l.depthwise || l.part_kernel { 1 } else { 4 } {
                                    if e < elements && g < live {
                                        rows.insert((og, b, k, m, e, g), row);
                                    }
                                    row += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        rows
    }

    /// Drives the address in the traversal's order (`conv_traversal.rs`) over three 2x2 blocks
    /// of every OFM group (`Repeat` after a group's last tap in the first two, `Last` after the
    /// third): every (OFM group, IFM block, sub-kernel, micro-block, element, group) must read
    /// the row the stream holds it at, in every block.
    fn check_walk(l: &Layer, s: &Shape) {
        let expected = stream_rows(l, s);
        let subs = sub_kernels(s);
        let blocks = ifm_blocks(l, s);
        let mut rows = WeightRows::default();
        rows.step(Step::Clear, 0, l, subs[0], subs[0]);
        let mut taps = Vec::new();
        for og in 0..u32::from(l.ofm_depth).div_ceil(8) {
            for block in 0..3 {
                for (b, &(units, live)) in blocks.iter().enumerate() {
                    for (k, &sub) in subs.iter().enumerate() {
                        for m in 0..units {
                            let elements = sub.0 * sub.1;
                            for e in 0..elements {
                                for g in 0..live {
                                    taps.push((og, b, k, m, e, g));
                                    let region_end = e + 1 == elements && g + 1 == live;
                                    let (step, next) = if !region_end {
                                        (if g + 1 < live { Step::Group } else { Step::Element }, sub)
                                    } else if m + 1 < units {
                                        (Step::Unit, sub)
                                    } else if k + 1 < subs.len() {
                                        (Step::Unit, subs[k + 1])
                                    } else if b + 1 < blocks.len() {
                                        (Step::Unit, subs[0])
                                    } else if block < 2 {
                                        (Step::Repeat, subs[0])
                                    } else {
                                        (Step::Last, subs[0])
                                    };
                                    let key = (og, b, k, m, e, g);
                                    assert_eq!(Some(&rows.row), expected.get(&key), "{l:?} block {block} tap {key:?}");
                                    rows.step(step, og, l, sub, next);
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(taps.len(), 3 * expected.len(), "{l:?}: every row read once a block");
    }

    /// Every row read once, at its stream position, none of a padded element, across
    /// sub-kernels (kernels above 8, or above 4 dilated), IFM blocks and OFM blocks.
    #[test]
    fn reads_every_row_once() {
        for (depthwise, part_kernel) in [(false, false), (false, true), (true, false)] {
            for (ofm_depth, block_groups_m1, ifm_depth, kernel, dilation) in [
                (24, 1, 40, (3, 3), (false, false)),
                (40, 2, 72, (1, 1), (false, false)),
                (17, 0, 33, (2, 2), (false, false)),
                (30, 4, 20, (3, 1), (false, false)),
                (64, 15, 100, (2, 3), (false, false)),
                (24, 1, 40, (9, 9), (false, false)),
                (17, 1, 33, (10, 3), (false, false)),
                (9, 0, 20, (5, 5), (true, true)),
                (24, 2, 8, (15, 6), (true, false)),
                (16, 1, 24, (3, 10), (false, true)),
            ] {
                let ifm_depth = if depthwise { u32::from(ofm_depth) } else { ifm_depth };
                let l = Layer { depthwise, part_kernel, ofm_depth, block_groups_m1 };
                check_walk(&l, &Shape { ifm_depth, kernel, dilation });
            }
        }
    }
}
