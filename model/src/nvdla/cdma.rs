//! The convolution DMA (seeds/001, "Convolution DMA"), direct convolution of int8 features:
//! what CDMA writes into CBUF. The feature cube's atoms, CDMA's input converter applied to
//! the channels inside the cube (the lanes past the last channel 0), at the entries CSC reads
//! them from ([`CscLayer::data_entry`]); a kernel group's weights, unpacked from NVIDIA's
//! packed layout (docs/nvdla.md, "Data in memory") into one atom per (channel block, tap,
//! kernel) ([`CscLayer::weight_entry`]). The checks of a layer CBUF cannot hold
//! ([`CdmaError`]).
//!
//! [`CdmaLayer::place_features`] and [`CdmaLayer::place_weights`] are the placement written
//! plainly (addresses by multiplication, byte by byte), the reference the cycle-level model
//! [`Cdma`] (RTL `npu_hdl::nvdla::Cdma`, docs/nvdla.md "CDMA") is tested against: the fetch
//! through the memory port, one read per 8-byte atom, the CBUF write port, the handshake with
//! CSC for each kernel group.
use super::cube_walk::{Cube, Walk};
use crate::Block;
use super::cbuf::{Cbuf, BANKS, BANK_ENTRIES};
use super::csc::CscLayer;

/// Atomic-C = atomic-K = 8, the memory atom 8 bytes.
const ATOM: usize = 8;

/// CDMA's input converter (D_CVT_CFG.CVT_EN, CVT_TRUNCATE, D_CVT_OFFSET, D_CVT_SCALE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converter {
    pub offset: i16,
    pub scale: i16,
    /// 0..63.
    pub truncate: u32,
}

impl Converter {
    /// `(x - offset) * scale` (at most 2^31 in magnitude), shifted right by `truncate`
    /// rounding half away from zero, saturated to int8 (NVIDIA's C model, `hls_convertor`).
    pub fn apply(&self, x: i8) -> i8 {
        let product = (i64::from(x) - i64::from(self.offset)) * i64::from(self.scale);
        super::convert::round_shift_saturate(product, self.truncate, 8) as i8
    }
}

/// Where CDMA reads: the feature cube (base, line stride, surface stride) and the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CdmaLayer {
    pub csc: CscLayer,
    pub feature_base: u64,
    pub line_stride: u64,
    pub surface_stride: u64,
    pub weight_base: u64,
    /// D_BANK.WEIGHT_BANK + 1.
    pub weight_banks: usize,
    pub converter: Option<Converter>,
}

/// A layer CBUF cannot hold: the layer is refused (docs/nvdla.md, "Bad input").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CdmaError {
    /// The data and weight banks together exceed CBUF's 32.
    Banks { data: usize, weight: usize },
    /// The feature cube needs more entries than the data banks have.
    Features { entries: usize, room: usize },
    /// One kernel group's weights need more entries than the weight banks have.
    Weights { entries: usize, room: usize },
}

impl std::fmt::Display for CdmaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            CdmaError::Banks { data, weight } => write!(f, "{data} data banks and {weight} weight banks exceed CBUF's {BANKS}"),
            CdmaError::Features { entries, room } => write!(f, "the feature cube needs {entries} CBUF entries, the data banks hold {room}"),
            CdmaError::Weights { entries, room } => write!(f, "a kernel group's weights need {entries} CBUF entries, the weight banks hold {room}"),
        }
    }
}

impl CdmaError {
    /// The RTL's `error_code`: 1 banks, 2 features, 3 weights.
    pub fn code(&self) -> u8 {
        match self {
            CdmaError::Banks { .. } => 1,
            CdmaError::Features { .. } => 2,
            CdmaError::Weights { .. } => 3,
        }
    }
}

impl CdmaLayer {
    /// The layer fits CBUF: banks, the whole feature cube, one kernel group's weights.
    pub fn check(&self) -> Result<(), CdmaError> {
        let l = &self.csc;
        if l.data_banks + self.weight_banks > BANKS {
            return Err(CdmaError::Banks { data: l.data_banks, weight: self.weight_banks });
        }
        let (entries, room) = (l.data_entries(), l.data_banks * BANK_ENTRIES);
        if entries > room {
            return Err(CdmaError::Features { entries, room });
        }
        let (entries, room) = (l.weight_entries(), self.weight_banks * BANK_ENTRIES);
        if entries > room {
            return Err(CdmaError::Weights { entries, room });
        }
        Ok(())
    }

