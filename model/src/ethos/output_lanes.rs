//! The convolution datapath's output lanes (RTL `hdl/src/ethos/output_lanes.rs`, whose comment
//! has the memory split; TRM §2, digest §2; docs/ethos.md, "Convolution datapath", output
//! lanes): 16 output units ([`OutputUnit`], the same model instanced 16 times) and the
//! per-channel parameters they read, so that the output walk drains 16 accumulators a cycle,
//! one OFM row of the 2x2 block: lanes 0-7 the 8 channels of its left position, lanes 8-15
//! the same channels of its right one. Memory j (channels 8a + j) reads for lanes j and
//! j + 8 only when bit j of the read mask is set, else keeps its last read, as the RTL's
//! memories do; a reset clears the reads, not the memories. A lane's value without its
//! valid bit is its last valid value, as each [`OutputUnit`] holds it; the port carries its
//! low byte (int8: the unit clamps to the int8 activation range).
use super::output_unit::{self, OutputUnit, Rounding};
use crate::Block;
use npu_hdl::ethos::output_lanes::{LANES, MEMORIES};

/// Per channel: bias, scale, shift.
pub type Parameters = (i64, u32, u8);

#[derive(Clone, Debug)]
pub struct OutputLanes {
    units: [OutputUnit; LANES],
    parameters: Vec<Parameters>,
    read: [Parameters; MEMORIES],
}

impl Default for OutputLanes {
    fn default() -> Self {
        Self { units: Default::default(), parameters: vec![(0, 0, 0); 4096], read: [(0, 0, 0); MEMORIES] }
    }
}

/// The lanes' registered outputs: the valid mask (bit i, lane i) and the 16 values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lanes {
    pub valid: u16,
    pub values: [i16; LANES],
}

impl Lanes {
    /// The port's `ofm_data`: lane i's low byte at bits 8i+7:8i.
    pub fn data(&self) -> u128 {
        self.values.iter().enumerate().fold(0, |w, (i, &v)| w | u128::from(v as u8) << (8 * i))
    }
}

impl OutputLanes {
    pub fn outputs(&self) -> Lanes {
        let outs = self.units.each_ref().map(|u| u.outputs());
        Lanes {
            valid: (0..LANES).filter(|&i| outs[i].out_valid).fold(0, |m, i| m | 1 << i),
            values: outs.map(|o| o.out_value),
        }
    }

    /// SCALE_BIAS: channel `c`'s record.
    pub fn write(&mut self, c: u32, record: Parameters) {
        self.parameters[c as usize % 4096] = record;
    }

    /// One clock edge: the units take `acc` (lanes of `in_valid`) with the parameters read at
    /// the previous edge and the layer's `zero_point`, `act_min`, `act_max`; then memory j
    /// reads channel `channel + j` for lanes j and j + 8 when bit j of `read` is set
    /// (`channel` a multiple of 8).
    /// `reset`: the units' reset, and the reads cleared.
    #[allow(clippy::too_many_arguments)]
    pub fn step(&mut self, reset: bool, in_valid: u16, acc: [i64; LANES], zero_point: i8, act_min: i8, act_max: i8, read: u8, channel: u32) {
        for (l, unit) in self.units.iter_mut().enumerate() {
            let (bias, scale, shift) = self.read[l % MEMORIES];
            unit.step(&output_unit::In {
                reset,
                in_valid: in_valid >> l & 1 == 1,
                acc: acc[l],
                bias,
                scale,
                shift,
                rounding: Rounding::Tfl as u8,
                zero_point: i16::from(zero_point),
                act_min: i16::from(act_min),
                act_max: i16::from(act_max),
                ..Default::default()
            });
        }
        if reset {
            self.read = [(0, 0, 0); MEMORIES];
            return;
        }
        for j in 0..MEMORIES {
            if read >> j & 1 == 1 {
                self.read[j] = self.parameters[(channel as usize + j) % 4096];
            }
        }
    }
}
