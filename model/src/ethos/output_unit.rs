//! Ethos-U65 output unit (AO): per-OFM-channel bias, 32-bit scale with a 6-bit shift, the three
//! rounding modes of OFM_PRECISION, output zero point, ACTIVATION_MIN/MAX clamp and the 256-entry
//! 8-bit lookup table (TRM L1078-1152; digest `shared/spec/ethos-u65.md` §2). RTL:
//! `hdl/src/ethos/output_unit.rs`; decisions in docs/ethos.md ("Output unit").
//!
//! The TRM gives no formula (§2.3). This unit computes, for an accumulator `acc` and the
//! channel's `bias` (int40), `scale` (uint32) and `shift` (0..=63):
//!
//! ```text
//! v = acc + bias                                  (exact, 42 bits)
//! p = v · scale                                   (exact, 74 bits)
//! TFL      (mode 0): shift <= 31: floor((p + 2^(shift-1)) / 2^shift)           ties toward +inf
//!                    shift >  31: t = floor((p + 2^30) / 2^31)                 ties toward +inf
//!                                 r = t / 2^(shift-31), ties away from zero
//! TRUNCATE (mode 1): p / 2^shift rounded toward zero
//! NATURAL  (mode 2): floor((p + 2^(shift-1)) / 2^shift)                        ties toward +inf
//! out = clamp(r + ofm_zero_point, ACTIVATION_MIN, ACTIVATION_MAX), then LUT[out + 128] if enabled
//! ```
//!
//! Why mode 0 is that: it is TFLite's `MultiplyByQuantizedMultiplier(x, M, s)` written for the
//! hardware's (scale, shift) pair, shift = 31 - s: TFLite first shifts left by max(s, 0), then
//! `SaturatingRoundingDoublingHighMul` ((x·M + nudge) / 2^31, which rounds ties toward +inf),
//! then `RoundingDivideByPOT` by max(-s, 0) (ties away from zero): one rounding when shift <= 31,
//! two ("double rounding") when shift > 31. This is also TOSA's `apply_scale_32` with
//! `double_round`. For shift <= 31 it equals NATURAL; the modes differ only above 31 (TFL) and in
//! the direction of ties and truncation (TRUNCATE). TFLite's int32 overflow of `x·2^s` (an
//! effective scale above 1, which real networks do not use) is not reproduced: this unit's
//! product is exact.

/// OFM_PRECISION b[15:14].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rounding {
    #[default]
    Tfl = 0,
    Truncate = 1,
    Natural = 2,
}

impl Rounding {
    pub const ALL: [Rounding; 3] = [Rounding::Tfl, Rounding::Truncate, Rounding::Natural];

    /// The 2-bit field; 3, which the TRM does not define, rounds as NATURAL.
    pub fn from_bits(bits: u8) -> Rounding {
        match bits & 3 {
            0 => Rounding::Tfl,
            1 => Rounding::Truncate,
            _ => Rounding::Natural,
        }
    }
}

/// Floor of `p / 2^n` plus a half: ties toward +inf (`n` >= 0).
fn round_half_up(p: i128, n: u32) -> i128 {
    if n == 0 {
        p
    } else {
        (p + (1i128 << (n - 1))) >> n
    }
}

/// TFLite's `RoundingDivideByPOT`: `x / 2^n`, ties away from zero.
fn round_half_away(x: i128, n: u32) -> i128 {
    let mask = (1i128 << n) - 1;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i128::from(x < 0);
    (x >> n) + i128::from(remainder > threshold)
}

/// `v · scale / 2^shift` rounded as `rounding` says (the table in the module comment).
pub fn apply_scale(v: i64, scale: u32, shift: u8, rounding: Rounding) -> i128 {
    let p = i128::from(v) * i128::from(scale);
    let shift = u32::from(shift);
    match rounding {
        Rounding::Tfl if shift <= 31 => round_half_up(p, shift),
        Rounding::Tfl => round_half_away(round_half_up(p, 31), shift - 31),
        Rounding::Truncate => {
            let magnitude = p.abs() >> shift;
            if p < 0 {
                -magnitude
            } else {
                magnitude
            }
        }
        Rounding::Natural => round_half_up(p, shift),
    }
}

/// One OFM channel's parameters and the layer's output settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// int40.
    pub bias: i64,
    pub scale: u32,
    /// 0..=63.
    pub shift: u8,
    pub rounding: Rounding,
    pub ofm_zero_point: i16,
    pub act_min: i16,
    pub act_max: i16,
    /// The 8-bit lookup table, indexed by the clamped int8 value + 128.
    pub lut: Option<Box<[i8; 256]>>,
}

