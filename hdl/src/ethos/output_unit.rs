//! Ethos-U65 output unit (AO, TRM L1078-1152; digest `shared/spec/ethos-u65.md` §2): one
//! accumulator a cycle through bias, scale, shift and rounding, zero point, clamp and the 8-bit
//! lookup table. The formulas, the decisions and why are on the model,
//! `model/src/ethos/output_unit.rs`, which has the same pipeline.
use super::requantize::{RequantizeReg, ScaleProductReg};
use crate::primitives::{Ram, Reg, RegEn, SignExtendBits};
use rust_hdl::prelude::*;

/// Three pipeline stages: `acc`, its channel's parameters and `in_valid` go in at one edge;
/// (1) `(acc + bias) · scale` is registered; (2) rounded, offset and clamped; (3) the lookup
/// table is read; `out_valid` and `out_value` appear three cycles after the input. The table
/// (256 x int8, index = clamped value + 128) is written through `lut_write`/`lut_address`/
/// `lut_data`; an entry not written since power-up reads as undefined.
///
/// Each stage computes only when it carries a value: its data registers (the product, the
/// requantized value, the parameters and table enable along with them) take their inputs
/// only with that stage's valid as clock enable, and the valid bits alone move every cycle.
/// The product and the requantized value are computed inside their registers' clocked
/// processes ([`ScaleProductReg`], [`RequantizeReg`]), so the Verilated model computes them
/// only in a valid cycle, not every cycle whatever `in_valid` says (docs/ethos.md, "Verilated
/// speed", eighth step). Decision: in a cycle without `out_valid`, `out_value` is therefore
/// the last valid value (0 after reset), not a value computed from whatever was at the input;
/// the model does the same.
#[derive(LogicBlock)]
pub struct OutputUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    /// int40 accumulator (int32 ones sign-extended).
    pub acc: Signal<In, Bits<40>>,
    /// The OFM channel's int40 bias, uint32 scale and 6-bit shift.
    pub bias: Signal<In, Bits<40>>,
    pub scale: Signal<In, Bits<32>>,
    pub shift: Signal<In, Bits<6>>,
    /// OFM_PRECISION b[15:14]: 0 TFL, 1 truncate, 2 natural.
    pub rounding: Signal<In, Bits<2>>,
    pub zero_point: Signal<In, Bits<16>>,
    pub act_min: Signal<In, Bits<16>>,
    pub act_max: Signal<In, Bits<16>>,
    pub lut_enable: Signal<In, Bit>,
    pub lut_write: Signal<In, Bit>,
    pub lut_address: Signal<In, Bits<8>>,
    pub lut_data: Signal<In, Bits<8>>,
    pub out_valid: Signal<Out, Bit>,
    /// int16, or int8 sign-extended.
    pub out_value: Signal<Out, Bits<16>>,

    lut: Ram<8, 8>,
    lut_value: SignExtendBits<8, 16>,
    valid1: Reg<Bit>,
    product1: ScaleProductReg,
    shift1: RegEn<Bits<6>>,
    rounding1: RegEn<Bits<2>>,
    zero_point1: RegEn<Bits<16>>,
    act_min1: RegEn<Bits<16>>,
    act_max1: RegEn<Bits<16>>,
    lut_enable1: RegEn<Bit>,
    valid2: Reg<Bit>,
    value2: RequantizeReg,
    lut_enable2: RegEn<Bit>,
    valid3: Reg<Bit>,
    value3: RegEn<Bits<16>>,
    lut_enable3: RegEn<Bit>,
    sign_bit: Constant<Bits<8>>,
}

impl Default for OutputUnit {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            acc: Default::default(),
            bias: Default::default(),
            scale: Default::default(),
            shift: Default::default(),
            rounding: Default::default(),
            zero_point: Default::default(),
            act_min: Default::default(),
            act_max: Default::default(),
            lut_enable: Default::default(),
            lut_write: Default::default(),
            lut_address: Default::default(),
            lut_data: Default::default(),
            out_valid: Default::default(),
            out_value: Default::default(),
            lut: Default::default(),
            lut_value: Default::default(),
            valid1: Default::default(),
            product1: Default::default(),
            shift1: Default::default(),
            rounding1: Default::default(),
            zero_point1: Default::default(),
            act_min1: Default::default(),
            act_max1: Default::default(),
            lut_enable1: Default::default(),
            valid2: Default::default(),
            value2: Default::default(),
            lut_enable2: Default::default(),
            valid3: Default::default(),
            value3: Default::default(),
            lut_enable3: Default::default(),
            sign_bit: Constant::new(0x80.into()),
        }
    }
}

