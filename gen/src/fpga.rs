//! The FPGA flow of the exported tops: yosys synthesis for iCE40 with the checks that fail
//! the build, nextpnr-ice40 place and route on the HX8K (ct256), the report table, the
//! bitstream, and the gate-level netlist that the co-simulation verilates.
//!
//! Checks on every top (an `Err` names the top and the failed check): no latch after `proc`,
//! `check -assert` before and after synthesis (no combinational loop, no net with several
//! drivers or none), and for tops that hold the FIFO its memory in block RAM.
use crate::Top;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The board's FPGA, and the clock every top is placed and routed for (MHz).
pub const DEVICE: [&str; 3] = ["--hx8k", "--package", "ct256"];
pub const TARGET_MHZ: u32 = 50;

/// Pin constraints per top, relative to the project root; other tops are placed freely.
pub fn pcf(top: &str) -> Option<&'static str> {
    (top == "mnist_npu").then_some("constraints/mnist_npu_ice40hx8k_breakout.pcf")
}

/// Tops that go through the iCE40 flow. Not the Ethos-U65 weight decoder: an ASIC-class
/// block (32-entry queues and 12-position unary chains in one cycle), for which yosys's iCE40
/// mapping did not finish in 15 minutes on the 2-core build machine; the HX8K is not its target.
/// Not the Ethos-U65 blocks generally (an ASIC-class NPU), nor ScaleNPU either: its 64 16x16 multipliers need DSP blocks, which the HX8K does not have.
/// Nor NVDLA's CDP datapath alone: 24 multipliers a cycle (up to 26 x 16 bits) and 32 table reads;
/// nor CMAC (64 8x8 multipliers) and CACC (28 kbit of register files read in the same cycle),
/// nor CDMA (its input converter's 8 17x16-bit multipliers in the cycle of the read data),
/// nor CSC with CBUF (1 Mbit of buffer: the HX8K has 128 kbit of block RAM).
pub fn on_ice40(top: &str) -> bool {
    !matches!(top, "weight_decoder" | "mac_unit" | "output_unit" | "conv_datapath" | "command_front_end" | "ethos_npu" | "cdp_dp" | "cmac" | "cacc" | "cdma" | "csc_cbuf" | "nv_small")
        && !top.starts_with("scale_")
}

/// Tops whose memory must map to block RAM (the FIFO's 128x8).
fn needs_bram(top: &str) -> bool {
    matches!(top, "fifo" | "mnist_npu")
}

#[derive(Clone, Debug, Default)]
pub struct Synthesis {
    pub top: String,
    pub lut4: usize,
    pub dff: usize,
    pub carry: usize,
    pub bram: usize,
    /// Cells of yosys's vendor-neutral `synth`.
    pub generic_cells: usize,
    pub logic_cells: usize,
    pub io: usize,
    /// Post-route maximum clock frequency; `None` without a register-to-register path.
    pub fmax_mhz: Option<f64>,
    /// Longest post-route path from or to a pin (ns).
    pub io_delay_ns: Option<f64>,
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{what}: cannot run `{}`: {e} (run `make deps`)", cmd.get_program().to_string_lossy()))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        Ok(text)
    } else {
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        Err(format!("{what} failed:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n")))
    }
}

fn yosys(script: &str, log: &Path, what: &str) -> Result<String, String> {
    run(Command::new("yosys").arg("-q").arg("-l").arg(log).arg("-p").arg(script), what)?;
    Ok(std::fs::read_to_string(log).unwrap_or_default())
}

/// Count of cells of the types starting with `prefix` in a yosys `stat` output.
fn cells(stat: &str, prefix: &str) -> usize {
    stat.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (name, n) = (w.next()?, w.next()?);
            (name.starts_with(prefix) && w.next().is_none()).then(|| n.parse::<usize>().ok())?
        })
        .sum()
}

