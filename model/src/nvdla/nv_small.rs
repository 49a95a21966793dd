//! NVDLA nv_small as built so far: the CSB port and its register decode, GLB (interrupt
//! status, mask, set, `irq`), the ping-pong register groups of SDP_RDMA and SDP, and the SDP
//! in off-flying mode with every stage bypassed: SDP_RDMA reads the input cube atom by atom
//! through the DBB-style memory port, the output converter (offset, scale, shift with
//! rounding, int8 saturation) converts each of the atom's 8 lanes, and SDP's write DMA writes
//! the atom back. docs/nvdla.md states the ports, timing and decisions this model keeps.
//!
//! Addresses, field positions, reset values and access types come from the register map
//! table `npu_hdl::nvdla::regmap` (checked against NVIDIA's RDL files); the behaviour
//! (ping-pong, interrupts, datapath) is written here from seeds/001.
use crate::Block;
use npu_hdl::nvdla::regmap::{self, Access, Group, Register, Unit};

/// Bytes per memory atom: nv_small's 8 int8 channels (seeds/001 "Data Formats": the atom is
/// the memory access unit; nv_small's is 8 bytes).
pub const ATOM: u64 = 8;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    /// CSB request channel (seeds/001 Table 1): `csb2nvdla_*`.
    pub csb_valid: bool,
    pub csb_addr: u16,
    pub csb_wdat: u32,
    pub csb_write: bool,
    pub csb_nposted: bool,
    /// Memory port: the memory takes the request in a cycle with `dbb_req_valid & dbb_req_ready`.
    pub dbb_req_ready: bool,
    /// Read data, one atom, in request order; NVDLA has at most one read outstanding.
    pub dbb_resp_valid: bool,
    pub dbb_resp_data: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub csb_ready: bool,
    /// CSB read data channel (Table 2): `nvdla2csb_valid`, `nvdla2csb_data`.
    pub csb_rvalid: bool,
    pub csb_rdata: u32,
    /// CSB write completion (Table 3): `nvdla2csb_wr_complete`.
    pub csb_wr_complete: bool,
    /// `nvdla2core_interrupt`: high while an unmasked GLB interrupt status bit is set.
    pub irq: bool,
    pub dbb_req_valid: bool,
    pub dbb_req_write: bool,
    /// Byte address of the atom (a multiple of 8 when the registers' addresses and strides are).
    pub dbb_req_addr: u64,
    pub dbb_req_wdata: u64,
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
}

/// A unit's registers: the single group and the two ping-pong groups, each a value per
/// register of the table (the ping-pong copy of a single register is unused).
#[derive(Clone, Debug)]
struct UnitRegisters {
    unit: &'static Unit,
    single: Vec<u32>,
    groups: [Vec<u32>; 2],
    producer: usize,
    consumer: usize,
}

impl UnitRegisters {
    fn new(unit: &'static Unit) -> Self {
        let reset: Vec<u32> = unit.registers.iter().map(Register::reset).collect();
        Self { unit, single: reset.clone(), groups: [reset.clone(), reset], producer: 0, consumer: 0 }
    }

    fn index(&self, name: &str) -> usize {
        self.unit.registers.iter().position(|r| r.name == name).unwrap_or_else(|| panic!("no register {}.{name}", self.unit.name))
    }

    /// Register `name` of group `group` (ping-pong registers) or of the single group.
    fn get(&self, group: usize, name: &str) -> u32 {
        let i = self.index(name);
        match self.unit.registers[i].group {
            Group::Single => self.single[i],
            Group::PingPong => self.groups[group][i],
        }
    }

    fn enabled(&self, group: usize) -> bool {
        self.get(group, "D_OP_ENABLE") & 1 != 0
    }
}

/// The configuration of one SDP layer, taken from the consumer groups when it starts.
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
}

#[derive(Clone, Debug)]
pub struct NvSmall {
    glb: UnitRegisters,
    rdma: UnitRegisters,
    sdp: UnitRegisters,
    state: State,
    layer: Layer,
    /// Position of the current atom: x, y, surface.
    x: u64,
    y: u64,
    surface: u64,
    out: Out,
    events: Vec<&'static str>,
}

