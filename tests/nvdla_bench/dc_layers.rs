//! Random direct-convolution layers for the convolution tests (`nvdla_dc`, `nvdla_csc`): the
//! layer, its CSC and CDMA registers, and its feature cube and weights in memory.
use super::conv_reference::{Conv, CubeLayout};
use npu::model::nvdla::cbuf::BANK_ENTRIES;
use npu::model::nvdla::cdma::{CdmaLayer, Converter};
use npu::model::nvdla::csc::CscLayer;
use npu::nvdla::memory::Memory;
use rand::Rng;

/// A random layer: input up to 12 x 12 x 20, up to 20 kernels of up to 4 x 4, strides and
/// dilations 1-3, padding 0-3 on each side (the right and bottom padding give the output size).
pub fn random_layer(rng: &mut impl Rng) -> Conv {
    loop {
        let (kw, kh) = (rng.gen_range(1..=4), rng.gen_range(1..=4));
        let (w, h) = (rng.gen_range(1..=12usize), rng.gen_range(1..=12usize));
        let stride = (rng.gen_range(1..=3), rng.gen_range(1..=3));
        let dilation = if rng.gen_bool(0.6) { (1, 1) } else { (rng.gen_range(1..=3), rng.gen_range(1..=3)) };
        let pad = [0; 4].map(|_: usize| if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..=3) });
        let (ew, eh) = ((kw - 1) * dilation.0 + 1, (kh - 1) * dilation.1 + 1);
        let (sw, sh) = (w + pad[0] + pad[1], h + pad[2] + pad[3]);
        if ew > sw || eh > sh {
            continue;
        }
        return Conv {
            width: w,
            height: h,
            channels: rng.gen_range(1..=20),
            kernel_width: kw,
            kernel_height: kh,
            kernels: rng.gen_range(1..=20),
            stride,
            dilation,
            pad_left: pad[0],
            pad_top: pad[2],
            out_width: (sw - ew) / stride.0 + 1,
            out_height: (sh - eh) / stride.1 + 1,
            pad_value: rng.gen(),
            converter: None,
            clip_truncate: 0,
        };
    }
}

/// The CSC layer of a reference layer, its data banks just large enough.
pub fn csc_layer(c: &Conv) -> CscLayer {
    let mut layer = CscLayer {
        width: c.width,
        height: c.height,
        channels: c.channels,
        kernel_width: c.kernel_width,
        kernel_height: c.kernel_height,
        kernels: c.kernels,
        stride: c.stride,
        dilation: c.dilation,
        pad_left: c.pad_left,
        pad_top: c.pad_top,
        out_width: c.out_width,
        out_height: c.out_height,
        pad_value: c.pad_value,
        data_banks: 0,
    };
    layer.data_banks = layer.data_entries().div_ceil(BANK_ENTRIES);
    layer
}

/// The CDMA layer of a reference layer, its banks just large enough.
pub fn cdma_layer(c: &Conv, feature: CubeLayout, weight_base: u64) -> CdmaLayer {
    let csc = csc_layer(c);
    let converter = c.converter.map(|v| Converter { offset: v.offset, scale: v.scale, truncate: v.truncate });
    CdmaLayer { csc, feature_base: feature.base, line_stride: feature.line, surface_stride: feature.surface, weight_base, weight_banks: csc.weight_entries().div_ceil(BANK_ENTRIES), converter }
}

/// Random features and weights of layer `c` in memory, the cube with gaps between lines and
/// surfaces, the weights after it: (features [y][x][c], weights [k][r][s][c], memory, the
/// CDMA layer with its banks just large enough).
pub fn in_memory(c: &Conv, rng: &mut impl Rng) -> (Vec<i8>, Vec<i8>, Memory, CdmaLayer) {
    let input: Vec<i8> = (0..c.width * c.height * c.channels).map(|_| rng.gen()).collect();
    let weights: Vec<i8> = (0..c.kernels * c.kernel_width * c.kernel_height * c.channels).map(|_| rng.gen()).collect();
    let line = (c.width as u64 * 8).next_multiple_of(32) + 32 * rng.gen_range(0..2);
    let feature = CubeLayout { base: 0x1000_0000 + 8 * rng.gen_range(0..16), line, surface: line * c.height as u64 + 64 };
    let mut memory = Memory::default();
    for y in 0..c.height {
        for x in 0..c.width {
            for ch in 0..c.channels {
                memory.write(feature.address(x, y, ch), &[input[(y * c.width + x) * c.channels + ch] as u8]);
            }
        }
    }
    let weight_base = 0x2000_0000 + rng.gen_range(0..64);
    memory.write(weight_base, &c.weight_bytes(&weights));
    (input, weights, memory, cdma_layer(c, feature, weight_base))
}
