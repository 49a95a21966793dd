//! The reference executor's NPU_OP_DMA_START (TRM §4.6, registers 0x030-0x034; digest
//! §3.2-§3.3): copies between external regions in the 1D, 2D and 3D stride modes.
use super::{Exec, ExecError};

impl Exec<'_> {
    /// NPU_OP_DMA_START between external regions (digest §3.2-3.3, TRM 0x030-0x034): `LEN`
    /// bytes per inner (1D) transfer, `SIZE0` of them per 2D transfer, `SIZE1` 2D transfers
    /// in 3D mode. Each side walks its own stride mode (`*_REGION[10:9]`): 1D contiguous, 2D
    /// skipping `SKIP0` bytes after each inner transfer, 3D also `SKIP1` after each 2D
    /// transfer. Decision (the TRM says "byte distance to skip after each inner transfer"):
    /// a skip is the gap after a transfer's last byte, not the distance between starts.
    /// Vela's streams use 1D only; 2D/3D are checked on hand-built streams.
    pub(super) fn dma(&mut self) -> Result<(), ExecError> {
        let r = &self.op.registers;
        let (src, dst) = (r.param("NPU_SET_DMA0_SRC_REGION"), r.param("NPU_SET_DMA0_DST_REGION"));
        for (name, value) in [("DMA0_SRC_REGION", src), ("DMA0_DST_REGION", dst)] {
            if value & 0x100 != 0 || value >> 9 > 2 {
                return self.unsupported(format!("{name} {value:#x} (internal memory or stride mode 3)"));
            }
        }
        let len = r.address("NPU_SET_DMA0_LEN");
        let (skip0, skip1) = (r.address("NPU_SET_DMA0_SKIP0"), r.address("NPU_SET_DMA0_SKIP1"));
        let mode = |region: u16| region >> 9;
        let widest = mode(src).max(mode(dst));
        let size0 = if widest >= 1 { u64::from(r.param("NPU_SET_DMA0_SIZE0")) } else { 1 };
        let size1 = if widest == 2 { u64::from(r.param("NPU_SET_DMA0_SIZE1")) } else { 1 };
        // Offset of inner transfer (i1, i0) on a side of `mode`.
        let row = |mode: u16, i1: u64, i0: u64| match mode {
            0 => (i1 * size0 + i0) * len,
            1 => (i1 * size0 + i0) * (len + skip0),
            _ => i1 * (size0 * (len + skip0) + skip1) + i0 * (len + skip0),
        };
        for i1 in 0..size1 {
            for i0 in 0..size0 {
                let from = self.range(src & 0xff, r.address("NPU_SET_DMA0_SRC") + row(mode(src), i1, i0), len)?;
                let to = self.range(dst & 0xff, r.address("NPU_SET_DMA0_DST") + row(mode(dst), i1, i0), len)?;
                self.memory.bytes.copy_within(from, to.start);
            }
        }
        if widest > 0 {
            self.seen.push(if widest == 1 { "dma 2d" } else { "dma 3d" });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cmd0, cmd1};
    use super::super::*;

    /// A DMA from region 0 to region 1 with the given stride modes, sizes and skips, over a
    /// memory whose region 0 holds 0, 1, 2, ... and region 1 (at 256) zeros.
    fn dma(src_mode: u16, dst_mode: u16, len: u32, size0: u16, size1: u16, skip0: u32, skip1: u32) -> Result<Vec<u8>, ExecError> {
        let stream: Vec<u32> = [
            cmd0("NPU_SET_DMA0_SRC_REGION", src_mode << 9),
            cmd0("NPU_SET_DMA0_DST_REGION", 1 | dst_mode << 9),
            cmd1("NPU_SET_DMA0_SRC", 4),
            cmd1("NPU_SET_DMA0_DST", 0),
            cmd1("NPU_SET_DMA0_LEN", len),
            cmd0("NPU_SET_DMA0_SIZE0", size0),
            cmd0("NPU_SET_DMA0_SIZE1", size1),
            cmd1("NPU_SET_DMA0_SKIP0", skip0),
            cmd1("NPU_SET_DMA0_SKIP1", skip1),
            cmd0("NPU_OP_DMA_START", 0),
            cmd0("NPU_OP_STOP", 0xffff),
        ]
        .concat();
        let mut memory = Memory { bytes: (0..=255).chain([0; 64]).collect(), base: [0, 256, 0, 0, 0, 0, 0, 0] };
        run_stream(&stream, &mut memory)?;
        Ok(memory.bytes[256..].to_vec())
    }

    #[test]
    fn dma_walks_each_side_in_its_stride_mode() {
        // 1D: 6 contiguous bytes from byte 4.
        assert_eq!(dma(0, 0, 6, 9, 9, 99, 99).unwrap()[..8], [4, 5, 6, 7, 8, 9, 0, 0]);
        // 2D source, 1D destination: 3 rows of 2 bytes, 3 skipped after each: a gather.
        assert_eq!(dma(1, 0, 2, 3, 9, 3, 99).unwrap()[..8], [4, 5, 9, 10, 14, 15, 0, 0]);
        // 1D source, 2D destination: the scatter back.
        assert_eq!(dma(0, 1, 2, 3, 9, 1, 99).unwrap()[..9], [4, 5, 0, 6, 7, 0, 8, 9, 0]);
        // 3D source: 2 blocks of 2 rows of 1 byte, skip 1 after a row and 10 after a block.
        assert_eq!(dma(2, 0, 1, 2, 2, 1, 10).unwrap()[..5], [4, 6, 18, 20, 0]);
        // Internal memory and stride mode 3 are refused with the DMA's offset (after 5 cmd1
        // and 4 cmd0 settings: word 14).
        let offset = 4 * (5 * 2 + 4);
        assert!(matches!(dma(3, 0, 1, 1, 1, 0, 0), Err(ExecError::Unsupported { offset: o, .. }) if o == offset));
        // A transfer running beyond the memory: its destination (region 1) first.
        assert!(matches!(dma(1, 0, 2, 200, 1, 3, 0), Err(ExecError::Access { offset: o, region: 1, .. }) if o == offset));
    }
}