    /// Byte address of channel `c` of feature pixel (x, y).
    fn feature_address(&self, x: usize, y: usize, c: usize) -> u64 {
        let surface = (c / ATOM) as u64;
        self.feature_base.wrapping_add(surface.wrapping_mul(self.surface_stride)).wrapping_add((y as u64).wrapping_mul(self.line_stride)).wrapping_add((x * ATOM + c % ATOM) as u64)
    }

    /// Byte address of weight (k, tap, c) in the packed layout.
    fn weight_address(&self, k: usize, tap: usize, c: usize) -> u64 {
        let l = &self.csc;
        let taps = l.kernel_width * l.kernel_height;
        let (group, block) = (k / ATOM, c / ATOM);
        let in_group = ATOM.min(l.kernels - group * ATOM);
        let in_block = ATOM.min(l.channels - block * ATOM);
        let offset = group * taps * l.channels * ATOM + block * ATOM * taps * in_group + tap * in_block * in_group + (k % ATOM) * in_block + c % ATOM;
        self.weight_base.wrapping_add(offset as u64)
    }

    /// Writes the feature cube into CBUF, read byte by byte through `read`.
    pub fn place_features(&self, cbuf: &mut Cbuf, read: impl Fn(u64) -> u8) {
        let l = &self.csc;
        for surface in 0..l.channel_blocks() {
            for y in 0..l.height {
                for x in 0..l.width {
                    let atom = (0..ATOM.min(l.channels - surface * ATOM)).fold(0u64, |word, lane| {
                        let v = read(self.feature_address(x, y, surface * ATOM + lane)) as i8;
                        let v = self.converter.map_or(v, |cvt| cvt.apply(v));
                        word | u64::from(v as u8) << (8 * lane)
                    });
                    cbuf.write(l.data_entry(x, y, surface), atom);
                }
            }
        }
    }

    /// Writes kernel group `group`'s weights into the weight banks (0 for kernels past the
    /// last), read byte by byte through `read`.
    pub fn place_weights(&self, cbuf: &mut Cbuf, group: usize, read: impl Fn(u64) -> u8) {
        let l = &self.csc;
        let taps = l.kernel_width * l.kernel_height;
        for block in 0..l.channel_blocks() {
            for tap in 0..taps {
                for k in 0..ATOM {
                    let kernel = group * ATOM + k;
                    let atom = if kernel < l.kernels {
                        (0..ATOM.min(l.channels - block * ATOM)).fold(0u64, |word, lane| word | u64::from(read(self.weight_address(kernel, tap, block * ATOM + lane))) << (8 * lane))
                    } else {
                        0
                    };
                    cbuf.write(l.weight_entry(block, tap, k), atom);
                }
            }
        }
    }
}

/// Every input port (the rust-hdl names): the layer as CDMA's (and CSC's kernel size)
/// registers give it, counts minus 1; the memory port; CSC's request for weights.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub reset: bool,
    pub start: bool,
    pub width: u16,
    pub height: u16,
    pub channel: u16,
    pub feature_base: u64,
    pub line_stride: u32,
    pub surface_stride: u32,
    pub weight_base: u64,
    pub kernel_width: u8,
    pub kernel_height: u8,
    pub kernels: u16,
    pub data_bank: u8,
    pub weight_bank: u8,
    pub cvt_en: bool,
    pub cvt_offset: u16,
    pub cvt_scale: u16,
    pub cvt_truncate: u8,
    pub dbb_req_ready: bool,
    pub dbb_resp_valid: bool,
    pub dbb_resp_data: u64,
    pub wants_weights: bool,
}

impl In {
    /// The ports of `layer` (its counts must fit the registers: sizes up to 8192, kernels up
    /// to 32 x 32, up to 32 banks each, strides below 2^32).
    pub fn of_layer(layer: &CdmaLayer) -> In {
        let l = &layer.csc;
        let cvt = layer.converter;
        In {
            width: (l.width - 1) as u16,
            height: (l.height - 1) as u16,
            channel: (l.channels - 1) as u16,
            feature_base: layer.feature_base,
            line_stride: layer.line_stride as u32,
            surface_stride: layer.surface_stride as u32,
            weight_base: layer.weight_base,
            kernel_width: (l.kernel_width - 1) as u8,
            kernel_height: (l.kernel_height - 1) as u8,
            kernels: (l.kernels - 1) as u16,
            data_bank: (l.data_banks - 1) as u8,
            weight_bank: (layer.weight_banks - 1) as u8,
            cvt_en: cvt.is_some(),
            cvt_offset: cvt.map_or(0, |c| c.offset as u16),
            cvt_scale: cvt.map_or(0, |c| c.scale as u16),
            cvt_truncate: cvt.map_or(0, |c| c.truncate as u8),
            ..In::default()
        }
    }

