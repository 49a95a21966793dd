//! The CSR block's AXI4-Lite read channel (seeds/004; AXI A3 handshakes): the AR handshake,
//! the response (misaligned SLVERR, unmapped DECERR, else OKAY) and the R channel's registers.
//! The sub-block of [`super::csr::Csr`], whose doc has the timing; the value read at `araddr`
//! comes from the register file (`value`, 0 for an address that is no register's). Model
//! `npu_model::scale::csr` (the whole block; the split is the RTL's alone).
use super::csr::byte_constant;
use super::regmap;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CsrRead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub arvalid: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<8>>,
    pub rready: Signal<In, Bit>,
    /// The register file's value at `araddr`.
    pub value: Signal<In, Bits<32>>,
    pub arready: Signal<Out, Bit>,
    pub rvalid: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    rvalid_r: Reg<Bit>,
    rdata_r: Reg<Bits<32>>,
    rresp_r: Reg<Bits<2>>,
    ar_fire: Signal<Local, Bit>,
    r_resp: Signal<Local, Bits<2>>,
    map_size: Constant<Bits<8>>,
    aligned_low: Constant<Bits<2>>,
    resp_okay: Constant<Bits<2>>,
    resp_slverr: Constant<Bits<2>>,
    resp_decerr: Constant<Bits<2>>,
}

impl Default for CsrRead {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            arvalid: Default::default(),
            araddr: Default::default(),
            rready: Default::default(),
            value: Default::default(),
            arready: Default::default(),
            rvalid: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            rvalid_r: Default::default(),
            rdata_r: Default::default(),
            rresp_r: Default::default(),
            ar_fire: Default::default(),
            r_resp: Default::default(),
            map_size: byte_constant(regmap::MAP_SIZE),
            aligned_low: Constant::new(0.into()),
            resp_okay: Constant::new(0b00.into()),
            resp_slverr: Constant::new(0b10.into()),
            resp_decerr: Constant::new(0b11.into()),
        }
    }
}

impl Logic for CsrRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rvalid_r, rdata_r, rresp_r);
        self.rvalid_r.reset.next = self.reset.val();
        self.rdata_r.reset.next = self.reset.val();
        self.rresp_r.reset.next = self.reset.val();
        self.ar_fire.next = self.arvalid.val() & !self.rvalid_r.q.val();
        self.r_resp.next = self.resp_okay.val();
        if self.araddr.val().get_bits::<2>(0) != self.aligned_low.val() {
            self.r_resp.next = self.resp_slverr.val();
        } else if self.araddr.val() >= self.map_size.val() {
            self.r_resp.next = self.resp_decerr.val();
        }
        // R channel.
        if self.ar_fire.val() {
            self.rvalid_r.d.next = true;
            self.rdata_r.d.next = self.value.val();
            self.rresp_r.d.next = self.r_resp.val();
        } else if self.rready.val() {
            self.rvalid_r.d.next = false;
        }
        self.arready.next = !self.rvalid_r.q.val();
        self.rvalid.next = self.rvalid_r.q.val();
        self.rdata.next = self.rdata_r.q.val();
        self.rresp.next = self.rresp_r.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CsrRead::default, "scale_csr_read");
}
