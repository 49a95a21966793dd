//! Ethos-U65 convolution datapath (RTL `hdl/src/ethos/conv_datapath.rs`): the traversal unit
//! that runs one quantized int8 CONV_2D or DEPTHWISE_CONV_2D layer on the weight decoder,
//! the MAC unit and the output unit, which are their own models here. Digest
//! `shared/spec/ethos-u65.md` §1.9 (weight order), §2 (output unit), §5 (MAC unit).
//!
//! A layer is its registers (held from `start` to `done`), a compressed weight stream in
//! Vela's order (conv: depth-first or part-kernel-first, any OFM block depth that is a
//! multiple of 8; depthwise: Vela's depthwise order), the scale/bias stream (Vela's 10-byte
//! records, §2.4), and the IFM, read through four ports. The phases, one state each:
//! - CHECK (1 cycle): every size in range, and the weight rows the layer needs
//!   (`ceil(O/8)` groups of `4 · ceil(C/32) · KH · KW` rows, part-kernel-first
//!   `ceil(C/8) · roundup(KH · KW, 4)`, depthwise `roundup(KH · KW, 4)`) within the buffer's
//!   4096; else `ERROR_SHAPE`.
//! - SCALE_BIAS: the records, one per OFM channel, into the parameter memory; up to 4 bytes a
//!   cycle. The stream may be padded to 16 bytes (as Vela stores it) and no further.
//! - DECODE: the stream through the decoder; every 64 weights (depthwise 8) are one row of the
//!   weight buffer, in stream order. A weight beyond the layer's rows, or a stream that ends
//!   short of them, is `ERROR_WEIGHT_COUNT`; a malformed one `ERROR_WEIGHT_STREAM`. The
//!   traversal below runs meanwhile (decode overlapped with MAC): a tap waits while its weight
//!   row is not written, and the layer's last tap until the decoder is done.
//! - For each 8-channel OFM group and each 2x2 OFM block (raster order; every block of a
//!   group before the next group, so that a group's rows are decoded early): MAC, one tap a cycle
//!   (depth-first: per 32-channel IFM block, per sub-kernel, per kernel element, its four
//!   8-channel groups, those wholly beyond the IFM depth skipped; part-kernel-first: per
//!   16-channel IFM block, per sub-kernel, per 8-channel IFM group holding channels, per kernel
//!   element; depthwise: per sub-kernel, per kernel element; Vela's sub-kernels are at most
//!   `8 / dilation` a side, y outside x), the weight row at the address of
//!   `weight_rows.rs` (Vela's order, read the other way round); the next group follows at
//!   once while the output walk (`output_walk.rs`) drains the group's 32 accumulators from
//!   the drain bank (`conv_mac.rs`) through the 16 output lanes (`output_lanes.rs`, TFL
//!   rounding), one OFM row of the 2x2 block (8 channels at two positions) a cycle; a
//!   group's last tap waits while the walk could not take it. OUT: the last group's drain.
//! - DRAIN (4 cycles) until the last value has left the output unit; DONE (1 cycle).
//!
//! Timing: the IFM port and the weight buffer are read in the tap's cycle and their data
//! enter the MAC unit in the next (stage 2); `output_walk.rs` has the drain's timing.
//!
//! `hold` (in DECODE, MAC, OUT and DRAIN, where the traversal runs; ignored elsewhere; in
//! DECODE the decoder and the weight buffer's writes go on) keeps every register of the traversal,
//! the weight-buffer and parameter reads, and the MAC unit's accumulators; no accumulator enters
//! the output unit, and what is in it leaves as usual (the OFM address pipeline goes on with it).
//!
//! Sub-modules, named after the RTL's sub-blocks: `conv_control` (the phase and the error),
//! `conv_traversal` (the tap's positions and the step to the next tap), `ifm_reads` (the four
//! IFM read ports), `layer_check` (CHECK), `weight_buffer` (DECODE's rows) and
//! `scale_bias_loader` (SCALE_BIAS's records); `depthwise_walk` and `depthwise_feed`, the
//! packed depthwise mapping's walk and feed (issue 19), checked against `depthwise_packing.rs`
//! (`tests/ethos_depthwise_packing.rs`) and run by [`ConvDatapath`] when `pack_depthwise` is
//! set on a layer they apply to (docs/ethos.md, "Packed traversal"): the group's first 2x2
//! block tap by tap (its weight rows into the kernel register), every later block packed, one
//! window row (fresh) or two (reuse) a cycle, the block's last cycle the group's last tap.
use super::conv_mac::ConvMac;
use super::mac_unit::{self, pack, CHANNELS};
use super::output_lanes::OutputLanes;
use super::output_walk::OutputWalk;
use super::weight_decoder::{self, WeightDecoder};
use super::weight_rows::{self, Step, WeightRows};
use crate::Block;

