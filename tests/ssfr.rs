//! SSFR (seeds/002 §7): Table 5's reset value, the unused bits, random lock step.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::ssfr::Ssfr;
use npu::cosim::{Dut, DutOptions};
use npu::model::mnist::ssfr::In;
use rand::{rngs::SmallRng, Rng};

#[test]
fn ssfr_resets_to_table_5_and_ignores_unused_bits() {
    let mut ssfr = Ssfr::open(&DutOptions::from_env(3));
    ssfr.step(&In { reset: true, ..In::default() });
    // Table 5: SSFR[15:8] = 00100010, SSFR[7:0] = 10000000.
    assert_eq!(ssfr.step(&In { en_config: true, da: 0xFF, db: 0xFF, ..In::default() }).value, 0x2280);
    // SSFR[6:0] are unused and read 0.
    assert_eq!(ssfr.step(&In { da: 0x12, db: 0x34, ..In::default() }).value, 0xFF80);
    // Without EN_CONFIG the pins change nothing.
    assert_eq!(ssfr.step(&In::default()).value, 0xFF80);
}

fn random_input(rng: &mut SmallRng, _cycle: u64) -> In {
    In { reset: rng.gen_ratio(1, 500), en_config: rng.gen_ratio(1, 10), da: rng.gen(), db: rng.gen() }
}

#[test]
fn ssfr_random_lockstep() {
    let run = Run::from_env("ssfr_random_lockstep", 100_000);
    assert_lockstep::<Ssfr>(&run, random_input, |_, _| {}).require(&["reset", "write", "hold"]);
}
