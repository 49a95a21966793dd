//! The convolution datapath's output lanes (`conv_datapath.rs`; TRM §2 output unit, digest
//! `shared/spec/ethos-u65.md` §2; docs/ethos.md, "Convolution datapath", output lanes): four
//! instances of the output unit ([`OutputUnit`], the arithmetic is not copied) with the
//! per-channel parameters they read, so that the output walk (`output_walk.rs`) drains four
//! accumulators of the drain bank a cycle: one OFM position, four consecutive channels. Model:
//! `model/src/ethos/output_lanes.rs`.
//!
//! The parameters ({shift[5:0], scale[31:0], bias[39:0]}, a record's first 78 bits) are split
//! over four memories by channel: channel c in memory `c % 4` at `c / 4`, so that the four
//! lanes (channels 4j .. 4j + 3) read theirs at one address in the same cycle. Lane i's memory
//! is read only when `read_enable` bit i is set (its element is inside the OFM), else it keeps
//! its last read. Every output is an output unit's register or its table's registered read;
//! lane i's value without its `out_valid` bit is the lane's last valid value (an output unit
//! computes only valid values, `output_unit.rs`).
use super::OutputUnit;
use crate::primitives::constant as k;
use crate::primitives::{Ram, SignExtendBits};
use rust_hdl::prelude::*;

/// Output lanes: accumulators the output walk drains a cycle.
pub const LANES: usize = 4;

#[derive(LogicBlock)]
pub struct OutputLanes {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// SCALE_BIAS: the record of OFM channel `write_channel`.
    pub write_enable: Signal<In, Bit>,
    pub write_channel: Signal<In, Bits<12>>,
    pub write_data: Signal<In, Bits<78>>,
    /// Lane i reads the parameters of channel `4 * read_address + i` (bit i).
    pub read_enable: Signal<In, Bits<4>>,
    pub read_address: Signal<In, Bits<10>>,
    /// Lane i's accumulator enters its output unit (bit i), with the parameters read in the
    /// previous cycle.
    pub in_valid: Signal<In, Bits<4>>,
    pub acc0: Signal<In, Bits<40>>,
    pub acc1: Signal<In, Bits<40>>,
    pub acc2: Signal<In, Bits<40>>,
    pub acc3: Signal<In, Bits<40>>,
    /// int8 each.
    pub zero_point: Signal<In, Bits<8>>,
    pub act_min: Signal<In, Bits<8>>,
    pub act_max: Signal<In, Bits<8>>,
    /// Lane i's value leaves (bit i), three cycles after it entered.
    pub out_valid: Signal<Out, Bits<4>>,
    pub out0: Signal<Out, Bits<16>>,
    pub out1: Signal<Out, Bits<16>>,
    pub out2: Signal<Out, Bits<16>>,
    pub out3: Signal<Out, Bits<16>>,
    units: [OutputUnit; 4],
    parameters: [Ram<78, 10>; 4],
    zero_point16: SignExtendBits<8, 16>,
    act_min16: SignExtendBits<8, 16>,
    act_max16: SignExtendBits<8, 16>,
    lane: [Constant<Bits<2>>; 4],
    lane_bit: [Constant<Bits<4>>; 4],
    valid: [Signal<Local, Bits<4>>; 4],
    zero4: Constant<Bits<4>>,
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
            read_address: Default::default(),
            in_valid: Default::default(),
            acc0: Default::default(),
            acc1: Default::default(),
            acc2: Default::default(),
            acc3: Default::default(),
            zero_point: Default::default(),
            act_min: Default::default(),
            act_max: Default::default(),
            out_valid: Default::default(),
            out0: Default::default(),
            out1: Default::default(),
            out2: Default::default(),
            out3: Default::default(),
            units: Default::default(),
            parameters: Default::default(),
            zero_point16: Default::default(),
            act_min16: Default::default(),
            act_max16: Default::default(),
            lane: std::array::from_fn(|i| k(i as u64)),
            lane_bit: std::array::from_fn(|i| k(1u64 << i)),
            valid: Default::default(),
            zero4: k(0),
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
        for i in 0..4 {
            self.parameters[i].clock.next = self.clock.val();
            self.parameters[i].reset.next = self.reset.val();
            self.parameters[i].write_enable.next =
                self.write_enable.val() & (self.write_channel.val().get_bits::<2>(0) == self.lane[i].val());
            self.parameters[i].write_address.next = self.write_channel.val().get_bits::<10>(2);
            self.parameters[i].write_data.next = self.write_data.val();
            self.parameters[i].read_enable.next = self.read_enable.val().get_bit(i);
            self.parameters[i].read_address.next = self.read_address.val();
            self.units[i].clock.next = self.clock.val();
            self.units[i].reset.next = self.reset.val();
            self.units[i].in_valid.next = self.in_valid.val().get_bit(i);
            self.units[i].bias.next = self.parameters[i].read_data.val().get_bits::<40>(0);
            self.units[i].scale.next = self.parameters[i].read_data.val().get_bits::<32>(40);
            self.units[i].shift.next = self.parameters[i].read_data.val().get_bits::<6>(72);
            self.units[i].rounding.next = self.zero2.val();
            self.units[i].zero_point.next = self.zero_point16.wide.val();
            self.units[i].act_min.next = self.act_min16.wide.val();
            self.units[i].act_max.next = self.act_max16.wide.val();
            self.units[i].lut_enable.next = false;
            self.units[i].lut_write.next = false;
            self.units[i].lut_address.next = self.zero8.val();
            self.units[i].lut_data.next = self.zero8.val();
        }
        self.units[0].acc.next = self.acc0.val();
        self.units[1].acc.next = self.acc1.val();
        self.units[2].acc.next = self.acc2.val();
        self.units[3].acc.next = self.acc3.val();
        for i in 0..4 {
            self.valid[i].next = self.zero4.val();
            if self.units[i].out_valid.val() {
                self.valid[i].next = self.lane_bit[i].val();
            }
        }
        self.out_valid.next = self.valid[0].val() | self.valid[1].val() | self.valid[2].val() | self.valid[3].val();
        self.out0.next = self.units[0].out_value.val();
        self.out1.next = self.units[1].out_value.val();
        self.out2.next = self.units[2].out_value.val();
        self.out3.next = self.units[3].out_value.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputLanes::default(), "output_lanes");
}
