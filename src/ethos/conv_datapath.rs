//! A quantized int8 convolution (or depthwise convolution) on the Ethos-U65 convolution
//! datapath, `npu_hdl::ethos::ConvDatapath`: the traversal unit with the weight decoder, the
//! MAC unit and the output unit inside, all rust-hdl. This file is its test bench and driver:
//! it makes the layer's streams, sets the layer registers, feeds the weight and scale/bias
//! streams, serves the IFM read ports from a memory model and collects the OFM writes, on the
//! Verilated RTL, on the model (`npu_model::ethos::conv_datapath`), or on both in lock step.
//! docs/ethos.md ("Convolution datapath") has the traversal, the timing and the decisions.
//!
//! Inputs as the NPU takes them: the weights as one compressed stream in Vela's order
//! (conv: depth-first or part-kernel-first, OFM blocks of any multiple of 8 channels up to
//! 128; depthwise: Vela's depthwise order), the per-channel
//! scale/bias stream in Vela's 10-byte format (§2.4: int40 bias, uint32 scale, 6-bit shift),
//! the IFM as int8 NHWC. The output unit runs in TFL rounding, which makes the layer
//! bit-exact to TFLite's reference kernels wherever TFLite's own int32 arithmetic does not
//! overflow (an effective scale above 1, which TFLite applies as a wrapping int32 left shift;
//! real networks do not use such scales).
use super::conv::{activation_range, channel_scales, input_tap, padding_offsets};
use super::driver::{cycle_limit, words};
use super::encoder::{encode, EncodeOptions};
use super::reorder::{reorder, ReorderParams, Traversal};
use super::tflite::{output_shape, ConvLayer};
use npu_cosim::lockstep::{drive, Coverage, Mismatch, Run};
use npu_cosim::tops::conv_datapath::ConvDatapath as ConvDatapathDut;
use npu_model::ethos::conv_datapath::{self as model, In, Out};
use npu_model::ethos::mac_unit::CHANNELS;
use npu_model::ethos::weight_decoder::DecodeError;
use rand::Rng;
use std::cell::RefCell;
use std::fmt;

/// Why a layer did not run. Nothing is truncated silently: every mismatch between the
/// streams and the layer is one of these, from the unit's `error_code` (or, for a layer whose
/// sizes do not even fit the registers, from the driver).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvError {
    /// The layer does not fit the register widths, or its kernel cannot be reordered.
    Unsupported(String),
    /// The unit refused the layer registers: `model::SHAPE_*` bits.
    Shape(u32),
    /// The weight decoder reported a malformed stream.
    WeightStream(DecodeError),
    /// The stream decoded to another number of weights: `decoded` when the unit stopped (at
    /// the completion of the first row beyond the layer's, or at the end of a short stream).
    WeightCount { expected: usize, decoded: usize },
    /// Fewer than one 10-byte record per OFM channel.
    ScaleBiasShort { channels: usize, bytes: usize },
    /// More bytes than the records padded to 16 bytes.
    ScaleBiasLong { channels: usize, bytes: usize },
    /// A record's byte 9 has its reserved bits 7:6 set.
    ScaleBiasReserved { channel: usize },
    /// No `done` within the cycle limit (a bug).
    Hung,
}

impl fmt::Display for ConvError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ConvError::Unsupported(why) => write!(f, "unsupported layer: {why}"),
            ConvError::Shape(bits) => {
                let named: Vec<_> = model::SHAPE_REASONS
                    .iter()
                    .filter(|(bit, _)| bits & bit != 0)
                    .map(|(_, why)| *why)
                    .collect();
                write!(f, "layer registers refused: {}", named.join("; "))
            }
            ConvError::WeightStream(e) => write!(f, "malformed weight stream: {} (error code {})", e.message(), *e as u8),
            ConvError::WeightCount { expected, decoded } => {
                write!(
                    f,
                    "the weight stream decoded to {decoded} weights when the unit stopped, the layer needs {expected}"
                )
            }
            ConvError::ScaleBiasShort { channels, bytes } => {
                write!(
                    f,
                    "the scale/bias stream has {bytes} bytes, {channels} channels need {}",
                    10 * channels
                )
            }
            ConvError::ScaleBiasLong { channels, bytes } => {
                write!(
                    f,
                    "the scale/bias stream has {bytes} bytes or more, more than {channels} records padded to 16 bytes"
                )
            }
            ConvError::ScaleBiasReserved { channel } => write!(f, "scale/bias record {channel}: reserved bits 7:6 of the shift byte set"),
            ConvError::Hung => write!(f, "the datapath did not finish"),
        }
    }
}

