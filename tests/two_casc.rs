//! 2CASC (seeds/002 §6.2): every pair of an edge set plus a million random pairs, in lock
//! step with the model; and proof that the harness catches a wrong saturation constant.
use npu::cosim::lockstep::{assert_lockstep, check, Coverage, Run};
use npu::cosim::tops::{two_casc::TwoCasc, two_casc_broken::TwoCascBroken};
use npu::model::mnist::two_casc::In;
use rand::Rng;

/// Values around 0, the extremes, and every power of two with its neighbours, both signs.
fn edge_values() -> Vec<i16> {
    let mut v = vec![0, 1, -1, 2, -2, i16::MAX, i16::MAX - 1, i16::MIN, i16::MIN + 1];
    for k in 0..15 {
        let p = 1i16 << k;
        v.extend([p, p - 1, p + 1, -p, -p + 1, -p - 1]);
    }
    v.sort();
    v.dedup();
    v
}

fn edge_pairs() -> Vec<In> {
    let v = edge_values();
    v.iter().flat_map(|&a| v.iter().map(move |&b| In { a, b })).collect()
}

/// The exact limits: a sum of exactly 0x7FFF or -0x8000 passes, one past each saturates.
fn boundaries(i: &In, coverage: &mut Coverage) {
    match i32::from(i.a) + i32::from(i.b) {
        0x7FFF => coverage.hit("sum exactly 0x7FFF"),
        0x8000 => coverage.hit("sum 0x7FFF + 1"),
        -0x8000 => coverage.hit("sum exactly -0x8000"),
        -0x8001 => coverage.hit("sum -0x8000 - 1"),
        _ => {}
    }
}

const REQUIRED: &[&str] = &[
    "in range",
    "saturate +",
    "saturate -",
    "sum exactly 0x7FFF",
    "sum 0x7FFF + 1",
    "sum exactly -0x8000",
    "sum -0x8000 - 1",
];

#[test]
fn two_casc_edge_pairs_and_a_million_random_pairs() {
    let edges = edge_pairs();
    let run = Run::from_env("two_casc_edge_pairs_and_a_million_random_pairs", edges.len() as u64 + 1_000_000);
    let stimulus = |rng: &mut rand::rngs::SmallRng, cycle: u64| match edges.get(cycle as usize) {
        Some(pair) => pair.clone(),
        None => In { a: rng.gen(), b: rng.gen() },
    };
    let coverage = assert_lockstep::<TwoCasc>(&run, stimulus, boundaries);
    coverage.require(REQUIRED);
}

#[test]
fn harness_catches_a_wrong_saturation_constant() {
    let edges = edge_pairs();
    let run = Run::fixed("harness_catches_a_wrong_saturation_constant", edges.len());
    let mismatch = check::<TwoCascBroken>(&run, |_, cycle| edges[cycle as usize].clone(), |_, _| {})
        .expect_err("the broken 2CASC (positive limit 0x7FFE) must not pass");
    eprintln!("{mismatch}");
    assert_eq!(mismatch.expected.sum, 0x7FFF);
    assert_eq!(mismatch.actual.sum, 0x7FFE);
    assert!(i32::from(mismatch.input.a) + i32::from(mismatch.input.b) > 0x7FFF);
    let report = mismatch.to_string();
    for needed in ["cycle", "seed", "inputs:", "model:", "verilog:", "SEED="] {
        assert!(report.contains(needed), "mismatch report lacks {needed:?}:\n{report}");
    }
}
