//! CDP in off-flying mode with its read DMA (seeds/001 "Channel Data Processor"): for each
//! (x, y) of the cube the engine reads its surfaces' atoms in order into three atom registers,
//! hands the datapath the window of each surface (`super::cdp_window`) and writes the
//! datapath's atom. RTL: `npu_hdl::nvdla::cdp::Cdp`; docs/nvdla.md "CDP".
use super::cdp_dp;
use super::cdp_window::{pad, padded, window};
use super::convert::ATOM;
use super::csb::Csb;
use super::cube_walk::{Cube, Walk};
use super::sdp::MemoryRequest;
use npu_hdl::nvdla::csb::{engine_of, Engine};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// At surface `k` of an (x, y): read it, or shift in padding past the cube.
    Step,
    ReadRequest,
    ReadWait,
    /// The window goes to the datapath.
    Window,
    /// Waiting for the datapath's atom.
    Datapath,
    WriteRequest,
}

/// The configuration of one layer, taken from the consumer groups when it starts.
#[derive(Clone, Copy, Debug, Default)]
struct Layer {
    width: u64,
    height: u64,
    /// CDP_RDMA's CHANNEL (channels minus 1).
    channel: u32,
    src: u64,
    src_line: u64,
    src_surface: u64,
    dst: u64,
    dst_line: u64,
    dst_surface: u64,
    datin_offset: u16,
}

impl Layer {
    fn from_registers(csb: &Csb) -> Self {
        let (r, c) = (csb.unit("CDP_RDMA"), csb.unit("CDP"));
        let wide = |low: u32, high: u32| u64::from(high) << 32 | u64::from(low);
        Layer {
            width: u64::from(r.consumed("D_DATA_CUBE_WIDTH")) + 1,
            height: u64::from(r.consumed("D_DATA_CUBE_HEIGHT")) + 1,
            channel: r.consumed("D_DATA_CUBE_CHANNEL"),
            src: wide(r.consumed("D_SRC_BASE_ADDR_LOW"), r.consumed("D_SRC_BASE_ADDR_HIGH")),
            src_line: u64::from(r.consumed("D_SRC_LINE_STRIDE")),
            src_surface: u64::from(r.consumed("D_SRC_SURFACE_STRIDE")),
            dst: wide(c.consumed("D_DST_BASE_ADDR_LOW"), c.consumed("D_DST_BASE_ADDR_HIGH")),
            dst_line: u64::from(c.consumed("D_DST_LINE_STRIDE")),
            dst_surface: u64::from(c.consumed("D_DST_SURFACE_STRIDE")),
            datin_offset: c.consumed("D_DATIN_OFFSET") as u16,
        }
    }

    /// The cube's 8-channel surfaces.
    fn surfaces(&self) -> u64 {
        u64::from(self.channel) / ATOM + 1
    }

    /// The input cube as read: the surfaces of an (x, y) first, and one more position past
    /// them (the padding surface, not read).
    fn read_cube(&self) -> Cube {
        Cube { base: self.src, strides: [self.src_surface, ATOM, self.src_line], last: [self.surfaces(), self.width - 1, self.height - 1] }
    }

    /// The output cube as written, in the same order.
    fn write_cube(&self) -> Cube {
        Cube { base: self.dst, strides: [self.dst_surface, ATOM, self.dst_line], last: [self.surfaces() - 1, self.width - 1, self.height - 1] }
    }
}

/// The datapath's inputs in a cycle (RTL: the CSB's `cdp_*` ports wired to `CdpDp` in
/// `NvSmall`): `registers` ([`datapath_registers`] of the CSB as it is), the engine's
/// `window`, and the LUT write of this cycle's CSB write (`csb_write`: address and data).
pub fn datapath_input(registers: &cdp_dp::In, csb: &Csb, window: Option<u128>, csb_write: Option<(u16, u32)>) -> cdp_dp::In {
    let lut_write = csb_write.and_then(|(address, data)| csb.lut_write("CDP", address, data));
    cdp_dp::In { in_valid: window.is_some(), in_window: window.unwrap_or(0), lut_we: lut_write.is_some(), lut_wdata: lut_write.unwrap_or(0), ..registers.clone() }
}

