//! The reference executor's NPU_OP_POOL (TRM §4.6; digest §2.2, §3.2): max and average over
//! the kernel's taps inside the IFM, with the nearest-neighbour IFM upscale.
use super::{Exec, ExecError};
use npu_model::ethos::output_unit::apply_scale;

impl Exec<'_> {
    pub(super) fn pool(&mut self, max: bool) -> Result<(), ExecError> {
        let (ifm, ofm) = (self.map("IFM")?, self.map("OFM")?);
        let nearest = self.upscale(Some((1, "ifm upscale nearest")))?;
        // With the nearest upscale the kernel walks the IFM upscaled 2x2 (the extent and the
        // padding are the upscaled map's, TRM 0x100: "pad applied after upscale"); upscaled
        // element (iy, ix) is IFM element (iy / 2, ix / 2).
        let up = |v: i64| if nearest { v >> 1 } else { v };
        let extent = self.ifm_extent(&ofm.fm);
        let params = self.output_params(ofm.fm.zero_point)?;
        let padded = self.op.padding().iter().any(|&p| p != 0);
        for y in 0..i64::from(ofm.fm.height) {
            for x in 0..i64::from(ofm.fm.width) {
                let taps = self.taps(extent, y, x);
                for c in 0..i64::from(ofm.fm.depth) {
                    let values = taps.iter().map(|&(_, iy, ix)| Ok(self.read(&ifm, up(iy), up(ix), c)? - ifm.fm.zero_point)).collect::<Result<Vec<i32>, ExecError>>()?;
                    let r = if max {
                        i128::from(*values.iter().max().unwrap_or(&0))
                    } else {
                        let sum: i64 = values.iter().map(|&v| i64::from(v)).sum();
                        if padded {
                            i128::from(npu_model::ethos::elementwise::average_over_padding(sum, values.len() as i64))
                        } else {
                            apply_scale(sum, params.scale, params.shift, params.rounding)
                        }
                    };
                    self.store(&ofm, &params, (y, x, c), r + i128::from(params.ofm_zero_point))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cmd0, cmd1};
    use super::super::*;

    /// A 2x3x2 NHWC IFM at 0 pooled into a (2·2)x(2·3)x2 OFM at 100 over the IFM upscaled
    /// 2x2 by nearest neighbour (IFM_UPSCALE `mode`), with `kernel` and pad bottom/right `pad`.
    fn upscaled_pool(mode: u16, max: bool, kernel: u16, pad: u16) -> Result<(Vec<Executed>, Vec<i8>), ExecError> {
        let stream: Vec<u32> = [
            cmd0("NPU_SET_IFM_REGION", 0),
            cmd0("NPU_SET_IFM_HEIGHT0_M1", 1),
            cmd0("NPU_SET_IFM_HEIGHT1_M1", 1),
            cmd0("NPU_SET_IFM_WIDTH0_M1", 2),
            cmd0("NPU_SET_IFM_DEPTH_M1", 1),
            cmd1("NPU_SET_IFM_STRIDE_X", 2),
            cmd1("NPU_SET_IFM_STRIDE_Y", 6),
            cmd1("NPU_SET_IFM_STRIDE_C", 1),
            cmd0("NPU_SET_IFM_PRECISION", 1),
            cmd0("NPU_SET_IFM_UPSCALE", mode),
            cmd0("NPU_SET_IFM_PAD_BOTTOM", pad),
            cmd0("NPU_SET_IFM_PAD_RIGHT", pad),
            cmd0("NPU_SET_KERNEL_HEIGHT_M1", kernel - 1),
            cmd0("NPU_SET_KERNEL_WIDTH_M1", kernel - 1),
            cmd0("NPU_SET_OFM_REGION", 0),
            cmd1("NPU_SET_OFM_BASE0", 100),
            cmd0("NPU_SET_OFM_HEIGHT_M1", 3),
            cmd0("NPU_SET_OFM_WIDTH_M1", 5),
            cmd0("NPU_SET_OFM_DEPTH_M1", 1),
            cmd0("NPU_SET_OFM_HEIGHT0_M1", 3),
            cmd0("NPU_SET_OFM_HEIGHT1_M1", 3),
            cmd0("NPU_SET_OFM_WIDTH0_M1", 5),
            cmd1("NPU_SET_OFM_STRIDE_X", 2),
            cmd1("NPU_SET_OFM_STRIDE_Y", 12),
            cmd1("NPU_SET_OFM_STRIDE_C", 1),
            cmd0("NPU_SET_OFM_PRECISION", 1),
            cmd0("NPU_SET_ACTIVATION_MIN", -128i16 as u16),
            cmd0("NPU_SET_ACTIVATION_MAX", 127),
            cmd0("NPU_OP_POOL", u16::from(!max)),
            cmd0("NPU_OP_STOP", 0xffff),
        ]
        .concat();
        let mut memory = Memory { bytes: vec![0; 200], base: [0; 8] };
        let ifm: [i8; 12] = [-100, 7, 50, -3, 9, 90, 11, -128, 127, 0, -1, 33];
        memory.bytes[..12].copy_from_slice(&ifm.map(|v| v as u8));
        let done = run_stream(&stream, &mut memory)?;
        Ok((done, memory.bytes[100..148].iter().map(|&b| b as i8).collect()))
    }

    /// IFM_UPSCALE 1 (TRM 0x107: 2x2 nearest): a 1x1 pool copies IFM (y / 2, x / 2) to every
    /// OFM (y, x); a 2x2 average padded right and bottom by 1 (Vela's RESIZE_BILINEAR) gives the
    /// mean of the IFM elements under the window inside the upscaled map, rounded half away
    /// from zero; IFM_UPSCALE 2 (zero insertion) and 3 (reserved) are refused on a POOL.
    #[test]
    fn pool_reads_the_ifm_upscaled_by_nearest_neighbour() {
        let ifm = |y: usize, x: usize, c: usize| [-100i32, 7, 50, -3, 9, 90, 11, -128, 127, 0, -1, 33][y * 6 + x * 2 + c];
        let (done, ofm) = upscaled_pool(1, true, 1, 0).unwrap();
        assert!(done[0].seen.contains(&"ifm upscale nearest"));
        for (y, x, c) in (0..4).flat_map(|y| (0..6).flat_map(move |x| (0..2).map(move |c| (y, x, c)))) {
            assert_eq!(i32::from(ofm[y * 12 + x * 2 + c]), ifm(y / 2, x / 2, c), "({y}, {x}, {c})");
        }
        let (_, ofm) = upscaled_pool(1, false, 2, 1).unwrap();
        for (y, x, c) in (0..4).flat_map(|y| (0..6).flat_map(move |x| (0..2).map(move |c| (y, x, c)))) {
            let mut taps = Vec::new();
            for (uy, ux) in [(y, x), (y, x + 1), (y + 1, x), (y + 1, x + 1)] {
                if uy < 4 && ux < 6 {
                    taps.push(f64::from(ifm(uy / 2, ux / 2, c)));
                }
            }
            let mean = taps.iter().sum::<f64>() / taps.len() as f64;
            assert_eq!(f64::from(ofm[y * 12 + x * 2 + c]), mean.round(), "({y}, {x}, {c}): {taps:?}");
        }
        for mode in [2, 3] {
            match upscaled_pool(mode, true, 1, 0) {
                Err(e @ ExecError::Unsupported { .. }) => assert!(e.to_string().contains(&format!("IFM_UPSCALE {mode}")), "{e}"),
                other => panic!("IFM_UPSCALE {mode}: {other:?}"),
            }
        }
    }
}
