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
//!
//! One file per operation kind: [`dma`] (NPU_OP_DMA_START), [`convolution`] (NPU_OP_CONV and
//! NPU_OP_DEPTHWISE), [`pool`] (NPU_OP_POOL), [`elementwise`] (NPU_OP_ELEMENTWISE); this file
//! has the memory image, the feature-map addressing and what the kernels share.
use super::command_stream::StreamError;
use super::network::{CompiledModel, Placement};
use super::operation::{FeatureMap, Operation};
use npu_model::ethos::output_unit::{Params, Rounding};
use std::fmt;

mod convolution;
mod dma;
mod elementwise;
mod pool;


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
}

#[cfg(test)]
mod tests {
    use super::*;
    use npu_hdl::ethos::command_set::named;

    pub(super) fn cmd0(name: &str, param: u16) -> Vec<u32> {
        vec![named(name).unwrap().word(param)]
    }

    pub(super) fn cmd1(name: &str, payload: u32) -> Vec<u32> {
        vec![named(name).unwrap().word(0), payload]
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
}
