//! The convolution datapath's output lanes (RTL `hdl/src/ethos/output_lanes.rs`, whose comment
//! has the memory split; TRM §2, digest §2; docs/ethos.md, "Convolution datapath", output
//! lanes): four output units ([`OutputUnit`], the same model instanced four times) and the
//! per-channel parameters they read, so that the output walk drains four accumulators a
//! cycle, four consecutive channels of one OFM position. Lane i reads its channel's
//! parameters only when its bit of the read mask is set, else keeps its last read, as the
//! RTL's memories do; a reset clears the reads, not the memories. A lane's value without its
//! valid bit is its last valid value, as each [`OutputUnit`] holds it.
use super::output_unit::{self, OutputUnit, Rounding};
use crate::Block;
use npu_hdl::ethos::output_lanes::LANES;

/// Per channel: bias, scale, shift.
pub type Parameters = (i64, u32, u8);

#[derive(Clone, Debug)]
pub struct OutputLanes {
    units: [OutputUnit; LANES],
    parameters: Vec<Parameters>,
    read: [Parameters; LANES],
}

impl Default for OutputLanes {
    fn default() -> Self {
        Self { units: Default::default(), parameters: vec![(0, 0, 0); 4096], read: [(0, 0, 0); LANES] }
    }
}

/// The lanes' registered outputs: the valid mask (bit i, lane i) and the four values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lanes {
    pub valid: u8,
    pub values: [i16; LANES],
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
    /// the previous edge and the layer's `zero_point`, `act_min`, `act_max`; then lane i
    /// reads channel `channel + i` when bit i of `read` is set (`channel` a multiple of 4).
    /// `reset`: the units' reset, and the reads cleared.
    #[allow(clippy::too_many_arguments)]
    pub fn step(&mut self, reset: bool, in_valid: u8, acc: [i64; LANES], zero_point: i8, act_min: i8, act_max: i8, read: u8, channel: u32) {
        for (l, unit) in self.units.iter_mut().enumerate() {
            let (bias, scale, shift) = self.read[l];
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
            self.read = [(0, 0, 0); LANES];
            return;
        }
        for l in 0..LANES {
            if read >> l & 1 == 1 {
                self.read[l] = self.parameters[(channel as usize + l) % 4096];
            }
        }
    }
}
