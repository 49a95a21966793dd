//! NVDLA's PDP (seeds/001 "Planar Data Processor", the PDP and PDP_RDMA RDL) on the Verilated
//! RTL in lock step with the model, the memory stalling: random pooling layers (cube sizes,
//! kernels, strides, padding and its values, each method, split-width registers, gaps in the
//! strides) programmed through the CSB into alternating register groups, some running beside
//! an SDP layer on the one memory port; every output byte is compared with a plain pooling
//! written here from the register descriptions, and the bytes between lines and surfaces
//! must stay untouched. `SEED` repeats a run, `CYCLES` sets the number of layers.
mod nvdla_bench;
use npu::cosim::lockstep::{Coverage, Lockstep, Run};
use npu::cosim::tops::nv_small::NvSmall as Rtl;
use npu::nvdla::memory::Memory;
use npu::nvdla::player::Bench;
use npu_hdl::nvdla::regmap;
use nvdla_bench::{address, assert_copied, read, start_copy, write};
use rand::Rng;

/// One pooling layer as the registers describe it (sizes as counts).
#[derive(Clone, Debug)]
struct Layer {
    width: usize,
    height: usize,
    channels: usize,
    kernel: (usize, usize),
    stride: (usize, usize),
    /// Left, top, right, bottom.
    pad: [usize; 4],
    method: u32,
    recip: (u32, u32),
    /// PAD_VALUE_1X ..= PAD_VALUE_7X as written (19-bit fields).
    pad_values: [u32; 7],
}

impl Layer {
    fn out_width(&self) -> usize {
        (self.width + self.pad[0] + self.pad[2] - self.kernel.0) / self.stride.0 + 1
    }

    fn out_height(&self) -> usize {
        (self.height + self.pad[1] + self.pad[3] - self.kernel.1) / self.stride.1 + 1
    }

    /// PAD_VALUE_<n>X as the RDL's 19-bit field carries it, read as the signed value of its
    /// low bits up to the sign bit NVDLA uses for n (7, 8, 9, 9, 10, 10, 10: the value n
    /// times an int8 needs one more bit per doubling of n).
    fn pad_value(&self, n: usize) -> i64 {
        if n == 0 || n > 7 {
            return 0;
        }
        let sign = [7, 8, 9, 9, 10, 10, 10][n - 1];
        let v = i64::from(self.pad_values[n - 1]) & ((2 << sign) - 1);
        if v >> sign & 1 == 1 { v - (2 << sign) } else { v }
    }
}

/// The pooled value of one output element of one channel, written from the register
/// descriptions: max or min of the window's elements in the cube (padding not counted; -128
/// or 127 for a window without any); average: the elements' sum, plus for every cube line in
/// the window the padding value of its padded columns, plus kernel-width times the padding
/// value of the padded lines, times RECIP_KERNEL_WIDTH / 2^16 and rounded, times
/// RECIP_KERNEL_HEIGHT / 2^16 and rounded (half away from zero), its low byte.
fn reference(l: &Layer, cube: &dyn Fn(usize, usize) -> i8, ox: usize, oy: usize) -> u8 {
    let x0 = (ox * l.stride.0) as i64 - l.pad[0] as i64;
    let y0 = (oy * l.stride.1) as i64 - l.pad[1] as i64;
    let xs: Vec<i64> = (x0..x0 + l.kernel.0 as i64).filter(|&x| (0..l.width as i64).contains(&x)).collect();
    let ys: Vec<i64> = (y0..y0 + l.kernel.1 as i64).filter(|&y| (0..l.height as i64).contains(&y)).collect();
    let values: Vec<i64> = ys.iter().flat_map(|&y| xs.iter().map(move |&x| (x, y))).map(|(x, y)| i64::from(cube(x as usize, y as usize))).collect();
    match l.method {
        1 => values.iter().copied().max().unwrap_or(-128) as u8,
        2 => values.iter().copied().min().unwrap_or(127) as u8,
        _ => {
            let sum = values.iter().sum::<i64>()
                + ys.len() as i64 * l.pad_value(l.kernel.0 - xs.len())
                + l.kernel.0 as i64 * l.pad_value(l.kernel.1 - ys.len());
            let across = (sum as f64 * f64::from(l.recip.0) / 65536.0).round();
            (across * f64::from(l.recip.1) / 65536.0).round() as i64 as u8
        }
    }
}

