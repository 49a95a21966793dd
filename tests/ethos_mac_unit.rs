//! Ethos-U65 MAC unit (hdl/src/ethos/mac_unit.rs): lock step against its model with random
//! operands, modes, clears, padding and 16-bit activations; and long accumulations of the
//! extreme products against plain integer sums (no model involved).
use npu::cosim::lockstep::{assert_lockstep, run_fixed};
use npu::cosim::lockstep::Run;
use npu::cosim::tops::mac_unit::MacUnit;
use npu::model::ethos::mac_unit::{pack, In, ACCUMULATORS, CHANNELS};
use rand::{rngs::SmallRng, Rng};

fn operand(rng: &mut SmallRng) -> i16 {
    match rng.gen_range(0..6) {
        0 => -256,
        1 => 255,
        2 => -128,
        _ => rng.gen_range(-256..=255),
    }
}

fn lanes(rng: &mut SmallRng) -> u128 {
    pack(&std::array::from_fn(|_| operand(rng)))
}

fn random_input(rng: &mut SmallRng, _: u64) -> In {
    In {
        reset: rng.gen_ratio(1, 3000),
        enable: rng.gen_bool(0.8),
        clear: rng.gen_bool(0.1),
        mode: rng.gen_range(0..4),
        act16_high: rng.gen_bool(0.2),
        pad: if rng.gen_bool(0.3) { rng.gen() } else { 0 } & 0xF,
        act0: lanes(rng),
        act1: lanes(rng),
        act2: lanes(rng),
        act3: lanes(rng),
        w0: lanes(rng),
        w1: lanes(rng),
        w2: lanes(rng),
        w3: lanes(rng),
        w4: lanes(rng),
        w5: lanes(rng),
        w6: lanes(rng),
        w7: lanes(rng),
        read_index: rng.gen_range(0..ACCUMULATORS as u8),
    }
}

#[test]
fn mac_unit_random_lockstep() {
    let run = Run::from_env("mac_unit_random_lockstep", 200_000);
    assert_lockstep::<MacUnit>(&run, random_input, |_, _| {}).require(&[
        "reset",
        "hold",
        "max",
        "clear and accumulate",
        "depthwise accumulate",
        "accumulate 16-bit high byte",
        "accumulate",
    ]);
}

/// Reads all 32 accumulators (one cycle each, nothing enabled), as signed 40-bit values.
fn read_all(steps: &mut Vec<In>) -> std::ops::Range<usize> {
    let start = steps.len();
    steps.extend((0..ACCUMULATORS as u8).map(|k| In { read_index: k, ..In::default() }));
    start..steps.len()
}

fn signed40(v: u64) -> i64 {
    ((v << 24) as i64) >> 24
}

/// -255 · -128 in every lane of every MAC for 20000 cycles: 8 · 32640 · 20000 = 5.2e9, beyond
/// int32 and inside the 40-bit accumulator; then the 16-bit path, a clear, and depthwise, each
/// against sums written out here.
#[test]
fn extreme_products_over_long_kernels_equal_plain_sums() {
    const CYCLES: i64 = 20_000;
    let most = pack(&[-255; CHANNELS]);
    let weight = pack(&[-128; CHANNELS]);
    let base = In {
        enable: true,
        act0: most,
        act1: most,
        act2: most,
        act3: most,
        w0: weight,
        w1: weight,
        w2: weight,
        w3: weight,
        w4: weight,
        w5: weight,
        w6: weight,
        w7: weight,
        ..In::default()
    };
    let mut steps = vec![In { clear: true, ..base.clone() }];
    steps.extend((1..CYCLES).map(|_| base.clone()));
    let conv = read_all(&mut steps);
    // 16-bit activations: -32768 as low byte 0 and high byte -128, times weight 127, over 300
    // values: low cycle adds 0, high cycle adds 8 · (-128 · 127) · 256.
    let w127 = pack(&[127; CHANNELS]);
    let act16 = |high: bool, value: i16| In {
        enable: true,
        clear: false,
        act16_high: high,
        act0: pack(&[value; CHANNELS]),
        act1: pack(&[value; CHANNELS]),
        act2: pack(&[value; CHANNELS]),
        act3: pack(&[value; CHANNELS]),
        w0: w127,
        w1: w127,
        w2: w127,
        w3: w127,
        w4: w127,
        w5: w127,
        w6: w127,
        w7: w127,
        ..In::default()
    };
    steps.push(In { clear: true, ..act16(false, 0) });
    steps.push(act16(true, -128));
    for _ in 1..300 {
        steps.push(act16(false, 0));
        steps.push(act16(true, -128));
    }
    let wide = read_all(&mut steps);
    // Depthwise with padding on positions 1 and 3: only lane o of channel o counts.
    steps.push(In { clear: true, mode: 1, pad: 0b1010, ..base.clone() });
    let depthwise = read_all(&mut steps);
    let (outs, _) = run_fixed::<MacUnit>("extreme_products_over_long_kernels_equal_plain_sums", &steps);
    let values = |r: std::ops::Range<usize>| outs[r].iter().map(|o| signed40(o.acc_out)).collect::<Vec<_>>();
    assert_eq!(values(conv), vec![8 * 255 * 128 * CYCLES; ACCUMULATORS]);
    assert_eq!(values(wide), vec![300 * 8 * (-128 * 127) * 256; ACCUMULATORS]);
    let expected_dw: Vec<i64> = (0..ACCUMULATORS).map(|k| if [1, 3].contains(&(k / 8)) { 0 } else { 255 * 128 }).collect();
    assert_eq!(values(depthwise), expected_dw);
}
