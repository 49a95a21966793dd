//! NVDLA nv_small as built so far (seeds/001; docs/nvdla.md has the block diagram, ports,
//! timing and decisions): the CSB and register files ([`Csb`]), the SDP engine ([`Sdp`]), the
//! PDP engine ([`Pdp`]), the CDP engine ([`Cdp`]) with its datapath ([`CdpDp`]) and the
//! convolution engine ([`ConvCore`]: CDMA, CBUF, CSC, CMAC, CACC, its atoms into SDP in flying
//! mode) behind one DBB-style memory port and its arbiter (round robin between the engines'
//! requests, a read granted only while none is outstanding, its data routed to the engine that
//! asked). RTL: `npu_hdl::nvdla::NvSmall`.
use super::cdp::{self, Cdp};
use super::cdp_dp::{self, CdpDp, LutTables};
use super::sdp_lut::LutConfig;
use super::csb::{Cached, Csb};
use super::conv_core::{self, ConvCore};
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

pub struct NvSmall {
    csb: Csb,
    sdp: Sdp,
    pdp: Pdp,
    cdp: Cdp,
    cdp_dp: CdpDp,
    conv: ConvCore,
    /// SDP's EW LUT tables (the RTL's `SdpLut`).
    sdp_lut: LutTables,
    /// SDP's LUT configuration and CDP's datapath registers, rebuilt when the CSB changes.
    sdp_lut_config: Cached<LutConfig>,
    cdp_registers: Cached<cdp_dp::In>,
    arbiter: Arbiter,
    out: Out,
    events: Vec<&'static str>,
}

impl Default for NvSmall {
    fn default() -> Self {
        Self {
            csb: Csb::default(),
            sdp: Sdp::default(),
            pdp: Pdp::default(),
            cdp: Cdp::default(),
            cdp_dp: CdpDp::default(),
            conv: ConvCore::default(),
            sdp_lut: LutTables::default(),
            sdp_lut_config: Cached::default(),
            cdp_registers: Cached::default(),
            arbiter: Arbiter::default(),
            out: Out::idle(),
            events: Vec::new(),
        }
    }
}

/// The memory arbiter's registers: the read outstanding and whose it is, and the engine first
/// in line (engines numbered SDP 0, PDP 1, CDP 2, CDMA 3).
#[derive(Clone, Copy, Debug, Default)]
struct Arbiter {
    outstanding: bool,
    owner: usize,
    prefer: usize,
}

impl Arbiter {
    /// The engine whose request the port shows this cycle: the first asking, in the order
    /// SDP, PDP, CDP, CDMA starting at `prefer` (a write asks always, a read while none is
    /// outstanding). With CDMA not asking this is the round robin of the three others.
    fn grant(&self, requests: [MemoryRequest; ENGINES]) -> Option<usize> {
        let asks = |r: MemoryRequest| r.valid && (r.write || !self.outstanding);
        (0..ENGINES).map(|k| (self.prefer + k) % ENGINES).find(|&e| asks(requests[e]))
    }
}

