//! The engines and the register groups they run on (seeds/001 "Ping-pong Synchronization
//! Mechanism", "Host interrupt"): which units' groups start and end each engine's layer and
//! which GLB status bit its done sets. Not a block: the table the CSB ([`super::csb::Csb`]),
//! its GLB ([`super::csb_glb::CsbGlb`]) and the model (`npu_model::nvdla::csb`) follow.

/// The units with ping-pong groups (GLB has none).
pub const GROUPED: [&str; 11] = ["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC", "SDP_RDMA", "SDP", "PDP_RDMA", "PDP", "CDP_RDMA", "CDP"];

/// An engine and the register groups it runs on: its ports (layer ready out, done and
/// running in), its units (read DMA first; the last one's consumer group names GLB's done status
/// bit), and GLB's done status field of each group.
pub struct Engine {
    pub(super) layer_ready: &'static str,
    pub(super) done: &'static str,
    pub(super) running: &'static str,
    pub units: &'static [&'static str],
    pub done_fields: [&'static str; 2],
}

/// The engines: a layer starts when both units' consumer groups are enabled (off-flying
/// mode needs the read DMA and the unit), and its done ends both groups and sets the unit's
/// GLB done status (seeds/001 "Ping-pong Synchronization Mechanism", "Host interrupt").
///
/// Decision (docs/nvdla.md "Register groups"): the convolution core's five units are one
/// engine. seeds/001 programs a convolution layer by enabling all five (CDMA, CSC, CMAC_A,
/// CMAC_B, CACC; the dc traces write each D_OP_ENABLE), and none of them can run alone: CSC
/// waits on CDMA's CBUF, CMAC on CSC, CACC on CMAC. So the layer starts when all five
/// consumer groups are enabled and ends all five at once, when SDP has taken CACC's last
/// atom; its done sets CACC_DONE_STATUS (CDMA_DAT_DONE and CDMA_WT_DONE come from CDMA's
/// `conv_dat_done` and `conv_wt_done`).
pub const ENGINES: [Engine; 4] = [
    Engine { layer_ready: "layer_ready", done: "done", running: "running", units: &["SDP_RDMA", "SDP"], done_fields: ["SDP_DONE_STATUS0", "SDP_DONE_STATUS1"] },
    Engine { layer_ready: "pdp_layer_ready", done: "pdp_done", running: "pdp_running", units: &["PDP_RDMA", "PDP"], done_fields: ["PDP_DONE_STATUS0", "PDP_DONE_STATUS1"] },
    Engine { layer_ready: "cdp_layer_ready", done: "cdp_done", running: "cdp_running", units: &["CDP_RDMA", "CDP"], done_fields: ["CDP_DONE_STATUS0", "CDP_DONE_STATUS1"] },
    Engine {
        layer_ready: "conv_layer_ready",
        done: "conv_done",
        running: "conv_running",
        units: &["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"],
        done_fields: ["CACC_DONE_STATUS0", "CACC_DONE_STATUS1"],
    },
];

/// The unit a flying SDP layer leaves alone (docs/nvdla.md "Convolution engine"): with SDP's
/// consumer group in flying mode (`sdp_flying_mode`) the SDP engine's layer needs SDP's group
/// alone, and while it runs (`sdp_flying`) SDP_RDMA's group neither reads running nor ends.
pub const FLYING_SKIPS: &str = "SDP_RDMA";

/// GLB's status fields CDMA's fetches raise, in CDMA's consumer group, with their ports.
pub(super) const CDMA_DONES: [(&str, [&str; 2]); 2] =
    [("conv_dat_done", ["CDMA_DAT_DONE_STATUS0", "CDMA_DAT_DONE_STATUS1"]), ("conv_wt_done", ["CDMA_WT_DONE_STATUS0", "CDMA_WT_DONE_STATUS1"])];

impl Engine {
    /// The unit whose consumer group names the GLB done status bit.
    pub(super) fn last_unit(&self) -> &'static str {
        self.units[self.units.len() - 1]
    }
}


/// The engine whose groups `unit` holds.
pub fn engine_of(unit: &str) -> &'static Engine {
    ENGINES.iter().find(|e| e.units.contains(&unit)).expect("a grouped unit belongs to an engine")
}

/// GLB's done status sources, in the order of [`super::csb_glb::CsbGlb`]'s `done` and `consumer` bits: each
/// engine's done (with its last unit, whose consumer group names the bit), then CDMA's fetch
/// dones (CDMA's), each with GLB's status field of each group.
pub fn done_sources() -> Vec<(&'static str, &'static str, [&'static str; 2])> {
    let engines = ENGINES.iter().map(|e| (e.done, e.last_unit(), e.done_fields));
    engines.chain(CDMA_DONES.iter().map(|&(port, fields)| (port, "CDMA", fields))).collect()
}

/// The number of [`done_sources`].
pub const DONE_SOURCES: usize = ENGINES.len() + CDMA_DONES.len();
