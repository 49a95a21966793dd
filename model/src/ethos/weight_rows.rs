//! The convolution datapath's weight-row address (RTL `hdl/src/ethos/weight_rows.rs`): which
//! row of the weight buffer the MAC phase reads. The buffer holds the decoded stream in stream
//! order (as DECODE writes it), so the address follows Vela's weight order (digest
//! `shared/spec/ethos-u65.md` §1.9, `src/ethos/reorder.rs`), the loops read the other way
//! round: the datapath walks one 8-channel OFM group `og` at a time, the stream has per OFM
//! block of `8·(block_groups_m1 + 1)` channels, per IFM block, per OFM group of the block,
//! per kernel element, per IFM micro-block (depth-first, 32-channel IFM blocks: a "unit" of
//! `4·E` rows per group and block); part-kernel-first: per 16-channel IFM block, per 8-channel
//! IFM micro-block holding channels, per OFM group, per kernel element padded to a multiple
//! of 4 (a unit of `roundup(E, 4)` rows per group and IFM micro-block); depthwise: per OFM
//! group, per element padded to 4 (one unit). So with `U` rows a unit and `n` OFM groups in
//! the current OFM block, group `j` of the block, unit `t` (IFM block or micro-block) and
//! element `e`: row = block start + t·n·U + j·U + e·step (+ IFM micro-block u, depth-first),
//! and the next block starts one unit after the last unit of its last group. The padded
//! elements of part-kernel-first are not walked (decision, docs/ethos.md: their weights are
//! zero, so a tap there adds nothing; the address steps over them).
//!
//! Registers: `row`, `row_base` (the element's first row), `unit_base`, `og_start` (the
//! group's first row), all 13 bits; `j` (4 bits) and `groups`, the OFM groups of the current
//! OFM block (5 bits: all of them but in the layer's last block), set at CLEAR and when a
//! block's last group ends.

/// What the MAC phase's tap did (the traversal's decision, `conv_traversal.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing to the address (not MAC, or held).
    None,
    /// Depth-first: the next 8-channel IFM group of the element.
    Group,
    /// The next kernel element of the unit.
    Element,
    /// The next IFM block (depth-first) or IFM micro-block (part-kernel-first).
    Unit,
    /// The OFM group's last tap: the next group's first row.
    Last,
    /// CHECK, or the end of a 2x2 OFM block's last OFM group: back to row 0.
    Clear,
}

/// The layer registers the address depends on.
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    pub depthwise: bool,
    pub part_kernel: bool,
    pub ofm_depth: u16,
    pub kernel_height: u8,
    pub kernel_width: u8,
    pub block_groups_m1: u8,
}

impl Layer {
    /// Rows of one unit: depth-first `4·E`, else `E` padded to a multiple of 4 (9 bits).
    pub fn unit(&self) -> u32 {
        let elements = u32::from(self.kernel_height & 15) * u32::from(self.kernel_width & 15);
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

#[derive(Clone, Debug, Default)]
pub struct WeightRows {
    pub row: u32,
    row_base: u32,
    unit_base: u32,
    og_start: u32,
    j: u32,
    groups: u32,
}

impl WeightRows {
    /// One clock edge (`step` is `None` when held), at OFM group `og`.
    pub fn step(&mut self, step: Step, og: u32, l: &Layer) {
        let unit = l.unit();
        let groups_in_block = u32::from(l.block_groups_m1 & 15) + 1;
        let last_of_block = self.j + 1 >= groups_in_block;
        // The OFM groups of the next block, from group 0 (CLEAR) or after this one.
        let ogs = (u32::from(l.ofm_depth) + 7) >> 3;
        let left = if step == Step::Clear { ogs } else { ogs.wrapping_sub(og).wrapping_sub(1) & MASK };
        let groups_next = if left >> 5 == 0 && left < groups_in_block { left } else { groups_in_block };
        match step {
            Step::None => {}
            Step::Group => self.row = (self.row + 1) & MASK,
            Step::Element => {
                self.row_base = (self.row_base + l.element_step()) & MASK;
                self.row = self.row_base;
            }
            Step::Unit => {
                self.unit_base = (self.unit_base + self.groups * unit) & MASK;
                self.row_base = self.unit_base;
                self.row = self.unit_base;
            }
            Step::Last => {
                let next = if last_of_block { self.unit_base + unit } else { self.og_start + unit } & MASK;
                *self = Self {
                    row: next,
                    row_base: next,
                    unit_base: next,
                    og_start: next,
                    j: if last_of_block { 0 } else { (self.j + 1) & 15 },
                    groups: if last_of_block { groups_next } else { self.groups },
                };
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

    /// The rows the walk reads, against the stream positions of `reorder.rs`'s loops written
    /// out here for one layer per traversal: every row of the stream read once per 2x2 block.
    fn walk(l: &Layer, ifm_depth: u32) -> Vec<u32> {
        let mut rows = WeightRows::default();
        rows.step(Step::Clear, 0, l);
        let mut seen = Vec::new();
        let ogs = (u32::from(l.ofm_depth) + 7) / 8;
        let elements = u32::from(l.kernel_height) * u32::from(l.kernel_width);
        for og in 0..ogs {
            let (units, groups) = if l.part_kernel { (ifm_depth.div_ceil(8), 1) } else { (ifm_depth.div_ceil(32), 4) };
            for t in 0..units {
                for e in 0..elements {
                    let live = if l.part_kernel { 1 } else { (ifm_depth - 32 * t).div_ceil(8).min(groups) };
                    for u in 0..live {
                        seen.push(rows.row);
                        let step = if u + 1 < live {
                            Step::Group
                        } else if e + 1 < elements {
                            Step::Element
                        } else if t + 1 < units {
                            Step::Unit
                        } else {
                            Step::Last
                        };
                        rows.step(step, og, l);
                    }
                }
            }
        }
        seen
    }

    /// Every row read once, none beyond the layer's, none of a padded element.
    #[test]
    fn reads_every_row_once() {
        for part_kernel in [false, true] {
            for (ofm_depth, block_groups_m1, ifm_depth, kh, kw) in [(24, 1, 40, 3, 3), (40, 2, 72, 1, 1), (17, 0, 33, 2, 2), (30, 4, 20, 3, 1), (64, 15, 100, 2, 3)] {
                let l = Layer { depthwise: false, part_kernel, ofm_depth, kernel_height: kh, kernel_width: kw, block_groups_m1 };
                let mut rows = walk(&l, ifm_depth);
                let elements = u32::from(kh * kw);
                let ogs = u32::from(ofm_depth).div_ceil(8);
                let (total, reads) = if part_kernel {
                    (ogs * ifm_depth.div_ceil(8) * l.unit(), ogs * ifm_depth.div_ceil(8) * elements)
                } else {
                    (ogs * ifm_depth.div_ceil(32) * l.unit(), ogs * ifm_depth.div_ceil(8) * elements)
                };
                rows.sort_unstable();
                rows.dedup();
                assert_eq!(rows.len() as u32, reads, "{l:?}");
                assert!(rows.iter().all(|&r| r < total), "{l:?}");
                if part_kernel {
                    assert!(rows.iter().all(|&r| r % l.unit() < elements), "a padded element read: {l:?}");
                }
            }
        }
    }
}