mod conv_control;
mod conv_traversal;
pub mod depthwise_feed;
pub mod depthwise_walk;
mod ifm_reads;
mod layer_check;
mod scale_bias_loader;
mod weight_buffer;
pub use ifm_reads::IfmRead;
pub use layer_check::check_shape;
use conv_control::state_name;
use conv_traversal::rows_layer;

pub const WEIGHT_ROWS: usize = 4096;
/// The largest height, width or depth the registers take (12 bits).
pub const MAX_DIM: usize = 4095;
pub const STATE_IDLE: u8 = 0;
pub const STATE_CHECK: u8 = 1;
pub const STATE_DECODE: u8 = 2;
pub const STATE_SCALE_BIAS: u8 = 3;
pub const STATE_MAC: u8 = 4;
pub const STATE_OUT: u8 = 5;
pub const STATE_DRAIN: u8 = 6;
pub const STATE_DONE: u8 = 7;
/// `error_code` values and, in the comments, what `error_detail` holds.
pub const ERROR_NONE: u8 = 0;
/// Detail: `SHAPE_*` bits.
pub const ERROR_SHAPE: u8 = 1;
/// Detail: the decoder's error code.
pub const ERROR_WEIGHT_STREAM: u8 = 2;
/// Detail: weights decoded when the unit stopped (when the first row beyond the layer's completes, or at the end).
pub const ERROR_WEIGHT_COUNT: u8 = 3;
/// Detail: bytes received.
pub const ERROR_SCALE_BIAS_SHORT: u8 = 4;
/// Detail: bytes received.
pub const ERROR_SCALE_BIAS_LONG: u8 = 5;
/// Detail: the OFM channel.
pub const ERROR_SCALE_BIAS_RESERVED: u8 = 6;
/// `ERROR_SHAPE` detail bits; [`SHAPE_REASONS`] says what each means.
pub const SHAPE_DIMS: u32 = 1;
pub const SHAPE_KERNEL: u32 = 2;
pub const SHAPE_STRIDE: u32 = 4;
pub const SHAPE_DEPTHWISE: u32 = 8;
pub const SHAPE_WEIGHT_ROWS: u32 = 16;
pub const SHAPE_REASONS: [(u32, &str); 5] = [
    (SHAPE_DIMS, "a height, width or depth of 0"),
    (
        SHAPE_KERNEL,
        "a kernel side outside 1..=15 (the 4-bit kernel ports)",
    ),
    (SHAPE_STRIDE, "a stride of 0"),
    (SHAPE_DEPTHWISE, "depthwise with IFM depth != OFM depth"),
    (SHAPE_WEIGHT_ROWS, "more weight rows than the buffer's 4096"),
];

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub start: bool,
    /// Holds the layer in MAC, OUT and DRAIN (the RTL's port comment has the rules).
    pub hold: bool,
    /// In MAC only: holds the traversal and the MAC unit, not the output walk.
    pub hold_mac: bool,
    pub ifm_height: u16,
    pub ifm_width: u16,
    pub ifm_depth: u16,
    pub ofm_height: u16,
    pub ofm_width: u16,
    pub ofm_depth: u16,
    pub kernel_height: u8,
    pub kernel_width: u8,
    pub stride_y: u8,
    pub stride_x: u8,
    pub pad_top: u8,
    pub pad_left: u8,
    pub depthwise: bool,
    /// Conv: the weights are in part-kernel-first order (KERNEL_STRIDE bit 2), else depth-first.
    pub part_kernel: bool,
    /// Conv: OFM channels per block of the weight order (OFM_BLK_DEPTH) / 8, minus 1.
    pub block_groups_m1: u8,
    /// Dilation 2 in y / x (KERNEL_STRIDE bits 4 / 3), else 1.
    pub dilation_y: bool,
    pub dilation_x: bool,
    /// Depthwise: run the packed mapping where it applies (`depthwise_walk`), else tap by
    /// tap; the NPU's convolution unit sets it for every DEPTHWISE.
    pub pack_depthwise: bool,
    pub ifm_zero_point: i8,
    pub ofm_zero_point: i8,
    pub act_min: i8,
    pub act_max: i8,
    pub w_valid: bool,
    pub w_data: u32,
    pub w_last: bool,
    pub sb_valid: bool,
    pub sb_data: u32,
    pub sb_bytes_m1: u8,
    pub sb_last: bool,
    pub ifm_data0: u64,
    pub ifm_data1: u64,
    pub ifm_data2: u64,
    pub ifm_data3: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub w_ready: bool,
    pub sb_ready: bool,
    pub ifm_read0: bool,
    pub ifm_y0: u16,
    pub ifm_x0: u16,
    pub ifm_group0: u16,
    pub ifm_read1: bool,
    pub ifm_y1: u16,
    pub ifm_x1: u16,
    pub ifm_group1: u16,
    pub ifm_read2: bool,
    pub ifm_y2: u16,
    pub ifm_x2: u16,
    pub ifm_group2: u16,
    pub ifm_read3: bool,
    pub ifm_y3: u16,
    pub ifm_x3: u16,
    pub ifm_group3: u16,
    /// Lane i (bit i) carries element (`ofm_y`, `ofm_x` + i / 8, `ofm_channel` + i % 8), its
    /// int8 value at bits 8i+7:8i of `ofm_data`; lanes 0..n-1, and 8..8+n-1 when column
    /// `ofm_x` + 1 is inside the OFM.
    pub ofm_valid: u16,
    pub ofm_y: u16,
    pub ofm_x: u16,
    pub ofm_channel: u16,
    pub ofm_data: u128,
    pub busy: bool,
    pub done: bool,
    pub error_code: u8,
    pub error_detail: u32,
    pub state: u8,
}

