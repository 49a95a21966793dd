//! The reference executor of Ethos-U65 command streams: plain Rust, no cycles. It runs the
//! operations of a decoded stream ([`crate::ethos::operation::operations`]) over a memory
//! image whose regions sit at base pointers the caller chooses (the driver's BASEP
//! registers), one operation after the other: waits, `NPU_OP_STOP` and the block
//! dependencies only order work, and in-order execution honours every order they express.
//!
//! Feature maps (digest §2.2, §3.3): element (y, x, c) of a map lies in one of four tiles
//! (tile 0 top-left, 1 top-right from column `WIDTH0`, 2 and 3 below rows `HEIGHT0` and
//! `HEIGHT1`) at `base[tile] + y·stride_y + x·stride_x` plus `c·stride_c` (NHWC) or
//! `(c / 16)·stride_c + (c mod 16)·element` (NHCWB16: 16-channel bricks).
//! The IFM's extent is what the OFM stripe, kernel, strides and padding need:
//! `(ofm - 1)·stride + dilated kernel - pad_before - pad_after` rows (columns); reads
//! outside it are padding.
//!
//! Arithmetic. The TRM gives no formula for any of it (digest §2.3); these are the ones
//! that, with the registers Vela 5.2 writes, give TFLite's reference kernels' results
//! (`tests/ethos_network.rs`). `apply_scale` is the output unit's
//! ([`npu_model::ethos::output_unit::apply_scale`]: `v·scale / 2^shift` with the rounding
//! mode of `OFM_PRECISION[15:14]`), `zp` the zero points, `clamp` to ACTIVATION_MIN/MAX:
//!
//! ```text
//! CONV/DEPTHWISE  acc = Σ w·(ifm - zp_ifm) over the taps inside the IFM
//!                 out = clamp(apply_scale(acc + bias, scale, shift) + zp_ofm)   (10-byte record per channel)
//! POOL max        out = clamp(max(ifm - zp_ifm over taps inside) + zp_ofm)
//! POOL average    out = clamp(apply_scale(Σ (ifm - zp_ifm) over taps inside, OFM_SCALE) + zp_ofm)
//! ELEMENTWISE     a, b = the operands minus their zero points (IFM2 broadcast along the axes
//!                 IFM2_BROADCAST names, or its scalar); IFM2 is operand B unless bit 6 says A
//!   ADD/SUB       scale mode 0 (IFM_PRECISION[9:8]): a' = a·OPA_SCALE, b' = b·OPB_SCALE (16 bit)
//!                 mode 1 (2): the operand A (B) a' = apply_scale_tfl(a·2^20, OPA_SCALE, OPA_SHIFT + 20),
//!                 the other b' = b·2^19 (TFLite's 8-bit ADD: both inputs shifted left by 20,
//!                 the larger-scale one multiplied by 0.5 in Q31, which is exact)
//!                 r = a' ± b'
//!   MUL           r = a·b
//!   MAX/MIN       r = max/min(a, b)
//!                 out = clamp(apply_scale(r, OFM_SCALE) + zp_ofm)
//! ```
//! The ELEMENTWISE formulas are written once, in `npu_model::ethos::elementwise::combine`,
//! which the NPU's elementwise unit model uses too. Where these come from: CONV is TFLite's `ConvPerChannel` with Vela's `encode_bias`
//! records ([`crate::ethos::conv`]); the ADD/SUB modes are Vela's
//! `generate_scaling_for_elementwise` and `scaling.advanced_elementwise_add_sub_scale` (the
//! smaller-scale operand gets `quantise_scale(s_min·2^20 / (2·s_max))`, the output
//! `quantise_scale(2·s_max / (s_out·2^20))`) laid over TFLite's `reference_ops::Add`
//! (left shift 20, `MultiplyByQuantizedMultiplierSmallerThanOneExp`); MUL is
//! `elementwise_mul_scale` over TFLite's `MulElementwise`; average pooling is
//! `quantise_pooling_scale(n)` (`((2^(31+k) + 2^k) / n`, shift `31 + k`, `k = bitlen(n - 1)`).
//!
//! Average pooling over padding divides by the taps inside (TFLite's rounding, half away
//! from zero), not by OFM_SCALE. A POOL with IFM_UPSCALE 1 reads the IFM upscaled 2x2 by
//! nearest neighbour ([`Exec::upscale`]), a CONV with IFM_UPSCALE 2 the IFM upscaled by zero
//! insertion, a DEPTHWISE with IFM_UPSCALE 1 the IFM upscaled by nearest neighbour
//! ([`Exec::upscale`]). DMA: see [`Exec::dma`]. Anything else (another precision, a
//! lookup table, another upscale, a DMA into the NPU's internal memory, an access beyond the memory
//! image) is an [`ExecError`] naming the command's offset and the field's value, never a
//! guess. docs/ethos.md "Reference executor" lists the decisions.
use super::command_stream::StreamError;
use super::network::{CompiledModel, Placement};
use super::operation::{FeatureMap, Operation};
use super::reorder::{reorder, ReorderParams, Traversal};
use npu_model::ethos::output_unit::{apply_scale, Params, Rounding};
use std::fmt;

/// The memory the NPU sees: one byte array, and the base pointer of each region in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    pub bytes: Vec<u8>,
    /// BASEP0..7: region r starts at byte `base[r]` of `bytes`.
    pub base: [u64; 8],
}

/// Zero bytes after the read-only region. Vela's C++ core leaves trailing zero bytes out of
/// the read-only data it writes: a [1, 1, 33] constant whose last byte is 0 comes out as 32
/// bytes, and the stream reads all 33 (`tests/ethos_network.rs`, SEED=2, network 3). The
/// memory image supplies those zeros.
pub const READ_ONLY_ZEROS: usize = 4096;

