//! A quantized int8 convolution (or depthwise convolution) on the Ethos-U65 datapath blocks:
//! the weight decoder, the MAC unit and the output unit (RTL in `npu_hdl::ethos`), stepped
//! cycle by cycle by a sequencer written here in Rust, which plays the NPU's traversal unit:
//! it parses the scale/bias stream, keeps the decoded weights in a weight buffer, reads the
//! IFM from a memory model, walks the OFM in 2x2 blocks and feeds the output unit. The blocks
//! are the Verilated RTL, their models, or both in lock step ([`Units`]). docs/ethos.md
//! ("Convolution datapath") has the traversal, the cycle accounting and the decisions.
//!
//! Inputs as the NPU takes them: the weights as one compressed stream in Vela's depth-first
//! order with 8-channel OFM blocks (depthwise: Vela's depthwise order), the per-channel
//! scale/bias stream in Vela's 10-byte format (§2.4: int40 bias, uint32 scale, 6-bit shift),
//! the IFM as int8 NHWC. The output unit runs in TFL rounding, which makes the layer
//! bit-exact to TFLite's reference kernels wherever TFLite's own int32 arithmetic does not
//! overflow (an effective scale above 1, which TFLite applies as a wrapping int32 left shift;
//! real networks do not use such scales).
use super::conv::{activation_range, channel_scales, padding_offsets};
use super::driver::{decode, Outcome};
use super::encoder::{encode, EncodeOptions};
use super::reorder::{reorder, ReorderParams, Traversal};
use super::tflite::{output_shape, ConvLayer};
use npu_cosim::{Dut, DutOptions};
use npu_model::ethos::mac_unit::{self, pack, CHANNELS, POSITIONS};
use npu_model::ethos::output_unit;
use npu_model::ethos::weight_decoder::{self, DecodeError};
use npu_model::Block;
use std::collections::VecDeque;
use std::fmt;

/// Kernel elements a weight-buffer row set may have without Vela splitting the kernel into
/// sub-kernels (`SUBKERNEL_MAX`, §1.9): larger kernels are refused.
pub const MAX_KERNEL: usize = 8;
/// Rows of 8x8 weights the weight buffer holds.
pub const WEIGHT_ROWS: usize = 4096;
/// The IFM's largest height, width and channel count the sequencer's counters take.
pub const MAX_DIM: usize = 4096;

/// Why a layer did not run. Nothing is truncated silently: every mismatch between the
/// streams and the layer is one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvError {
    /// A shape the datapath cannot take (kernel above 8, too many weights for the buffer...).
    Unsupported(String),
    /// The weight decoder reported a malformed stream.
    WeightStream(DecodeError),
    /// The stream decoded without error but to the wrong number of weights.
    WeightCount { expected: usize, decoded: usize },
    /// Fewer than one 10-byte record per OFM channel.
    ScaleBiasShort { channels: usize, bytes: usize },
    /// More bytes than the records plus padding to 16 bytes.
    ScaleBiasLong { channels: usize, bytes: usize },
    /// A record's byte 9 has its reserved bits 7:6 set.
    ScaleBiasReserved { channel: usize },
    /// The decoder neither finished nor failed (a bug).
    Hung,
}

impl fmt::Display for ConvError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ConvError::Unsupported(why) => write!(f, "unsupported layer: {why}"),
            ConvError::WeightStream(e) => write!(f, "malformed weight stream: {} (error code {})", e.message(), *e as u8),
            ConvError::WeightCount { expected, decoded } => {
                write!(f, "the weight stream holds {decoded} weights, the layer needs {expected}")
            }
            ConvError::ScaleBiasShort { channels, bytes } => {
                write!(f, "the scale/bias stream has {bytes} bytes, {channels} channels need {}", 10 * channels)
            }
            ConvError::ScaleBiasLong { channels, bytes } => {
                write!(f, "the scale/bias stream has {bytes} bytes, more than {channels} records padded to 16 bytes")
            }
            ConvError::ScaleBiasReserved { channel } => write!(f, "scale/bias record {channel}: reserved bits 7:6 of the shift byte set"),
            ConvError::Hung => write!(f, "the weight decoder hung"),
        }
    }
}

/// One channel's output-unit parameters, as its scale/bias record holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelParams {
    pub bias: i64,
    pub scale: u32,
    pub shift: u8,
}