    /// The layer the ports describe (CSC's fields CDMA does not use at their defaults).
    pub fn layer(&self) -> CdmaLayer {
        let csc = CscLayer {
            width: usize::from(self.width) + 1,
            height: usize::from(self.height) + 1,
            channels: usize::from(self.channel) + 1,
            kernel_width: usize::from(self.kernel_width) + 1,
            kernel_height: usize::from(self.kernel_height) + 1,
            kernels: usize::from(self.kernels) + 1,
            data_banks: usize::from(self.data_bank) + 1,
            ..CscLayer::default()
        };
        let converter = self.cvt_en.then_some(Converter { offset: self.cvt_offset as i16, scale: self.cvt_scale as i16, truncate: u32::from(self.cvt_truncate) });
        CdmaLayer { csc, feature_base: self.feature_base, line_stride: u64::from(self.line_stride), surface_stride: u64::from(self.surface_stride), weight_base: self.weight_base, weight_banks: usize::from(self.weight_bank) + 1, converter }
    }

    /// The feature cube as walked: x fastest, then lines, then surfaces.
    fn cube(&self) -> Cube {
        Cube::atoms(self.feature_base, u64::from(self.line_stride), u64::from(self.surface_stride), u64::from(self.width) + 1, u64::from(self.height) + 1, u64::from(self.channel / 8) + 1)
    }
}

/// Every output port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub dbb_req_valid: bool,
    pub dbb_req_addr: u64,
    pub cbuf_wr_valid: bool,
    /// bank * 512 + entry.
    pub cbuf_wr_entry: u16,
    pub cbuf_wr_data: u64,
    pub weights_ready: bool,
    pub dat_done: bool,
    pub wt_done: bool,
    pub error: bool,
    pub error_code: u8,
    pub running: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// The layer's first cycle: refused, or the features are fetched.
    Check,
    FeatureRequest,
    FeatureWait,
    /// Waiting for CSC to want the next kernel group.
    WaitCsc,
    /// A weight atom: its read request, or 0 for a kernel past the last.
    WeightAtom,
    WeightWait,
    /// The group's weights are in CBUF (`weights_ready`).
    Ready,
}

/// The cycle-level CDMA, as the RTL: see `npu_hdl::nvdla::cdma` for the timing.
#[derive(Clone, Debug, Default)]
pub struct Cdma {
    state: State,
    walk: Walk,
    /// The feature surface being read.
    surface: u64,
    /// The CBUF entry written next.
    entry: u16,
    /// The weight atom: channel block, tap row and column, kernel of the group.
    block: u64,
    tap: (u8, u8),
    k: u8,
    group: u64,
    /// The next weight byte in memory.
    pointer: u64,
    write: (bool, u16, u64),
    dat_done: bool,
    error: bool,
    error_code: u8,
    events: Vec<&'static str>,
}

/// `atom` with the lanes above `last_lane` 0 and, with `converter`, the others converted.
fn lanes(atom: u64, last_lane: u64, converter: Option<Converter>) -> u64 {
    (0..=last_lane).fold(0, |word, lane| {
        let v = (atom >> (8 * lane)) as u8 as i8;
        word | u64::from(converter.map_or(v, |c| c.apply(v)) as u8) << (8 * lane)
    })
}

impl Cdma {
    /// The outputs of this cycle (before the edge), for the layer ports `i`: the memory
    /// request and CBUF write are registers, `wt_done` also reads the kernel count.
    pub fn outputs(&self, i: &In) -> Out {
        Out {
            dbb_req_valid: self.state == State::FeatureRequest || self.state == State::WeightAtom && self.real(i),
            dbb_req_addr: if self.state == State::FeatureRequest { self.walk.addr() } else { self.pointer },
            cbuf_wr_valid: self.write.0,
            cbuf_wr_entry: self.write.1,
            cbuf_wr_data: self.write.2,
            weights_ready: self.state == State::Ready,
            dat_done: self.dat_done,
            wt_done: self.state == State::Ready && self.last_group(i),
            error: self.error,
            error_code: self.error_code,
            running: self.state != State::Idle,
        }
    }

    fn last_block(&self, i: &In) -> bool {
        self.block == u64::from(i.channel / 8)
    }

    fn last_group(&self, i: &In) -> bool {
        self.group == u64::from(i.kernels / 8)
    }

    /// The weight atom is of a kernel of the layer.
    fn real(&self, i: &In) -> bool {
        u16::from(self.k) <= if self.last_group(i) { i.kernels % 8 } else { 7 }
    }

