//! Ethos-U65 output unit (hdl/src/ethos/output_unit.rs): lock step against its model with
//! random accumulators, biases, scales and shifts including the extremes, every rounding mode,
//! zero points, clamps and the lookup table; and the model's arithmetic against hand-worked
//! values of each rounding mode (docs/ethos.md, "Output unit").
use npu::cosim::lockstep::{drive, Run};
use npu::cosim::tops::output_unit::OutputUnit;
use npu::model::ethos::output_unit::{apply_scale, In, Rounding};
use rand::{rngs::SmallRng, Rng};
use std::cell::Cell;

fn extreme_i64(rng: &mut SmallRng, bits: u32) -> i64 {
    let (min, max) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
    match rng.gen_range(0..8) {
        0 => min,
        1 => max,
        2 => rng.gen_range(-3..=3),
        3 => i64::from(i32::MIN),
        4 => i64::from(i32::MAX),
        _ => rng.gen_range(min..=max),
    }
}

fn random_input(rng: &mut SmallRng, lut_written: bool) -> In {
    let int8 = rng.gen_bool(0.6);
    let (lo, hi) = if int8 { (-128, 127) } else { (i16::MIN, i16::MAX) };
    let mut bounds = [rng.gen_range(lo..=hi), rng.gen_range(lo..=hi)];
    bounds.sort();
    let (act_min, act_max) = match rng.gen_range(0..4) {
        0 => (lo, hi),
        1 => (0, hi), // ReLU with a zero point of 0
        _ => (bounds[0], bounds[1]),
    };
    In {
        reset: rng.gen_ratio(1, 2000),
        in_valid: rng.gen_bool(0.8),
        acc: if rng.gen_bool(0.7) { extreme_i64(rng, 32) } else { extreme_i64(rng, 40) },
        bias: if rng.gen_bool(0.5) { rng.gen_range(-1000..1000) } else { extreme_i64(rng, 40) },
        scale: match rng.gen_range(0..6) {
            0 => 0,
            1 => i32::MAX as u32,
            2 => u32::MAX,
            3 => 1,
            _ => rng.gen_range(1 << 30..1u32 << 31),
        },
        shift: match rng.gen_range(0..6) {
            0 => 0,
            1 => 63,
            2 => 31,
            3 => 32,
            _ => rng.gen_range(0..64),
        },
        rounding: rng.gen_range(0..4),
        zero_point: rng.gen_range(lo..=hi),
        act_min,
        act_max,
        lut_enable: int8 && lut_written && rng.gen_bool(0.3),
        lut_write: rng.gen_bool(0.05),
        lut_address: rng.gen(),
        lut_data: rng.gen(),
    }
}

#[test]
fn output_unit_random_lockstep() {
    let run = Run::from_env("output_unit_random_lockstep", 300_000);
    // The table is written in full first: an entry not written since power-up is undefined.
    let written = Cell::new(0u32);
    let coverage = drive::<OutputUnit>(
        &run,
        |rng, cycle| {
            if cycle < 256 {
                return In { lut_write: true, lut_address: cycle as u8, lut_data: rng.gen(), ..In::default() };
            }
            written.set(256);
            random_input(rng, true)
        },
        |i, out, coverage| {
            if i.in_valid {
                coverage.hit(["rounding TFL", "rounding truncate", "rounding natural", "rounding 3 (as natural)"][usize::from(i.rounding)]);
                if i.shift > 31 && i.rounding == 0 {
                    coverage.hit("TFL double rounding (shift > 31)");
                }
                for (hit, what) in [(i.shift == 0, "shift 0"), (i.shift == 63, "shift 63"), (i.scale == 0, "scale 0"), (i.scale == i32::MAX as u32, "scale 2^31-1"), (i.acc == i64::from(i32::MIN) || i.acc == i64::from(i32::MAX), "accumulator at an int32 limit"), (i.lut_enable, "table enabled")] {
                    if hit {
                        coverage.hit(what);
                    }
                }
            }
            if out.out_valid && (out.out_value == i16::MIN || out.out_value == 127 || out.out_value == -128 || out.out_value == i16::MAX) {
                coverage.hit("output at a type limit");
            }
            true
        },
    )
    .unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(written.get(), 256);
    eprintln!("coverage:\n{coverage}");
    coverage.require(&[
        "rounding TFL",
        "rounding truncate",
        "rounding natural",
        "rounding 3 (as natural)",
        "TFL double rounding (shift > 31)",
        "shift 0",
        "shift 63",
        "scale 0",
        "scale 2^31-1",
        "accumulator at an int32 limit",
        "table enabled",
        "table read",
        "output at a type limit",
        "reset",
    ]);
}