impl Memory {
    /// The memory image of a model Vela compiled: its read-only region followed by
    /// [`READ_ONLY_ZEROS`] zero bytes, scratch and scratch_fast, one after the other (each at
    /// a 16-byte boundary; other regions at 0), zeros but for the read-only bytes and
    /// `input` at the model input's place.
    pub fn load(model: &CompiledModel, input: &[u8]) -> Result<Memory, String> {
        let mut base = [0u64; 8];
        let mut size = 0u64;
        let read_only = model.weight_data.len() + READ_ONLY_ZEROS;
        for (region, len) in [(model.weight_region, read_only), (model.scratch_region, model.scratch_size), (model.scratch_fast_region, model.scratch_fast_size)] {
            let slot = base.get_mut(region as usize).ok_or_else(|| format!("region {region} is not one of 0..7"))?;
            *slot = size;
            size = (size + len as u64).next_multiple_of(16);
        }
        let mut memory = Memory { bytes: vec![0; size as usize], base };
        let weights = base[model.weight_region as usize] as usize;
        memory.bytes[weights..weights + model.weight_data.len()].copy_from_slice(&model.weight_data);
        let place = model.inputs.first().ok_or("the model has no input")?;
        if place.bytes() != input.len() {
            return Err(format!("the input has {} bytes, the model takes {}", input.len(), place.bytes()));
        }
        memory.tensor_mut(place)?.copy_from_slice(input);
        Ok(memory)
    }

    fn span(&self, place: &Placement) -> Result<std::ops::Range<usize>, String> {
        let start = self.base.get(place.region as usize).ok_or_else(|| format!("region {} is not one of 0..7", place.region))? + place.offset;
        let end = start + place.bytes() as u64;
        if end > self.bytes.len() as u64 {
            return Err(format!("a tensor of {} bytes at offset {:#x} of region {} lies beyond the memory", place.bytes(), place.offset, place.region));
        }
        Ok(start as usize..end as usize)
    }

    /// The bytes of a model input or output.
    pub fn tensor(&self, place: &Placement) -> Result<&[u8], String> {
        Ok(&self.bytes[self.span(place)?])
    }

    fn tensor_mut(&mut self, place: &Placement) -> Result<&mut [u8], String> {
        let span = self.span(place)?;
        Ok(&mut self.bytes[span])
    }
}

/// Why an operation could not be executed; `offset` is the byte offset of the operation's
/// command in the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// The stream itself did not decode.
    Stream(StreamError),
    /// A field value the executor does not implement.
    Unsupported { offset: usize, what: String },
    /// An access of `len` bytes at `address` (region `region` + offset) beyond the memory.
    Access { offset: usize, region: u16, address: u64, len: u64 },
    /// The weight or scale stream does not fit the operation.
    Weights { offset: usize, what: String },
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Stream(e) => write!(f, "{e}"),
            ExecError::Unsupported { offset, what } => write!(f, "command at byte {offset:#x}: {what} is not supported"),
            ExecError::Access { offset, region, address, len } => {
                write!(f, "command at byte {offset:#x}: {len} bytes at {address:#x} (region {region}) lie beyond the memory")
            }
            ExecError::Weights { offset, what } => write!(f, "command at byte {offset:#x}: {what}"),
        }
    }
}

impl std::error::Error for ExecError {}

impl From<StreamError> for ExecError {
    fn from(e: StreamError) -> Self {
        ExecError::Stream(e)
    }
}

/// What one operation did, for coverage and messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Executed {
    /// The operation's name and mode (`CONV`, `POOL max`, `ELEMENTWISE add`, `DMA`).
    pub kind: String,
    pub offset: usize,
    /// Properties seen: `nhcwb16 ifm`, `broadcast`, `scalar`, `saturated`, `padding`, ...
    pub seen: Vec<&'static str>,
}

/// Runs a driver payload's stream: decode, operations, execute.
pub fn run_stream(stream: &[u32], memory: &mut Memory) -> Result<Vec<Executed>, ExecError> {
    let commands = super::command_stream::decode(stream)?;
    execute(&super::operation::operations(&commands), memory)
}

/// Executes `ops` in order on `memory`.
pub fn execute(ops: &[Operation], memory: &mut Memory) -> Result<Vec<Executed>, ExecError> {
    ops.iter().map(|op| Exec { op, memory: &mut *memory, seen: Vec::new() }.run()).collect()
}

struct Exec<'a> {
    op: &'a Operation,
    memory: &'a mut Memory,
    seen: Vec<&'static str>,
}

/// Where a feature map's elements are: the map, its tiles' split, its extent.
struct Map {
    fm: FeatureMap,
    /// Tile 0's height, tile 1's height, tile 0's width.
    split: (i64, i64, i64),
}

