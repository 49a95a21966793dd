//! Output MUX (seeds/002 §6.5, Table 3): random lock-step co-simulation of every SEL_OUT.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::output_mux::OutputMux;
use npu::model::mnist::output_mux::In;
use rand::Rng;

#[test]
fn output_mux_random_lockstep() {
    let run = Run::from_env("output_mux_random_lockstep", 100_000);
    assert_lockstep::<OutputMux>(
        &run,
        |rng, _| In {
            sel_out: rng.gen_range(0..8),
            fifo: rng.gen(),
            piso_out: rng.gen(),
            index: rng.gen(),
            largest: rng.gen(),
            piso_deb: rng.gen(),
        },
        |_, _| {},
    )
    .require(&["fifo", "piso_out", "index", "largest msb", "largest lsb", "piso_deb", "ground 110", "ground 111"]);
}
