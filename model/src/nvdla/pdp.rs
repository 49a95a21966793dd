//! PDP in off-flying mode with its read DMA (seeds/001 "Planar Data Processor"): for each
//! output atom the engine walks the pooling window line by line, reads each element that lies
//! in the input cube, folds it into 8 running lane values (`super::pool`) and writes the
//! pooled atom. RTL: `npu_hdl::nvdla::pdp::Pdp`; docs/nvdla.md "PDP".
use super::convert::ATOM;
use super::csb::Csb;
use super::cube_walk::{Cube, Walk};
use npu_hdl::nvdla::csb::{engine_of, Engine};
use super::pool::{pad_value, pooled, step};
use super::sdp::MemoryRequest;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// At a window element: read it if it is in the cube, else fold in only padding.
    Step,
    ReadRequest,
    ReadWait,
    /// The window is done: the pooled atom is formed.
    Finish,
    WriteRequest,
}

/// The configuration of one layer, taken from the consumer groups when it starts (each size
/// as a count, not the register's count minus 1).
#[derive(Clone, Copy, Debug, Default)]
struct Layer {
    width: i64,
    height: i64,
    surfaces: u64,
    src: u64,
    src_line: u64,
    src_surface: u64,
    out_width: u64,
    out_height: u64,
    method: u32,
    kernel_width: i64,
    kernel_height: i64,
    stride_width: i64,
    stride_height: i64,
    pad_left: i64,
    pad_top: i64,
    recip_width: u32,
    recip_height: u32,
    pad_values: [u32; 7],
    dst: u64,
    dst_line: u64,
    dst_surface: u64,
}

impl Layer {
    fn from_registers(csb: &Csb) -> Self {
        let (r, p) = (csb.unit("PDP_RDMA"), csb.unit("PDP"));
        let wide = |low: u32, high: u32| u64::from(high) << 32 | u64::from(low);
        let kernel = p.consumed("D_POOLING_KERNEL_CFG");
        let padding = p.consumed("D_POOLING_PADDING_CFG");
        let field = |v: u32, lsb: u32, width: u32| i64::from(v >> lsb & ((1 << width) - 1));
        Layer {
            width: i64::from(r.consumed("D_DATA_CUBE_IN_WIDTH")) + 1,
            height: i64::from(r.consumed("D_DATA_CUBE_IN_HEIGHT")) + 1,
            surfaces: (u64::from(r.consumed("D_DATA_CUBE_IN_CHANNEL")) + ATOM) / ATOM,
            src: wide(r.consumed("D_SRC_BASE_ADDR_LOW"), r.consumed("D_SRC_BASE_ADDR_HIGH")),
            src_line: u64::from(r.consumed("D_SRC_LINE_STRIDE")),
            src_surface: u64::from(r.consumed("D_SRC_SURFACE_STRIDE")),
            out_width: u64::from(p.consumed("D_DATA_CUBE_OUT_WIDTH")) + 1,
            out_height: u64::from(p.consumed("D_DATA_CUBE_OUT_HEIGHT")) + 1,
            method: p.consumed("D_OPERATION_MODE_CFG") & 3,
            kernel_width: field(kernel, 0, 4) + 1,
            kernel_height: field(kernel, 8, 4) + 1,
            stride_width: field(kernel, 16, 4) + 1,
            stride_height: field(kernel, 20, 4) + 1,
            pad_left: field(padding, 0, 3),
            pad_top: field(padding, 4, 3),
            recip_width: p.consumed("D_RECIP_KERNEL_WIDTH"),
            recip_height: p.consumed("D_RECIP_KERNEL_HEIGHT"),
            pad_values: std::array::from_fn(|k| p.consumed(&format!("D_POOLING_PADDING_VALUE_{}_CFG", k + 1))),
            dst: wide(p.consumed("D_DST_BASE_ADDR_LOW"), p.consumed("D_DST_BASE_ADDR_HIGH")),
            dst_line: u64::from(p.consumed("D_DST_LINE_STRIDE")),
            dst_surface: u64::from(p.consumed("D_DST_SURFACE_STRIDE")),
        }
    }
}

/// The engine's units (whose consumer groups a layer runs on) and GLB done status fields, as
/// the CSB's engine table has them.
pub fn engine() -> &'static Engine {
    engine_of("PDP")
}

/// Padded positions of a window starting at `start` with `kernel` elements over a cube line
/// of `size`: those before 0 and those after `size - 1`, at most 8 (PAD_VALUE_8X does not
/// exist: it adds 0).
fn padded(start: i64, kernel: i64, size: i64) -> u64 {
    ((-start).max(0) + (start + kernel - size).max(0)).min(8) as u64
}

