//! The NPU top (command front end + elementwise unit, `npu_hdl::ethos::Npu`) runs random
//! Vela-compiled ELEMENTWISE networks (ADD, SUB, MUL, MAXIMUM, MINIMUM; one or two operators;
//! both Vela cores) end to end, Verilated RTL in lock step with its model, over a memory with
//! random stalls and latencies; the memory after the run must equal the reference executor's
//! (`npu::ethos::executor`) and the output TFLite's. `SEED` repeats a run, `CYCLES` sets the
//! number of networks.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::command_stream::{decode, DriverPayload};
use npu::ethos::executor::{execute, Memory};
use npu::ethos::memory::Timing;
use npu::ethos::network::{random_network, Choice, Kind, Network};
use npu::ethos::operation::operations;
use npu::ethos::tflite::{TfLite, VelaCore};
use npu::model::ethos::command_front_end::{BUS_STATUS, CMD_PARSE_ERROR, IRQ_RAISED};
use rand::Rng;

fn oracle() -> TfLite {
    TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"))
}

/// What the runs must show: each elementwise operation, broadcast, scalar, NHCWB16, both
/// saturations, both cores, memory stalls, and the arbiter granting both masters.
const REQUIRED: [&str; 17] = [
    "ELEMENTWISE add", "ELEMENTWISE sub", "ELEMENTWISE mul", "ELEMENTWISE max", "ELEMENTWISE min", "broadcast", "scalar",
    "nhcwb16 ofm", "saturated high", "saturated low", "regor core", "legacy core", "bench: address stalled",
    "arbiter: kernel read", "arbiter: kernel write", "arbiter: front-end read", "read stalled",
];

#[test]
fn elementwise_networks_run_on_the_npu() {
    let run = Run::from_env("elementwise_networks_run_on_the_npu", 16);
    let choice = Choice { kinds: vec![Kind::Add, Kind::Sub, Kind::Mul, Kind::Maximum, Kind::Minimum], ops: 1..=2, side: 1..=5, channels: 1..=20 };
    let tflite = oracle();
    let mut rng = run.rng();
    let mut coverage = Coverage::default();
    let mut done = 0;
    let mut total_cycles = 0;
    // One batch for Vela and one for TFLite: each call starts the Python oracle.
    let mut batch: Vec<Network> = Vec::new();
    let mut compiled = Vec::new();
    while batch.len() < run.cycles as usize {
        let more: Vec<Network> = (batch.len()..run.cycles as usize).map(|_| random_network(&mut rng, &choice)).collect();
        let by_core: Vec<_> = VelaCore::ALL.iter().map(|&core| tflite.compile_networks(&more, core).unwrap_or_else(|e| panic!("SEED={}: {e}", run.seed))).collect();
        for (i, net) in more.into_iter().enumerate() {
            if by_core.iter().all(|results| results[i].is_ok()) {
                compiled.push(VelaCore::ALL.iter().zip(&by_core).map(|(&core, results)| (core, results[i].clone())).collect::<Vec<_>>());
                batch.push(net);
            }
        }
    }
    let expected_outputs = tflite.run_networks(&batch).unwrap_or_else(|e| panic!("SEED={}: {e}", run.seed));
    for ((net, models), want) in batch.iter().zip(compiled).zip(&expected_outputs) {
        for (core, model) in models {
            let model = model.unwrap();
            let context = format!("SEED={} network {done} ({} core):\n{}", run.seed, core.name(), net.describe());
            let stream = DriverPayload::parse(&model.cmd_data).unwrap_or_else(|e| panic!("{context}: {e}")).stream;
            let input: Vec<u8> = net.input.iter().map(|&v| v as u8).collect();
            let image = Memory::load(&model, &input).unwrap_or_else(|e| panic!("{context}: {e}"));
            let mut expected = image.clone();
            let ops = execute(&operations(&decode(&stream).unwrap()), &mut expected).unwrap_or_else(|e| panic!("{context}: executor: {e}"));
            for op in &ops {
                coverage.hit(&op.kind);
                op.seen.iter().for_each(|s| coverage.hit(s));
            }
            coverage.hit(&format!("{} core", core.name()));
            let timing = if rng.gen_bool(0.2) { Timing::fastest() } else { Timing::random(&mut rng) };
            let limit = Run { cycles: 400_000 + 60 * image.bytes.len() as u64 * 4, ..run.clone() };
            let (outcome, seen) = npu::ethos::npu::lockstep(&limit, &image, &stream, timing).unwrap_or_else(|m| panic!("{context}\n{m}"));
            coverage.merge(&seen);
            let outcome = outcome.unwrap_or_else(|| panic!("{context}: the NPU did not stop within {} cycles", limit.cycles));
            assert_eq!(outcome.status & (BUS_STATUS | CMD_PARSE_ERROR | IRQ_RAISED), IRQ_RAISED, "{context}: STATUS {:#x}", outcome.status);
            let got = &outcome.memory[..image.bytes.len()];
            if let Some(at) = (0..got.len()).find(|&a| got[a] != expected.bytes[a]) {
                panic!("{context}: byte {at:#x}: NPU {}, executor {}", got[at], expected.bytes[at]);
            }
            let output: Vec<i8> = Memory { bytes: got.to_vec(), base: image.base }.tensor(&model.outputs[0]).unwrap().iter().map(|&b| b as i8).collect();
            assert_eq!(&output, want, "{context}: the NPU's output differs from TFLite's");
            println!("network {done} ({} core, {} operations): {} cycles", core.name(), ops.len(), outcome.cycles);
            total_cycles += outcome.cycles;
        }
        done += 1;
    }
    println!("{coverage}\n{done} networks, {total_cycles} NPU cycles in all");
    coverage.require(&REQUIRED);
}
