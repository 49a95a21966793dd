//! Auto comparator (seeds/002 §6.7): random lock-step co-simulation.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::comparator::Comparator;
use npu::model::mnist::comparator::In;
use rand::Rng;

#[test]
fn comparator_random_lockstep() {
    let run = Run::from_env("comparator_random_lockstep", 200_000);
    assert_lockstep::<Comparator>(
        &run,
        |rng, _| {
            // Values from a small set make ties and repeats common; RST_COMP is rare enough
            // that the index runs up to its saturation at 255.
            let value = |rng: &mut rand::rngs::SmallRng| if rng.gen_ratio(1, 2) { rng.gen_range(-4..4) } else { rng.gen() };
            In {
                reset: rng.gen_ratio(1, 5_000),
                freeze: rng.gen_ratio(1, 10),
                trig: rng.gen_ratio(1, 2),
                en_comp: rng.gen_ratio(7, 8),
                rst_comp: rng.gen_ratio(1, 400),
                single: rng.gen_ratio(1, 4),
                relu1: value(rng),
                relu2: value(rng),
            }
        },
        |_, _| {},
    )
    .require(&[
        "reset",
        "freeze",
        "rst_comp",
        "idle",
        "trigger disabled",
        "update from relu1",
        "update from relu2",
        "tie keeps earlier",
        "keep",
        "index saturated",
    ]);
}