#[derive(Clone, Debug, Default)]
pub struct Pdp {
    state: State,
    layer: Layer,
    /// The output cube's walk: the pooled atom's position (ox, oy, surface) and address.
    out_walk: Walk,
    kx: i64,
    ky: i64,
    lanes: [i16; 8],
    first: bool,
    request: MemoryRequest,
}

impl Pdp {
    /// Working on a layer (S_STATUS RUNNING).
    pub fn running(&self) -> bool {
        self.state != State::Idle
    }

    /// The memory request driven in this cycle.
    pub fn request(&self) -> MemoryRequest {
        self.request
    }

    /// PDP_RDMA's and PDP's consumer groups are both enabled (off-flying mode needs both).
    pub fn may_start(csb: &Csb) -> bool {
        engine().units.iter().all(|u| csb.unit(u).ready())
    }

    /// The window's first column and line.
    fn window(&self) -> (i64, i64) {
        let (l, w) = (&self.layer, &self.out_walk);
        (w.index(0) as i64 * l.stride_width - l.pad_left, w.index(1) as i64 * l.stride_height - l.pad_top)
    }

    fn out_cube(&self) -> Cube {
        let l = &self.layer;
        Cube::atoms(l.dst, l.dst_line, l.dst_surface, l.out_width, l.out_height, l.surfaces)
    }

    /// The current element folded in (`atom` when it was read): the window's next element,
    /// or the pooled atom when the window is done.
    fn fold(&mut self, atom: Option<u64>) {
        let l = self.layer;
        let (wx, wy) = self.window();
        let y_inside = (0..l.height).contains(&(wy + self.ky));
        let mut pad = 0i16;
        if self.kx == l.kernel_width - 1 && y_inside {
            pad = pad.wrapping_add(pad_value(&l.pad_values, padded(wx, l.kernel_width, l.width)));
        }
        if self.ky == l.kernel_height - 1 {
            pad = pad.wrapping_add(pad_value(&l.pad_values, padded(wy, l.kernel_height, l.height)));
        }
        self.lanes = step(self.lanes, atom, l.method, self.first, pad);
        self.first = false;
        self.kx += 1;
        self.state = State::Step;
        if self.kx == l.kernel_width {
            self.kx = 0;
            self.ky += 1;
            if self.ky == l.kernel_height {
                self.ky = 0;
                self.state = State::Finish;
            }
        }
    }

    /// One clock edge (as `Sdp::clock`).
    pub fn clock(&mut self, may_start: bool, csb: &mut Csb, ready: bool, response: Option<u64>, events: &mut Vec<&'static str>) {
        let l = self.layer;
        match self.state {
            State::Idle if may_start => {
                self.layer = Layer::from_registers(csb);
                self.out_walk = Walk::start(self.layer.dst);
                (self.kx, self.ky, self.first) = (0, 0, true);
                self.state = State::Step;
                events.push("pdp start");
            }
            State::Idle => {}
            State::Step => {
                let (wx, wy) = self.window();
                let (ix, iy) = (wx + self.kx, wy + self.ky);
                if (0..l.width).contains(&ix) && (0..l.height).contains(&iy) {
                    let plane = l.src.wrapping_add(self.out_walk.index(2).wrapping_mul(l.src_surface));
                    self.request.addr = plane.wrapping_add((iy as u64).wrapping_mul(l.src_line)).wrapping_add(ix as u64 * ATOM);
                    self.state = State::ReadRequest;
                    events.push("pdp element read");
                } else {
                    self.fold(None);
                    events.push("pdp element padded");
                }
            }
            State::ReadRequest if ready => self.state = State::ReadWait,
            State::ReadRequest => events.push("read stall"),
            State::ReadWait => match response {
                Some(data) => self.fold(Some(data)),
                None => events.push("read wait"),
            },
            State::Finish => {
                self.request.wdata = pooled(self.lanes, l.method, l.recip_width, l.recip_height);
                self.request.addr = self.out_walk.addr();
                self.state = State::WriteRequest;
            }
            State::WriteRequest if ready => {
                self.first = true;
                self.state = State::Step;
                let (cube, last) = (self.out_cube(), self.out_walk.last(&self.out_cube()));
                self.out_walk.step(&cube);
                if last {
                    csb.finish(&engine().units, engine().done_fields);
                    self.state = State::Idle;
                    events.push("pdp done");
                } else {
                    events.push("pdp atom");
                }
            }
            State::WriteRequest => events.push("write stall"),
        }
        self.request.valid = matches!(self.state, State::ReadRequest | State::WriteRequest);
        self.request.write = self.state == State::WriteRequest;
    }
}
