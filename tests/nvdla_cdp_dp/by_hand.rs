//! CDP's LUT on hand-worked values (docs/nvdla.md "CDP datapath", the lookup's arithmetic as
//! NVIDIA's C model has it): each case a window whose 8 lanes all look up one sum, with the
//! input and output converters made transparent (SQSUM_BYPASS and MUL_BYPASS, scales 1,
//! shifts 0), so that every lane's LUT result `r` reaches the output exactly: DATOUT_OFFSET
//! is `r - 7` and every byte must be 7. The random layers see the LUT through the output
//! converter's shift, which hides a result off by one or a saturation lost; these cases do
//! not (issue 21: cdp_dp's mutants in the slope's rounding and clamp).
use super::{CdpDp, In, CDP_DP_LATENCY};
use npu::cosim::lockstep::run_fixed;

/// Which case the lookup is, as the per-atom perf counts give it (all 8 lanes alike).
#[derive(Clone, Copy, Debug)]
enum Kind {
    Uflow,
    Oflow,
    LeHit,
    LoHit,
    Hybrid,
}

/// A 38-bit signed register value (S_LUT_*_START/END).
fn s38(v: i64) -> u64 {
    (v as u64) & ((1 << 38) - 1)
}

/// A 5-bit signed slope shift (negative: a left shift).
fn shift5(v: i8) -> u8 {
    (v as u8) & 31
}

/// The entries the cases use: LE[0] 100, LE[2] 400, LE[3] 410, LE[64] -200; LO[0] -50,
/// LO[10] 1000, LO[11] 1003, LO[12] 996, LO[256] 300.
const LE: [(u16, i16); 4] = [(0, 100), (2, 400), (3, 410), (64, -200)];
const LO: [(u16, i16); 5] = [(0, -50), (10, 1000), (11, 1003), (12, 996), (256, 300)];

/// Transparent converters, LE linear, select 0, every start, end, scale and shift 0.
fn base() -> In {
    In { sqsum_bypass: true, mul_bypass: true, datin_scale: 1, datout_scale: 1, lut_le_function: true, ..In::default() }
}