/// The layer as the datapath takes it.
#[derive(Clone, Debug)]
pub struct Job {
    pub layer: ConvLayer,
    pub weight_stream: Vec<u8>,
    pub scale_bias: Vec<u8>,
    /// Weights the stream must decode to (the reordered kernel with its zero padding).
    pub weights_expected: usize,
    /// Conv: the stream's order is part-kernel-first (else depth-first).
    pub part_kernel: bool,
    /// The order's OFM block depth, a multiple of 8.
    pub ofm_block_depth: usize,
    /// Depthwise: the datapath's `pack_depthwise` (the packed mapping where it applies;
    /// docs/ethos.md, "Depthwise tap packing"); set for every depthwise layer by
    /// [`Job::with_order`].
    pub pack_depthwise: bool,
}

/// The reorder parameters of a layer's kernel (OHWI; depthwise O,H,W,1).
fn reorder_params(layer: &ConvLayer, part_kernel: bool, ofm_block_depth: usize) -> ReorderParams {
    let (_, _, c) = layer.input_shape;
    ReorderParams {
        ofm_depth: layer.out_channels,
        kernel_height: layer.kernel.0,
        kernel_width: layer.kernel.1,
        ifm_depth: if layer.depthwise { 1 } else { c },
        ofm_block_depth,
        kind: if layer.depthwise {
            Traversal::Depthwise
        } else if part_kernel {
            Traversal::PartKernelFirst
        } else {
            Traversal::DepthFirst
        },
        ifm_bitdepth: 8,
        dilation_x: layer.dilation.1 as u8,
        dilation_y: layer.dilation.0 as u8,
    }
}

/// The scale/bias stream of a layer (Vela's `encode_bias` format, §2.4): per OFM channel the
/// bias as int40, TFLite's multiplier as the uint32 scale, and `31 - shift` as the 6-bit
/// shift (TFLite's shift is a left shift, -31..=30; the output unit's a right shift by
/// `shift` of the 31-bit-scaled product); zero bytes up to a multiple of 16, as Vela stores it.
pub fn scale_bias_stream(layer: &ConvLayer) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(10 * layer.out_channels);
    for (o, (multiplier, shift)) in channel_scales(layer).into_iter().enumerate() {
        bytes.extend_from_slice(&scale_bias_record(layer.bias[o], multiplier as u32, (31 - shift) as u8));
    }
    bytes.resize(bytes.len().next_multiple_of(16), 0);
    bytes
}

/// One channel's 10-byte scale/bias record (Vela's `encode_bias`, §2.4): the bias as int40,
/// the scale as uint32, the right shift in a byte, little endian.
pub fn scale_bias_record(bias: i32, scale: u32, shift: u8) -> [u8; 10] {
    let mut record = [0u8; 10];
    record[..5].copy_from_slice(&i64::from(bias).to_le_bytes()[..5]);
    record[5..9].copy_from_slice(&scale.to_le_bytes());
    record[9] = shift;
    record
}

impl Job {
    /// The streams for `layer`: its kernel reordered (depth-first, 8-channel OFM blocks) and
    /// compressed by the project's encoder, and its scale/bias records.
    pub fn new(layer: &ConvLayer) -> Result<Job, ConvError> {
        Self::with_order(layer, false, CHANNELS)
    }

