//! The weight decoder's slice registers (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.2,
//! §1.4): what a slice header sets (`zdiv`, `wdiv`, `wtrunc`, `newpal`, `slicelen`, and with a
//! new palette `dirofs`, `palsize`, `palbits`) and the end markers' state (`have_palette`,
//! `after_end`, `padding`). `WeightDecoderCore` decides the header step and says which it
//! takes: an end marker (`take_end`) or a slice header (`take_slice`), with `HeaderStep`'s
//! fields as the values. Its own block so that the core stays under 500 lines (docs/ethos.md,
//! "Verilated speed", decoder step); the outputs are the registers, so the core's step reads no
//! value of this block's logic (no combinational loop through the two, UNOPTFLAT).
//! One clocked process, in which the registers hold unless a load is taken: as 11 `Reg`s each
//! register's hold (`d = q`) and reset were logic the Verilated model ran every cycle, though
//! they change only in the parser's header steps (the decoder idles in the NPU mostly; issue 19).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
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
}

impl Logic for SliceRegisters {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        if self.take_end.val() {
            self.have_palette.next = false;
            self.after_end.next = true;
            self.padding.next = self.h_next_padding.val();
        }
        if self.take_slice.val() {
            self.zdiv.next = self.h_zdiv.val();
            self.slicelen.next = self.h_slicelen.val();
            self.wdiv.next = self.h_wdiv.val();
            self.wtrunc.next = self.h_wtrunc.val();
            self.newpal.next = self.h_newpal.val();
            if self.h_newpal.val() {
                self.dirofs.next = self.h_dirofs.val();
                self.palsize.next = self.h_palsize.val();
                self.palbits.next = self.h_palbits.val();
            }
            self.have_palette.next = true;
            self.after_end.next = false;
        }
        if self.restart.val() {
            self.have_palette.next = false;
            self.after_end.next = false;
            self.padding.next = 0.into();
            self.zdiv.next = 0.into();
            self.wdiv.next = 0.into();
            self.wtrunc.next = false;
            self.newpal.next = false;
            self.slicelen.next = 0.into();
            self.dirofs.next = 0.into();
            self.palsize.next = 0.into();
            self.palbits.next = 0.into();
        }
    }
    fn connect(&mut self) {
        self.have_palette.connect();
        self.after_end.connect();
        self.padding.connect();
        self.zdiv.connect();
        self.wdiv.connect();
        self.wtrunc.connect();
        self.newpal.connect();
        self.slicelen.connect();
        self.dirofs.connect();
        self.palsize.connect();
        self.palbits.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(posedge clock) begin
    if (take_end) begin
        have_palette <= 1'b0;
        after_end <= 1'b1;
        padding <= h_next_padding;
    end
    if (take_slice) begin
        zdiv <= h_zdiv;
        slicelen <= h_slicelen;
        wdiv <= h_wdiv;
        wtrunc <= h_wtrunc;
        newpal <= h_newpal;
        if (h_newpal) begin
            dirofs <= h_dirofs;
            palsize <= h_palsize;
            palbits <= h_palbits;
        end
        have_palette <= 1'b1;
        after_end <= 1'b0;
    end
    if (restart) begin
        have_palette <= 1'b0;
        after_end <= 1'b0;
        padding <= 4'd0;
        zdiv <= 3'd0;
        wdiv <= 3'd0;
        wtrunc <= 1'b0;
        newpal <= 1'b0;
        slicelen <= 15'd0;
        dirofs <= 5'd0;
        palsize <= 6'd0;
        palbits <= 4'd0;
    end
end"
            .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SliceRegisters::default, "slice_registers");
}
