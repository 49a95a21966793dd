//! SDP in off-flying mode, with its read DMA (seeds/001 "Single Data Point Processor"):
//! SDP_RDMA reads the input cube atom by atom through the DBB-style memory port (and, when
//! its BRDMA and NRDMA are on, the atom's BS and BN operand words, per element or per
//! channel, [`super::sdp_operands`]), the BS and BN stages ([`super::sdp_x`]), the
//! EW stage ([`super::sdp_y`], register operands) and the output converter process each of
//! the atom's 8 lanes, and SDP's write DMA writes the atom back. In flying mode the input
//! atoms are CACC's, from the convolution engine ([`super::conv_core`]), and SDP_RDMA does
//! not run. RTL: `npu_hdl::nvdla::sdp::Sdp`; docs/nvdla.md, "SDP in bypass", "SDP's BS and
//! BN stages" and "Convolution engine".
use super::convert::{convert_lanes, ATOM};
use super::unpack::lanes;
use super::sdp_x::XConfig;
use super::sdp_y::YConfig;
use super::sdp_lut::LutConfig;
use super::sdp_operands::OperandRead;
use super::cdp_dp::LutTables;
use super::csb::Csb;
use super::conv_core::Delivered;
use npu_hdl::nvdla::csb::{engine_of, Engine};

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
    /// Flying mode: waiting for CACC's next atom (`ready` towards CACC).
    FlyWait,
}

/// The configuration of one layer, taken from the consumer groups when it starts.
#[derive(Clone, Copy, Debug, Default)]
struct Layer {
    /// D_FEATURE_MODE_CFG.FLYING_MODE: the input comes from CACC, not SDP_RDMA.
    flying: bool,
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
    /// BRDMA's and NRDMA's reads, when on.
    bs_cube: Option<OperandRead>,
    bn_cube: Option<OperandRead>,
}

impl Layer {
    fn from_registers(csb: &Csb, flying: bool) -> Self {
        let (r, s) = (csb.unit("SDP_RDMA"), csb.unit("SDP"));
        let wide = |low: u32, high: u32| u64::from(high) << 32 | u64::from(low);
        // The cube: SDP_RDMA's off the fly, SDP's own on the fly (SDP_RDMA does not run).
        let cube = if flying { s } else { r };
        Layer {
            flying,
            width: u64::from(cube.consumed("D_DATA_CUBE_WIDTH")) + 1,
            height: u64::from(cube.consumed("D_DATA_CUBE_HEIGHT")) + 1,
            surfaces: (u64::from(cube.consumed("D_DATA_CUBE_CHANNEL")) + ATOM) / ATOM,
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
            bs_cube: OperandRead::from_registers(r, "BRDMA", "BS"),
            bn_cube: OperandRead::from_registers(r, "NRDMA", "BN"),
        }
    }
}

/// The engine's units (whose consumer groups a layer runs on) and GLB done status fields, as
/// the CSB's engine table has them.
pub fn engine() -> &'static Engine {
    engine_of("SDP")
}

/// SDP's consumer group is in flying mode (D_FEATURE_MODE_CFG.FLYING_MODE): its input is
/// CACC's output and the layer runs on SDP's group alone (docs/nvdla.md "Convolution engine").
fn flying_mode(csb: &Csb) -> bool {
    csb.unit("SDP").consumed_field("D_FEATURE_MODE_CFG", "FLYING_MODE") != 0
}

/// The units whose groups a layer runs on: SDP alone in flying mode, else SDP_RDMA and SDP.
fn units(flying: bool) -> &'static [&'static str] {
    if flying { &engine().units[1..] } else { engine().units }
}

#[derive(Clone, Debug, Default)]
pub struct Sdp {
    state: State,
    layer: Layer,
    /// Position of the current atom: x, y, surface.
    x: u64,
    y: u64,
    surface: u64,
    /// The input atom and the operand words, kept while the atom's later reads run, and the
    /// operand word being read.
    input: u64,
    bs_data: [u64; 4],
    bn_data: [u64; 4],
    word: usize,
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

    /// The consumer group's layer is a flying one.
    fn flying_layer(&self, csb: &Csb) -> bool {
        flying_mode(csb)
    }

    /// SDP_RDMA's and SDP's consumer groups are both enabled (off-flying mode needs both);
    /// in flying mode SDP's alone.
    pub fn may_start(&self, csb: &Csb) -> bool {
        units(self.flying_layer(csb)).iter().all(|u| csb.unit(u).ready())
    }

    /// In a flying layer, waiting for CACC's next atom: SDP takes it this cycle if valid.
    pub fn flying_ready(&self) -> bool {
        self.state == State::FlyWait
    }

    /// The layer running is in flying mode (SDP_RDMA's group is not in it).
    pub fn flying(&self) -> bool {
        self.running() && self.layer.flying
    }

    fn atom_address(&self, base: u64, line: u64, surface: u64) -> u64 {
        base.wrapping_add(self.surface.wrapping_mul(surface)).wrapping_add(self.y.wrapping_mul(line)).wrapping_add(self.x * ATOM)
    }

