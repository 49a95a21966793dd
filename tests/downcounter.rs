//! FSM downcounter (seeds/002 §8): random lock-step co-simulation.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::downcounter::Downcounter;
use npu::model::mnist::downcounter::In;
use rand::Rng;

#[test]
fn downcounter_random_lockstep() {
    let run = Run::from_env("downcounter_random_lockstep", 100_000);
    assert_lockstep::<Downcounter>(
        &run,
        |rng, _| In {
            reset: rng.gen_ratio(1, 5_000),
            freeze: rng.gen_ratio(1, 10),
            load: rng.gen_ratio(1, 30),
            count_down: rng.gen_ratio(3, 4),
            // Mostly short counts, so CTR_OUT is reached often.
            start: match rng.gen_range(0..20) {
                0 => u16::MAX,
                1 => rng.gen(),
                _ => rng.gen_range(0..24),
            },
        },
        |_, _| {},
    )
    .require(&["reset", "freeze", "load", "load 0xFFFF", "count", "count to 0", "count at 0 holds", "hold"]);
}
