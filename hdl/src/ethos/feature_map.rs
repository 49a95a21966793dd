//! The feature-map address generator the kernel units share (TRM §4.6 feature-map registers;
//! digest `shared/spec/ethos-u65.md` §2.2, §3.3): it keeps one map's registers (the four tile
//! bases, the three strides, the tile split, the precision and its region's BASEP) and gives
//! the byte address of element (y, x, c), combinationally. The model is
//! `npu_model::ethos::feature_map::address`; docs/ethos.md, "Elementwise unit".
//!
//! Element (y, x, c) lies in tile 0 (top-left), 1 (from column `WIDTH0_M1 + 1`), 2 (below
//! row `HEIGHT0_M1` on the left) or 3 (below `HEIGHT1_M1` on the right); its address is
//! `BASEP + base[tile] + y'·STRIDE_Y + x'·STRIDE_X` plus `c·STRIDE_C` in NHWC or
//! `(c / 16)·STRIDE_C + c mod 16` in NHCWB16 (`PRECISION[7:6] = 1`), with y', x' relative to
//! the tile. Decision: the arithmetic is modulo 2^40 (the memory port's address width): a
//! negative stride works, and an address beyond the memory is the memory's error, not this
//! block's.
//!
//! Written as a Verilog leaf: the address is a sum of 16 x 40-bit products modulo 2^40, and
//! rust-hdl multiplies only 16 x 16 bits (to 16 bits); its slots are a small register file
//! written at a variable index, which `#[hdl_gen]` has no arrays for.
use rust_hdl::prelude::*;

/// The slots a map's registers are loaded into (`load_slot`), in this order: the
/// `NPU_SET_<map>_<name>` registers, then the region's BASEP pair (low, high).
pub const SLOTS: [&str; 11] = ["BASE0", "BASE1", "BASE2", "BASE3", "STRIDE_X", "STRIDE_Y", "STRIDE_C", "HEIGHT0_M1", "HEIGHT1_M1", "WIDTH0_M1", "PRECISION"];
/// The slots of BASEP 2r and 2r + 1 of the map's region r.
pub const BASEP_LOW: usize = 11;
pub const BASEP_HIGH: usize = 12;

/// The slots' register file ([`SLOT_FILE`]) and the statements that compute the address from
/// them ([`ADDRESS`]), the Verilog [`FeatureMap`] and [`FeatureMapLayout`] share.
const SLOT_FILE: &str = "reg [39:0] slot [0:15];\n\
     reg [39:0] base;\n\
     reg [15:0] ty;\n\
     reg [15:0] tx;\n\
     reg [39:0] channel;\n\
     always @(posedge clock) begin\n    \
         if (load) slot[load_slot] <= load_value;\n\
     end\n";
const ADDRESS: &str = "    if (x <= slot[9][15:0]) begin\n        \
         tx = x;\n        \
         if (y <= slot[7][15:0]) begin base = slot[0]; ty = y; end\n        \
         else begin base = slot[2]; ty = y - slot[7][15:0] - 16'd1; end\n    \
     end else begin\n        \
         tx = x - slot[9][15:0] - 16'd1;\n        \
         if (y <= slot[8][15:0]) begin base = slot[1]; ty = y; end\n        \
         else begin base = slot[3]; ty = y - slot[8][15:0] - 16'd1; end\n    \
     end\n    \
     if (slot[10][7:6] == 2'd1) channel = {28'd0, c[15:4]} * slot[6] + {36'd0, c[3:0]};\n    \
     else channel = {24'd0, c} * slot[6];\n    \
     address = {slot[12][7:0], slot[11][31:0]} + base + {24'd0, ty} * slot[5] + {24'd0, tx} * slot[4] + channel;\n";

/// Ports: `load` writes `load_value` (a register-file value, 40 bits kept) into slot
/// `load_slot` at the clock edge; `address` is element (`y`, `x`, `c`)'s byte address from the
/// slots as they are while `enable`, 0 otherwise: a branch, so that Verilator skips the four
/// 16 x 40-bit products in the cycles a user does not read the address (the IFM server reads
/// it only while it serves a tap; the kernel unit, in most cycles of a kernel, ties `enable`
/// high; docs/ethos.md, "Verilated speed", NPU step 3).
#[derive(LogicBlock, Default)]
pub struct FeatureMap {
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

impl Logic for FeatureMap {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.address.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(gated_address())
    }
}

/// The slot file and the address computed only while `enable` (0 otherwise), the Verilog
/// [`FeatureMap`] and [`FeatureMapLayout`] share.
fn gated_address() -> String {
    format!(
        "{SLOT_FILE}always @(*) begin\n    if (enable) begin\n{ADDRESS}    end else begin\n        \
         base = 40'd0;\n        ty = 16'd0;\n        tx = 16'd0;\n        channel = 40'd0;\n        address = 40'd0;\n    \
         end\nend"
    )
}

/// [`FeatureMap`] that also tells the map's layout from its slots, for a user that writes
/// runs of channels (the convolution unit's OFM queue): `contiguous` is STRIDE_C = 1 (NHWC
/// channels in consecutive bytes), `brick` is NHCWB16 (`PRECISION[7:6] = 1`, 16 channels a
/// brick). `address` is computed only while `enable` (a branch, so that Verilator skips the
/// products in the cycles its user does not write; 0 otherwise). Decision: a block of its own
/// rather than two more ports on [`FeatureMap`], whose other users (the IFM server, the kernel
/// unit's memory side) do not read them, and an output nobody reads is a `-Wall` warning
/// (`UNUSEDSIGNAL`) in the exported Verilog; the address is the same Verilog ([`ADDRESS`]).
/// The model is `npu_model::ethos::feature_map::{contiguous, brick}`.
#[derive(LogicBlock, Default)]
pub struct FeatureMapLayout {
    pub clock: Signal<In, Clock>,
    pub load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub enable: Signal<In, Bit>,
    pub y: Signal<In, Bits<16>>,
    pub x: Signal<In, Bits<16>>,
    pub c: Signal<In, Bits<16>>,
    pub address: Signal<Out, Bits<40>>,
    pub contiguous: Signal<Out, Bit>,
    pub brick: Signal<Out, Bit>,
}

impl Logic for FeatureMapLayout {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.address.connect();
        self.contiguous.connect();
        self.brick.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{}\nalways @(*) begin\n    contiguous = slot[6] == 40'd1;\n    brick = slot[10][7:6] == 2'd1;\nend",
            gated_address()
        ))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(FeatureMap::default, "feature_map");
    crate::synth_check::assert_synthesizes(FeatureMapLayout::default, "feature_map_layout");
}
