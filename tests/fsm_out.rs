//! FSM_OUT (seeds/002 §8, Table 7): random lock-step co-simulation of every state.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::fsm_out::FsmOut;
use npu::model::mnist::fsm_out::In;
use rand::Rng;

#[test]
fn fsm_out_random_lockstep() {
    let run = Run::from_env("fsm_out_random_lockstep", 100_000);
    assert_lockstep::<FsmOut>(
        &run,
        |rng, _| In { reset: rng.gen_ratio(1, 2_000), freeze: rng.gen_ratio(1, 10), en_relu: rng.gen_ratio(1, 3) },
        |_, _| {},
    )
    .require(&["reset", "freeze", "OUT_IDLE", "OUT_S1", "OUT_S2", "OUT_S3", "OUT_S4", "OUT_S5", "EN_ReLU while busy ignored"]);
}
