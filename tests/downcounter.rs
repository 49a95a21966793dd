//! FSM downcounter (seeds/002 §8): random lock-step co-simulation.
use npu::cosim::lockstep::{assert_lockstep, run_fixed, Run};
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

/// Every bit of the 16-bit count reaches CTR_OUT: loads of each 2^k and of 0xFFFF, counted
/// down without a break. The random test's counts are mostly below 24 and reloaded every 30
/// cycles or so, so bits 5 to 15 never reached zero there (a count bit stuck at 0 went
/// unseen). Expected by plain arithmetic: after the load, the count is `start - j` in
/// counting cycle j, so CTR_OUT is low for j < start and high at j = start.
#[test]
fn downcounter_counts_every_bit_down_to_zero() {
    let starts: Vec<u16> = (0..16).map(|k| 1 << k).chain([u16::MAX]).collect();
    let idle = In { reset: false, freeze: false, load: false, count_down: false, start: 0 };
    let mut inputs = Vec::new();
    for &start in &starts {
        inputs.push(In { load: true, start, ..idle.clone() });
        inputs.extend(std::iter::repeat_n(In { count_down: true, ..idle.clone() }, usize::from(start) + 1));
    }
    let (outputs, _) = run_fixed::<Downcounter>("downcounter_counts_every_bit_down_to_zero", &inputs);
    let mut at = 0;
    for &start in &starts {
        let counting = &outputs[at + 1..at + 2 + usize::from(start)];
        let first_high = counting.iter().position(|o| o.ctr_out);
        assert_eq!(first_high, Some(usize::from(start)), "load of {start:#06x} at cycle {at}: CTR_OUT first high after {first_high:?} counting cycles, expected {start}");
        at += 2 + usize::from(start);
    }
}
