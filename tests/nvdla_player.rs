//! NVIDIA's SDP trace tests built so far (bypass, pass-through, the BS and BN stages with
//! operands from registers and memory, the EW stage with register operands), PDP and CDP trace tests (shared/nvdla/traces, or
//! `NVDLA_TRACES`) played through the register interface and the memory port: on the model with a memory
//! that answers at once and with one that stalls (SEED), and on the Verilated RTL in lock
//! step with the model, every check_crc passes; a trace of a unit or feature not built stops
//! with a message naming it.
use npu::cosim::lockstep::{Lockstep, Run};
use npu::cosim::tops::nv_small::NvSmall as Rtl;
use npu::model::nvdla::nv_small::NvSmall;
use npu::model::Block;
use npu::nvdla::player::{self, Stop};
use npu::nvdla::trace::{Command, Trace};
mod nvdla_bench;
use nvdla_bench::traces_dir;

/// The SDP traces whose every stage is bypassed (docs/nvdla.md, pass table).
pub const BYPASS: [&str; 8] = [
    "sdp_1x1x1_pass_through_int8",
    "sdp_1x1x8_pass_through_int8_0",
    "sdp_1x8192x1_pass_through_int8_0",
    "sdp_4x1x8192_pass_through_int8_0",
    "sdp_8192x1x1_pass_through_int8_0",
    "sdp_4x22x42_bypass_int8",
    "sdp_8x8x32_bypass_int8_0",
    "sdp_8x8x32_bypass_int8_1",
];

/// The SDP traces of the BS and BN stages, operands from registers and memory (docs/nvdla.md,
/// pass table).
pub const STAGES: [&str; 9] = [
    "sdp_3x3x33_bs_int8_reg_0",
    "sdp_3x3x33_bs_int8_reg_1",
    "sdp_3x3x33_bn_int8_reg_0",
    "sdp_3x3x33_bn_int8_reg_1",
    "sdp_3x3x33_bn_int8_reg_2",
    "sdp_3x3x33_bn_int8_reg_3",
    "sdp_3x3x33_bs_bn_int8_0",
    "sdp_3x3x33_bn_int8_mem_0",
    "sdp_5x24x18_bs_int8_mem_0",
];

/// The SDP traces of the EW stage: register operands with the LUT bypassed, and the LUT
/// (linear LE and LO, underflows chosen by both priorities) (docs/nvdla.md, pass table).
pub const EW: [&str; 3] = ["sdp_3x3x33_ew_int8_reg_0", "sdp_3x3x32_ew_lo_lin_int8", "sdp_3x3x33_ew_le_lin_int8"];

/// NVIDIA's PDP traces: average, max and min pooling, kernels 1x1 to 8x8, strides, padding,
/// split width (docs/nvdla.md, pass table).
pub const PDP: [&str; 12] = [
    "pdp_1x1x1_3x3_ave_int8_0",
    "pdp_1x3x8_8x8_ave_int8_0",
    "pdp_24x16x1_8x8_ave_int8_0",
    "pdp_28x28x8_2x2_max_int8_0",
    "pdp_5x7x8_4x1_split_max_int8_0",
    "pdp_7x9x10_3x3_int8",
    "pdp_8x8x32_1x1_int8_0",
    "pdp_8x8x32_1x1_int8_1",
    "pdp_8x8x64_2x2_ave_int8_0",
    "pdp_8x8x64_2x2_int8",
    "pdp_8x8x64_2x2_min_int8_0",
    "pdp_8x9x19_3x3_ave_int8_0",
];