/// The traversal's registers: counters, stream parsers and the error, all set by CHECK.
#[derive(Clone, Debug, Default)]
struct Walk {
    code: u8,
    detail: u32,
    total_rows: u32,
    scale_bias_limit: u32,
    /// Decoded weights not yet in a row.
    gathered: Vec<i16>,
    rows: u32,
    held: u128,
    held_count: u32,
    bytes: u32,
    channel: u32,
    block_y: u32,
    block_x: u32,
    origin_y: u32,
    origin_x: u32,
    og: u32,
    address: WeightRows,
    cg_base: u32,
    u: u32,
    ky: u32,
    kx: u32,
    /// The sub-kernel's origin (Vela's sub-kernels, at most `8 / dilation` a side).
    sy: u32,
    sx: u32,
    first: bool,
    drain: u32,
    /// The packed depthwise walk's registers (`depthwise_walk.rs`).
    dw: depthwise_walk::DepthwiseWalk,
}

/// The registers of the RTL, with its widths where a value can wrap.
pub struct ConvDatapath {
    decoder: WeightDecoder,
    mac: ConvMac,
    output: OutputLanes,
    out: OutputWalk,
    /// Rows as the MAC unit's eight weight words.
    weight_buffer: Vec<[u128; CHANNELS]>,
    weight_read: [u128; CHANNELS],
    state: u8,
    /// The registers CHECK starts a layer with.
    walk: Walk,
    mac_valid2: bool,
    clear2: bool,
    pad2: u8,
    live2: u32,
    /// Stage 2 of a packed cycle, and of a tap whose weight row loads the kernel register
    /// (`ky`, `kx`); the feed's registers (`depthwise_feed.rs`).
    dw2: Option<depthwise_feed::Stage2>,
    load2: Option<(usize, usize)>,
    feed: depthwise_feed::DepthwiseFeed,
    ofm_pipe: [(u32, u32, u32); 3],
    events: Vec<&'static str>,
}

