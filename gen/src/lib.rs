//! Verilog export of every top-level block.
//!
//! [`tops`] is the one list of exported tops. For each, rust-hdl's Verilog is renamed so the
//! top module carries the block's name and every internal module is prefixed with it
//! (`mac`, `mac__adder`, ...): all exported files can be read into one Verilator or yosys run
//! with no name clash. The port list, parsed back from the export, is the manifest from which
//! the co-simulation bridge generates its C++ shim and Rust handle.
use npu_hdl::mnist;

pub mod bridge;
pub mod c_header;
pub mod fpga;
pub mod mutants;
/// The ScaleNPU register map the CSR block and the C header are generated from.
pub use npu_hdl::scale::regmap;
use rust_hdl::prelude::{generate_verilog, Block};

/// One exported top.
#[derive(Clone)]
pub struct Top {
    /// Module and file name.
    pub name: &'static str,
    /// Path of the behavioural model (a `npu_model::Block`) the top is co-simulated against.
    pub model: &'static str,
    /// The rust-hdl source, for the file header.
    pub source: &'static str,
    /// False for tops that exist only to test the test bench (deliberately broken copies):
    /// they are verilated but never written to the user's Verilog folder.
    pub for_users: bool,
    /// A netlist after synthesis with the vendor's cell models ([`fpga::gate_level`]), not
    /// rust-hdl output: verilated without `-Wall`, as the cell library is not lint-clean.
    pub gate_level: bool,
    /// Complete file text: header, waivers, modules.
    pub verilog: String,
    pub ports: Vec<Port>,
}

/// Names a clock input may have: `clock` in the blocks, `CLKEXT` at the chip's pins.
pub const CLOCK_PORTS: [&str; 2] = ["clock", "CLKEXT"];

impl Top {
    /// The NPU the block belongs to, the folder of its source (`mnist`, `ethos`, `scale`):
    /// the library part of its FuseSoC core name.
    pub fn family(&self) -> &'static str {
        self.source.split('/').nth(2).expect("sources are hdl/src/<npu>/<block>.rs")
    }

    /// The clock input, if the top has one.
    pub fn clock(&self) -> Option<&str> {
        self.ports.iter().map(|p| p.name.as_str()).find(|n| CLOCK_PORTS.contains(n))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub direction: Direction,
    pub width: usize,
    pub signed: bool,
}

/// Every exported top, in a stable order.
pub fn tops() -> Vec<Top> {
    // The largest tops take more stack to build than a test thread has.
    npu_hdl::on_large_stack(build_tops)
}