    /// [`Job::new`] with the weights in part-kernel-first order (`part_kernel`, conv only) and
    /// OFM blocks of `ofm_block_depth` channels (a multiple of 8, at most 128).
    pub fn with_order(layer: &ConvLayer, part_kernel: bool, ofm_block_depth: usize) -> Result<Job, ConvError> {
        if ofm_block_depth % CHANNELS != 0 || !(CHANNELS..=128).contains(&ofm_block_depth) {
            return Err(ConvError::Unsupported(format!("OFM block depth {ofm_block_depth}: a multiple of 8 up to 128")));
        }
        let part_kernel = part_kernel && !layer.depthwise;
        let params = reorder_params(layer, part_kernel, ofm_block_depth);
        let ohwi: Vec<i16> = if layer.depthwise {
            // 1HWC -> O,H,W,1.
            let (kh, kw) = layer.kernel;
            let c = layer.out_channels;
            (0..c)
                .flat_map(|o| (0..kh * kw).map(move |e| (o, e)))
                .map(|(o, e)| i16::from(layer.weights[e * c + o]))
                .collect()
        } else {
            layer.weights.iter().map(|&w| i16::from(w)).collect()
        };
        let ordered = reorder(&params, &ohwi).map_err(ConvError::Unsupported)?;
        let weight_stream = encode(&ordered, &EncodeOptions::default()).map_err(|e| ConvError::Unsupported(e.to_string()))?;
        Ok(Job {
            layer: layer.clone(),
            weight_stream,
            scale_bias: scale_bias_stream(layer),
            weights_expected: ordered.len(),
            part_kernel,
            ofm_block_depth,
            pack_depthwise: layer.depthwise,
        })
    }
}

/// Where the cycles of a layer went, from the unit's `state` output and IFM read ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// IDLE, CHECK and DECODE: weight decoding, from `start` to the decoder's `done` (the
    /// traversal runs in DECODE too: `decode_taps` of these cycles issued a tap that reads).
    pub decode: u64,
    /// DECODE cycles in which a tap read the IFM (decode overlapped with MAC).
    pub decode_taps: u64,
    /// Scale/bias records read, up to 4 bytes a cycle.
    pub scale_bias: u64,
    /// MAC cycles (256 MAC slots each).
    pub mac: u64,
    /// Accumulators through the output unit (one a cycle), its drain, and DONE.
    pub output: u64,
    /// MACs of the layer (products TFLite computes, padding taps excluded).
    pub useful_macs: u64,
    /// MAC slots lost at the OFM and IFM edges (positions outside either, not read), in MAC
    /// cycles and in the DECODE cycles of `decode_taps`.
    pub edge_slots: u64,
    /// MAC slots lost to channels beyond the layer's in an 8-channel group, and in depthwise
    /// mode to the 7/8 of the array a depthwise MAC does not use (Table 4-129).
    pub channel_slots: u64,
}

impl Stats {
    pub fn cycles(&self) -> u64 {
        self.decode + self.scale_bias + self.mac + self.output
    }

    /// MAC slots of the cycles that issued a tap or waited in MAC: MAC cycles and the DECODE
    /// cycles whose tap read the IFM (a DECODE tap with no read, all four positions padding,
    /// cannot be told from a wait on the ports and is counted as decoding).
    pub fn tap_slots(&self) -> u64 {
        256 * (self.mac + self.decode_taps)
    }

    /// Useful MACs per cycle over the whole layer, of the 256 peak.
    pub fn utilisation(&self) -> f64 {
        self.useful_macs as f64 / (256.0 * self.cycles() as f64)
    }
}

/// The products TFLite computes for `layer`: per OFM element, the taps inside the IFM times
/// the IFM channels (depthwise: 1).
fn useful_macs(layer: &ConvLayer) -> u64 {
    let (out_h, out_w, out_c) = output_shape(layer);
    let (kh, kw) = layer.kernel;
    let outputs = (0..out_h).flat_map(|oy| (0..out_w).map(move |ox| (oy, ox)));
    let taps = outputs.flat_map(|o| (0..kh).flat_map(move |fy| (0..kw).map(move |fx| (o, (fy, fx)))));
    let inside = taps.filter(|&(o, f)| input_tap(layer, o, f).is_some()).count();
    (inside * out_c * if layer.depthwise { 1 } else { layer.input_shape.2 }) as u64
}

