//! The Verilator bridge of a top, in one place for both of its users:
//! - `cosim/build.rs` verilates every top into a static library and links the C++ shim of all
//!   of them into the co-simulation crate;
//! - the mutation run ([`crate::mutants`]) verilates one mutated netlist of a top into a
//!   shared library with the same shim, which the top's Rust handle opens at run time
//!   ([`MutantLibrary`]) when the environment names it.
//!
//! The shim gives each top a C ABI, `npu_<top>_new/free/step/run/ports`, over the Verilated
//! model, where one `step` call applies all inputs, samples all outputs and clocks one cycle.
use crate::{Direction, Port, Top};
use std::{fmt::Write as _, fs, path::Path, path::PathBuf, process::Command};

/// The environment variables that swap one top's Verilated model for a mutant's shared
/// library: `NPU_MUTANT_TOP=<top>` and `NPU_MUTANT_LIB=<path of the .so>`.
pub const MUTANT_TOP_VAR: &str = "NPU_MUTANT_TOP";
pub const MUTANT_LIB_VAR: &str = "NPU_MUTANT_LIB";

/// Where Verilator's runtime sources are, as the installed Verilator reports it.
pub fn verilator_root() -> Result<String, String> {
    match Command::new("verilator").args(["--getenv", "VERILATOR_ROOT"]).output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        _ => Err("npu-cosim needs Verilator 5 and zlib: run `make deps` (Debian: apt-get install verilator zlib1g-dev)".into()),
    }
}

/// C++ flags for compiling against Verilator's headers. `trace`: FST tracing compiled in
/// (`VM_TRACE`, which the shim's trace calls depend on), as in the static build; a mutant's
/// shared library is built without it (see [`Flavour::Mutant`]).
pub fn cxx_flags(root: &str, trace: bool) -> Vec<String> {
    let flags: &[&str] = if trace { &["-std=c++17", "-O2", "-DVM_TRACE=1", "-DVM_TRACE_FST=1"] } else { &["-std=c++17", "-O2", "-DVM_TRACE=0"] };
    [format!("-I{root}/include"), format!("-I{root}/include/vltstd")].into_iter().chain(flags.iter().map(|f| f.to_string())).collect()
}

/// Verilator's runtime sources (context, FST writer, thread pool), relative to its root.
pub const RUNTIME_SOURCES: [&str; 3] = ["include/verilated.cpp", "include/verilated_fst_c.cpp", "include/verilated_threads.cpp"];
/// The same without the FST writer, for a mutant's shared library, which does not trace.
pub const UNTRACED_RUNTIME_SOURCES: [&str; 2] = ["include/verilated.cpp", "include/verilated_threads.cpp"];

/// Writes `text` unless the file already holds it; returns whether it wrote.
pub fn write_if_changed(path: &Path, text: &str) -> Result<bool, String> {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(true)
}

/// Runs a command; on failure the error names it and holds the tail of its output.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let output = cmd.output().map_err(|e| format!("cannot run `{program}`: {e} (run `make deps`)"))?;
    if output.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = text.lines().rev().take(30).collect();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
    Err(format!("`{program} {}` failed:\n{}", args.join(" "), tail.into_iter().rev().collect::<Vec<_>>().join("\n")))
}

/// How [`verilate`] treats the Verilog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    /// rust-hdl output, linked into the co-simulation crate: `-Wall`, warnings fatal.
    Static,
    /// A gate-level netlist with vendor cell models (not lint-clean), linked statically.
    GateLevel,
    /// A yosys-written netlist (a mutant or its unmutated reference), compiled as
    /// position-independent code for a shared library; yosys's output style is not
    /// lint-clean, and the mutation is meant to compile quickly. Without `--trace-fst`: a
    /// mutant is only scored, never looked at, and the trace code was a third of the C++
    /// to compile (README, "Mutation score", has the measurement); a test that asks for
    /// waves gets an error at open instead.
    Mutant,
}

