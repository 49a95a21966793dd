//! The weight decoder's slice registers (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.2,
//! §1.4): what a slice header sets (`zdiv`, `wdiv`, `wtrunc`, `newpal`, `slicelen`, and with a
//! new palette `dirofs`, `palsize`, `palbits`) and the end markers' state (`have_palette`,
//! `after_end`, `padding`). `WeightDecoderCore` decides the header step and says which it
//! takes: an end marker (`take_end`) or a slice header (`take_slice`), with `HeaderStep`'s
//! fields as the values. Its own block so that the core stays under 500 lines (docs/ethos.md,
//! "Verilated speed", decoder step); the outputs are the registers, so the core's step reads no
//! value of this block's logic (no combinational loop through the two, UNOPTFLAT).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SliceRegisters {
    pub clock: Signal<In, Clock>,
    /// Clears every register: reset, or a finished stream.
    pub restart: Signal<In, Bit>,
    /// The step takes an end marker, a slice header (`HeaderStep`'s fields below).
    pub take_end: Signal<In, Bit>,
    pub take_slice: Signal<In, Bit>,
    pub h_next_padding: Signal<In, Bits<4>>,
    pub h_zdiv: Signal<In, Bits<3>>,
    pub h_slicelen: Signal<In, Bits<15>>,
    pub h_wtrunc: Signal<In, Bit>,
    pub h_dirofs: Signal<In, Bits<5>>,
    pub h_wdiv: Signal<In, Bits<3>>,
    pub h_newpal: Signal<In, Bit>,
    pub h_palsize: Signal<In, Bits<6>>,
    pub h_palbits: Signal<In, Bits<4>>,
    pub have_palette: Signal<Out, Bit>,
    pub after_end: Signal<Out, Bit>,
    pub padding: Signal<Out, Bits<4>>,
    pub zdiv: Signal<Out, Bits<3>>,
    pub wdiv: Signal<Out, Bits<3>>,
    pub wtrunc: Signal<Out, Bit>,
    pub newpal: Signal<Out, Bit>,
    pub slicelen: Signal<Out, Bits<15>>,
    pub dirofs: Signal<Out, Bits<5>>,
    pub palsize: Signal<Out, Bits<6>>,
    pub palbits: Signal<Out, Bits<4>>,

    have_palette_r: Reg<Bit>,
    after_end_r: Reg<Bit>,
    padding_r: Reg<Bits<4>>,
    zdiv_r: Reg<Bits<3>>,
    wdiv_r: Reg<Bits<3>>,
    wtrunc_r: Reg<Bit>,
    newpal_r: Reg<Bit>,
    slicelen_r: Reg<Bits<15>>,
    dirofs_r: Reg<Bits<5>>,
    palsize_r: Reg<Bits<6>>,
    palbits_r: Reg<Bits<4>>,
}

impl Logic for SliceRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, have_palette_r, after_end_r, padding_r, zdiv_r, wdiv_r, wtrunc_r, newpal_r, slicelen_r, dirofs_r, palsize_r, palbits_r);
        self.have_palette_r.reset.next = self.restart.val();
        self.after_end_r.reset.next = self.restart.val();
        self.padding_r.reset.next = self.restart.val();
        self.zdiv_r.reset.next = self.restart.val();
        self.wdiv_r.reset.next = self.restart.val();
        self.wtrunc_r.reset.next = self.restart.val();
        self.newpal_r.reset.next = self.restart.val();
        self.slicelen_r.reset.next = self.restart.val();
        self.dirofs_r.reset.next = self.restart.val();
        self.palsize_r.reset.next = self.restart.val();
        self.palbits_r.reset.next = self.restart.val();
        self.have_palette.next = self.have_palette_r.q.val();
        self.after_end.next = self.after_end_r.q.val();
        self.padding.next = self.padding_r.q.val();
        self.zdiv.next = self.zdiv_r.q.val();
        self.wdiv.next = self.wdiv_r.q.val();
        self.wtrunc.next = self.wtrunc_r.q.val();
        self.newpal.next = self.newpal_r.q.val();
        self.slicelen.next = self.slicelen_r.q.val();
        self.dirofs.next = self.dirofs_r.q.val();
        self.palsize.next = self.palsize_r.q.val();
        self.palbits.next = self.palbits_r.q.val();
        if self.take_end.val() {
            self.have_palette_r.d.next = false;
            self.after_end_r.d.next = true;
            self.padding_r.d.next = self.h_next_padding.val();
        }
        if self.take_slice.val() {
            self.zdiv_r.d.next = self.h_zdiv.val();
            self.slicelen_r.d.next = self.h_slicelen.val();
            self.wdiv_r.d.next = self.h_wdiv.val();
            self.wtrunc_r.d.next = self.h_wtrunc.val();
            self.newpal_r.d.next = self.h_newpal.val();
            if self.h_newpal.val() {
                self.dirofs_r.d.next = self.h_dirofs.val();
                self.palsize_r.d.next = self.h_palsize.val();
                self.palbits_r.d.next = self.h_palbits.val();
            }
            self.have_palette_r.d.next = true;
            self.after_end_r.d.next = false;
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SliceRegisters::default, "slice_registers");
}