/// The layer registers of `layer` (with `start` low), or why they cannot hold it.
pub fn registers(layer: &ConvLayer) -> Result<In, ConvError> {
    layer.check().map_err(ConvError::Unsupported)?;
    let (h, w, c) = layer.input_shape;
    let (out_h, out_w, out_c) = output_shape(layer);
    let (pad_top, pad_left) = padding_offsets(layer);
    let (act_min, act_max) = activation_range(layer);
    let dims = [h, w, c, out_h, out_w, out_c];
    if dims.iter().any(|&d| d > model::MAX_DIM) {
        return Err(ConvError::Unsupported(format!(
            "{h}x{w}x{c} -> {out_h}x{out_w}x{out_c}: at most 4095 each"
        )));
    }
    if layer.kernel.0 > 15 || layer.kernel.1 > 15 || pad_top > 7 || pad_left > 7 {
        return Err(ConvError::Unsupported(format!(
            "kernel {}x{}: at most 15x15, with a top and left padding of at most 7 (the datapath's ports)",
            layer.kernel.0, layer.kernel.1
        )));
    }
    if layer.stride.0 > 3 || layer.stride.1 > 3 {
        return Err(ConvError::Unsupported(format!("stride {}x{}: 1..=3 each (TRM §6)", layer.stride.0, layer.stride.1)));
    }
    if layer.dilation.0 > 2 || layer.dilation.1 > 2 {
        return Err(ConvError::Unsupported(format!("dilation {}x{}: 1 or 2 each (KERNEL_STRIDE)", layer.dilation.0, layer.dilation.1)));
    }
    Ok(In {
        ifm_height: h as u16,
        ifm_width: w as u16,
        ifm_depth: c as u16,
        ofm_height: out_h as u16,
        ofm_width: out_w as u16,
        ofm_depth: out_c as u16,
        kernel_height: layer.kernel.0 as u8,
        kernel_width: layer.kernel.1 as u8,
        stride_y: layer.stride.0 as u8,
        stride_x: layer.stride.1 as u8,
        dilation_y: layer.dilation.0 == 2,
        dilation_x: layer.dilation.1 == 2,
        pad_top: pad_top as u8,
        pad_left: pad_left as u8,
        depthwise: layer.depthwise,
        ifm_zero_point: layer.input_zero_point,
        ofm_zero_point: layer.output_zero_point,
        act_min: act_min as i8,
        act_max: act_max as i8,
        ..In::default()
    })
}

/// One layer through the unit's ports, a cycle at a time: [`Bench::input`] before the cycle,
/// [`Bench::observe`] with its outputs. The streams are offered unless `stall` says otherwise
/// for that cycle; `hold` holds the unit; the IFM memory answers each read from the next cycle
/// on until the unit takes it (the next cycle it is not held), lanes beyond the IFM depth and
/// ports not read carrying `noise` (the unit must not depend on them).
pub struct Bench<'a> {
    job: &'a Job,
    registers: In,
    weight_words: Vec<u32>,
    next_weight: usize,
    next_scale_bias: usize,
    started: bool,
    /// The reads of the last cycle the unit was not held, answered in this one.
    reads: [model::IfmRead; 4],
    pub ofm: Vec<i8>,
    written: Vec<bool>,
    pub stats: Stats,
    pub outcome: Option<Result<(), ConvError>>,
    cycles: u64,
}

impl<'a> Bench<'a> {
    pub fn new(job: &'a Job) -> Result<Self, ConvError> {
        let registers = In {
            part_kernel: job.part_kernel,
            block_groups_m1: (job.ofm_block_depth / CHANNELS - 1) as u8,
            pack_depthwise: job.pack_depthwise,
            ..registers(&job.layer)?
        };
        let (out_h, out_w, out_c) = output_shape(&job.layer);
        let stats = Stats {
            useful_macs: useful_macs(&job.layer),
            ..Stats::default()
        };
        Ok(Self {
            job,
            registers,
            weight_words: words(&job.weight_stream),
            next_weight: 0,
            next_scale_bias: 0,
            started: false,
            reads: [model::IfmRead {
                read: false,
                y: 0,
                x: 0,
                group: 0,
            }; 4],
            ofm: vec![0; out_h * out_w * out_c],
            written: vec![false; out_h * out_w * out_c],
            stats,
            outcome: None,
            cycles: 0,
        })
    }