/// (what, the sum of every lane, configuration, the LUT result worked by hand, the case).
fn cases() -> Vec<(&'static str, i8, In, i16, Kind)> {
    let b = base;
    // Both tables under with START 0 and the sum -5 (d = -5).
    let under = |priority_lo: bool| In { lut_uflow_priority: priority_lo, ..b() };
    // Both over: START -300 (d = 310, index 310 past both tables), END 5, the sum 10.
    let over = |priority_lo: bool| In { lut_oflow_priority: priority_lo, lut_le_start: s38(-300), lut_lo_start: s38(-300), lut_le_end: 5, lut_lo_end: 5, ..b() };
    // Both under by 2^33 + 5 (the sum 0): a slope of magnitude in [2^33, 2^34), not clamped.
    let far_under = |priority_lo: bool| In { lut_uflow_priority: priority_lo, lut_le_start: s38((1 << 33) + 5), lut_lo_start: s38((1 << 33) + 5), ..b() };
    let far_over = |priority_lo: bool| {
        let end = s38(-(1 << 33) - 5);
        In { lut_oflow_priority: priority_lo, lut_le_start: end, lut_lo_start: end, lut_le_end: end, lut_lo_end: end, ..b() }
    };
    // Only one table hit: the other's START is 100, past the sums.
    let lo_hits = |select: i8| In { lut_le_start: 100, lut_lo_index_select: (select as u8) & 63, ..b() };
    let le_exponent = |offset: i8| In { lut_le_function: false, lut_le_index_offset: offset as u8, ..b() };
    vec![
        // Underflow: entry[0] + round(d * scale / 2^shift), half away from zero.
        ("LO under, -5 * -3 / 2 = 7.5 -> 8", -5, In { lut_lo_slope_uflow_scale: -3i16 as u16, lut_lo_slope_uflow_shift: 1, ..under(true) }, -50 + 8, Kind::Uflow),
        ("LO under, -5 * 3 / 2 = -7.5 -> -8", -5, In { lut_lo_slope_uflow_scale: 3, lut_lo_slope_uflow_shift: 1, ..under(true) }, -50 - 8, Kind::Uflow),
        ("LO under, -5 * 3 * 4 (shift -2)", -5, In { lut_lo_slope_uflow_scale: 3, lut_lo_slope_uflow_shift: shift5(-2), ..under(true) }, -50 - 60, Kind::Uflow),
        ("LE linear under, -5 * 5 / 4 = -6.25 -> -6", -5, In { lut_le_slope_uflow_scale: 5, lut_le_slope_uflow_shift: 2, ..under(false) }, 100 - 6, Kind::Uflow),
        // Exponent underflow: the distance is d - 2^LE_INDEX_OFFSET.
        ("LE exponent under, offset 0: (-5 - 1) * 5 / 4 = -7.5 -> -8", -5, In { lut_le_slope_uflow_scale: 5, lut_le_slope_uflow_shift: 2, ..le_exponent(0) }, 100 - 8, Kind::Uflow),
        ("LE exponent under, offset 3: (-5 - 8) * 5 / 4 = -16.25 -> -16", -5, In { lut_le_slope_uflow_scale: 5, lut_le_slope_uflow_shift: 2, ..le_exponent(3) }, 100 - 16, Kind::Uflow),
        (
            "LE exponent under, d 5 below 2^3: (5 - 8) * 5 / 4 = -3.75 -> -4",
            5,
            In { lut_le_slope_uflow_scale: 5, lut_le_slope_uflow_shift: 2, lut_lo_start: 10, ..le_exponent(3) },
            100 - 4,
            Kind::Uflow,
        ),
        // Overflow: entry[N] + round((sum - END) * scale / 2^shift).
        ("LO over, (10 - 5) * 3 / 2 = 7.5 -> 8", 10, In { lut_lo_slope_oflow_scale: 3, lut_lo_slope_oflow_shift: 1, ..over(true) }, 300 + 8, Kind::Oflow),
        ("LE linear over, (10 - 5) * 3 / 2 -> 8", 10, In { lut_le_slope_oflow_scale: 3, lut_le_slope_oflow_shift: 1, ..over(false) }, -200 + 8, Kind::Oflow),
        (
            "LE exponent over (index 8 + 60), (10 - 5) * -3 / 2 = -7.5 -> -8",
            10,
            In { lut_le_function: false, lut_le_index_offset: -60i8 as u8, lut_le_slope_oflow_scale: -3i16 as u16, lut_le_slope_oflow_shift: 1, ..over(false) },
            -200 - 8,
            Kind::Oflow,
        ),
        // Slopes of 2^33 and more, shift 0: saturated whatever the entry.
        ("LE linear under by 2^33 + 5, scale -1", 0, In { lut_le_slope_uflow_scale: -1i16 as u16, ..far_under(false) }, 32767, Kind::Uflow),
        (
            "LE exponent under by 2^33 + 5, distance -(2^33 + 6), scale -1",
            0,
            In { lut_le_function: false, lut_le_slope_uflow_scale: -1i16 as u16, ..far_under(false) },
            32767,
            Kind::Uflow,
        ),
        ("LO under by 2^33 + 5, scale 1", 0, In { lut_lo_slope_uflow_scale: 1, ..far_under(true) }, -32768, Kind::Uflow),
        ("LO over by 2^33 + 5, scale 1", 0, In { lut_lo_slope_oflow_scale: 1, ..far_over(true) }, 32767, Kind::Oflow),
        ("LE over by 2^33 + 5, scale -1", 0, In { lut_le_slope_oflow_scale: -1i16 as u16, ..far_over(false) }, -32768, Kind::Oflow),
        (
            "LO under by 2^36 + 5, scale -1: past the +-2^34 clamp",
            0,
            In { lut_uflow_priority: true, lut_le_start: s38((1 << 36) + 5), lut_lo_start: s38((1 << 36) + 5), lut_lo_slope_uflow_scale: -1i16 as u16, ..b() },
            32767,
            Kind::Uflow,
        ),
        (
            "LE under by 2^37 + 127 (the largest START), scale -32768, shift -16",
            -128,
            In {
                lut_le_start: s38((1 << 37) - 1),
                lut_lo_start: s38((1 << 37) - 1),
                lut_le_slope_uflow_scale: 0x8000,
                lut_le_slope_uflow_shift: shift5(-16),
                ..b()
            },
            32767,
            Kind::Uflow,
        ),
        // Interpolation: entry[i] + round((entry[i + 1] - entry[i]) * fraction / 2^16).
        ("LO hit, select 1, index 10, fraction 1/2: 1000 + 1.5 -> 1002", 21, lo_hits(1), 1002, Kind::LoHit),
        ("LO hit, select 1, index 11, no fraction", 22, lo_hits(1), 1003, Kind::LoHit),
        ("LO hit, select 1, index 11, fraction 1/2: 1003 - 3.5 -> 999", 23, lo_hits(1), 999, Kind::LoHit),
        ("LO hit, select -1: index 5 << 1 = 10, no fraction", 5, lo_hits(-1), 1000, Kind::LoHit),
        ("LE linear hit, select 1, index 2, fraction 1/2: 400 + 5", 5, In { lut_lo_start: 100, lut_le_index_select: 1, ..b() }, 405, Kind::LeHit),
        ("LE exponent hit, 6 = 2^2 + 2: index 2, fraction 1/2", 6, In { lut_lo_start: 100, ..le_exponent(0) }, 405, Kind::LeHit),
        ("LE exponent hit, 7 = 2^2 + 3: index 2, fraction 3/4: 400 + 7.5 -> 408", 7, In { lut_lo_start: 100, ..le_exponent(0) }, 408, Kind::LeHit),
        // One table under, the other over: HYBRID_PRIORITY (LE under with slope 0: LE[0]).
        ("LE under, LO over, hybrid takes LO", 10, In { lut_hybrid_priority: true, lut_le_start: 100, lut_lo_slope_oflow_scale: 3, lut_lo_slope_oflow_shift: 1, ..over(false) }, 308, Kind::Hybrid),
        ("LE under, LO over, hybrid takes LE", 10, In { lut_hybrid_priority: false, lut_le_start: 100, lut_lo_slope_oflow_scale: 3, lut_lo_slope_oflow_shift: 1, ..over(false) }, 100, Kind::Hybrid),
    ]
}

