//! The kernel units' LATCH sequencer (TRM §4.6; RTL `hdl/src/ethos/latch_sequencer.rs`, whose
//! comment has the sequence): which register-file entry or BASEP step `k` reads through the
//! front end's debug port, and where the value read at a step goes. The copies it fills are
//! [`super::kernel_registers::KernelRegisters`].
use super::kernel_registers::{basep_target, latch_table, scalar, LATCH_STEPS};
use npu_hdl::ethos::command_front_end::DEBUG_BASEP;

/// The debug index LATCH step `k` reads; `scalar` gives a scalar copy by id (the region
/// registers, written by the table's steps before the BASEP steps read them).
pub fn debug_index(k: usize, scalar: impl Fn(usize) -> u64) -> u8 {
    if k < latch_table().len() {
        latch_table()[k].0
    } else if k < LATCH_STEPS - 1 {
        let j = k - latch_table().len();
        (DEBUG_BASEP + 2 * (scalar(scalar::BASEP_REGIONS[j >> 1]) as usize & 7) + (j & 1)) as u8
    } else {
        0
    }
}

/// Where the value arriving at LATCH step `k` (read at step k - 1) goes: `kind << 6 | slot`
/// (kind 0 a scalar id, 1-3 a slot of the IFM, IFM2, OFM); nothing arrives at step 0.
pub fn target(k: usize) -> Option<u8> {
    let e = k.checked_sub(1)?;
    Some(match latch_table().get(e) {
        Some(&(_, target)) => target,
        None => basep_target(e - latch_table().len()),
    })
}