fn random_layer(rng: &mut impl Rng) -> Layer {
    let kernel: (usize, usize) = (rng.gen_range(1..=8), rng.gen_range(1..=8));
    let stride: (usize, usize) = (if rng.gen_bool(0.1) { 16 } else { rng.gen_range(1..=8) }, rng.gen_range(1..=8));
    // Padding below the kernel size on each side keeps a cube element in every window.
    let mut pad = [0; 4];
    for (k, p) in pad.iter_mut().enumerate() {
        let size = if k % 2 == 0 { kernel.0 } else { kernel.1 };
        *p = if rng.gen_bool(0.4) { 0 } else { rng.gen_range(0..size.min(8)) };
    }
    let width = rng.gen_range(kernel.0.saturating_sub(pad[0] + pad[2]).max(1)..=12);
    let height = rng.gen_range(kernel.1.saturating_sub(pad[1] + pad[3]).max(1)..=8);
    let method = rng.gen_range(0..3);
    let recip_of = |k: usize, rng: &mut dyn rand::RngCore| if rng.gen_bool(0.8) { (65536.0 / k as f64).round() as u32 } else { rng.gen_range(0..1 << 17) };
    let recip = (recip_of(kernel.0, rng), recip_of(kernel.1, rng));
    let base: i8 = rng.gen();
    let pad_values = std::array::from_fn(|n| if rng.gen_bool(0.7) { ((n as i32 + 1) * i32::from(base)) as u32 & 0x7ffff } else { rng.gen_range(0..1 << 19) });
    Layer { width, height, channels: rng.gen_range(1..=20), kernel, stride, pad, method, recip, pad_values }
}

