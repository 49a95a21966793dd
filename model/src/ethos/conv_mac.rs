//! The convolution datapath's MAC array with double-buffered accumulators (RTL
//! `hdl/src/ethos/conv_mac.rs`; TRM L1027-1076, digest §5.1): the MAC unit's 32 accumulators
//! and a drain bank that takes all of them in one cycle (`load`), so that the output unit
//! lanes drain one OFM group while the next accumulates; `acc_out` are registers, bank
//! entries `16 * read_index + i` (output lane i) of the previous cycle not held.
use super::mac_unit::{self, MacUnit, ACCUMULATORS};
use crate::Block;
use npu_hdl::ethos::output_lanes::LANES;

#[derive(Clone, Debug, Default)]
pub struct ConvMac {
    mac: MacUnit,
    bank: [i64; ACCUMULATORS],
    acc: [i64; LANES],
}

impl ConvMac {
    /// The registered bank reads of the 16 lanes (40 bits, sign-extended).
    pub fn acc_out(&self) -> [i64; LANES] {
        self.acc
    }

    /// One clock edge: the MAC unit with `i` (its `read_index` unused), and, when `advance`
    /// (not held), the bank read of `read_index` and the bank's `load`, both of the values
    /// before the edge.
    pub fn step(&mut self, i: &mac_unit::In, advance: bool, load: bool, read_index: u8) {
        if i.reset {
            self.bank = [0; ACCUMULATORS];
            self.acc = [0; LANES];
        } else if advance {
            self.acc = std::array::from_fn(|i| self.bank[(LANES * usize::from(read_index) + i) % ACCUMULATORS]);
            if load {
                self.bank = self.mac.accumulators();
            }
        }
        self.mac.step(i);
    }

    /// As [`Self::step`] with `enable`, but every unit takes the packed depthwise feed's
    /// operands (`dot(k)`: accumulator `k`'s dot product of them, the conv mode, no padding),
    /// as the RTL's second feed does in a packed cycle.
    pub fn step_packed(&mut self, i: &mac_unit::In, advance: bool, load: bool, read_index: u8, dot: impl Fn(usize) -> i64) {
        self.step(&mac_unit::In { enable: false, ..i.clone() }, advance, load, read_index);
        if !i.reset {
            self.mac.accumulate_units(i.clear, dot);
        }
    }
}
