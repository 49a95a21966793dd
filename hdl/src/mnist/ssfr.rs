//! SSFR, the stationary special function registers (seeds/002 §7, Table 5).
use crate::primitives::{Concat, Reg};
use rust_hdl::prelude::*;

/// SSFR[15:0], written from {DA, DB} while `en_config` is high, whatever else the chip does
/// (EN_PISO_DEB does not freeze it, §11). Reset value 0x2280 (Table 5): output from
/// PISO_OUT, no ReLU bypassed, comparator and FIFO disabled, RST_FIFO high.
///
/// All 16 bits are stored (§7: "a group of total 16 1-bit registers"; "Data from DA[7:0]
/// and DB[7:0] will be written to SSFR[15:0]"). SSFR[6:0] drive nothing in the chip; their
/// "unused, default as 0" is their reset value. PISO_DEB samples all 16, so a debug dump
/// shows exactly what the master wrote.
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
            self.register.d.next = self.pins.joined.val();
        }
        self.value.next = self.register.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Ssfr::default, "ssfr");
}
