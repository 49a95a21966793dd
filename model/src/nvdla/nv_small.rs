//! NVDLA nv_small as built so far (seeds/001; docs/nvdla.md has the block diagram, ports,
//! timing and decisions): the CSB and register files ([`Csb`]) and the SDP engine ([`Sdp`])
//! behind one DBB-style memory port. RTL: `npu_hdl::nvdla::NvSmall`.
use super::csb::Csb;
use super::sdp::Sdp;
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
    out: Out,
    events: Vec<&'static str>,
}

impl Default for NvSmall {
    fn default() -> Self {
        Self { csb: Csb::default(), sdp: Sdp::default(), out: Out::idle(), events: Vec::new() }
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
        if i.csb_valid && !i.csb_write {
            let sdp_running = self.sdp.running();
            next.csb_rdata = self.csb.read(i.csb_addr, |unit| sdp_running && super::sdp::UNITS.contains(&unit));
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
        let response = i.dbb_resp_valid.then_some(i.dbb_resp_data);
        self.sdp.clock(may_start, &mut self.csb, i.dbb_req_ready, response, &mut self.events);
        let request = self.sdp.request();
        next.dbb_req_valid = request.valid;
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
