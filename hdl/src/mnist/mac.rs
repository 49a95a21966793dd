//! MAC module (seeds/002 §6.2): 8x8 multiplier, 2CASC, storage MUX and accumulator register.
use super::TwoCasc;
use crate::primitives::{MulS8, Reg, SignExtend};
use rust_hdl::prelude::*;

/// One MAC of the MNIST NPU.
///
/// On each rising clock edge, in order of priority:
/// - `reset` (the chip's RST_GLO): the accumulator becomes 0;
/// - `en_mac` low: the accumulator holds;
/// - `rst_mac` high: the accumulator loads the bias, expanded from Q4.4 to Q8.8;
/// - otherwise it loads `2CASC(acc, data_a * data_b)`.
///
/// Decisions (docs/mnist.md, "Decisions"):
/// - EN_MAC gates the register and RST_MAC only steers the storage MUX. The datasheet calls
///   EN_MAC "enable signal for MAC module" and RST_MAC the MUX select; FSM_ACC's BIAS state
///   drives both high, so the bias load needs EN_MAC in either reading.
/// - Bias expansion: both formats have the binary point in the middle, so Q4.4 becomes Q8.8
///   by sign extension and a shift left by 4 (value x/16 stays x/16): `0x10` (1.0) becomes
///   `0x0100`, `0x80` (-8.0) becomes `0xF800`. The expansion is exact and never saturates.
/// - The product of two Q4.4 numbers is Q8.8, so it is added to the accumulator unshifted.
#[derive(LogicBlock)]
pub struct Mac {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Multiplicand from the input buffer (DA for MAC1, DC for MAC2), Q4.4.
    pub data_a: Signal<In, Signed<8>>,
    /// Multiplier from the input buffer (DB for MAC1, DD for MAC2), Q4.4.
    pub data_b: Signal<In, Signed<8>>,
    /// Bias, Q4.4, from DA (MAC1) or DC (MAC2).
    pub bias: Signal<In, Signed<8>>,
    pub en_mac: Signal<In, Bit>,
    pub rst_mac: Signal<In, Bit>,
    /// The accumulator, Q8.8.
    pub acc: Signal<Out, Signed<16>>,
    multiplier: MulS8,
    adder: TwoCasc,
    extend_bias: SignExtend<8, 16>,
    bias_bits: Signal<Local, Bits<16>>,
    bias_q88: Signal<Local, Bits<16>>,
    accumulator: Reg<Signed<16>>,
}

impl Default for Mac {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data_a: Default::default(),
            data_b: Default::default(),
            bias: Default::default(),
            en_mac: Default::default(),
            rst_mac: Default::default(),
            acc: Default::default(),
            multiplier: Default::default(),
            adder: Default::default(),
            extend_bias: Default::default(),
            bias_bits: Default::default(),
            bias_q88: Default::default(),
            accumulator: Reg::new(signed::<16>(0)),
        }
    }
}

impl Logic for Mac {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, accumulator);
        self.accumulator.reset.next = self.reset.val();
        self.multiplier.a.next = self.data_a.val();
        self.multiplier.b.next = self.data_b.val();
        self.adder.a.next = self.accumulator.q.val();
        self.adder.b.next = self.multiplier.product.val();
        self.extend_bias.narrow.next = self.bias.val();
        self.bias_bits.next = unsigned_cast(self.extend_bias.wide.val());
        self.bias_q88.next = self.bias_bits.val() << 4;
        if self.en_mac.val() {
            if self.rst_mac.val() {
                self.accumulator.d.next = signed_cast(self.bias_q88.val());
            } else {
                self.accumulator.d.next = self.adder.sum.val();
            }
        }
        self.acc.next = self.accumulator.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Mac::default, "mac");
}
