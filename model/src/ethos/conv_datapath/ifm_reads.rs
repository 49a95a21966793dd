//! The IFM read ports of the convolution datapath's model (RTL `hdl/src/ethos/ifm_reads.rs`):
//! for the tap, the IFM element each position of the 2x2 OFM block reads, its 8-channel group
//! and the positions in the padding; a packed depthwise block's reads come from the walk
//! (`depthwise_walk.rs`). Computed from the ports in every state, as the RTL does.
use super::conv_traversal::Taps;
use super::*;

impl In {
    /// IFM data of position `p`.
    pub fn ifm_data(&self, p: usize) -> u64 {
        [self.ifm_data0, self.ifm_data1, self.ifm_data2, self.ifm_data3][p]
    }
}

/// One IFM read port's request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IfmRead {
    pub read: bool,
    pub y: u16,
    pub x: u16,
    pub group: u16,
}

impl Out {
    pub fn ifm_reads(&self) -> [IfmRead; 4] {
        [
            IfmRead {
                read: self.ifm_read0,
                y: self.ifm_y0,
                x: self.ifm_x0,
                group: self.ifm_group0,
            },
            IfmRead {
                read: self.ifm_read1,
                y: self.ifm_y1,
                x: self.ifm_x1,
                group: self.ifm_group1,
            },
            IfmRead {
                read: self.ifm_read2,
                y: self.ifm_y2,
                x: self.ifm_x2,
                group: self.ifm_group2,
            },
            IfmRead {
                read: self.ifm_read3,
                y: self.ifm_y3,
                x: self.ifm_x3,
                group: self.ifm_group3,
            },
        ]
    }
}

impl ConvDatapath {
    /// The four ports' requests for the tap `taps` (the `ifm_*` outputs).
    pub(super) fn ifm_reads(&self, taps: &Taps) -> [IfmRead; 4] {
        // A packed block's reads come from the walk (four elements of their own rows and columns).
        let packed = taps.packed_block.then(|| self.walk.dw.reads(&taps.shape, self.walk.origin_y, self.walk.origin_x));
        let read = |p: usize| match packed {
            Some(r) => IfmRead {
                read: taps.issue && r[p].read,
                y: (r[p].y.wrapping_sub(8) & 0xFFF) as u16,
                x: (r[p].x.wrapping_sub(8) & 0xFFF) as u16,
                group: taps.group as u16,
            },
            None => IfmRead {
                read: taps.issue && taps.pad >> p & 1 == 0,
                y: taps.ifm[p].0 as u16,
                x: taps.ifm[p].1 as u16,
                group: taps.group as u16,
            },
        };
        [read(0), read(1), read(2), read(3)]
    }
}