/// NVIDIA's CDP traces: local response normalization over 3, 5, 7 and 9 channels, LUT
/// programs (docs/nvdla.md, pass table).
pub const CDP: [&str; 19] = [
    "cdp_1x1x1_lrn3_int8_0",
    "cdp_1x1x31_lrn3_int8_0",
    "cdp_8x8x32_lrn3_int8_0",
    "cdp_8x8x32_lrn3_int8_1",
    "cdp_8x8x32_lrn3_int8_2",
    "cdp_8x8x32_lrn5_int8_0",
    "cdp_8x8x32_lrn7_int8_0",
    "cdp_8x8x32_lrn9_int8_0",
    "cdp_8x8x64_lrn3_int8_0",
    "cdp_8x8x64_lrn3_int8_1",
    "cdp_8x8x64_lrn3_int8_10",
    "cdp_8x8x64_lrn3_int8_11",
    "cdp_8x8x64_lrn3_int8_12",
    "cdp_8x8x64_lrn3_int8_2",
    "cdp_8x8x64_lrn3_int8_3",
    "cdp_8x8x64_lrn3_int8_4",
    "cdp_8x8x64_lrn3_int8_5",
    "cdp_8x8x64_lrn3_int8_6",
    "cdp_8x8x64_lrn3_int8_9",
];

/// Every trace that passes today.
fn passing() -> impl Iterator<Item = &'static str> {
    BYPASS.into_iter().chain(STAGES).chain(EW).chain(PDP).chain(CDP)
}

