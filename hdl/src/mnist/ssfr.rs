//! SSFR, the stationary special function registers (seeds/002 §7, Table 5).
use crate::primitives::{Concat, Reg};
use rust_hdl::prelude::*;

/// SSFR[15:0], written from {DA, DB} while `en_config` is high, whatever else the chip does
/// (EN_PISO_DEB does not freeze it, §11). Reset value 0x2280 (Table 5): output from
/// PISO_OUT, no ReLU bypassed, comparator and FIFO disabled, RST_FIFO high.
///
/// SSFR[6:0] are unused (§7: "unused, default as 0"): they always read 0, so a write of
/// 0xFFFF reads back as 0xFF80 and PISO_DEB samples 0 there. Their flip-flops have a
/// constant input and synthesis removes them.
#[derive(LogicBlock)]
pub struct Ssfr {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en_config: Signal<In, Bit>,
    pub da: Signal<In, Bits<8>>,
    pub db: Signal<In, Bits<8>>,
    pub value: Signal<Out, Bits<16>>,
    pins: Concat<8, 8, 16>,
    register: Reg<Bits<16>>,
    used_bits: Constant<Bits<16>>,
}

impl Default for Ssfr {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en_config: Default::default(),
            da: Default::default(),
            db: Default::default(),
            value: Default::default(),
            pins: Default::default(),
            register: Reg::new(0x2280.into()),
            used_bits: Constant::new(0xFF80.into()),
        }
    }
}

impl Logic for Ssfr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, register);
        self.register.reset.next = self.reset.val();
        self.pins.high.next = self.da.val();
        self.pins.low.next = self.db.val();
        if self.en_config.val() {
            self.register.d.next = self.pins.joined.val() & self.used_bits.val();
        }
        self.value.next = self.register.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Ssfr::default(), "ssfr");
}
