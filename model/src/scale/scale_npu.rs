//! ScaleNPU, the whole unit: the CSR block and the layer engine, wired as in
//! `hdl/src/scale/scale_npu.rs`.
use super::{csr, engine};
use crate::Block;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub awvalid: bool,
    pub awaddr: u8,
    pub wvalid: bool,
    pub wdata: u32,
    pub wstrb: u8,
    pub bready: bool,
    pub arvalid: bool,
    pub araddr: u8,
    pub rready: bool,
    pub mem_rd_req_ready: bool,
    pub mem_rd_resp_valid: bool,
    pub mem_rd_resp_data: u128,
    pub mem_rd_resp_error: bool,
    pub mem_wr_req_ready: bool,
    pub mem_wr_resp_valid: bool,
    pub mem_wr_resp_error: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub awready: bool,
    pub wready: bool,
    pub bvalid: bool,
    pub bresp: u8,
    pub arready: bool,
    pub rvalid: bool,
    pub rdata: u32,
    pub rresp: u8,
    pub irq: bool,
    pub mem_rd_req_valid: bool,
    pub mem_rd_req_addr: u32,
    pub mem_wr_req_valid: bool,
    pub mem_wr_req_addr: u32,
    pub mem_wr_req_wdata: u128,
}

#[derive(Default)]
pub struct ScaleNpu {
    pub csr: csr::Csr,
    pub engine: engine::Engine,
    events: Vec<&'static str>,
}

impl Block for ScaleNpu {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, i: &In) -> Out {
        // The engine's status outputs are registers: they do not depend on its inputs.
        let status = self.engine.outputs(&engine::In::default());
        let c = self.csr.step(&csr::In {
            reset: i.reset,
            awvalid: i.awvalid,
            awaddr: i.awaddr,
            wvalid: i.wvalid,
            wdata: i.wdata,
            wstrb: i.wstrb,
            bready: i.bready,
            arvalid: i.arvalid,
            araddr: i.araddr,
            rready: i.rready,
            busy: status.busy,
            finish: status.finish,
            exit_code: status.exit_code,
        });
        let e = self.engine.step(&engine::In {
            reset: i.reset,
            start: c.start,
            write_while_busy: c.abort_layer,
            inrows: c.inrows,
            incols: c.incols,
            wghtrows: c.wghtrows,
            wghtcols: c.wghtcols,
            reinputs: c.reinputs,
            reweights: c.reweights,
            saveout: c.saveout,
            usebias: c.usebias,
            usesumm: c.usesumm,
            shiftamt: c.shiftamt,
            actfn: c.actfn,
            base: c.base,
            result: c.result,
            mem_rd_req_ready: i.mem_rd_req_ready,
            mem_rd_resp_valid: i.mem_rd_resp_valid,
            mem_rd_resp_data: i.mem_rd_resp_data,
            mem_rd_resp_error: i.mem_rd_resp_error,
            mem_wr_req_ready: i.mem_wr_req_ready,
            mem_wr_resp_valid: i.mem_wr_resp_valid,
            mem_wr_resp_error: i.mem_wr_resp_error,
        });
        self.events.clear();
        self.events.extend(self.csr.events());
        self.events.extend(self.engine.events());
        Out {
            awready: c.awready,
            wready: c.wready,
            bvalid: c.bvalid,
            bresp: c.bresp,
            arready: c.arready,
            rvalid: c.rvalid,
            rdata: c.rdata,
            rresp: c.rresp,
            irq: c.irq,
            mem_rd_req_valid: e.mem_rd_req_valid,
            mem_rd_req_addr: e.mem_rd_req_addr,
            mem_wr_req_valid: e.mem_wr_req_valid,
            mem_wr_req_addr: e.mem_wr_req_addr,
            mem_wr_req_wdata: e.mem_wr_req_wdata,
        }
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}
