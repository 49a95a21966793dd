//! The convolution unit's IFM upscale (TRM 0x107 NPU_SET_IFM_UPSCALE, digest §3.2; docs/ethos.md
//! "IFM upscale"): between the datapath's four IFM read ports and the IFM server
//! (`ifm_server.rs`), it maps a position of the IFM *upscaled* 2x2, which the datapath walks
//! (its extent and padding are the upscaled map's), to the IFM element the server reads.
//! - mode 0 (none): the position as it is;
//! - mode 1 (2x2 nearest): IFM element (y / 2, x / 2);
//! - mode 2 (2x2 zero insertion, Vela's TRANSPOSE_CONV of stride 2): IFM element
//!   (y / 2, x / 2) when y and x are both even; at an odd row or column an inserted zero: the
//!   position does not read (`read{p}` low) and `zero{p}` asks the server to gather
//!   `zero_word` (the IFM zero point in every byte, so the datapath's lanes subtract it to 0)
//!   without a read. Decision where the TRM says only "insert zeros": the IFM elements at the
//!   even positions, which gives TFLite's TRANSPOSE_CONV (the executor's choice too).
//!
//! Decision (Verilator): a block of its own, so that its combinational process is not merged
//! with the server's, whose process drives the feature map's coordinates and reads its address
//! back (written inside the server, the halving and the inserted-zero flag looped through the
//! address for Verilator, UNOPTFLAT on `off7`/`off17`). Its inputs are the datapath's ports and
//! latched registers; no server output reaches it. The model is inside
//! `npu_model::ethos::conv_unit` (`ConvUnit::ifm_read`).
//!
//! `enable` (the server's `active_copy`: the unit runs, without an error, in a tap's reads):
//! the four positions are mapped only while enabled, 0 otherwise, a branch that Verilator
//! skips in the other cycles, all of them in a network without a convolution (docs/ethos.md,
//! "Verilated speed", NPU step 5). Decision: the server reads a position only while it serves
//! (`active` and not `ready`) and its map's address only with that `enable`; `zero_word`
//! too (the server gathers it only while it serves, within `enable`).
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IfmUpscale {
    pub enable: Signal<In, Bit>,
    /// IFM_UPSCALE's low two bits (CHECK refuses a layer whose register is above 3).
    pub mode: Signal<In, Bits<2>>,
    pub zero_point: Signal<In, Bits<8>>,
    pub read_in0: Signal<In, Bit>,
    pub y_in0: Signal<In, Bits<12>>,
    pub x_in0: Signal<In, Bits<12>>,
    pub read_in1: Signal<In, Bit>,
    pub y_in1: Signal<In, Bits<12>>,
    pub x_in1: Signal<In, Bits<12>>,
    pub read_in2: Signal<In, Bit>,
    pub y_in2: Signal<In, Bits<12>>,
    pub x_in2: Signal<In, Bits<12>>,
    pub read_in3: Signal<In, Bit>,
    pub y_in3: Signal<In, Bits<12>>,
    pub x_in3: Signal<In, Bits<12>>,
    pub read0: Signal<Out, Bit>,
    pub y0: Signal<Out, Bits<12>>,
    pub x0: Signal<Out, Bits<12>>,
    pub zero0: Signal<Out, Bit>,
    pub read1: Signal<Out, Bit>,
    pub y1: Signal<Out, Bits<12>>,
    pub x1: Signal<Out, Bits<12>>,
    pub zero1: Signal<Out, Bit>,
    pub read2: Signal<Out, Bit>,
    pub y2: Signal<Out, Bits<12>>,
    pub x2: Signal<Out, Bits<12>>,
    pub zero2: Signal<Out, Bit>,
    pub read3: Signal<Out, Bit>,
    pub y3: Signal<Out, Bits<12>>,
    pub x3: Signal<Out, Bits<12>>,
    pub zero3: Signal<Out, Bit>,
    /// The zero point in each of the 8 bytes.
    pub zero_word: Signal<Out, Bits<64>>,
    zp64: ZeroExtend<8, 64>,
    word16: Signal<Local, Bits<64>>,
    word32: Signal<Local, Bits<64>>,
    halve: Signal<Local, Bit>,
    insert: Signal<Local, Bit>,
    odd0: Signal<Local, Bit>,
    odd1: Signal<Local, Bit>,
    odd2: Signal<Local, Bit>,
    odd3: Signal<Local, Bit>,
    none2: Constant<Bits<2>>,
    zeros2: Constant<Bits<2>>,
    one12: Constant<Bits<12>>,
    eight7: Constant<Bits<7>>,
    sixteen7: Constant<Bits<7>>,
    thirty_two7: Constant<Bits<7>>,
    zero12: Constant<Bits<12>>,
    zero64: Constant<Bits<64>>,
}