    /// The last lane of the current weight block.
    fn block_last_lane(&self, i: &In) -> u64 {
        if self.last_block(i) { u64::from(i.channel % 8) } else { 7 }
    }

    fn last_atom(&self, i: &In) -> bool {
        self.k == 7 && self.tap == (i.kernel_height, i.kernel_width) && self.last_block(i)
    }

    /// The weight counters to the next atom: kernel, tap column, tap row, channel block.
    fn advance(&mut self, i: &In) {
        self.entry = (self.entry + 1) & 0x3fff;
        self.k = (self.k + 1) & 7;
        if self.k == 0 {
            let (r, s) = self.tap;
            self.tap = if s != i.kernel_width {
                (r, s + 1)
            } else if r != i.kernel_height {
                (r + 1, 0)
            } else {
                self.block = if self.last_block(i) { 0 } else { self.block + 1 };
                (0, 0)
            };
        }
    }

    fn write(&mut self, data: u64) {
        self.write = (true, self.entry, data);
    }
}

impl Block for Cdma {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, i: &In) -> Out {
        let out = self.outputs(i);
        self.events.clear();
        if i.reset {
            *self = Cdma::default();
            self.events.push("reset");
            return out;
        }
        (self.write.0, self.dat_done, self.error) = (false, false, false);
        let cube = i.cube();
        let event = match self.state {
            State::Idle if i.start => {
                self.walk = Walk::start(i.feature_base);
                (self.surface, self.entry, self.block, self.tap, self.k, self.group) = (0, 0, 0, (0, 0), 0, 0);
                (self.pointer, self.error_code) = (i.weight_base, 0);
                self.state = State::Check;
                "start"
            }
            State::Idle => "idle",
            State::Check => match i.layer().check() {
                Err(e) => {
                    (self.error, self.error_code) = (true, e.code());
                    self.state = State::Idle;
                    ["", "refused: banks", "refused: features", "refused: weights"][usize::from(e.code())]
                }
                Ok(()) => {
                    self.state = State::FeatureRequest;
                    "check passed"
                }
            },
            State::FeatureRequest if i.dbb_req_ready => {
                self.state = State::FeatureWait;
                "feature request"
            }
            State::FeatureRequest => "feature read stall",
            State::FeatureWait if i.dbb_resp_valid => {
                let last_lane = if self.surface == u64::from(i.channel / 8) { u64::from(i.channel % 8) } else { 7 };
                self.write(lanes(i.dbb_resp_data, last_lane, i.layer().converter));
                self.entry = (self.entry + 1) & 0x3fff;
                if self.walk.end(&cube, 0) && self.walk.end(&cube, 1) {
                    self.surface = (self.surface + 1) & 0x1fff;
                }
                let last = self.walk.last(&cube);
                self.walk.step(&cube);
                if last {
                    self.dat_done = true;
                    self.state = State::WaitCsc;
                    "last feature atom"
                } else {
                    self.state = State::FeatureRequest;
                    "feature atom"
                }
            }
            State::FeatureWait => "feature read wait",
            State::WaitCsc if i.wants_weights => {
                self.entry = (u16::from(i.data_bank) + 1) << 9 & 0x3fff;
                self.state = State::WeightAtom;
                "weight group start"
            }
            State::WaitCsc => "wait for csc",
            State::WeightAtom if self.real(i) => {
                if i.dbb_req_ready {
                    self.state = State::WeightWait;
                    "weight request"
                } else {
                    "weight read stall"
                }
            }
            State::WeightAtom => {
                self.write(0);
                if self.last_atom(i) {
                    self.state = State::Ready;
                }
                self.advance(i);
                "weight atom past the last kernel"
            }
            State::WeightWait if i.dbb_resp_valid => {
                let last_lane = self.block_last_lane(i);
                self.write(lanes(i.dbb_resp_data, last_lane, None));
                self.pointer = self.pointer.wrapping_add(last_lane + 1);
                self.state = if self.last_atom(i) { State::Ready } else { State::WeightAtom };
                self.advance(i);
                if last_lane < 7 { "weight atom of a partial block" } else { "weight atom" }
            }
            State::WeightWait => "weight read wait",
            State::Ready if self.last_group(i) => {
                self.state = State::Idle;
                "last group ready: weights done"
            }
            State::Ready => {
                self.group = (self.group + 1) & 0x1fff;
                self.state = State::WaitCsc;
                "group ready"
            }
        };
        self.events.push(event);
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The converter, hand-worked: (20-10)*3 >> 1 = 15; (-128-10)*3/2 = -207 saturates; 1.5
    /// rounds to 2 and -1.5 to -2.
    #[test]
    fn converter_rounds_half_away_and_saturates() {
        let cvt = Converter { offset: 10, scale: 3, truncate: 1 };
        assert_eq!([20, -128, 11, 9, 127].map(|x| cvt.apply(x)), [15, -128, 2, -2, 127]);
    }

