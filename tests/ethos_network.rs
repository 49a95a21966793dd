//! The reference executor (`npu::ethos::executor`) against TensorFlow Lite: random int8
//! networks (`npu::ethos::network::random_network`) run in TFLite's interpreter with the
//! reference kernels and, compiled by Vela 5.2 for ethos-u65-256 with both its cores, by the
//! executor from their command streams; every output element must be identical.
//! `SEED` repeats a run, `CYCLES` sets the number of networks.
use npu::cosim::lockstep::{Coverage, Run};
use npu::ethos::command_stream::{decode, DriverPayload};
use npu::ethos::executor::{execute, Memory};
use npu::ethos::network::{random_network, Choice, Network};
use npu::ethos::operation::operations;
use npu::ethos::tflite::{TfLite, VelaCore};

fn oracle() -> TfLite {
    TfLite::in_project(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{e}"))
}

/// Random networks of `choice` until `count` of them compile wholly onto the NPU with both
/// cores; returns them with their compiled models, and the number Vela refused.
fn compiled_networks(run: &Run, choice: &Choice, count: usize) -> (Vec<(Network, Vec<(VelaCore, npu::ethos::network::CompiledModel)>)>, usize) {
    let tflite = oracle();
    let mut rng = run.rng();
    let mut kept = Vec::new();
    let mut refused = 0;
    while kept.len() < count {
        let batch: Vec<Network> = (0..count - kept.len()).map(|_| random_network(&mut rng, choice)).collect();
        let by_core: Vec<_> = VelaCore::ALL.iter().map(|&core| (core, tflite.compile_networks(&batch, core).unwrap_or_else(|e| panic!("SEED={}: {e}", run.seed)))).collect();
        for (i, net) in batch.into_iter().enumerate() {
            let models: Result<Vec<_>, String> = by_core.iter().map(|(core, results)| results[i].clone().map(|m| (*core, m))).collect();
            match models {
                Ok(models) => kept.push((net, models)),
                Err(why) => {
                    refused += 1;
                    eprintln!("Vela refused a network (regenerated): {}", why.lines().last().unwrap_or(""));
                }
            }
        }
    }
    (kept, refused)
}

#[test]
fn random_networks_equal_tflite() {
    let run = Run::from_env("random_networks_equal_tflite", 200);
    let choice = Choice::default();
    let (networks, refused) = compiled_networks(&run, &choice, run.cycles as usize);
    let nets: Vec<Network> = networks.iter().map(|(n, _)| n.clone()).collect();
    let expected = oracle().run_networks(&nets).unwrap_or_else(|e| panic!("SEED={}: {e}", run.seed));
    let mut coverage = Coverage::default();
    let mut failures = Vec::new();
    for (i, ((net, models), want)) in networks.iter().zip(&expected).enumerate() {
        for op in &net.ops {
            coverage.hit(op.kind.name());
            coverage.hit(&format!("{:?}", op.activation));
        }
        for (core, model) in models {
            let context = format!("SEED={} network {i} ({} core):\n{}", run.seed, core.name(), net.describe());
            let payload = DriverPayload::parse(&model.cmd_data).unwrap_or_else(|e| panic!("{context}: {e}"));
            let commands = decode(&payload.stream).unwrap_or_else(|e| panic!("{context}: {e}"));
            let input: Vec<u8> = net.input.iter().map(|&v| v as u8).collect();
            let mut memory = Memory::load(model, &input).unwrap_or_else(|e| panic!("{context}: {e}"));
            let done = match execute(&operations(&commands), &mut memory) {
                Ok(done) => done,
                Err(e) => {
                    failures.push(format!("{context}: {e}"));
                    continue;
                }
            };
            for d in &done {
                coverage.hit(&d.kind);
                for s in &d.seen {
                    coverage.hit(s);
                }
            }
            coverage.hit(&format!("{} core", core.name()));
            let got: Vec<i8> = memory.tensor(&model.outputs[0]).unwrap_or_else(|e| panic!("{context}: {e}")).iter().map(|&b| b as i8).collect();
            if let Some(k) = (0..want.len()).find(|&k| got.get(k) != Some(&want[k])) {
                let [_, w, c] = net.output_shape();
                failures.push(format!("{context}: output element {k} (y {}, x {}, c {}): executor {:?}, TFLite {}", k / (w * c), k / c % w, k % c, got.get(k), want[k]));
            }
        }
    }
    println!("{coverage}");
    println!("{} networks, {refused} refused by Vela and regenerated", networks.len());
    assert!(failures.is_empty(), "{} of {} runs differ:\n{}", failures.len(), 2 * networks.len(), failures.iter().take(6).cloned().collect::<Vec<_>>().join("\n"));
}
