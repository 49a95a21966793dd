//! CMAC's 8 MAC cells (seeds/001 "Convolution MAC"), combinational: cell k's partial sum is
//! the dot product of one pixel's 8 int8 channels with the cell's 8 int8 weights, exact in
//! 18 bits (at most 8 x 128 x 128 = 2^17), carried in [`super::PSUM_BITS`] = 20. Verilog for
//! its signed 8 x 8 products and part-selects, which rust-hdl cannot write (as
//! [`crate::ethos::DotPair`]). Model: `npu_model::nvdla::cmac::dot`.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CmacCells {
    /// The pixel: channel c in bits 8c+7..8c.
    pub data: Signal<In, Bits<64>>,
    /// Cell k's weights, channel c in bits 8c+7..8c.
    pub w0: Signal<In, Bits<64>>,
    pub w1: Signal<In, Bits<64>>,
    pub w2: Signal<In, Bits<64>>,
    pub w3: Signal<In, Bits<64>>,
    pub w4: Signal<In, Bits<64>>,
    pub w5: Signal<In, Bits<64>>,
    pub w6: Signal<In, Bits<64>>,
    pub w7: Signal<In, Bits<64>>,
    /// Cells 0..3 and 4..7, 20-bit two's complement each, cell k in bits 20(k mod 4)+19..
    pub psum_lo: Signal<Out, Bits<80>>,
    pub psum_hi: Signal<Out, Bits<80>>,
}

impl Logic for CmacCells {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::cmac`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.psum_lo.connect();
        self.psum_hi.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from("integer c;\nreg signed [19:0] s0, s1, s2, s3, s4, s5, s6, s7;\nalways @(*) begin\n");
        for k in 0..8 {
            body += &format!("    s{k} = 20'sd0;\n");
        }
        body += "    for (c = 0; c < 8; c = c + 1) begin\n";
        for k in 0..8 {
            body += &format!("        s{k} = s{k} + $signed(data[8*c +: 8]) * $signed(w{k}[8*c +: 8]);\n");
        }
        body += "    end\n    psum_lo = {s3, s2, s1, s0};\n    psum_hi = {s7, s6, s5, s4};\nend";
        Verilog::Custom(body)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CmacCells::default, "nvdla_cmac_cells");
}
