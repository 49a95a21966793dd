//! The convolution datapath's output lanes (`conv_datapath.rs`; TRM §2 output unit, digest
//! `shared/spec/ethos-u65.md` §2; docs/ethos.md, "Convolution datapath", output lanes): 16
//! lanes of the output unit's pipeline (the arithmetic is not copied: each lane's stages are
//! `super::requantize`'s `ScaleProductReg` and `RequantizeReg` (their Verilog functions, in
//! `output_lane_stages.rs`), as in [`super::OutputUnit`]) with the
//! per-channel parameters they read, so that the output walk (`output_walk.rs`) drains 16
//! accumulators of the drain bank a cycle: one OFM row of the 2x2 block, lanes 0-7 the 8
//! channels of its left position, lanes 8-15 the same channels of its right one. Model:
//! `model/src/ethos/output_lanes.rs` (16 output units: same values, same cycles).
//!
//! The parameters ({shift[5:0], scale[31:0], bias[39:0]}, a record's first 78 bits) are split
//! over eight memories by channel: channel c in memory `c % 8` at `c / 8`, so that the eight
//! channels of a step (8·og .. 8·og + 7) are read at one address in the same cycle; lanes i
//! and i + 8 (the same channel at the two positions) share memory i's read. Memory j is read
//! only when `read_enable` bit j is set (lane j's or lane j + 8's element is inside the OFM),
//! else it keeps its last read. Every output is a register; lane i's value without its
//! `out_valid` bit is the lane's last valid value (a lane computes only valid values).
//! `out_data` carries lane i's value in bits 8i+7:8i: the low byte of the stage's int16
//! value, exact since it is clamped to the int8 activation range.
//!
//! Why not 16 [`super::OutputUnit`]s (docs/ethos.md, "Verilated speed"): in the Verilated
//! datapath every register costs its reset and enable test each cycle, and each unit carried
//! 13 of them and a lookup table that the datapath never enables. Here the valid bits of a
//! stage are one 16-bit register; the registers that carry a lane's parameters from stage 1
//! to stage 2 are shared, as one value serves every lane of a cycle: the zero point and
//! clamp (the layer's, registered with any lane's input) and the shift (per memory, with
//! lane j's or j + 8's input); rounding is TFL's (0) and the table is off. A stage-2 value
//! reads the shared register one edge after its own input set it, and no edge lies between,
//! so each lane sees what its own unit registered. The sign extensions of the layer's int8
//! zero point and clamp are of registers, so that they are not evaluated with the inputs.
use super::output_lane_memories::OutputLaneMemories;
use super::output_lane_stages::OutputLaneStages;
use crate::primitives::constant as k;
use crate::primitives::{Reg, RegEn, SignExtendBits};
use rust_hdl::prelude::*;

/// Output lanes: accumulators the output walk drains a cycle.
pub const LANES: usize = 16;
/// Parameter memories: the channels of one step.
pub const MEMORIES: usize = 8;

#[derive(LogicBlock)]
pub struct OutputLanes {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// SCALE_BIAS: the record of OFM channel `write_channel`.
    pub write_enable: Signal<In, Bit>,
    pub write_channel: Signal<In, Bits<12>>,
    pub write_data: Signal<In, Bits<78>>,
    /// Memory j reads the parameters of channel `8 * read_address + j` (bit j), for lanes j
    /// and j + 8.
    pub read_enable: Signal<In, Bits<8>>,
    /// The datapath is held: no parameter is read, whatever `read_enable` says. The gate is
    /// in the memories' clocked process, no combinational statement (in the output walk the
    /// gate shared its lane mask with the walk's step and took that step into Verilator's
    /// input region: docs/ethos.md, "Verilated speed", seventeenth step).
    pub hold: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<9>>,
    /// Lane i's accumulator enters stage 1 (bit i), with the parameters read in the
    /// previous cycle.
    pub in_valid: Signal<In, Bits<16>>,
    pub acc: [Signal<In, Bits<40>>; LANES],
    /// int8 each.
    pub zero_point: Signal<In, Bits<8>>,
    pub act_min: Signal<In, Bits<8>>,
    pub act_max: Signal<In, Bits<8>>,
    /// Lane i's value leaves (bit i), three cycles after it entered.
    pub out_valid: Signal<Out, Bits<16>>,
    /// Lane i's int8 value in bits 8i+7:8i.
    pub out_data: Signal<Out, Bits<128>>,
    /// The eight parameter memories (`output_lane_memories.rs`: one write test and one read
    /// test when idle).
    parameters: OutputLaneMemories,
    /// The lanes' stages: stage 1 `(acc + bias) · scale` and memory j's shift, with the
    /// lane's input; stage 2 rounded, offset and clamped, with `valid1`; stage 3 the value's
    /// low byte, with `valid2` (`output_lane_stages.rs`: one enable test a stage when idle).
    stages: OutputLaneStages,
    /// The stage-1 registers shared by the lanes (module docs).
    zero_point1: RegEn<Bits<8>>,
    act_min1: RegEn<Bits<8>>,
    act_max1: RegEn<Bits<8>>,
    valid1: Reg<Bits<16>>,
    valid2: Reg<Bits<16>>,
    valid3: Reg<Bits<16>>,
    zero_point16: SignExtendBits<8, 16>,
    act_min16: SignExtendBits<8, 16>,
    act_max16: SignExtendBits<8, 16>,
    /// Some lane enters stage 1 this cycle.
    entering: Signal<Local, Bit>,
    zero16: Constant<Bits<16>>,
}