/// The layer as the datapath takes it.
#[derive(Clone, Debug)]
pub struct Job {
    pub layer: ConvLayer,
    pub weight_stream: Vec<u8>,
    pub scale_bias: Vec<u8>,
    /// Weights the stream must decode to (the reordered kernel with its zero padding).
    pub weights_expected: usize,
}

/// The reorder parameters of a layer's kernel (OHWI; depthwise O,H,W,1).
fn reorder_params(layer: &ConvLayer) -> ReorderParams {
    let (_, _, c) = layer.input_shape;
    ReorderParams {
        ofm_depth: layer.out_channels,
        kernel_height: layer.kernel.0,
        kernel_width: layer.kernel.1,
        ifm_depth: if layer.depthwise { 1 } else { c },
        ofm_block_depth: CHANNELS,
        kind: if layer.depthwise { Traversal::Depthwise } else { Traversal::DepthFirst },
        ifm_bitdepth: 8,
        dilation_x: 1,
        dilation_y: 1,
    }
}

/// The scale/bias stream of a layer (Vela's `encode_bias` format, §2.4): per OFM channel the
/// bias as int40, TFLite's multiplier as the uint32 scale, and `31 - shift` as the 6-bit
/// shift (TFLite's shift is a left shift, -31..=30; the output unit's a right shift by
/// `shift` of the 31-bit-scaled product).
pub fn scale_bias_stream(layer: &ConvLayer) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(10 * layer.out_channels);
    for (o, (multiplier, shift)) in channel_scales(layer).into_iter().enumerate() {
        bytes.extend_from_slice(&i64::from(layer.bias[o]).to_le_bytes()[..5]);
        bytes.extend_from_slice(&(multiplier as u32).to_le_bytes());
        bytes.push((31 - shift) as u8);
    }
    bytes
}

/// Parses a scale/bias stream for `channels` OFM channels.
pub fn parse_scale_bias(bytes: &[u8], channels: usize) -> Result<Vec<ChannelParams>, ConvError> {
    if bytes.len() < 10 * channels {
        return Err(ConvError::ScaleBiasShort { channels, bytes: bytes.len() });
    }
    if bytes.len() > (10 * channels).next_multiple_of(16) {
        return Err(ConvError::ScaleBiasLong { channels, bytes: bytes.len() });
    }
    bytes
        .chunks_exact(10)
        .take(channels)
        .enumerate()
        .map(|(channel, r)| {
            if r[9] & 0xC0 != 0 {
                return Err(ConvError::ScaleBiasReserved { channel });
            }
            let mut bias = [0u8; 8];
            bias[..5].copy_from_slice(&r[..5]);
            Ok(ChannelParams {
                bias: (i64::from_le_bytes(bias) << 24) >> 24,
                scale: u32::from_le_bytes([r[5], r[6], r[7], r[8]]),
                shift: r[9],
            })
        })
        .collect()
}

impl Job {
    /// The streams for `layer`: its kernel reordered and compressed by the project's encoder,
    /// and its scale/bias records.
    pub fn new(layer: &ConvLayer) -> Result<Job, ConvError> {
        let params = reorder_params(layer);
        let ohwi: Vec<i16> = if layer.depthwise {
            // 1HWC -> O,H,W,1.
            let (kh, kw) = layer.kernel;
            let c = layer.out_channels;
            (0..c).flat_map(|o| (0..kh * kw).map(move |e| (o, e))).map(|(o, e)| i16::from(layer.weights[e * c + o])).collect()
        } else {
            layer.weights.iter().map(|&w| i16::from(w)).collect()
        };
        let ordered = reorder(&params, &ohwi).map_err(ConvError::Unsupported)?;
        let weight_stream = encode(&ordered, &EncodeOptions::default()).map_err(|e| ConvError::Unsupported(e.to_string()))?;
        Ok(Job { layer: layer.clone(), weight_stream, scale_bias: scale_bias_stream(layer), weights_expected: ordered.len() })
    }
}

/// Where the cycles of a layer went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Weight decoding, from the first stream word to `done`.
    pub decode: u64,
    /// Scale/bias records read, one 32-bit word a cycle.
    pub scale_bias: u64,
    /// MAC cycles (256 MAC slots each).
    pub mac: u64,
    /// Accumulators through the output unit, one a cycle, and its pipeline drain.
    pub output: u64,
    /// MACs of the layer (products TFLite computes, padding taps excluded).
    pub useful_macs: u64,
    /// MAC slots lost at the OFM edges (2x2 positions outside the OFM) and to padding taps.
    pub edge_slots: u64,
    /// MAC slots lost to channels beyond the layer's in an 8-channel group.
    pub channel_slots: u64,
}

