//! CDP's multiply and output converter on the 8 lanes of an atom (seeds/001 "Channel Data
//! Processor"; the widths and rounding are NVIDIA's C model's, docs/nvdla.md "CDP datapath").
//! Combinational; the arithmetic is Verilog for its exact signed widths, as in
//! [`super::convert::Convert`]. Model: `npu_model::nvdla::cdp_dp::convert_out`.
//!
//! - `v` = the lookup's int16 result times the lane's converted channel (9 bits: 25 bits,
//!   exact), or the result alone with MUL_BYPASS;
//! - `(v - DATOUT_OFFSET[24:0])` (the offset's low 25 bits, signed, as the C model takes
//!   them: 26 bits) times DATOUT_SCALE (int16: 42 bits, exact), shifted right by
//!   DATOUT_SHIFTER rounding half away from zero, saturated to int8; a shift of 42 or more
//!   gives 0;
//! - a lane counts as saturated when its result is more than 1 from the product's floor
//!   shift (the C model's rule for D_OUT_SATURATION).
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CdpCvt {
    /// Lane c's int16 lookup result in bits 16c+15..16c.
    pub results: Signal<In, Bits<128>>,
    /// Lane c's converted channel, 9-bit signed, in bits 9c+8..9c.
    pub centres: Signal<In, Bits<72>>,
    pub mul_bypass: Signal<In, Bit>,
    pub datout_offset: Signal<In, Bits<32>>,
    pub datout_scale: Signal<In, Bits<16>>,
    pub datout_shifter: Signal<In, Bits<6>>,
    pub atom: Signal<Out, Bits<64>>,
    /// How many lanes saturated.
    pub saturated: Signal<Out, Bits<4>>,
}

impl Logic for CdpCvt {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::cdp_dp`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.atom.connect();
        self.saturated.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut body = String::from(
            "wire unused_offset_high = ^datout_offset[31:25];\n\
             wire signed [25:0] offset26 = {datout_offset[24], datout_offset[24:0]};\n\
             wire signed [41:0] scale42 = {{26{datout_scale[15]}}, datout_scale};\n\
             wire [41:0] half = datout_shifter == 6'd0 ? 42'h0 : 42'h1 << (datout_shifter - 6'd1);\n",
        );
        let (mut lanes, mut flags) = (Vec::new(), Vec::new());
        for c in 0..8 {
            let (rhi, rlo, xhi, xlo) = (16 * c + 15, 16 * c, 9 * c + 8, 9 * c);
            body += &format!(
                "wire signed [24:0] r{c} = {{{{9{{results[{rhi}]}}}}, results[{rhi}:{rlo}]}};\n\
                 wire signed [24:0] x{c} = {{{{16{{centres[{xhi}]}}}}, centres[{xhi}:{xlo}]}};\n\
                 wire signed [24:0] v{c} = mul_bypass ? r{c} : r{c} * x{c};\n\
                 wire signed [25:0] d{c} = {{v{c}[24], v{c}}} - offset26;\n\
                 wire signed [41:0] p{c} = {{{{16{{d{c}[25]}}}}, d{c}}} * scale42;\n\
                 wire signed [41:0] floor{c} = p{c} >>> datout_shifter;\n\
                 wire [41:0] rest{c} = p{c} - (floor{c} <<< datout_shifter);\n\
                 wire up{c} = datout_shifter != 6'd0 && (rest{c} > half || (rest{c} == half && !p{c}[41]));\n\
                 wire signed [41:0] rounded{c} = floor{c} + {{41'h0, up{c}}};\n\
                 wire signed [41:0] o{c} = datout_shifter >= 6'd42 ? 42'sd0 : rounded{c} > 42'sd127 ? 42'sd127 : rounded{c} < -42'sd128 ? -42'sd128 : rounded{c};\n\
                 wire signed [41:0] gap{c} = o{c} - floor{c};\n\
                 wire sat{c} = gap{c} > 42'sd1 || gap{c} < -42'sd1;\n\
                 wire [7:0] lane{c} = o{c}[7:0];\n\
                 wire unused_o{c} = ^o{c}[41:8];\n"
            );
            lanes.push(format!("lane{c}"));
            flags.push(format!("{{3'h0, sat{c}}}"));
        }
        lanes.reverse();
        Verilog::Custom(format!("{body}always @(*) atom = {{{}}};\nalways @(*) saturated = {};", lanes.join(", "), flags.join(" + ")))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdpCvt::default, "nvdla_cdp_cvt");
}