/// The datapath's inputs that are registers: CDP's (the consumer group's and the single
/// ones) and the LUT port's entry, from S_LUT_ACCESS_CFG; no window, no LUT write.
pub fn datapath_registers(csb: &Csb) -> cdp_dp::In {
    let c = csb.unit("CDP");
    let r = |name: &str| c.consumed(name);
    let bits = |name: &str, lsb: u32, width: u32| r(name) >> lsb & ((1u64 << width) - 1) as u32;
    let wide = |name: &str| u64::from(r(&format!("{name}_HIGH")) & 0x3f) << 32 | u64::from(r(&format!("{name}_LOW")));
    let (lut_table, lut_addr) = csb.lut_entry("CDP");
    cdp_dp::In {
        reset: false,
        in_valid: false,
        in_window: 0,
        normalz_len: bits("D_LRN_CFG", 0, 2) as u8,
        datin_offset: r("D_DATIN_OFFSET") as u16,
        datin_scale: r("D_DATIN_SCALE") as u16,
        datin_shifter: bits("D_DATIN_SHIFTER", 0, 5) as u8,
        datout_offset: r("D_DATOUT_OFFSET"),
        datout_scale: r("D_DATOUT_SCALE") as u16,
        datout_shifter: bits("D_DATOUT_SHIFTER", 0, 6) as u8,
        sqsum_bypass: bits("D_FUNC_BYPASS", 0, 1) != 0,
        mul_bypass: bits("D_FUNC_BYPASS", 1, 1) != 0,
        lut_le_function: bits("S_LUT_CFG", 0, 1) != 0,
        lut_uflow_priority: bits("S_LUT_CFG", 4, 1) != 0,
        lut_oflow_priority: bits("S_LUT_CFG", 5, 1) != 0,
        lut_hybrid_priority: bits("S_LUT_CFG", 6, 1) != 0,
        lut_le_index_offset: bits("S_LUT_INFO", 0, 8) as u8,
        lut_le_index_select: bits("S_LUT_INFO", 8, 8) as u8,
        lut_lo_index_select: bits("S_LUT_INFO", 16, 8) as u8,
        lut_le_start: wide("S_LUT_LE_START"),
        lut_le_end: wide("S_LUT_LE_END"),
        lut_lo_start: wide("S_LUT_LO_START"),
        lut_lo_end: wide("S_LUT_LO_END"),
        lut_le_slope_uflow_scale: bits("S_LUT_LE_SLOPE_SCALE", 0, 16) as u16,
        lut_le_slope_oflow_scale: bits("S_LUT_LE_SLOPE_SCALE", 16, 16) as u16,
        lut_lo_slope_uflow_scale: bits("S_LUT_LO_SLOPE_SCALE", 0, 16) as u16,
        lut_lo_slope_oflow_scale: bits("S_LUT_LO_SLOPE_SCALE", 16, 16) as u16,
        lut_le_slope_uflow_shift: bits("S_LUT_LE_SLOPE_SHIFT", 0, 5) as u8,
        lut_le_slope_oflow_shift: bits("S_LUT_LE_SLOPE_SHIFT", 5, 5) as u8,
        lut_lo_slope_uflow_shift: bits("S_LUT_LO_SLOPE_SHIFT", 0, 5) as u8,
        lut_lo_slope_oflow_shift: bits("S_LUT_LO_SLOPE_SHIFT", 5, 5) as u8,
        lut_we: false,
        lut_table,
        lut_addr,
        lut_wdata: 0,
        lut_rtable: lut_table,
        lut_raddr: lut_addr,
    }
}

/// The engine's units and GLB done status fields, as the CSB's engine table has them.
pub fn engine() -> &'static Engine {
    engine_of("CDP")
}

