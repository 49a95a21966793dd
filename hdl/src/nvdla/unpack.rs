//! SDP_RDMA's unpacking of an int8 atom into the 32-bit lanes SDP's datapath works in
//! (seeds/001 "Single Data Point Processor": int8 data enters the 32-bit BS/BN/EW pipeline
//! sign-extended; NVDLA's RDMA unpack and cmux). Combinational. Model:
//! `npu_model::nvdla::unpack::lanes`.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Unpack {
    /// Int8 lane k in byte k.
    pub atom: Signal<In, Bits<64>>,
    /// Lane k, sign-extended, in bits 32k+31..32k.
    pub lanes: Signal<Out, Bits<256>>,
}

impl Logic for Unpack {
    /// Not simulated by rust-hdl (the project verifies with Verilator).
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.lanes.connect();
    }
    fn hdl(&self) -> Verilog {
        let lanes: Vec<String> = (0..8).rev().map(|k| format!("{{{{24{{atom[{}]}}}}, atom[{}:{}]}}", 8 * k + 7, 8 * k + 7, 8 * k)).collect();
        Verilog::Custom(format!("always @(*) lanes = {{{}}};", lanes.join(", ")))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Unpack::default, "nvdla_unpack");
}