/// The engines on the memory port.
const ENGINES: usize = 4;

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
        let may_start = self.sdp.may_start(&self.csb);
        let pdp_may_start = Pdp::may_start(&self.csb);
        let cdp_may_start = Cdp::may_start(&self.csb);
        let conv_may_start = ConvCore::may_start(&self.csb);
        // CDP's datapath on its inputs of this cycle (the registers and the engine's window
        // as they are before the edge, the LUT port from this cycle's CSB request).
        let csb_write = (i.csb_valid && i.csb_write).then_some((i.csb_addr, i.csb_wdat));
        let registers = self.cdp_registers.get(&self.csb, cdp::datapath_registers);
        let dp = self.cdp_dp.step(&cdp::datapath_input(registers, &self.csb, self.cdp.window(), csb_write));
        // SDP's LUT likewise: its configuration and tables as before the edge, a table write
        // taking effect at it.
        let sdp_lut = *self.sdp_lut_config.get(&self.csb, LutConfig::from_registers);
        let sdp_lut_entry = self.csb.lut_entry("SDP");
        let sdp_lut_write = csb_write.and_then(|(address, data)| self.csb.lut_write("SDP", address, data));
        if i.csb_valid && !i.csb_write {
            let (sdp_running, pdp_running, cdp_running, conv_running) = (self.sdp.running(), self.pdp.running(), self.cdp.running(), self.conv.running());
            // A flying SDP layer does not run SDP_RDMA's group.
            let sdp_flying = self.sdp.flying();
            let running = |unit: &str| {
                sdp_running && sdp::engine().units.contains(&unit) && !(sdp_flying && unit == "SDP_RDMA")
                    || pdp_running && pdp::engine().units.contains(&unit)
                    || cdp_running && cdp::engine().units.contains(&unit)
                    || conv_running && conv_core::engine().units.contains(&unit)
            };
            let sdp_entry = self.sdp_lut.read(sdp_lut_entry.0, sdp_lut_entry.1);
            next.csb_rdata = self.csb.read(i.csb_addr, running, |unit| if unit == "SDP" { sdp_entry } else { dp.lut_rdata });
            next.csb_rvalid = true;
            let mapped = npu_hdl::nvdla::regmap::decode(i.csb_addr).is_some();
            self.events.push(if mapped { "csb read" } else { "csb read unmapped" });
        }
        if i.csb_valid && i.csb_write {
            let event = self.csb.write(i.csb_addr, i.csb_wdat);
            self.events.push(event);
            next.csb_wr_complete = i.csb_nposted;
        }
        // Then the engines: a write to a group they run on was dropped, and a done status
        // wins over a write clearing the interrupt status in the same cycle.
        // The arbiter on the requests the engines drive in this cycle.
        let requests = [self.sdp.request(), self.pdp.request(), self.cdp.request(), self.conv.request()];
        let granted = self.arbiter.grant(requests);
        let response = i.dbb_resp_valid.then_some(i.dbb_resp_data);
        let owner = self.arbiter.owner;
        if i.dbb_resp_valid {
            self.arbiter.outstanding = false;
        }
        if let Some(e) = granted.filter(|_| i.dbb_req_ready) {
            self.arbiter.prefer = (e + 1) % ENGINES;
            if !requests[e].write {
                self.arbiter.outstanding = true;
                self.arbiter.owner = e;
            }
            if requests.iter().filter(|r| r.valid).count() > 1 {
                self.events.push("memory both asked");
            }
            if requests[..3].iter().all(|r| r.valid) {
                self.events.push("memory all three asked");
            }
            if requests[3].valid && requests[..3].iter().any(|r| r.valid) {
                self.events.push("memory cdma and another asked");
            }
        }
        let ready = |e: usize| i.dbb_req_ready && granted == Some(e);
        let data = |e: usize| response.filter(|_| owner == e);
        // The convolution engine before SDP: the atom SDP takes from CACC this cycle (SDP
        // ready as it is before the edge) goes into SDP at the edge.
        let delivered = self.conv.clock(conv_may_start, &mut self.csb, ready(3), data(3), self.sdp.flying_ready(), &mut self.events);
        self.sdp.clock(may_start, &mut self.csb, ready(0), data(0), delivered, &sdp_lut, &self.sdp_lut, &mut self.events);
        if let Some(data) = sdp_lut_write {
            self.sdp_lut.write(sdp_lut_entry.0, sdp_lut_entry.1, data);
        }
        self.pdp.clock(pdp_may_start, &mut self.csb, ready(1), data(1), &mut self.events);
        let counts = [dp.perf_uflow, dp.perf_oflow, dp.perf_hybrid, dp.perf_le_hit, dp.perf_lo_hit, dp.perf_saturation];
        self.csb.cdp_count(cdp_may_start && !self.cdp.running(), dp.out_valid.then_some(counts));
        self.cdp.clock(cdp_may_start, &mut self.csb, ready(2), data(2), dp.out_valid.then_some(dp.out_atom), &mut self.events);
        let requests = [self.sdp.request(), self.pdp.request(), self.cdp.request(), self.conv.request()];
        let granted = self.arbiter.grant(requests);
        let request = requests[granted.unwrap_or(0)];
        next.dbb_req_valid = granted.is_some();
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