impl Exec<'_> {
    fn unsupported<T>(&self, what: String) -> Result<T, ExecError> {
        Err(ExecError::Unsupported { offset: self.op.offset, what })
    }

    fn run(mut self) -> Result<Executed, ExecError> {
        let kind = match self.op.name {
            "NPU_OP_DMA_START" => {
                self.dma()?;
                "DMA".to_string()
            }
            "NPU_OP_CONV" | "NPU_OP_DEPTHWISE" => {
                self.convolution(self.op.name == "NPU_OP_DEPTHWISE")?;
                self.op.name.trim_start_matches("NPU_OP_").to_string()
            }
            "NPU_OP_POOL" => {
                let mode = match self.op.mode {
                    0 => "max",
                    1 => "average",
                    m => return self.unsupported(format!("POOL mode {m}")),
                };
                self.pool(mode == "max")?;
                format!("POOL {mode}")
            }
            "NPU_OP_ELEMENTWISE" => {
                let mode = match self.op.mode {
                    0 => "mul",
                    1 => "add",
                    2 => "sub",
                    3 => "min",
                    4 => "max",
                    m => return self.unsupported(format!("ELEMENTWISE mode {m}")),
                };
                self.elementwise(mode)?;
                format!("ELEMENTWISE {mode}")
            }
            other => return self.unsupported(format!("operation {other}")),
        };
        Ok(Executed { kind, offset: self.op.offset, seen: self.seen })
    }

    /// `len` bytes at `offset` of `region`, as a range of the memory.
    fn range(&self, region: u16, offset: u64, len: u64) -> Result<std::ops::Range<usize>, ExecError> {
        let error = ExecError::Access { offset: self.op.offset, region, address: offset, len };
        let base = *self.memory.base.get(usize::from(region)).ok_or(error.clone())?;
        let start = base.checked_add(offset).ok_or(error.clone())?;
        let end = start.checked_add(len).ok_or(error.clone())?;
        if end > self.memory.bytes.len() as u64 {
            return Err(ExecError::Access { offset: self.op.offset, region, address: start, len });
        }
        Ok(start as usize..end as usize)
    }

    /// NPU_OP_DMA_START between external regions (digest §3.2-3.3, TRM 0x030-0x034): `LEN`
    /// bytes per inner (1D) transfer, `SIZE0` of them per 2D transfer, `SIZE1` 2D transfers
    /// in 3D mode. Each side walks its own stride mode (`*_REGION[10:9]`): 1D contiguous, 2D
    /// skipping `SKIP0` bytes after each inner transfer, 3D also `SKIP1` after each 2D
    /// transfer. Decision (the TRM says "byte distance to skip after each inner transfer"):
    /// a skip is the gap after a transfer's last byte, not the distance between starts.
    /// Vela's streams use 1D only; 2D/3D are checked on hand-built streams.
    fn dma(&mut self) -> Result<(), ExecError> {
        let r = &self.op.registers;
        let (src, dst) = (r.param("NPU_SET_DMA0_SRC_REGION"), r.param("NPU_SET_DMA0_DST_REGION"));
        for (name, value) in [("DMA0_SRC_REGION", src), ("DMA0_DST_REGION", dst)] {
            if value & 0x100 != 0 || value >> 9 > 2 {
                return self.unsupported(format!("{name} {value:#x} (internal memory or stride mode 3)"));
            }
        }
        let len = r.address("NPU_SET_DMA0_LEN");
        let (skip0, skip1) = (r.address("NPU_SET_DMA0_SKIP0"), r.address("NPU_SET_DMA0_SKIP1"));
        let mode = |region: u16| region >> 9;
        let widest = mode(src).max(mode(dst));
        let size0 = if widest >= 1 { u64::from(r.param("NPU_SET_DMA0_SIZE0")) } else { 1 };
        let size1 = if widest == 2 { u64::from(r.param("NPU_SET_DMA0_SIZE1")) } else { 1 };
        // Offset of inner transfer (i1, i0) on a side of `mode`.
        let row = |mode: u16, i1: u64, i0: u64| match mode {
            0 => (i1 * size0 + i0) * len,
            1 => (i1 * size0 + i0) * (len + skip0),
            _ => i1 * (size0 * (len + skip0) + skip1) + i0 * (len + skip0),
        };
        for i1 in 0..size1 {
            for i0 in 0..size0 {
                let from = self.range(src & 0xff, r.address("NPU_SET_DMA0_SRC") + row(mode(src), i1, i0), len)?;
                let to = self.range(dst & 0xff, r.address("NPU_SET_DMA0_DST") + row(mode(dst), i1, i0), len)?;
                self.memory.bytes.copy_within(from, to.start);
            }
        }
        if widest > 0 {
            self.seen.push(if widest == 1 { "dma 2d" } else { "dma 3d" });
        }
        Ok(())
    }

    /// The IFM, IFM2 or OFM of the operation, checked to be int8.
    fn map(&mut self, which: &str) -> Result<Map, ExecError> {
        let fm = if which == "OFM" { self.op.output() } else { self.op.input(which) };
        if fm.bits != 8 || !fm.signed {
            return self.unsupported(format!("{which} of {} bits, {}", fm.bits, if fm.signed { "signed" } else { "unsigned" }));
        }
        if fm.nhcwb16 {
            self.seen.push(match which {
                "IFM" => "nhcwb16 ifm",
                "IFM2" => "nhcwb16 ifm2",
                _ => "nhcwb16 ofm",
            });
        }
        let r = &self.op.registers;
        let reg = |name: &str| i64::from(r.param(&format!("NPU_SET_{which}_{name}"))) + 1;
        Ok(Map { fm, split: (reg("HEIGHT0_M1"), reg("HEIGHT1_M1"), reg("WIDTH0_M1")) })
    }

    /// The memory range of element (y, x, c) of `map`.
    fn element(&self, map: &Map, y: i64, x: i64, c: i64) -> Result<usize, ExecError> {
        let (h0, h1, w0) = map.split;
        let (tile, y, x) = match (x < w0, y < if x < w0 { h0 } else { h1 }) {
            (true, true) => (0, y, x),
            (false, true) => (1, y, x - w0),
            (true, false) => (2, y - h0, x),
            (false, false) => (3, y - h1, x - w0),
        };
        let fm = &map.fm;
        let (sx, sy, sc) = fm.stride;
        let channel = if fm.nhcwb16 { (c / 16) * sc + c % 16 } else { c * sc };
        let offset = fm.base[tile] as i64 + y * sy + x * sx + channel;
        Ok(self.range(fm.region, offset as u64, 1)?.start)
    }

    fn read(&self, map: &Map, y: i64, x: i64, c: i64) -> Result<i32, ExecError> {
        Ok(i32::from(self.memory.bytes[self.element(map, y, x, c)?] as i8))
    }

    fn write(&mut self, map: &Map, y: i64, x: i64, c: i64, value: i16) -> Result<(), ExecError> {
        let at = self.element(map, y, x, c)?;
        self.memory.bytes[at] = value as u8;
        Ok(())
    }

    /// IFM_UPSCALE (TRM 0x107, digest §3.2: 0 none, 1 2x2 nearest, 2 2x2 zero insertion, 3
    /// reserved; Vela's `resampling_mode`): `true` when the operation upscales. `allowed` is the
    /// one mode this kernel takes, with the event it records, if any:
    /// - a POOL takes 1 (Vela 5.2 lowers RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR to pools
    ///   over the IFM upscaled 2x2 by nearest neighbour: docs/ethos.md "IFM upscale");
    /// - a CONV takes 2 (Vela's TRANSPOSE_CONV of stride 2, `fixup_conv2d_backprop`): upscaled
    ///   element (iy, ix) is IFM element (iy / 2, ix / 2) when both are even, else the IFM zero
    ///   point (a zero after its subtraction). Decision, where the TRM says only "insert zeros":
    ///   the IFM elements at the even positions, which gives TFLite's TRANSPOSE_CONV
    ///   (`transpose_conv_networks_equal_tflite`);
    /// - a DEPTHWISE takes 1 (Vela's RESIZE_NEAREST_NEIGHBOR with align_corners,
    ///   `convert_resizenn_ac_to_depthwise_conv`: a DEPTHWISE over the IFM upscaled 2x2 by
    ///   nearest neighbour, whose kernel's one non-zero weight selects the element): upscaled element
    ///   (iy, ix) is IFM (iy >> 1, ix >> 1);
    /// - an ELEMENTWISE takes none.
    ///
    /// Every other mode is refused by name.
    fn upscale(&mut self, allowed: Option<(u16, &'static str)>) -> Result<bool, ExecError> {
        match (self.op.registers.param("NPU_SET_IFM_UPSCALE"), allowed) {
            (0, _) => Ok(false),
            (mode, Some((taken, event))) if mode == taken => {
                self.seen.push(event);
                Ok(true)
            }
            (mode, _) => self.unsupported(format!("IFM_UPSCALE {mode}")),
        }
    }

    /// The output settings every kernel shares: rounding, activation clamp; refuses a lookup
    /// table, tanh/sigmoid and the FP accumulator.
    fn output_params(&mut self, zero_point: i32) -> Result<Params, ExecError> {
        let r = &self.op.registers;
        let activation = r.param("NPU_SET_ACTIVATION");
        if activation & 0x1f != 0 {
            return self.unsupported(format!("ACTIVATION {activation:#x} (a lookup table or tanh/sigmoid)"));
        }
        let acc_format = r.param("NPU_SET_ACC_FORMAT");
        if acc_format > 1 {
            return self.unsupported(format!("ACC_FORMAT {acc_format}"));
        }
        let precision = r.param("NPU_SET_OFM_PRECISION");
        let (scale, shift) = {
            let (param, payload) = r.cmd1("NPU_SET_OFM_SCALE");
            (payload, (param & 0x3f) as u8)
        };
        Ok(Params {
            bias: 0,
            scale,
            shift,
            rounding: Rounding::from_bits((precision >> 14) as u8),
            ofm_zero_point: zero_point as i16,
            act_min: r.param("NPU_SET_ACTIVATION_MIN") as i16,
            act_max: r.param("NPU_SET_ACTIVATION_MAX") as i16,
            lut: None,
        })
    }

    /// Stores `value` (before the clamp) as the OFM element, noting saturation.
    fn store(&mut self, ofm: &Map, p: &Params, (y, x, c): (i64, i64, i64), unclamped: i128) -> Result<(), ExecError> {
        let v = unclamped.clamp(i128::from(p.act_min), i128::from(p.act_max));
        if v != unclamped {
            self.seen.push(if unclamped > v { "saturated high" } else { "saturated low" });
        }
        self.write(ofm, y, x, c, v as i16)
    }

    /// The IFM's rows and columns: what the OFM stripe reads (module comment).
    fn ifm_extent(&self, ofm: &FeatureMap) -> (i64, i64, [i64; 4]) {
        let k = self.op.kernel();
        let pad = self.op.padding().map(i64::from);
        let dilated = |size: u16, dilation: u16| i64::from(size - 1) * i64::from(dilation) + 1;
        let h = (i64::from(ofm.height) - 1) * i64::from(k.stride.0) + dilated(k.size.0, k.dilation.0) - pad[0] - pad[2];
        let w = (i64::from(ofm.width) - 1) * i64::from(k.stride.1) + dilated(k.size.1, k.dilation.1) - pad[1] - pad[3];
        (h, w, pad)
    }

    /// The IFM positions of OFM element (y, x)'s kernel taps: (tap index, iy, ix) inside the
    /// IFM; taps in the padding are left out.
    fn taps(&mut self, extent: (i64, i64, [i64; 4]), y: i64, x: i64) -> Vec<(usize, i64, i64)> {
        let k = self.op.kernel();
        let (h, w, pad) = extent;
        let mut taps = Vec::new();
        for ky in 0..i64::from(k.size.0) {
            for kx in 0..i64::from(k.size.1) {
                let iy = y * i64::from(k.stride.0) - pad[0] + ky * i64::from(k.dilation.0);
                let ix = x * i64::from(k.stride.1) - pad[1] + kx * i64::from(k.dilation.1);
                if (0..h).contains(&iy) && (0..w).contains(&ix) {
                    taps.push(((ky * i64::from(k.size.1) + kx) as usize, iy, ix));
                } else {
                    self.seen.push("padding");
                }
            }
        }
        taps
    }

    /// The bytes of the weight or scale stream.
    fn stream_bytes(&self, which: &str) -> Result<Vec<u8>, ExecError> {
        let (region, base, len) = self.op.stream(which);
        Ok(self.memory.bytes[self.range(region, base, len)?].to_vec())
    }

    /// The OHWI weights (depthwise: O,H,W,1) of the stripe, from its compressed stream.
    fn weights(&self, depthwise: bool, ifm_depth: usize, ofm_depth: usize) -> Result<Vec<i16>, ExecError> {
        let k = self.op.kernel();
        let params = ReorderParams {
            ofm_depth,
            kernel_height: usize::from(k.size.0),
            kernel_width: usize::from(k.size.1),
            ifm_depth: if depthwise { 1 } else { ifm_depth },
            ofm_block_depth: usize::from(self.op.registers.param("NPU_SET_OFM_BLK_DEPTH_M1")) + 1,
            kind: match (depthwise, k.part_kernel_first) {
                (true, _) => Traversal::Depthwise,
                (false, false) => Traversal::DepthFirst,
                (false, true) => Traversal::PartKernelFirst,
            },
            ifm_bitdepth: 8,
            dilation_x: k.dilation.1 as u8,
            dilation_y: k.dilation.0 as u8,
        };
        let error = |what: String| ExecError::Weights { offset: self.op.offset, what };
        let indices: Vec<Option<usize>> = (0..params.weights_len()).map(Some).collect();
        let order = reorder(&params, &indices).map_err(&error)?;
        let stream = self.stream_bytes("WEIGHT")?;
        let mut decoder = npu_model::ethos::weight_decoder::WeightDecoder::default();
        let decoded = super::driver::decode(&stream, |i| npu_model::Block::step(&mut decoder, i));
        if decoded.outcome != super::driver::Outcome::Done {
            return Err(error(format!("the weight stream: {}", decoded.outcome)));
        }
        if decoded.weights.len() != order.len() {
            return Err(error(format!("the weight stream holds {} weights, the kernel takes {}", decoded.weights.len(), order.len())));
        }
        let mut ohwi = vec![0; params.weights_len()];
        for (slot, w) in order.iter().zip(&decoded.weights) {
            if let Some(i) = slot {
                ohwi[*i] = *w;
            }
        }
        Ok(ohwi)
    }

    /// The 10-byte scale/bias records of the stripe's channels (Vela's `encode_bias`,
    /// digest §2.4): bias int40, scale uint32, shift 6 bits.
    fn scale_records(&self, channels: usize) -> Result<Vec<(i64, u32, u8)>, ExecError> {
        let bytes = self.stream_bytes("SCALE")?;
        if bytes.len() < 10 * channels {
            return Err(ExecError::Weights { offset: self.op.offset, what: format!("{} scale/bias bytes for {channels} channels", bytes.len()) });
        }
        Ok(bytes
            .chunks(10)
            .take(channels)
            .map(|r| {
                let mut bias = [0u8; 8];
                bias[..5].copy_from_slice(&r[..5]);
                let bias = (i64::from_le_bytes(bias) << 24) >> 24;
                (bias, u32::from_le_bytes(r[5..9].try_into().unwrap()), r[9] & 0x3f)
            })
            .collect())
    }

    fn convolution(&mut self, depthwise: bool) -> Result<(), ExecError> {
        let (ifm, ofm) = (self.map("IFM")?, self.map("OFM")?);
        let allowed = if depthwise { (1, "ifm upscale nearest, depthwise") } else { (2, "ifm upscale zeros") };
        // Upscaled, the taps walk the IFM upscaled 2x2: element (iy, ix) is IFM (iy >> 1,
        // ix >> 1), or with zero insertion (a CONV's mode) 0 at an odd row or column.
        let upscaled = self.upscale(Some(allowed))?;
        let zeros = upscaled && !depthwise;
        let extent = self.ifm_extent(&ofm.fm);
        let (ifm_depth, ofm_depth) = (ifm.fm.depth as usize, ofm.fm.depth as usize);
        let weights = self.weights(depthwise, ifm_depth, ofm_depth)?;
        let records = self.scale_records(ofm_depth)?;
        let mut params = self.output_params(ofm.fm.zero_point)?;
        let k = self.op.kernel();
        let taps_per_channel = usize::from(k.size.0) * usize::from(k.size.1);
        for y in 0..i64::from(ofm.fm.height) {
            for x in 0..i64::from(ofm.fm.width) {
                let taps = self.taps(extent, y, x);
                let mut inputs = Vec::with_capacity(taps.len() * ifm_depth);
                for &(_, iy, ix) in &taps {
                    for c in 0..ifm_depth as i64 {
                        let (ry, rx) = if upscaled { (iy >> 1, ix >> 1) } else { (iy, ix) };
                        let inserted = zeros && (iy % 2 != 0 || ix % 2 != 0);
                        inputs.push(if inserted { 0 } else { self.read(&ifm, ry, rx, c)? - ifm.fm.zero_point });
                    }
                }
                for (o, &(bias, scale, shift)) in records.iter().enumerate() {
                    let mut acc = 0i64;
                    for (t, &(tap, _, _)) in taps.iter().enumerate() {
                        let row = &inputs[t * ifm_depth..(t + 1) * ifm_depth];
                        if depthwise {
                            acc += i64::from(weights[o * taps_per_channel + tap]) * i64::from(row[o]);
                        } else {
                            let w = &weights[(o * taps_per_channel + tap) * ifm_depth..][..ifm_depth];
                            acc += w.iter().zip(row).map(|(&w, &v)| i64::from(w) * i64::from(v)).sum::<i64>();
                        }
                    }
                    (params.bias, params.scale, params.shift) = (bias, scale, shift);
                    let r = apply_scale(acc + bias, scale, shift, params.rounding) + i128::from(params.ofm_zero_point);
                    self.store(&ofm, &params, (y, x, o as i64), r)?;
                }
            }
        }
        Ok(())
    }

    fn pool(&mut self, max: bool) -> Result<(), ExecError> {
        let (ifm, ofm) = (self.map("IFM")?, self.map("OFM")?);
        let nearest = self.upscale(Some((1, "ifm upscale nearest")))?;
        // With the nearest upscale the kernel walks the IFM upscaled 2x2 (the extent and the
        // padding are the upscaled map's, TRM 0x100: "pad applied after upscale"); upscaled
        // element (iy, ix) is IFM element (iy / 2, ix / 2).
        let up = |v: i64| if nearest { v >> 1 } else { v };
        let extent = self.ifm_extent(&ofm.fm);
        let params = self.output_params(ofm.fm.zero_point)?;
        let padded = self.op.padding().iter().any(|&p| p != 0);
        for y in 0..i64::from(ofm.fm.height) {
            for x in 0..i64::from(ofm.fm.width) {
                let taps = self.taps(extent, y, x);
                for c in 0..i64::from(ofm.fm.depth) {
                    let values = taps.iter().map(|&(_, iy, ix)| Ok(self.read(&ifm, up(iy), up(ix), c)? - ifm.fm.zero_point)).collect::<Result<Vec<i32>, ExecError>>()?;
                    let r = if max {
                        i128::from(*values.iter().max().unwrap_or(&0))
                    } else {
                        let sum: i64 = values.iter().map(|&v| i64::from(v)).sum();
                        if padded {
                            i128::from(npu_model::ethos::elementwise::average_over_padding(sum, values.len() as i64))
                        } else {
                            apply_scale(sum, params.scale, params.shift, params.rounding)
                        }
                    };
                    self.store(&ofm, &params, (y, x, c), r + i128::from(params.ofm_zero_point))?;
                }
            }
        }
        Ok(())
    }

    fn elementwise(&mut self, mode: &str) -> Result<(), ExecError> {
        let (ifm, ofm) = (self.map("IFM")?, self.map("OFM")?);
        let r = &self.op.registers;
        let broadcast = r.param("NPU_SET_IFM2_BROADCAST");
        let scale_mode = (r.param("NPU_SET_IFM_PRECISION") >> 8) & 3;
        let (opa_shift, opa_scale) = r.cmd1("NPU_SET_OPA_SCALE");
        let opb_scale = r.cmd1("NPU_SET_OPB_SCALE").1;
        let scalar = r.param("NPU_SET_IFM2_SCALAR") as i16;
        let ifm2 = if broadcast & 0x80 != 0 {
            self.seen.push("scalar");
            None
        } else {
            if broadcast & 7 != 0 {
                self.seen.push("broadcast");
            }
            Some(self.map("IFM2")?)
        };
        let ifm2_zero_point = self.op.input("IFM2").zero_point;
        self.upscale(None)?;
        let params = self.output_params(ofm.fm.zero_point)?;
        if matches!(mode, "add" | "sub") && scale_mode == 3 {
            return self.unsupported(format!("IFM scale mode {scale_mode}"));
        }
        for y in 0..i64::from(ofm.fm.height) {
            for x in 0..i64::from(ofm.fm.width) {
                for c in 0..i64::from(ofm.fm.depth) {
                    let first = self.read(&ifm, y, x, c)? - ifm.fm.zero_point;
                    let second = match &ifm2 {
                        None => i32::from(scalar),
                        Some(m) => {
                            let at = |bit: u16, v: i64| if broadcast & bit != 0 { 0 } else { v };
                            self.read(m, at(1, y), at(2, x), at(4, c))?
                        }
                    } - ifm2_zero_point;
                    let (a, b) = if broadcast & 0x40 != 0 { (i64::from(second), i64::from(first)) } else { (i64::from(first), i64::from(second)) };
                    let code = match mode {
                        "mul" => 0,
                        "add" => 1,
                        "sub" => 2,
                        "min" => 3,
                        _ => 4,
                    };
                    let combined = npu_model::ethos::elementwise::combine(code, scale_mode, a, b, (opa_shift, opa_scale), opb_scale);
                    let result = apply_scale(combined, params.scale, params.shift, params.rounding);
                    self.store(&ofm, &params, (y, x, c), result + i128::from(params.ofm_zero_point))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npu_hdl::ethos::command_set::named;

    fn cmd0(name: &str, param: u16) -> Vec<u32> {
        vec![named(name).unwrap().word(param)]
    }

    fn cmd1(name: &str, payload: u32) -> Vec<u32> {
        vec![named(name).unwrap().word(0), payload]
    }

    /// A DMA from region 0 to region 1 with the given stride modes, sizes and skips, over a
    /// memory whose region 0 holds 0, 1, 2, ... and region 1 (at 256) zeros.
    fn dma(src_mode: u16, dst_mode: u16, len: u32, size0: u16, size1: u16, skip0: u32, skip1: u32) -> Result<Vec<u8>, ExecError> {
        let stream: Vec<u32> = [
            cmd0("NPU_SET_DMA0_SRC_REGION", src_mode << 9),
            cmd0("NPU_SET_DMA0_DST_REGION", 1 | dst_mode << 9),
            cmd1("NPU_SET_DMA0_SRC", 4),
            cmd1("NPU_SET_DMA0_DST", 0),
            cmd1("NPU_SET_DMA0_LEN", len),
            cmd0("NPU_SET_DMA0_SIZE0", size0),
            cmd0("NPU_SET_DMA0_SIZE1", size1),
            cmd1("NPU_SET_DMA0_SKIP0", skip0),
            cmd1("NPU_SET_DMA0_SKIP1", skip1),
            cmd0("NPU_OP_DMA_START", 0),
            cmd0("NPU_OP_STOP", 0xffff),
        ]
        .concat();
        let mut memory = Memory { bytes: (0..=255).chain([0; 64]).collect(), base: [0, 256, 0, 0, 0, 0, 0, 0] };
        run_stream(&stream, &mut memory)?;
        Ok(memory.bytes[256..].to_vec())
    }

    /// A 4x4x20 IFM in four tiles (NHCWB16, tile bases far apart) copied by a 1x1 max pool
    /// into a 4x4x20 NHWC OFM: each element comes from its tile (digest §3.3: tile 0 top-left,
    /// 1 top-right from column WIDTH0, 2 and 3 below HEIGHT0 and HEIGHT1), its 16-channel brick.
    #[test]
    fn tiles_and_nhcwb16_address_every_element() {
        let (h0, h1, w0) = (1u16, 3u16, 2u16);
        let bases = [0u32, 1000, 2000, 3000];
        let (sx, sy, sc) = (16u32, 100u32, 500u32); // bricks of 16 channels 500 bytes apart
        let address = |y: u32, x: u32, c: u32| {
            let (tile, ty, tx) = match (x < u32::from(w0), y < if x < u32::from(w0) { u32::from(h0) } else { u32::from(h1) }) {
                (true, true) => (0, y, x),
                (false, true) => (1, y, x - u32::from(w0)),
                (true, false) => (2, y - u32::from(h0), x),
                (false, false) => (3, y - u32::from(h1), x - u32::from(w0)),
            };
            (bases[tile] + ty * sy + tx * sx + (c / 16) * sc + c % 16) as usize
        };
        let stream: Vec<u32> = [
            cmd0("NPU_SET_IFM_REGION", 0),
            cmd1("NPU_SET_IFM_BASE0", bases[0]),
            cmd1("NPU_SET_IFM_BASE1", bases[1]),
            cmd1("NPU_SET_IFM_BASE2", bases[2]),
            cmd1("NPU_SET_IFM_BASE3", bases[3]),
            cmd0("NPU_SET_IFM_HEIGHT0_M1", h0 - 1),
            cmd0("NPU_SET_IFM_HEIGHT1_M1", h1 - 1),
            cmd0("NPU_SET_IFM_WIDTH0_M1", w0 - 1),
            cmd0("NPU_SET_IFM_DEPTH_M1", 19),
            cmd1("NPU_SET_IFM_STRIDE_X", sx),
            cmd1("NPU_SET_IFM_STRIDE_Y", sy),
            cmd1("NPU_SET_IFM_STRIDE_C", sc),
            cmd0("NPU_SET_IFM_PRECISION", 1 | 1 << 6),
            cmd0("NPU_SET_OFM_REGION", 1),
            cmd0("NPU_SET_OFM_HEIGHT_M1", 3),
            cmd0("NPU_SET_OFM_WIDTH_M1", 3),
            cmd0("NPU_SET_OFM_DEPTH_M1", 19),
            cmd0("NPU_SET_OFM_HEIGHT0_M1", 3),
            cmd0("NPU_SET_OFM_HEIGHT1_M1", 3),
            cmd0("NPU_SET_OFM_WIDTH0_M1", 3),
            cmd1("NPU_SET_OFM_STRIDE_X", 20),
            cmd1("NPU_SET_OFM_STRIDE_Y", 80),
            cmd1("NPU_SET_OFM_STRIDE_C", 1),
            cmd0("NPU_SET_OFM_PRECISION", 1),
            cmd0("NPU_SET_ACTIVATION_MIN", -128i16 as u16),
            cmd0("NPU_SET_ACTIVATION_MAX", 127),
            cmd0("NPU_OP_POOL", 0),
            cmd0("NPU_OP_STOP", 0xffff),
        ]
        .concat();
        let mut memory = Memory { bytes: vec![0; 5000], base: [0, 4000, 0, 0, 0, 0, 0, 0] };
        let value = |y: u32, x: u32, c: u32| (y * 80 + x * 20 + c) as u8 ^ 0x5a;
        for (y, x, c) in (0..4).flat_map(|y| (0..4).flat_map(move |x| (0..20).map(move |c| (y, x, c)))) {
            memory.bytes[address(y, x, c)] = value(y, x, c);
        }
        let done = run_stream(&stream, &mut memory).unwrap();
        assert_eq!(done[0].kind, "POOL max");
        assert!(done[0].seen.contains(&"nhcwb16 ifm"));
        let expected: Vec<u8> = (0..4).flat_map(|y| (0..4).flat_map(move |x| (0..20).map(move |c| value(y, x, c)))).collect();
        assert_eq!(memory.bytes[4000..4320], expected[..]);
    }

    /// A 2x3x2 NHWC IFM at 0 pooled into a (2·2)x(2·3)x2 OFM at 100 over the IFM upscaled
    /// 2x2 by nearest neighbour (IFM_UPSCALE `mode`), with `kernel` and pad bottom/right `pad`.
    fn upscaled_pool(mode: u16, max: bool, kernel: u16, pad: u16) -> Result<(Vec<Executed>, Vec<i8>), ExecError> {
        let stream: Vec<u32> = [
            cmd0("NPU_SET_IFM_REGION", 0),
            cmd0("NPU_SET_IFM_HEIGHT0_M1", 1),
            cmd0("NPU_SET_IFM_HEIGHT1_M1", 1),
            cmd0("NPU_SET_IFM_WIDTH0_M1", 2),
            cmd0("NPU_SET_IFM_DEPTH_M1", 1),
            cmd1("NPU_SET_IFM_STRIDE_X", 2),
            cmd1("NPU_SET_IFM_STRIDE_Y", 6),
            cmd1("NPU_SET_IFM_STRIDE_C", 1),
            cmd0("NPU_SET_IFM_PRECISION", 1),
            cmd0("NPU_SET_IFM_UPSCALE", mode),
            cmd0("NPU_SET_IFM_PAD_BOTTOM", pad),
            cmd0("NPU_SET_IFM_PAD_RIGHT", pad),
            cmd0("NPU_SET_KERNEL_HEIGHT_M1", kernel - 1),
            cmd0("NPU_SET_KERNEL_WIDTH_M1", kernel - 1),
            cmd0("NPU_SET_OFM_REGION", 0),
            cmd1("NPU_SET_OFM_BASE0", 100),
            cmd0("NPU_SET_OFM_HEIGHT_M1", 3),
            cmd0("NPU_SET_OFM_WIDTH_M1", 5),
            cmd0("NPU_SET_OFM_DEPTH_M1", 1),
            cmd0("NPU_SET_OFM_HEIGHT0_M1", 3),
            cmd0("NPU_SET_OFM_HEIGHT1_M1", 3),
            cmd0("NPU_SET_OFM_WIDTH0_M1", 5),
            cmd1("NPU_SET_OFM_STRIDE_X", 2),
            cmd1("NPU_SET_OFM_STRIDE_Y", 12),
            cmd1("NPU_SET_OFM_STRIDE_C", 1),
            cmd0("NPU_SET_OFM_PRECISION", 1),
            cmd0("NPU_SET_ACTIVATION_MIN", -128i16 as u16),
            cmd0("NPU_SET_ACTIVATION_MAX", 127),
            cmd0("NPU_OP_POOL", u16::from(!max)),
            cmd0("NPU_OP_STOP", 0xffff),
        ]
        .concat();
        let mut memory = Memory { bytes: vec![0; 200], base: [0; 8] };
        let ifm: [i8; 12] = [-100, 7, 50, -3, 9, 90, 11, -128, 127, 0, -1, 33];
        memory.bytes[..12].copy_from_slice(&ifm.map(|v| v as u8));
        let done = run_stream(&stream, &mut memory)?;
        Ok((done, memory.bytes[100..148].iter().map(|&b| b as i8).collect()))
    }

    /// IFM_UPSCALE 1 (TRM 0x107: 2x2 nearest): a 1x1 pool copies IFM (y / 2, x / 2) to every
    /// OFM (y, x); a 2x2 average padded right and bottom by 1 (Vela's RESIZE_BILINEAR) gives the
    /// mean of the IFM elements under the window inside the upscaled map, rounded half away
    /// from zero; IFM_UPSCALE 2 (zero insertion) and 3 (reserved) are refused on a POOL.
    #[test]
    fn pool_reads_the_ifm_upscaled_by_nearest_neighbour() {
        let ifm = |y: usize, x: usize, c: usize| [-100i32, 7, 50, -3, 9, 90, 11, -128, 127, 0, -1, 33][y * 6 + x * 2 + c];
        let (done, ofm) = upscaled_pool(1, true, 1, 0).unwrap();
        assert!(done[0].seen.contains(&"ifm upscale nearest"));
        for (y, x, c) in (0..4).flat_map(|y| (0..6).flat_map(move |x| (0..2).map(move |c| (y, x, c)))) {
            assert_eq!(i32::from(ofm[y * 12 + x * 2 + c]), ifm(y / 2, x / 2, c), "({y}, {x}, {c})");
        }
        let (_, ofm) = upscaled_pool(1, false, 2, 1).unwrap();
        for (y, x, c) in (0..4).flat_map(|y| (0..6).flat_map(move |x| (0..2).map(move |c| (y, x, c)))) {
            let mut taps = Vec::new();
            for (uy, ux) in [(y, x), (y, x + 1), (y + 1, x), (y + 1, x + 1)] {
                if uy < 4 && ux < 6 {
                    taps.push(f64::from(ifm(uy / 2, ux / 2, c)));
                }
            }
            let mean = taps.iter().sum::<f64>() / taps.len() as f64;
            assert_eq!(f64::from(ofm[y * 12 + x * 2 + c]), mean.round(), "({y}, {x}, {c}): {taps:?}");
        }
        for mode in [2, 3] {
            match upscaled_pool(mode, true, 1, 0) {
                Err(e @ ExecError::Unsupported { .. }) => assert!(e.to_string().contains(&format!("IFM_UPSCALE {mode}")), "{e}"),
                other => panic!("IFM_UPSCALE {mode}: {other:?}"),
            }
        }
    }

    #[test]
    fn dma_walks_each_side_in_its_stride_mode() {
        // 1D: 6 contiguous bytes from byte 4.
        assert_eq!(dma(0, 0, 6, 9, 9, 99, 99).unwrap()[..8], [4, 5, 6, 7, 8, 9, 0, 0]);
        // 2D source, 1D destination: 3 rows of 2 bytes, 3 skipped after each: a gather.
        assert_eq!(dma(1, 0, 2, 3, 9, 3, 99).unwrap()[..8], [4, 5, 9, 10, 14, 15, 0, 0]);
        // 1D source, 2D destination: the scatter back.
        assert_eq!(dma(0, 1, 2, 3, 9, 1, 99).unwrap()[..9], [4, 5, 0, 6, 7, 0, 8, 9, 0]);
        // 3D source: 2 blocks of 2 rows of 1 byte, skip 1 after a row and 10 after a block.
        assert_eq!(dma(2, 0, 1, 2, 2, 1, 10).unwrap()[..5], [4, 6, 18, 20, 0]);
        // Internal memory and stride mode 3 are refused with the DMA's offset (after 5 cmd1
        // and 4 cmd0 settings: word 14).
        let offset = 4 * (5 * 2 + 4);
        assert!(matches!(dma(3, 0, 1, 1, 1, 0, 0), Err(ExecError::Unsupported { offset: o, .. }) if o == offset));
        // A transfer running beyond the memory: its destination (region 1) first.
        assert!(matches!(dma(1, 0, 2, 200, 1, 3, 0), Err(ExecError::Access { offset: o, region: 1, .. }) if o == offset));
    }
}
