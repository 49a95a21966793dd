//! Verilates every top of `npu_gen::tops()` and generates, with no per-block glue:
//! - `shim.cpp`: per top, a C ABI (`npu_<top>_new/free/step/run`) over the Verilated model,
//!   where one `step` call applies all inputs, samples all outputs and clocks one cycle;
//! - `handles.rs`: per top, a typed Rust handle implementing `Dut` whose `step` takes and
//!   returns the behavioural model's own port structs (fields named as the rust-hdl ports).
//!
//! Verilator's runtime is compiled once into `$OUT_DIR` and reused; a top is re-verilated
//! only when its Verilog text changes.
use npu_gen::{Direction, Port, Top};
use std::{env, fmt::Write as _, fs, path::Path, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let mut tops = npu_gen::tops();
    // The chip after iCE40 synthesis, with yosys's cell models: tests/gate_level.rs shows
    // synthesis does not change its behaviour.
    let chip = tops.iter().find(|t| t.name == "mnist_npu").expect("the chip is a top");
    tops.push(npu_gen::fpga::gate_level(chip, &out.join("gates")).unwrap_or_else(|e| panic!("\n\n{e}\n\n")));
    let root = verilator_root();

    // Verilate the tops in parallel (make runs in each folder).
    std::thread::scope(|s| {
        for top in &tops {
            let out = &out;
            s.spawn(move || verilate(top, out));
        }
    });

    build_runtime(&out, &root);
    let shim = out.join("shim.cpp");
    write_if_changed(&shim, &shim_cpp(&tops));
    let mut cc = verilator_cc(&root);
    cc.file(&shim).flag("-Wno-unused-parameter");
    for top in &tops {
        cc.include(out.join(format!("obj_{}", top.name)));
    }
    cc.compile("npu_shim");
    for top in &tops {
        println!("cargo:rustc-link-search=native={}", out.join(format!("obj_{}", top.name)).display());
        println!("cargo:rustc-link-lib=static=V{}", top.name);
    }
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=verilated_runtime");
    println!("cargo:rustc-link-lib=z");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=stdc++");
    write_if_changed(&out.join("handles.rs"), &handles_rs(&tops));
}

/// Where Verilator's runtime sources are, as the installed Verilator reports it.
fn verilator_root() -> String {
    match Command::new("verilator").args(["--getenv", "VERILATOR_ROOT"]).output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => panic!("\n\nnpu-cosim needs Verilator 5 and zlib: run `make deps` (Debian: apt-get install verilator zlib1g-dev)\n\n"),
    }
}

fn write_if_changed(path: &Path, text: &str) -> bool {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return false;
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    true
}

