//! The kernel unit's 8 elementwise lanes (RTL `hdl/src/ethos/elementwise_lanes.rs`; issue 19,
//! docs/ethos.md "Elementwise unit timing", *Word mode*): in word mode an ELEMENTWISE computes
//! the OFM bytes of a word of 8 channels at once, lane i from byte i of the IFM word and of the
//! IFM2 word (or the scalar), each lane the element-at-a-time arithmetic
//! ([`super::elementwise_datapath::value`]). A part of the [`super::elementwise`] model.
use super::elementwise_datapath::value;
use super::kernel_registers::KernelRegisters;

/// The OFM word of ELEMENTWISE `mode` on the IFM word `ifm` and the IFM2 word `ifm2`: byte i
/// is lane i's result.
pub fn values(regs: &KernelRegisters, mode: u8, ifm: u64, ifm2: u64) -> u64 {
    (0..8).fold(0u64, |w, i| w | u64::from(value(regs, mode, (ifm >> (8 * i)) as u8, (ifm2 >> (8 * i)) as u8)) << (8 * i))
}

/// The OFM strobes of the word of channels `c`..`c + 7` (`c` a multiple of 8) of a map whose
/// last channel is `depth_m1`: fewer than 8 in its last, partial word.
pub fn strobes(c: u16, depth_m1: u16) -> u8 {
    let rem = depth_m1.wrapping_sub(c);
    if rem >= 7 {
        0xff
    } else {
        0xff >> (7 - rem)
    }
}
