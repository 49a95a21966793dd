//! The CSR block's AXI4-Lite write channel (seeds/004; AXI A3 handshakes): the AW and W
//! handshake, the address's decode (aligned, mapped, busy-protected), the byte lanes `wstrb`
//! selects, the B response and the abort of a refused write. The sub-block of
//! [`super::csr::Csr`], whose doc has the timing and the responses; model
//! `npu_model::scale::csr` (the whole block; the split is the RTL's alone).
//!
//! `ok` (the write takes effect at the end of this cycle) and `lanes` are combinational, for
//! the register file; `bvalid`, `bresp` and `abort_layer` are registers.
use super::csr::{byte_constant, word};
use super::regmap;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CsrWrite {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub awvalid: Signal<In, Bit>,
    pub awaddr: Signal<In, Bits<8>>,
    pub wvalid: Signal<In, Bit>,
    pub wstrb: Signal<In, Bits<4>>,
    pub bready: Signal<In, Bit>,
    /// The datapath is busy, or the register file's `start` is high (busy from the next cycle).
    pub busy: Signal<In, Bit>,
    pub starting: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bvalid: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub abort_layer: Signal<Out, Bit>,
    /// The write is taken and OKAY: it takes effect at the end of this cycle.
    pub ok: Signal<Out, Bit>,
    /// The bytes `wstrb` selects, as a bit mask.
    pub lanes: Signal<Out, Bits<32>>,
    bvalid_r: Reg<Bit>,
    bresp_r: Reg<Bits<2>>,
    abort_r: Reg<Bit>,
    aw_fire: Signal<Local, Bit>,
    w_aligned: Signal<Local, Bit>,
    w_mapped: Signal<Local, Bit>,
    w_protected: Signal<Local, Bit>,
    busy_now: Signal<Local, Bit>,
    w_refused: Signal<Local, Bit>,
    w_resp: Signal<Local, Bits<2>>,
    lane0: Signal<Local, Bits<32>>,
    lane1: Signal<Local, Bits<32>>,
    lane2: Signal<Local, Bits<32>>,
    lane3: Signal<Local, Bits<32>>,
    map_size: Constant<Bits<8>>,
    protect_first: Constant<Bits<8>>,
    protect_last: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    byte0: Constant<Bits<32>>,
    byte1: Constant<Bits<32>>,
    byte2: Constant<Bits<32>>,
    byte3: Constant<Bits<32>>,
    aligned_low: Constant<Bits<2>>,
    resp_okay: Constant<Bits<2>>,
    resp_slverr: Constant<Bits<2>>,
    resp_decerr: Constant<Bits<2>>,
}

impl Default for CsrWrite {
    fn default() -> Self {
        let (first, last) = regmap::busy_protected();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            awvalid: Default::default(),
            awaddr: Default::default(),
            wvalid: Default::default(),
            wstrb: Default::default(),
            bready: Default::default(),
            busy: Default::default(),
            starting: Default::default(),
            awready: Default::default(),
            wready: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            abort_layer: Default::default(),
            ok: Default::default(),
            lanes: Default::default(),
            bvalid_r: Default::default(),
            bresp_r: Default::default(),
            abort_r: Default::default(),
            aw_fire: Default::default(),
            w_aligned: Default::default(),
            w_mapped: Default::default(),
            w_protected: Default::default(),
            busy_now: Default::default(),
            w_refused: Default::default(),
            w_resp: Default::default(),
            lane0: Default::default(),
            lane1: Default::default(),
            lane2: Default::default(),
            lane3: Default::default(),
            map_size: byte_constant(regmap::MAP_SIZE),
            protect_first: byte_constant(first),
            protect_last: byte_constant(last),
            zero32: word(0),
            byte0: word(0x0000_00FF),
            byte1: word(0x0000_FF00),
            byte2: word(0x00FF_0000),
            byte3: word(0xFF00_0000),
            aligned_low: Constant::new(0.into()),
            resp_okay: Constant::new(0b00.into()),
            resp_slverr: Constant::new(0b10.into()),
            resp_decerr: Constant::new(0b11.into()),
        }
    }
}

impl Logic for CsrWrite {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bvalid_r, bresp_r, abort_r);
        self.bvalid_r.reset.next = self.reset.val();
        self.bresp_r.reset.next = self.reset.val();
        self.abort_r.reset.next = self.reset.val();

        // Write address decode and response.
        self.aw_fire.next = self.awvalid.val() & self.wvalid.val() & !self.bvalid_r.q.val();
        self.w_aligned.next = self.awaddr.val().get_bits::<2>(0) == self.aligned_low.val();
        self.w_mapped.next = self.awaddr.val() < self.map_size.val();
        self.w_protected.next = (self.awaddr.val() >= self.protect_first.val())
            & (self.awaddr.val() <= self.protect_last.val());
        self.busy_now.next = self.busy.val() | self.starting.val();
        self.w_refused.next = self.w_aligned.val() & self.w_protected.val() & self.busy_now.val();
        self.ok.next =
            self.aw_fire.val() & self.w_aligned.val() & self.w_mapped.val() & !self.w_refused.val();
        self.w_resp.next = self.resp_okay.val();
        if !self.w_aligned.val() {
            self.w_resp.next = self.resp_slverr.val();
        } else if !self.w_mapped.val() {
            self.w_resp.next = self.resp_decerr.val();
        } else if self.w_refused.val() {
            self.w_resp.next = self.resp_slverr.val();
        }
        // The bytes wstrb selects.
        self.lane0.next = self.zero32.val();
        if self.wstrb.val().get_bit(0) {
            self.lane0.next = self.byte0.val();
        }
        self.lane1.next = self.zero32.val();
        if self.wstrb.val().get_bit(1) {
            self.lane1.next = self.byte1.val();
        }
        self.lane2.next = self.zero32.val();
        if self.wstrb.val().get_bit(2) {
            self.lane2.next = self.byte2.val();
        }
        self.lane3.next = self.zero32.val();
        if self.wstrb.val().get_bit(3) {
            self.lane3.next = self.byte3.val();
        }
        self.lanes.next = self.lane0.val() | self.lane1.val() | self.lane2.val() | self.lane3.val();
        self.abort_r.d.next = self.aw_fire.val() & self.w_refused.val();

        // B channel.
        if self.aw_fire.val() {
            self.bvalid_r.d.next = true;
            self.bresp_r.d.next = self.w_resp.val();
        } else if self.bready.val() {
            self.bvalid_r.d.next = false;
        }
        self.awready.next = self.aw_fire.val();
        self.wready.next = self.aw_fire.val();
        self.bvalid.next = self.bvalid_r.q.val();
        self.bresp.next = self.bresp_r.q.val();
        self.abort_layer.next = self.abort_r.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CsrWrite::default, "scale_csr_write");
}
