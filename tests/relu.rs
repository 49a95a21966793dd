//! ReLU (seeds/002 §6.3): random lock-step co-simulation.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::relu::Relu;
use npu::model::mnist::relu::In;
use rand::Rng;

#[test]
fn relu_random_lockstep() {
    let run = Run::from_env("relu_random_lockstep", 100_000);
    assert_lockstep::<Relu>(
        &run,
        |rng, _| In {
            reset: rng.gen_ratio(1, 500),
            en_relu: rng.gen_ratio(1, 2),
            bypass: rng.gen_ratio(1, 3),
            // Edge values (0, -1, the extremes) often, any value otherwise.
            x: if rng.gen_ratio(1, 4) { [0, -1, 1, i16::MIN, i16::MAX][rng.gen_range(0..5)] } else { rng.gen() },
        },
        |_, _| {},
    )
    .require(&["reset", "hold", "pass", "clamp negative", "bypass", "bypass negative"]);
}