fn run(cmd: &mut Command) {
    let output = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !output.status.success() {
        panic!(
            "{cmd:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn verilate(top: &Top, out: &Path) {
    let vdir = out.join("verilog");
    fs::create_dir_all(&vdir).unwrap();
    let vfile = vdir.join(format!("{}.v", top.name));
    let obj = out.join(format!("obj_{}", top.name));
    let lib = obj.join(format!("libV{}.a", top.name));
    if !write_if_changed(&vfile, &top.verilog) && lib.exists() {
        return;
    }
    let _ = fs::remove_dir_all(&obj);
    // --x-assign/--x-initial unique: every bit without a reset starts from a value chosen by
    // the seed given at run time, so tests prove that no state depends on `initial` values.
    let warnings: &[&str] = if top.gate_level { &["-Wno-fatal", "-Wno-lint", "-Wno-style", "-DNO_ICE40_DEFAULT_ASSIGNMENTS", "--timescale", "1ns/1ps"] } else { &["-Wall"] };
    run(Command::new("verilator")
        .args(["--cc", "--trace-fst", "-O3", "--x-assign", "unique", "--x-initial", "unique"])
        .args(warnings)
        .arg("--prefix")
        .arg(format!("V{}", top.name))
        .arg("--top-module")
        .arg(top.name)
        .arg("-Mdir")
        .arg(&obj)
        .arg(&vfile));
    run(Command::new("make")
        .arg("-C")
        .arg(&obj)
        .arg("-f")
        .arg(format!("V{}.mk", top.name))
        .arg(format!("V{}__ALL.a", top.name))
        .arg("OPT_FAST=-O2")
        .arg("OPT_SLOW=-O1")
        .arg("VM_PARALLEL_BUILDS=1"));
    fs::rename(obj.join(format!("V{}__ALL.a", top.name)), &lib).unwrap();
}

/// Verilator's runtime (context, FST writer, thread pool), compiled once per `OUT_DIR`.
fn build_runtime(out: &Path, root: &str) {
    if out.join("libverilated_runtime.a").exists() {
        return;
    }
    verilator_cc(root)
        .files(["verilated.cpp", "verilated_fst_c.cpp", "verilated_threads.cpp"].map(|f| format!("{root}/include/{f}")))
        .flag("-w")
        .cargo_metadata(false)
        .compile("verilated_runtime");
}

/// A C++ build against Verilator's headers, with FST tracing compiled in.
fn verilator_cc(root: &str) -> cc::Build {
    let mut cc = cc::Build::new();
    cc.cpp(true)
        .include(format!("{root}/include"))
        .include(format!("{root}/include/vltstd"))
        .flag("-std=c++17")
        .flag("-O2")
        .define("VM_TRACE", "1")
        .define("VM_TRACE_FST", "1");
    cc
}

fn words(p: &Port) -> usize {
    p.width.div_ceil(32)
}

fn inputs(top: &Top) -> impl Iterator<Item = &Port> {
    top.ports.iter().filter(|p| p.direction == Direction::In && !npu_gen::CLOCK_PORTS.contains(&p.name.as_str()))
}

fn outputs(top: &Top) -> impl Iterator<Item = &Port> {
    top.ports.iter().filter(|p| p.direction == Direction::Out)
}

/// C++ to copy one port between the word array and the Verilated model.
fn copy_in(p: &Port) -> String {
    let n = &p.name;
    match p.width {
        0..=32 => format!("m->{n} = i->{n}[0];"),
        33..=64 => format!("m->{n} = (uint64_t)i->{n}[0] | ((uint64_t)i->{n}[1] << 32);"),
        _ => format!("for (int k = 0; k < {}; ++k) m->{n}[k] = i->{n}[k];", words(p)),
    }
}

fn copy_out(p: &Port) -> String {
    let n = &p.name;
    match p.width {
        0..=32 => format!("o->{n}[0] = m->{n};"),
        33..=64 => format!("o->{n}[0] = (uint32_t)m->{n}; o->{n}[1] = (uint32_t)(m->{n} >> 32);"),
        _ => format!("for (int k = 0; k < {}; ++k) o->{n}[k] = m->{n}[k];", words(p)),
    }
}

fn shim_cpp(tops: &[Top]) -> String {
    let mut s = String::from(
        "// Generated by npu-cosim's build.rs. Do not edit.\n\
         #include <cstdint>\n#include <cstddef>\n#include \"verilated.h\"\n#include \"verilated_fst_c.h\"\n\n\
         // One clock period in trace time units (ns): the MNIST NPU's 6.25 MHz.\n\
         static const uint64_t PERIOD = 160;\n\
         static inline uint64_t fold(uint64_t h, uint32_t w) { return (h ^ w) * 0x100000001b3ULL; }\n",
    );
    for top in tops {
        let t = top.name;
        writeln!(s, "\n#include \"V{t}.h\"\nnamespace {t}_ns {{").unwrap();
        for (kind, ports) in [("In", inputs(top).collect::<Vec<_>>()), ("Out", outputs(top).collect())] {
            write!(s, "struct {kind} {{").unwrap();
            for p in &ports {
                write!(s, " uint32_t {}[{}];", p.name, words(p)).unwrap();
            }
            if ports.is_empty() {
                s += " uint32_t unused_;";
            }
            s += " };\n";
        }
        writeln!(s, "struct H {{ VerilatedContext* ctx; V{t}* m; VerilatedFstC* fst; uint64_t t; }};").unwrap();
        s += "static inline void apply(V";
        s += t;
        s += "* m, const In* i) {";
        for p in inputs(top) {
            s += " ";
            s += &copy_in(p);
        }
        writeln!(s, " }}\nstatic inline void sample(V{t}* m, Out* o) {{").unwrap();
        for p in outputs(top) {
            s += " ";
            s += &copy_out(p);
        }
        s += " }\n";
        s += "static inline void cycle(H* h, const In* i, Out* o) {\n    apply(h->m, i); h->m->eval(); sample(h->m, o);\n    if (h->fst) h->fst->dump(h->t);\n";
        if let Some(clk) = top.clock() {
            // The falling edge is left for the next cycle's eval, which sees it before any
            // input change: one eval per edge.
            writeln!(s, "    h->m->{clk} = 1; h->m->eval();\n    if (h->fst) h->fst->dump(h->t + PERIOD / 2);\n    h->m->{clk} = 0;").unwrap();
        }
        s += "    h->t += PERIOD;\n}\n}\n";
        writeln!(
            s,
            "extern \"C\" void* npu_{t}_new(uint64_t x_seed, const char* waves) {{\n\
             \x20   using namespace {t}_ns;\n\
             \x20   H* h = new H();\n\
             \x20   h->ctx = new VerilatedContext();\n\
             \x20   // x_seed 0: state without reset starts as 0; otherwise as random bits from that seed.\n\
             \x20   h->ctx->randReset(x_seed ? 2 : 0);\n\
             \x20   if (x_seed) h->ctx->randSeed((int)(x_seed % 2147483647) + 1);\n\
             \x20   h->ctx->traceEverOn(waves != nullptr);\n\
             \x20   Verilated::threadContextp(h->ctx);\n\
             \x20   h->m = new V{t}(h->ctx, \"{t}\");\n\
             \x20   if (waves) {{ h->fst = new VerilatedFstC(); h->m->trace(h->fst, 99); h->fst->open(waves); }}\n\
             \x20   return h;\n}}\n\
             extern \"C\" void npu_{t}_free(void* p) {{\n\
             \x20   using namespace {t}_ns;\n\
             \x20   H* h = (H*)p;\n\
             \x20   if (h->fst) {{ h->fst->close(); delete h->fst; }}\n\
             \x20   h->m->final(); delete h->m; delete h->ctx; delete h;\n}}\n\
             extern \"C\" void npu_{t}_step(void* p, const {t}_ns::In* i, {t}_ns::Out* o) {{ {t}_ns::cycle(({t}_ns::H*)p, i, o); }}\n\
             // The same cycles in a plain C++ loop, for the bridge-overhead benchmark.\n\
             extern \"C\" uint64_t npu_{t}_run(void* p, const {t}_ns::In* i, size_t n) {{\n\
             \x20   using namespace {t}_ns;\n\
             \x20   H* h = (H*)p; Out o; uint64_t sum = 0xcbf29ce484222325ULL;\n\
             \x20   for (size_t c = 0; c < n; ++c) {{\n\
             \x20       cycle(h, &i[c], &o);\n\
             \x20       for (size_t w = 0; w < sizeof(Out) / 4; ++w) sum = fold(sum, ((const uint32_t*)&o)[w]);\n\
             \x20   }}\n\
             \x20   return sum;\n}}"
        )
        .unwrap();
    }
    s
}

fn camel(name: &str) -> String {
    name.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}

fn handles_rs(tops: &[Top]) -> String {
    let mut s = String::from("// Generated by npu-cosim's build.rs from npu_gen::tops(). Do not edit.\n");
    s += "\n/// (name, Verilog) of every rust-hdl export, the test-only ones included (not the\n/// gate-level netlists, whose cell library is not lint-clean).\npub const ALL: &[(&str, &str)] = &[\n";
    for top in tops.iter().filter(|t| !t.gate_level) {
        writeln!(s, "    ({t}::{ty}::NAME, {t}::{ty}::VERILOG),", t = top.name, ty = camel(top.name)).unwrap();
    }
    s += "];\n";
    for top in tops {
        let t = top.name;
        let ty = camel(t);
        let model = top.model;
        let port_list = |ports: Vec<&Port>| -> String {
            ports
                .iter()
                .map(|p| {
                    format!(
                        "PortInfo {{ name: \"{}\", direction: {}, width: {}, signed: {} }}",
                        p.name,
                        if p.direction == Direction::In { "PortDirection::In" } else { "PortDirection::Out" },
                        p.width,
                        p.signed
                    )
                })
                .collect::<Vec<_>>()
                .join(",\n            ")
        };
        let raw_fields = |ports: Vec<&Port>| -> String {
            let f: String = ports.iter().map(|p| format!("pub {}: [u32; {}], ", p.name, words(p))).collect();
            if f.is_empty() { "unused_: [u32; 1]".into() } else { f }
        };
        let pack: String = inputs(top)
            .map(|p| format!("{n}: PortValue::to_words(&i.{n}, \"{t}.{n}\", {w}), ", n = p.name, w = p.width))
            .collect();
        let unpack: String = outputs(top)
            .map(|p| format!("{n}: PortValue::from_words(&o.{n}, {w}, {sg}), ", n = p.name, w = p.width, sg = p.signed))
            .collect();
        let fold: String = outputs(top)
            .map(|p| format!("for w in PortValue::to_words::<{k}>(&o.{n}, \"{t}.{n}\", {w}) {{ h = fold_word(h, w); }} ", k = words(p), n = p.name, w = p.width))
            .collect();
        let all_ports = port_list(top.ports.iter().collect());
        let raw_in = raw_fields(inputs(top).collect());
        let raw_out = raw_fields(outputs(top).collect());
        writeln!(
            s,
            r#"
/// Verilated `{t}` (`{source}`), co-simulated against `{model}`.
pub mod {t} {{
    use super::*;
    type In = <{model} as npu_model::Block>::In;
    type Out = <{model} as npu_model::Block>::Out;

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct RawIn {{ {raw_in} }}
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    pub struct RawOut {{ {raw_out} }}

    extern "C" {{
        fn npu_{t}_new(x_seed: u64, waves: *const c_char) -> *mut c_void;
        fn npu_{t}_free(handle: *mut c_void);
        fn npu_{t}_step(handle: *mut c_void, i: *const RawIn, o: *mut RawOut);
        fn npu_{t}_run(handle: *mut c_void, i: *const RawIn, n: usize) -> u64;
    }}

    pub struct {ty} {{ handle: *mut c_void }}

    impl Drop for {ty} {{
        fn drop(&mut self) {{ unsafe {{ npu_{t}_free(self.handle) }} }}
    }}

    impl Dut for {ty} {{
        type Model = {model};
        type RawIn = RawIn;
        const NAME: &'static str = "{t}";
        const VERILOG: &'static str = include_str!(concat!(env!("OUT_DIR"), "/verilog/{t}.v"));
        const PORTS: &'static [PortInfo] = &[
            {all_ports}
        ];

        fn open(options: &DutOptions) -> Self {{
            let waves = options.waves.as_ref().map(|p| CString::new(p.to_string_lossy().as_bytes()).expect("waveform path"));
            let handle = unsafe {{ npu_{t}_new(options.x_seed, waves.as_ref().map_or(std::ptr::null(), |w| w.as_ptr())) }};
            Self {{ handle }}
        }}

        #[inline]
        fn pack(i: &In) -> RawIn {{
            RawIn {{ {pack}..Default::default() }}
        }}

        #[inline]
        fn step(&mut self, i: &In) -> Out {{
            let raw = Self::pack(i);
            let mut o = RawOut::default();
            unsafe {{ npu_{t}_step(self.handle, &raw, &mut o) }};
            Out {{ {unpack} }}
        }}

        fn run_raw(&mut self, inputs: &[RawIn]) -> u64 {{
            unsafe {{ npu_{t}_run(self.handle, inputs.as_ptr(), inputs.len()) }}
        }}

        #[inline]
        fn fold_outputs(mut h: u64, o: &Out) -> u64 {{
            {fold}
            h
        }}
    }}
}}"#,
            source = top.source,
        )
        .unwrap();
    }
    s
}
