//! SDP in off-flying mode, with its read DMA (seeds/001 "Single Data Point Processor"):
//! SDP_RDMA reads the input cube atom by atom through the DBB-style memory port (and, when
//! its BRDMA and NRDMA are on, the BS and BN operand atoms at the same position of their
//! cubes, one int8 per lane), the BS and BN stages ([`super::sdp_x`]), the
//! EW stage ([`super::sdp_y`], register operands) and the output converter process each of
//! the atom's 8 lanes, and SDP's write DMA writes the atom back.
//! RTL: `npu_hdl::nvdla::sdp::Sdp`; docs/nvdla.md, "SDP in bypass" and "SDP's BS and BN
//! stages".
use super::convert::{convert_lanes, ATOM};
use super::unpack::lanes;
use super::sdp_x::XConfig;
use super::sdp_y::YConfig;
use super::sdp_lut::LutConfig;
use super::cdp_dp::LutTables;
use super::csb::Csb;
use npu_hdl::nvdla::csb::{engine_of, Engine};
use npu_hdl::nvdla::regmap;

/// The registered memory request an engine drives (docs/nvdla.md, "Memory port").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryRequest {
    pub valid: bool,
    pub write: bool,
    pub addr: u64,
    pub wdata: u64,
}

/// The SDP engine's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// Asking the memory for the current input atom.
    ReadRequest,
    /// Waiting for its data.
    ReadWait,
    /// Writing the converted atom.
    WriteRequest,
    /// Asking for the BS operand atom (BRDMA), waiting for it.
    BsRequest,
    BsWait,
    /// Asking for the BN operand atom (NRDMA), waiting for it.
    BnRequest,
    BnWait,
}

/// An operand cube SDP_RDMA reads per element (BRDMA or NRDMA): base, line and surface
/// strides.
#[derive(Clone, Copy, Debug, Default)]
struct OperandCube {
    base: u64,
    line: u64,
    surface: u64,
}

/// The configuration of one layer, taken from the consumer groups when it starts.
#[derive(Clone, Copy, Debug, Default)]
struct Layer {
    width: u64,
    height: u64,
    surfaces: u64,
    src: u64,
    src_line: u64,
    src_surface: u64,
    dst: u64,
    dst_line: u64,
    dst_surface: u64,
    cvt_offset: i32,
    cvt_scale: i16,
    cvt_shift: u32,
    bs: XConfig,
    bn: XConfig,
    ew: YConfig,
    /// BRDMA's and NRDMA's cubes, when on.
    bs_cube: Option<OperandCube>,
    bn_cube: Option<OperandCube>,
}

impl Layer {
    /// SDP_RDMA's `dma` operand read (BRDMA, NRDMA) of the stage `stage`'s cube, if on.
    fn operand_cube(r: &super::csb::UnitRegisters, dma: &str, stage: &str) -> Option<OperandCube> {
        let disable = regmap::field("SDP_RDMA", &format!("D_{dma}_CFG"), &format!("{dma}_DISABLE"));
        let on = r.consumed(&format!("D_{dma}_CFG")) & disable.mask() == 0;
        on.then(|| OperandCube {
            base: u64::from(r.consumed(&format!("D_{stage}_BASE_ADDR_HIGH"))) << 32 | u64::from(r.consumed(&format!("D_{stage}_BASE_ADDR_LOW"))),
            line: u64::from(r.consumed(&format!("D_{stage}_LINE_STRIDE"))),
            surface: u64::from(r.consumed(&format!("D_{stage}_SURFACE_STRIDE"))),
        })
    }

    fn from_registers(csb: &Csb) -> Self {
        let (r, s) = (csb.unit("SDP_RDMA"), csb.unit("SDP"));
        let wide = |low: u32, high: u32| u64::from(high) << 32 | u64::from(low);
        Layer {
            width: u64::from(r.consumed("D_DATA_CUBE_WIDTH")) + 1,
            height: u64::from(r.consumed("D_DATA_CUBE_HEIGHT")) + 1,
            surfaces: (u64::from(r.consumed("D_DATA_CUBE_CHANNEL")) + ATOM) / ATOM,
            src: wide(r.consumed("D_SRC_BASE_ADDR_LOW"), r.consumed("D_SRC_BASE_ADDR_HIGH")),
            src_line: u64::from(r.consumed("D_SRC_LINE_STRIDE")),
            src_surface: u64::from(r.consumed("D_SRC_SURFACE_STRIDE")),
            dst: wide(s.consumed("D_DST_BASE_ADDR_LOW"), s.consumed("D_DST_BASE_ADDR_HIGH")),
            dst_line: u64::from(s.consumed("D_DST_LINE_STRIDE")),
            dst_surface: u64::from(s.consumed("D_DST_SURFACE_STRIDE")),
            cvt_offset: s.consumed("D_CVT_OFFSET") as i32,
            cvt_scale: s.consumed("D_CVT_SCALE") as u16 as i16,
            cvt_shift: s.consumed("D_CVT_SHIFT"),
            bs: XConfig::from_registers(s, "BS"),
            bn: XConfig::from_registers(s, "BN"),
            ew: YConfig::from_registers(s),
            bs_cube: Self::operand_cube(r, "BRDMA", "BS"),
            bn_cube: Self::operand_cube(r, "NRDMA", "BN"),
        }
    }
}

