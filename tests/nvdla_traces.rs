//! NVIDIA's nv_small trace tests (`shared/nvdla/`, read from `NVDLA_TRACES` or the shared
//! folder beside the repository): every trace and memory image reads without error, the
//! CRC-32 of the pass-through tests' input equals what the trace expects of the output (so the
//! format, the memory placement and the CRC are read as NVIDIA's player reads them), and which
//! traces already pass on their initial memory (three do: a player that ran nothing would
//! pass those).
use npu::nvdla::trace::{Command, Trace};
use std::path::PathBuf;

fn traces_dir() -> PathBuf {
    let dir = npu::nvdla::shared_folder("NVDLA_TRACES", "traces", std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(dir.is_dir(), "NVIDIA's traces are not at {} (set NVDLA_TRACES to their folder)", dir.display());
    dir
}

fn all_traces() -> Vec<Trace> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(traces_dir()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs.iter().map(|d| Trace::load(d).unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// Traces whose checks already pass on the memory they load (their output image is preloaded
/// with the expected result, or the check covers input): passing them proves nothing, so
/// docs/nvdla.md names them and the player's verdict must not rest on them alone.
const WEAK: [&str; 3] = ["cdp_1x1x1_lrn3_int8_0", "sdp_1x8192x1_pass_through_int8_0", "sdp_5x24x18_bs_int8_mem_0"];

#[test]
fn every_trace_reads_and_only_the_weak_ones_pass_on_their_initial_memory() {
    let traces = all_traces();
    let mut weak = Vec::new();
    let count = |prefix: &str| traces.iter().filter(|t| t.name.starts_with(prefix)).count();
    // shared/nvdla/README.md: 20 SDP, 12 PDP, 19 CDP, 9 direct-convolution tests.
    assert_eq!([count("sdp_"), count("pdp_"), count("cdp_"), count("dc_")], [20, 12, 19, 9]);
    for trace in &traces {
        let memory = trace.initial_memory();
        let checks: Vec<_> = trace.commands.iter().filter_map(|(_, c)| match c {
            Command::CheckCrc { address, size, crc, .. } => Some((*address, *size, *crc)),
            _ => None,
        }).collect();
        assert!(!checks.is_empty(), "{}", trace.name);
        if checks.iter().all(|&(address, size, crc)| memory.crc32(address, size) == crc) {
            weak.push(trace.name.as_str());
        }
        assert!(trace.commands.iter().any(|(_, c)| matches!(c, Command::Interrupt { .. })), "{}: waits for no unit", trace.name);
    }
    assert_eq!(weak, WEAK, "traces whose checks pass before any unit runs");
}

/// README: for these tests the CRC-32 of the input image equals the expected CRC.
#[test]
fn pass_through_tests_expect_their_input() {
    let names = ["pdp_8x8x32_1x1_int8_0", "pdp_8x8x32_1x1_int8_1", "sdp_8x8x32_bypass_int8_0", "sdp_8x8x32_bypass_int8_1", "cdp_8x8x32_lrn3_int8_1"];
    for name in names {
        let trace = Trace::load(&traces_dir().join(name)).unwrap_or_else(|e| panic!("{e}"));
        let memory = trace.initial_memory();
        let input = trace.commands.iter().find_map(|(_, c)| match c {
            Command::MemLoad { file, records } if file.to_string_lossy().contains("input") => records.first().map(|r| r.0),
            _ => None,
        });
        let input = input.unwrap_or_else(|| panic!("{name}: no input image"));
        for (_, command) in &trace.commands {
            if let Command::CheckCrc { address, size, crc, .. } = command {
                assert_eq!(memory.crc32(input, *size), *crc, "{name}: the input at {input:#x}");
                assert_ne!(memory.crc32(*address, *size), *crc, "{name}: the output region before the unit runs");
            }
        }
    }
}
