//! The packed depthwise walk of the convolution datapath's model (issue 19; docs/ethos.md,
//! "Convolution datapath", "Depthwise tap packing"; the RTL sub-block is
//! `hdl/src/ethos/depthwise_walk.rs`): per 2x2 OFM block of a packed depthwise layer, which
//! mapping runs it and, in a packed block, the cycle's first window row and its four IFM
//! reads. `depthwise_packing.rs` is the reference of the data movement; this is the same
//! walk as registers and a next state, in the form the RTL takes (the traversal's block and
//! group counters, `conv_traversal.rs`, step as they do after a tap-by-tap group's last tap).
//!
//! Registers: `kind` (the block's mapping) and `row` (the cycle's first window row, 0..=3).
//! Timing (the datapath's): the reads are issued in the cycle and their data reach stage 2
//! (`depthwise_feed.rs`) in the next, with the cycle's `row` and row count.
//!
//! Decision (where the design left it open): the walk keeps no block counters of its own; the
//! traversal's `block_x`, `block_y`, `origin_*` and `og` stay the block's, and the block's
//! last cycle is the traversal's "last tap" (so the output walk's `must_wait` stalls it as
//! it stalls a tap-by-tap group's last tap, whatever the number of output lanes).
pub use crate::ethos::depthwise_packing::BlockKind as Kind;

/// A packed layer's registers as the walk reads them (the datapath's latched layer registers).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// `sy + (kh - 1)·dy + 1` (1..=4 on a packed layer).
    pub window_rows: u32,
    pub ifm_height: u32,
    pub ifm_width: u32,
}

/// One IFM read port's request in a packed cycle (coordinates plus 8, as `origin_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedRead {
    /// The port reads (the element is inside the IFM, and its window row is taken this cycle).
    pub read: bool,
    /// Inside the window rows taken, but outside the IFM: lanes 0 (padding).
    pub pad: bool,
    pub y: u32,
    pub x: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthwiseWalk {
    pub kind: Kind,
    pub row: u32,
}

impl Default for DepthwiseWalk {
    fn default() -> Self {
        Self { kind: Kind::PerTap, row: 0 }
    }
}

impl DepthwiseWalk {
    /// Window rows the cycle takes: a fresh block one, a reuse block two (one in its last
    /// cycle over an odd count).
    pub fn rows(&self, shape: &Shape) -> u32 {
        match self.kind {
            Kind::PerTap => 0,
            Kind::Fresh => 1,
            Kind::Reuse => (shape.window_rows - self.row).min(2),
        }
    }

    /// The block's last cycle (a packed block; a tap-by-tap block's last is its last tap).
    pub fn last(&self, shape: &Shape) -> bool {
        self.row + self.rows(shape) >= shape.window_rows
    }

    /// Port `p`'s read: fresh, window row `row`, column `p`; reuse, row `row + p / 2`, column
    /// `2 + p % 2` (columns 0 and 1 come from the column store).
    pub fn reads(&self, shape: &Shape, origin_y: u32, origin_x: u32) -> [PackedRead; 4] {
        std::array::from_fn(|p| {
            let p = p as u32;
            let (dy, col, taken) = match self.kind {
                Kind::Fresh => (0, p, true),
                _ => (p / 2, 2 + p % 2, p / 2 < self.rows(shape)),
            };
            let (y, x) = ((origin_y + self.row + dy) & 0x3FFF, (origin_x + col) & 0x3FFF);
            let inside = y >= 8 && y < shape.ifm_height + 8 && x >= 8 && x < shape.ifm_width + 8;
            PackedRead { read: taken && inside, pad: taken && !inside, y, x }
        })
    }

    /// The next state after an issued cycle. `block_last`: this cycle ends the block (a packed
    /// block's `last`, a tap-by-tap block's last tap); `packed`: the layer is packed; `next_first`:
    /// the next block is a group's first (a new OFM group); `next_row_start`: it starts a row
    /// of blocks.
    pub fn step(&mut self, shape: &Shape, block_last: bool, packed: bool, next_first: bool, next_row_start: bool) {
        if !block_last {
            self.row += self.rows(shape);
            return;
        }
        self.row = 0;
        self.kind = if !packed || next_first {
            Kind::PerTap
        } else if next_row_start || self.kind == Kind::PerTap {
            Kind::Fresh
        } else {
            Kind::Reuse
        };
    }
}
