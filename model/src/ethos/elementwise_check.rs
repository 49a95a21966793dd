//! The kernel unit's CHECK verdict (RTL `hdl/src/ethos/elementwise_check.rs`, whose comment
//! has the decisions: what is refused and why): whether the LATCHed registers, with the
//! operation and its mode, ask for something the unit does not implement. A function of the
//! registers; a part of the [`super::elementwise`] model, as in the RTL.
use super::kernel_registers::{scalar, KernelRegisters};
use npu_hdl::ethos::elementwise_alu::MIN_OPA_SHIFT;
use npu_hdl::ethos::pooling_alu::MAX_KERNEL_M1;

/// Whether `regs` ask for something the unit does not do, for a POOL (`pool`) or an
/// ELEMENTWISE of `mode`; `mode_bad`: the kernel's mode is above the operation's last.
pub fn unsupported(regs: &KernelRegisters, pool: bool, mode: u8, mode_bad: bool) -> bool {
    let p = |id| regs.param(id);
    let int8 = |precision: u16, size_shift: u16| precision & 1 == 0 || (precision >> size_shift) & 3 != 0 || (precision >> 6) & 3 > 1;
    let int8_value = |v: i64| (-128..=127).contains(&v);
    let scalar_operand = p(scalar::IFM2_BROADCAST) & 0x80 != 0;
    let scale_mode = (p(scalar::IFM_PRECISION) >> 8) & 3;
    let add_sub = !pool && (mode == 1 || mode == 2);
    let ifm2 = !pool && !scalar_operand;
    // The IFM2 zero point, sign- or zero-extended by IFM2_PRECISION[0].
    let ifm2_zero_point = if p(scalar::IFM2_PRECISION) & 1 != 0 { i64::from(p(scalar::IFM2_ZERO_POINT) as i16) } else { i64::from(p(scalar::IFM2_ZERO_POINT)) };
    mode_bad
        || int8(p(scalar::IFM_PRECISION), 2)
        || int8(p(scalar::OFM_PRECISION), 1)
        || (ifm2 && int8(p(scalar::IFM2_PRECISION), 2))
        || p(scalar::ACTIVATION) & 0x1f != 0
        || p(scalar::ACC_FORMAT) > 1
        || (p(scalar::IFM_UPSCALE) != 0 && !(pool && p(scalar::IFM_UPSCALE) == 1))
        || (add_sub && scale_mode == 3)
        || (add_sub && (scale_mode == 1 || scale_mode == 2) && ((regs.scalar[scalar::OPA_SCALE] >> 32) & 0x3f) < u64::from(MIN_OPA_SHIFT))
        || p(scalar::IFM_REGION) > 7
        || p(scalar::OFM_REGION) > 7
        || (ifm2 && p(scalar::IFM2_REGION) > 7)
        || !int8_value(i64::from(p(scalar::IFM_ZERO_POINT) as i16))
        || (!pool && !int8_value(ifm2_zero_point))
        || (!pool && scalar_operand && !int8_value(i64::from(p(scalar::IFM2_SCALAR) as i16)))
        || (pool && (p(scalar::KERNEL_STRIDE) & 0x18 != 0 || p(scalar::KERNEL_HEIGHT_M1) > MAX_KERNEL_M1 || p(scalar::KERNEL_WIDTH_M1) > MAX_KERNEL_M1))
}