fn build_tops() -> Vec<Top> {
    vec![
        export("input_buffer", "npu_model::mnist::input_buffer::InputBuffer", "hdl/src/mnist/input_buffer.rs", true, mnist::InputBuffer::default()),
        export("two_casc", "npu_model::mnist::two_casc::TwoCasc", "hdl/src/mnist/two_casc.rs", true, mnist::TwoCasc::default()),
        export("mac", "npu_model::mnist::mac::Mac", "hdl/src/mnist/mac.rs", true, mnist::Mac::default()),
        export("piso_deb", "npu_model::mnist::piso_deb::PisoDeb", "hdl/src/mnist/piso_deb.rs", true, mnist::PisoDeb::default()),
        export("ssfr", "npu_model::mnist::ssfr::Ssfr", "hdl/src/mnist/ssfr.rs", true, mnist::Ssfr::default()),
        export("relu", "npu_model::mnist::relu::Relu", "hdl/src/mnist/relu.rs", true, mnist::Relu::default()),
        export("piso_out", "npu_model::mnist::piso_out::PisoOut", "hdl/src/mnist/piso_out.rs", true, mnist::PisoOut::default()),
        export("output_mux", "npu_model::mnist::output_mux::OutputMux", "hdl/src/mnist/output_mux.rs", true, mnist::OutputMux::default()),
        export("fifo", "npu_model::mnist::fifo::Fifo", "hdl/src/mnist/fifo.rs", true, mnist::Fifo::default()),
        export("comparator", "npu_model::mnist::comparator::Comparator", "hdl/src/mnist/comparator.rs", true, mnist::Comparator::default()),
        export("downcounter", "npu_model::mnist::downcounter::Downcounter", "hdl/src/mnist/downcounter.rs", true, mnist::Downcounter::default()),
        export("fsm_acc", "npu_model::mnist::fsm_acc::FsmAcc", "hdl/src/mnist/fsm_acc.rs", true, mnist::FsmAcc::default()),
        export("fsm_out", "npu_model::mnist::fsm_out::FsmOut", "hdl/src/mnist/fsm_out.rs", true, mnist::FsmOut::default()),
        export("mnist_npu", "npu_model::mnist::chip::Chip", "hdl/src/mnist/chip.rs", true, mnist::Chip::default()),
        export(
            "weight_decoder",
            "npu_model::ethos::weight_decoder::WeightDecoder",
            "hdl/src/ethos/weight_decoder.rs",
            true,
            npu_hdl::ethos::WeightDecoder::default(),
        ),
        export("scale_csr", "npu_model::scale::csr::Csr", "hdl/src/scale/csr.rs", true, npu_hdl::scale::Csr::default()),
        export("mac_unit", "npu_model::ethos::mac_unit::MacUnit", "hdl/src/ethos/mac_unit.rs", true, npu_hdl::ethos::MacUnit::default()),
        export("output_unit", "npu_model::ethos::output_unit::OutputUnit", "hdl/src/ethos/output_unit.rs", true, npu_hdl::ethos::OutputUnit::default()),
        export(
            "conv_datapath",
            "npu_model::ethos::conv_datapath::ConvDatapath",
            "hdl/src/ethos/conv_datapath.rs",
            true,
            npu_hdl::ethos::ConvDatapath::default(),
        ),
        export(
            "command_front_end",
            "npu_model::ethos::command_front_end::CommandFrontEnd",
            "hdl/src/ethos/command_front_end.rs",
            true,
            npu_hdl::ethos::CommandFrontEnd::default(),
        ),
        export("ethos_npu", "npu_model::ethos::npu::Npu", "hdl/src/ethos/npu.rs", true, npu_hdl::ethos::Npu::default()),
        export("scale_npu", "npu_model::scale::scale_npu::ScaleNpu", "hdl/src/scale/scale_npu.rs", true, npu_hdl::scale::ScaleNpu::default()),
        export("nv_small", "npu_model::nvdla::nv_small::NvSmall", "hdl/src/nvdla/nv_small.rs", true, npu_hdl::nvdla::NvSmall::default()),
        export("cdp_dp", "npu_model::nvdla::cdp_dp::CdpDp", "hdl/src/nvdla/cdp_dp.rs", true, npu_hdl::nvdla::cdp_dp::CdpDp::default()),
        export("cmac", "npu_model::nvdla::cmac::Cmac", "hdl/src/nvdla/cmac.rs", true, npu_hdl::nvdla::Cmac::default()),
        export("cacc", "npu_model::nvdla::cacc::Cacc", "hdl/src/nvdla/cacc.rs", true, npu_hdl::nvdla::Cacc::default()),
        export("csc_cbuf", "npu_model::nvdla::csc_cbuf::CscCbuf", "hdl/src/nvdla/csc_cbuf.rs", true, npu_hdl::nvdla::CscCbuf::default()),
        export("cube_walk", "npu_model::nvdla::cube_walk::CubeWalk", "hdl/src/nvdla/cube_walk.rs", true, npu_hdl::nvdla::CubeWalk::default()),
        export("cdma", "npu_model::nvdla::cdma::Cdma", "hdl/src/nvdla/cdma.rs", true, npu_hdl::nvdla::Cdma::default()),
        export("scale_engine", "npu_model::scale::engine::Engine", "hdl/src/scale/engine.rs", true, npu_hdl::scale::Engine::default()),
        // The 2CASC with a wrong positive limit (0x7FFE): tests/two_casc.rs shows the harness
        // reports it against the correct model.
        export(
            "two_casc_broken",
            "npu_model::mnist::two_casc::TwoCasc",
            "hdl/src/mnist/two_casc.rs",
            false,
            mnist::TwoCasc::with_limits(0x7FFE, -0x8000),
        ),
    ]
}