    /// A cycle limit no layer may reach: decoding, the records, and per 2x2 block and OFM
    /// group its taps and 32 output cycles, with room to spare.
    fn limit(&self) -> u64 {
        let (out_h, out_w, out_c) = output_shape(&self.job.layer);
        let (kh, kw) = self.job.layer.kernel;
        let groups = (out_h.div_ceil(2) * out_w.div_ceil(2) * out_c.div_ceil(CHANNELS)) as u64;
        let taps = (kh * kw * self.job.layer.input_shape.2.div_ceil(CHANNELS)) as u64;
        cycle_limit(self.job.weight_stream.len()) + self.job.scale_bias.len() as u64 + groups * (taps + 32) + 1000
    }

    /// The inputs of the next cycle; `stall` withholds the streams, `hold` holds the unit,
    /// `hold_mac` its traversal alone, `noise` fills what the unit must ignore.
    pub fn input(&self, stall: bool, hold: bool, hold_mac: bool, noise: &mut impl FnMut() -> u64) -> In {
        let layer = &self.job.layer;
        let (h, w, c) = layer.input_shape;
        let mut i = In {
            start: !self.started,
            hold,
            hold_mac,
            ..self.registers.clone()
        };
        if let Some(&word) = self.weight_words.get(self.next_weight).filter(|_| !stall) {
            i.w_valid = true;
            i.w_data = word;
            i.w_last = self.next_weight + 1 == self.weight_words.len();
        }
        let rest = &self.job.scale_bias[self.next_scale_bias.min(self.job.scale_bias.len())..];
        if !rest.is_empty() && !stall {
            let n = rest.len().min(4);
            i.sb_valid = true;
            let kept = if n == 4 { u32::MAX } else { (1 << (8 * n)) - 1 };
            i.sb_data = rest[..n].iter().rev().fold(0, |word, &b| word << 8 | u32::from(b)) | (noise() as u32 & !kept);
            i.sb_bytes_m1 = n as u8 - 1;
            i.sb_last = n == rest.len();
        }
        let data = self.reads.map(|r| {
            let (y, x, g) = (usize::from(r.y), usize::from(r.x), usize::from(r.group));
            if !r.read {
                return noise();
            }
            assert!(
                y < h && x < w && g * CHANNELS < c,
                "IFM read outside the IFM: y {y} x {x} group {g} of {h}x{w}x{c}"
            );
            let live = (c - g * CHANNELS).min(CHANNELS);
            let beyond = if live == CHANNELS { 0 } else { u64::MAX << (8 * live) };
            (0..live).fold(noise() & beyond, |word, l| {
                word | u64::from(layer.input[(y * w + x) * c + g * CHANNELS + l] as u8) << (8 * l)
            })
        });
        [i.ifm_data0, i.ifm_data1, i.ifm_data2, i.ifm_data3] = data;
        i
    }