/// The engine's units (whose consumer groups a layer runs on) and GLB done status fields, as
/// the CSB's engine table has them.
pub fn engine() -> &'static Engine {
    engine_of("SDP")
}

#[derive(Clone, Debug, Default)]
pub struct Sdp {
    state: State,
    layer: Layer,
    /// Position of the current atom: x, y, surface.
    x: u64,
    y: u64,
    surface: u64,
    /// The input atom and the BS operand atom, kept while the atom's later reads run.
    input: u64,
    bs_data: u64,
    bn_data: u64,
    request: MemoryRequest,
}

impl Sdp {
    /// Working on a layer (S_STATUS RUNNING).
    pub fn running(&self) -> bool {
        self.state != State::Idle
    }

    /// The memory request driven in this cycle.
    pub fn request(&self) -> MemoryRequest {
        self.request
    }

    /// SDP_RDMA's and SDP's consumer groups are both enabled (off-flying mode needs both).
    pub fn may_start(csb: &Csb) -> bool {
        engine().units.iter().all(|u| csb.unit(u).ready())
    }

    fn atom_address(&self, base: u64, line: u64, surface: u64) -> u64 {
        base.wrapping_add(self.surface.wrapping_mul(surface)).wrapping_add(self.y.wrapping_mul(line)).wrapping_add(self.x * ATOM)
    }

    /// The data of the read in state `wait` came (kept already): ask for the atom's next
    /// operand, or process the atom and write it. The atom is processed in the cycle its last
    /// read's data comes; an operand read that is off gives 0 operands.
    fn after_read(&mut self, wait: State, lut: &LutConfig, tables: &LutTables) {
        let l = self.layer;
        let next = match (wait, l.bs_cube, l.bn_cube) {
            (State::ReadWait, Some(c), _) => Some((State::BsRequest, c)),
            (State::ReadWait | State::BsWait, _, Some(c)) => Some((State::BnRequest, c)),
            _ => None,
        };
        if let Some((state, c)) = next {
            self.request.addr = self.atom_address(c.base, c.line, c.surface);
            self.state = state;
            return;
        }
        let bs_operands = if l.bs_cube.is_some() { self.bs_data } else { 0 };
        let bn_operands = if l.bn_cube.is_some() { self.bn_data } else { 0 };
        let processed = std::array::from_fn(|k| {
            let operand = |atom: u64| i16::from((atom >> (8 * k)) as u8 as i8);
            lut.lane(l.ew.lane(l.bn.lane(l.bs.lane(lanes(self.input)[k], operand(bs_operands)), operand(bn_operands))), tables)
        });
        self.request.wdata = convert_lanes(processed, l.cvt_offset, l.cvt_scale, l.cvt_shift);
        self.request.addr = self.atom_address(l.dst, l.dst_line, l.dst_surface);
        self.state = State::WriteRequest;
    }

    /// One clock edge. `may_start` is [`Self::may_start`] on the registers as they were
    /// before the edge's CSB write (a write enabling a group starts the layer at the next
    /// edge); `ready` is the memory taking this cycle's request, `response` read data; `lut`
    /// the EW stage's LUT configuration and `tables` its tables, as they were before the edge.
    #[allow(clippy::too_many_arguments)]
    pub fn clock(&mut self, may_start: bool, csb: &mut Csb, ready: bool, response: Option<u64>, lut: &LutConfig, tables: &LutTables, events: &mut Vec<&'static str>) {
        let l = self.layer;
        match self.state {
            State::Idle if may_start => {
                self.layer = Layer::from_registers(csb);
                (self.x, self.y, self.surface) = (0, 0, 0);
                self.state = State::ReadRequest;
                self.request.addr = self.atom_address(self.layer.src, self.layer.src_line, self.layer.src_surface);
                events.push("sdp start");
            }
            State::Idle => {}
            State::ReadRequest if ready => self.state = State::ReadWait,
            State::ReadRequest => events.push("read stall"),
            State::ReadWait => match response {
                Some(data) => {
                    self.input = data;
                    self.after_read(State::ReadWait, lut, tables);
                }
                None => events.push("read wait"),
            },
            State::BsRequest if ready => self.state = State::BsWait,
            State::BnRequest if ready => self.state = State::BnWait,
            State::BsRequest | State::BnRequest => events.push("operand read stall"),
            State::BsWait | State::BnWait => match response {
                Some(data) => {
                    if self.state == State::BsWait {
                        self.bs_data = data;
                    } else {
                        self.bn_data = data;
                    }
                    events.push(if self.state == State::BsWait { "bs operand" } else { "bn operand" });
                    self.after_read(self.state, lut, tables);
                }
                None => events.push("operand wait"),
            },
            State::WriteRequest if ready => {
                self.x += 1;
                if self.x == l.width {
                    (self.x, self.y) = (0, self.y + 1);
                    if self.y == l.height {
                        (self.y, self.surface) = (0, self.surface + 1);
                    }
                }
                if self.surface == l.surfaces {
                    csb.finish(&engine().units, engine().done_fields);
                    self.state = State::Idle;
                    events.push("sdp done");
                } else {
                    self.request.addr = self.atom_address(l.src, l.src_line, l.src_surface);
                    self.state = State::ReadRequest;
                    events.push("atom");
                }
            }
            State::WriteRequest => events.push("write stall"),
        }
        self.request.valid = matches!(self.state, State::ReadRequest | State::WriteRequest | State::BsRequest | State::BnRequest);
        self.request.write = self.state == State::WriteRequest;
    }
}
