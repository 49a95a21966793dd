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
    /// and BN stages", for the widths); `memory` is the lane's ALU and multiplier operands
    /// read from memory ([`Operands::element`]); `seen` counts the cases met.
    pub fn apply(&self, x: i128, memory: (i16, i16), seen: &mut std::collections::BTreeSet<&'static str>) -> i128 {
        if self.cfg & 1 != 0 {
            return x;
        }
        let mut v = x;
        if self.cfg & 2 == 0 {
            let value = if self.alu_cfg & 1 != 0 {
                seen.insert("alu operand from memory");
                i128::from(memory.0)
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
                    i128::from(memory.1)
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

/// SDP_RDMA's BRDMA or NRDMA read, drawn at random: D_xRDMA_CFG (on, DATA_USE MUL, ALU or
/// BOTH, DATA_SIZE one or two bytes, DATA_MODE per kernel or per element, main memory), the
/// cube's registers, and the memory image at `base`.
#[derive(Clone, Debug)]
pub struct Operands {
    pub cfg: u32,
    pub base: u64,
    pub line: u32,
    pub surface: u32,
    pub image: Vec<u8>,
}

impl Operands {
    /// A read for a cube of `w` x `h` atoms and `surfaces` surfaces, its image at `base`;
    /// off when `on` is false.
    pub fn random(rng: &mut impl rand::Rng, on: bool, (w, h, surfaces): (u64, u64, u64), base: u64) -> Self {
        let layout = (rng.gen_range(0..3u32), rng.gen_bool(0.5), rng.gen_bool(0.5));
        if on {
            Self::with_layout(rng, layout, (w, h, surfaces), base)
        } else {
            Operands { cfg: 1, ..Self::with_layout(rng, layout, (w, h, surfaces), base) }
        }
    }

    /// An on read in the layout `(data_use, two_byte, per_element)` (DATA_USE 0 MUL, 1 ALU,
    /// 2 BOTH), its strides and image drawn at random, as [`Operands::random`].
    pub fn with_layout(rng: &mut impl rand::Rng, (data_use, two_byte, per_element): (u32, bool, bool), (w, h, surfaces): (u64, u64, u64), base: u64) -> Self {
        let cfg = data_use << 1 | u32::from(two_byte) << 3 | u32::from(per_element) << 4 | 1 << 5;
        let bytes = (1 + u64::from(two_byte)) * (1 + u64::from(data_use == 2));
        let (line, surface, size) = if per_element {
            let line = 8 * w * bytes + 8 * rng.gen_range(0..3u64);
            let surface = line * h + 8 * rng.gen_range(0..3u64);
            (line as u32, surface as u32, surface * surfaces)
        } else {
            // Strides the per-kernel read must not use.
            (rng.gen(), rng.gen(), 8 * surfaces * bytes)
        };
        Operands { cfg, base, line, surface, image: (0..size).map(|_| rng.gen()).collect() }
    }

    pub fn on(&self) -> bool {
        self.cfg & 1 == 0
    }

    /// The case this read is, for the coverage: mode, size and use.
    pub fn case(&self) -> &'static str {
        let per_element = self.cfg >> 4 & 1;
        let two_byte = self.cfg >> 3 & 1;
        let data_use = self.cfg >> 1 & 3;
        [
            ["per kernel, one byte, mul", "per kernel, one byte, alu", "per kernel, one byte, both"],
            ["per kernel, two bytes, mul", "per kernel, two bytes, alu", "per kernel, two bytes, both"],
            ["per element, one byte, mul", "per element, one byte, alu", "per element, one byte, both"],
            ["per element, two bytes, mul", "per element, two bytes, alu", "per element, two bytes, both"],
        ][(2 * per_element + two_byte) as usize][data_use as usize]
    }

    /// Channel `c`'s (0.. over all surfaces) ALU and multiplier operands at (x, y), read from
    /// the image as NVIDIA's C model lays them out: an element of one or two components (the
    /// ALU's first), each one byte (signed) or two (little-endian); per element at
    /// `s * SURFACE_STRIDE + y * LINE_STRIDE + (8x + c % 8) * bytes`, per kernel at
    /// `c * bytes`. A part the read does not supply (or all, with the read off) gets 0: the
    /// RTL's and the model's decision (docs/nvdla.md), where NVDLA would wait forever.
    pub fn element(&self, x: u64, y: u64, c: u64) -> (i16, i16) {
        if !self.on() {
            return (0, 0);
        }
        let (data_use, size) = (self.cfg >> 1 & 3, 1 + u64::from(self.cfg >> 3 & 1));
        let bytes = size * (1 + u64::from(data_use == 2));
        let at = if self.cfg >> 4 & 1 != 0 { c / 8 * u64::from(self.surface) + y * u64::from(self.line) + (8 * x + c % 8) * bytes } else { c * bytes };
        let component = |j: u64| {
            let i = (at + j * size) as usize;
            if size == 1 {
                i16::from(self.image[i] as i8)
            } else {
                i16::from_le_bytes([self.image[i], self.image[i + 1]])
            }
        };
        match data_use {
            0 => (0, component(0)),
            1 => (component(0), 0),
            _ => (component(0), component(1)),
        }
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