/// Verilates `top` into `obj` and archives it as `obj/libV<top>.a`. The Verilog is written
/// to `vfile`; nothing is done when that file already holds it and the archive exists.
pub fn verilate(top: &Top, vfile: &Path, obj: &Path, flavour: Flavour) -> Result<PathBuf, String> {
    let lib = obj.join(format!("libV{}.a", top.name));
    if let Some(dir) = vfile.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // The archive is reused only if it was built from this Verilog with these flags (the
    // stamp beside it), so that a change of flags here rebuilds it too.
    let (verilator_flags, make_flags) = (verilator_flags(flavour), make_flags(flavour));
    let stamp = obj.join("flags.txt");
    let flags = format!("{}\n{}\n", verilator_flags.join(" "), make_flags.join(" "));
    let verilog_changed = write_if_changed(vfile, &top.verilog)?;
    if !verilog_changed && lib.exists() && fs::read_to_string(&stamp).is_ok_and(|s| s == flags) {
        return Ok(lib);
    }
    let _ = fs::remove_dir_all(obj);
    run(Command::new("verilator")
        .args(&verilator_flags)
        .arg("--prefix")
        .arg(format!("V{}", top.name))
        .arg("--top-module")
        .arg(top.name)
        .arg("-Mdir")
        .arg(obj)
        .arg(vfile))?;
    run(Command::new("make")
        .arg("-C")
        .arg(obj)
        .arg("-f")
        .arg(format!("V{}.mk", top.name))
        .arg(format!("V{}__ALL.a", top.name))
        .args(&make_flags)
        .arg("VM_PARALLEL_BUILDS=1"))?;
    fs::rename(obj.join(format!("V{}__ALL.a", top.name)), &lib).map_err(|e| format!("cannot move the archive to {}: {e}", lib.display()))?;
    fs::write(&stamp, flags).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(lib)
}

/// Verilator's flags for a flavour (all but the prefix, top, folder and file).
fn verilator_flags(flavour: Flavour) -> Vec<&'static str> {
    // --x-assign/--x-initial unique: every bit without a reset starts from a value chosen by
    // the seed given at run time, so tests prove that no state depends on `initial` values.
    let warnings: &[&str] = match flavour {
        Flavour::Static => &["-Wall"],
        Flavour::GateLevel => &["-Wno-fatal", "-Wno-lint", "-Wno-style", "-DNO_ICE40_DEFAULT_ASSIGNMENTS", "--timescale", "1ns/1ps"],
        Flavour::Mutant => &["-Wno-fatal", "-Wno-lint", "-Wno-style"],
    };
    let trace: &[&str] = if flavour == Flavour::Mutant { &[] } else { &["--trace-fst"] };
    ["--cc", "-O3", "--x-assign", "unique", "--x-initial", "unique"].iter().chain(trace).chain(warnings).copied().collect()
}

/// The flags of the `make` that compiles the Verilated C++ of a flavour. OPT_FAST compiles
/// the functions `eval` runs every cycle: -O3 rather than -O2 for the rust-hdl tops, whose
/// `conv_datapath` then simulates about 17 % faster (CPU time, `make bench` section `conv`,
/// docs/ethos.md "Verilated speed"); the gate-level netlist keeps -O2 (its C++ is large and
/// one test runs it), and a mutant is compiled to be scored quickly.
fn make_flags(flavour: Flavour) -> Vec<&'static str> {
    match flavour {
        Flavour::Mutant => vec!["OPT_FAST=-O1", "OPT_SLOW=-O0", "CXXFLAGS=-fPIC"],
        Flavour::GateLevel => vec!["OPT_FAST=-O2", "OPT_SLOW=-O1"],
        Flavour::Static => vec!["OPT_FAST=-O3", "OPT_SLOW=-O1"],
    }
}

/// 32-bit words of a port in the shim's structs.
pub fn words(p: &Port) -> usize {
    p.width.div_ceil(32)
}

/// The inputs the shim drives each cycle: every input but the clock, which it toggles itself.
pub fn inputs(top: &Top) -> impl Iterator<Item = &Port> {
    top.ports.iter().filter(|p| p.direction == Direction::In && !crate::CLOCK_PORTS.contains(&p.name.as_str()))
}

pub fn outputs(top: &Top) -> impl Iterator<Item = &Port> {
    top.ports.iter().filter(|p| p.direction == Direction::Out)
}