/// Synthesises `top` for iCE40 into `dir` (JSON netlist, logs), runs the checks, places and
/// routes it; the project root resolves the pin constraints.
pub fn synthesize(top: &Top, dir: &Path, root: &Path) -> Result<Synthesis, String> {
    let name = top.name;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let verilog = dir.join(format!("{name}.v"));
    std::fs::write(&verilog, &top.verilog).map_err(|e| format!("{}: {e}", verilog.display()))?;
    let json = dir.join(format!("{name}.json"));
    let mut script = format!(
        "read_verilog {v}; hierarchy -check -top {name}; proc; \
         select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr; check -assert; \
         synth_ice40 -top {name} -json {j}; check -assert; tee -o {s} stat",
        v = verilog.display(),
        j = json.display(),
        s = dir.join(format!("{name}.stat")).display()
    );
    if needs_bram(name) {
        script += "; select -assert-min 1 t:SB_RAM40_4K";
    }
    yosys(&script, &dir.join(format!("{name}.yosys.log")), &format!("{name}: yosys synth_ice40 and checks"))?;
    let stat = std::fs::read_to_string(dir.join(format!("{name}.stat"))).unwrap_or_default();
    let generic = yosys(
        &format!("read_verilog {}; synth -top {name}; stat", verilog.display()),
        &dir.join(format!("{name}.generic.log")),
        &format!("{name}: yosys synth"),
    )?;
    let generic_cells = generic.lines().rev().find_map(|l| l.trim().strip_prefix("Number of cells:")).and_then(|n| n.trim().parse().ok()).unwrap_or(0);

    let mut nextpnr = Command::new("nextpnr-ice40");
    nextpnr.args(DEVICE).args(["--seed", "1"]).arg("--freq").arg(TARGET_MHZ.to_string()).arg("--json").arg(&json).arg("--asc").arg(dir.join(format!("{name}.asc")));
    match pcf(name) {
        Some(p) => nextpnr.arg("--pcf").arg(root.join(p)),
        None => nextpnr.arg("--pcf-allow-unconstrained"),
    };
    let log = run(&mut nextpnr, &format!("{name}: nextpnr-ice40"))?;
    std::fs::write(dir.join(format!("{name}.nextpnr.log")), &log).ok();
    let used = |what: &str| {
        log.lines().find_map(|l| l.split_once(&format!("{what}:")).and_then(|(_, r)| r.split('/').next()?.trim().parse().ok())).unwrap_or(0)
    };
    // Timing after routing: the report that follows "Routing complete".
    let routed = log.rsplit_once("Routing complete").map_or("", |(_, r)| r);
    let fmax_mhz = routed.lines().find_map(|l| l.split_once("Max frequency for clock").and_then(|(_, r)| r.split(": ").nth(1)?.split_whitespace().next()?.parse().ok()));
    let io_delay_ns = routed
        .lines()
        .filter_map(|l| l.split_once("Max delay").and_then(|(_, r)| r.rsplit(": ").next()?.split_whitespace().next()?.parse::<f64>().ok()))
        .reduce(f64::max);
    Ok(Synthesis {
        top: name.to_string(),
        lut4: cells(&stat, "SB_LUT4"),
        dff: cells(&stat, "SB_DFF"),
        carry: cells(&stat, "SB_CARRY"),
        bram: cells(&stat, "SB_RAM40_4K"),
        generic_cells,
        logic_cells: used("ICESTORM_LC"),
        io: used("SB_IO"),
        fmax_mhz,
        io_delay_ns,
    })
}

/// The report table (markdown), one row per top.
pub fn report(results: &[Synthesis]) -> String {
    let mut s = format!(
        "| top | LUT4 | flip-flops | carry | block RAM | logic cells (of 7680) | I/O | post-route Fmax (target {TARGET_MHZ} MHz) | generic `synth` cells |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for r in results {
        let timing = match (r.fmax_mhz, r.io_delay_ns) {
            (Some(f), _) => format!("{f:.1} MHz"),
            (None, Some(d)) => format!("no register-to-register path; pin paths {d:.1} ns"),
            (None, None) => "-".into(),
        };
        writeln!(s, "| {} | {} | {} | {} | {} | {} | {} | {timing} | {} |", r.top, r.lut4, r.dff, r.carry, r.bram, r.logic_cells, r.io, r.generic_cells).unwrap();
    }
    s
}

/// The bitstream of a placed and routed top (icepack).
pub fn bitstream(dir: &Path, top: &str) -> Result<PathBuf, String> {
    let bin = dir.join(format!("{top}.bin"));
    run(Command::new("icepack").arg(dir.join(format!("{top}.asc"))).arg(&bin), &format!("{top}: icepack"))?;
    Ok(bin)
}

