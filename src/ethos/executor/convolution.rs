//! The reference executor's NPU_OP_CONV and NPU_OP_DEPTHWISE (TRM §4.6 and §4.7; digest §1.9,
//! §2.2, §2.4): the weights from their compressed stream in the kernel's traversal order, the
//! 10-byte scale/bias records, and the convolution over the taps inside the IFM.
use super::{Exec, ExecError};
use crate::ethos::reorder::{reorder, ReorderParams, Traversal};
use npu_model::ethos::output_unit::apply_scale;

impl Exec<'_> {
    /// The bytes of the weight or scale stream.
    fn stream_bytes(&self, which: &str) -> Result<Vec<u8>, ExecError> {
        let (region, base, len) = self.op.stream(which);
        Ok(self.memory.bytes[self.range(region, base, len)?].to_vec())
    }

    /// The OHWI weights (depthwise: O,H,W,1) of the stripe, from its compressed stream.
    fn weights(&self, depthwise: bool, ifm_depth: usize, ofm_depth: usize) -> Result<Vec<i16>, ExecError> {
        let k = self.op.kernel();
        let params = ReorderParams {
            ofm_depth,
            kernel_height: usize::from(k.size.0),
            kernel_width: usize::from(k.size.1),
            ifm_depth: if depthwise { 1 } else { ifm_depth },
            ofm_block_depth: usize::from(self.op.registers.param("NPU_SET_OFM_BLK_DEPTH_M1")) + 1,
            kind: match (depthwise, k.part_kernel_first) {
                (true, _) => Traversal::Depthwise,
                (false, false) => Traversal::DepthFirst,
                (false, true) => Traversal::PartKernelFirst,
            },
            ifm_bitdepth: 8,
            dilation_x: k.dilation.1 as u8,
            dilation_y: k.dilation.0 as u8,
        };
        let error = |what: String| ExecError::Weights { offset: self.op.offset, what };
        let indices: Vec<Option<usize>> = (0..params.weights_len()).map(Some).collect();
        let order = reorder(&params, &indices).map_err(&error)?;
        let stream = self.stream_bytes("WEIGHT")?;
        let mut decoder = npu_model::ethos::weight_decoder::WeightDecoder::default();
        let decoded = crate::ethos::driver::decode(&stream, |i| npu_model::Block::step(&mut decoder, i));
        if decoded.outcome != crate::ethos::driver::Outcome::Done {
            return Err(error(format!("the weight stream: {}", decoded.outcome)));
        }
        if decoded.weights.len() != order.len() {
            return Err(error(format!("the weight stream holds {} weights, the kernel takes {}", decoded.weights.len(), order.len())));
        }
        let mut ohwi = vec![0; params.weights_len()];
        for (slot, w) in order.iter().zip(&decoded.weights) {
            if let Some(i) = slot {
                ohwi[*i] = *w;
            }
        }
        Ok(ohwi)
    }

    /// The 10-byte scale/bias records of the stripe's channels (Vela's `encode_bias`,
    /// digest §2.4): bias int40, scale uint32, shift 6 bits.
    fn scale_records(&self, channels: usize) -> Result<Vec<(i64, u32, u8)>, ExecError> {
        let bytes = self.stream_bytes("SCALE")?;
        if bytes.len() < 10 * channels {
            return Err(ExecError::Weights { offset: self.op.offset, what: format!("{} scale/bias bytes for {channels} channels", bytes.len()) });
        }
        Ok(bytes
            .chunks(10)
            .take(channels)
            .map(|r| {
                let mut bias = [0u8; 8];
                bias[..5].copy_from_slice(&r[..5]);
                let bias = (i64::from_le_bytes(bias) << 24) >> 24;
                (bias, u32::from_le_bytes(r[5..9].try_into().unwrap()), r[9] & 0x3f)
            })
            .collect())
    }

    pub(super) fn convolution(&mut self, depthwise: bool) -> Result<(), ExecError> {
        let (ifm, ofm) = (self.map("IFM")?, self.map("OFM")?);
        let allowed = if depthwise { (1, "ifm upscale nearest, depthwise") } else { (2, "ifm upscale zeros") };
        // Upscaled, the taps walk the IFM upscaled 2x2: element (iy, ix) is IFM (iy >> 1,
        // ix >> 1), or with zero insertion (a CONV's mode) 0 at an odd row or column.
        let upscaled = self.upscale(Some(allowed))?;
        let zeros = upscaled && !depthwise;
        let extent = self.ifm_extent(&ofm.fm);
        let (ifm_depth, ofm_depth) = (ifm.fm.depth as usize, ofm.fm.depth as usize);
        let weights = self.weights(depthwise, ifm_depth, ofm_depth)?;
        let records = self.scale_records(ofm_depth)?;
        let mut params = self.output_params(ofm.fm.zero_point)?;
        let k = self.op.kernel();
        let taps_per_channel = usize::from(k.size.0) * usize::from(k.size.1);
        for y in 0..i64::from(ofm.fm.height) {
            for x in 0..i64::from(ofm.fm.width) {
                let taps = self.taps(extent, y, x);
                let mut inputs = Vec::with_capacity(taps.len() * ifm_depth);
                for &(_, iy, ix) in &taps {
                    for c in 0..ifm_depth as i64 {
                        let (ry, rx) = if upscaled { (iy >> 1, ix >> 1) } else { (iy, ix) };
                        let inserted = zeros && (iy % 2 != 0 || ix % 2 != 0);
                        inputs.push(if inserted { 0 } else { self.read(&ifm, ry, rx, c)? - ifm.fm.zero_point });
                    }
                }
                for (o, &(bias, scale, shift)) in records.iter().enumerate() {
                    let mut acc = 0i64;
                    for (t, &(tap, _, _)) in taps.iter().enumerate() {
                        let row = &inputs[t * ifm_depth..(t + 1) * ifm_depth];
                        if depthwise {
                            acc += i64::from(weights[o * taps_per_channel + tap]) * i64::from(row[o]);
                        } else {
                            let w = &weights[(o * taps_per_channel + tap) * ifm_depth..][..ifm_depth];
                            acc += w.iter().zip(row).map(|(&w, &v)| i64::from(w) * i64::from(v)).sum::<i64>();
                        }
                    }
                    (params.bias, params.scale, params.shift) = (bias, scale, shift);
                    let r = apply_scale(acc + bias, scale, shift, params.rounding) + i128::from(params.ofm_zero_point);
                    self.store(&ofm, &params, (y, x, o as i64), r)?;
                }
            }
        }
        Ok(())
    }
}
