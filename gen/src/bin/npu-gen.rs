//! `npu-gen [OUT_DIR]`: writes per user-facing top its Verilog, a FuseSoC core, an SDC/XDC
//! clock constraint (clocked tops) and the board's pin constraints (the chip), `ports.json`
//! and the ScaleNPU register header `scale_npu_regs.h`.
//! `npu-gen synth OUT_DIR`: synthesises, checks, places and routes every user-facing top for
//! the iCE40-HX8K (`npu_gen::fpga`) and writes `OUT_DIR/report.md`.
//! `npu-gen bitstream OUT_DIR`: the same for the MNIST NPU chip alone, then its bitstream.
//! `npu-gen mutants OUT_DIR N SEED CYCLES [TOP]`: mutation score of every top in
//! [`SUITES`] (or of TOP): N yosys mutants each, run against the top's lock-step tests
//! (`npu_gen::mutants`) with CYCLES cycles (0: each top's budget in [`SUITES`]);
//! `OUT_DIR/<top>.md` lists the survivors. With LIST (a file of `mutate ...` lines, such as
//! survivors copied from a `<top>.md`), TOP's mutants are those instead of N listed by yosys
//! (the unmutated netlist still first), reported in `OUT_DIR/<top>-list.md`.
use npu_gen::fpga;
use npu_gen::mutants::{self, Options, Progress, Suite};
use std::{fs, path::Path, path::PathBuf, process::ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tops: Vec<_> = npu_gen::tops().into_iter().filter(|t| t.for_users).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["synth", dir] => synth(&tops, Path::new(dir)),
        ["bitstream", dir] => bitstream(&tops, Path::new(dir)),
        ["mutants", dir, count, seed, cycles, ref rest @ ..] if rest.len() <= 2 => match (count.parse(), seed.parse(), cycles.parse()) {
            (Ok(count), Ok(seed), Ok(cycles)) => {
                // Absolute: the tests get the libraries' paths and yosys runs inside the folder.
                let dir = std::path::absolute(dir).unwrap_or_else(|_| PathBuf::from(dir));
                let options = Options { count, seed, cycles, runtime: dir.join("runtime"), dir };
                mutation_run(&tops, &options, rest.first().copied(), rest.get(1).map(Path::new))
            }
            _ => Err(format!("npu-gen mutants: N, SEED and CYCLES must be whole numbers (got {count}, {seed}, {cycles})")),
        },
        [] => verilog(&tops, Path::new("build/verilog")),
        [dir] => verilog(&tops, Path::new(dir)),
        _ => Err("usage: npu-gen [OUT_DIR] | npu-gen synth OUT_DIR | npu-gen bitstream OUT_DIR | npu-gen mutants OUT_DIR N SEED CYCLES [TOP [LIST]]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn verilog(tops: &[npu_gen::Top], out: &Path) -> Result<(), String> {
    for path in npu_gen::write_user_files(tops, out, &root())? {
        println!("{}", path.display());
    }
    Ok(())
}

/// The project root: the workspace above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn synth(tops: &[npu_gen::Top], dir: &Path) -> Result<(), String> {
    let tops: Vec<&npu_gen::Top> = tops.iter().filter(|t| fpga::on_ice40(t.name)).collect();
    // Two tops at a time: the build machine has two cores.
    let results: Vec<Result<fpga::Synthesis, String>> = std::thread::scope(|s| {
        let chunks: Vec<_> = tops.chunks(tops.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(move || chunk.iter().map(|t| { eprintln!("synthesising {}", t.name); fpga::synthesize(t, dir, &root()) }).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let results = results.into_iter().collect::<Result<Vec<_>, _>>()?;
    let report = fpga::report(&results);
    let path = dir.join("report.md");
    fs::write(&path, &report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    print!("{report}");
    println!("\nchecks passed for every top: no latch, check -assert (no loop, no multiple or missing driver), FIFO in block RAM\n{}", path.display());
    let slow: Vec<_> = results.iter().filter(|r| r.fmax_mhz.is_some_and(|f| f < f64::from(fpga::TARGET_MHZ))).map(|r| r.top.as_str()).collect();
    if slow.is_empty() { Ok(()) } else { Err(format!("below {} MHz after routing: {}", fpga::TARGET_MHZ, slow.join(", "))) }
}

fn bitstream(tops: &[npu_gen::Top], dir: &Path) -> Result<(), String> {
    let chip = tops.iter().find(|t| t.name == "mnist_npu").expect("the chip is a top");
    let r = fpga::synthesize(chip, dir, &root())?;
    let bin = fpga::bitstream(dir, chip.name)?;
    println!("{}: {} logic cells, {} I/O, Fmax {:.1} MHz; pins: {}", bin.display(), r.logic_cells, r.io, r.fmax_mhz.unwrap_or(0.0), fpga::pcf(chip.name).unwrap());
    Ok(())
}

/// Per top, the lock-step tests that judge its mutants: the test target (`tests/<target>.rs`),
/// the tests in it, and their cycle budget (`CYCLES`, unless the command line gives one other
/// than 0): enough for every coverage item the tests require, which the unmutated run checks;
/// 0 leaves the tests' own default (tops whose budget is not tuned yet). A top whose tests
/// are in several targets has a row per target: they run in turn (the first row's budget).
const SUITES: &[(&str, &str, &[&str], u64)] = &[
    ("input_buffer", "input_buffer", &["input_buffer_random_lockstep"], 100000),
    ("two_casc", "two_casc", &["two_casc_edge_pairs_and_a_million_random_pairs"], 100000),
    ("mac", "mac", &["mac_random_lockstep", "mac_short_sequences", "mac_computes_eqn_2"], 200000),
    ("piso_deb", "piso_deb", &["piso_deb_random_lockstep", "piso_deb_reads_out_twelve_bytes_in_datasheet_order"], 200000),
    ("ssfr", "ssfr", &["ssfr_random_lockstep", "ssfr_resets_to_table_5_and_stores_all_16_bits"], 100000),
    ("relu", "relu", &["relu_random_lockstep"], 100000),
    ("piso_out", "piso_out", &["piso_out_random_lockstep"], 100000),
    ("output_mux", "output_mux", &["output_mux_random_lockstep"], 100000),
    ("fifo", "fifo", &["fifo_random_lockstep"], 200000),
    ("comparator", "comparator", &["comparator_random_lockstep"], 200000),
    ("downcounter", "downcounter", &["downcounter_random_lockstep", "downcounter_counts_every_bit_down_to_zero"], 100000),
    ("fsm_acc", "fsm_acc", &["fsm_acc_random_lockstep"], 100000),
    ("fsm_out", "fsm_out", &["fsm_out_random_lockstep"], 100000),
    ("mac_unit", "ethos_mac_unit", &["mac_unit_random_lockstep", "extreme_products_over_long_kernels_equal_plain_sums"], 0),
    (
        "output_unit",
        "ethos_output_unit",
        &["output_unit_random_lockstep", "rounding_modes_on_hand_worked_values", "tfl_rounding_is_tflites_multiply_by_quantized_multiplier"],
        0,
    ),
    (
        "scale_engine",
        "scale_engine",
        &["random_layers_match_the_model_and_the_reference", "output_writer_edge_cases_drawn_on_purpose", "unchecked_base_above_the_window_runs_from_on_chip"],
        0,
    ),
    (
        "mnist_npu",
        "mnist_npu",
        &[
            "manual_mode_with_relu_bypass",
            "comparator_largest_value_and_index",
            "debug_chain_freezes_and_resumes",
            "ssfr_reads_back_all_16_bits_through_piso_deb",
            "short_back_to_back_frames_lock_up_until_rst_glo",
            "full_inference_with_fsm_and_piso_out",
            "full_inference_with_fsm_fifo_and_comparator",
            "fifo_overflow_and_underflow_lose_and_duplicate_nothing",
            "chip_random_legal_programs",
            "chip_random_pin_activity",
            "chip_reset_defines_every_register",
        ],
        0,
    ),
    (
        "scale_csr",
        "scale_csr",
        &[
            "scale_csr_random_lockstep",
            "scale_csr_reset_values_are_the_seeds",
            "scale_csr_rw_registers_read_back_their_field_bits",
            "scale_csr_read_only_registers_ignore_writes",
            "scale_csr_init_reads_0_and_starts_once",
            "scale_csr_irq_is_set_by_finish_and_cleared_by_writing_1",
            "scale_csr_exitcode_follows_finish_and_start_clears_it",
            "scale_csr_unmapped_is_decerr_and_misaligned_is_slverr_without_effect",
            "scale_csr_write_while_busy_is_slverr_and_aborts",
            "scale_csr_partial_strobes_change_only_their_bytes",
            "scale_csr_handshake_timing",
        ],
        0,
    ),
    ("scale_npu", "scale_npu", &["register_programs_match_the_model_and_the_reference", "iris_mlp_on_the_unit_equals_the_integer_reference"], 0),
    (
        "weight_decoder",
        "ethos_weight_decoder",
        &[
            "spec_vectors_decode_exactly",
            "own_encoder_streams_decode_exactly",
            "sub_streams_after_an_end_marker_decode",
            "every_fault_is_reported",
            "partial_words_and_empty_streams_give_only_their_weights",
            "damaged_streams_fail_cleanly",
            "fuzz_rtl_in_lockstep",
            "long_zero_runs_fill_the_run_queue",
        ],
        0,
    ),
    (
        "command_front_end",
        "ethos_front_end",
        &["vela_streams_set_the_registers_each_kernel_sees", "random_streams_with_stalls", "bad_streams_stop_with_their_status", "registers_read_as_the_digest_says"],
        0,
    ),
    ("cdp_dp", "nvdla_cdp_dp", &["random_layers_match_the_model_and_the_reference", "by_hand::lut_slopes_and_interpolation_on_hand_worked_values"], 0),
    ("cmac", "nvdla_cmac_cacc", &["random_stripes_match_the_models_and_a_plain_convolution"], 0),
    ("cacc", "nvdla_cmac_cacc", &["random_stripes_match_the_models_and_a_plain_convolution", "a_csc_ignoring_busy_full_loses_atoms_as_the_model_says"], 0),
    ("cube_walk", "nvdla_cube_walk", &["random_walks_match_the_memory_layout"], 0),
    ("cdma", "nvdla_cdma", &["random_layers_match_the_model_and_the_placement"], 0),
    ("csc_cbuf", "nvdla_csc", &["random_layers_through_csc_rtl_match_the_plain_reference"], 0),
    ("conv_datapath", "ethos_conv", &["random_layers_equal_tflite", "bad_streams_and_shapes_are_refused", "deep_ofm_layers_equal_tflite"], 0),
    // Every lock-step test of the NPU: its convolution unit, the IFM upscale and the
    // datapath inside are judged only by the convolution, resize and transpose runs (and the
    // edited streams of a CONV and a DEPTHWISE deeper than 1024 OFM channels, `deep_ofm`).
    (
        "ethos_npu",
        "ethos_npu",
        &[
            "elementwise_networks_run_on_the_npu",
            "pool_networks_run_on_the_npu",
            "large_pool_kernels_run_on_the_npu",
            "bad_streams_stop_with_their_status",
            "conv_networks_run_on_the_npu",
            "transpose_conv_networks_run_on_the_npu",
            "resize_networks_run_on_the_npu",
            "resize_nearest_align_corners_runs_on_the_npu",
            "legacy_core_strided_dilated_convolution_runs_as_the_executor_says",
            "deep_ofm::ofm_deeper_than_1024_channels_runs_as_the_executor_says",
        ],
        0,
    ),
    // NVDLA's nv_small, each unit by the lock-step tests that judge it in bounded time (docs/
    // nvdla.md, "Mutation score"): SDP (every stage, the LUT), PDP and CDP by NVIDIA's 43
    // traces; the convolution pipeline (CDMA, CBUF, CSC, CMAC, CACC, SDP flying) by the
    // random layers and the refused ones; the CSB, both register groups, GLB's interrupts
    // and the LUT access ports, programs NVDLA does not check (an address wrapping at 2^64)
    // and SDP's random layers by `nvdla_registers`' lock-step tests. Left out for time: the
    // dc traces (about 1 M lock-step cycles).
    ("nv_small", "nvdla_player", &["sdp_pdp_and_cdp_traces_pass_on_the_rtl_in_lock_step"], 0),
    ("nv_small", "nvdla_conv", &["random_layers_through_the_rtl_match_the_model_and_the_plain_convolution", "bad_layers_end_without_hanging_on_the_rtl"], 0),
    // CDP's random LRN layers: LO's overflow (a negative slope value) and destinations with
    // address bit 25 set, which the traces do not reach (each killed a mutant, docs/nvdla.md
    // "Mutation score").
    ("nv_small", "nvdla_cdp", &["random_cdp_layers_match_a_plain_lrn"], 0),
    (
        "nv_small",
        "nvdla_registers",
        &[
            "reset_values_and_access_types",
            "interrupt_status_mask_and_set",
            "second_layer_programmed_while_the_first_runs",
            "pdp_groups_and_done_interrupt",
            "lut_access_fills_and_reads_both_tables",
            "convolution_groups_run_until_sdp_takes_the_atoms",
            // Its source from 2^64 - 16 sets SDP's high address bits, which no other test of
            // the suite does (it kills a mutant, docs/nvdla.md "Mutation score").
            "register_programs_nvdla_does_not_check",
            // SDP's random layers: BRDMA's and NRDMA's twelve operand layouts (two-byte ones
            // read a second memory word), which the traces reach only in part.
            "random_layers_against_a_plain_reference",
            // Every bit of BRDMA's and NRDMA's four operand words, 0 and 1, seen at the output
            // (kills BN's word 2 bit 36 stuck at 0, which the random layers missed).
            "operand_words_reach_the_output_bit_by_bit",
        ],
        0,
    ),
];

/// The test binaries of `targets`, built (release) by cargo: target name -> executable.
fn test_binaries(targets: &[&str]) -> Result<std::collections::BTreeMap<String, PathBuf>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = std::process::Command::new(&cargo);
    cmd.current_dir(root()).args(["test", "--release", "--no-run", "--message-format=json", "-p", "npu"]);
    for t in targets {
        cmd.args(["--test", t]);
    }
    eprintln!("building the test binaries ({})", targets.join(", "));
    let out = cmd.stderr(std::process::Stdio::inherit()).output().map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if !out.status.success() {
        return Err("building the test binaries failed (above)".into());
    }
    let mut found = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if let (Some(name), Some(exe)) = (message["target"]["name"].as_str(), message["executable"].as_str()) {
            if message["target"]["kind"][0] == "test" {
                found.insert(name.to_string(), PathBuf::from(exe));
            }
        }
    }
    Ok(found)
}

/// The suite of a top: its test binary with `--exact` and its tests, each checked to exist
/// in the binary's list (a renamed test must not silently stop judging mutants).
fn suite(exe: &Path, tests: &[&str]) -> Result<Suite, String> {
    let out = std::process::Command::new(exe).args(["--list", "--format", "terse"]).output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let listed = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = listed.lines().filter_map(|l| l.strip_suffix(": test")).collect();
    let missing: Vec<&&str> = tests.iter().filter(|t| !names.contains(t)).collect();
    if !missing.is_empty() {
        return Err(format!("npu-gen mutants: {} has no test {} (fix SUITES in gen/src/bin/npu-gen.rs)", exe.display(), missing.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")));
    }
    let args = ["--exact", "--test-threads", "1"].into_iter().chain(tests.iter().copied()).map(String::from).collect();
    Ok(Suite { program: exe.to_path_buf(), args })
}

fn mutation_run(tops: &[npu_gen::Top], options: &Options, only: Option<&str>, list: Option<&Path>) -> Result<(), String> {
    let listed = list.map(|l| mutants::read_list(l).map(|m| (std::path::absolute(l).unwrap_or_else(|_| l.to_path_buf()), m))).transpose()?;
    let mut chosen: Vec<&str> = Vec::new();
    for (top, ..) in SUITES {
        if only.is_none_or(|o| o == *top) && !chosen.contains(top) {
            chosen.push(top);
        }
    }
    if chosen.is_empty() {
        let names: Vec<&str> = SUITES.iter().map(|(t, ..)| *t).collect();
        return Err(format!("npu-gen mutants: no suite for top {} (tops with one: {})", only.unwrap_or(""), names.join(", ")));
    }
    let mut targets: Vec<&str> = SUITES.iter().filter(|(top, ..)| chosen.contains(top)).map(|(_, target, ..)| *target).collect();
    targets.sort_unstable();
    targets.dedup();
    let binaries = test_binaries(&targets)?;
    let style = indicatif::ProgressStyle::with_template("{msg:>14} [{bar:40}] {pos}/{len} mutants, {elapsed} (about {eta} left)")
        .expect("a valid template")
        .progress_chars("=> ");
    let mut results = Vec::new();
    for name in chosen {
        let rows: Vec<_> = SUITES.iter().filter(|(top, ..)| *top == name).collect();
        let options = &Options { cycles: if options.cycles == 0 { rows[0].3 } else { options.cycles }, ..options.clone() };
        let top = tops.iter().find(|t| t.name == name).ok_or_else(|| format!("npu-gen mutants: {name} is not an exported top"))?;
        let suites = rows
            .iter()
            .map(|(_, target, tests, _)| {
                let exe = binaries.get(*target).ok_or_else(|| format!("npu-gen mutants: cargo built no test binary {target}"))?;
                suite(exe, tests)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let bar = indicatif::ProgressBar::new(0).with_style(style.clone()).with_message(name.to_string());
        let progress = |p: Progress| match p {
            Progress::Listed(n) => bar.set_length(n as u64),
            Progress::Done(_) => bar.inc(1),
        };
        let result = match &listed {
            None => mutants::run(top, &suites, options, progress),
            Some((_, mutations)) => mutants::run_these(top, &suites, options, mutations, progress),
        };
        bar.finish();
        let result = result?;
        let (path, report) = match &listed {
            None => (options.dir.join(format!("{name}.md")), mutants::report(top, &result, options)),
            Some((file, _)) => (options.dir.join(format!("{name}-list.md")), mutants::report_of_list(top, &result, options, file)),
        };
        fs::write(&path, report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!(
            "{name}: {} tried, {} killed, {} survived ({} with the unmutated netlist) ({:.1} %), {} did not build; \
             a mutant built in {:.0} s and tested in {:.0} s on average; {}",
            result.tried(),
            result.killed.len(),
            result.survived.len(),
            result.unchanged.len(),
            result.score(),
            result.errors.len(),
            result.per_mutant().0.as_secs_f64(),
            result.per_mutant().1.as_secs_f64(),
            path.display()
        );
        results.push(result);
    }
    println!("\nmutation score (N={} SEED={}; each top's CYCLES in its build/mutants/<top>.md):\n\n{}", options.count, options.seed, mutants::summary(&results));
    Ok(())
}
