//! `npu ethos run MODEL.tflite`: a TensorFlow Lite model as an Ethos-U65 user runs it
//! (docs/ethos.md, "Running a model"). Vela compiles the file (unless it already holds an
//! `ethos-u` operator), the command stream and regions go into the bench's memory, the NPU
//! runs them (Verilated RTL in lock step with its model, or the model alone), and the output
//! tensor is compared with TFLite's reference kernels on the same input, element by element.
//!
//! What is compared with what:
//! - an uncompiled file: the NPU's output against TFLite's interpreter on the file itself;
//! - a file Vela already compiled (TFLite has no kernel for its `ethos-u` operator): against
//!   the reference executor ([`super::executor`]) on the same command stream, which
//!   `tests/ethos_network.rs` holds equal to TFLite on every generated network.
//!
//! The reference executor runs first in any case: a stream it refuses (a field value it does
//! not implement, an access beyond memory) is refused with its message before the NPU runs.
use super::command_stream::{decode, DriverPayload};
use super::executor::{execute, Executed, Memory as Image};
use super::memory::Timing;
use super::network::{FileRun, Placement};
use super::npu::{Kernel, Outcome};
use super::operation::{operations, Operation};
use super::tflite::{TfLite, VelaCore};
use npu_cosim::lockstep::Run;
use std::fmt::Write;
use std::path::PathBuf;

/// Where the stream runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The Verilated NPU in lock step with its model, writing a waveform if asked.
    Rtl { waves: Option<PathBuf> },
    /// The NPU's cycle-accurate model alone.
    Model,
}

/// Why a run did not end with identical outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A bad input or a feature the NPU does not run (exit status 2).
    Input(String),
    /// The NPU's output differs, the RTL left its model, or the NPU did not stop (exit 1).
    Check(String),
}

impl From<String> for RunError {
    fn from(message: String) -> Self {
        RunError::Input(message)
    }
}

/// One operation of the stream as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The command's byte offset in the stream.
    pub offset: usize,
    /// `CONV`, `POOL max`, `ELEMENTWISE add`, `DMA` (the executor's names).
    pub kind: String,
    /// IFM and OFM as height x width x depth; kernel as height x width and stride (kernels).
    pub ifm: String,
    pub ofm: String,
    pub kernel: String,
    /// The kernel unit's cycles from taking the operation to finishing it (kernels it ran).
    pub cycles: Option<u64>,
    /// Multiply-accumulates the operation needs (CONV and DEPTHWISE).
    pub macs: Option<u64>,
}

/// What a run produced: the table, the NPU's cycles and the comparison.
#[derive(Clone, Debug)]
pub struct Report {
    pub rows: Vec<Row>,
    pub stream_words: usize,
    /// Cycles from the start command to the STATUS read that saw the NPU stopped.
    pub cycles: u64,
    /// Output elements compared, all identical.
    pub compared: usize,
    /// What the output was compared with.
    pub reference: &'static str,
    /// Vela's performance estimate, one row per operator it mapped to the NPU (empty for a
    /// file Vela had already compiled).
    pub estimate: Vec<super::tflite::OpEstimate>,
}

/// A random model input of `len` int8 values from `seed` (the run without `--input`).
pub fn random_input(len: usize, seed: u64) -> Vec<i8> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..len).map(|_| rng.gen()).collect()
}

/// Reads an `.npy` file of int8 values (any C-order shape) for a model input of `shape`:
/// the shapes must agree but for leading 1s (a batch of one may be written or left out).
pub fn read_npy(bytes: &[u8], shape: &[usize]) -> Result<Vec<i8>, String> {
    let file = npyz::NpyFile::new(bytes).map_err(|e| format!("not an .npy file: {e}"))?;
    let dtype = file.dtype().descr().trim_matches('\'').to_string();
    if !matches!(dtype.as_str(), "|i1" | "<i1" | ">i1") {
        return Err(format!("holds {dtype} values; the model's input is int8 (numpy dtype int8, '|i1')"));
    }
    if file.order() != npyz::Order::C {
        return Err("is in Fortran order; write it in C order (numpy's default)".into());
    }
    let given: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    let trim = |s: &[usize]| s.iter().skip_while(|&&d| d == 1).copied().collect::<Vec<_>>();
    if trim(&given) != trim(shape) {
        return Err(format!("has shape {given:?}; the model's input is {shape:?}"));
    }
    file.into_vec::<i8>().map_err(|e| format!("its data: {e}"))
}

/// The first element where `got` and `want` differ: its index and both values.
pub fn first_difference(got: &[i8], want: &[i8]) -> Option<(usize, i8, i8)> {
    got.iter().zip(want).position(|(g, w)| g != w).map(|i| (i, got[i], want[i]))
}