impl Default for NvSmall {
    fn default() -> Self {
        let unit = |name| regmap::unit(name).unwrap_or_else(|| panic!("no unit {name}"));
        Self {
            glb: UnitRegisters::new(unit("GLB")),
            rdma: UnitRegisters::new(unit("SDP_RDMA")),
            sdp: UnitRegisters::new(unit("SDP")),
            state: State::Idle,
            layer: Layer::default(),
            x: 0,
            y: 0,
            surface: 0,
            out: Out::idle(),
            events: Vec::new(),
        }
    }
}

impl Out {
    fn idle() -> Self {
        Out { csb_ready: true, csb_rvalid: false, csb_rdata: 0, csb_wr_complete: false, irq: false, dbb_req_valid: false, dbb_req_write: false, dbb_req_addr: 0, dbb_req_wdata: 0 }
    }
}

/// SDP's output converter for one lane (seeds/001 "Single Data Point Processor"; the rounding
/// and saturation are NVDLA's shift-right-saturate): `(x - offset) * scale`, shifted right by
/// `shift` rounding half away from zero, saturated to int8; a shift of 49 or more (the
/// product's width) gives 0.
pub fn convert(x: i8, offset: i32, scale: i16, shift: u32) -> i8 {
    let product = (i64::from(x) - i64::from(offset)) * i64::from(scale);
    if shift >= 49 {
        return 0;
    }
    let floor = product >> shift;
    let rest = product - (floor << shift);
    let half = if shift == 0 { 0 } else { 1i64 << (shift - 1) };
    // Round up above half; at exactly half, up for positive values (away from zero), down
    // (the floor, also away from zero) for negative ones.
    let rounded = floor + i64::from(shift > 0 && (rest > half || (rest == half && product >= 0)));
    rounded.clamp(i64::from(i8::MIN), i64::from(i8::MAX)) as i8
}

fn convert_atom(atom: u64, layer: &Layer) -> u64 {
    let mut out = 0u64;
    for lane in 0..ATOM {
        let x = (atom >> (8 * lane)) as u8 as i8;
        out |= u64::from(convert(x, layer.cvt_offset, layer.cvt_scale, layer.cvt_shift) as u8) << (8 * lane);
    }
    out
}

/// GLB interrupt status bit of SDP's done for group `group` (SDP_DONE_STATUS0/1).
fn sdp_done_bit(group: usize) -> u32 {
    regmap::field("GLB", "S_INTR_STATUS", ["SDP_DONE_STATUS0", "SDP_DONE_STATUS1"][group]).mask()
}

impl NvSmall {
    fn units(&self) -> [&UnitRegisters; 3] {
        [&self.glb, &self.rdma, &self.sdp]
    }

    /// S_STATUS of a unit: per group IDLE (0) when not enabled, RUNNING (1) when the engine
    /// works on it, PENDING (2) when enabled and waiting.
    fn status(&self, u: &UnitRegisters) -> u32 {
        let group = |g: usize| -> u32 {
            match (u.enabled(g), self.state != State::Idle && u.consumer == g) {
                (false, _) => 0,
                (true, true) => 1,
                (true, false) => 2,
            }
        };
        group(0) | group(1) << 16
    }

    /// What a CSB read of `address` returns (0 for an address no register has: seeds/001,
    /// "Illegal reads ... will return zeroes").
    fn read(&self, address: u16) -> u32 {
        let Some((unit, register)) = regmap::decode(address) else { return 0 };
        let u = self.units().into_iter().find(|u| u.unit.name == unit.name).expect("decoded unit");
        let value = match register.name {
            "S_STATUS" => self.status(u),
            "S_POINTER" => u.producer as u32 | (u.consumer as u32) << 16,
            name => u.get(u.producer, name),
        };
        value & register.mask_where(Access::readable)
    }

    fn units_mut(&mut self, name: &str) -> &mut UnitRegisters {
        match name {
            "GLB" => &mut self.glb,
            "SDP_RDMA" => &mut self.rdma,
            _ => &mut self.sdp,
        }
    }