/// The ports as the shim's word arrays lay them out: `in name width` / `out name width`, one
/// a line. The shim returns it from `npu_<top>_ports`, and a mutant's library is refused
/// unless it returns exactly the text the handle was built with: the step structs would
/// not match otherwise.
pub fn port_signature(top: &Top) -> String {
    let line = |dir: &str, p: &Port| format!("{dir} {} {}\n", p.name, p.width);
    inputs(top).map(|p| line("in", p)).chain(outputs(top).map(|p| line("out", p))).collect()
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

/// The C++ shim of `tops` (each top's `V<top>.h` must be on the include path). Its trace
/// calls are compiled only with `VM_TRACE` set ([`cxx_flags`]): the static build traces, a
/// mutant's library (verilated without `--trace-fst`, so its model has no `trace`) does not,
/// and its `new` returns null when asked for waves, which the handle reports.
pub fn shim_cpp(tops: &[&Top]) -> String {
    let mut s = String::from(
        "// Generated by npu-gen (bridge.rs). Do not edit.\n\
         #include <cstdint>\n#include <cstddef>\n#include \"verilated.h\"\n\
         #if VM_TRACE\n#include \"verilated_fst_c.h\"\n#define NPU_DUMP(h, time) if (h->fst) h->fst->dump(time)\n\
         #else\n#define NPU_DUMP(h, time)\n#endif\n\n\
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
        writeln!(s, "struct H {{ VerilatedContext* ctx; V{t}* m; uint64_t t;\n#if VM_TRACE\n    VerilatedFstC* fst;\n#endif\n}};").unwrap();
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
        s += "static inline void cycle(H* h, const In* i, Out* o) {\n    apply(h->m, i); h->m->eval(); sample(h->m, o);\n    NPU_DUMP(h, h->t);\n";
        if let Some(clk) = top.clock() {
            // The falling edge is left for the next cycle's eval, which sees it before any
            // input change: one eval per edge.
            writeln!(s, "    h->m->{clk} = 1; h->m->eval();\n    NPU_DUMP(h, h->t + PERIOD / 2);\n    h->m->{clk} = 0;").unwrap();
        }
        s += "    h->t += PERIOD;\n}\n}\n";
        let signature = port_signature(top).replace('\n', "\\n");
        writeln!(
            s,
            "extern \"C\" void* npu_{t}_new(uint64_t x_seed, const char* waves) {{\n\
             \x20   using namespace {t}_ns;\n\
             #if !VM_TRACE\n\
             \x20   // Built without tracing (a mutant's library): no waves, and the handle says why.\n\
             \x20   if (waves) return nullptr;\n\
             #endif\n\
             \x20   H* h = new H();\n\
             \x20   h->ctx = new VerilatedContext();\n\
             \x20   // x_seed 0: state without reset starts as 0; otherwise as random bits from that seed.\n\
             \x20   h->ctx->randReset(x_seed ? 2 : 0);\n\
             \x20   if (x_seed) h->ctx->randSeed((int)(x_seed % 2147483647) + 1);\n\
             #if VM_TRACE\n\
             \x20   h->ctx->traceEverOn(waves != nullptr);\n\
             #endif\n\
             \x20   Verilated::threadContextp(h->ctx);\n\
             \x20   h->m = new V{t}(h->ctx, \"{t}\");\n\
             #if VM_TRACE\n\
             \x20   if (waves) {{ h->fst = new VerilatedFstC(); h->m->trace(h->fst, 99); h->fst->open(waves); }}\n\
             #endif\n\
             \x20   return h;\n}}\n\
             extern \"C\" void npu_{t}_free(void* p) {{\n\
             \x20   using namespace {t}_ns;\n\
             \x20   H* h = (H*)p;\n\
             #if VM_TRACE\n\
             \x20   if (h->fst) {{ h->fst->close(); delete h->fst; }}\n\
             #endif\n\
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
             \x20   return sum;\n}}\n\
             // The port layout the step structs were generated from (bridge.rs, port_signature).\n\
             extern \"C\" const char* npu_{t}_ports() {{ return \"{signature}\"; }}"
        )
        .unwrap();
    }
    s
}

/// Verilator's runtime, without tracing, compiled as position-independent objects into
/// `dir`, once. `flags.txt` there holds the flags they were compiled with: objects compiled
/// with others (an older run's, with tracing) are compiled again.
fn shared_runtime(root: &str, dir: &Path) -> Result<Vec<PathBuf>, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let flags: Vec<String> = cxx_flags(root, false).into_iter().chain(["-w", "-fPIC"].map(String::from)).collect();
    let stamp = dir.join("flags.txt");
    if fs::read_to_string(&stamp).ok().as_deref() != Some(flags.join(" ").as_str()) {
        for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.path().extension().is_some_and(|e| e == "o") {
                fs::remove_file(entry.path()).ok();
            }
        }
        fs::write(&stamp, flags.join(" ")).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    UNTRACED_RUNTIME_SOURCES
        .iter()
        .map(|src| {
            let stem = Path::new(src).file_stem().unwrap().to_string_lossy().into_owned();
            let obj = dir.join(format!("{stem}.o"));
            if !obj.exists() {
                let partial = dir.join(format!("{stem}.o.partial"));
                run(Command::new("c++").args(&flags).arg("-c").arg(format!("{root}/{src}")).arg("-o").arg(&partial))?;
                fs::rename(&partial, &obj).map_err(|e| format!("cannot write {}: {e}", obj.display()))?;
            }
            Ok(obj)
        })
        .collect()
}