/// Runs `file` (a `.tflite` model's bytes) on the NPU of `engine` with the input of `npy` (an
/// `.npy` file's name and bytes; random from `seed` when None; `seed` also sets the Verilated
/// model's power-up state).
pub fn run(tflite: &TfLite, file: &[u8], core: VelaCore, npy: Option<(&str, &[u8])>, seed: u64, engine: &Engine) -> Result<Report, RunError> {
    let compiled = tflite.compile_files(&[file.to_vec()], core)?.remove(0);
    let precompiled = compiled.listing.is_empty();
    if compiled.cpu_operators != Some(0) && !precompiled {
        return Err(RunError::Input(format!("Vela leaves {} operators to the CPU; the NPU runs a model whose every operator Vela maps to it", compiled.cpu_operators.unwrap_or(0))));
    }
    let place = compiled.inputs.first().ok_or_else(|| "the model has no input".to_string())?;
    let input = match npy {
        Some((name, bytes)) => read_npy(bytes, &place.shape).map_err(|e| format!("{name}: {e}"))?,
        None => random_input(place.bytes(), seed),
    };
    let stream = DriverPayload::parse(&compiled.cmd_data).map_err(|e| format!("Vela's command stream: {e}"))?.stream;
    let image = Image::load(&compiled, &input.iter().map(|&v| v as u8).collect::<Vec<u8>>())?;
    let ops = operations(&decode(&stream).map_err(|e| format!("Vela's command stream: {e}"))?);
    let mut executed = image.clone();
    let done = execute(&ops, &mut executed).map_err(|e| format!("{e} (the reference executor)"))?;
    let output_place = compiled.outputs.first().ok_or_else(|| "the model has no output".to_string())?;

    let (got, outcome) = npu_output(&image, &stream, &ops, seed, engine, output_place)?;
    let rows = rows(&ops, &done, &outcome.kernels);
    let (want, reference) = if precompiled {
        (executed.tensor(output_place)?.iter().map(|&b| b as i8).collect(), "the reference executor (the file is Vela's: TFLite cannot run its ethos-u operator)")
    } else {
        (tflite.run_files(&[FileRun { model: file.to_vec(), input }])?.remove(0), "TFLite's reference kernels")
    };
    if want.len() != got.len() {
        return Err(RunError::Check(format!("the output has {} elements, {reference} gave {}", got.len(), want.len())));
    }
    let report = Report { rows, stream_words: stream.len(), cycles: outcome.cycles, compared: got.len(), reference, estimate: compiled.estimate };
    if let Some((i, g, w)) = first_difference(&got, &want) {
        return Err(RunError::Check(format!(
            "{}output element {i} of {:?} (NHWC order{}): NPU {g}, {reference} {w}",
            table(&report),
            output_place.shape,
            coordinates(i, &output_place.shape)
        )));
    }
    Ok(report)
}

/// Runs `stream` (decoded: `ops`) over `image` on the NPU of `engine` and reads the tensor
/// at `output`: an operation the kernel unit refused is an input error naming it, STATUS
/// error bits or a run that does not stop a check failure. Also gives the run's outcome
/// (cycles, each kernel operation's cycles).
pub fn npu_output(image: &Image, stream: &[u32], ops: &[Operation], seed: u64, engine: &Engine, output: &Placement) -> Result<(Vec<i8>, Outcome), RunError> {
    let outcome = run_npu(image, stream, seed, engine)?;
    if let Some(k) = outcome.kernels.iter().position(|k| k.refused) {
        let op = ops.iter().filter(|o| is_kernel(o)).nth(k).expect("the kernel unit counts kernel operations");
        return Err(RunError::Input(format!(
            "the NPU refused {} (command at byte {:#x}, STATUS {:#x}): a kernel or field value it does not implement (docs/ethos.md: a unit's CHECK)",
            op.name, op.offset, outcome.status
        )));
    }
    let error_bits = npu_model::ethos::command_front_end::BUS_STATUS | npu_model::ethos::command_front_end::CMD_PARSE_ERROR;
    if outcome.status & error_bits != 0 {
        return Err(RunError::Check(format!("the NPU stopped with STATUS {:#x} (error bits {:#x})", outcome.status, outcome.status & error_bits)));
    }
    let got = Image { bytes: outcome.memory[..image.bytes.len()].to_vec(), base: image.base }.tensor(output)?.iter().map(|&b| b as i8).collect();
    Ok((got, outcome))
}

/// `, at (y, x, c)` for a flat NHWC index of a `[1, h, w, c]` tensor (empty for other ranks).
fn coordinates(i: usize, shape: &[usize]) -> String {
    match shape {
        [1, _, w, c] => format!(", at y {}, x {}, c {}", i / (w * c), i / c % w, i % c),
        _ => String::new(),
    }
}

fn is_kernel(op: &Operation) -> bool {
    op.name != "NPU_OP_DMA_START"
}

/// The NPU's run: the image's memory always ready with data the next cycle (an ideal memory,
/// so that the cycles are the NPU's own), at most 400 000 cycles plus 240 per byte of memory.
fn run_npu(image: &Image, stream: &[u32], seed: u64, engine: &Engine) -> Result<Outcome, RunError> {
    let limit = 400_000 + 240 * image.bytes.len() as u64;
    let outcome = match engine {
        Engine::Model => super::npu::alone(&mut npu_model::ethos::npu::Npu::default(), image, stream, Timing::fastest(), seed, limit),
        Engine::Rtl { waves } => {
            let run = Run { test: "npu ethos run".into(), seed, cycles: limit };
            super::npu::lockstep_with_waves(&run, waves.clone(), image, stream, Timing::fastest())
                .map_err(|m| RunError::Check(format!("{m}")))?
                .0
        }
    };
    outcome.ok_or_else(|| RunError::Check(format!("the NPU did not stop within {limit} cycles")))
}

