//! The convolution core as one engine (seeds/001, "Convolution core"): CDMA ([`Cdma`]), CBUF
//! and CSC ([`CscCbuf`]), CMAC ([`Cmac`]) and CACC ([`Cacc`]), each the cycle-level model of
//! its RTL block, wired together and to the register groups of CDMA, CSC, CMAC_A, CMAC_B and
//! CACC (one engine of five units, docs/nvdla.md "Register groups"). CACC's atoms go to SDP in
//! flying mode ([`super::sdp`]), through [`ConvCore::clock`]'s `sdp_ready` and its result.
//! docs/nvdla.md, "Convolution engine", has the timing and the decisions.
//!
//! A layer, from the cycle t in which all five consumer groups are enabled and the engine is
//! idle: CDMA takes `start` in t (its check in t + 1, its verdict in t + 2). A refused layer
//! (CDMA's `error`, CBUF cannot hold it) ends in t + 2: nothing fetched, nothing delivered,
//! the five groups end with CACC_DONE, and a flying SDP layer waiting for atoms ends too
//! (SDP_DONE, nothing written). Otherwise CSC takes `start` in t + 2 and waits for CDMA's
//! kernel groups; CDMA's `dat_done` and `wt_done` set GLB's CDMA_DAT_DONE and CDMA_WT_DONE of
//! CDMA's group; CSC's `hold` is CACC's `busy_full` of the cycle before (a register); the
//! layer ends in the cycle SDP takes CACC's atom tagged `out_layer_last` (CACC_DONE).
use super::cacc::{self, Cacc};
use super::cdma::{self, Cdma};
use super::cmac::Cmac;
use super::csb::Csb;
use super::csc_cbuf::{self, CscCbuf};
use super::sdp::MemoryRequest;
use crate::Block;
use npu_hdl::nvdla::csb::{engine_of, Engine};

/// The engine's units (CDMA, CSC, CMAC_A, CMAC_B, CACC) and GLB done status fields (CACC's).
pub fn engine() -> &'static Engine {
    engine_of("CDMA")
}

/// GLB's status fields CDMA's fetches raise.
const DAT_DONE: [&str; 2] = ["CDMA_DAT_DONE_STATUS0", "CDMA_DAT_DONE_STATUS1"];
const WT_DONE: [&str; 2] = ["CDMA_WT_DONE_STATUS0", "CDMA_WT_DONE_STATUS1"];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// CDMA checks the layer (cycles t + 1 and t + 2 of a start in t).
    Check,
    Verdict,
    Running,
}

/// What the engine did towards SDP and the host in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// CACC's atom SDP took this cycle (8 int32 values).
    pub atom: Option<[i32; 8]>,
    /// CDMA refused the layer this cycle: the layer ended without output.
    pub refused: bool,
}

#[derive(Default)]
pub struct ConvCore {
    state: State,
    cdma: Cdma,
    csc: CscCbuf,
    cmac: Cmac,
    cacc: Cacc,
    /// The layer's ports, from the consumer groups when it starts (they cannot change while
    /// the groups are enabled).
    cdma_in: cdma::In,
    csc_in: csc_cbuf::In,
    clip_truncate: u8,
    /// CACC's `busy_full` of the cycle before: CSC's `hold`.
    hold: bool,
}

/// CDMA's ports from the consumer groups: its own registers, and the kernel size from CSC's
/// D_WEIGHT_SIZE_EXT_0 (CDMA has only the bytes per kernel).
fn cdma_ports(csb: &Csb) -> cdma::In {
    let (d, c) = (csb.unit("CDMA"), csb.unit("CSC"));
    let wide = |low: &str, high: &str| u64::from(d.consumed(high)) << 32 | u64::from(d.consumed(low));
    cdma::In {
        width: d.consumed_field("D_DATAIN_SIZE_0", "DATAIN_WIDTH") as u16,
        height: d.consumed_field("D_DATAIN_SIZE_0", "DATAIN_HEIGHT") as u16,
        channel: d.consumed_field("D_DATAIN_SIZE_1", "DATAIN_CHANNEL") as u16,
        feature_base: wide("D_DAIN_ADDR_LOW_0", "D_DAIN_ADDR_HIGH_0"),
        line_stride: d.consumed("D_LINE_STRIDE"),
        surface_stride: d.consumed("D_SURF_STRIDE"),
        weight_base: wide("D_WEIGHT_ADDR_LOW", "D_WEIGHT_ADDR_HIGH"),
        kernel_width: c.consumed_field("D_WEIGHT_SIZE_EXT_0", "WEIGHT_WIDTH_EXT") as u8,
        kernel_height: c.consumed_field("D_WEIGHT_SIZE_EXT_0", "WEIGHT_HEIGHT_EXT") as u8,
        kernels: d.consumed_field("D_WEIGHT_SIZE_1", "WEIGHT_KERNEL") as u16,
        data_bank: d.consumed_field("D_BANK", "DATA_BANK") as u8,
        weight_bank: d.consumed_field("D_BANK", "WEIGHT_BANK") as u8,
        cvt_en: d.consumed_field("D_CVT_CFG", "CVT_EN") != 0,
        cvt_offset: d.consumed_field("D_CVT_OFFSET", "CVT_OFFSET") as u16,
        cvt_scale: d.consumed_field("D_CVT_SCALE", "CVT_SCALE") as u16,
        cvt_truncate: d.consumed_field("D_CVT_CFG", "CVT_TRUNCATE") as u8,
        ..cdma::In::default()
    }
}

