//! SDP's Y stage, EW (seeds/001 "Single Data Point Processor": the element-wise stage, a
//! multiplier with its truncation then an ALU, each bypassable, the whole stage too), on the
//! 32-bit lanes of one atom, with its operands from the registers. RTL:
//! `npu_hdl::nvdla::sdp_y::SdpY`; docs/nvdla.md, "SDP's EW stage".
//!
//! Per lane, as NVIDIA's C model computes the int8 pipeline (cmod/hls/sdp/sdp_y_core.cpp,
//! read to learn the order and widths; seeds/001 names the parts only). The order is the
//! reverse of the X stages': multiplier first, then the ALU.
//! - Multiplier: the 32-bit input times the 32-bit operand (EW_MUL_OPERAND, all 32 bits), 64
//!   bits exact; shifted right by EW_TRUNCATE (10 bits, 0..1023) rounding half away from
//!   zero, saturated to 32 bits. With PReLU a value of 0 or more passes untouched; with the
//!   multiplier bypassed the value passes untouched too (no truncation, unlike the X stages).
//! - ALU: max, min or sum (ALU_ALGO 0, 1, 2) of that value and the 32-bit operand in 33 bits,
//!   saturated to 32; ALGO 3 (EQL) gives 0 when equal, 1 otherwise (the C model's ALU; the
//!   player refuses it, as NVDLA then sends the result elsewhere).
//! - The LUT after the ALU is not built: the player refuses a layer using it.
use super::convert::round_shift_saturate;
use super::csb::UnitRegisters;
use npu_hdl::nvdla::regmap;

/// The EW stage's configuration, from SDP's consumer group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct YConfig {
    pub bypass: bool,
    pub alu_bypass: bool,
    pub alu_algo: u32,
    pub alu_operand: i32,
    pub mul_bypass: bool,
    pub mul_prelu: bool,
    pub mul_operand: i32,
    pub truncate: u32,
}

impl YConfig {
    pub fn from_registers(sdp: &UnitRegisters) -> Self {
        let get = |register: &str, field: &str| {
            let (register, field) = (format!("D_DP_EW_{register}"), format!("EW_{field}"));
            let f = regmap::field("SDP", &register, &field);
            (sdp.consumed(&register) & f.mask()) >> f.lsb
        };
        YConfig {
            bypass: get("CFG", "BYPASS") != 0,
            alu_bypass: get("CFG", "ALU_BYPASS") != 0,
            alu_algo: get("CFG", "ALU_ALGO"),
            alu_operand: get("ALU_SRC_VALUE", "ALU_OPERAND") as i32,
            mul_bypass: get("CFG", "MUL_BYPASS") != 0,
            mul_prelu: get("CFG", "MUL_PRELU") != 0,
            mul_operand: get("MUL_SRC_VALUE", "MUL_OPERAND") as i32,
            truncate: get("TRUNCATE_VALUE", "TRUNCATE"),
        }
    }

    /// One lane.
    pub fn lane(&self, x: i32) -> i32 {
        if self.bypass {
            return x;
        }
        let product = if self.mul_bypass || (self.mul_prelu && x >= 0) {
            x
        } else {
            round_shift_saturate(i64::from(x) * i64::from(self.mul_operand), self.truncate, 32) as i32
        };
        if self.alu_bypass {
            return product;
        }
        let (a, b) = (i64::from(product), i64::from(self.alu_operand));
        let alu = match self.alu_algo {
            0 => a.max(b),
            1 => a.min(b),
            3 => i64::from(a != b),
            _ => a + b,
        };
        alu.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::YConfig;

    /// Hand-worked lanes: each part alone and together.
    #[test]
    fn each_part_of_the_stage() {
        let on = YConfig { alu_bypass: true, mul_bypass: true, ..YConfig::default() };
        assert_eq!(YConfig { bypass: true, mul_bypass: false, mul_operand: 9, ..on }.lane(-7), -7);
        assert_eq!(on.lane(-7), -7);
        // The multiplier bypassed: no truncation.
        assert_eq!(YConfig { truncate: 3, ..on }.lane(-7), -7);
        let mul = |operand, truncate| YConfig { mul_bypass: false, mul_operand: operand, truncate, ..on };
        assert_eq!(mul(3, 1).lane(5), 8); // 7.5 -> 8
        assert_eq!(mul(3, 1).lane(-5), -8); // -7.5 -> -8
        assert_eq!(mul(-1, 2).lane(9), -2); // -2.25 -> -2
        assert_eq!(mul(i32::MAX, 0).lane(2), i32::MAX); // saturated
        assert_eq!(mul(i32::MIN, 0).lane(2), i32::MIN);
        assert_eq!(mul(i32::MIN, 63).lane(i32::MIN), 1); // 2^62 / 2^63 = 0.5 -> 1
        assert_eq!(mul(i32::MIN, 64).lane(i32::MIN), 0);
        assert_eq!(mul(i32::MIN, 1023).lane(i32::MIN), 0);
        assert_eq!(mul(1 << 20, 50).lane(1 << 30), 1); // 2^50 >> 50: a shift the X stages' width would zero
        let prelu = YConfig { mul_prelu: true, ..mul(3, 1) };
        assert_eq!(prelu.lane(5), 5);
        assert_eq!(prelu.lane(-5), -8);
        let alu = |algo, operand| YConfig { alu_bypass: false, alu_algo: algo, alu_operand: operand, ..on };
        assert_eq!(alu(0, 3).lane(5), 5);
        assert_eq!(alu(0, 3).lane(-5), 3);
        assert_eq!(alu(1, 3).lane(5), 3);
        assert_eq!(alu(2, -3).lane(5), 2);
        assert_eq!(alu(2, i32::MAX).lane(5), i32::MAX); // the 33-bit sum saturates
        assert_eq!(alu(2, i32::MIN).lane(-5), i32::MIN);
        assert_eq!(alu(3, 5).lane(5), 0);
        assert_eq!(alu(3, 4).lane(5), 1);
        // Multiplier, then ALU.
        assert_eq!(YConfig { alu_bypass: false, alu_algo: 2, alu_operand: 1, ..mul(2, 0) }.lane(5), 11);
    }
}
