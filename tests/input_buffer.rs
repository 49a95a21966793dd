//! Input buffer (seeds/002 §6.1): random lock-step co-simulation.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::input_buffer::InputBuffer;
use npu::model::mnist::input_buffer::In;
use rand::{rngs::SmallRng, Rng};

fn random_input(rng: &mut SmallRng, _cycle: u64) -> In {
    In {
        reset: rng.gen_ratio(1, 500),
        en_buf_in: rng.gen_ratio(1, 2),
        clr_buf_in: rng.gen_ratio(1, 8),
        da: rng.gen(),
        db: rng.gen(),
        dc: rng.gen(),
        dd: rng.gen(),
    }
}

#[test]
fn input_buffer_random_lockstep() {
    let run = Run::from_env("input_buffer_random_lockstep", 100_000);
    assert_lockstep::<InputBuffer>(&run, random_input, |_, _| {})
        .require(&["reset", "clear", "clear beats enable", "load", "hold"]);
}
