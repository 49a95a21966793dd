//! SDP's plain reference, written from seeds/001 and the RDL apart from the model: the
//! rounding shifts, the output converter, the X stages (BS, BN) and the EW stage, on one lane
//! of any width (`i128`). Used by the SDP tests and, after a plain convolution, by the
//! direct-convolution tests (the flying SDP).

/// NVDLA's rounding right shift as seeds/001 describes it, written apart from the model: the
/// magnitude shifted with half added (round half away from zero), the sign put back,
/// saturated to `bits` bits; a shift of 49 or more (the value's width) gives 0.
pub fn reference_shift(value: i128, shift: u32, bits: u32) -> i128 {
    if shift >= 49 {
        return 0;
    }
    reference_round(value, shift, bits)
}

/// The same rounding for any shift, exact (NVIDIA's C model's fixed-point shift, which the EW
/// stage's truncation uses): a value below 2^100 shifted by 101 or more is 0.
pub fn reference_round(value: i128, shift: u32, bits: u32) -> i128 {
    if shift > 100 {
        return 0;
    }
    let half = if shift == 0 { 0 } else { 1i128 << (shift - 1) };
    let magnitude = (value.abs() + half) >> shift;
    (value.signum() * magnitude).clamp(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
}

/// The output converter: `(x - offset) * scale`, shifted, saturated to int8.
pub fn reference_convert(x: i128, offset: i32, scale: i16, shift: u32) -> i8 {
    reference_shift((x - i128::from(offset)) * i128::from(scale), shift, 8) as i8
}

/// One X stage's registers (D_DP_BS_* or D_DP_BN_*), drawn at random.
#[derive(Clone, Copy, Debug)]
pub struct Stage {
    pub cfg: u32,
    pub alu_cfg: u32,
    pub alu_value: u32,
    pub mul_cfg: u32,
    pub mul_value: u32,
}

impl Stage {
    /// `memory`: its operand read (BRDMA or NRDMA) is on, so its parts may take their
    /// operands from memory.
    pub fn random(rng: &mut impl rand::Rng, memory: bool) -> Self {
        use rand::Rng;
        let shift = |rng: &mut dyn rand::RngCore| match rng.gen_range(0..3) {
            0 => 0,
            1 => rng.gen_range(1..16u32),
            _ => rng.gen_range(16..256u32),
        };
        // Bit 0 BYPASS (a stage on 3 times in 4), then ALU_BYPASS, ALU_ALGO, MUL_BYPASS,
        // MUL_PRELU, RELU_BYPASS at random; SRC (bit 0 of ALU_CFG and MUL_CFG) memory at
        // random when the operand read is on.
        let cfg = u32::from(rng.gen_bool(0.25)) | rng.gen_range(0..64u32) << 1;
        let operand = |rng: &mut dyn rand::RngCore| if rng.gen_bool(0.5) { rng.gen_range(0..16u32) } else { rng.gen::<u32>() & 0xffff };
        let src = |rng: &mut dyn rand::RngCore| u32::from(memory && rng.gen_bool(0.5));
        Stage { cfg, alu_cfg: shift(rng) % 64 << 8 | src(rng), alu_value: operand(rng), mul_cfg: shift(rng) << 8 | src(rng), mul_value: operand(rng) }
    }

    /// The stage on one lane, as seeds/001 and the RDL describe it (docs/nvdla.md, "SDP's BS
    /// and BN stages", for the widths); `memory` is the lane's operand read from memory (an
    /// int8); `seen` counts the cases met.
    pub fn apply(&self, x: i128, memory: i8, seen: &mut std::collections::BTreeSet<&'static str>) -> i128 {
        if self.cfg & 1 != 0 {
            return x;
        }
        let mut v = x;
        if self.cfg & 2 == 0 {
            let value = if self.alu_cfg & 1 != 0 {
                seen.insert("alu operand from memory");
                i128::from(memory)
            } else {
                i128::from(self.alu_value as u16 as i16)
            };
            let operand = (value * (1i128 << (self.alu_cfg >> 8 & 63))).clamp(i32::MIN.into(), i32::MAX.into());
            if operand.abs() == 1 << 31 || operand == (1 << 31) - 1 {
                seen.insert("alu operand saturated");
            }
            v = match self.cfg >> 2 & 3 {
                0 => v.max(operand),
                1 => v.min(operand),
                _ => v + operand,
            };
            seen.insert(["alu max", "alu min", "alu sum", "alu sum (algo 3)"][(self.cfg >> 2 & 3) as usize]);
        }
        let (mul_bypass, prelu) = (self.cfg & 16 != 0, self.cfg & 32 != 0);
        if !mul_bypass && prelu && v >= 0 {
            seen.insert("prelu kept");
            v = i128::from(v as u32 as i32);
        } else {
            if !mul_bypass {
                seen.insert(if prelu { "prelu multiplied" } else { "multiplied" });
                v *= if self.mul_cfg & 1 != 0 {
                    seen.insert("mul operand from memory");
                    i128::from(memory)
                } else {
                    i128::from(self.mul_value as u16 as i16)
                };
            }
            let t = reference_shift(v, self.mul_cfg >> 8 & 63, 32);
            if t != reference_shift(v, self.mul_cfg >> 8 & 63, 64) {
                seen.insert("truncation saturated");
            }
            v = t;
        }
        if self.cfg & 64 == 0 && v < 0 {
            seen.insert("relu clamped");
            v = 0;
        }
        v
    }
}

/// The EW stage's registers (D_DP_EW_*), drawn at random; operands from the registers, the
/// LUT bypassed (the two parts built).
#[derive(Clone, Copy, Debug)]
pub struct Ew {
    pub cfg: u32,
    pub alu_value: u32,
    pub mul_value: u32,
    pub truncate: u32,
}

impl Ew {
    pub fn random(rng: &mut impl rand::Rng) -> Self {
        use rand::Rng;
        // BYPASS (the stage on 3 times in 4), ALU_BYPASS, ALU_ALGO 0..2, MUL_BYPASS,
        // MUL_PRELU at random; LUT_BYPASS set.
        let cfg = u32::from(rng.gen_bool(0.25)) | u32::from(rng.gen_bool(0.3)) << 1 | rng.gen_range(0..3u32) << 2 | u32::from(rng.gen_bool(0.3)) << 4 | u32::from(rng.gen_bool(0.3)) << 5 | 1 << 6;
        // Small, any, or near a 32-bit extreme (so that the ALU's sum saturates).
        let operand = |rng: &mut dyn rand::RngCore| match rng.gen_range(0..3) {
            0 => rng.gen_range(-300..300i32) as u32,
            1 => rng.gen(),
            _ => (if rng.gen_bool(0.5) { i32::MAX - rng.gen_range(0..16) } else { i32::MIN + rng.gen_range(0..16) }) as u32,
        };
        let truncate = match rng.gen_range(0..4) {
            0 => 0,
            1 => rng.gen_range(1..16),
            2 => rng.gen_range(16..64),
            _ => rng.gen_range(64..1024),
        };
        Ew { cfg, alu_value: operand(rng), mul_value: operand(rng), truncate }
    }

    /// The stage on one lane, as NVIDIA's C model computes it (cmod/hls/sdp/sdp_y_core.cpp:
    /// multiplier, then ALU; docs/nvdla.md, "SDP's EW stage"); `seen` counts the cases met.
    pub fn apply(&self, x: i128, seen: &mut std::collections::BTreeSet<&'static str>) -> i128 {
        if self.cfg & 1 != 0 {
            return x;
        }
        let mut v = x;
        if self.cfg & 16 == 0 {
            if self.cfg & 32 != 0 && v >= 0 {
                seen.insert("ew prelu kept");
            } else {
                let product = v * i128::from(self.mul_value as i32);
                v = reference_round(product, self.truncate, 32);
                seen.insert(if v != reference_round(product, self.truncate, 128) { "ew truncation saturated" } else { "ew multiplied" });
                if self.truncate >= 64 {
                    seen.insert("ew shifted out");
                }
            }
        }
        if self.cfg & 2 == 0 {
            let operand = i128::from(self.alu_value as i32);
            let algo = self.cfg >> 2 & 3;
            let o = match algo {
                0 => v.max(operand),
                1 => v.min(operand),
                _ => v + operand,
            };
            seen.insert(["ew alu max", "ew alu min", "ew alu sum"][algo as usize]);
            v = o.clamp(i32::MIN.into(), i32::MAX.into());
            if v != o {
                seen.insert("ew alu saturated");
            }
        }
        v
    }
}