impl Default for OutputLanes {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write_enable: Default::default(),
            write_channel: Default::default(),
            write_data: Default::default(),
            read_enable: Default::default(),
            hold: Default::default(),
            read_address: Default::default(),
            in_valid: Default::default(),
            acc: Default::default(),
            zero_point: Default::default(),
            act_min: Default::default(),
            act_max: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            parameters: Default::default(),
            stages: Default::default(),
            zero_point1: Default::default(),
            act_min1: Default::default(),
            act_max1: Default::default(),
            valid1: Default::default(),
            valid2: Default::default(),
            valid3: Default::default(),
            zero_point16: Default::default(),
            act_min16: Default::default(),
            act_max16: Default::default(),
            entering: Default::default(),
            zero16: k(0),
        }
    }
}

impl Logic for OutputLanes {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid1, valid2, valid3);
        self.valid1.reset.next = self.reset.val();
        self.valid2.reset.next = self.reset.val();
        self.valid3.reset.next = self.reset.val();
        self.valid1.d.next = self.in_valid.val();
        self.valid2.d.next = self.valid1.q.val();
        self.valid3.d.next = self.valid2.q.val();
        self.out_valid.next = self.valid3.q.val();
        // The layer's zero point and clamp, with any lane's input.
        self.zero_point1.clock.next = self.clock.val();
        self.act_min1.clock.next = self.clock.val();
        self.act_max1.clock.next = self.clock.val();
        self.zero_point1.reset.next = self.reset.val();
        self.act_min1.reset.next = self.reset.val();
        self.act_max1.reset.next = self.reset.val();
        self.entering.next = self.in_valid.val() != self.zero16.val();
        self.zero_point1.enable.next = self.entering.val();
        self.act_min1.enable.next = self.entering.val();
        self.act_max1.enable.next = self.entering.val();
        self.zero_point1.d.next = self.zero_point.val();
        self.act_min1.d.next = self.act_min.val();
        self.act_max1.d.next = self.act_max.val();
        self.zero_point16.narrow.next = self.zero_point1.q.val();
        self.act_min16.narrow.next = self.act_min1.q.val();
        self.act_max16.narrow.next = self.act_max1.q.val();
        self.stages.clock.next = self.clock.val();
        self.stages.reset.next = self.reset.val();
        self.stages.in_valid.next = self.in_valid.val();
        self.stages.valid1.next = self.valid1.q.val();
        self.stages.valid2.next = self.valid2.q.val();
        self.stages.zero_point.next = self.zero_point16.wide.val();
        self.stages.act_min.next = self.act_min16.wide.val();
        self.stages.act_max.next = self.act_max16.wide.val();
        self.parameters.clock.next = self.clock.val();
        self.parameters.reset.next = self.reset.val();
        self.parameters.write_enable.next = self.write_enable.val();
        self.parameters.write_channel.next = self.write_channel.val();
        self.parameters.write_data.next = self.write_data.val();
        self.parameters.read_enable.next = self.read_enable.val();
        self.parameters.hold.next = self.hold.val();
        self.parameters.read_address.next = self.read_address.val();
        for j in 0..8 {
            self.stages.parameters[j].next = self.parameters.read_data[j].val();
        }
        for i in 0..16 {
            self.stages.acc[i].next = self.acc[i].val();
        }
        self.out_data.next = self.stages.out_data.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputLanes::default, "output_lanes");
}