    /// A 1 x 1 x 3 cube and one 1 x 1 kernel, memory answering the next cycle, CSC wanting
    /// weights from the start, by hand: start (0), check (1), the feature request (2), its
    /// data (3, converted), written with `dat_done` in 4; the group waited for in 4, the
    /// kernel's read in 5 and 6, its write in 7, the 7 kernels past the last written 0 in
    /// 7..13 (seen in 8..14), `weights_ready` and `wt_done` with the last write in 14 (CBUF
    /// takes it at the end of the cycle, CSC reads from 15 on), idle in 15.
    #[test]
    fn one_atom_layer_by_hand() {
        let csc = CscLayer { width: 1, height: 1, channels: 3, kernel_width: 1, kernel_height: 1, kernels: 1, data_banks: 1, ..CscLayer::default() };
        let layer = CdmaLayer { csc, feature_base: 0x100, line_stride: 8, surface_stride: 8, weight_base: 0x205, weight_banks: 1, converter: Some(Converter { offset: 1, scale: 2, truncate: 0 }) };
        let mut cdma = Cdma::default();
        let ports = In::of_layer(&layer);
        let (mut pending, mut outs) = (None, Vec::new());
        for cycle in 0..17 {
            let data = |a: u64| if a == 0x100 { 0x1122_3344_5566_0a05 } else if a == 0x205 { 0x0102_0304_0506_0708 } else { 0 };
            let i = In { start: cycle == 0, dbb_req_ready: true, dbb_resp_valid: pending.is_some(), dbb_resp_data: pending.map_or(0, data), wants_weights: (4..=15).contains(&cycle), ..ports.clone() };
            let o = cdma.step(&i);
            pending = (o.dbb_req_valid && i.dbb_req_ready).then_some(o.dbb_req_addr);
            outs.push(o);
        }
        let reads: Vec<_> = (0..17).filter(|&c| outs[c].dbb_req_valid).map(|c| (c, outs[c].dbb_req_addr)).collect();
        assert_eq!(reads, [(2, 0x100), (5, 0x205)]);
        let writes: Vec<_> = (0..17).filter(|&c| outs[c].cbuf_wr_valid).map(|c| (c, outs[c].cbuf_wr_entry, outs[c].cbuf_wr_data)).collect();
        // (5 - 1) * 2 = 8, (10 - 1) * 2 = 18, (0x66 - 1) * 2 = 202 saturates to 127; lanes 3.. 0.
        let mut expected = vec![(4, 0, 0x7f_12_08), (7, 512, 0x06_07_08)];
        expected.extend((8..15).map(|c| (c, 512 + c as u16 - 7, 0)));
        assert_eq!(writes, expected);
        assert!(outs[4].dat_done && (0..17).filter(|&c| outs[c].dat_done).count() == 1);
        let ready: Vec<_> = (0..17).filter(|&c| outs[c].weights_ready).collect();
        assert_eq!(ready, [14]);
        assert!(outs[14].wt_done && outs[14].running && !outs[15].running && !outs[15].error);
    }

    /// Each refusal, and a layer that just fits.
    #[test]
    fn layers_cbuf_cannot_hold_are_refused() {
        let csc = CscLayer { width: 64, height: 8, channels: 8, kernel_width: 3, kernel_height: 3, kernels: 8, stride: (1, 1), dilation: (1, 1), out_width: 62, out_height: 6, data_banks: 1, ..CscLayer::default() };
        let layer = CdmaLayer { csc, feature_base: 0, line_stride: 512, surface_stride: 4096, weight_base: 0, weight_banks: 1, converter: None };
        assert_eq!(layer.check(), Ok(()));
        assert_eq!(CdmaLayer { weight_banks: 32, ..layer }.check(), Err(CdmaError::Banks { data: 1, weight: 32 }));
        let wide = CdmaLayer { csc: CscLayer { width: 65, ..csc }, ..layer };
        assert_eq!(wide.check(), Err(CdmaError::Features { entries: 520, room: 512 }));
        let deep = CdmaLayer { csc: CscLayer { channels: 64, height: 1, width: 8, ..csc }, ..layer };
        assert_eq!(deep.check(), Err(CdmaError::Weights { entries: 576, room: 512 }));
        assert_eq!(CdmaError::Weights { entries: 576, room: 512 }.to_string(), "a kernel group's weights need 576 CBUF entries, the weight banks hold 512");
    }
}
