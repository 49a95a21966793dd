//! NVDLA's direct convolution (seeds/001, "Convolution core"): the plain reference
//! (`nvdla_bench::conv_reference`) on hand-worked layers, and on NVIDIA's nine dc traces,
//! whose CRCs it must reproduce (this fixes the memory layouts and the choices seeds/001
//! leaves open: docs/nvdla.md, "Direct convolution").
mod nvdla_bench;
use npu::nvdla::trace::{Command, Trace};
use nvdla_bench::conv_reference::{play_trace, Conv, InputConverter, Programmed};
use nvdla_bench::sdp_reference::reference_round;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// NVIDIA's direct-convolution traces.
const DC_TRACES: [&str; 9] = [
    "dc_13x15x64_5x3x64x16_int8_0",
    "dc_1x1x8_1x1x8x1_int8_0",
    "dc_24x44x14_5x3x14x41_int8_0",
    "dc_32x26x76_6x3x76x16_int8_0",
    "dc_35x22x54_6x8x54x29_int8_0",
    "dc_4x1x8192_1x1x8192x1_int8_0",
    "dc_6x8x192_3x3x192x32_int8_0",
    "dc_8192x1x1_2x3x1x41_int8_0",
    "dc_8x16x128_3x3x128x32_int8",
];

fn traces_dir() -> PathBuf {
    let dir = npu::nvdla::shared_folder("NVDLA_TRACES", "traces", std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(dir.is_dir(), "NVIDIA's traces are not at {} (set NVDLA_TRACES to their folder)", dir.display());
    dir
}

/// The reference on each dc trace's registers and initial memory gives the output the trace's
/// CRC expects. Also counted: the cases the traces cover (asserted, so that a changed trace
/// set cannot silently drop one) and how many outputs saturate, in CACC (int32) and in SDP's
/// converter (int8).
#[test]
fn the_plain_reference_reproduces_every_dc_trace() {
    let (mut failed, mut covered) = (Vec::new(), BTreeSet::new());
    for name in DC_TRACES {
        let trace = Trace::load(&traces_dir().join(name)).unwrap_or_else(|e| panic!("{e}"));
        let mut seen = BTreeSet::new();
        let (memory, conv, sums) = play_trace(&trace, &mut seen);
        let cacc_saturated = sums.iter().filter(|&&s| i128::from(conv.truncate(s)) != reference_round(i128::from(s), conv.clip_truncate, 64)).count();
        let sdp = Programmed::from_trace(&trace).sdp();
        let sdp_saturated = sums.iter().filter(|&&s| matches!(sdp.lane(conv.truncate(s), &mut seen), -128 | 127)).count();
        for (case, met) in [
            ("stride", conv.stride != (1, 1)),
            ("dilation", conv.dilation != (1, 1)),
            ("padding", conv.pad_left + conv.pad_top > 0),
            ("kernel 6 x 8", (conv.kernel_width, conv.kernel_height) == (6, 8)),
            ("partial channel block", conv.channels % 8 != 0),
            ("partial kernel group", conv.kernels % 8 != 0),
            ("8192 channels", conv.channels == 8192),
            ("cdma converter", conv.converter.is_some()),
            ("cacc truncation", conv.clip_truncate > 0),
        ] {
            if met {
                covered.insert(case);
            }
        }
        for (_, command) in &trace.commands {
            if let Command::CheckCrc { address, size, crc, .. } = command {
                let got = memory.crc32(*address, *size);
                eprintln!("{name}: crc expected {crc:#010x} got {got:#010x}; of {} outputs {cacc_saturated} saturate in CACC, {sdp_saturated} in SDP's converter; {conv:?}", sums.len());
                if got != *crc {
                    failed.push(name);
                }
            }
        }
    }
    assert!(failed.is_empty(), "the plain reference does not reproduce {failed:?}");
    assert_eq!(covered.len(), 9, "cases covered: {covered:?}");
}

/// A layer of one input channel and one kernel, 3 x 3 input holding 1..9 (row by row).
fn small(kernel: (usize, usize), stride: (usize, usize), dilation: (usize, usize), pad: (usize, usize), out: (usize, usize)) -> Conv {
    Conv {
        width: 3,
        height: 3,
        channels: 1,
        kernel_width: kernel.0,
        kernel_height: kernel.1,
        kernels: 1,
        stride,
        dilation,
        pad_left: pad.0,
        pad_top: pad.1,
        out_width: out.0,
        out_height: out.1,
        pad_value: -1,
        converter: None,
        clip_truncate: 0,
    }
}

/// Outputs worked by hand: plain, strided with padding (the value -1 in every padded
/// position), dilated.
#[test]
fn hand_worked_convolutions() {
    let input: Vec<i8> = (1..=9).collect();
    let weights = [1, 2, 3, 4];
    // 1*1 + 2*2 + 4*3 + 5*4 = 37, then 47, 67, 77.
    assert_eq!(small((2, 2), (1, 1), (1, 1), (0, 0), (2, 2)).output(&input, &weights), [37, 47, 67, 77]);
    // Stride 2, padding 1 left and top: (0,0) = -1 - 2 - 3 + 1*4 = -2; (1,0) = -1 - 2 + 2*3 +
    // 3*4 = 15; (0,1) = -1 + 4*2 - 3 + 7*4 = 32; (1,1) = 5 + 12 + 24 + 36 = 77.
    assert_eq!(small((2, 2), (2, 2), (1, 1), (1, 1), (2, 2)).output(&input, &weights), [-2, 15, 32, 77]);
    // Dilation 2: the corners 1, 3, 7, 9: 1 + 6 + 21 + 36 = 64.
    assert_eq!(small((2, 2), (1, 1), (2, 2), (0, 0), (1, 1)).output(&input, &weights), [64]);
    // The padding reaches right and bottom too: output 2 x 1 of a 3-wide input with stride
    // 2: (1,0) covers x = 2, 3 (3 outside): 3*1 + (-1)*2 + 6*3 + (-1)*4 = 15.
    assert_eq!(small((2, 2), (2, 1), (1, 1), (0, 0), (2, 1)).output(&input, &weights), [37, 15]);
}

/// CACC's truncation rounds half away from zero and saturates to int32; CDMA's converter
/// rounds the same way and saturates to int8 (hand-worked).
#[test]
fn cacc_truncation_and_cdma_converter_by_hand() {
    let mut conv = small((1, 1), (1, 1), (1, 1), (0, 0), (3, 3));
    conv.clip_truncate = 1;
    assert_eq!([5, -5, -4, 4, 3].map(|s| conv.truncate(s)), [3, -3, -2, 2, 2]);
    conv.clip_truncate = 2;
    assert_eq!([6, 5, -6, -5].map(|s| conv.truncate(s)), [2, 1, -2, -1]);
    conv.clip_truncate = 0;
    assert_eq!([1 << 40, -(1 << 40), 7].map(|s| conv.truncate(s)), [i32::MAX, i32::MIN, 7]);
    let cvt = InputConverter { offset: 10, scale: 3, truncate: 1 };
    // (20-10)*3/2 = 15; (-128-10)*3/2 = -207 -> -128; 3/2 = 1.5 -> 2; -3/2 -> -2; 127: 175.5 -> 127.
    assert_eq!([20, -128, 11, 9, 127].map(|x| cvt.apply(x)), [15, -128, 2, -2, 127]);
    // The converter applies to the cube, not to the padding value.
    let mut conv = small((1, 1), (1, 1), (1, 1), (1, 0), (2, 1));
    conv.converter = Some(InputConverter { offset: 0, scale: 2, truncate: 0 });
    assert_eq!(conv.output(&[5, 0, 0, 0, 0, 0, 0, 0, 0], &[1]), [-1, 10]);
}

/// The weight layout: hand-worked offsets in a layer of 9 kernels of 1 x 2 x 10 (a partial
/// kernel group and a partial channel block), and for several shapes every weight at its own
/// byte, the bytes exactly K*R*S*C.
#[test]
fn weight_layout_by_hand_and_packed() {
    let mut conv = small((2, 1), (1, 1), (1, 1), (0, 0), (2, 3));
    (conv.channels, conv.kernels) = (10, 9);
    // Kernel 3, tap s=1, channel 2: group 0, block 0 (8 kernels x 8 channels a tap): 1*64 + 3*8 + 2.
    assert_eq!(conv.weight_offset(3, 0, 1, 2), 90);
    // Kernel 0, tap 0, channel 8: block 1 starts after block 0's 2 taps x 8 kernels x 8 bytes.
    assert_eq!(conv.weight_offset(0, 0, 0, 8), 128);
    // Kernel 8 (group 1, one kernel), tap 1, channel 9: 2*10*8 + 8*2*1 + 1*2*1 + 1 = 179, the last byte.
    assert_eq!(conv.weight_offset(8, 0, 1, 9), 179);
    for (kw, kh, c, k) in [(2, 1, 10, 9), (3, 3, 8, 8), (1, 1, 19, 3), (5, 2, 7, 17), (1, 3, 16, 24)] {
        let mut conv = small((kw, kh), (1, 1), (1, 1), (0, 0), (1, 1));
        (conv.channels, conv.kernels) = (c, k);
        let mut offsets: Vec<usize> = (0..k).flat_map(|k| (0..kh).flat_map(move |r| (0..kw).flat_map(move |s| (0..c).map(move |c| (k, r, s, c))))).map(|(k, r, s, c)| conv.weight_offset(k, r, s, c)).collect();
        offsets.sort_unstable();
        assert!(offsets.iter().enumerate().all(|(i, &o)| i == o), "{kw}x{kh}x{c}x{k}: the layout is not a packing");
    }
}