impl Default for ConvDatapath {
    fn default() -> Self {
        Self {
            decoder: WeightDecoder::default(),
            mac: ConvMac::default(),
            output: OutputLanes::default(),
            out: OutputWalk::default(),
            weight_buffer: vec![[0; CHANNELS]; WEIGHT_ROWS],
            weight_read: [0; CHANNELS],
            state: STATE_IDLE,
            walk: Walk::default(),
            mac_valid2: false,
            clear2: false,
            pad2: 0,
            live2: 0,
            dw2: None,
            load2: None,
            feed: depthwise_feed::DepthwiseFeed::default(),
            ofm_pipe: [(0, 0, 0); 3],
            events: Vec::new(),
        }
    }
}

impl ConvDatapath {
    pub fn outputs(&self, i: &In) -> Out {
        let taps = self.taps(i);
        let [r0, r1, r2, r3] = self.ifm_reads(&taps);
        let output = self.output.outputs();
        let (y, x, c) = self.ofm_pipe[2];
        Out {
            w_ready: self.decoder.outputs().in_ready && self.state == STATE_DECODE,
            sb_ready: self.state == STATE_SCALE_BIAS,
            ifm_read0: r0.read,
            ifm_y0: r0.y,
            ifm_x0: r0.x,
            ifm_group0: r0.group,
            ifm_read1: r1.read,
            ifm_y1: r1.y,
            ifm_x1: r1.x,
            ifm_group1: r1.group,
            ifm_read2: r2.read,
            ifm_y2: r2.y,
            ifm_x2: r2.x,
            ifm_group2: r2.group,
            ifm_read3: r3.read,
            ifm_y3: r3.y,
            ifm_x3: r3.x,
            ifm_group3: r3.group,
            ofm_valid: output.valid,
            ofm_y: y as u16,
            ofm_x: x as u16,
            ofm_channel: c as u16,
            ofm_data: output.data(),
            busy: self.state != STATE_IDLE,
            done: self.state == STATE_DONE,
            error_code: self.walk.code,
            error_detail: self.walk.detail,
            state: self.state,
        }
    }