impl Stats {
    pub fn cycles(&self) -> u64 {
        self.decode + self.scale_bias + self.mac + self.output
    }

    /// Useful MACs per cycle over the whole layer, of the 256 peak.
    pub fn utilisation(&self) -> f64 {
        self.useful_macs as f64 / (256.0 * self.cycles() as f64)
    }
}

/// The three datapath blocks, stepped one cycle at a time.
pub trait Units {
    fn decoder(&mut self, i: &weight_decoder::In) -> weight_decoder::Out;
    fn mac(&mut self, i: &mac_unit::In) -> mac_unit::Out;
    fn output(&mut self, i: &output_unit::In) -> output_unit::Out;
}

/// The blocks' models.
#[derive(Default)]
pub struct Models {
    pub decoder: weight_decoder::WeightDecoder,
    pub mac: mac_unit::MacUnit,
    pub output: output_unit::OutputUnit,
}

/// The Verilated RTL of the blocks.
pub struct Verilated {
    decoder: npu_cosim::tops::weight_decoder::WeightDecoder,
    mac: npu_cosim::tops::mac_unit::MacUnit,
    output: npu_cosim::tops::output_unit::OutputUnit,
}

impl Verilated {
    pub fn open(x_seed: u64) -> Self {
        let options = DutOptions::from_env(x_seed);
        Self {
            decoder: npu_cosim::tops::weight_decoder::WeightDecoder::open(&options),
            mac: npu_cosim::tops::mac_unit::MacUnit::open(&options),
            output: npu_cosim::tops::output_unit::OutputUnit::open(&options),
        }
    }
}

/// `Units` for a struct whose fields `decoder`, `mac` and `output` step the blocks (the
/// models' `Block::step` or the Verilated handles' `Dut::step`).
macro_rules! units_by_fields {
    ($units:ty) => {
        impl Units for $units {
            fn decoder(&mut self, i: &weight_decoder::In) -> weight_decoder::Out {
                self.decoder.step(i)
            }
            fn mac(&mut self, i: &mac_unit::In) -> mac_unit::Out {
                self.mac.step(i)
            }
            fn output(&mut self, i: &output_unit::In) -> output_unit::Out {
                self.output.step(i)
            }
        }
    };
}
units_by_fields!(Models);
units_by_fields!(Verilated);

/// The RTL and the models in lock step: every cycle of every block must agree (except in a
/// reset cycle, whose outputs show the RTL's random power-up state).
pub struct Lockstep {
    pub rtl: Verilated,
    pub models: Models,
    /// Cycles compared, per block.
    pub compared: [u64; 3],
}

impl Lockstep {
    pub fn open(x_seed: u64) -> Self {
        Self { rtl: Verilated::open(x_seed), models: Models::default(), compared: [0; 3] }
    }
}

fn agree<T: PartialEq + fmt::Debug, I: fmt::Debug>(block: &str, cycle: u64, reset: bool, input: &I, rtl: T, model: T) -> T {
    assert!(reset || rtl == model, "{block}: Verilog and model differ at its cycle {cycle}\n  inputs:  {input:?}\n  model:   {model:?}\n  verilog: {rtl:?}");
    rtl
}

impl Units for Lockstep {
    fn decoder(&mut self, i: &weight_decoder::In) -> weight_decoder::Out {
        self.compared[0] += 1;
        agree("weight_decoder", self.compared[0], i.reset, i, self.rtl.decoder(i), self.models.decoder(i))
    }
    fn mac(&mut self, i: &mac_unit::In) -> mac_unit::Out {
        self.compared[1] += 1;
        agree("mac_unit", self.compared[1], i.reset, i, self.rtl.mac(i), self.models.mac(i))
    }
    fn output(&mut self, i: &output_unit::In) -> output_unit::Out {
        self.compared[2] += 1;
        agree("output_unit", self.compared[2], i.reset, i, self.rtl.output(i), self.models.output(i))
    }
}

