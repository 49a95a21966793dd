//! CDP's datapath (hdl/src/nvdla/cdp_dp.rs) against its model in lock step, on random LUT
//! contents and random layer configurations, and every atom against a plain per-channel
//! reference written from NVIDIA's C model's behaviour (docs/nvdla.md "CDP datapath"): the
//! C model computes in doubles and 64-bit integers, so this reference does too (f64 rounding,
//! f64 log2), where the RTL and the model use exact integer widths.
use npu::cosim::lockstep::{drive, Coverage, Run};
use npu::cosim::tops::cdp_dp::CdpDp;
use npu_model::nvdla::cdp_dp::{In, CDP_DP_LATENCY};
use rand::rngs::SmallRng;
use rand::Rng;
use std::cell::RefCell;
use std::collections::VecDeque;

/// Hand-worked LUT cases (`by_hand::lut_slopes_and_interpolation_on_hand_worked_values`).
#[path = "nvdla_cdp_dp/by_hand.rs"]
mod by_hand;

/// `v / 2^shift` rounded half away from zero as the C model's `convert` does (through a
/// double), or `v * 2^-shift` for a negative shift; clamped to 56 bits signed.
fn c_convert(v: i128, shift: i32) -> i128 {
    let out = if shift >= 0 { (v as f64 / 2f64.powi(shift)).round() as i128 } else { v.saturating_mul(1i128 << -shift) };
    out.clamp(-(1i128 << 55), (1i128 << 55) - 1)
}

fn clamp16(v: i128) -> i128 {
    v.clamp(-32768, 32767)
}

