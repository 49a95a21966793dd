//! The convolution engine in nv_small (model `npu_model::nvdla::conv_core`, wired in
//! `nv_small`): CDMA, CBUF, CSC, CMAC and CACC run from their register groups, CACC's atoms into
//! SDP in flying mode, GLB's CDMA_DAT_DONE, CDMA_WT_DONE and CACC_DONE. NVIDIA's nine dc traces
//! through the trace player; random layers programmed through the CSB as a driver would,
//! against the plain convolution reference; layers CBUF cannot hold and surfaces outside
//! memory. docs/nvdla.md, "Convolution engine". Each on the model, and on the Verilated RTL
//! (`npu_hdl::nvdla::NvSmall`, its engine `hdl/src/nvdla/conv_core.rs`) in lock step with it.
mod nvdla_bench;
use npu::cosim::lockstep::{Lockstep, Run};
use npu::cosim::tops::nv_small::NvSmall as Rtl;
use npu::model::nvdla::nv_small::{In, NvSmall, Out};
use npu::model::Block;
use npu::nvdla::memory::Memory;
use npu::nvdla::player::{self, Bench, Stop};
use npu::nvdla::trace::{Command, Trace};
use npu_hdl::nvdla::regmap;
use nvdla_bench::conv_reference::{Conv, CubeLayout};
use nvdla_bench::dc_layers::{in_memory, random_layer};
use nvdla_bench::flying_conv::{bypassing_sdp, copy_region, mask_all_but_sdp, program, wait_layer};
use nvdla_bench::{address, traces_dir, DC_TRACES};
use rand::Rng;
use std::collections::BTreeSet;

/// The dc trace `make test` does not play on the RTL in lock step (1.5 M cycles, about 70 s
/// there): `make nvdla-traces ARGS="--unit dc"` plays it on the RTL alone (docs/nvdla.md
/// "Convolution engine" has the times). The model plays all nine.
const NOT_IN_LOCK_STEP: &str = "dc_35x22x54_6x8x54x29_int8_0";

/// nv_small under test: the model alone, or the Verilated RTL in lock step with it (every
/// output every cycle; a mismatch panics with cycle, seed, inputs and both values). Either
/// records the model's events.
enum Design {
    Model(NvSmall, BTreeSet<&'static str>),
    Rtl(Box<Lockstep<Rtl>>),
}

impl Design {
    fn open(rtl: bool, run: &Run) -> Self {
        if rtl { Design::Rtl(Box::new(Lockstep::open(run))) } else { Design::Model(NvSmall::default(), BTreeSet::new()) }
    }

    fn step(&mut self, i: &In) -> Out {
        match self {
            Design::Model(unit, seen) => {
                let o = unit.step(i);
                seen.extend(unit.events().iter().copied());
                o
            }
            Design::Rtl(pair) => pair.step(i).unwrap_or_else(|m| panic!("{m}")),
        }
    }