impl Logic for OutputUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid1, valid2, valid3);
        self.valid1.reset.next = self.reset.val();
        self.valid2.reset.next = self.reset.val();
        self.valid3.reset.next = self.reset.val();
        self.lut.clock.next = self.clock.val();
        self.lut.reset.next = self.reset.val();
        // Stage 1: its data registers take their inputs with `in_valid`.
        self.product1.clock.next = self.clock.val();
        self.shift1.clock.next = self.clock.val();
        self.rounding1.clock.next = self.clock.val();
        self.zero_point1.clock.next = self.clock.val();
        self.act_min1.clock.next = self.clock.val();
        self.act_max1.clock.next = self.clock.val();
        self.lut_enable1.clock.next = self.clock.val();
        self.product1.reset.next = self.reset.val();
        self.shift1.reset.next = self.reset.val();
        self.rounding1.reset.next = self.reset.val();
        self.zero_point1.reset.next = self.reset.val();
        self.act_min1.reset.next = self.reset.val();
        self.act_max1.reset.next = self.reset.val();
        self.lut_enable1.reset.next = self.reset.val();
        self.product1.enable.next = self.in_valid.val();
        self.shift1.enable.next = self.in_valid.val();
        self.rounding1.enable.next = self.in_valid.val();
        self.zero_point1.enable.next = self.in_valid.val();
        self.act_min1.enable.next = self.in_valid.val();
        self.act_max1.enable.next = self.in_valid.val();
        self.lut_enable1.enable.next = self.in_valid.val();
        self.valid1.d.next = self.in_valid.val();
        self.product1.acc.next = self.acc.val();
        self.product1.bias.next = self.bias.val();
        self.product1.scale.next = self.scale.val();
        self.shift1.d.next = self.shift.val();
        self.rounding1.d.next = self.rounding.val();
        self.zero_point1.d.next = self.zero_point.val();
        self.act_min1.d.next = self.act_min.val();
        self.act_max1.d.next = self.act_max.val();
        self.lut_enable1.d.next = self.lut_enable.val();
        // Stage 2, with `valid1`.
        self.value2.clock.next = self.clock.val();
        self.lut_enable2.clock.next = self.clock.val();
        self.value2.reset.next = self.reset.val();
        self.lut_enable2.reset.next = self.reset.val();
        self.value2.enable.next = self.valid1.q.val();
        self.lut_enable2.enable.next = self.valid1.q.val();
        self.value2.product_high.next = self.product1.product_high.val();
        self.value2.product_low.next = self.product1.product_low.val();
        self.value2.shift.next = self.shift1.q.val();
        self.value2.rounding.next = self.rounding1.q.val();
        self.value2.zero_point.next = self.zero_point1.q.val();
        self.value2.act_min.next = self.act_min1.q.val();
        self.value2.act_max.next = self.act_max1.q.val();
        self.valid2.d.next = self.valid1.q.val();
        self.lut_enable2.d.next = self.lut_enable1.q.val();
        // Stage 3, with `valid2`: the table, indexed by the int8 value + 128 (its top bit
        // flipped), read only for a valid value (its read register keeps the last read).
        self.value3.clock.next = self.clock.val();
        self.lut_enable3.clock.next = self.clock.val();
        self.value3.reset.next = self.reset.val();
        self.lut_enable3.reset.next = self.reset.val();
        self.value3.enable.next = self.valid2.q.val();
        self.lut_enable3.enable.next = self.valid2.q.val();
        self.lut.write_enable.next = self.lut_write.val();
        self.lut.write_address.next = self.lut_address.val();
        self.lut.write_data.next = self.lut_data.val();
        self.lut.read_enable.next = self.valid2.q.val() & self.lut_enable2.q.val();
        self.lut.read_address.next = self.value2.value.val().get_bits::<8>(0) ^ self.sign_bit.val();
        self.valid3.d.next = self.valid2.q.val();
        self.value3.d.next = self.value2.value.val();
        self.lut_enable3.d.next = self.lut_enable2.q.val();
        self.lut_value.narrow.next = self.lut.read_data.val();
        self.out_valid.next = self.valid3.q.val();
        self.out_value.next = self.value3.q.val();
        if self.lut_enable3.q.val() {
            self.out_value.next = self.lut_value.wide.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputUnit::default, "output_unit");
}