/// Hand-worked values: `v · scale / 2^shift` for each mode at ties and around them.
#[test]
fn rounding_modes_on_hand_worked_values() {
    use Rounding::*;
    // scale 1: plain division by 2^shift.
    let cases: &[(i64, u8, Rounding, i128)] = &[
        (5, 1, Natural, 3),    // 2.5 -> 3 (ties up)
        (-5, 1, Natural, -2),  // -2.5 -> -2 (ties up)
        (5, 1, Truncate, 2),   // toward zero
        (-5, 1, Truncate, -2), // toward zero
        (-7, 2, Truncate, -1), // -1.75 -> -1
        (-7, 2, Natural, -2),  // -1.75 -> -2
        (5, 1, Tfl, 3),        // shift <= 31: one rounding, ties up
        (-5, 1, Tfl, -2),
        (7, 0, Tfl, 7),
    ];
    for &(v, shift, mode, want) in cases {
        assert_eq!(apply_scale(v, 1, shift, mode), want, "{v} / 2^{shift} {mode:?}");
    }
    // shift 33 with scale 2^31: v · 2^31 / 2^33 = v / 4, TFL rounds twice: first v · 2^31 / 2^31
    // exactly (no rounding), then v / 4 with ties away from zero.
    assert_eq!(apply_scale(6, 1 << 31, 33, Tfl), 2); // 1.5 -> 2
    assert_eq!(apply_scale(-6, 1 << 31, 33, Tfl), -2); // -1.5 -> -2 (away from zero)
    assert_eq!(apply_scale(-6, 1 << 31, 33, Natural), -1); // -1.5 -> -1 (ties up)
    // Where double rounding differs from one rounding: v · scale / 2^32 = 0.25 (v = 1, scale =
    // 2^30). TFL first rounds to units of 2^31: 0.5 -> 1, then 1 / 2 = 0.5 -> 1 (away from
    // zero); one rounding gives 0.25 -> 0.
    assert_eq!(apply_scale(1, 1 << 30, 32, Tfl), 1);
    assert_eq!(apply_scale(1, 1 << 30, 32, Natural), 0);
    assert_eq!(apply_scale(-1, 1 << 30, 32, Tfl), 0); // -0.5 -> 0 (ties up), then 0
    // 0.375 (scale 3 · 2^29): TFL 0.75 -> 1, 0.5 -> 1; one rounding 0.375 -> 0.
    assert_eq!(apply_scale(1, 3 << 29, 32, Tfl), 1);
    assert_eq!(apply_scale(1, 3 << 29, 32, Natural), 0);
}

/// The output unit's TFL mode is TFLite's `MultiplyByQuantizedMultiplier`: for TFLite's
/// (multiplier, shift) the unit takes scale = multiplier and shift = 31 - shift. Random int32
/// accumulators (and the extremes) with multipliers of every magnitude and shifts -31..=0.
#[test]
fn tfl_rounding_is_tflites_multiply_by_quantized_multiplier() {
    use npu::ethos::conv::{multiply_by_quantized_multiplier, quantize_multiplier};
    let run = Run::from_env("tfl_rounding_is_tflites_multiply_by_quantized_multiplier", 200_000);
    let mut rng = run.rng();
    for n in 0..run.cycles {
        let x: i32 = match n % 5 {
            0 => [i32::MIN, i32::MAX, 0, -1, 1][rng.gen_range(0..5)],
            _ => rng.gen(),
        };
        let real = 10f64.powf(rng.gen_range(-9.5..0.0));
        let (multiplier, shift) = quantize_multiplier(real);
        let unit = apply_scale(i64::from(x), multiplier as u32, (31 - shift) as u8, Rounding::Tfl);
        let tflite = multiply_by_quantized_multiplier(x, multiplier, shift);
        assert_eq!(unit, i128::from(tflite), "x {x}, multiplier {multiplier}, shift {shift} (SEED={})", run.seed);
    }
}