    fn seen(&self, event: &str) -> bool {
        match self {
            Design::Model(_, seen) => seen.contains(event),
            Design::Rtl(pair) => pair.coverage.count(event) > 0,
        }
    }
}

fn load(name: &str) -> Trace {
    Trace::load(&traces_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// GLB S_INTR_STATUS's bit `field`.
fn status_bit(field: &str) -> u32 {
    regmap::field("GLB", "S_INTR_STATUS", field).mask()
}

/// A CSB read straight on the design (request, then the answer a cycle later).
fn model_read(unit: &mut Design, unit_name: &str, register: &str) -> u32 {
    unit.step(&In { csb_valid: true, csb_addr: address(unit_name, register), ..In::default() });
    let out = unit.step(&In::default());
    assert!(out.csb_rvalid);
    out.csb_rdata
}

/// The dc traces `names` on the design behind the stalling memory: every CRC; afterwards GLB's
/// CDMA_DAT_DONE0, CDMA_WT_DONE0 and CACC_DONE0 are set (masked by the traces, not cleared by
/// their SDP wait), the five convolution units' and SDP's consumers have moved to group 1 and
/// SDP_RDMA's has not (flying mode does not use its group); the engine's events.
fn dc_traces_pass(names: &[&str], rtl: bool, run: &Run) {
    let mut seen = BTreeSet::new();
    for &name in names {
        let mut unit = Design::open(rtl, run);
        let started = std::time::Instant::now();
        let played = player::play(&load(name), &mut |i| unit.step(i), Some(run.seed)).unwrap_or_else(|e| panic!("{name}: {e:?} (SEED={})", run.seed));
        let seconds = started.elapsed().as_secs_f64();
        assert!(!played.checks.is_empty());
        for c in &played.checks {
            assert!(c.passed(), "{name}, line {}: expected {:#010x}, got {:#010x} (SEED={})", c.line, c.expected, c.got, run.seed);
        }
        let status = model_read(&mut unit, "GLB", "S_INTR_STATUS");
        let conv = status_bit("CDMA_DAT_DONE_STATUS0") | status_bit("CDMA_WT_DONE_STATUS0") | status_bit("CACC_DONE_STATUS0");
        assert_eq!(status, conv, "{name}: GLB S_INTR_STATUS after the trace");
        for u in ["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC", "SDP", "SDP_RDMA"] {
            let pointer = model_read(&mut unit, u, "S_POINTER");
            assert_eq!(pointer >> 16, u32::from(u != "SDP_RDMA"), "{name}: {u}'s consumer");
            assert_eq!(model_read(&mut unit, u, "S_STATUS"), 0, "{name}: {u} idle");
        }
        let what = if rtl { "on the RTL in lock step" } else { "on the model" };
        eprintln!("{name}: {} cycles {what}, memory stalled {}, {seconds:.1} s ({:.0} cycles/s)", played.cycles, played.stalled, played.cycles as f64 / seconds);
        for event in ["conv start", "cdma dat done", "cdma wt done", "conv done", "sdp flying start", "sdp flying atom", "sdp flying wait", "csc wait weights", "SDP stall", "memory cdma and another asked", "weight atom of a partial block", "write stall"] {
            if unit.seen(event) {
                seen.insert(event);
            }
        }
    }
    for event in ["conv start", "cdma dat done", "cdma wt done", "conv done", "sdp flying start", "sdp flying atom", "sdp flying wait", "csc wait weights", "SDP stall", "memory cdma and another asked", "weight atom of a partial block", "write stall"] {
        assert!(seen.contains(event), "{event} not seen (SEED={}): {seen:?}", run.seed);
    }
}

/// The nine dc traces on the model.
#[test]
fn dc_traces_pass_on_the_model() {
    dc_traces_pass(&DC_TRACES, false, &Run::from_env("dc_traces_pass_on_the_model", 0));
}

/// The dc traces but [`NOT_IN_LOCK_STEP`] on the Verilated RTL in lock step with the model.
#[test]
fn dc_traces_pass_on_the_rtl_in_lock_step() {
    let names: Vec<&str> = DC_TRACES.into_iter().filter(|&n| n != NOT_IN_LOCK_STEP).collect();
    dc_traces_pass(&names, true, &Run::from_env("dc_traces_pass_on_the_rtl_in_lock_step", 0));
}

/// Random layers (as `nvdla_dc`'s: up to 12 x 12 x 20 inputs, up to 20 kernels of up to 4 x 4,
/// strides, dilations, padding and its value, CDMA's converter now and then) programmed through
/// the CSB into alternating register groups of the nv_small model, behind the stalling memory,
/// SDP on the fly: the output cube (with the gaps between its lines and surfaces) equals the
/// plain reference's. The truncation (CACC's CLIP_TRUNCATE and SDP's CVT_SHIFT, split at random)
/// is chosen from the layer's largest sum so that the outputs fit int8: most must not saturate
/// (asserted, over all layers), else the CRC-like comparison would prove little. GLB's done
/// bits of the group each layer ran in. `CYCLES` = layers (100), `SEED`.
fn random_layers(rtl: bool, run: &Run) {
    let mut rng = run.rng();
    let mut unit = Design::open(rtl, run);
    let mut step = |i: &In| unit.step(i);
    let mut bench = Bench::new(&mut step, Memory::default(), Some(run.seed));
    mask_all_but_sdp(&mut bench);
    let (mut outputs, mut saturated, mut cases) = (0usize, 0usize, BTreeSet::new());
    for n in 0..run.cycles {
        let b = &mut bench;
        let mut c = random_layer(&mut rng);
        // Every fifth layer a 1 x 1 kernel over 12 x 12 pixels of at most 8 channels: stripes
        // of 32 atoms every 40 cycles, faster than SDP writes them behind the stalling
        // memory, so that CACC's delivery buffer fills and holds CSC.
        if n % 5 == 0 {
            (c.width, c.height, c.kernel_width, c.kernel_height, c.stride, c.dilation, c.pad_left, c.pad_top) = (12, 12, 1, 1, (1, 1), (1, 1), 0, 0);
            (c.out_width, c.out_height, c.channels) = (12, 12, c.channels.min(8));
        }
        if rng.gen_bool(0.2) {
            c.converter = Some(nvdla_bench::conv_reference::InputConverter { offset: rng.gen_range(-64..64), scale: rng.gen_range(-4..5), truncate: rng.gen_range(0..3) });
            cases.insert("CDMA converter");
        }
        let (input, weights, memory, layer) = in_memory(&c, &mut rng);
        let largest = c.sums(&input, &weights).iter().map(|s| s.unsigned_abs()).max().unwrap_or(0);
        // The smallest shift that brings the largest sum to int8, sometimes one less.
        let mut shift = (0..40).find(|&s| (largest >> s) < 127).unwrap_or(40);
        if shift > 0 && rng.gen_bool(0.2) {
            shift -= 1;
        }
        c.clip_truncate = rng.gen_range(0..=shift.min(16));
        let sdp = bypassing_sdp(rng.gen_range(-3..=3), shift - c.clip_truncate);
        for (case, met) in [("CACC truncation", c.clip_truncate > 0), ("SDP shift", shift > c.clip_truncate), ("partial channel block", c.channels % 8 != 0), ("several kernel groups", c.kernels > 8), ("several pixel blocks", c.out_width * c.out_height > 32)] {
            if met {
                cases.insert(case);
            }
        }
        // The bench's memory: the layer's features and weights, and the output region's old
        // bytes (random), which the gaps must keep.
        let dst_line = (c.out_width as u64 * 8).next_multiple_of(32) + 32;
        let dst = CubeLayout { base: 0x4000_0000 + 0x10_0000 * n, line: dst_line, surface: dst_line * c.out_height as u64 + 32 };
        let surfaces = c.kernels.div_ceil(8) as u64;
        let old: Vec<u8> = (0..dst.surface * surfaces).map(|_| rng.gen()).collect();
        copy_region(&memory, &mut b.memory, layer.feature_base, layer.surface_stride * c.channels.div_ceil(8) as u64);
        copy_region(&memory, &mut b.memory, layer.weight_base, (c.kernels * c.kernel_width * c.kernel_height * c.channels) as u64);
        b.memory.write(dst.base, &old);
        let group = (n % 2) as u32;
        let banks = (layer.csc.data_banks as u32, layer.weight_banks as u32);
        program(b, group, &c, CubeLayout { base: layer.feature_base, line: layer.line_stride, surface: layer.surface_stride }, layer.weight_base, banks, dst, &sdp);
        let status = wait_layer(b, &format!("layer {n} (SEED={})", run.seed));
        // SDP's done interrupt; CACC's came before it (the atoms go on to SDP after CACC).
        let g = group.to_string();
        let expected_status = ["SDP_DONE_STATUS", "CDMA_DAT_DONE_STATUS", "CDMA_WT_DONE_STATUS", "CACC_DONE_STATUS"].iter().fold(0, |m, f| m | status_bit(&format!("{f}{g}")));
        assert_eq!(status, expected_status, "layer {n} in group {group}: GLB status (SEED={})", run.seed);
        let values = c.output(&input, &weights);
        let mut expected = Memory::default();
        expected.write(dst.base, &old);
        let mut sdp_seen = BTreeSet::new();
        sdp.write(&mut expected, dst, &values, (c.out_width, c.out_height, c.kernels), &mut sdp_seen);
        for a in dst.base..dst.base + dst.surface * surfaces {
            assert_eq!(b.memory.read(a), expected.read(a), "layer {n} (SEED={}): {c:?}\nbyte at {a:#x} (offset {:#x} of the output region)", run.seed, a - dst.base);
        }
        outputs += values.len();
        saturated += values.iter().filter(|&&v| {
            let r = i128::from(v);
            let converted = nvdla_bench::sdp_reference::reference_convert(r, sdp.cvt_offset, 1, sdp.cvt_shift);
            converted == i8::MAX || converted == i8::MIN
        }).count();
    }
    drop(bench);
    eprintln!("{} layers, {outputs} outputs, {saturated} at int8's limits; {cases:?}", run.cycles);
    assert!(saturated * 10 < outputs, "SEED={}: {saturated} of {outputs} outputs at int8's limits: the test must keep most outputs exact", run.seed);
    for case in ["CDMA converter", "CACC truncation", "SDP shift", "partial channel block", "several kernel groups", "several pixel blocks"] {
        assert!(cases.contains(case), "{case} not met (SEED={})", run.seed);
    }
    for event in ["conv start", "conv done", "cdma dat done", "cdma wt done", "sdp flying atom", "csc padding", "csc hold", "csc wait weights", "busy_full", "feature read stall", "weight read stall"] {
        assert!(unit.seen(event), "{event} not seen (SEED={})", run.seed);
    }
}

/// 100 random layers on the model (about 2 s).
#[test]
fn random_layers_through_nv_small_match_the_plain_convolution() {
    random_layers(false, &Run::from_env("random_layers_through_nv_small_match_the_plain_convolution", 100));
}

/// 100 random layers on the Verilated RTL in lock step with the model.
#[test]
fn random_layers_through_the_rtl_match_the_model_and_the_plain_convolution() {
    random_layers(true, &Run::from_env("random_layers_through_the_rtl_match_the_model_and_the_plain_convolution", 100));
}

/// Bad input at the engine, documented in docs/nvdla.md "Convolution engine": (1) a layer
/// whose banks exceed CBUF (CDMA's D_BANK 31 + 31): CDMA refuses it, nothing is read or
/// written, the five groups end with CACC_DONE (no CDMA_DAT_DONE, CDMA_WT_DONE), and the
/// flying SDP layer waiting for it ends with SDP_DONE; the next layer then runs normally.
/// (2) A feature surface past the end of the 64-bit address space: addresses wrap, the memory
/// answers what it holds (0 where nothing was loaded), the layer runs to its end.
fn bad_layers(rtl: bool, run: &Run) {
    let mut rng = run.rng();
    let unit = std::cell::RefCell::new(Design::open(rtl, run));
    let mut step = |i: &In| unit.borrow_mut().step(i);
    let mut bench = Bench::new(&mut step, Memory::default(), Some(run.seed));
    let b = &mut bench;
    mask_all_but_sdp(b);
    let c = Conv {
        width: 5,
        height: 4,
        channels: 11,
        kernel_width: 2,
        kernel_height: 3,
        kernels: 10,
        stride: (1, 1),
        dilation: (1, 1),
        pad_left: 1,
        pad_top: 0,
        out_width: 5,
        out_height: 2,
        pad_value: -3,
        converter: None,
        clip_truncate: 4,
    };
    let (input, weights, memory, layer) = in_memory(&c, &mut rng);
    copy_region(&memory, &mut b.memory, layer.feature_base, layer.surface_stride * 2);
    copy_region(&memory, &mut b.memory, layer.weight_base, (c.kernels * 6 * c.channels) as u64);
    let feature = CubeLayout { base: layer.feature_base, line: layer.line_stride, surface: layer.surface_stride };
    let dst = CubeLayout { base: 0x5000_0000, line: 64, surface: 128 };
    let sdp = bypassing_sdp(0, 8);
    let before = b.memory.crc32(dst.base, 256);
    program(b, 0, &c, feature, layer.weight_base, (31, 31), dst, &sdp);
    let status = wait_layer(b, "a layer CBUF cannot hold");
    assert_eq!(status, status_bit("SDP_DONE_STATUS0") | status_bit("CACC_DONE_STATUS0"), "refused: CACC and SDP done, no CDMA fetch done");
    assert_eq!(b.memory.crc32(dst.base, 256), before, "a refused layer writes nothing");
    assert!(unit.borrow().seen("conv refused") && unit.borrow().seen("sdp flying layer ended by a refused convolution"));
    assert!(!unit.borrow().seen("feature request"), "a refused layer reads nothing");
    // The next layer, in group 1, runs as if nothing had happened.
    program(b, 1, &c, feature, layer.weight_base, (layer.csc.data_banks as u32, layer.weight_banks as u32), dst, &sdp);
    let status = wait_layer(b, "the layer after a refused one");
    assert_eq!(status & status_bit("CACC_DONE_STATUS1"), status_bit("CACC_DONE_STATUS1"));
    let mut expected = b.memory.clone();
    sdp.write(&mut expected, dst, &c.output(&input, &weights), (c.out_width, c.out_height, c.kernels), &mut BTreeSet::new());
    assert_eq!(b.memory.crc32(dst.base, 256), expected.crc32(dst.base, 256), "the layer after a refused one");
    // A feature cube whose second surface lies past 2^64: it wraps to address 0.., where the
    // memory holds nothing (reads 0); the layer ends, its output as the reference's over
    // that cube.
    let high = CubeLayout { base: u64::MAX - 0x3f, line: 64, surface: 256 };
    let mut wrapped = input.clone();
    for y in 0..c.height {
        for x in 0..c.width {
            for ch in 0..c.channels {
                let a = high.base.wrapping_add((ch / 8) as u64 * high.surface).wrapping_add(y as u64 * high.line).wrapping_add((x * 8 + ch % 8) as u64);
                if a > high.base {
                    b.memory.write(a, &[input[(y * c.width + x) * c.channels + ch] as u8]);
                } else {
                    wrapped[(y * c.width + x) * c.channels + ch] = 0;
                }
            }
        }
    }
    program(b, 0, &c, high, layer.weight_base, (layer.csc.data_banks as u32, layer.weight_banks as u32), dst, &sdp);
    wait_layer(b, "a feature surface past 2^64");
    let mut expected = b.memory.clone();
    sdp.write(&mut expected, dst, &c.output(&wrapped, &weights), (c.out_width, c.out_height, c.kernels), &mut BTreeSet::new());
    assert_eq!(b.memory.crc32(dst.base, 256), expected.crc32(dst.base, 256), "a surface past 2^64 wraps");
    // A cube larger than its data banks, and a kernel group larger than its weight banks
    // (12 x 12 x 40 is 720 CBUF entries, 8 kernels of 4 x 4 x 40 are 640; a bank holds 512):
    // each refused as the first case, in the group the consumers point to next.
    let big = Conv { width: 12, height: 12, channels: 40, kernel_width: 4, kernel_height: 4, kernels: 8, out_width: 9, out_height: 9, pad_left: 0, ..c };
    let (_, _, _, big_layer) = in_memory(&big, &mut rng);
    let big_feature = CubeLayout { base: big_layer.feature_base, line: big_layer.line_stride, surface: big_layer.surface_stride };
    for (group, what, banks) in [(1, "a cube larger than its data banks", (1, 2)), (0, "a kernel group larger than its weight banks", (2, 1))] {
        let before = b.memory.crc32(dst.base, 256);
        program(b, group, &big, big_feature, big_layer.weight_base, banks, dst, &sdp);
        let status = wait_layer(b, what);
        let done = status_bit(&format!("SDP_DONE_STATUS{group}")) | status_bit(&format!("CACC_DONE_STATUS{group}"));
        assert_eq!(status, done, "{what}: refused, CACC and SDP done, no CDMA fetch done");
        assert_eq!(b.memory.crc32(dst.base, 256), before, "{what}: nothing written");
    }
    for event in ["refused: features", "refused: weights"] {
        assert!(unit.borrow().seen(event), "{event} not seen");
    }
    // The largest kernel the registers hold (WEIGHT_WIDTH_EXT and WEIGHT_HEIGHT_EXT are 5-bit
    // fields: 32 x 32), over a 5 x 4 x 8 cube padded (PAD_LEFT 27, PAD_TOP 28, inside their
    // 5-bit fields) so that one output pixel's window covers the cube and the padding: 8
    // kernels of 1024 taps are 8192 weight entries, 16 banks; it runs to the reference's sums.
    let huge = Conv { width: 5, height: 4, channels: 8, kernel_width: 32, kernel_height: 32, kernels: 8, out_width: 1, out_height: 1, pad_left: 27, pad_top: 28, ..c };
    let (input, weights, memory, layer) = in_memory(&huge, &mut rng);
    assert_eq!(layer.weight_banks, 16, "32 x 32 x 8 kernels fill 16 weight banks");
    copy_region(&memory, &mut b.memory, layer.feature_base, layer.surface_stride);
    copy_region(&memory, &mut b.memory, layer.weight_base, (huge.kernels * 1024 * huge.channels) as u64);
    let feature = CubeLayout { base: layer.feature_base, line: layer.line_stride, surface: layer.surface_stride };
    program(b, 1, &huge, feature, layer.weight_base, (layer.csc.data_banks as u32, layer.weight_banks as u32), dst, &sdp);
    wait_layer(b, "the largest kernel the registers hold");
    let mut expected = b.memory.clone();
    sdp.write(&mut expected, dst, &huge.output(&input, &weights), (1, 1, huge.kernels), &mut BTreeSet::new());
    assert_eq!(b.memory.crc32(dst.base, 256), expected.crc32(dst.base, 256), "a 32 x 32 kernel");
    let exact = (0..8).filter(|&k| !matches!(expected.read(dst.base + k) as i8, -128 | 127)).count();
    assert!(exact >= 4, "the 32 x 32 kernel's outputs must mostly not saturate to mean something: {exact} of 8 exact");
}

#[test]
fn bad_layers_end_without_hanging() {
    bad_layers(false, &Run::from_env("bad_layers_end_without_hanging", 0));
}

/// The same on the RTL in lock step with the model: CDMA's refusal, SDP's flying layer ended
/// by it, the wrapped addresses.
#[test]
fn bad_layers_end_without_hanging_on_the_rtl() {
    bad_layers(true, &Run::from_env("bad_layers_end_without_hanging_on_the_rtl", 0));
}

/// The player refuses what the convolution engine does not build (before it runs).
#[test]
fn conv_features_not_built_stop_naming_them() {
    let name = "dc_1x1x8_1x1x8x1_int8_0";
    for (edits, message) in [
        (&[("CDMA", "D_WEIGHT_FORMAT", 1)][..], "CDMA compressed weights: not implemented"),
        (&[("CSC", "D_MISC_CFG", 1)][..], "CSC Winograd convolution: not implemented"),
        (&[("CDMA", "D_DATAIN_FORMAT", 1)][..], "CDMA pixel input (image mode): not implemented"),
        (&[("SDP", "D_DP_BS_CFG", 0x30), ("SDP", "D_DP_BS_ALU_CFG", 1)][..], "SDP BS ALU operand from memory in flying mode"),
    ] {
        let mut trace = load(name);
        for (_, command) in &mut trace.commands {
            if let Command::RegWrite { register, value } = command {
                if let Some(&(_, _, v)) = edits.iter().find(|(u, r, _)| register.unit == *u && register.name.strip_suffix("_0") == Some(*r)) {
                    *value = v;
                }
            }
        }
        let mut unit = NvSmall::default();
        let stop = player::play(&trace, &mut |i| unit.step(i), None).unwrap_err();
        assert!(matches!(&stop, Stop::NotImplemented(m) if m.contains(message)), "{edits:?}: {stop:?}");
    }
}

/// `npu nvdla trace DIR` plays a dc trace on the Verilated RTL and, with `--model`, on the
/// model: exit 0, the check passes.
#[test]
fn the_cli_plays_a_dc_trace_on_the_rtl_and_the_model() {
    let dir = traces_dir().join("dc_1x1x8_1x1x8x1_int8_0");
    for model in [true, false] {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_npu"));
        command.args(["nvdla", "trace"]).arg(&dir);
        if model {
            command.arg("--model");
        }
        let out = command.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("1 of 1 checks passed") && text.contains("(model)") == model, "{text}");
    }
}
