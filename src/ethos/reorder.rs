//! The order in which the Ethos-U65 weight decoder delivers a kernel's weights, that is the
//! 1-D sequence the encoder takes (`shared/spec/ethos-u65.md` §1.9, TRM §4.7.5). The loops
//! follow Vela's `reorder()` where the TRM's listing is inconsistent: y sub-kernels outside x
//! (FIX-3), 16-channel IFM blocks for part-kernel-first at both bit depths (FIX-4), `>=` in the
//! padding tests (FIX-5).

/// IFM and OFM micro-block depth of the U65 (Vela's `ofm_ublock = Block(2,2,8)`, §1.9).
pub const UBLOCK_DEPTH: usize = 8;
/// Largest sub-kernel side before dilation (Vela's `SubKernelMax` 8x8, §1.9).
pub const SUBKERNEL_MAX: usize = 8;

/// Block traversal of a kernel (`KERNEL_STRIDE` bit 2 for convolutions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Traversal {
    /// Depth-wise convolution: one IFM channel per OFM channel.
    Depthwise,
    /// Convolution, all IFM channels of a kernel element before the next element.
    DepthFirst,
    /// Convolution, all kernel elements of an IFM micro-block before the next micro-block.
    PartKernelFirst,
}

/// A kernel's shape (OHWI; depth-wise kernels are O,H,W,1 as Vela shapes them) and how the
/// NPU walks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReorderParams {
    pub ofm_depth: usize,
    pub kernel_height: usize,
    pub kernel_width: usize,
    pub ifm_depth: usize,
    /// OFM channels per block, walked in micro-blocks of 8. As in Vela (and the TRM), a depth
    /// that is not a multiple of 8 lets a block's last micro-block reach into the next block.
    pub ofm_block_depth: usize,
    pub kind: Traversal,
    /// 8 or 16.
    pub ifm_bitdepth: u8,
    /// 1 or 2.
    pub dilation_x: u8,
    /// 1 or 2.
    pub dilation_y: u8,
}

impl ReorderParams {
    /// Sub-kernel width: `SUBKERNEL_MAX / dilation_x`.
    pub fn decomp_w(&self) -> usize {
        SUBKERNEL_MAX / usize::from(self.dilation_x)
    }

    /// Sub-kernel height: `SUBKERNEL_MAX / dilation_y`.
    pub fn decomp_h(&self) -> usize {
        SUBKERNEL_MAX / usize::from(self.dilation_y)
    }

    /// Number of weights in the OHWI tensor.
    pub fn weights_len(&self) -> usize {
        self.ofm_depth * self.kernel_height * self.kernel_width * self.ifm_depth
    }

    /// Channels per IFM block: 32 for 8-bit depth-first, else 16 (FIX-4); 1 for depth-wise.
    fn ifm_block_depth(&self) -> usize {
        match self.kind {
            Traversal::Depthwise => 1,
            Traversal::DepthFirst if self.ifm_bitdepth == 8 => 32,
            _ => 16,
        }
    }

    fn check(&self) -> Result<(), String> {
        let sizes = [
            self.ofm_depth,
            self.kernel_height,
            self.kernel_width,
            self.ifm_depth,
            self.ofm_block_depth,
        ];
        if sizes.contains(&0) {
            return Err(format!("{self:?}: every size must be at least 1"));
        }
        if ![8, 16].contains(&self.ifm_bitdepth) {
            return Err(format!("ifm_bitdepth {} is not 8 or 16", self.ifm_bitdepth));
        }
        if ![1, 2].contains(&self.dilation_x) || ![1, 2].contains(&self.dilation_y) {
            return Err(format!(
                "dilation {}x{} is not 1 or 2 each",
                self.dilation_x, self.dilation_y
            ));
        }
        if self.kind == Traversal::Depthwise && self.ifm_depth != 1 {
            return Err(format!(
                "a depth-wise kernel is O,H,W,1; ifm_depth is {}",
                self.ifm_depth
            ));
        }
        Ok(())
    }
}

/// The weights of an OHWI kernel in decoder order (§1.9.1-1.9.3), `T::default()` (zero) in
/// the padding slots. Generic so that the executor can reorder the weights' indices and so
/// invert the order (`npu::ethos::executor`).
pub fn reorder<T: Copy + Default>(params: &ReorderParams, weights_ohwi: &[T]) -> Result<Vec<T>, String> {
    params.check()?;
    let p = params;
    if weights_ohwi.len() != p.weights_len() {
        return Err(format!(
            "{} weights given for an OHWI kernel of {}x{}x{}x{} = {}",
            weights_ohwi.len(),
            p.ofm_depth,
            p.kernel_height,
            p.kernel_width,
            p.ifm_depth,
            p.weights_len()
        ));
    }
    let weight = |ofm_z: usize, y: usize, x: usize, ifm_z: usize| {
        weights_ohwi[((ofm_z * p.kernel_height + y) * p.kernel_width + x) * p.ifm_depth + ifm_z]
    };
    let ifm_block_depth = p.ifm_block_depth();
    // IFM lanes of one micro-block: depth-wise kernels have a single IFM channel.
    let ifm_lanes = if p.kind == Traversal::Depthwise {
        1
    } else {
        UBLOCK_DEPTH
    };
    let mut out = Vec::new();
    for blk_z in (0..p.ofm_depth).step_by(p.ofm_block_depth) {
        let blk_d = p.ofm_block_depth.min(p.ofm_depth - blk_z);
        for iblk_z in (0..p.ifm_depth).step_by(ifm_block_depth) {
            for sy in (0..p.kernel_height).step_by(p.decomp_h()) {
                for sx in (0..p.kernel_width).step_by(p.decomp_w()) {
                    let sub_w = (p.kernel_width - sx).min(p.decomp_w());
                    let sub_h = (p.kernel_height - sy).min(p.decomp_h());
                    let elements = match (p.kind, p.ifm_bitdepth) {
                        (Traversal::DepthFirst, _) => sub_w * sub_h,
                        (Traversal::PartKernelFirst, 16) => (sub_w * sub_h).next_multiple_of(2),
                        _ => (sub_w * sub_h).next_multiple_of(4),
                    };
                    // IFM micro-blocks: part-kernel-first walks them outside the OFM micro-blocks
                    // (only those holding channels), depth-first inside each kernel element
                    // (the whole block, zero-padded).
                    let (outer, inner) = match p.kind {
                        Traversal::Depthwise => (0..1, 0..1),
                        Traversal::DepthFirst => (0..1, 0..ifm_block_depth),
                        Traversal::PartKernelFirst => {
                            (0..ifm_block_depth.min(p.ifm_depth - iblk_z), 0..1)
                        }
                    };
                    for iublk_outer in outer.step_by(UBLOCK_DEPTH) {
                        for ublk_z in (0..blk_d).step_by(UBLOCK_DEPTH) {
                            for e in 0..elements {
                                let (kx, ky) = (e % sub_w, e / sub_w);
                                for iublk_inner in inner.clone().step_by(UBLOCK_DEPTH) {
                                    for z in 0..UBLOCK_DEPTH {
                                        for iz in 0..ifm_lanes {
                                            let ifm_z = iblk_z + iublk_outer + iublk_inner + iz;
                                            let ofm_z = blk_z + ublk_z + z;
                                            let inside = ky < sub_h
                                                && ifm_z < p.ifm_depth
                                                && ofm_z < p.ofm_depth;
                                            out.push(if inside {
                                                weight(ofm_z, sy + ky, sx + kx, ifm_z)
                                            } else {
                                                T::default()
                                            });
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}