impl Params {
    /// Scaled, offset by the zero point and clamped, before the table.
    pub fn requantize(&self, acc: i64) -> i16 {
        let r = apply_scale(acc + self.bias, self.scale, self.shift, self.rounding) + i128::from(self.ofm_zero_point);
        r.clamp(i128::from(self.act_min), i128::from(self.act_max)) as i16
    }

    /// The output value of one accumulator (int8 or int16 as the clamp range says).
    pub fn output(&self, acc: i64) -> i16 {
        let clamped = self.requantize(acc);
        match &self.lut {
            Some(lut) => i16::from(lut[lut_index(clamped)]),
            None => clamped,
        }
    }
}

/// The table entry of a clamped value: its low 8 bits as int8, + 128.
pub fn lut_index(value: i16) -> usize {
    (value as u8 ^ 0x80) as usize
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub in_valid: bool,
    pub acc: i64,
    pub bias: i64,
    pub scale: u32,
    pub shift: u8,
    pub rounding: u8,
    pub zero_point: i16,
    pub act_min: i16,
    pub act_max: i16,
    pub lut_enable: bool,
    pub lut_write: bool,
    pub lut_address: u8,
    pub lut_data: i8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub out_valid: bool,
    pub out_value: i16,
}

/// The pipeline of `hdl/src/ethos/output_unit.rs`: (1) the product, (2) rounding, zero point
/// and clamp, (3) the table read; a value leaves three cycles after it enters. As in the RTL,
/// a stage takes a value only with its valid (the valid bits move every cycle, the rest holds),
/// so `out_value` without `out_valid` is the last valid value (0 after reset): the RTL computes
/// only valid values, for the Verilated model's speed (docs/ethos.md, "Output unit").
#[derive(Clone, Debug)]
pub struct OutputUnit {
    /// Stage 1: valid, accumulator, parameters (no table), table enable.
    stage1: (bool, i64, Params, bool),
    /// Stage 2 and 3: valid, clamped value, table enable.
    stage2: (bool, i16, bool),
    stage3: (bool, i16, bool),
    lut_read: i8,
    lut: [i8; 256],
    event: &'static str,
}

impl Default for OutputUnit {
    fn default() -> Self {
        let params = Params { bias: 0, scale: 0, shift: 0, rounding: Rounding::Tfl, ofm_zero_point: 0, act_min: 0, act_max: 0, lut: None };
        Self { stage1: (false, 0, params, false), stage2: (false, 0, false), stage3: (false, 0, false), lut_read: 0, lut: [0; 256], event: "" }
    }
}

impl OutputUnit {
    pub fn outputs(&self) -> Out {
        let (valid, value, lut_enable) = self.stage3;
        Out { out_valid: valid, out_value: if lut_enable { i16::from(self.lut_read) } else { value } }
    }

    fn clock(&mut self, i: &In) -> &'static str {
        // The table is a memory: no reset, written also in a reset cycle; a read sees the old
        // entry (read before the write; not a copy of the table, which cost the conv
        // datapath's model 256 bytes a lane every cycle).
        let (valid2, value2, lut2) = self.stage2;
        let table_read = (valid2 && lut2).then(|| self.lut[lut_index(value2)]);
        if i.lut_write {
            self.lut[usize::from(i.lut_address)] = i.lut_data;
        }
        if i.reset {
            *self = Self { lut: self.lut, ..Self::default() };
            return "reset";
        }
        let event = match (table_read.is_some(), i.in_valid) {
            (true, _) => "table read",
            (false, true) => "value in",
            _ => "idle",
        };
        if let Some(entry) = table_read {
            self.lut_read = entry;
        }
        self.stage3.0 = valid2;
        if valid2 {
            self.stage3 = self.stage2;
        }
        let (valid1, acc, params, lut1) = &self.stage1;
        self.stage2.0 = *valid1;
        if *valid1 {
            self.stage2 = (true, params.requantize(*acc), *lut1);
        }
        self.stage1.0 = i.in_valid;
        if i.in_valid {
            let params = Params {
                bias: i.bias,
                scale: i.scale,
                shift: i.shift,
                rounding: Rounding::from_bits(i.rounding),
                ofm_zero_point: i.zero_point,
                act_min: i.act_min,
                act_max: i.act_max,
                lut: None,
            };
            self.stage1 = (true, i.acc, params, i.lut_enable);
        }
        event
    }
}

crate::sequential_block!(OutputUnit);