#[test]
fn lut_slopes_and_interpolation_on_hand_worked_values() {
    let mut inputs = Vec::new();
    // Every entry written, then a reset: every entry must read 0 again (the tables read 0
    // after a reset, docs/nvdla.md "CDP datapath"), through the read port.
    for (lo, len) in [(false, 65u16), (true, 257)] {
        inputs.extend((0..len).map(|addr| In { lut_we: true, lut_table: lo, lut_addr: addr, lut_wdata: 0x4000 | addr, ..In::default() }));
    }
    inputs.push(In { reset: true, ..In::default() });
    let reads_from = inputs.len();
    for (lo, len) in [(false, 65u16), (true, 257)] {
        inputs.extend((0..len).map(|addr| In { lut_rtable: lo, lut_raddr: addr, ..In::default() }));
    }
    let reads = reads_from..inputs.len();
    for (table, entries) in [(false, &LE[..]), (true, &LO[..])] {
        inputs.extend(entries.iter().map(|&(addr, v)| In { lut_we: true, lut_table: table, lut_addr: addr, lut_wdata: v as u16, ..In::default() }));
    }
    // Each case: its window, then its configuration held until the atom is out.
    let cases = cases();
    let first_window = inputs.len();
    for (_, sum, cfg, lut, _) in &cases {
        let datout_offset = (i32::from(*lut) - 7) as u32 & ((1 << 25) - 1);
        let cfg = In { datout_offset, ..cfg.clone() };
        inputs.push(In { in_valid: true, in_window: u128::from_le_bytes([*sum as u8; 16]), ..cfg.clone() });
        inputs.extend(std::iter::repeat_n(cfg, CDP_DP_LATENCY));
    }
    let (outputs, _) = run_fixed::<CdpDp>("lut_slopes_and_interpolation_on_hand_worked_values", &inputs);

    for (k, out) in outputs[reads].iter().enumerate() {
        assert_eq!(out.lut_rdata, 0, "read {k} after the reset (LE 0..64, then LO 0..256): not 0");
    }
    let atoms: Vec<_> = outputs.iter().enumerate().filter(|(_, o)| o.out_valid).collect();
    assert_eq!(atoms.len(), cases.len(), "one atom per case");
    for (((cycle, out), (what, sum, _, lut, kind)), k) in atoms.into_iter().zip(&cases).zip(0..) {
        assert_eq!(cycle, first_window + k * (CDP_DP_LATENCY + 1) + CDP_DP_LATENCY, "{what}: the atom's cycle");
        assert_eq!(out.out_atom, 0x0707_0707_0707_0707, "{what} (sum {sum}): every lane's LUT result must be {lut} (7 after DATOUT_OFFSET {lut} - 7)");
        let counts = [out.perf_uflow, out.perf_oflow, out.perf_le_hit, out.perf_lo_hit, out.perf_hybrid];
        let mut want = [0; 5];
        want[*kind as usize] = 8;
        assert_eq!(counts, want, "{what}: perf counts UFLOW, OFLOW, LE_HIT, LO_HIT, HYBRID for a {kind:?} in all 8 lanes");
        assert_eq!(out.perf_saturation, 0, "{what}: no lane saturates at the output");
    }
}
