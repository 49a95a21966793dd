//! SDP's X stages, BS and BN (seeds/001 "Single Data Point Processor": each an ALU, a
//! multiplier with its truncation, and a ReLU, each part bypassable), on the 32-bit lanes of
//! one atom. RTL: `npu_hdl::nvdla::sdp_x::SdpX`; docs/nvdla.md, "SDP's BS and BN stages".
//!
//! Per lane, with the widths of NVDLA's int8 pipeline (each exact for its operands):
//! - ALU: the 16-bit operand shifted left by ALU_SHIFT_VALUE, saturated to 32 bits; then
//!   max, min or sum (ALU_ALGO 0, 1, 2; 3 sums as NVDLA's does) with the 32-bit input in 33
//!   bits (the sum of two 32-bit values needs 33).
//! - Multiplier: the 33-bit ALU value times the 16-bit operand, 49 bits; with PReLU, a value
//!   of 0 or more is not multiplied (and not truncated: its low 32 bits pass, as NVDLA's).
//! - Truncation: the 49-bit value shifted right by MUL_SHIFT_VALUE (its low 6 bits, all
//!   NVDLA's datapath takes), rounding half away from zero, saturated to 32 bits; a shift of
//!   49 or more gives 0. It applies with the multiplier bypassed too (NVDLA's does).
//! - ReLU: negative values become 0.
use super::convert::shift_right_saturate;
use super::csb::UnitRegisters;
use npu_hdl::nvdla::regmap;

/// One X stage's configuration, from SDP's consumer group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XConfig {
    pub bypass: bool,
    pub alu_bypass: bool,
    pub alu_algo: u32,
    /// ALU operand from memory (per channel or element) instead of the register.
    pub alu_src: bool,
    pub alu_shift: u32,
    pub alu_operand: i16,
    pub mul_bypass: bool,
    pub mul_prelu: bool,
    pub mul_src: bool,
    pub mul_shift: u32,
    pub mul_operand: i16,
    pub relu_bypass: bool,
}

impl XConfig {
    /// Stage `stage` ("BS" or "BN") from SDP's registers.
    pub fn from_registers(sdp: &UnitRegisters, stage: &str) -> Self {
        let get = |register: &str, field: &str| {
            let (register, field) = (format!("D_DP_{stage}_{register}"), format!("{stage}_{field}"));
            let f = regmap::field("SDP", &register, &field);
            (sdp.consumed(&register) & f.mask()) >> f.lsb
        };
        XConfig {
            bypass: get("CFG", "BYPASS") != 0,
            alu_bypass: get("CFG", "ALU_BYPASS") != 0,
            alu_algo: get("CFG", "ALU_ALGO"),
            alu_src: get("ALU_CFG", "ALU_SRC") != 0,
            alu_shift: get("ALU_CFG", "ALU_SHIFT_VALUE"),
            alu_operand: get("ALU_SRC_VALUE", "ALU_OPERAND") as u16 as i16,
            mul_bypass: get("CFG", "MUL_BYPASS") != 0,
            mul_prelu: get("CFG", "MUL_PRELU") != 0,
            mul_src: get("MUL_CFG", "MUL_SRC") != 0,
            mul_shift: get("MUL_CFG", "MUL_SHIFT_VALUE") & 0x3f,
            mul_operand: get("MUL_SRC_VALUE", "MUL_OPERAND") as u16 as i16,
            relu_bypass: get("CFG", "RELU_BYPASS") != 0,
        }
    }

    /// One lane; `alu_memory` and `mul_memory` are its ALU and multiplier operands read from
    /// memory (each used by its part when its source says so).
    pub fn lane(&self, x: i32, alu_memory: i16, mul_memory: i16) -> i32 {
        if self.bypass {
            return x;
        }
        let x = i64::from(x);
        let alu = if self.alu_bypass {
            x
        } else {
            let operand = if self.alu_src { alu_memory } else { self.alu_operand };
            let shifted = (i128::from(operand) << self.alu_shift).clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i64;
            match self.alu_algo {
                0 => x.max(shifted),
                1 => x.min(shifted),
                _ => x + shifted,
            }
        };
        let truncated = if !self.mul_bypass && self.mul_prelu && alu >= 0 {
            alu as i32
        } else {
            let product = if self.mul_bypass { alu } else { alu * i64::from(if self.mul_src { mul_memory } else { self.mul_operand }) };
            shift_right_saturate(product, self.mul_shift, 32) as i32
        };
        if self.relu_bypass {
            truncated
        } else {
            truncated.max(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::XConfig;

    /// Hand-worked lanes: each part alone, then PReLU's pass-through of a 33-bit sum.
    #[test]
    fn each_part_of_the_stage() {
        let on = XConfig { alu_bypass: true, mul_bypass: true, relu_bypass: true, ..XConfig::default() };
        assert_eq!(XConfig { bypass: true, ..on }.lane(-7, 0, 0), -7);
        assert_eq!(on.lane(-7, 0, 0), -7);
        let alu = |algo, operand, shift| XConfig { alu_bypass: false, alu_algo: algo, alu_operand: operand, alu_shift: shift, ..on };
        assert_eq!(alu(0, 3, 1).lane(5, 0, 0), 6);
        assert_eq!(alu(1, 3, 1).lane(5, 0, 0), 5);
        assert_eq!(alu(2, -3, 2).lane(5, 0, 0), -7);
        assert_eq!(alu(3, -3, 2).lane(5, 0, 0), -7);
        // The shifted operand saturates at 32 bits; the sum does not (33 bits), the
        // truncation then saturates it.
        assert_eq!(alu(2, 1, 40).lane(1, 0, 0), i32::MAX);
        assert_eq!(alu(2, -1, 40).lane(-1, 0, 0), i32::MIN);
        assert_eq!(XConfig { alu_src: true, ..alu(2, 100, 0) }.lane(1, 5, 99), 6); // the ALU takes its own operand, not the multiplier's
        let mul = |operand, shift| XConfig { mul_bypass: false, mul_operand: operand, mul_shift: shift, ..on };
        assert_eq!(mul(3, 1).lane(5, 0, 0), 8); // 7.5 -> 8
        assert_eq!(mul(3, 1).lane(-5, 0, 0), -8); // -7.5 -> -8
        assert_eq!(mul(-1, 2).lane(9, 0, 0), -2); // -2.25 -> -2
        assert_eq!(mul(2, 49).lane(9, 0, 0), 0);
        assert_eq!(XConfig { mul_shift: 1, ..on }.lane(5, 0, 0), 3); // truncation without the multiplier
        assert_eq!(XConfig { mul_src: true, ..mul(100, 0) }.lane(5, 99, -2), -10);
        let prelu = XConfig { mul_prelu: true, ..mul(3, 1) };
        assert_eq!(prelu.lane(5, 0, 0), 5);
        assert_eq!(prelu.lane(-5, 0, 0), -8);
        // PReLU passes the low 32 bits of a positive 33-bit sum.
        assert_eq!(XConfig { alu_bypass: false, alu_algo: 2, alu_operand: 1, alu_shift: 31, ..prelu }.lane(i32::MAX, 0, 0), i32::MAX.wrapping_add(i32::MAX));
        assert_eq!(XConfig { relu_bypass: false, ..on }.lane(-5, 0, 0), 0);
        assert_eq!(XConfig { relu_bypass: false, ..on }.lane(5, 0, 0), 5);
    }
}