/// Yosys's simulation models of the iCE40 cells, from its share directory beside the
/// binary (`bin/../share/yosys`, where yosys itself looks for them).
fn ice40_cells_sim() -> Result<String, String> {
    let path = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .find(|dir| dir.join("yosys").is_file())
        .and_then(|bin| Some(bin.parent()?.join("share/yosys/ice40/cells_sim.v")))
        .ok_or("yosys is not on the PATH (run `make deps`)")?;
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The top after iCE40 synthesis as one Verilog text: the netlist of iCE40 cells (LUTs,
/// flip-flops, carries, block RAM) followed by yosys's simulation models of those cells.
/// Ports, names and model are the top's, so the same harness co-simulates it.
pub fn gate_level(top: &Top, dir: &Path) -> Result<Top, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (verilog, netlist) = (dir.join(format!("{}.v", top.name)), dir.join(format!("{}_gates.v", top.name)));
    let script = format!("read_verilog {}; synth_ice40 -top {}; setundef -zero -params; write_verilog -noattr {}", verilog.display(), top.name, netlist.display());
    // Synthesis takes a while: the netlist is made again only when the Verilog or the
    // script changed. (setundef: Verilator cannot take the x in unused RAM init values.)
    let key = dir.join(format!("{}_gates.key", top.name));
    let inputs = format!("{script}\n{}", top.verilog);
    if std::fs::read_to_string(&key).ok() != Some(inputs.clone()) || !netlist.exists() {
        std::fs::remove_file(&key).ok();
        std::fs::write(&verilog, &top.verilog).map_err(|e| format!("{}: {e}", verilog.display()))?;
        yosys(&script, &dir.join(format!("{}_gates.log", top.name)), &format!("{}: gate-level netlist", top.name))?;
        std::fs::write(&key, inputs).map_err(|e| format!("{}: {e}", key.display()))?;
    }
    let text = std::fs::read_to_string(&netlist).map_err(|e| format!("{}: {e}", netlist.display()))?;
    let name: &'static str = Box::leak(format!("{}_gates", top.name).into_boxed_str());
    Ok(Top {
        name,
        model: top.model,
        source: top.source,
        for_users: false,
        gate_level: true,
        verilog: text.replace(&format!("module {}(", top.name), &format!("module {name}(")) + &ice40_cells_sim()?,
        ports: top.ports.clone(),
    })
}

/// An SDC clock constraint (also valid XDC) for a clocked top: the 50 MHz this project
/// places and routes for. The MNIST NPU's datasheet clock is 6.25 MHz (160 ns); the tighter
/// target leaves room for the user's own logic.
pub fn sdc(top: &Top) -> Option<String> {
    let clock = top.clock()?;
    Some(format!(
        "# {name}: clock constraint (SDC; Vivado reads the same line as XDC). Generated by npu-gen.\n\
         create_clock -name {clock} -period {period:.3} [get_ports {{{clock}}}]\n",
        name = top.name,
        period = 1000.0 / f64::from(TARGET_MHZ)
    ))
}

/// A FuseSoC core description (CAPI 2) for a top, next to its Verilog: a `default` target,
/// a Verilator `lint` target, and for the chip the iCE40-HX8K breakout board's bitstream
/// (`hx8k_breakout`) with the pin constraints copied beside it.
pub fn fusesoc_core(top: &Top) -> String {
    let name = top.name;
    let (sdc_fileset, sdc_use) = match sdc(top) {
        Some(_) => (format!("  constraints:\n    files:\n      - {name}.sdc: {{file_type: SDC}}\n"), ", constraints"),
        None => (String::new(), ""),
    };
    let mut core = format!(
        "CAPI=2:\n\
         # Generated by npu-gen from {source}. Do not edit.\n\
         name: npu-rtl:{family}:{name}:0.1.0\n\
         description: \"{name} of the {family} NPU (npu-rtl, rust-hdl export)\"\n\
         filesets:\n  rtl:\n    files:\n      - {name}.v\n    file_type: verilogSource\n{sdc_fileset}",
        source = top.source,
        family = top.family()
    );
    if let Some(pcf) = pcf(name) {
        let file = Path::new(pcf).file_name().unwrap().to_string_lossy();
        core += &format!("  board:\n    files:\n      - {file}: {{file_type: PCF}}\n");
    }
    core += &format!(
        "targets:\n  default:\n    filesets: [rtl{sdc_use}]\n    toplevel: {name}\n  \
         lint:\n    default_tool: verilator\n    filesets: [rtl]\n    toplevel: {name}\n    \
         tools:\n      verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n"
    );
    if pcf(name).is_some() {
        core += &format!(
            "  hx8k_breakout:\n    default_tool: icestorm\n    filesets: [rtl, board]\n    toplevel: {name}\n    \
             tools:\n      icestorm:\n        pnr: next\n        nextpnr_options: [--hx8k, --package, ct256, --freq, '{TARGET_MHZ}']\n"
        );
    }
    core
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_that_does_not_start_is_named_without_debug_quotes() {
        let e = run(&mut Command::new("npu-no-such-tool"), "the test").unwrap_err();
        assert!(e.starts_with("the test: cannot run `npu-no-such-tool`: "), "{e}");
        assert!(e.ends_with(" (run `make deps`)") && !e.contains('"'), "{e}");
    }
}