impl Default for IfmUpscale {
    fn default() -> Self {
        Self {
            enable: Default::default(),
            mode: Default::default(),
            zero_point: Default::default(),
            read_in0: Default::default(),
            y_in0: Default::default(),
            x_in0: Default::default(),
            read_in1: Default::default(),
            y_in1: Default::default(),
            x_in1: Default::default(),
            read_in2: Default::default(),
            y_in2: Default::default(),
            x_in2: Default::default(),
            read_in3: Default::default(),
            y_in3: Default::default(),
            x_in3: Default::default(),
            read0: Default::default(),
            y0: Default::default(),
            x0: Default::default(),
            zero0: Default::default(),
            read1: Default::default(),
            y1: Default::default(),
            x1: Default::default(),
            zero1: Default::default(),
            read2: Default::default(),
            y2: Default::default(),
            x2: Default::default(),
            zero2: Default::default(),
            read3: Default::default(),
            y3: Default::default(),
            x3: Default::default(),
            zero3: Default::default(),
            zero_word: Default::default(),
            zp64: Default::default(),
            word16: Default::default(),
            word32: Default::default(),
            halve: Default::default(),
            insert: Default::default(),
            odd0: Default::default(),
            odd1: Default::default(),
            odd2: Default::default(),
            odd3: Default::default(),
            none2: k(0),
            zeros2: k(2),
            one12: k(1),
            eight7: k(8),
            sixteen7: k(16),
            thirty_two7: k(32),
            zero12: k(0),
            zero64: k(0),
        }
    }
}

impl Logic for IfmUpscale {
    #[hdl_gen]
    fn update(&mut self) {
        self.zp64.narrow.next = self.zero_point.val();
        // `zero_word` only while enabled too (the server gathers it only while it serves).
        self.word16.next = self.zero64.val();
        self.word32.next = self.zero64.val();
        self.zero_word.next = self.zero64.val();
        if self.enable.val() {
            self.word16.next = self.zp64.wide.val() | (self.zp64.wide.val() << self.eight7.val());
            self.word32.next = self.word16.val() | (self.word16.val() << self.sixteen7.val());
            self.zero_word.next = self.word32.val() | (self.word32.val() << self.thirty_two7.val());
        }

        self.halve.next = false;
        self.insert.next = false;
        self.odd0.next = false;
        self.odd1.next = false;
        self.odd2.next = false;
        self.odd3.next = false;
        self.read0.next = false;
        self.read1.next = false;
        self.read2.next = false;
        self.read3.next = false;
        self.zero0.next = false;
        self.zero1.next = false;
        self.zero2.next = false;
        self.zero3.next = false;
        self.y0.next = self.zero12.val();
        self.x0.next = self.zero12.val();
        self.y1.next = self.zero12.val();
        self.x1.next = self.zero12.val();
        self.y2.next = self.zero12.val();
        self.x2.next = self.zero12.val();
        self.y3.next = self.zero12.val();
        self.x3.next = self.zero12.val();
        if self.enable.val() {
            self.halve.next = self.mode.val() != self.none2.val();
            self.insert.next = self.mode.val() == self.zeros2.val();
            self.odd0.next = self.insert.val() & (self.y_in0.val().get_bit(0) | self.x_in0.val().get_bit(0));
            self.odd1.next = self.insert.val() & (self.y_in1.val().get_bit(0) | self.x_in1.val().get_bit(0));
            self.odd2.next = self.insert.val() & (self.y_in2.val().get_bit(0) | self.x_in2.val().get_bit(0));
            self.odd3.next = self.insert.val() & (self.y_in3.val().get_bit(0) | self.x_in3.val().get_bit(0));
            self.read0.next = self.read_in0.val() & !self.odd0.val();
            self.read1.next = self.read_in1.val() & !self.odd1.val();
            self.read2.next = self.read_in2.val() & !self.odd2.val();
            self.read3.next = self.read_in3.val() & !self.odd3.val();
            self.zero0.next = self.read_in0.val() & self.odd0.val();
            self.zero1.next = self.read_in1.val() & self.odd1.val();
            self.zero2.next = self.read_in2.val() & self.odd2.val();
            self.zero3.next = self.read_in3.val() & self.odd3.val();
            self.y0.next = self.y_in0.val();
            self.x0.next = self.x_in0.val();
            self.y1.next = self.y_in1.val();
            self.x1.next = self.x_in1.val();
            self.y2.next = self.y_in2.val();
            self.x2.next = self.x_in2.val();
            self.y3.next = self.y_in3.val();
            self.x3.next = self.x_in3.val();
            if self.halve.val() {
                self.y0.next = self.y_in0.val() >> self.one12.val();
                self.x0.next = self.x_in0.val() >> self.one12.val();
                self.y1.next = self.y_in1.val() >> self.one12.val();
                self.x1.next = self.x_in1.val() >> self.one12.val();
                self.y2.next = self.y_in2.val() >> self.one12.val();
                self.x2.next = self.x_in2.val() >> self.one12.val();
                self.y3.next = self.y_in3.val() >> self.one12.val();
                self.x3.next = self.x_in3.val() >> self.one12.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(IfmUpscale::default, "ifm_upscale");
}
