//! PISO_OUT (seeds/002 §6.4): random lock-step co-simulation.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::piso_out::PisoOut;
use npu::model::mnist::piso_out::In;
use rand::Rng;

#[test]
fn piso_out_random_lockstep() {
    let run = Run::from_env("piso_out_random_lockstep", 100_000);
    assert_lockstep::<PisoOut>(
        &run,
        |rng, _| In {
            reset: rng.gen_ratio(1, 500),
            en_piso_out: rng.gen_ratio(3, 4),
            clr_piso_out: rng.gen_ratio(1, 20),
            shift_out: rng.gen_ratio(3, 4),
            out1: rng.gen(),
            out2: rng.gen(),
        },
        |_, _| {},
    )
    .require(&["reset", "clear", "hold", "load", "shift"]);
}