fn load(name: &str) -> Trace {
    Trace::load(&traces_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sdp_pdp_and_cdp_traces_pass_on_the_model() {
    let seed = std::env::var("SEED").ok().map_or_else(rand::random, |s| s.parse().expect("SEED is a number"));
    eprintln!("memory stalls: SEED={seed}");
    // Counted over all traces: the 1x1x1 trace makes two memory requests, which a random
    // memory may well take at once.
    let mut stalled = 0;
    for name in passing() {
        for stalls in [None, Some(seed)] {
            let mut unit = NvSmall::default();
            let played = player::play(&load(name), &mut |i| unit.step(i), stalls).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            for c in &played.checks {
                assert!(c.passed(), "{name} (stalls {stalls:?}), line {}: expected {:#010x}, got {:#010x}", c.line, c.expected, c.got);
            }
            assert!(!played.checks.is_empty());
            if stalls.is_some() {
                stalled += played.stalled;
            }
            eprintln!("{name}: {} cycles{}", played.cycles, if stalls.is_some() { " with stalls" } else { "" });
        }
    }
    assert!(stalled > 0, "the memory never stalled (SEED={seed})");
}

#[test]
fn traces_of_units_and_features_not_built_stop_naming_them() {
    // The EW trace with register operands, reprogrammed into the EW parts not built: the
    // ALU's EQL mode, each operand from memory, ERDMA on. The BN trace with operands from
    // memory (NRDMA, DATA_USE ALU), reprogrammed so that a part waits for an operand NVDLA
    // would never deliver: its multiplier on (DATA_USE ALU supplies none), the ALU's read
    // for the multiplier only, DATA_USE 3.
    let (ew, bn) = ("sdp_3x3x33_ew_int8_reg_0", "sdp_3x3x33_bn_int8_mem_0");
    for (name, edits, message) in [
        (ew, &[("D_DP_EW_CFG", 0x4c)][..], "SDP EW ALU EQL (compare) mode: not implemented"),
        (ew, &[("D_DP_EW_ALU_CFG", 0x3)][..], "SDP EW ALU operand from memory (ERDMA): not implemented"),
        (ew, &[("D_DP_EW_MUL_CFG", 0x3)][..], "SDP EW multiplier operand from memory (ERDMA): not implemented"),
        (ew, &[("D_ERDMA_CFG", 0x34)][..], "SDP_RDMA EW operand read (ERDMA) enabled: not implemented"),
        (bn, &[("D_DP_BN_CFG", 0x08)][..], "SDP BN MUL operand from memory with SDP_RDMA's NRDMA DATA_USE 1: not implemented"),
        (bn, &[("D_NRDMA_CFG", 0x30)][..], "SDP BN ALU operand from memory with SDP_RDMA's NRDMA DATA_USE 0: not implemented"),
        (bn, &[("D_NRDMA_CFG", 0x36)][..], "SDP_RDMA NRDMA DATA_USE 3 (reserved): not implemented"),
        (bn, &[("D_NRDMA_CFG", 0x33)][..], "SDP BN ALU operand from memory with SDP_RDMA's NRDMA off: not implemented"),
    ] {
        let mut trace = load(name);
        for (_, command) in &mut trace.commands {
            if let Command::RegWrite { register, value } = command {
                if let Some(&(_, v)) = edits.iter().find(|(name, _)| register.name.strip_suffix("_0") == Some(*name)) {
                    *value = v;
                }
            }
        }
        let mut unit = NvSmall::default();
        let stop = player::play(&trace, &mut |i| unit.step(i), None).unwrap_err();
        assert!(matches!(&stop, Stop::NotImplemented(m) if m.contains(message)), "{edits:?}: {stop:?}");
    }
}

/// Every passing SDP, PDP and CDP trace on the Verilated RTL and the model in lock step (every
/// output, every cycle), the memory stalling; the model's events show what was exercised.
#[test]
fn sdp_pdp_and_cdp_traces_pass_on_the_rtl_in_lock_step() {
    let run = Run::from_env("sdp_pdp_and_cdp_traces_pass_on_the_rtl_in_lock_step", 0);
    let mut coverage = npu::cosim::lockstep::Coverage::default();
    for name in passing() {
        let mut pair = Lockstep::<Rtl>::open(&run);
        let played = player::play(&load(name), &mut |i| pair.step(i).unwrap_or_else(|m| panic!("{name}: {m}")), Some(run.seed))
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for c in &played.checks {
            assert!(c.passed(), "{name}, line {}: expected {:#010x}, got {:#010x} (SEED={})", c.line, c.expected, c.got, run.seed);
        }
        eprintln!("{name}: {} cycles on the RTL, in lock step", played.cycles);
        coverage.merge(&pair.coverage);
    }
    eprintln!("{coverage}");
    coverage.require(&["sdp start", "atom", "sdp done", "read stall", "read wait", "write stall", "bs operand", "bn operand", "operand read stall", "operand wait", "csb write group", "csb write single", "csb read", "csb write intr status", "pdp start", "pdp element read", "pdp element padded", "pdp atom", "pdp done", "cdp start", "cdp atom", "cdp done", "cdp surface past the cube", "cdp channels past the cube", "csb write lut"]);
}

/// `npu nvdla traces DIR` over NVIDIA's whole folder on the RTL: one row per test, every one
/// passing with its register and cycle counts (the dc traces through the convolution engine);
/// exit 0.
#[test]
fn the_folder_table_passes_every_trace() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_npu")).args(["nvdla", "traces"]).arg(traces_dir()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).filter(|l| !l.contains(" tests passed")).collect();
    assert_eq!(rows.len(), 60, "{text}");
    for row in &rows {
        assert!(row.contains(" pass ("), "{row}");
    }
    assert!(text.contains("60 of 60 tests passed, 0 failed, 0 not run"), "{text}");
}

/// `npu nvdla traces DIR --unit pdp`: only the PDP tests are played (12 rows, all passing, exit
/// 0), the way `.ci/run` plays the units it requires; an unknown unit is a usage error naming it.
#[test]
fn the_folder_table_plays_only_the_chosen_units() {
    let run = |unit: &str| std::process::Command::new(env!("CARGO_BIN_EXE_npu")).args(["nvdla", "traces"]).arg(traces_dir()).args(["--unit", unit]).output().unwrap();
    let out = run("pdp");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).filter(|l| !l.contains(" tests passed")).collect();
    assert_eq!(rows.len(), 12, "{text}");
    assert!(rows.iter().all(|r| r.starts_with("pdp_") && r.ends_with("pass (1 checks)")), "{text}");
    assert!(text.contains("12 of 12 tests passed, 0 failed, 0 not run"), "{text}");
    let out = run("pdq");
    let error = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{error}");
    assert!(error.contains("pdq") && error.contains("pdp"), "{error}");
}