    fn clock(&mut self, i: &In) {
        self.events.clear();
        let taps = self.taps(i);
        let state = self.state;
        // DECODE runs the traversal too (decode overlapped with MAC), so `hold` and `hold_mac`
        // hold it there as in MAC; never the decoder and the weight buffer's writes.
        let holding = i.hold && matches!(state, STATE_DECODE | STATE_MAC | STATE_OUT | STATE_DRAIN);
        // The traversal, its weight reads, stage 2 and the MAC unit; the output walk and the
        // output unit go on under `hold_mac` alone.
        let mac_holding = holding || (i.hold_mac && matches!(state, STATE_DECODE | STATE_MAC));
        self.events.push(state_name(state));

        // The blocks, with the inputs of this cycle.
        let decoded = self.decoder.step(&weight_decoder::In {
            reset: i.reset || state == STATE_CHECK,
            in_valid: i.w_valid && state == STATE_DECODE,
            in_data: i.w_data,
            in_last: i.w_last,
            out_ready: state == STATE_DECODE,
        });
        let lanes = |p: usize| {
            let data = i.ifm_data(p);
            pack(&std::array::from_fn(|l| {
                if (l as u32) < self.live2 {
                    i16::from((data >> (8 * l)) as u8 as i8) - i16::from(i.ifm_zero_point)
                } else {
                    0
                }
            }))
        };
        let [w0, w1, w2, w3, w4, w5, w6, w7] = self.weight_read;
        let acc = self.mac.acc_out();
        let mac_enable = self.mac_valid2 && !mac_holding;
        let mac_in = mac_unit::In {
                reset: i.reset,
                enable: mac_enable,
                clear: self.clear2,
                mode: u8::from(i.depthwise && self.dw2.is_none()),
                act16_high: false,
                pad: self.pad2,
                act0: lanes(0),
                act1: lanes(1),
                act2: lanes(2),
                act3: lanes(3),
                w0,
                w1,
                w2,
                w3,
                w4,
                w5,
                w6,
                w7,
                read_index: 0,
        };
        // The packed feed in stage 2: the kernel register takes the tap's weight row, a packed
        // cycle its window words (and the column store its columns 2 and 3).
        if mac_enable && !i.reset {
            if let Some((ky, kx)) = self.load2 {
                self.feed.load(ky, kx, &self.weight_read);
            }
        }
        match self.dw2 {
            Some(stage2) if mac_enable && !i.reset => {
                let ports = [lanes(0), lanes(1), lanes(2), lanes(3)].map(mac_unit::unpack);
                let dilation_y = if i.dilation_y { 2 } else { 1 };
                let kernel = (u32::from(i.kernel_height & 15), u32::from(i.kernel_width & 15));
                let words = self.feed.feed(&stage2, &ports, u32::from(i.stride_y & 3), dilation_y, kernel);
                self.events.push("packed depthwise cycle");
                if stage2.pad != 0 {
                    self.events.push("padding in a packed cycle");
                }
                let unit = |k: usize| words.dot(k / 16, k / 8 % 2, k % 8);
                self.mac.step_packed(&mac_in, !holding, self.out.load() && !mac_holding, self.out.k as u8, unit);
            }
            _ => self.mac.step(&mac_in, !holding, self.out.load() && !mac_holding, self.out.k as u8),
        }
        // The lanes read the parameters of the walk's step (`entry`, before the edge) unless held.
        let entry = self.out.entry(i.ofm_height, i.ofm_width, i.ofm_depth);
        // Memory j serves lanes j and j + 8 (the same channel at the row's two positions).
        let (in_valid, read) = if holding { (0, 0) } else { (self.out.out_valid2, (entry.0 | entry.0 >> 8) as u8) };
        self.output.step(i.reset, in_valid, acc, i.ofm_zero_point, i.act_min, i.act_max, read, entry.1);
        if in_valid & 0b10 != 0 {
            self.events.push("several lanes valid at once");
        }
        if in_valid != 0 && in_valid & 0xFF != 0xFF {
            self.events.push("a partial group of lanes");
        }
        if in_valid & 0x100 != 0 {
            self.events.push("lanes of both columns at once");
        }
        if in_valid & 1 != 0 && in_valid & 0x100 == 0 {
            self.events.push("lanes of the left column only");
        }
        if i.reset {
            *self = Self {
                decoder: std::mem::take(&mut self.decoder),
                mac: std::mem::take(&mut self.mac),
                output: std::mem::take(&mut self.output),
                weight_buffer: std::mem::take(&mut self.weight_buffer),
                events: vec!["reset"],
                ..Self::default()
            };
            return;
        }

        // The OFM address pipeline and stage 2 registers, every cycle as in the RTL.
        self.ofm_pipe = [self.out.ofm2, self.ofm_pipe[0], self.ofm_pipe[1]];
        // DECODE goes on under a hold (the decoder has no clock enable); its verdicts end the
        // phase, while the traversal below still reads `state`, the phase at the cycle's start.
        if state == STATE_DECODE {
            self.decode(i, &decoded);
        }
        if holding {
            self.events.push("held");
            return;
        }
        let finishing = self.out.finishing();
        let issue_last = (taps.issue && taps.last_tap).then_some((self.walk.block_y, self.walk.block_x, self.walk.og));
        self.out.clock(state == STATE_CHECK, issue_last, entry, !mac_holding);
        if mac_holding {
            self.events.push("MAC held, the output walk goes on");
            return;
        }
        self.mac_valid2 = taps.issue;
        self.clear2 = self.walk.first;
        self.pad2 = taps.pad;
        self.live2 = taps.live;
        self.dw2 = None;
        self.load2 = None;
        if taps.issue && taps.packed_block {
            let reads = self.walk.dw.reads(&taps.shape, self.walk.origin_y, self.walk.origin_x);
            let pad = (0..4).fold(0u8, |pad, p| if reads[p].pad { pad | 1 << p } else { pad });
            let (row, rows) = (self.walk.dw.row, self.walk.dw.rows(&taps.shape));
            let reuse = self.walk.dw.kind == depthwise_walk::Kind::Reuse;
            self.dw2 = Some(depthwise_feed::Stage2 { reuse, row, rows, pad });
        } else if taps.issue && taps.layer_packed {
            let (ky, kx) = ((self.walk.sy + self.walk.ky) & 3, (self.walk.sx + self.walk.kx) & 3);
            self.load2 = Some((ky as usize, kx as usize));
        }
        if matches!(state, STATE_MAC | STATE_DECODE) {
            self.weight_read = self.weight_buffer[self.walk.address.row as usize % WEIGHT_ROWS];
        }

        self.control(i, state, &taps, finishing);
    }
}

crate::sequential_block!(ConvDatapath, mealy, events);
