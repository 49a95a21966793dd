//! The convolution datapath's output lanes (`conv_datapath.rs`; TRM §2 output unit, digest
//! `shared/spec/ethos-u65.md` §2; docs/ethos.md, "Convolution datapath", output lanes): 16
//! instances of the output unit ([`OutputUnit`], the arithmetic is not copied) with the
//! per-channel parameters they read, so that the output walk (`output_walk.rs`) drains 16
//! accumulators of the drain bank a cycle: one OFM row of the 2x2 block, lanes 0-7 the 8
//! channels of its left position, lanes 8-15 the same channels of its right one. Model:
//! `model/src/ethos/output_lanes.rs`.
//!
//! The parameters ({shift[5:0], scale[31:0], bias[39:0]}, a record's first 78 bits) are split
//! over eight memories by channel: channel c in memory `c % 8` at `c / 8`, so that the eight
//! channels of a step (8·og .. 8·og + 7) are read at one address in the same cycle; lanes i
//! and i + 8 (the same channel at the two positions) share memory i's read. Memory j is read
//! only when `read_enable` bit j is set (lane j's or lane j + 8's element is inside the OFM),
//! else it keeps its last read. Every output is an output unit's register or its table's
//! registered read; lane i's value without its `out_valid` bit is the lane's last valid value
//! (an output unit computes only valid values, `output_unit.rs`). `out_data` carries lane i's
//! value in bits 8i+7:8i: the low byte of the unit's int16 value, exact since the unit clamps
//! it to the int8 activation range.
use super::OutputUnit;
use crate::primitives::constant as k;
use crate::primitives::{PackBytes, Ram, SignExtendBits};
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
    /// The datapath is held: no parameter is read, whatever `read_enable` says. Each memory's
    /// gate is a statement of its own on this input (in the output walk the gate shared its
    /// lane mask with the walk's step and took that step into Verilator's input region:
    /// docs/ethos.md, "Verilated speed", seventeenth step).
    pub hold: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<9>>,
    /// Lane i's accumulator enters its output unit (bit i), with the parameters read in the
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
    units: [OutputUnit; LANES],
    parameters: [Ram<78, 9>; MEMORIES],
    pack: PackBytes,
    zero_point16: SignExtendBits<8, 16>,
    act_min16: SignExtendBits<8, 16>,
    act_max16: SignExtendBits<8, 16>,
    memory: [Constant<Bits<3>>; MEMORIES],
    lane_bit: [Constant<Bits<16>>; LANES],
    valid: [Signal<Local, Bits<16>>; LANES],
    /// The units' high bytes, within the int8 clamp (sign copies): read by nothing.
    unused_high: [Signal<Local, Bits<8>>; LANES],
    zero16: Constant<Bits<16>>,
    zero2: Constant<Bits<2>>,
    zero8: Constant<Bits<8>>,
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
            units: Default::default(),
            parameters: Default::default(),
            pack: Default::default(),
            zero_point16: Default::default(),
            act_min16: Default::default(),
            act_max16: Default::default(),
            memory: std::array::from_fn(|j| k(j as u64)),
            lane_bit: std::array::from_fn(|i| k(1u64 << i)),
            valid: Default::default(),
            unused_high: Default::default(),
            zero16: k(0),
            zero2: k(0),
            zero8: k(0),
        }
    }
}

impl Logic for OutputLanes {
    #[hdl_gen]
    fn update(&mut self) {
        self.zero_point16.narrow.next = self.zero_point.val();
        self.act_min16.narrow.next = self.act_min.val();
        self.act_max16.narrow.next = self.act_max.val();
        for j in 0..8 {
            self.parameters[j].clock.next = self.clock.val();
            self.parameters[j].reset.next = self.reset.val();
            self.parameters[j].write_enable.next =
                self.write_enable.val() & (self.write_channel.val().get_bits::<3>(0) == self.memory[j].val());
            self.parameters[j].write_address.next = self.write_channel.val().get_bits::<9>(3);
            self.parameters[j].write_data.next = self.write_data.val();
            self.parameters[j].read_enable.next = self.read_enable.val().get_bit(j) & !self.hold.val();
            self.parameters[j].read_address.next = self.read_address.val();
        }
        for i in 0..16 {
            self.units[i].clock.next = self.clock.val();
            self.units[i].reset.next = self.reset.val();
            self.units[i].in_valid.next = self.in_valid.val().get_bit(i);
            self.units[i].acc.next = self.acc[i].val();
            self.units[i].bias.next = self.parameters[i % 8].read_data.val().get_bits::<40>(0);
            self.units[i].scale.next = self.parameters[i % 8].read_data.val().get_bits::<32>(40);
            self.units[i].shift.next = self.parameters[i % 8].read_data.val().get_bits::<6>(72);
            self.units[i].rounding.next = self.zero2.val();
            self.units[i].zero_point.next = self.zero_point16.wide.val();
            self.units[i].act_min.next = self.act_min16.wide.val();
            self.units[i].act_max.next = self.act_max16.wide.val();
            self.units[i].lut_enable.next = false;
            self.units[i].lut_write.next = false;
            self.units[i].lut_address.next = self.zero8.val();
            self.units[i].lut_data.next = self.zero8.val();
            self.pack.bytes[i].next = self.units[i].out_value.val().get_bits::<8>(0);
            self.unused_high[i].next = self.units[i].out_value.val().get_bits::<8>(8);
            self.valid[i].next = self.zero16.val();
            if self.units[i].out_valid.val() {
                self.valid[i].next = self.lane_bit[i].val();
            }
        }
        self.out_valid.next = self.valid[0].val()
            | self.valid[1].val()
            | self.valid[2].val()
            | self.valid[3].val()
            | self.valid[4].val()
            | self.valid[5].val()
            | self.valid[6].val()
            | self.valid[7].val()
            | self.valid[8].val()
            | self.valid[9].val()
            | self.valid[10].val()
            | self.valid[11].val()
            | self.valid[12].val()
            | self.valid[13].val()
            | self.valid[14].val()
            | self.valid[15].val();
        self.out_data.next = self.pack.word.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputLanes::default, "output_lanes");
}
