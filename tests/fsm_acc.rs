//! FSM_ACC (seeds/002 §8, Table 6): random lock-step co-simulation of every state and arc.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::fsm_acc::FsmAcc;
use npu::model::mnist::fsm_acc::In;
use rand::Rng;

#[test]
fn fsm_acc_random_lockstep() {
    let run = Run::from_env("fsm_acc_random_lockstep", 100_000);
    assert_lockstep::<FsmAcc>(
        &run,
        |rng, _| In {
            reset: rng.gen_ratio(1, 2_000),
            freeze: rng.gen_ratio(1, 10),
            en_fsm: rng.gen_ratio(1, 2),
            ctr_out: rng.gen_ratio(1, 4),
            out_done: rng.gen_ratio(1, 4),
        },
        |i, coverage| {
            // The four (EN_FSM, CTR_OUT) columns of Table 6.
            coverage.hit(["EN_FSM=0 CTR_OUT=0", "EN_FSM=0 CTR_OUT=1", "EN_FSM=1 CTR_OUT=0", "EN_FSM=1 CTR_OUT=1"][usize::from(i.en_fsm) * 2 + usize::from(i.ctr_out)]);
        },
    )
    .require(&[
        "reset", "freeze", "IDLE", "BIAS", "BIAS after ACC", "ACC", "LAST", "WAIT",
        "EN_FSM=0 CTR_OUT=0", "EN_FSM=0 CTR_OUT=1", "EN_FSM=1 CTR_OUT=0", "EN_FSM=1 CTR_OUT=1",
    ]);
}