/// CSC's ports from its consumer group.
fn csc_ports(csb: &Csb) -> csc_cbuf::In {
    let c = csb.unit("CSC");
    let f = |register: &str, field: &str| c.consumed_field(register, field);
    csc_cbuf::In {
        datain_width_ext: f("D_DATAIN_SIZE_EXT_0", "DATAIN_WIDTH_EXT") as u16,
        datain_height_ext: f("D_DATAIN_SIZE_EXT_0", "DATAIN_HEIGHT_EXT") as u16,
        datain_channel_ext: f("D_DATAIN_SIZE_EXT_1", "DATAIN_CHANNEL_EXT") as u16,
        weight_width_ext: f("D_WEIGHT_SIZE_EXT_0", "WEIGHT_WIDTH_EXT") as u8,
        weight_height_ext: f("D_WEIGHT_SIZE_EXT_0", "WEIGHT_HEIGHT_EXT") as u8,
        weight_kernel: f("D_WEIGHT_SIZE_EXT_1", "WEIGHT_KERNEL") as u16,
        conv_x_stride_ext: f("D_CONV_STRIDE_EXT", "CONV_X_STRIDE_EXT") as u8,
        conv_y_stride_ext: f("D_CONV_STRIDE_EXT", "CONV_Y_STRIDE_EXT") as u8,
        x_dilation_ext: f("D_DILATION_EXT", "X_DILATION_EXT") as u8,
        y_dilation_ext: f("D_DILATION_EXT", "Y_DILATION_EXT") as u8,
        pad_left: f("D_ZERO_PADDING", "PAD_LEFT") as u8,
        pad_top: f("D_ZERO_PADDING", "PAD_TOP") as u8,
        dataout_width: f("D_DATAOUT_SIZE_0", "DATAOUT_WIDTH") as u16,
        dataout_height: f("D_DATAOUT_SIZE_0", "DATAOUT_HEIGHT") as u16,
        pad_value: f("D_ZERO_PADDING_VALUE", "PAD_VALUE") as u16,
        data_bank: f("D_BANK", "DATA_BANK") as u8,
        ..csc_cbuf::In::default()
    }
}

impl ConvCore {
    /// All five units' consumer groups are enabled.
    pub fn may_start(csb: &Csb) -> bool {
        engine().units.iter().all(|u| csb.unit(u).ready())
    }

    /// Working on a layer (the five units' S_STATUS RUNNING).
    pub fn running(&self) -> bool {
        self.state != State::Idle
    }

    /// CDMA's memory request in this cycle (reads only).
    pub fn request(&self) -> MemoryRequest {
        let o = self.cdma.outputs(&self.cdma_in);
        MemoryRequest { valid: o.dbb_req_valid, write: false, addr: o.dbb_req_addr, wdata: 0 }
    }

    /// One clock edge. `may_start` is [`Self::may_start`] on the registers before the edge's
    /// CSB write; `ready` the memory taking CDMA's request, `response` CDMA's read data;
    /// `sdp_ready` SDP waiting for an atom (flying mode). Returns what SDP takes.
    pub fn clock(&mut self, may_start: bool, csb: &mut Csb, ready: bool, response: Option<u64>, sdp_ready: bool, events: &mut Vec<&'static str>) -> Delivered {
        let start = self.state == State::Idle && may_start;
        if start {
            self.cdma_in = cdma_ports(csb);
            self.csc_in = csc_ports(csb);
            self.clip_truncate = csb.unit("CACC").consumed_field("D_CLIP_CFG", "CLIP_TRUNCATE") as u8;
            events.push("conv start");
        }
        let csc_out = self.csc.outputs();
        let cdma_in = cdma::In { start, dbb_req_ready: ready, dbb_resp_valid: response.is_some(), dbb_resp_data: response.unwrap_or(0), wants_weights: csc_out.wants_weights, ..self.cdma_in.clone() };
        let d = self.cdma.step(&cdma_in);
        events.extend(self.cdma.events().iter().filter(|&&e| e != "idle"));
        let csc_start = self.state == State::Verdict && !d.error;
        let csc_in = csc_cbuf::In { wr_valid: d.cbuf_wr_valid, wr_entry: d.cbuf_wr_entry, wr_data: d.cbuf_wr_data, start: csc_start, weights_ready: d.weights_ready, hold: self.hold, ..self.csc_in.clone() };
        self.csc.step(&csc_in);
        events.extend_from_slice(self.csc.events());
        let p = self.cmac.step(&csc_out.cmac());
        let a = self.cacc.step(&p.cacc(self.clip_truncate, sdp_ready));
        events.extend_from_slice(self.cacc.events());
        self.hold = a.busy_full;
        if d.dat_done {
            csb.raise("CDMA", DAT_DONE);
            events.push("cdma dat done");
        }
        if d.wt_done {
            csb.raise("CDMA", WT_DONE);
            events.push("cdma wt done");
        }
        let taken = a.out_valid && sdp_ready;
        let mut delivered = Delivered { atom: taken.then(|| cacc::unpack_atom(a.out_data_lo, a.out_data_hi)), refused: false };
        self.state = match self.state {
            State::Idle if start => State::Check,
            State::Idle => State::Idle,
            State::Check => State::Verdict,
            State::Verdict if d.error => {
                delivered.refused = true;
                csb.finish(engine().units, engine().done_fields);
                events.push("conv refused");
                State::Idle
            }
            State::Verdict => State::Running,
            State::Running if taken && a.out_layer_last => {
                csb.finish(engine().units, engine().done_fields);
                events.push("conv done");
                State::Idle
            }
            State::Running => State::Running,
        };
        delivered
    }
}