/// Checks what the sequencer's buffers and counters can take.
fn check_shape(job: &Job) -> Result<(), ConvError> {
    let layer = &job.layer;
    layer.check().map_err(ConvError::Unsupported)?;
    let (h, w, c) = layer.input_shape;
    let (kh, kw) = layer.kernel;
    if kh > MAX_KERNEL || kw > MAX_KERNEL {
        return Err(ConvError::Unsupported(format!("kernel {kh}x{kw}: at most {MAX_KERNEL}x{MAX_KERNEL} (larger kernels are split into sub-kernels, which this sequencer does not walk)")));
    }
    if h > MAX_DIM || w > MAX_DIM || c > MAX_DIM || layer.out_channels > MAX_DIM {
        return Err(ConvError::Unsupported(format!("{h}x{w}x{c} -> {} channels: at most {MAX_DIM} each", layer.out_channels)));
    }
    if !(1..=3).contains(&layer.stride.0) || !(1..=3).contains(&layer.stride.1) {
        return Err(ConvError::Unsupported(format!("stride {:?}: 1..=3 each (TRM §6)", layer.stride)));
    }
    let lanes = if layer.depthwise { CHANNELS } else { CHANNELS * CHANNELS };
    if job.weights_expected.div_ceil(lanes) > WEIGHT_ROWS {
        return Err(ConvError::Unsupported(format!("{} weights: more than the buffer's {WEIGHT_ROWS} rows", job.weights_expected)));
    }
    Ok(())
}

/// One MAC cycle of the traversal: weight-buffer row, kernel element and IFM channel group.
#[derive(Clone, Copy, Debug)]
struct Tap {
    row: usize,
    ky: usize,
    kx: usize,
    channel_group: usize,
}

/// The MAC cycles of OFM channel group `og`, in weight-stream order (§1.9.1, §1.9.2): depth-first
/// conv rows are (32-channel IFM block, kernel element, 8-channel micro-block), the
/// micro-blocks beyond the IFM depth (zero weights) skipped; depthwise rows are kernel elements,
/// padded to a multiple of 4 (skipped).
fn taps(layer: &ConvLayer, og: usize) -> Vec<Tap> {
    let (_, _, c) = layer.input_shape;
    let (kh, kw) = layer.kernel;
    let elements = kh * kw;
    let mut taps = Vec::new();
    if layer.depthwise {
        let rows = elements.next_multiple_of(4);
        for e in 0..elements {
            taps.push(Tap { row: og * rows + e, ky: e / kw, kx: e % kw, channel_group: og });
        }
    } else {
        let blocks = c.div_ceil(32);
        let rows = blocks * elements * 4;
        for b in 0..blocks {
            for e in 0..elements {
                for u in 0..4 {
                    let channel_group = 4 * b + u;
                    if channel_group * CHANNELS < c {
                        taps.push(Tap { row: og * rows + (b * elements + e) * 4 + u, ky: e / kw, kx: e % kw, channel_group });
                    }
                }
            }
        }
    }
    taps
}