    /// The data of the read in state `wait` came (kept already): ask for the operand read's
    /// next word, or the atom's next operand read, or process the atom and write it. The atom
    /// is processed in the cycle its last read's data comes; an operand read that is off gives
    /// 0 operands.
    fn after_read(&mut self, wait: State, lut: &LutConfig, tables: &LutTables) {
        let l = self.layer;
        let reading = match wait {
            State::BsWait => l.bs_cube,
            State::BnWait => l.bn_cube,
            _ => None,
        };
        if reading.is_some_and(|c| self.word as u64 + 1 < c.words()) {
            self.word += 1;
            self.request.addr = self.request.addr.wrapping_add(ATOM);
            self.state = if wait == State::BsWait { State::BsRequest } else { State::BnRequest };
            return;
        }
        self.word = 0;
        let next = match (wait, l.bs_cube, l.bn_cube) {
            (State::ReadWait, Some(c), _) => Some((State::BsRequest, c)),
            (State::ReadWait | State::BsWait, _, Some(c)) => Some((State::BnRequest, c)),
            _ => None,
        };
        if let Some((state, c)) = next {
            self.request.addr = c.address(self.x, self.y, self.surface);
            self.state = state;
            return;
        }
        let off = [(0, 0); 8];
        let bs_operands = l.bs_cube.map_or(off, |c| c.operands(&self.bs_data));
        let bn_operands = l.bn_cube.map_or(off, |c| c.operands(&self.bn_data));
        self.process(lanes(self.input), bs_operands, bn_operands, lut, tables);
    }

    /// The atom's 8 input lanes through BS, BN, EW (and its LUT) and the converter, into the
    /// write request of the current position.
    fn process(&mut self, input: [i32; 8], bs_operands: [(i16, i16); 8], bn_operands: [(i16, i16); 8], lut: &LutConfig, tables: &LutTables) {
        let l = self.layer;
        let processed = std::array::from_fn(|k| {
            let (bs_alu, bs_mul) = bs_operands[k];
            let (bn_alu, bn_mul) = bn_operands[k];
            lut.lane(l.ew.lane(l.bn.lane(l.bs.lane(input[k], bs_alu, bs_mul), bn_alu, bn_mul)), tables)
        });
        self.request.wdata = convert_lanes(processed, l.cvt_offset, l.cvt_scale, l.cvt_shift);
        self.request.addr = self.atom_address(l.dst, l.dst_line, l.dst_surface);
        self.state = State::WriteRequest;
    }

    /// One clock edge. `may_start` is [`Self::may_start`] on the registers as they were
    /// before the edge's CSB write (a write enabling a group starts the layer at the next
    /// edge); `ready` is the memory taking this cycle's request, `response` read data; `lut`
    /// the EW stage's LUT configuration and `tables` its tables, as they were before the edge;
    /// `conv` what the convolution engine delivers (in flying mode: CACC's atom taken in
    /// [`Self::flying_ready`], or the engine's refusal of its layer, which ends a flying layer
    /// waiting for an atom without writing).
    #[allow(clippy::too_many_arguments)]
    pub fn clock(&mut self, may_start: bool, csb: &mut Csb, ready: bool, response: Option<u64>, conv: Delivered, lut: &LutConfig, tables: &LutTables, events: &mut Vec<&'static str>) {
        let l = self.layer;
        match self.state {
            State::Idle if may_start => {
                self.layer = Layer::from_registers(csb, self.flying_layer(csb));
                (self.x, self.y, self.surface) = (0, 0, 0);
                self.state = if self.layer.flying { State::FlyWait } else { State::ReadRequest };
                self.request.addr = self.atom_address(self.layer.src, self.layer.src_line, self.layer.src_surface);
                events.push(if self.layer.flying { "sdp flying start" } else { "sdp start" });
            }
            State::FlyWait => match conv {
                Delivered { atom: Some(atom), .. } => {
                    let off = [(0, 0); 8];
                    self.process(atom, off, off, lut, tables);
                    events.push("sdp flying atom");
                }
                Delivered { refused: true, .. } => {
                    csb.finish(units(true), engine().done_fields);
                    self.state = State::Idle;
                    events.push("sdp flying layer ended by a refused convolution");
                }
                _ => events.push("sdp flying wait"),
            },
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
                        self.bs_data[self.word] = data;
                    } else {
                        self.bn_data[self.word] = data;
                    }
                    events.push(if self.state == State::BsWait { "bs operand" } else { "bn operand" });
                    let wait = self.state;
                    self.after_read(wait, lut, tables);
                    if matches!((wait, self.state), (State::BsWait, State::BsRequest) | (State::BnWait, State::BnRequest)) {
                        events.push("operand next word");
                    }
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
                    csb.finish(units(l.flying), engine().done_fields);
                    self.state = State::Idle;
                    events.push("sdp done");
                } else if l.flying {
                    self.state = State::FlyWait;
                    events.push("atom");
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
