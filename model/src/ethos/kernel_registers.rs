//! The kernel units' registers and their LATCH sequence (`hdl/src/ethos/kernel_registers.rs`,
//! whose comment has the sequence): the scalar copies and the three maps' slots, filled from
//! the front end's debug port. The kernel unit (`elementwise.rs`) and the convolution unit
//! (`conv_unit.rs`) each keep one. The sequence itself is [`super::latch_sequencer`], as in the
//! RTL.
use super::feature_map::Slots;
pub use npu_hdl::ethos::kernel_registers::{basep_target, latch_table, scalar, BASEP_STEPS, LATCH_STEPS};

#[derive(Clone, Debug)]
pub struct KernelRegisters {
    /// The scalar registers by id (module `scalar`), 48 bits as read.
    pub scalar: [u64; 64],
    /// IFM, IFM2, OFM.
    pub maps: [Slots; 3],
}

impl Default for KernelRegisters {
    fn default() -> Self {
        Self { scalar: [0; 64], maps: [[0; 16]; 3] }
    }
}

impl KernelRegisters {
    /// A register's low 16 bits.
    pub fn param(&self, id: usize) -> u16 {
        self.scalar[id] as u16
    }

    /// A 40-bit register (a cmd1's {parameter[7:0], payload}).
    pub fn wide(&self, id: usize) -> u64 {
        self.scalar[id] & ((1 << 40) - 1)
    }

    /// The BASEP of the weight (`false`) or scale (`true`) region.
    pub fn stream_basep(&self, scale: bool) -> u64 {
        let (low, high) = if scale { (scalar::SCALE_BASEP_LOW, scalar::SCALE_BASEP_HIGH) } else { (scalar::WEIGHT_BASEP_LOW, scalar::WEIGHT_BASEP_HIGH) };
        (self.scalar[high] & 0xff) << 32 | (self.scalar[low] & 0xffff_ffff)
    }

    /// The debug index LATCH step `k` reads ([`super::latch_sequencer::debug_index`]).
    pub fn debug_index(&self, k: usize) -> u8 {
        super::latch_sequencer::debug_index(k, |id| self.scalar[id])
    }

    /// LATCH step `k`: the value read at step k - 1 arrives (`debug_value`) and goes to its
    /// target ([`super::latch_sequencer::target`]).
    pub fn latch(&mut self, k: usize, debug_value: u64) {
        let Some(target) = super::latch_sequencer::target(k) else {
            return;
        };
        match target >> 6 {
            0 => self.scalar[usize::from(target & 0x3f)] = debug_value & ((1 << 48) - 1),
            m => self.maps[usize::from(m) - 1][usize::from(target & 15)] = debug_value & ((1 << 40) - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ethos::feature_map::BASEP_LOW;
    use npu_hdl::ethos::command_front_end::DEBUG_BASEP;

    /// The BASEP steps go to the maps' BASEP slots and the stream BASEP ids, each pair once.
    #[test]
    fn basep_steps_reach_every_region_pair() {
        let targets: Vec<u8> = (0..BASEP_STEPS).map(basep_target).collect();
        for m in 0..3u8 {
            assert!(targets.contains(&((m + 1) << 6 | BASEP_LOW as u8)));
            assert!(targets.contains(&((m + 1) << 6 | (BASEP_LOW + 1) as u8)));
        }
        for id in [scalar::WEIGHT_BASEP_LOW, scalar::WEIGHT_BASEP_HIGH, scalar::SCALE_BASEP_LOW, scalar::SCALE_BASEP_HIGH] {
            assert!(targets.contains(&(id as u8)));
        }
        let mut r = KernelRegisters::default();
        r.scalar[scalar::WEIGHT_REGION] = 3;
        r.scalar[scalar::SCALE_REGION] = 5;
        let first = latch_table().len();
        assert_eq!(usize::from(r.debug_index(first + 6)), DEBUG_BASEP + 6);
        assert_eq!(usize::from(r.debug_index(first + 9)), DEBUG_BASEP + 11);
        r.latch(first + 7, 0x1234_5678);
        r.latch(first + 8, 0xab);
        assert_eq!(r.stream_basep(false), 0xab_1234_5678);
    }
}