/// Runs the layer on `units`: its output (NHWC int8) and where the cycles went.
pub fn run(job: &Job, units: &mut impl Units) -> Result<(Vec<i8>, Stats), ConvError> {
    check_shape(job)?;
    let layer = &job.layer;
    let mut stats = Stats::default();
    // Weights: decode the stream, keep the rows.
    let decoded = decode(&job.weight_stream, |i| units.decoder(i));
    stats.decode = decoded.cycles;
    match decoded.outcome {
        Outcome::Done => {}
        Outcome::Error(e) => return Err(ConvError::WeightStream(e)),
        Outcome::Hung => return Err(ConvError::Hung),
    }
    if decoded.weights.len() != job.weights_expected {
        return Err(ConvError::WeightCount { expected: job.weights_expected, decoded: decoded.weights.len() });
    }
    let row_weights = if layer.depthwise { CHANNELS } else { CHANNELS * CHANNELS };
    let mut rows = vec![[[0i16; CHANNELS]; CHANNELS]; decoded.weights.len().div_ceil(row_weights)];
    for (k, &w) in decoded.weights.iter().enumerate() {
        let row = &mut rows[k / row_weights];
        if layer.depthwise {
            row[k % CHANNELS][k % CHANNELS] = w;
        } else {
            row[(k / CHANNELS) % CHANNELS][k % CHANNELS] = w;
        }
    }
    // Scale/bias, one 32-bit word a cycle.
    let params = parse_scale_bias(&job.scale_bias, layer.out_channels)?;
    stats.scale_bias = job.scale_bias.len().div_ceil(4) as u64;

    let (h, w, c) = layer.input_shape;
    let (out_h, out_w, out_c) = output_shape(layer);
    let (pad_top, pad_left) = padding_offsets(layer);
    let (act_min, act_max) = activation_range(layer);
    let zero_point = i16::from(layer.input_zero_point);
    let mut ofm = vec![0i8; out_h * out_w * out_c];
    units.mac(&mac_unit::In { reset: true, ..Default::default() });
    units.output(&output_unit::In { reset: true, ..Default::default() });
    // OFM indices of the values in the output unit's pipeline.
    let mut pending: VecDeque<usize> = VecDeque::new();
    let take = |out: output_unit::Out, pending: &mut VecDeque<usize>, ofm: &mut Vec<i8>| {
        if out.out_valid {
            let at = pending.pop_front().expect("an output-unit value for every valid input");
            ofm[at] = out.out_value as i8;
        }
    };
    let mode = if layer.depthwise { 1 } else { 0 };
    for by in (0..out_h).step_by(2) {
        for bx in (0..out_w).step_by(2) {
            let position = |p: usize| (by + p / 2, bx + p % 2);
            let inside = |p: usize| {
                let (oy, ox) = position(p);
                oy < out_h && ox < out_w
            };
            for og in 0..out_c.div_ceil(CHANNELS) {
                for (n, tap) in taps(layer, og).into_iter().enumerate() {
                    let mut pad = 0u8;
                    let mut acts = [0u128; POSITIONS];
                    for (p, act) in acts.iter_mut().enumerate() {
                        let (oy, ox) = position(p);
                        let y = (oy * layer.stride.0 + tap.ky).checked_sub(pad_top).filter(|&y| y < h);
                        let x = (ox * layer.stride.1 + tap.kx).checked_sub(pad_left).filter(|&x| x < w);
                        let (Some(y), Some(x), true) = (y, x, inside(p)) else {
                            pad |= 1 << p;
                            stats.edge_slots += if layer.depthwise { CHANNELS } else { CHANNELS * CHANNELS } as u64;
                            continue;
                        };
                        let lane = |l: usize| {
                            let ch = tap.channel_group * CHANNELS + l;
                            if ch < c {
                                i16::from(layer.input[(y * w + x) * c + ch]) - zero_point
                            } else {
                                0
                            }
                        };
                        *act = pack(&std::array::from_fn(lane));
                        let live_in = (c - tap.channel_group * CHANNELS).min(CHANNELS);
                        let live_out = (out_c - og * CHANNELS).min(CHANNELS);
                        let useful = if layer.depthwise { live_out.min(live_in) } else { live_out * live_in };
                        stats.useful_macs += useful as u64;
                        let slots = if layer.depthwise { CHANNELS } else { CHANNELS * CHANNELS };
                        stats.channel_slots += (slots - useful) as u64;
                    }
                    let row = &rows[tap.row];
                    units.mac(&mac_unit::In {
                        reset: false,
                        enable: true,
                        clear: n == 0,
                        mode,
                        act16_high: false,
                        pad,
                        act0: acts[0],
                        act1: acts[1],
                        act2: acts[2],
                        act3: acts[3],
                        w0: pack(&row[0]),
                        w1: pack(&row[1]),
                        w2: pack(&row[2]),
                        w3: pack(&row[3]),
                        w4: pack(&row[4]),
                        w5: pack(&row[5]),
                        w6: pack(&row[6]),
                        w7: pack(&row[7]),
                        read_index: 0,
                    });
                    stats.mac += 1;
                }
                // The 32 accumulators through the output unit.
                for k in 0..POSITIONS * CHANNELS {
                    let (p, o) = (k / CHANNELS, og * CHANNELS + k % CHANNELS);
                    let acc = units.mac(&mac_unit::In { read_index: k as u8, ..Default::default() }).acc_out;
                    let valid = inside(p) && o < out_c;
                    let channel = params[o.min(out_c - 1)];
                    let out = units.output(&output_unit::In {
                        in_valid: valid,
                        acc: ((acc << 24) as i64) >> 24,
                        bias: channel.bias,
                        scale: channel.scale,
                        shift: channel.shift,
                        rounding: output_unit::Rounding::Tfl as u8,
                        zero_point: i16::from(layer.output_zero_point),
                        act_min: act_min as i16,
                        act_max: act_max as i16,
                        ..Default::default()
                    });
                    if valid {
                        let (oy, ox) = position(p);
                        pending.push_back((oy * out_w + ox) * out_c + o);
                    }
                    take(out, &mut pending, &mut ofm);
                    stats.output += 1;
                }
            }
        }
    }
    while !pending.is_empty() {
        let out = units.output(&output_unit::In::default());
        take(out, &mut pending, &mut ofm);
        stats.output += 1;
    }
    Ok((ofm, stats))
}
