//! ScaleNPU, the whole unit: the CSR block (AXI4-Lite slave, seeds/004) and the layer engine
//! with its systolic array and memory master port. Model: `model/src/scale/scale_npu.rs`;
//! docs/scale.md has the block diagram, the memory layout and the timing.
use super::pe_column::VECTOR;
use super::{Csr, Engine};
use rust_hdl::prelude::*;

/// Ports: the AXI4-Lite slave of [`Csr`] (names as AXI's, without prefix), `irq`
/// (IRQ.FINISHED), and the memory master port of [`Engine`]: a read channel (`mem_rd_*`) and a
/// write channel (`mem_wr_*`), docs/scale.md.
#[derive(LogicBlock, Default)]
pub struct ScaleNpu {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub awvalid: Signal<In, Bit>,
    pub awaddr: Signal<In, Bits<8>>,
    pub wvalid: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub bready: Signal<In, Bit>,
    pub arvalid: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<8>>,
    pub rready: Signal<In, Bit>,
    pub mem_rd_req_ready: Signal<In, Bit>,
    pub mem_rd_resp_valid: Signal<In, Bit>,
    pub mem_rd_resp_data: Signal<In, Bits<VECTOR>>,
    pub mem_rd_resp_error: Signal<In, Bit>,
    pub mem_wr_req_ready: Signal<In, Bit>,
    pub mem_wr_resp_valid: Signal<In, Bit>,
    pub mem_wr_resp_error: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bvalid: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub arready: Signal<Out, Bit>,
    pub rvalid: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    pub irq: Signal<Out, Bit>,
    pub mem_rd_req_valid: Signal<Out, Bit>,
    pub mem_rd_req_addr: Signal<Out, Bits<32>>,
    pub mem_wr_req_valid: Signal<Out, Bit>,
    pub mem_wr_req_addr: Signal<Out, Bits<32>>,
    pub mem_wr_req_wdata: Signal<Out, Bits<VECTOR>>,
    csr: Csr,
    engine: Engine,
}

impl Logic for ScaleNpu {
    #[hdl_gen]
    fn update(&mut self) {
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.engine.clock.next = self.clock.val();
        self.engine.reset.next = self.reset.val();
        // The bus and the registers.
        self.csr.awvalid.next = self.awvalid.val();
        self.csr.awaddr.next = self.awaddr.val();
        self.csr.wvalid.next = self.wvalid.val();
        self.csr.wdata.next = self.wdata.val();
        self.csr.wstrb.next = self.wstrb.val();
        self.csr.bready.next = self.bready.val();
        self.csr.arvalid.next = self.arvalid.val();
        self.csr.araddr.next = self.araddr.val();
        self.csr.rready.next = self.rready.val();
        self.awready.next = self.csr.awready.val();
        self.wready.next = self.csr.wready.val();
        self.bvalid.next = self.csr.bvalid.val();
        self.bresp.next = self.csr.bresp.val();
        self.arready.next = self.csr.arready.val();
        self.rvalid.next = self.csr.rvalid.val();
        self.rdata.next = self.csr.rdata.val();
        self.rresp.next = self.csr.rresp.val();
        self.irq.next = self.csr.irq.val();
        // Registers to the engine, status back.
        self.engine.start.next = self.csr.start.val();
        self.engine.write_while_busy.next = self.csr.abort_layer.val();
        self.engine.inrows.next = self.csr.inrows.val();
        self.engine.incols.next = self.csr.incols.val();
        self.engine.wghtrows.next = self.csr.wghtrows.val();
        self.engine.wghtcols.next = self.csr.wghtcols.val();
        self.engine.reinputs.next = self.csr.reinputs.val();
        self.engine.reweights.next = self.csr.reweights.val();
        self.engine.saveout.next = self.csr.saveout.val();
        self.engine.usebias.next = self.csr.usebias.val();
        self.engine.usesumm.next = self.csr.usesumm.val();
        self.engine.shiftamt.next = self.csr.shiftamt.val();
        self.engine.actfn.next = self.csr.actfn.val();
        self.engine.base.next = self.csr.base.val();
        self.engine.result.next = self.csr.result.val();
        self.csr.busy.next = self.engine.busy.val();
        self.csr.finish.next = self.engine.finish.val();
        self.csr.exit_code.next = self.engine.exit_code.val();
        // Memory: the read channel and the write channel.
        self.engine.mem_rd_req_ready.next = self.mem_rd_req_ready.val();
        self.engine.mem_rd_resp_valid.next = self.mem_rd_resp_valid.val();
        self.engine.mem_rd_resp_data.next = self.mem_rd_resp_data.val();
        self.engine.mem_rd_resp_error.next = self.mem_rd_resp_error.val();
        self.engine.mem_wr_req_ready.next = self.mem_wr_req_ready.val();
        self.engine.mem_wr_resp_valid.next = self.mem_wr_resp_valid.val();
        self.engine.mem_wr_resp_error.next = self.mem_wr_resp_error.val();
        self.mem_rd_req_valid.next = self.engine.mem_rd_req_valid.val();
        self.mem_rd_req_addr.next = self.engine.mem_rd_req_addr.val();
        self.mem_wr_req_valid.next = self.engine.mem_wr_req_valid.val();
        self.mem_wr_req_addr.next = self.engine.mem_wr_req_addr.val();
        self.mem_wr_req_wdata.next = self.engine.mem_wr_req_wdata.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ScaleNpu::default, "scale_npu");
}
