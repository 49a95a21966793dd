//! PISO_DEB (seeds/002 §6.8, §11): random lock-step co-simulation through its 96-bit port,
//! and the twelve-byte readout with the datasheet's enable/shift timing.
use npu::cosim::lockstep::{assert_lockstep, Run};
use npu::cosim::tops::piso_deb::PisoDeb;
use npu::cosim::{Dut, DutOptions};
use npu::model::mnist::piso_deb::{In, CHAIN_MASK};
use npu::model::Block;
use rand::{rngs::SmallRng, Rng};

fn random_input(rng: &mut SmallRng, _cycle: u64) -> In {
    In {
        reset: rng.gen_ratio(1, 500),
        en_piso_deb: rng.gen_ratio(3, 4),
        clr_piso_deb: rng.gen_ratio(1, 30),
        shift_deb: rng.gen_ratio(7, 8),
        samples: rng.gen::<u128>() & CHAIN_MASK,
    }
}

#[test]
fn piso_deb_random_lockstep() {
    let run = Run::from_env("piso_deb_random_lockstep", 200_000);
    assert_lockstep::<PisoDeb>(&run, random_input, |_, _| {}).require(&["reset", "clear", "hold", "load", "shift"]);
}

#[test]
fn piso_deb_reads_out_twelve_bytes_in_datasheet_order() {
    // SSFR[15:8], SSFR[7:0], CON_SIG[15:8], CON_SIG[7:0], MAC2, MAC1, DD, DC, DB, DA.
    let bytes: [u8; 12] = [0x22, 0x80, 0xB0, 0x00, 0x7F, 0xFF, 0x80, 0x01, 0xDD, 0xCC, 0xBB, 0xAA];
    let samples = bytes.iter().fold(0u128, |acc, &b| acc << 8 | u128::from(b));
    let mut piso = PisoDeb::open(&DutOptions::from_env(11));
    piso.step(&<PisoDeb as Dut>::Model::reset_input().unwrap());
    piso.step(&In { clr_piso_deb: true, ..In::default() });
    // §11: EN_PISO_DEB high for 14 cycles, SHIFT_DEB low in the second.
    let mut seen = Vec::new();
    for cycle in 0..14 {
        let out = piso.step(&In { en_piso_deb: true, shift_deb: cycle != 1, samples, ..In::default() });
        seen.push(out.d_out);
    }
    seen.push(piso.step(&In::default()).d_out);
    assert_eq!(&seen[..2], &[0, 0], "nothing before the load");
    assert_eq!(&seen[2..14], &bytes, "the twelve bytes in order");
    assert_eq!(seen[14], 0, "the chain is empty after the twelfth byte");
}
