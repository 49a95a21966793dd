//! SSFR (seeds/002 §7): Table 5's reset value, all 16 bits stored, random lock step.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::ssfr::Ssfr;
use npu::cosim::{Dut, DutOptions};
use npu::model::mnist::ssfr::In;
use rand::{rngs::SmallRng, Rng};

/// Table 5's reset value, and every one of the 16 bits written from {DA, DB} reads back
/// (§7: "a group of total 16 1-bit registers"; bits 6:0 included, their "default as 0" is
/// the reset value).
#[test]
fn ssfr_resets_to_table_5_and_stores_all_16_bits() {
    let mut ssfr = Ssfr::open(&DutOptions::from_env(3));
    ssfr.step(&In { reset: true, ..In::default() });
    // Table 5: SSFR[15:8] = 00100010, SSFR[7:0] = 10000000.
    assert_eq!(ssfr.step(&In { en_config: true, da: 0xFF, db: 0xFF, ..In::default() }).value, 0x2280);
    assert_eq!(ssfr.step(&In { en_config: true, da: 0x00, db: 0x7F, ..In::default() }).value, 0xFFFF);
    assert_eq!(ssfr.step(&In { en_config: true, da: 0x12, db: 0x34, ..In::default() }).value, 0x007F, "bits 6:0 alone");
    // Without EN_CONFIG the pins change nothing.
    assert_eq!(ssfr.step(&In { da: 0xAB, db: 0xCD, ..In::default() }).value, 0x1234);
    assert_eq!(ssfr.step(&In::default()).value, 0x1234);
    // Each bit alone, so a bit stuck at 0 or wired to its neighbour shows.
    for bit in 0..16 {
        let [da, db] = (1u16 << bit).to_be_bytes();
        ssfr.step(&In { en_config: true, da, db, ..In::default() });
        assert_eq!(ssfr.step(&In::default()).value, 1 << bit, "SSFR[{bit}] alone");
    }
}

fn random_input(rng: &mut SmallRng, _cycle: u64) -> In {
    In { reset: rng.gen_ratio(1, 500), en_config: rng.gen_ratio(1, 10), da: rng.gen(), db: rng.gen() }
}

#[test]
fn ssfr_random_lockstep() {
    let run = Run::from_env("ssfr_random_lockstep", 100_000);
    assert_lockstep::<Ssfr>(&run, random_input, |_, _| {}).require(&["reset", "write", "hold"]);
}
