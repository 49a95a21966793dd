//! NVDLA's CDP (seeds/001 "Channel Data Processor", the CDP and CDP_RDMA RDL) on the Verilated
//! RTL in lock step with the model, the memory stalling: random local response normalization
//! layers (cube sizes, channel counts not a multiple of 8, each NORMALZ_LEN, the multiply on
//! and bypassed, gaps in the strides, DATIN_OFFSET) programmed through the CSB into
//! alternating register groups, with a random LO table filled through the LUT access port,
//! some layers beside an SDP copy on the one memory port. Every output byte is compared with
//! a plain LRN written here from the register descriptions, and the bytes between lines and
//! surfaces must stay untouched. `SEED` repeats a run, `CYCLES` sets the number of layers.
//!
//! The LUT program keeps the reference plain: the LE table is linear and starts above every
//! sum (never hit), the LO table is linear from 0 with index select 0, so a sum s reads LO
//! entry s, LO wins underflow; the
//! converters have scale 1 and shift 0. Most layers keep their sums below 256 (inputs within
//! 5 of DATIN_OFFSET); a wide layer (inputs within 15) also overflows LO (a sum of 256 or
//! more: LO's last entry plus (sum - 256) times LO's overflow slope -1, shift 0, a negative
//! slope value; LE under and LO over is a hybrid, which HYBRID_PRIORITY 1 gives to LO).
//! Layer n reads from 0x10_0000 * (n + 1): from the 32nd on, the addresses have bit 25 set. The LUT arithmetic itself (exponent tables,
//! interpolation, slopes, priorities) is the datapath's and is tested with it.
mod nvdla_bench;
use npu::cosim::lockstep::{Coverage, Lockstep, Run};
use npu::cosim::tops::nv_small::NvSmall as Rtl;
use npu::nvdla::memory::Memory;
use npu::nvdla::player::Bench;
use npu_hdl::nvdla::regmap;
use nvdla_bench::{address, assert_copied, read, start_copy, write};
use rand::Rng;

/// One LRN layer as the registers describe it (sizes as counts).
#[derive(Clone, Debug)]
struct Layer {
    width: usize,
    height: usize,
    channels: usize,
    /// D_LRN_CFG.NORMALZ_LEN: 0..=3 for 3, 5, 7, 9 channels.
    normalz_len: u32,
    mul_bypass: bool,
    datin_offset: i8,
    /// Inputs within 15 of DATIN_OFFSET (else 5): sums up to 9 * 225, past LO's end.
    wide: bool,
}

/// Output channel c at one (x, y): with d(k) = channel k minus DATIN_OFFSET (0 for a channel
/// outside the cube, which CDP fills with DATIN_OFFSET), the sum of d^2 over the
/// 2 * NORMALZ_LEN + 3 channels centred on c indexes the LO table; the entry, times d(c)
/// unless MUL_BYPASS, saturated to int8. Channels past the cube in the last surface are
/// computed the same way (they are written).
fn reference(l: &Layer, lo: &[i16], d: &dyn Fn(i64) -> i64, c: i64) -> u8 {
    let sum = square_sum(l, d, c);
    // LO's overflow (index sum >= 256 = N - 1): entry 256 + (sum - END) * -1, END 256.
    let entry = if sum >= 256 { i64::from(lo[256]) - (sum - 256) } else { i64::from(lo[sum as usize]) };
    let value = if l.mul_bypass { entry } else { entry * d(c) };
    value.clamp(-128, 127) as i8 as u8
}

/// The sum of d^2 over the channels centred on c (the LO table's index).
fn square_sum(l: &Layer, d: &dyn Fn(i64) -> i64, c: i64) -> i64 {
    let half = i64::from(l.normalz_len) + 1;
    (c - half..=c + half).map(|k| d(k) * d(k)).sum()
}

