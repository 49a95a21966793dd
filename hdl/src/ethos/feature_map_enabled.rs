//! The IFM server's feature map: [`super::feature_map::FeatureMap`] whose address is computed
//! only while a tap is served (TRM §4.6 feature-map registers; digest `shared/spec/ethos-u65.md`
//! §2.2, §3.3). Its Verilog is `feature_map.rs`'s slot file and gated address
//! ([`super::feature_map::gated_address`], as [`super::feature_map::FeatureMapLayout`]'s), so
//! the three maps compute one address; a file of its own since issue 19 (one block per file).
//! The model is `npu_model::ethos::feature_map::address`; docs/ethos.md, "Verilated speed",
//! NPU step 3.
use super::feature_map::gated_address;
use rust_hdl::prelude::*;

/// [`super::feature_map::FeatureMap`] whose `address` is computed only while `enable` (a
/// branch, so that Verilator skips the four 16 x 40-bit products in the cycles its user does
/// not read it; 0 otherwise), as [`super::feature_map::FeatureMapLayout`]'s is: the
/// convolution unit's IFM server, which reads the address only while it serves a tap
/// (docs/ethos.md, "Verilated speed", NPU step 3). Decision: a block of its own rather than an
/// `enable` on [`super::feature_map::FeatureMap`], whose other user (the kernel unit's memory
/// side) reads its three maps' addresses in most cycles of a kernel.
#[derive(LogicBlock, Default)]
pub struct FeatureMapEnabled {
    pub clock: Signal<In, Clock>,
    pub load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub enable: Signal<In, Bit>,
    pub y: Signal<In, Bits<16>>,
    pub x: Signal<In, Bits<16>>,
    pub c: Signal<In, Bits<16>>,
    pub address: Signal<Out, Bits<40>>,
}

impl Logic for FeatureMapEnabled {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.address.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(gated_address())
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(FeatureMapEnabled::default, "feature_map_enabled");
}
