//! Input buffer (seeds/002 §6.1): one register per input channel DA, DB, DC, DD.
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// Four 8-bit registers. On each rising edge: `reset` or `clr_buf_in` → 0 (a clear wins
/// over the enable: FSM_ACC never drives both, and in manual mode a clear is the safer
/// reading); `en_buf_in` → load the pins; otherwise hold.
#[derive(LogicBlock)]
pub struct InputBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en_buf_in: Signal<In, Bit>,
    pub clr_buf_in: Signal<In, Bit>,
    pub da: Signal<In, Bits<8>>,
    pub db: Signal<In, Bits<8>>,
    pub dc: Signal<In, Bits<8>>,
    pub dd: Signal<In, Bits<8>>,
    pub buf_a: Signal<Out, Bits<8>>,
    pub buf_b: Signal<Out, Bits<8>>,
    pub buf_c: Signal<Out, Bits<8>>,
    pub buf_d: Signal<Out, Bits<8>>,
    reg_a: Reg<Bits<8>>,
    reg_b: Reg<Bits<8>>,
    reg_c: Reg<Bits<8>>,
    reg_d: Reg<Bits<8>>,
    cleared: Constant<Bits<8>>,
}

impl Default for InputBuffer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en_buf_in: Default::default(),
            clr_buf_in: Default::default(),
            da: Default::default(),
            db: Default::default(),
            dc: Default::default(),
            dd: Default::default(),
            buf_a: Default::default(),
            buf_b: Default::default(),
            buf_c: Default::default(),
            buf_d: Default::default(),
            reg_a: Default::default(),
            reg_b: Default::default(),
            reg_c: Default::default(),
            reg_d: Default::default(),
            cleared: Constant::new(0.into()),
        }
    }
}

impl Logic for InputBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, reg_a, reg_b, reg_c, reg_d);
        self.reg_a.reset.next = self.reset.val();
        self.reg_b.reset.next = self.reset.val();
        self.reg_c.reset.next = self.reset.val();
        self.reg_d.reset.next = self.reset.val();
        if self.clr_buf_in.val() {
            self.reg_a.d.next = self.cleared.val();
            self.reg_b.d.next = self.cleared.val();
            self.reg_c.d.next = self.cleared.val();
            self.reg_d.d.next = self.cleared.val();
        } else if self.en_buf_in.val() {
            self.reg_a.d.next = self.da.val();
            self.reg_b.d.next = self.db.val();
            self.reg_c.d.next = self.dc.val();
            self.reg_d.d.next = self.dd.val();
        }
        self.buf_a.next = self.reg_a.q.val();
        self.buf_b.next = self.reg_b.q.val();
        self.buf_c.next = self.reg_c.q.val();
        self.buf_d.next = self.reg_d.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(InputBuffer::default, "input_buffer");
}
