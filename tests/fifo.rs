//! Output FIFO (seeds/002 §6.6): random lock-step co-simulation through full and empty.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::fifo::Fifo;
use npu::model::mnist::fifo::In;
use rand::Rng;

#[test]
fn fifo_random_lockstep() {
    let run = Run::from_env("fifo_random_lockstep", 200_000);
    // Phases of 400 cycles that favour writing or reading, so the FIFO fills and drains.
    // A reset 1 cycle in 10 000: 20 a run on average (1 in 20 000 gave 10, and a seed with
    // none, e^-10 = 5e-5, would fail the "reset" coverage).
    assert_lockstep::<Fifo>(
        &run,
        |rng, cycle| {
            let filling = (cycle / 400) % 2 == 0;
            In {
                reset: rng.gen_ratio(1, 10_000),
                en_fifo: rng.gen_ratio(15, 16),
                rst_fifo: rng.gen_ratio(1, 5_000),
                wr_en: rng.gen_ratio(if filling { 3 } else { 1 }, 4),
                rd_en: rng.gen_ratio(if filling { 1 } else { 3 }, 4),
                wr_data: rng.gen(),
            }
        },
        |_, _| {},
    )
    .require(&[
        "reset",
        "rst_fifo",
        "disabled",
        "write",
        "write fills",
        "write when full dropped",
        "read",
        "read last",
        "read when empty ignored",
        "write and read",
        "idle",
    ]);
}