/// One row per operation; kernel operations take their cycles from the kernel unit's runs,
/// in order.
pub fn rows(ops: &[Operation], done: &[Executed], kernels: &[Kernel]) -> Vec<Row> {
    let mut kernels = kernels.iter();
    ops.iter()
        .zip(done)
        .map(|(op, ex)| {
            let shape = |f: super::operation::FeatureMap| format!("{}x{}x{}", f.height, f.width, f.depth);
            if !is_kernel(op) {
                return Row { offset: op.offset, kind: ex.kind.clone(), ifm: String::new(), ofm: String::new(), kernel: String::new(), cycles: None, macs: None };
            }
            let (ifm, ofm, k) = (op.input("IFM"), op.output(), op.kernel());
            let kernel = if op.name == "NPU_OP_ELEMENTWISE" { String::new() } else { format!("{}x{} s{}x{}", k.size.0, k.size.1, k.stride.0, k.stride.1) };
            let taps = u64::from(k.size.0) * u64::from(k.size.1);
            let outputs = u64::from(ofm.height) * u64::from(ofm.width) * u64::from(ofm.depth);
            let macs = match op.name {
                "NPU_OP_CONV" => Some(outputs * taps * u64::from(ifm.depth)),
                "NPU_OP_DEPTHWISE" => Some(outputs * taps),
                _ => None,
            };
            let cycles = kernels.next().and_then(Kernel::cycles);
            Row { offset: op.offset, kind: ex.kind.clone(), ifm: shape(ifm), ofm: shape(ofm), kernel, cycles, macs }
        })
        .collect()
}

/// The report's table: one line per operation, then the total.
pub fn table(report: &Report) -> String {
    let mut s = format!("{:>3}  {:>6}  {:<18} {:<11} {:<11} {:<9} {:>8}  {:>10}\n", "#", "offset", "operation", "IFM", "OFM", "kernel", "cycles", "MACs/cycle");
    for (i, r) in report.rows.iter().enumerate() {
        let cycles = r.cycles.map_or("-".to_string(), |c| c.to_string());
        let rate = match (r.macs, r.cycles) {
            (Some(m), Some(c)) if c > 0 => format!("{:.1}", m as f64 / c as f64),
            _ => "-".to_string(),
        };
        let _ = writeln!(s, "{i:>3}  {:>#6x}  {:<18} {:<11} {:<11} {:<9} {cycles:>8}  {rate:>10}", r.offset, r.kind, r.ifm, r.ofm, r.kernel);
    }
    let _ = writeln!(s, "NPU cycles from the start command to STATUS stopped: {}", report.cycles);
    if !report.estimate.is_empty() {
        let vela: u64 = report.estimate.iter().map(|e| e.cycles).sum();
        // Vela lists operators it folded away (a constant's) with 0 cycles.
        let each: Vec<String> = report.estimate.iter().filter(|e| e.cycles > 0).map(|e| format!("{} {}", e.operator, e.cycles)).collect();
        let _ = writeln!(
            s,
            "Vela's estimate for ethos-u65-256: {vela} cycles ({}); the NPU takes {:.2}x",
            each.join(", "),
            report.cycles as f64 / vela.max(1) as f64
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        bytes
    }

    #[test]
    fn npy_inputs_are_int8_of_the_model_shape_with_or_without_the_batch() {
        let data = [1u8, 0xff, 3, 4, 5, 6];
        assert_eq!(read_npy(&npy("|i1", "(1, 2, 3)", &data), &[1, 1, 2, 3]), Ok(vec![1, -1, 3, 4, 5, 6]));
        assert_eq!(read_npy(&npy("|i1", "(2, 3)", &data), &[1, 1, 2, 3]), Ok(vec![1, -1, 3, 4, 5, 6]));
        assert_eq!(read_npy(&npy("|i1", "(3, 2)", &data), &[1, 2, 3]), Err("has shape [3, 2]; the model's input is [1, 2, 3]".into()));
        assert!(read_npy(&npy("|u1", "(2, 3)", &data), &[2, 3]).unwrap_err().contains("holds |u1 values"));
        assert!(read_npy(b"not numpy", &[2, 3]).unwrap_err().starts_with("not an .npy file"));
        assert!(read_npy(&npy("|i1", "(2, 3)", &data[..4]), &[2, 3]).unwrap_err().starts_with("its data"));
    }

    #[test]
    fn the_first_difference_names_its_element_and_both_values() {
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(first_difference(&[1, 2, 3, 9], &[1, 5, 3, 0]), Some((1, 2, 5)));
        assert_eq!(coordinates(7, &[1, 2, 2, 3]), ", at y 1, x 0, c 1");
    }
}