    /// A CSB write. Writes to an unmapped address, to read-only fields, and to a ping-pong
    /// group whose D_OP_ENABLE is set (seeds/001: "dropped silently") change nothing.
    fn write(&mut self, address: u16, data: u32) -> &'static str {
        let Some((unit, register)) = regmap::decode(address) else { return "csb write unmapped" };
        let u = self.units_mut(unit.name);
        let i = u.index(register.name);
        match (unit.name, register.name) {
            ("GLB", "S_INTR_STATUS") => {
                // Write one to clear (`rwo`; the RDL spells SDP_DONE_STATUS0 `rwto`, the
                // register's role is the same for every bit).
                u.single[i] &= !(data & register.mask());
                "csb write intr status"
            }
            ("GLB", "S_INTR_SET") => {
                let status = u.index("S_INTR_STATUS");
                u.single[status] |= data & register.mask();
                "csb write intr set"
            }
            (_, "S_POINTER") => {
                u.producer = (data & 1) as usize;
                "csb write pointer"
            }
            _ => {
                let keep = !register.mask_where(Access::stores);
                let value = data & register.mask_where(Access::stores);
                match register.group {
                    Group::Single => {
                        u.single[i] = u.single[i] & keep | value;
                        "csb write single"
                    }
                    Group::PingPong if u.enabled(u.producer) => "csb write dropped",
                    Group::PingPong => {
                        let g = u.producer;
                        u.groups[g][i] = u.groups[g][i] & keep | value;
                        "csb write group"
                    }
                }
            }
        }
    }

    /// Takes the layer from the consumer groups of SDP_RDMA and SDP.
    fn start(&mut self) {
        let (r, s) = (&self.rdma, &self.sdp);
        let (rg, sg) = (r.consumer, s.consumer);
        let wide = |low: u32, high: u32| u64::from(high) << 32 | u64::from(low);
        self.layer = Layer {
            width: u64::from(r.get(rg, "D_DATA_CUBE_WIDTH")) + 1,
            height: u64::from(r.get(rg, "D_DATA_CUBE_HEIGHT")) + 1,
            surfaces: (u64::from(r.get(rg, "D_DATA_CUBE_CHANNEL")) + ATOM) / ATOM,
            src: wide(r.get(rg, "D_SRC_BASE_ADDR_LOW"), r.get(rg, "D_SRC_BASE_ADDR_HIGH")),
            src_line: u64::from(r.get(rg, "D_SRC_LINE_STRIDE")),
            src_surface: u64::from(r.get(rg, "D_SRC_SURFACE_STRIDE")),
            dst: wide(s.get(sg, "D_DST_BASE_ADDR_LOW"), s.get(sg, "D_DST_BASE_ADDR_HIGH")),
            dst_line: u64::from(s.get(sg, "D_DST_LINE_STRIDE")),
            dst_surface: u64::from(s.get(sg, "D_DST_SURFACE_STRIDE")),
            cvt_offset: s.get(sg, "D_CVT_OFFSET") as i32,
            cvt_scale: s.get(sg, "D_CVT_SCALE") as u16 as i16,
            cvt_shift: s.get(sg, "D_CVT_SHIFT"),
        };
        (self.x, self.y, self.surface) = (0, 0, 0);
    }

    fn atom_address(&self, base: u64, line: u64, surface: u64) -> u64 {
        base.wrapping_add(self.surface.wrapping_mul(surface)).wrapping_add(self.y.wrapping_mul(line)).wrapping_add(self.x * ATOM)
    }

    /// Ends the layer: both units' consumer groups are disabled and the consumers advance
    /// (seeds/001, ping-pong steps 7-9), and SDP's done status is set for its group.
    fn finish(&mut self) {
        let done = sdp_done_bit(self.sdp.consumer);
        for u in [&mut self.rdma, &mut self.sdp] {
            let i = u.index("D_OP_ENABLE");
            u.groups[u.consumer][i] = 0;
            u.consumer ^= 1;
        }
        let status = self.glb.index("S_INTR_STATUS");
        self.glb.single[status] |= done;
    }

    fn interrupt_pending(&self) -> bool {
        let g = &self.glb;
        g.single[g.index("S_INTR_STATUS")] & !g.single[g.index("S_INTR_MASK")] != 0
    }

    fn clock(&mut self, i: &In) {
        self.events.clear();
        if i.reset {
            *self = Self::default();
            self.events.push("reset");
            return;
        }
        let mut next = Out { csb_rvalid: false, csb_wr_complete: false, ..self.out.clone() };
        // The CSB first, on the registers as they were before this edge: a read returns
        // them, and a layer starts only on enables set before it (a write enabling a group
        // starts it at the next edge).
        let may_start = self.rdma.enabled(self.rdma.consumer) && self.sdp.enabled(self.sdp.consumer);
        if i.csb_valid && !i.csb_write {
            next.csb_rdata = self.read(i.csb_addr);
            next.csb_rvalid = true;
            self.events.push(if regmap::decode(i.csb_addr).is_some() { "csb read" } else { "csb read unmapped" });
        }
        if i.csb_valid && i.csb_write {
            let event = self.write(i.csb_addr, i.csb_wdat);
            self.events.push(event);
            next.csb_wr_complete = i.csb_nposted;
        }
        // Then the engine: a write to a group it runs on was dropped, and its done status
        // wins over a write clearing the interrupt status in the same cycle.
        match self.state {
            State::Idle if may_start => {
                self.start();
                self.state = State::ReadRequest;
                next.dbb_req_addr = self.atom_address(self.layer.src, self.layer.src_line, self.layer.src_surface);
                self.events.push("sdp start");
            }
            State::Idle => {}
            State::ReadRequest if i.dbb_req_ready => self.state = State::ReadWait,
            State::ReadRequest => self.events.push("read stall"),
            State::ReadWait if i.dbb_resp_valid => {
                next.dbb_req_wdata = convert_atom(i.dbb_resp_data, &self.layer);
                next.dbb_req_addr = self.atom_address(self.layer.dst, self.layer.dst_line, self.layer.dst_surface);
                self.state = State::WriteRequest;
            }
            State::ReadWait => self.events.push("read wait"),
            State::WriteRequest if i.dbb_req_ready => {
                self.x += 1;
                if self.x == self.layer.width {
                    (self.x, self.y) = (0, self.y + 1);
                    if self.y == self.layer.height {
                        (self.y, self.surface) = (0, self.surface + 1);
                    }
                }
                if self.surface == self.layer.surfaces {
                    self.finish();
                    self.state = State::Idle;
                    self.events.push("sdp done");
                } else {
                    next.dbb_req_addr = self.atom_address(self.layer.src, self.layer.src_line, self.layer.src_surface);
                    self.state = State::ReadRequest;
                    self.events.push("atom");
                }
            }
            State::WriteRequest => self.events.push("write stall"),
        }
        next.dbb_req_valid = matches!(self.state, State::ReadRequest | State::WriteRequest);
        next.dbb_req_write = self.state == State::WriteRequest;
        next.irq = self.interrupt_pending();
        self.out = next;
    }
}

impl Block for NvSmall {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, input: &In) -> Out {
        let out = self.out.clone();
        self.clock(input);
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::convert;

    /// Hand-worked values of the converter.
    #[test]
    fn converter_rounds_half_away_from_zero_and_saturates() {
        assert_eq!(convert(5, 0, 1, 0), 5);
        assert_eq!(convert(5, 0, 1, 1), 3); // 2.5 -> 3
        assert_eq!(convert(-5, 0, 1, 1), -3); // -2.5 -> -3
        assert_eq!(convert(-5, 0, 3, 2), -4); // -3.75 -> -4
        assert_eq!(convert(-3, 0, 3, 2), -2); // -2.25 -> -2
        assert_eq!(convert(100, -100, 2, 0), 127);
        assert_eq!(convert(1, 0x558f_bb6e, 0x16cc, 10), -128);
        assert_eq!(convert(-128, 0, 1, 49), 0);
    }
}