#[derive(Clone, Debug, Default)]
pub struct Cdp {
    state: State,
    layer: Layer,
    /// The surface shifted in next at its (x, y): 0 ..= surfaces (the last is padding).
    read_walk: Walk,
    /// The surface written next.
    write_walk: Walk,
    /// The atoms of surfaces k-3, k-2, k-1 at (x, y) once k is shifted in (padding outside).
    lower: u64,
    centre: u64,
    upper: u64,
    request: MemoryRequest,
}

impl Cdp {
    /// Working on a layer (S_STATUS RUNNING).
    pub fn running(&self) -> bool {
        self.state != State::Idle
    }

    /// The memory request driven in this cycle.
    pub fn request(&self) -> MemoryRequest {
        self.request
    }

    /// The window the engine hands the datapath in this cycle (`in_valid`, `in_window`).
    pub fn window(&self) -> Option<u128> {
        (self.state == State::Window).then(|| window(self.lower, self.centre, self.upper))
    }

    /// CDP_RDMA's and CDP's consumer groups are both enabled (off-flying mode needs both).
    pub fn may_start(csb: &Csb) -> bool {
        engine().units.iter().all(|u| csb.unit(u).ready())
    }

    fn shift_in(&mut self, atom: u64) {
        (self.lower, self.centre, self.upper) = (self.centre, self.upper, atom);
    }

    /// Back to an (x, y)'s start: every atom register padding.
    fn clear(&mut self) {
        let p = pad(self.layer.datin_offset);
        (self.lower, self.centre, self.upper) = (p, p, p);
    }

    /// One clock edge (as `Sdp::clock`); `dp_out` is the datapath's atom in this cycle.
    pub fn clock(&mut self, may_start: bool, csb: &mut Csb, ready: bool, response: Option<u64>, dp_out: Option<u64>, events: &mut Vec<&'static str>) {
        let l = self.layer;
        match self.state {
            State::Idle if may_start => {
                self.layer = Layer::from_registers(csb);
                (self.read_walk, self.write_walk) = (Walk::start(self.layer.src), Walk::start(self.layer.dst));
                self.clear();
                self.state = State::Step;
                events.push("cdp start");
            }
            State::Idle => {}
            State::Step if !self.read_walk.end(&l.read_cube(), 0) => {
                self.request.addr = self.read_walk.addr();
                self.state = State::ReadRequest;
            }
            State::Step => {
                self.shift_in(pad(l.datin_offset));
                self.state = State::Window;
                events.push("cdp surface past the cube");
            }
            State::ReadRequest if ready => self.state = State::ReadWait,
            State::ReadRequest => events.push("read stall"),
            State::ReadWait => match response {
                Some(data) => {
                    let k = self.read_walk.index(0);
                    let last = k == l.surfaces() - 1;
                    self.shift_in(padded(data, last, (l.channel & 7) as u8, l.datin_offset));
                    if last && l.channel & 7 != 7 {
                        events.push("cdp channels past the cube");
                    }
                    self.read_walk.step(&l.read_cube());
                    if k == 0 {
                        self.state = State::Step;
                    } else {
                        self.state = State::Window;
                    }
                }
                None => events.push("read wait"),
            },
            State::Window => self.state = State::Datapath,
            State::Datapath => {
                if let Some(atom) = dp_out {
                    self.request.wdata = atom;
                    self.request.addr = self.write_walk.addr();
                    self.state = State::WriteRequest;
                }
            }
            State::WriteRequest if ready => {
                self.state = State::Step;
                let cube = l.write_cube();
                let (end, last) = (self.write_walk.end(&cube, 0), self.write_walk.last(&cube));
                self.write_walk.step(&cube);
                if end {
                    // The (x, y) is done: both walks to the next (the read walk from its padding
                    // position).
                    self.read_walk.step(&l.read_cube());
                    self.clear();
                }
                if last {
                    csb.finish(&engine().units, engine().done_fields);
                    self.state = State::Idle;
                    events.push("cdp done");
                } else {
                    events.push("cdp atom");
                }
            }
            State::WriteRequest => events.push("write stall"),
        }
        self.request.valid = matches!(self.state, State::ReadRequest | State::WriteRequest);
        self.request.write = self.state == State::WriteRequest;
    }
}