#[test]
fn random_pdp_layers_match_a_plain_pooling() {
    let run = Run::from_env("random_pdp_layers_match_a_plain_pooling", 120);
    let mut rng = run.rng();
    let mut seen = std::collections::BTreeMap::<&str, u32>::new();
    let mut pair = Lockstep::<Rtl>::open(&run);
    let mut step = |i: &npu::model::nvdla::nv_small::In| pair.step(i).unwrap_or_else(|m| panic!("{m}"));
    let mut b = Bench::new(&mut step, Memory::default(), Some(run.seed));
    let (intr, pdp_done) = (address("GLB", "S_INTR_STATUS"), |g: u32| regmap::field("GLB", "S_INTR_STATUS", ["PDP_DONE_STATUS0", "PDP_DONE_STATUS1"][g as usize]).mask());
    let sdp_done = regmap::field("GLB", "S_INTR_STATUS", "SDP_DONE_STATUS0").mask() | regmap::field("GLB", "S_INTR_STATUS", "SDP_DONE_STATUS1").mask();
    let mut sdp_group = 0;
    for number in 0..run.cycles {
        let l = random_layer(&mut rng);
        let group = (number % 2) as u32;
        let surfaces = l.channels.div_ceil(8);
        let (ow, oh) = (l.out_width(), l.out_height());
        let (src_line, dst_line) = (8 * l.width + 8 * rng.gen_range(0..3), 8 * ow + 8 * rng.gen_range(0..3));
        let (src_surface, dst_surface) = (src_line * l.height + 8 * rng.gen_range(0..3), dst_line * oh + 8 * rng.gen_range(0..3));
        let src = 0x10_0000 * (number + 1) + 8 * rng.gen_range(0..16);
        let dst = src + 0x8_0000;
        let input: Vec<u8> = (0..src_surface * surfaces).map(|_| rng.gen()).collect();
        b.memory.write(src, &input);
        let fill = 0xa5;
        b.memory.write(dst, &vec![fill; dst_surface * surfaces]);
        let fields = |register: &str, values: &[(&str, u32)]| values.iter().fold(0, |v, &(f, x)| v | (x << regmap::field("PDP", register, f).lsb));
        let (kw, kh, sx, sy) = (l.kernel.0 as u32 - 1, l.kernel.1 as u32 - 1, l.stride.0 as u32 - 1, l.stride.1 as u32 - 1);
        let sizes = [("D_DATA_CUBE_IN_WIDTH", l.width as u32 - 1), ("D_DATA_CUBE_IN_HEIGHT", l.height as u32 - 1), ("D_DATA_CUBE_IN_CHANNEL", l.channels as u32 - 1)];
        // Split-width registers with values of their own: the engine pools the whole width.
        let split = rng.gen_range(0..4u32);
        let partial: u32 = rng.gen_range(0..1 << 30);
        let mut writes: Vec<(&str, String, u32)> = vec![
            ("PDP_RDMA", "D_SRC_BASE_ADDR_LOW".into(), src as u32),
            ("PDP_RDMA", "D_SRC_LINE_STRIDE".into(), src_line as u32),
            ("PDP_RDMA", "D_SRC_SURFACE_STRIDE".into(), src_surface as u32),
            ("PDP_RDMA", "D_FLYING_MODE".into(), 1),
            ("PDP_RDMA", "D_SRC_RAM_CFG".into(), 1),
            ("PDP_RDMA", "D_OPERATION_MODE_CFG".into(), split),
            ("PDP_RDMA", "D_PARTIAL_WIDTH_IN".into(), partial),
            ("PDP_RDMA", "D_POOLING_KERNEL_CFG".into(), kw | sx << 4),
            ("PDP", "D_DATA_CUBE_OUT_WIDTH".into(), ow as u32 - 1),
            ("PDP", "D_DATA_CUBE_OUT_HEIGHT".into(), oh as u32 - 1),
            ("PDP", "D_DATA_CUBE_OUT_CHANNEL".into(), l.channels as u32 - 1),
            ("PDP", "D_OPERATION_MODE_CFG".into(), fields("D_OPERATION_MODE_CFG", &[("POOLING_METHOD", l.method), ("FLYING_MODE", 1), ("SPLIT_NUM", split)])),
            ("PDP", "D_PARTIAL_WIDTH_IN".into(), partial),
            ("PDP", "D_POOLING_KERNEL_CFG".into(), fields("D_POOLING_KERNEL_CFG", &[("KERNEL_WIDTH", kw), ("KERNEL_HEIGHT", kh), ("KERNEL_STRIDE_WIDTH", sx), ("KERNEL_STRIDE_HEIGHT", sy)])),
            ("PDP", "D_POOLING_PADDING_CFG".into(), fields("D_POOLING_PADDING_CFG", &[("PAD_LEFT", l.pad[0] as u32), ("PAD_TOP", l.pad[1] as u32), ("PAD_RIGHT", l.pad[2] as u32), ("PAD_BOTTOM", l.pad[3] as u32)])),
            ("PDP", "D_RECIP_KERNEL_WIDTH".into(), l.recip.0),
            ("PDP", "D_RECIP_KERNEL_HEIGHT".into(), l.recip.1),
            ("PDP", "D_DST_BASE_ADDR_LOW".into(), dst as u32),
            ("PDP", "D_DST_LINE_STRIDE".into(), dst_line as u32),
            ("PDP", "D_DST_SURFACE_STRIDE".into(), dst_surface as u32),
            ("PDP", "D_DST_RAM_CFG".into(), 1),
        ];
        for (n, v) in l.pad_values.iter().enumerate() {
            writes.push(("PDP", format!("D_POOLING_PADDING_VALUE_{}_CFG", n + 1), *v));
        }
        for unit in ["PDP_RDMA", "PDP"] {
            write(&mut b, address(unit, "S_POINTER"), group);
            for (register, value) in sizes {
                write(&mut b, address(unit, register), value);
            }
        }
        for (unit, register, value) in &writes {
            write(&mut b, address(unit, register), *value);
        }
        // Every third layer shares the memory port with an SDP copy started just before.
        let beside = number % 3 == 0;
        let (sdp_src, sdp_dst, sdp_atoms) = (src + 0x4_0000, src + 0x6_0000, rng.gen_range(8..64u32));
        if beside {
            start_copy(&mut b, &mut rng, sdp_group, (sdp_src, sdp_dst), sdp_atoms);
            sdp_group ^= 1;
        }
        write(&mut b, address("PDP", "D_OP_ENABLE"), 1);
        write(&mut b, address("PDP_RDMA", "D_OP_ENABLE"), 1);
        let (mut pdp_seen, mut sdp_seen) = (false, !beside);
        while !(pdp_seen && sdp_seen) {
            assert!(b.wait_irq(), "layer {number}: no interrupt (SEED={}): {l:?}", run.seed);
            let pending = read(&mut b, intr);
            assert_eq!(pending & pdp_done(group ^ 1), 0, "layer {number}: the other group's PDP done bit");
            pdp_seen |= pending & pdp_done(group) != 0;
            sdp_seen |= pending & sdp_done != 0;
            write(&mut b, intr, pending);
        }
        if beside {
            assert_copied(&b, (sdp_src, sdp_dst), sdp_atoms, &format!("layer {number} (SEED={})", run.seed));
        }
        let input = &input;
        let cube = |s: usize, c: usize| move |x: usize, y: usize| input[s * src_surface + y * src_line + 8 * x + c] as i8;
        for s in 0..surfaces {
            for oy in 0..oh {
                for k in 0..dst_line {
                    let at = s * dst_surface + oy * dst_line + k;
                    let got = b.memory.read(dst + at as u64);
                    let expected = if k < 8 * ow { reference(&l, &cube(s, k % 8), k / 8, oy) } else { fill };
                    assert_eq!(got, expected, "layer {number}: surface {s}, output line {oy}, byte {k} (SEED={}): {l:?}", run.seed);
                }
            }
            for k in oh * dst_line..dst_surface {
                assert_eq!(b.memory.read(dst + (s * dst_surface + k) as u64), fill, "layer {number}: surface {s}'s gap, byte {k}");
            }
        }
        let method = ["average", "max", "min"][l.method as usize];
        *seen.entry(method).or_default() += 1;
        for (side, p) in ["pad left", "pad top", "pad right", "pad bottom"].iter().zip(l.pad) {
            *seen.entry(side).or_default() += u32::from(p > 0);
        }
        *seen.entry("kernel 8 wide").or_default() += u32::from(l.kernel.0 == 8);
        *seen.entry("stride above kernel").or_default() += u32::from(l.stride.0 > l.kernel.0);
        *seen.entry("beside SDP").or_default() += u32::from(beside);
        *seen.entry("group 1").or_default() += group;
    }
    drop(b);
    let coverage: Coverage = pair.coverage;
    eprintln!("SEED={} layers: {seen:?}\n{coverage}", run.seed);
    for what in ["average", "max", "min", "pad left", "pad top", "pad right", "pad bottom", "kernel 8 wide", "stride above kernel", "beside SDP", "group 1"] {
        assert!(seen.get(what).copied().unwrap_or(0) > 0, "no layer with {what} (SEED={}, CYCLES={})", run.seed, run.cycles);
    }
    coverage.require(&["pdp start", "pdp element read", "pdp element padded", "pdp atom", "pdp done", "sdp done", "read stall", "read wait", "write stall", "memory both asked"]);
}