/// A field of `bits` bits as signed.
fn sext(v: u64, bits: u32) -> i128 {
    let v = i128::from(v & ((1u64 << bits) - 1));
    if v >> (bits - 1) & 1 == 1 {
        v - (1i128 << bits)
    } else {
        v
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Where {
    Under,
    Hit,
    Over,
}

/// One table lookup as the C model's linear branch: (result, where).
#[allow(clippy::too_many_arguments)]
fn linear_lookup(sum: i128, table: &[u16], start: u64, end: u64, select: u8, uflow: (u16, u8), oflow: (u16, u8)) -> (i128, Where) {
    let entry = |i: usize| i128::from(table[i] as i16);
    let last = table.len() - 1;
    let tmp = sum - sext(start, 38);
    let frac_bits = sext(u64::from(select), 6) as i32;
    let index = if frac_bits < 0 { tmp * (1i128 << -frac_bits) } else { tmp >> frac_bits };
    if index < 0 || tmp <= 0 {
        let r = entry(0) + c_convert(tmp * i128::from(uflow.0 as i16), sext(u64::from(uflow.1), 5) as i32);
        (clamp16(r), Where::Under)
    } else if index >= last as i128 {
        let r = entry(last) + c_convert((sum - sext(end, 38)) * i128::from(oflow.0 as i16), sext(u64::from(oflow.1), 5) as i32);
        (clamp16(r), Where::Over)
    } else {
        let i = index as usize;
        let offset = if frac_bits < 0 {
            0
        } else {
            let rest = tmp % (1i128 << frac_bits);
            if frac_bits > 16 {
                rest >> (frac_bits - 16)
            } else {
                rest << (16 - frac_bits)
            }
        };
        (clamp16(entry(i) + c_convert((entry(i + 1) - entry(i)) * offset, 16)), Where::Hit)
    }
}

/// The LE table with the exponent function, as the C model's exponent branch.
fn exponent_lookup(sum: i128, le: &[u16], input: &In) -> (i128, Where) {
    let entry = |i: usize| i128::from(le[i] as i16);
    let tmp = sum - sext(input.lut_le_start, 38);
    let log = if tmp <= 0 { 0 } else { (tmp as f64).log2() as i128 };
    let offset = i128::from(input.lut_le_index_offset as i8);
    let index = log - offset;
    if index < 0 || tmp <= 0 {
        // 2^offset past 2^100 changes nothing (the product saturates either way).
        let power = if offset < 0 { 0 } else { 1i128 << offset.min(100) };
        let slope = i128::from(input.lut_le_slope_uflow_scale as i16);
        let r = entry(0) + c_convert((tmp - power).saturating_mul(slope), sext(u64::from(input.lut_le_slope_uflow_shift), 5) as i32);
        (clamp16(r), Where::Under)
    } else if index >= 64 {
        let slope = i128::from(input.lut_le_slope_oflow_scale as i16);
        let r = entry(64) + c_convert((sum - sext(input.lut_le_end, 38)) * slope, sext(u64::from(input.lut_le_slope_oflow_shift), 5) as i32);
        (clamp16(r), Where::Over)
    } else {
        let i = index as usize;
        let mut fraction = tmp - (1i128 << log);
        fraction = if log > 16 { fraction >> (log - 16) } else { fraction << (16 - log) };
        (clamp16(entry(i) + c_convert((entry(i + 1) - entry(i)) * fraction, 16)), Where::Hit)
    }
}

/// What one output channel did, for the coverage.
struct Lane {
    value: i8,
    le: Where,
    lo: Where,
    choice: &'static str,
    took_lo: bool,
    saturated: bool,
}

/// Output channel `c` (0..8) of a window, channel by channel as the C model computes it.
fn reference_lane(window: u128, c: usize, input: &In, le: &[u16], lo: &[u16]) -> Lane {
    let convert_in = |k: usize| -> i128 {
        let x = i128::from((window >> (8 * k)) as u8 as i8);
        let offset = i128::from(input.datin_offset as u8 as i8);
        let scaled = ((x - offset) * i128::from(input.datin_scale as i16)) as f64 / 2f64.powi(i32::from(input.datin_shifter));
        (scaled.round() as i128).clamp(-256, 255)
    };
    let centre = convert_in(c + 4);
    let half = 1 + usize::from(input.normalz_len);
    let sum = if input.sqsum_bypass { centre } else { (c + 4 - half..=c + 4 + half).map(|k| convert_in(k) * convert_in(k)).sum() };
    let (le_value, le_where) = if input.lut_le_function {
        let uflow = (input.lut_le_slope_uflow_scale, input.lut_le_slope_uflow_shift);
        let oflow = (input.lut_le_slope_oflow_scale, input.lut_le_slope_oflow_shift);
        linear_lookup(sum, le, input.lut_le_start, input.lut_le_end, input.lut_le_index_select, uflow, oflow)
    } else {
        exponent_lookup(sum, le, input)
    };
    let uflow = (input.lut_lo_slope_uflow_scale, input.lut_lo_slope_uflow_shift);
    let oflow = (input.lut_lo_slope_oflow_scale, input.lut_lo_slope_oflow_shift);
    let (lo_value, lo_where) = linear_lookup(sum, lo, input.lut_lo_start, input.lut_lo_end, input.lut_lo_index_select, uflow, oflow);
    let (choice, took_lo) = if le_where == Where::Under && lo_where == Where::Under {
        ("underflow", input.lut_uflow_priority)
    } else if le_where == Where::Over && lo_where == Where::Over {
        ("overflow", input.lut_oflow_priority)
    } else if (le_where == Where::Hit) != (lo_where == Where::Hit) {
        if le_where == Where::Hit {
            ("LE hit", false)
        } else {
            ("LO hit", true)
        }
    } else {
        ("hybrid", input.lut_hybrid_priority)
    };
    let lut = if took_lo { lo_value } else { le_value };
    let v = if input.mul_bypass { lut } else { lut * centre };
    let product = (v - sext(u64::from(input.datout_offset), 25)) * i128::from(input.datout_scale as i16);
    let shift = i32::from(input.datout_shifter);
    let out = ((product as f64 / 2f64.powi(shift)).round() as i128).clamp(-128, 127);
    let floor = product >> shift;
    Lane { value: out as i8, le: le_where, lo: lo_where, choice, took_lo, saturated: (out - floor).abs() > 1 }
}

/// A layer's configuration: mostly ranges where the sums meet the tables (hits, both
/// slopes), sometimes any register value.
fn random_config(rng: &mut SmallRng) -> In {
    let wild = rng.gen_bool(0.15);
    let mut cfg = In {
        normalz_len: rng.gen_range(0..4),
        datin_offset: rng.gen(),
        datin_scale: if rng.gen_bool(0.5) { rng.gen_range(1..4) } else { rng.gen() },
        datin_shifter: if rng.gen_bool(0.6) { rng.gen_range(0..3) } else { rng.gen_range(0..32) },
        datout_offset: if rng.gen_bool(0.5) { rng.gen_range(0..2000u32).wrapping_sub(1000) } else { rng.gen() },
        datout_scale: if rng.gen_bool(0.5) { rng.gen_range(1..8) } else { rng.gen() },
        datout_shifter: if rng.gen_bool(0.8) { rng.gen_range(8..28) } else { rng.gen_range(0..64) },
        sqsum_bypass: rng.gen_bool(0.2),
        mul_bypass: rng.gen_bool(0.3),
        lut_le_function: rng.gen(),
        lut_uflow_priority: rng.gen(),
        lut_oflow_priority: rng.gen(),
        lut_hybrid_priority: rng.gen(),
        lut_le_slope_uflow_scale: rng.gen(),
        lut_le_slope_oflow_scale: rng.gen(),
        lut_lo_slope_uflow_scale: rng.gen(),
        lut_lo_slope_oflow_scale: rng.gen(),
        lut_le_slope_uflow_shift: rng.gen_range(0..32),
        lut_le_slope_oflow_shift: rng.gen_range(0..32),
        lut_lo_slope_uflow_shift: rng.gen_range(0..32),
        lut_lo_slope_oflow_shift: rng.gen_range(0..32),
        ..In::default()
    };
    let mask38 = (1u64 << 38) - 1;
    // A linear table covering [start, start + 2^(select + bits)), as NVIDIA's programs have it.
    let mut linear = |bits: i64| -> (u64, u64, u8) {
        let select: i64 = if rng.gen_bool(0.2) { rng.gen_range(-8..0) } else { rng.gen_range(0..14) };
        let start: i64 = if rng.gen_bool(0.5) { rng.gen_range(-300..300) } else { rng.gen_range(-(1 << 18)..(1 << 19)) };
        let span = if select + bits >= 0 { 1i64 << (select + bits) } else { 1 };
        ((start as u64) & mask38, ((start + span) as u64) & mask38, (select as u8) & 63)
    };
    (cfg.lut_le_start, cfg.lut_le_end, cfg.lut_le_index_select) = linear(6);
    (cfg.lut_lo_start, cfg.lut_lo_end, cfg.lut_lo_index_select) = linear(8);
    if !cfg.lut_le_function {
        cfg.lut_le_index_offset = rng.gen_range(-6i8..16) as u8;
        cfg.lut_le_end = (cfg.lut_le_start.wrapping_add(1u64 << 24)) & mask38;
    }
    if wild {
        cfg.lut_le_start = rng.gen::<u64>() & mask38;
        cfg.lut_le_end = rng.gen::<u64>() & mask38;
        cfg.lut_lo_start = rng.gen::<u64>() & mask38;
        cfg.lut_lo_end = rng.gen::<u64>() & mask38;
        cfg.lut_le_index_offset = rng.gen();
        cfg.lut_le_index_select = rng.gen();
        cfg.lut_lo_index_select = rng.gen();
    }
    cfg
}

/// The bench's state: the tables as written, the layer, the atoms in flight.
struct Bench {
    le: Vec<u16>,
    lo: Vec<u16>,
    cfg: In,
    /// Cycles left in the current phase and the phase: 0 LUT writes, 1 windows, 2 drain.
    phase: u8,
    left: u32,
    layers: u64,
    /// Each atom in flight: the cycle it must come out and its expected bytes.
    expected: VecDeque<(u64, u64)>,
    /// The read asked this cycle, for the check of `lut_rdata`, and the write (table, address,
    /// data), which the read does not see yet.
    read: (bool, u16),
    write: Option<(bool, u16, u16)>,
    checked: u64,
    local: Coverage,
}

impl Bench {
    fn stimulus(&mut self, rng: &mut SmallRng, cycle: u64) -> In {
        if self.left == 0 {
            self.phase = (self.phase + 1) % 3;
            self.left = match self.phase {
                0 => {
                    self.layers += 1;
                    if self.layers == 1 { 322 } else { rng.gen_range(1..60) }
                }
                1 => {
                    self.cfg = random_config(rng);
                    rng.gen_range(20..120)
                }
                _ => CDP_DP_LATENCY as u32,
            };
        }
        self.left -= 1;
        let lut_rtable = rng.gen();
        let mut input = In { lut_rtable, lut_raddr: rng.gen_range(0..if lut_rtable { 257 } else { 65 }), ..self.cfg.clone() };
        if rng.gen_bool(0.05) {
            input.lut_raddr = rng.gen_range(0..1024);
        }
        self.read = (input.lut_rtable, input.lut_raddr);
        match self.phase {
            0 => {
                // The first layer writes every entry in order; later ones some at random,
                // now and then past a table's end (ignored).
                input.lut_we = true;
                input.lut_wdata = rng.gen();
                if self.layers == 1 {
                    let k = 321 - self.left as u16;
                    (input.lut_table, input.lut_addr) = if k < 65 { (false, k) } else { (true, k - 65) };
                } else {
                    input.lut_table = rng.gen();
                    input.lut_addr = if rng.gen_bool(0.05) { rng.gen_range(65..1024) } else { rng.gen_range(0..if input.lut_table { 257 } else { 65 }) };
                }
                self.write = Some((input.lut_table, input.lut_addr, input.lut_wdata));
            }
            1 => {
                input.in_valid = rng.gen_bool(0.85);
                input.in_window = rng.gen();
                if rng.gen_bool(0.1) {
                    // Every channel at one value: sums at the extremes (all -128 or 127).
                    input.in_window = u128::from_le_bytes([if rng.gen() { 0x80 } else { 0x7f }; 16]);
                }
                if input.in_valid {
                    self.expect(&input, cycle);
                }
            }
            _ => {}
        }
        input
    }

    /// The write of the cycle just checked, taken on its clock edge.
    fn take_write(&mut self) {
        if let Some((lo, addr, data)) = self.write.take() {
            let table = if lo { &mut self.lo } else { &mut self.le };
            match table.get_mut(usize::from(addr)) {
                Some(entry) => *entry = data,
                None => self.local.hit("LUT write past the end (ignored)"),
            }
        }
    }

    fn expect(&mut self, input: &In, cycle: u64) {
        let mut atom = 0u64;
        for c in 0..8 {
            let lane = reference_lane(input.in_window, c, input, &self.le, &self.lo);
            atom |= u64::from(lane.value as u8) << (8 * c);
            let cov = &mut self.local;
            cov.hit(&format!("NORMALZ_LEN {}", 3 + 2 * input.normalz_len));
            cov.hit(if input.lut_le_function { "LE linear" } else { "LE exponent" });
            cov.hit(&format!("LE {:?} ({})", lane.le, if input.lut_le_function { "linear" } else { "exponent" }));
            cov.hit(&format!("LO {:?}", lane.lo));
            cov.hit(&format!("{} -> {}", lane.choice, if lane.took_lo { "LO" } else { "LE" }));
            if input.sqsum_bypass {
                cov.hit("SQSUM_BYPASS");
            }
            if input.mul_bypass {
                cov.hit("MUL_BYPASS");
            }
            if lane.saturated {
                cov.hit("output saturated");
            }
            if sext(u64::from(input.lut_lo_index_select), 6) < 0 && lane.lo == Where::Hit {
                cov.hit("LO hit with a negative index select");
            }
        }
        self.expected.push_back((cycle + CDP_DP_LATENCY as u64, atom));
    }

    /// Checks the outputs of `cycle` against the reference.
    fn check(&mut self, out: &npu_model::nvdla::cdp_dp::Out, cycle: u64, seed: u64) {
        let (rtable, raddr) = self.read;
        let table = if rtable { &self.lo } else { &self.le };
        let want = table.get(usize::from(raddr)).copied().unwrap_or(0);
        assert_eq!(out.lut_rdata, want, "cycle {cycle}, seed {seed}: LUT read of table {} entry {raddr}", u8::from(rtable));
        self.local.hit(if usize::from(raddr) < table.len() { "LUT read" } else { "LUT read past the end (0)" });
        match self.expected.front() {
            Some(&(due, atom)) if due == cycle => {
                assert!(out.out_valid, "cycle {cycle}, seed {seed}: the atom due now did not come out");
                assert_eq!(out.out_atom, atom, "cycle {cycle}, seed {seed}: atom {:016x} (reference) against {:016x}", atom, out.out_atom);
                self.expected.pop_front();
                self.checked += 1;
            }
            _ => assert!(!out.out_valid, "cycle {cycle}, seed {seed}: an atom came out that no window asked for"),
        }
        self.take_write();
    }
}

#[test]
fn random_layers_match_the_model_and_the_reference() {
    let run = Run::from_env("random_layers_match_the_model_and_the_reference", 200_000);
    let bench = RefCell::new(Bench {
        le: vec![0; 65],
        lo: vec![0; 257],
        cfg: In::default(),
        phase: 2,
        left: 0,
        layers: 0,
        expected: VecDeque::new(),
        read: (false, 0),
        write: None,
        checked: 0,
        local: Coverage::default(),
    });
    let seed = run.seed;
    let mut cycle = 0;
    let mut coverage = drive::<CdpDp>(&run, |rng, c| bench.borrow_mut().stimulus(rng, c), |_, out, _| {
        bench.borrow_mut().check(out, cycle, seed);
        cycle += 1;
        true
    })
    .unwrap_or_else(|mismatch| panic!("{mismatch}"));
    let bench = bench.into_inner();
    coverage.merge(&bench.local);
    eprintln!("{} layers, {} atoms checked against the reference; coverage:\n{coverage}", bench.layers, bench.checked);
    let mut required = vec![
        "LE linear",
        "LE exponent",
        "LE Under (linear)",
        "LE Hit (linear)",
        "LE Over (linear)",
        "LE Under (exponent)",
        "LE Hit (exponent)",
        "LE Over (exponent)",
        "LO Under",
        "LO Hit",
        "LO Over",
        "LO hit with a negative index select",
        "SQSUM_BYPASS",
        "MUL_BYPASS",
        "output saturated",
        "LUT read",
        "LUT read past the end (0)",
        "LUT write past the end (ignored)",
        "lut write",
        "window in",
        "atom out",
    ];
    let choices: Vec<String> = ["underflow", "overflow", "LE hit", "LO hit", "hybrid"]
        .iter()
        .flat_map(|c| ["LE", "LO"].map(|t| format!("{c} -> {t}")))
        .filter(|c| c != "LE hit -> LO" && c != "LO hit -> LE")
        .collect();
    let lengths: Vec<String> = [3, 5, 7, 9].iter().map(|n| format!("NORMALZ_LEN {n}")).collect();
    required.extend(choices.iter().map(String::as_str));
    required.extend(lengths.iter().map(String::as_str));
    coverage.require(&required);
    assert!(bench.checked > 1000, "only {} atoms checked", bench.checked);
}