fn random_layer(rng: &mut impl Rng) -> Layer {
    let channels = if rng.gen_bool(0.3) { 8 * rng.gen_range(1..=4) } else { rng.gen_range(1..=40) };
    Layer {
        width: rng.gen_range(1..=6),
        height: rng.gen_range(1..=4),
        channels,
        normalz_len: rng.gen_range(0..4),
        mul_bypass: rng.gen_bool(0.5),
        datin_offset: rng.gen_range(-100..=100),
        wide: rng.gen_bool(0.25),
    }
}

#[test]
fn random_cdp_layers_match_a_plain_lrn() {
    let run = Run::from_env("random_cdp_layers_match_a_plain_lrn", 40);
    let mut rng = run.rng();
    let mut seen = std::collections::BTreeMap::<String, u32>::new();
    let mut pair = Lockstep::<Rtl>::open(&run);
    let mut step = |i: &npu::model::nvdla::nv_small::In| pair.step(i).unwrap_or_else(|m| panic!("{m}"));
    let mut b = Bench::new(&mut step, Memory::default(), Some(run.seed));
    let intr = address("GLB", "S_INTR_STATUS");
    let cdp_done = |g: u32| regmap::field("GLB", "S_INTR_STATUS", ["CDP_DONE_STATUS0", "CDP_DONE_STATUS1"][g as usize]).mask();
    let sdp_done = regmap::field("GLB", "S_INTR_STATUS", "SDP_DONE_STATUS0").mask() | regmap::field("GLB", "S_INTR_STATUS", "SDP_DONE_STATUS1").mask();
    // The LUTs (single registers, shared by both groups): LO random, LE never hit.
    let lo: Vec<i16> = (0..257).map(|_| rng.gen_range(-40..=40)).collect();
    write(&mut b, address("CDP", "S_LUT_ACCESS_CFG"), 1 << 16 | 1 << 17);
    for entry in &lo {
        write(&mut b, address("CDP", "S_LUT_ACCESS_DATA"), u32::from(*entry as u16));
    }
    for (register, value) in [
        // LE linear, LO first on underflow (a sum of 0 is LO's underflow at entry 0).
        // Hybrid (LE under, LO over: a sum past LO's end) to LO too.
        ("S_LUT_CFG", 1 | 1 << 4 | 1 << 6),
        ("S_LUT_INFO", 0),
        ("S_LUT_LE_START_LOW", u32::MAX),
        ("S_LUT_LE_START_HIGH", 0x1f),
        ("S_LUT_LE_END_LOW", u32::MAX),
        ("S_LUT_LE_END_HIGH", 0x1f),
        ("S_LUT_LO_START_LOW", 0),
        ("S_LUT_LO_END_LOW", 256),
        // LO's overflow slope: scale -1 (bits 31:16), shift 0 (bits 9:5).
        ("S_LUT_LO_SLOPE_SCALE", 0xffff << 16),
        ("S_LUT_LO_SLOPE_SHIFT", 0),
    ] {
        write(&mut b, address("CDP", register), value);
    }
    let mut sdp_group = 0;
    for number in 0..run.cycles {
        let l = random_layer(&mut rng);
        let group = (number % 2) as u32;
        let surfaces = l.channels.div_ceil(8);
        let (src_line, dst_line) = (8 * l.width + 8 * rng.gen_range(0..3), 8 * l.width + 8 * rng.gen_range(0..3));
        let (src_surface, dst_surface) = (src_line * l.height + 8 * rng.gen_range(0..3), dst_line * l.height + 8 * rng.gen_range(0..3));
        let src = 0x10_0000 * (number + 1) + 8 * rng.gen_range(0..16);
        let dst = src + 0x8_0000;
        let o = l.datin_offset;
        let spread = if l.wide { 15 } else { 5 };
        let input: Vec<u8> = (0..src_surface * surfaces).map(|_| (o + rng.gen_range(-spread..=spread)) as u8).collect();
        b.memory.write(src, &input);
        let fill = 0xa5;
        b.memory.write(dst, &vec![fill; dst_surface * surfaces]);
        write(&mut b, address("CDP_RDMA", "S_POINTER"), group);
        write(&mut b, address("CDP", "S_POINTER"), group);
        for (unit, register, value) in [
            ("CDP_RDMA", "D_DATA_CUBE_WIDTH", l.width as u32 - 1),
            ("CDP_RDMA", "D_DATA_CUBE_HEIGHT", l.height as u32 - 1),
            ("CDP_RDMA", "D_DATA_CUBE_CHANNEL", l.channels as u32 - 1),
            ("CDP_RDMA", "D_SRC_BASE_ADDR_LOW", src as u32),
            ("CDP_RDMA", "D_SRC_LINE_STRIDE", src_line as u32),
            ("CDP_RDMA", "D_SRC_SURFACE_STRIDE", src_surface as u32),
            ("CDP_RDMA", "D_SRC_DMA_CFG", 1),
            ("CDP_RDMA", "D_DATA_FORMAT", 0),
            ("CDP", "D_DATA_FORMAT", 0),
            ("CDP", "D_DST_BASE_ADDR_LOW", dst as u32),
            ("CDP", "D_DST_LINE_STRIDE", dst_line as u32),
            ("CDP", "D_DST_SURFACE_STRIDE", dst_surface as u32),
            ("CDP", "D_DST_DMA_CFG", 1),
            ("CDP", "D_LRN_CFG", l.normalz_len),
            ("CDP", "D_FUNC_BYPASS", u32::from(l.mul_bypass) << 1),
            ("CDP", "D_DATIN_OFFSET", u32::from(o as u8) | rng.gen_range(0..256) << 8),
            ("CDP", "D_DATIN_SCALE", 1),
            ("CDP", "D_DATIN_SHIFTER", 0),
            ("CDP", "D_DATOUT_OFFSET", 0),
            ("CDP", "D_DATOUT_SCALE", 1),
            ("CDP", "D_DATOUT_SHIFTER", 0),
        ] {
            write(&mut b, address(unit, register), value);
        }
        // Every third layer shares the memory port with an SDP copy started just before.
        let beside = number % 3 == 0;
        let (sdp_src, sdp_dst, sdp_atoms) = (src + 0x4_0000, src + 0x6_0000, rng.gen_range(8..64u32));
        if beside {
            start_copy(&mut b, &mut rng, sdp_group, (sdp_src, sdp_dst), sdp_atoms);
            sdp_group ^= 1;
        }
        write(&mut b, address("CDP_RDMA", "D_OP_ENABLE"), 1);
        write(&mut b, address("CDP", "D_OP_ENABLE"), 1);
        assert_eq!(read(&mut b, address("CDP", "S_STATUS")) >> (16 * group) & 3, 1, "layer {number}: CDP's group {group} RUNNING");
        let (mut cdp_seen, mut sdp_seen) = (false, !beside);
        while !(cdp_seen && sdp_seen) {
            assert!(b.wait_irq(), "layer {number}: no interrupt (SEED={}): {l:?}", run.seed);
            let pending = read(&mut b, intr);
            assert_eq!(pending & cdp_done(group ^ 1), 0, "layer {number}: the other group's CDP done bit");
            cdp_seen |= pending & cdp_done(group) != 0;
            sdp_seen |= pending & sdp_done != 0;
            write(&mut b, intr, pending);
        }
        assert_eq!(read(&mut b, address("CDP_RDMA", "S_POINTER")) >> 16, group ^ 1, "layer {number}: CDP_RDMA's consumer advanced");
        if beside {
            assert_copied(&b, (sdp_src, sdp_dst), sdp_atoms, &format!("layer {number} (SEED={})", run.seed));
        }
        let mut counts = std::collections::BTreeMap::<&str, u32>::new();
        for y in 0..l.height {
            for x in 0..l.width {
                let d = |k: i64| {
                    if k < 0 || k >= l.channels as i64 {
                        return 0;
                    }
                    let k = k as usize;
                    i64::from(input[k / 8 * src_surface + y * src_line + 8 * x + k % 8] as i8) - i64::from(o)
                };
                for c in 0..8 * surfaces {
                    // A sum of 0 is both tables' underflow, 256 or more LE's underflow and
                    // LO's overflow (a hybrid), any other a LO hit.
                    let counter = match square_sum(&l, &d, c as i64) {
                        0 => "D_PERF_LUT_UFLOW",
                        256.. => "D_PERF_LUT_HYBRID",
                        _ => "D_PERF_LUT_LO_HIT",
                    };
                    *counts.entry(counter).or_default() += 1;
                    let at = c / 8 * dst_surface + y * dst_line + 8 * x + c % 8;
                    let got = b.memory.read(dst + at as u64);
                    assert_eq!(got, reference(&l, &lo, &d, c as i64), "layer {number}: x {x}, y {y}, channel {c} (SEED={}): {l:?}", run.seed);
                }
            }
        }
        // CDP's counters of the group (decision at `CDP_COUNTERS`): every output lane's lookup.
        for register in ["D_PERF_LUT_UFLOW", "D_PERF_LUT_OFLOW", "D_PERF_LUT_HYBRID", "D_PERF_LUT_LE_HIT", "D_PERF_LUT_LO_HIT"] {
            let expected = counts.get(register).copied().unwrap_or(0);
            assert_eq!(read(&mut b, address("CDP", register)), expected, "layer {number}: {register} (SEED={})", run.seed);
        }
        *seen.entry("an underflow counted".into()).or_default() += u32::from(counts.contains_key("D_PERF_LUT_UFLOW"));
        // A sum past 256 gives a negative slope value (scale -1): its sign bits, 23 and 31
        // among them, all reach the int16 saturation (docs/nvdla.md "Mutation score").
        *seen.entry("a LO overflow".into()).or_default() += u32::from(counts.contains_key("D_PERF_LUT_HYBRID"));
        *seen.entry("destination address bit 25 set".into()).or_default() += u32::from(dst & 1 << 25 != 0);
        for s in 0..surfaces {
            for k in 0..dst_surface {
                let (y, in_line) = (k / dst_line, k % dst_line);
                if y >= l.height || in_line >= 8 * l.width {
                    assert_eq!(b.memory.read(dst + (s * dst_surface + k) as u64), fill, "layer {number}: surface {s}'s gap, byte {k}");
                }
            }
        }
        *seen.entry(format!("NORMALZ_LEN {}", l.normalz_len)).or_default() += 1;
        *seen.entry("channels not a multiple of 8".into()).or_default() += u32::from(l.channels % 8 != 0);
        *seen.entry("one surface".into()).or_default() += u32::from(surfaces == 1);
        *seen.entry("three surfaces or more".into()).or_default() += u32::from(surfaces >= 3);
        *seen.entry("multiply bypassed".into()).or_default() += u32::from(l.mul_bypass);
        *seen.entry("multiply".into()).or_default() += u32::from(!l.mul_bypass);
        *seen.entry("beside SDP".into()).or_default() += u32::from(beside);
        *seen.entry("group 1".into()).or_default() += group;
    }
    drop(b);
    let coverage: Coverage = pair.coverage;
    eprintln!("SEED={} layers: {seen:?}\n{coverage}", run.seed);
    for what in ["NORMALZ_LEN 0", "NORMALZ_LEN 1", "NORMALZ_LEN 2", "NORMALZ_LEN 3", "channels not a multiple of 8", "one surface", "three surfaces or more", "multiply bypassed", "multiply", "beside SDP", "group 1", "an underflow counted", "a LO overflow", "destination address bit 25 set"] {
        assert!(seen.get(what).copied().unwrap_or(0) > 0, "no layer with {what} (SEED={}, CYCLES={})", run.seed, run.cycles);
    }
    coverage.require(&["cdp start", "cdp atom", "cdp done", "cdp surface past the cube", "cdp channels past the cube", "sdp done", "read stall", "read wait", "write stall", "memory both asked", "csb write lut"]);
}