/// Verilates `top` (its Verilog as it stands, for instance a mutant's) into the shared
/// library `dir/lib<top>.so` with the shim every static top has, without tracing
/// ([`Flavour::Mutant`]); Verilator's runtime is compiled once into `runtime`. Returns the
/// library's path.
pub fn shared_library(top: &Top, dir: &Path, runtime: &Path) -> Result<PathBuf, String> {
    let root = verilator_root()?;
    let runtime = shared_runtime(&root, runtime)?;
    let obj = dir.join("obj");
    let archive = verilate(top, &dir.join(format!("{}.v", top.name)), &obj, Flavour::Mutant)?;
    let shim = dir.join("shim.cpp");
    write_if_changed(&shim, &shim_cpp(&[top]))?;
    let lib = dir.join(format!("lib{}.so", top.name));
    // -Bsymbolic: the library's calls stay inside it, even where the process already has
    // the same symbols (the statically linked tops and Verilator runtime).
    run(Command::new("c++")
        .args(cxx_flags(&root, false))
        .args(["-fPIC", "-shared", "-Wno-unused-parameter", "-Wl,-Bsymbolic", "-I"])
        .arg(&obj)
        .arg(&shim)
        .arg(&archive)
        .args(&runtime)
        .args(["-pthread", "-o"])
        .arg(&lib))?;
    Ok(lib)
}

/// The `npu_<top>_*` entry points of a mutant's shared library, untyped: the generated
/// handle casts them to its own step structs, which the port check makes safe.
pub struct MutantLibrary {
    pub new: unsafe extern "C" fn(u64, *const std::ffi::c_char) -> *mut std::ffi::c_void,
    pub free: unsafe extern "C" fn(*mut std::ffi::c_void),
    pub step: unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_void, *mut std::ffi::c_void),
    pub run: unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_void, usize) -> u64,
    /// Kept open for as long as the entry points are used.
    _library: libloading::Library,
}

impl MutantLibrary {
    /// Opens `path` as the library of `top`, whose ports must be `signature`
    /// ([`port_signature`]). An error names the file and what is wrong with it: not there,
    /// not a library, without the top's entry points, or with other ports.
    pub fn open(path: &Path, top: &str, signature: &str) -> Result<Self, String> {
        let shown = path.display();
        if !path.is_file() {
            return Err(format!("mutant library {shown} for {top}: no such file"));
        }
        // SAFETY: loading runs the library's initialisers; the libraries meant here are the
        // ones `shared_library` builds (Verilator's runtime and the shim).
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| format!("mutant library {shown} for {top}: cannot load it: {e}"))?;
        let missing = |name: &str, e: libloading::Error| format!("mutant library {shown} is not a library of {top}: no {name} ({e})");
        // SAFETY: the types are the shim's C signatures (shim_cpp); the port check below makes
        // sure the step structs they point to have the handle's layout.
        unsafe {
            let ports_name = format!("npu_{top}_ports");
            let ports: libloading::Symbol<unsafe extern "C" fn() -> *const std::ffi::c_char> =
                library.get(ports_name.as_bytes()).map_err(|e| missing(&ports_name, e))?;
            let actual = std::ffi::CStr::from_ptr(ports()).to_string_lossy().into_owned();
            if actual != signature {
                let list = |s: &str| s.lines().collect::<Vec<_>>().join(", ");
                return Err(format!(
                    "mutant library {shown} for {top} has other ports than the top:\n  library: {}\n  top:     {}",
                    list(&actual),
                    list(signature)
                ));
            }
            let symbol = |suffix: &str| {
                let name = format!("npu_{top}_{suffix}");
                library.get::<*const ()>(name.as_bytes()).map(|s| *s).map_err(|e| missing(&name, e))
            };
            let (new, free, step, run) = (symbol("new")?, symbol("free")?, symbol("step")?, symbol("run")?);
            Ok(Self {
                new: std::mem::transmute::<*const (), _>(new),
                free: std::mem::transmute::<*const (), _>(free),
                step: std::mem::transmute::<*const (), _>(step),
                run: std::mem::transmute::<*const (), _>(run),
                _library: library,
            })
        }
    }

    /// The library the environment names for `top` ([`MUTANT_TOP_VAR`], [`MUTANT_LIB_VAR`]),
    /// if it names one for this top. A top named without a library is an error too.
    pub fn from_env(top: &str, signature: &str) -> Option<Result<Self, String>> {
        if std::env::var(MUTANT_TOP_VAR).ok()? != top {
            return None;
        }
        Some(match std::env::var_os(MUTANT_LIB_VAR) {
            Some(path) => Self::open(Path::new(&path), top, signature),
            None => Err(format!("{MUTANT_TOP_VAR}={top} but {MUTANT_LIB_VAR} does not name the mutant's library")),
        })
    }
}