/// Verilator warning classes that rust-hdl's output style forces, waived in every exported
/// file from this one list. Functional classes (LATCH, MULTIDRIVEN, WIDTH, CMPCONST,
/// UNSIGNED, COMBDLY, ...) are never waived: WIDTH in Verilator 5.006 covers truncation too,
/// so the blocks are written not to raise it at all (see `npu_hdl`).
pub const LINT_WAIVERS: &[(&str, &str)] = &[
    (
        "DECLFILENAME",
        "rust-hdl writes a top and all its sub-modules into one file, so only the top's name can match the file name",
    ),
];

/// The comment and `lint_off` lines of [`LINT_WAIVERS`] that head every Verilog file npu-gen
/// writes (the exported tops, and the netlists `make mutants` builds from them).
pub fn lint_waivers() -> String {
    let mut s = "// Waivers, one list for the whole project (gen/src/lib.rs, LINT_WAIVERS):\n".to_string();
    for (rule, why) in LINT_WAIVERS {
        s += &format!("//   {rule}: {why}.\n/* verilator lint_off {rule} */\n");
    }
    s
}

fn export(name: &'static str, model: &'static str, source: &'static str, for_users: bool, mut block: impl Block) -> Top {
    block.connect_all();
    let body = rename_modules(&generate_verilog(&block), name);
    let ports = parse_ports(&body, name);
    for p in &ports {
        assert!(p.name != name && p.name != "top", "{name}: a port may not be called {:?} (Verilator rejects a port named like its module)", p.name);
    }
    let mut verilog = format!("// {name}: generated from {source} by npu-gen. Do not edit: change the rust-hdl source and run `make verilog`.\n");
    verilog += &lint_waivers();
    verilog += body.trim_start();
    Top { name, model, source, for_users, gate_level: false, verilog, ports }
}

/// rust-hdl names the top `top` and sub-modules `top$path$to$child`; make them `name` and
/// `name__path__to__child`.
fn rename_modules(verilog: &str, name: &str) -> String {
    let mut out = String::with_capacity(verilog.len());
    let mut rest = verilog;
    while let Some(at) = rest.find("top") {
        out += &rest[..at];
        let starts_ident = !out.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        let tail = &rest[at + 3..];
        let ident_len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(tail.len());
        let suffix = &tail[..ident_len];
        if starts_ident && (suffix.is_empty() || suffix.starts_with('$')) {
            out += name;
            out += &suffix.replace('$', "__");
        } else {
            out += "top";
            out += suffix;
        }
        rest = &tail[ident_len..];
    }
    out + rest
}

/// The ports of the first (top) module, from rust-hdl's "Module arguments" declarations,
/// e.g. `input wire signed [7:0] data_a;`.
fn parse_ports(verilog: &str, name: &str) -> Vec<Port> {
    let start = verilog.find("// Module arguments").unwrap_or_else(|| panic!("{name}: no module arguments"));
    verilog[start..]
        .lines()
        .skip(1)
        .map(str::trim)
        .take_while(|l| l.starts_with("input") || l.starts_with("output"))
        .map(|line| {
            let words: Vec<&str> = line.trim_end_matches(';').split_whitespace().collect();
            let direction = if words[0] == "input" { Direction::In } else { Direction::Out };
            let width = words
                .iter()
                .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(":0]")))
                .map_or(1, |msb| msb.parse::<usize>().expect("port range") + 1);
            Port {
                name: words.last().unwrap().to_string(),
                direction,
                width,
                signed: words.contains(&"signed"),
            }
        })
        .collect()
}

/// Writes into `out`, per top, its Verilog, its FuseSoC core, its SDC/XDC clock constraint
/// (clocked tops) and its board pin constraints (from `root`/constraints), then `ports.json`
/// and the ScaleNPU register header ([`c_header::FILE_NAME`]).
/// Returns the files written.
pub fn write_user_files(tops: &[Top], out: &std::path::Path, root: &std::path::Path) -> Result<Vec<std::path::PathBuf>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = Vec::new();
    let mut write = |name: String, text: &str| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
        Ok::<(), String>(())
    };
    for top in tops {
        write(format!("{}.v", top.name), &top.verilog)?;
        write(format!("{}.core", top.name), &fpga::fusesoc_core(top))?;
        if let Some(sdc) = fpga::sdc(top) {
            write(format!("{}.sdc", top.name), &sdc)?;
        }
        if let Some(pcf) = fpga::pcf(top.name) {
            let text = std::fs::read_to_string(root.join(pcf)).map_err(|e| format!("{pcf}: {e}"))?;
            write(std::path::Path::new(pcf).file_name().unwrap().to_string_lossy().into(), &text)?;
        }
    }
    write("ports.json".into(), &manifest_json(tops))?;
    write(c_header::FILE_NAME.into(), &c_header::scale_npu_header())?;
    Ok(written)
}

