//! CDP_RDMA's gathering of the 16-channel window CDP's datapath takes for one atom (seeds/001
//! "Channel Data Processor": the sum of squares runs over NORMALZ_LEN neighbouring channels,
//! up to 4 on each side, so it crosses 8-channel surfaces). Combinational. Model:
//! `npu_model::nvdla::cdp_window`.
//!
//! The engine keeps the atoms of three consecutive surfaces at one (x, y) (`lower`, `centre`,
//! `upper`) and shifts one in per surface, as NVIDIA's C model keeps three atom buffers
//! (`cmod/cdp/NV_NVDLA_cdp.cpp`, data-path sequence). Channels outside the cube (before
//! channel 0, past the last channel, in the last surface's lanes past CHANNEL and in the
//! surfaces past it) are DATIN_OFFSET's low byte, as that model fills them.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct CdpWindow {
    /// The atom read (int8 lane k in byte k).
    pub atom: Signal<In, Bits<64>>,
    /// The atom read is the cube's last surface: its lanes past `last_lanes` are padding.
    pub last: Signal<In, Bit>,
    /// CHANNEL's low 3 bits: the last surface's last lane in the cube.
    pub last_lanes: Signal<In, Bits<3>>,
    /// DATIN_OFFSET (its low byte pads).
    pub datin_offset: Signal<In, Bits<16>>,
    pub lower: Signal<In, Bits<64>>,
    pub centre: Signal<In, Bits<64>>,
    pub upper: Signal<In, Bits<64>>,
    /// An atom of padding only (a surface outside the cube).
    pub pad: Signal<Out, Bits<64>>,
    /// The atom read with its lanes outside the cube padded: what the engine shifts in.
    pub padded: Signal<Out, Bits<64>>,
    /// The window of `centre`: lane i in bits 8i+7..8i, `lower`'s lanes 4..7, `centre`'s 8 lanes,
    /// `upper`'s lanes 0..3 (the datapath's `in_window`).
    pub window: Signal<Out, Bits<128>>,
}

impl Logic for CdpWindow {
    /// Not simulated by rust-hdl (the project verifies with Verilator).
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.pad.connect();
        self.padded.connect();
        self.window.connect();
    }
    fn hdl(&self) -> Verilog {
        // Lane 0 is always in the cube (CHANNEL's low bits are at least 0).
        let lanes: Vec<String> = (1..8u32)
            .rev()
            .map(|k| format!("(last && 3'd{k} > last_lanes) ? datin_offset[7:0] : atom[{}:{}]", 8 * k + 7, 8 * k))
            .chain(["atom[7:0]".to_string()])
            .collect();
        Verilog::Custom(format!(
            "always @(*) pad = {{8{{datin_offset[7:0]}}}};\n\
             wire unused_offset = ^datin_offset[15:8];\n\
             always @(*) padded = {{{}}};\n\
             always @(*) window = {{upper[31:0], centre, lower[63:32]}};\n\
             wire unused_ends = ^{{lower[31:0], upper[63:32]}};",
            lanes.iter().map(|l| format!("({l})")).collect::<Vec<_>>().join(", ")
        ))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(CdpWindow::default, "nvdla_cdp_window");
}
