//! PISO_OUT, the output parallel-in serial-out register (seeds/002 §6.4, §9.3).
use crate::primitives::{Concat, Reg};
use rust_hdl::prelude::*;

/// A 4-byte parallel-in, serial-out register whose top byte is the output.
///
/// On each rising edge: `reset` or `clr_piso_out` → 0 (the clear does not need the enable:
/// FSM_ACC raises CLR_PISO_OUT in IDLE while FSM_OUT holds EN_PISO_OUT low); `en_piso_out`
/// low → hold; `shift_out` low → load `{out2, out1}`; high → shift up one byte, filling with 0.
/// The bytes leave as OUT2[15:8], OUT2[7:0], OUT1[15:8], OUT1[7:0] (§9.3).
#[derive(LogicBlock)]
pub struct PisoOut {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en_piso_out: Signal<In, Bit>,
    pub clr_piso_out: Signal<In, Bit>,
    pub shift_out: Signal<In, Bit>,
    pub out1: Signal<In, Signed<16>>,
    pub out2: Signal<In, Signed<16>>,
    pub d_out: Signal<Out, Bits<8>>,
    results: Concat<16, 16, 32>,
    chain: Reg<Bits<32>>,
    cleared: Constant<Bits<32>>,
}

impl Default for PisoOut {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en_piso_out: Default::default(),
            clr_piso_out: Default::default(),
            shift_out: Default::default(),
            out1: Default::default(),
            out2: Default::default(),
            d_out: Default::default(),
            results: Default::default(),
            chain: Default::default(),
            cleared: Constant::new(0.into()),
        }
    }
}

impl Logic for PisoOut {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, chain);
        self.chain.reset.next = self.reset.val();
        self.results.high.next = unsigned_cast(self.out2.val());
        self.results.low.next = unsigned_cast(self.out1.val());
        if self.clr_piso_out.val() {
            self.chain.d.next = self.cleared.val();
        } else if self.en_piso_out.val() {
            if self.shift_out.val() {
                self.chain.d.next = self.chain.q.val() << 8;
            } else {
                self.chain.d.next = self.results.joined.val();
            }
        }
        self.d_out.next = self.chain.q.val().get_bits::<8>(24);
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PisoOut::default, "piso_out");
}