/// One top in `ports.json`: where it comes from and its ports.
#[derive(serde::Serialize)]
struct ManifestTop<'a> {
    source: &'a str,
    model: &'a str,
    ports: Vec<ManifestPort<'a>>,
}

#[derive(serde::Serialize)]
struct ManifestPort<'a> {
    name: &'a str,
    /// `input` or `output`, as Verilog names them.
    direction: &'a str,
    width: usize,
    signed: bool,
}

/// The port manifest of all tops as JSON (written by `make verilog` next to the Verilog): an
/// object with one member per top, in the order of [`tops`].
pub fn manifest_json(tops: &[Top]) -> String {
    // A map serialized from an iterator keeps the tops' order (a BTreeMap would sort them).
    struct Tops<'a>(&'a [Top]);
    impl serde::Serialize for Tops<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|t| (t.name, ManifestTop::of(t))))
        }
    }
    serde_json::to_string_pretty(&Tops(tops)).expect("serializing to memory cannot fail") + "\n"
}

impl<'a> ManifestTop<'a> {
    fn of(top: &'a Top) -> Self {
        let port = |p: &'a Port| ManifestPort {
            name: &p.name,
            direction: if p.direction == Direction::In { "input" } else { "output" },
            width: p.width,
            signed: p.signed,
        };
        ManifestTop { source: top.source, model: top.model, ports: top.ports.iter().map(port).collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_top_and_submodules_only() {
        let v = "module top(a);\n top$adder$x adder(.a(stop$d));\nendmodule // top\nmodule top$adder$x(a);\n";
        assert_eq!(
            rename_modules(v, "mac"),
            "module mac(a);\n mac__adder__x adder(.a(stop$d));\nendmodule // mac\nmodule mac__adder__x(a);\n"
        );
    }

    #[test]
    fn manifest_parses_back_into_tops_with_their_ports_in_order() {
        let port = |name: &str, direction, width, signed| Port { name: name.into(), direction, width, signed };
        let top = |name, ports| Top {
            name,
            model: "npu_model::x::Y",
            source: "hdl/src/mnist/x.rs",
            for_users: true,
            gate_level: false,
            verilog: String::new(),
            ports,
        };
        // Names that need escaping in JSON come out escaped.
        let tops = [
            top("zeta", vec![port("clock", Direction::In, 1, false), port("q\"\\", Direction::Out, 96, true)]),
            top("alpha", vec![]),
        ];
        let text = manifest_json(&tops);
        let json: serde_json::Value = serde_json::from_str(&text).expect("ports.json is JSON");
        let expected = serde_json::json!({
            "zeta": {
                "source": "hdl/src/mnist/x.rs",
                "model": "npu_model::x::Y",
                "ports": [
                    {"name": "clock", "direction": "input", "width": 1, "signed": false},
                    {"name": "q\"\\", "direction": "output", "width": 96, "signed": true}
                ]
            },
            "alpha": {"source": "hdl/src/mnist/x.rs", "model": "npu_model::x::Y", "ports": []}
        });
        assert_eq!(json, expected);
        // (serde_json::Value sorts its keys, so the order is checked in the text.)
        assert!(text.find("\"zeta\"") < text.find("\"alpha\""), "the tops keep their order:\n{text}");
    }

    #[test]
    fn parses_port_declarations() {
        let v = "module m(clock,a,y);\n    // Module arguments\n    input wire  clock;\n    input wire signed [7:0] a;\n    output reg  [95:0] y;\n\n";
        let p = parse_ports(v, "m");
        assert_eq!(p.len(), 3);
        assert_eq!((p[1].name.as_str(), p[1].width, p[1].signed), ("a", 8, true));
        assert_eq!((p[2].direction, p[2].width, p[2].signed), (Direction::Out, 96, false));
        assert_eq!(p[0].width, 1);
    }
}