    pub fn observe(&mut self, i: &In, o: &Out) {
        self.cycles += 1;
        self.started |= i.start && !i.reset;
        if i.w_valid && o.w_ready {
            self.next_weight += 1;
        }
        if i.sb_valid && o.sb_ready {
            self.next_scale_bias += 4;
        }
        if !held(i, o) {
            self.reads = o.ifm_reads();
        }
        // The MAC slots of this tap's positions that read nothing (outside the OFM or the IFM).
        let lanes = if self.job.layer.depthwise { CHANNELS } else { CHANNELS * CHANNELS } as u64;
        let unread_slots = lanes * self.reads.iter().filter(|r| !r.read).count() as u64;
        match o.state {
            model::STATE_IDLE | model::STATE_CHECK => self.stats.decode += 1,
            model::STATE_DECODE => {
                self.stats.decode += 1;
                // Not held, `self.reads` is this cycle's.
                if !held(i, o) && self.reads.iter().any(|r| r.read) {
                    self.stats.decode_taps += 1;
                    self.stats.edge_slots += unread_slots;
                }
            }
            model::STATE_SCALE_BIAS => self.stats.scale_bias += 1,
            model::STATE_MAC => {
                self.stats.mac += 1;
                self.stats.edge_slots += unread_slots;
            }
            _ => self.stats.output += 1,
        }
        // The OFM lanes: lane l is element (`ofm_y`, `ofm_x` + l / 8, `ofm_channel` + l % 8);
        // the valid lanes must be 0..n-1, and the same n lanes from 8 or none.
        let (left, right) = (o.ofm_valid & 0xFF, o.ofm_valid >> 8);
        assert!(left & (left + 1) == 0 && (right == 0 || right == left), "OFM lanes {:016b} not lanes 0..n-1 (and 8..8+n-1)", o.ofm_valid);
        let values = o.ofm_data.to_le_bytes();
        for (l, &value) in values.iter().enumerate().filter(|&(l, _)| o.ofm_valid >> l & 1 == 1) {
            let (out_h, out_w, out_c) = output_shape(&self.job.layer);
            let (x, c) = (usize::from(o.ofm_x) + l / 8, usize::from(o.ofm_channel) + l % 8);
            assert!(c < out_c, "OFM lane {l} at channel {c} beyond the depth {out_c}");
            assert!(x < out_w && usize::from(o.ofm_y) < out_h, "OFM lane {l} at (y {}, x {x}) outside the OFM", o.ofm_y);
            let at = (usize::from(o.ofm_y) * out_w + x) * out_c + c;
            assert!(!self.written[at], "OFM element (y {}, x {x}, c {c}) written twice", o.ofm_y);
            self.written[at] = true;
            self.ofm[at] = value as i8;
        }
        if o.done {
            self.outcome = Some(self.result(o));
        } else if self.cycles > self.limit() {
            self.outcome = Some(Err(ConvError::Hung));
        }
    }

    fn result(&mut self, o: &Out) -> Result<(), ConvError> {
        let detail = o.error_detail as usize;
        let channels = self.job.layer.out_channels;
        match o.error_code {
            model::ERROR_NONE => {
                assert!(self.written.iter().all(|&w| w), "done, but not every OFM element was written");
                self.stats.channel_slots = self.stats.tap_slots() - self.stats.useful_macs - self.stats.edge_slots;
                Ok(())
            }
            model::ERROR_SHAPE => Err(ConvError::Shape(o.error_detail)),
            model::ERROR_WEIGHT_STREAM => Err(ConvError::WeightStream(
                DecodeError::from_code(detail as u8).unwrap_or_else(|| panic!("unknown decoder error code {detail}")),
            )),
            model::ERROR_WEIGHT_COUNT => Err(ConvError::WeightCount {
                expected: self.job.weights_expected,
                decoded: detail,
            }),
            model::ERROR_SCALE_BIAS_SHORT => Err(ConvError::ScaleBiasShort { channels, bytes: detail }),
            model::ERROR_SCALE_BIAS_LONG => Err(ConvError::ScaleBiasLong { channels, bytes: detail }),
            model::ERROR_SCALE_BIAS_RESERVED => Err(ConvError::ScaleBiasReserved { channel: detail }),
            code => panic!("unknown error code {code}"),
        }
    }

    fn finish(self) -> Result<(Vec<i8>, Stats), ConvError> {
        self.outcome.expect("the layer ran to its end")?;
        Ok((self.ofm, self.stats))
    }
}

/// Resets the unit and runs the layer through `step` (the Verilated RTL's or the model's):
/// its output (NHWC int8) and where the cycles went.
pub fn run(job: &Job, step: &mut dyn FnMut(&In) -> Out) -> Result<(Vec<i8>, Stats), ConvError> {
    let mut bench = Bench::new(job)?;
    step(&In {
        reset: true,
        ..In::default()
    });
    while bench.outcome.is_none() {
        let input = bench.input(false, false, false, &mut || 0);
        let out = step(&input);
        bench.observe(&input, &out);
    }
    bench.finish()
}

/// Whether `hold` applied in the cycle of `i` and `o` (in DECODE, MAC, OUT and DRAIN), or
/// `hold_mac` (in DECODE and MAC: the traversal runs in DECODE too).
fn held(i: &In, o: &Out) -> bool {
    (i.hold && matches!(o.state, model::STATE_DECODE | model::STATE_MAC | model::STATE_OUT | model::STATE_DRAIN))
        || (i.hold_mac && matches!(o.state, model::STATE_DECODE | model::STATE_MAC))
}

