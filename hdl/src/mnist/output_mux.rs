//! Output MUX (seeds/002 §6.5, Table 3).
use rust_hdl::prelude::*;

/// D_OUT by SEL_OUT[2:0]: 000 FIFO, 001 PISO_OUT, 010 comparator index, 011 largest[15:8],
/// 100 largest[7:0], 101 PISO_DEB, 110/111 0 ("Ground (unused)"). Combinational.
#[derive(LogicBlock)]
pub struct OutputMux {
    pub sel_out: Signal<In, Bits<3>>,
    pub fifo: Signal<In, Bits<8>>,
    pub piso_out: Signal<In, Bits<8>>,
    pub index: Signal<In, Bits<8>>,
    pub largest: Signal<In, Signed<16>>,
    pub piso_deb: Signal<In, Bits<8>>,
    pub d_out: Signal<Out, Bits<8>>,
    largest_bits: Signal<Local, Bits<16>>,
    sel_fifo: Constant<Bits<3>>,
    sel_piso_out: Constant<Bits<3>>,
    sel_index: Constant<Bits<3>>,
    sel_largest_msb: Constant<Bits<3>>,
    sel_largest_lsb: Constant<Bits<3>>,
    sel_piso_deb: Constant<Bits<3>>,
    ground: Constant<Bits<8>>,
}

impl Default for OutputMux {
    fn default() -> Self {
        Self {
            sel_out: Default::default(),
            fifo: Default::default(),
            piso_out: Default::default(),
            index: Default::default(),
            largest: Default::default(),
            piso_deb: Default::default(),
            d_out: Default::default(),
            largest_bits: Default::default(),
            sel_fifo: Constant::new(0.into()),
            sel_piso_out: Constant::new(1.into()),
            sel_index: Constant::new(2.into()),
            sel_largest_msb: Constant::new(3.into()),
            sel_largest_lsb: Constant::new(4.into()),
            sel_piso_deb: Constant::new(5.into()),
            ground: Constant::new(0.into()),
        }
    }
}

impl Logic for OutputMux {
    #[hdl_gen]
    fn update(&mut self) {
        self.largest_bits.next = unsigned_cast(self.largest.val());
        self.d_out.next = self.ground.val();
        if self.sel_out.val() == self.sel_fifo.val() {
            self.d_out.next = self.fifo.val();
        } else if self.sel_out.val() == self.sel_piso_out.val() {
            self.d_out.next = self.piso_out.val();
        } else if self.sel_out.val() == self.sel_index.val() {
            self.d_out.next = self.index.val();
        } else if self.sel_out.val() == self.sel_largest_msb.val() {
            self.d_out.next = self.largest_bits.val().get_bits::<8>(8);
        } else if self.sel_out.val() == self.sel_largest_lsb.val() {
            self.d_out.next = self.largest_bits.val().get_bits::<8>(0);
        } else if self.sel_out.val() == self.sel_piso_deb.val() {
            self.d_out.next = self.piso_deb.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputMux::default, "output_mux");
}
