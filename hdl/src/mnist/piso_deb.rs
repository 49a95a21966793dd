//! PISO_DEB, the debugging parallel-in serial-out chain (seeds/002 §6.8 and §11).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// A 12-byte parallel-in, serial-out register whose top byte is the output.
///
/// `samples` holds the twelve bytes in the order they leave (§11): bits 95:88 are
/// SSFR[15:8] and leave first, bits 7:0 are DA[7:0] and leave last. On each rising edge:
/// - `reset` or `clr_piso_deb`: the chain clears to 0 (the clear does not need the enable:
///   Figure 7 pulses CLR_PISO_DEB on its own);
/// - `en_piso_deb` low: the chain holds;
/// - `shift_deb` low: the chain loads `samples`;
/// - `shift_deb` high: the chain shifts up one byte, filling with 0.
///
/// With §11's timing (enable high for 14 cycles, SHIFT_DEB low in the second) the load happens
/// at the end of the second cycle and the twelve bytes appear on `d_out` in the next twelve.
#[derive(LogicBlock)]
pub struct PisoDeb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en_piso_deb: Signal<In, Bit>,
    pub clr_piso_deb: Signal<In, Bit>,
    pub shift_deb: Signal<In, Bit>,
    pub samples: Signal<In, Bits<96>>,
    pub d_out: Signal<Out, Bits<8>>,
    chain: Reg<Bits<96>>,
    cleared: Constant<Bits<96>>,
}

impl Default for PisoDeb {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en_piso_deb: Default::default(),
            clr_piso_deb: Default::default(),
            shift_deb: Default::default(),
            samples: Default::default(),
            d_out: Default::default(),
            chain: Reg::new(0.into()),
            cleared: Constant::new(0.into()),
        }
    }
}

impl Logic for PisoDeb {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, chain);
        self.chain.reset.next = self.reset.val();
        if self.clr_piso_deb.val() {
            self.chain.d.next = self.cleared.val();
        } else if self.en_piso_deb.val() {
            if self.shift_deb.val() {
                self.chain.d.next = self.chain.q.val() << 8;
            } else {
                self.chain.d.next = self.samples.val();
            }
        }
        self.d_out.next = self.chain.q.val().get_bits::<8>(88);
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PisoDeb::default, "piso_deb");
}