/// [`run`] on the Verilated RTL and the model in lock step (any output difference in any
/// cycle is a mismatch), with the streams stalled in a quarter of the cycles, the unit held in
/// a quarter (with `hold_layer`) and noise where the unit must not look. Adds "stream
/// stalled", "held in MAC", "held in OUT", "held in DRAIN" and "held while a value leaves" to
/// the model's events.
pub fn lockstep(run: &Run, job: &Job, hold_layer: bool) -> Result<(Result<(Vec<i8>, Stats), ConvError>, Coverage), Box<Mismatch<ConvDatapathDut>>> {
    let bench = RefCell::new(match Bench::new(job) {
        Ok(bench) => bench,
        Err(e) => return Ok((Err(e), Coverage::default())),
    });
    let limit = bench.borrow().limit() + 1;
    let coverage = drive::<ConvDatapathDut>(
        &Run {
            cycles: limit,
            ..run.clone()
        },
        |rng, _| {
            let stall = rng.gen_ratio(1, 4);
            let hold = hold_layer && rng.gen_ratio(1, 4);
            let hold_mac = hold_layer && rng.gen_ratio(1, 4);
            let mut noise = || rng.gen::<u64>();
            bench.borrow().input(stall, hold, hold_mac, &mut noise)
        },
        |input, out, coverage| {
            if !input.w_valid && !input.sb_valid && matches!(out.state, model::STATE_DECODE | model::STATE_SCALE_BIAS) {
                coverage.hit("stream stalled");
            }
            if held(input, out) {
                coverage.hit(match out.state {
                    model::STATE_DECODE => "held in DECODE",
                    model::STATE_MAC => "held in MAC",
                    model::STATE_OUT => "held in OUT",
                    _ => "held in DRAIN",
                });
                if out.ofm_valid != 0 {
                    coverage.hit("held while a value leaves");
                }
            }
            let mut bench = bench.borrow_mut();
            bench.observe(input, out);
            bench.outcome.is_none()
        },
    )?;
    Ok((bench.into_inner().finish(), coverage))
}

/// The bench's five layers (`make bench`, section `conv`; docs/ethos.md's tables), name and
/// layer, their values drawn from seed 1: the 3x3, 1x1, stride-2, ragged and depthwise layers
/// issue 19 sets targets for. Here so that a test can take the same layer as the bench.
pub fn bench_layers() -> [(&'static str, ConvLayer); 5] {
    use super::tflite::{Activation, Padding};
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    let mut rng = SmallRng::seed_from_u64(1);
    let mut layer = |name: &'static str, (h, w, c): (usize, usize, usize), out: usize, k: usize, stride: usize, depthwise: bool| {
        let weights_len = if depthwise { k * k * c } else { out * k * k * c };
        let layer = ConvLayer {
            input_shape: (h, w, c),
            input: (0..h * w * c).map(|_| rng.gen()).collect(),
            input_scale: 0.02,
            input_zero_point: rng.gen(),
            kernel: (k, k),
            out_channels: out,
            weights: (0..weights_len).map(|_| rng.gen_range(-127..=127)).collect(),
            weight_scales: (0..out).map(|_| rng.gen_range(0.002..0.01)).collect(),
            bias: (0..out).map(|_| rng.gen_range(-5000..5000)).collect(),
            output_scale: 0.5,
            output_zero_point: rng.gen(),
            stride: (stride, stride),
            dilation: (1, 1),
            padding: Padding::Same,
            activation: Activation::Relu,
            depthwise,
        };
        (name, layer)
    };
    [
        layer("conv 3x3, 16x16x32 -> 32", (16, 16, 32), 32, 3, 1, false),
        layer("conv 1x1, 16x16x64 -> 64", (16, 16, 64), 64, 1, 1, false),
        layer("conv 3x3 stride 2, 16x16x32 -> 32", (16, 16, 32), 32, 3, 2, false),
        layer("conv 3x3, 15x15x20 -> 12 (ragged)", (15, 15, 20), 12, 3, 1, false),
        layer("depthwise 3x3, 16x16x32", (16, 16, 32), 32, 3, 1, true),
    ]
}
