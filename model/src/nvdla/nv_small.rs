//! NVDLA nv_small as built so far (seeds/001; docs/nvdla.md has the block diagram, ports,
//! timing and decisions): the CSB and register files ([`Csb`]), the SDP engine ([`Sdp`]) and
//! the PDP engine ([`Pdp`]) behind one DBB-style memory port and its arbiter (round robin
//! between the engines' requests, a read granted only while none is outstanding, its data
//! routed to the engine that asked). RTL: `npu_hdl::nvdla::NvSmall`.
use super::csb::Csb;
use super::pdp::{self, Pdp};
use super::sdp::{self, Sdp};
use super::sdp::MemoryRequest;
use crate::Block;

pub use super::convert::ATOM;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    /// CSB request channel (seeds/001 Table 1): `csb2nvdla_*`.
    pub csb_valid: bool,
    pub csb_addr: u16,
    pub csb_wdat: u32,
    pub csb_write: bool,
    pub csb_nposted: bool,
    /// Memory port: the memory takes the request in a cycle with `dbb_req_valid & dbb_req_ready`.
    pub dbb_req_ready: bool,
    /// Read data, one atom, in request order; NVDLA has at most one read outstanding.
    pub dbb_resp_valid: bool,
    pub dbb_resp_data: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub csb_ready: bool,
    /// CSB read data channel (Table 2): `nvdla2csb_valid`, `nvdla2csb_data`.
    pub csb_rvalid: bool,
    pub csb_rdata: u32,
    /// CSB write completion (Table 3): `nvdla2csb_wr_complete`.
    pub csb_wr_complete: bool,
    /// `nvdla2core_interrupt`: high while an unmasked GLB interrupt status bit is set.
    pub irq: bool,
    pub dbb_req_valid: bool,
    pub dbb_req_write: bool,
    /// Byte address of the atom (a multiple of 8 when the registers' addresses and strides are).
    pub dbb_req_addr: u64,
    pub dbb_req_wdata: u64,
}

#[derive(Clone, Debug)]
pub struct NvSmall {
    csb: Csb,
    sdp: Sdp,
    pdp: Pdp,
    arbiter: Arbiter,
    out: Out,
    events: Vec<&'static str>,
}

impl Default for NvSmall {
    fn default() -> Self {
        Self { csb: Csb::default(), sdp: Sdp::default(), pdp: Pdp::default(), arbiter: Arbiter::default(), out: Out::idle(), events: Vec::new() }
    }
}

/// The memory arbiter's registers: the read outstanding and whose it is, and which engine
/// goes first when both ask.
#[derive(Clone, Copy, Debug, Default)]
struct Arbiter {
    outstanding: bool,
    owner_pdp: bool,
    prefer_pdp: bool,
}

impl Arbiter {
    /// Which engine's request the port shows this cycle: (SDP granted, PDP granted).
    fn grant(&self, sdp: MemoryRequest, pdp: MemoryRequest) -> (bool, bool) {
        let asks = |r: MemoryRequest| r.valid && (r.write || !self.outstanding);
        let grant_pdp = asks(pdp) && (!asks(sdp) || self.prefer_pdp);
        (asks(sdp) && !grant_pdp, grant_pdp)
    }
}

impl Out {
    fn idle() -> Self {
        Out { csb_ready: true, csb_rvalid: false, csb_rdata: 0, csb_wr_complete: false, irq: false, dbb_req_valid: false, dbb_req_write: false, dbb_req_addr: 0, dbb_req_wdata: 0 }
    }
}

impl NvSmall {
    fn clock(&mut self, i: &In) {
        self.events.clear();
        if i.reset {
            *self = Self::default();
            self.events.push("reset");
            return;
        }
        let mut next = Out { csb_rvalid: false, csb_wr_complete: false, ..self.out.clone() };
        // The CSB first, on the registers as they were before this edge: a read returns
        // them, and a layer starts only on enables set before it (a write enabling a group
        // starts it at the next edge).
        let may_start = Sdp::may_start(&self.csb);
        let pdp_may_start = Pdp::may_start(&self.csb);
        if i.csb_valid && !i.csb_write {
            let (sdp_running, pdp_running) = (self.sdp.running(), self.pdp.running());
            next.csb_rdata = self.csb.read(i.csb_addr, |unit| sdp_running && sdp::engine().units.contains(&unit) || pdp_running && pdp::engine().units.contains(&unit));
            next.csb_rvalid = true;
            let mapped = npu_hdl::nvdla::regmap::decode(i.csb_addr).is_some();
            self.events.push(if mapped { "csb read" } else { "csb read unmapped" });
        }
        if i.csb_valid && i.csb_write {
            let event = self.csb.write(i.csb_addr, i.csb_wdat);
            self.events.push(event);
            next.csb_wr_complete = i.csb_nposted;
        }
        // Then the engine: a write to a group it runs on was dropped, and its done status
        // wins over a write clearing the interrupt status in the same cycle.
        // The arbiter on the requests the engines drive in this cycle.
        let (sdp_request, pdp_request) = (self.sdp.request(), self.pdp.request());
        let (grant_sdp, grant_pdp) = self.arbiter.grant(sdp_request, pdp_request);
        let shown = if grant_pdp { pdp_request } else { sdp_request };
        let response = i.dbb_resp_valid.then_some(i.dbb_resp_data);
        let owner_pdp = self.arbiter.owner_pdp;
        if i.dbb_resp_valid {
            self.arbiter.outstanding = false;
        }
        if i.dbb_req_ready && (grant_sdp || grant_pdp) {
            self.arbiter.prefer_pdp = grant_sdp;
            if !shown.write {
                self.arbiter.outstanding = true;
                self.arbiter.owner_pdp = grant_pdp;
            }
            if sdp_request.valid && pdp_request.valid {
                self.events.push("memory both asked");
            }
        }
        self.sdp.clock(may_start, &mut self.csb, i.dbb_req_ready && grant_sdp, response.filter(|_| !owner_pdp), &mut self.events);
        self.pdp.clock(pdp_may_start, &mut self.csb, i.dbb_req_ready && grant_pdp, response.filter(|_| owner_pdp), &mut self.events);
        let (sdp_request, pdp_request) = (self.sdp.request(), self.pdp.request());
        let (grant_sdp, grant_pdp) = self.arbiter.grant(sdp_request, pdp_request);
        let request = if grant_pdp { pdp_request } else { sdp_request };
        next.dbb_req_valid = grant_sdp || grant_pdp;
        next.dbb_req_write = request.write;
        next.dbb_req_addr = request.addr;
        next.dbb_req_wdata = request.wdata;
        next.irq = self.csb.interrupt_pending();
        self.out = next;
    }
}

impl Block for NvSmall {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, input: &In) -> Out {
        let out = self.out.clone();
        self.clock(input);
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}
