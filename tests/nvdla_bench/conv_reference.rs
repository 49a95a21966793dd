//! A plain direct convolution as nv_small's convolution pipeline computes it (seeds/001,
//! "Convolution core": CDMA's input converter, CSC's padding, CMAC's int8 products, CACC's
//! truncation; register fields from NVIDIA's RDL, `shared/nvdla/manual/NVDLA_{CDMA,CSC,CACC}.rdl`),
//! written apart from the models, then SDP in flying mode through the SDP reference
//! ([`super::sdp_reference`]). The memory layouts of the feature cube and the weights and the
//! choices seeds/001 leaves open are docs/nvdla.md's, section "Direct convolution".
use super::sdp_reference::{reference_convert, reference_round, Ew, Stage};
use npu::nvdla::memory::Memory;
use npu::nvdla::trace::{Command, Trace};
use std::collections::{BTreeSet, HashMap};

/// nv_small's atom: 8 int8 channels, 8 bytes in memory (atomic-C = atomic-K = 8).
pub const ATOM: usize = 8;

/// CDMA's input converter (D_CVT_CFG, D_CVT_OFFSET, D_CVT_SCALE): `(x - offset) * scale`,
/// shifted right by `truncate` rounding half away from zero, saturated to int8.
#[derive(Clone, Copy, Debug)]
pub struct InputConverter {
    pub offset: i16,
    pub scale: i16,
    pub truncate: u32,
}

impl InputConverter {
    pub fn apply(&self, x: i8) -> i8 {
        reference_round((i128::from(x) - i128::from(self.offset)) * i128::from(self.scale), self.truncate, 8) as i8
    }
}

/// One direct-convolution layer: the input cube (`width` x `height` x `channels`), `kernels`
/// kernels of `kernel_width` x `kernel_height` x `channels`, strides, dilations, the left and
/// top padding (right and bottom follow from the output size), the padding value, CDMA's
/// converter and CACC's truncation.
#[derive(Clone, Debug)]
pub struct Conv {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub kernel_width: usize,
    pub kernel_height: usize,
    pub kernels: usize,
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub pad_left: usize,
    pub pad_top: usize,
    pub out_width: usize,
    pub out_height: usize,
    pub pad_value: i8,
    pub converter: Option<InputConverter>,
    pub clip_truncate: u32,
}

impl Conv {
    /// The feature CSC multiplies at input position (x, y) (may lie in the padding) and
    /// channel c: the converted input inside the cube, the padding value (not converted)
    /// outside it. `input` is indexed [y][x][c].
    fn feature(&self, input: &[i8], x: isize, y: isize, c: usize) -> i8 {
        if x < 0 || y < 0 || x >= self.width as isize || y >= self.height as isize {
            return self.pad_value;
        }
        let v = input[(y as usize * self.width + x as usize) * self.channels + c];
        self.converter.map_or(v, |cvt| cvt.apply(v))
    }

    /// The exact sums before CACC's truncation, indexed [y][x][k]; `weights` is indexed
    /// [k][r][s][c] (r the kernel row, s the column).
    pub fn sums(&self, input: &[i8], weights: &[i8]) -> Vec<i64> {
        let mut out = vec![0i64; self.out_width * self.out_height * self.kernels];
        for oy in 0..self.out_height {
            for ox in 0..self.out_width {
                for k in 0..self.kernels {
                    let mut sum = 0i64;
                    for r in 0..self.kernel_height {
                        for s in 0..self.kernel_width {
                            let x = (ox * self.stride.0 + s * self.dilation.0) as isize - self.pad_left as isize;
                            let y = (oy * self.stride.1 + r * self.dilation.1) as isize - self.pad_top as isize;
                            for c in 0..self.channels {
                                let w = weights[((k * self.kernel_height + r) * self.kernel_width + s) * self.channels + c];
                                sum += i64::from(self.feature(input, x, y, c)) * i64::from(w);
                            }
                        }
                    }
                    out[(oy * self.out_width + ox) * self.kernels + k] = sum;
                }
            }
        }
        out
    }

    /// CACC's output of a sum: shifted right by CLIP_TRUNCATE rounding half away from zero,
    /// saturated to int32 (NVIDIA's C model, `cmod/cacc`).
    pub fn truncate(&self, sum: i64) -> i32 {
        reference_round(i128::from(sum), self.clip_truncate, 32) as i32
    }

    /// CACC's outputs, indexed [y][x][k].
    pub fn output(&self, input: &[i8], weights: &[i8]) -> Vec<i32> {
        self.sums(input, weights).into_iter().map(|s| self.truncate(s)).collect()
    }

    /// Byte offset of weight (k, r, s, c) in nv_small's uncompressed weight layout (NVIDIA's
    /// C model, `cmod/csc`, read to learn it): kernel groups of 8 kernels; in a group, blocks
    /// of 8 channels; in a block, the kernel taps in row order (r, then s); at a tap, each
    /// kernel of the group in turn with the block's channels. A group or block cut short by
    /// the kernel or channel count is packed (no padding bytes).
    pub fn weight_offset(&self, k: usize, r: usize, s: usize, c: usize) -> usize {
        let taps = self.kernel_width * self.kernel_height;
        let (group, kk) = (k / ATOM, k % ATOM);
        let (block, cc) = (c / ATOM, c % ATOM);
        let in_group = ATOM.min(self.kernels - group * ATOM);
        let in_block = ATOM.min(self.channels - block * ATOM);
        let tap = r * self.kernel_width + s;
        group * taps * self.channels * ATOM + block * ATOM * taps * in_group + tap * in_block * in_group + kk * in_block + cc
    }

    /// The weights, indexed [k][r][s][c], read from memory at `base`.
    pub fn read_weights(&self, memory: &Memory, base: u64) -> Vec<i8> {
        self.weight_indices().map(|(k, r, s, c)| memory.read(base + self.weight_offset(k, r, s, c) as u64) as i8).collect()
    }

    /// The weights' bytes as they lie in memory.
    pub fn weight_bytes(&self, weights: &[i8]) -> Vec<u8> {
        let mut bytes = vec![0u8; self.kernels * self.kernel_height * self.kernel_width * self.channels];
        for (i, (k, r, s, c)) in self.weight_indices().enumerate() {
            bytes[self.weight_offset(k, r, s, c)] = weights[i] as u8;
        }
        bytes
    }

    fn weight_indices(&self) -> impl Iterator<Item = (usize, usize, usize, usize)> + '_ {
        let (kh, kw, ch) = (self.kernel_height, self.kernel_width, self.channels);
        (0..self.kernels).flat_map(move |k| (0..kh).flat_map(move |r| (0..kw).flat_map(move |s| (0..ch).map(move |c| (k, r, s, c)))))
    }
}

/// A feature cube in memory: atom (x, y, surface) of 8 channels at `base + surface * surface_stride
/// + y * line + 8x`, channel c in surface c / 8, byte c % 8 (docs/nvdla.md, "Memory port").
#[derive(Clone, Copy, Debug)]
pub struct CubeLayout {
    pub base: u64,
    pub line: u64,
    pub surface: u64,
}

impl CubeLayout {
    pub fn address(&self, x: usize, y: usize, c: usize) -> u64 {
        self.base + (c / ATOM) as u64 * self.surface + y as u64 * self.line + (x * ATOM + c % ATOM) as u64
    }

    /// A cube `width` x `height` x `channels`, indexed [y][x][c].
    pub fn read(&self, memory: &Memory, (width, height, channels): (usize, usize, usize)) -> Vec<i8> {
        let mut cube = Vec::with_capacity(width * height * channels);
        for y in 0..height {
            for x in 0..width {
                cube.extend((0..channels).map(|c| memory.read(self.address(x, y, c)) as i8));
            }
        }
        cube
    }
}

/// SDP in flying mode: each CACC output through BS, BN, EW (register operands) and the output
/// converter, as the SDP reference computes it.
#[derive(Clone, Copy, Debug)]
pub struct FlyingSdp {
    pub bs: Stage,
    pub bn: Stage,
    pub ew: Ew,
    pub cvt_offset: i32,
    pub cvt_scale: i16,
    pub cvt_shift: u32,
}

impl FlyingSdp {
    /// One lane; `seen` collects the SDP cases met.
    pub fn lane(&self, x: i32, seen: &mut BTreeSet<&'static str>) -> i8 {
        let v = self.ew.apply(self.bn.apply(self.bs.apply(i128::from(x), (0, 0), seen), (0, 0), seen), seen);
        reference_convert(v, self.cvt_offset, self.cvt_scale, self.cvt_shift)
    }

    /// Writes the output cube, `kernels` channels of CACC values indexed [y][x][k], at `dst`:
    /// whole atoms, the lanes past the last kernel of a partial last surface carrying the SDP
    /// result of 0 (CMAC's sums for kernels past the cube are 0: docs/nvdla.md).
    pub fn write(&self, memory: &mut Memory, dst: CubeLayout, values: &[i32], (width, height, kernels): (usize, usize, usize), seen: &mut BTreeSet<&'static str>) {
        for y in 0..height {
            for x in 0..width {
                for c in 0..kernels.div_ceil(ATOM) * ATOM {
                    let v = if c < kernels { values[(y * width + x) * kernels + c] } else { 0 };
                    memory.write(dst.address(x, y, c), &[self.lane(v, seen) as u8]);
                }
            }
        }
    }
}

/// The registers a trace writes, by unit and name (`CDMA`, `D_BANK`): the last value written
/// (the dc traces program one group).
pub struct Programmed(HashMap<(String, String), u32>);

impl Programmed {
    pub fn from_trace(trace: &Trace) -> Self {
        let mut registers = HashMap::new();
        for (_, command) in &trace.commands {
            if let Command::RegWrite { register, value } = command {
                let name = register.name.strip_suffix("_0").unwrap_or(&register.name);
                registers.insert((register.unit.clone(), name.to_string()), *value);
            }
        }
        Programmed(registers)
    }

    /// Register `unit.name` as written, 0 if the trace does not write it.
    pub fn get(&self, unit: &str, name: &str) -> u32 {
        self.0.get(&(unit.to_string(), name.to_string())).copied().unwrap_or(0)
    }

    /// Bits `lsb + width - 1 ..= lsb` of a register.
    fn field(&self, unit: &str, name: &str, lsb: u32, width: u32) -> usize {
        (self.get(unit, name) >> lsb & ((1u64 << width) - 1) as u32) as usize
    }

    fn address(&self, unit: &str, low: &str, high: &str) -> u64 {
        u64::from(self.get(unit, high)) << 32 | u64::from(self.get(unit, low))
    }

    /// The layer, from CSC's registers (sizes after extension, which equal the plain sizes in
    /// direct convolution), CDMA's converter and CACC's truncation; every size field holds
    /// the value minus one.
    pub fn conv(&self) -> Conv {
        let cvt_on = self.get("CDMA", "D_CVT_CFG") & 1 != 0;
        Conv {
            width: self.field("CSC", "D_DATAIN_SIZE_EXT_0", 0, 13) + 1,
            height: self.field("CSC", "D_DATAIN_SIZE_EXT_0", 16, 13) + 1,
            channels: self.field("CSC", "D_DATAIN_SIZE_EXT_1", 0, 13) + 1,
            kernel_width: self.field("CSC", "D_WEIGHT_SIZE_EXT_0", 0, 5) + 1,
            kernel_height: self.field("CSC", "D_WEIGHT_SIZE_EXT_0", 16, 5) + 1,
            kernels: self.field("CSC", "D_WEIGHT_SIZE_EXT_1", 16, 13) + 1,
            stride: (self.field("CSC", "D_CONV_STRIDE_EXT", 0, 3) + 1, self.field("CSC", "D_CONV_STRIDE_EXT", 16, 3) + 1),
            dilation: (self.field("CSC", "D_DILATION_EXT", 0, 5) + 1, self.field("CSC", "D_DILATION_EXT", 16, 5) + 1),
            pad_left: self.field("CSC", "D_ZERO_PADDING", 0, 5),
            pad_top: self.field("CSC", "D_ZERO_PADDING", 16, 5),
            out_width: self.field("CSC", "D_DATAOUT_SIZE_0", 0, 13) + 1,
            out_height: self.field("CSC", "D_DATAOUT_SIZE_0", 16, 13) + 1,
            pad_value: self.get("CSC", "D_ZERO_PADDING_VALUE") as u8 as i8,
            converter: cvt_on.then(|| InputConverter {
                offset: self.get("CDMA", "D_CVT_OFFSET") as u16 as i16,
                scale: self.get("CDMA", "D_CVT_SCALE") as u16 as i16,
                truncate: self.field("CDMA", "D_CVT_CFG", 4, 6) as u32,
            }),
            clip_truncate: self.field("CACC", "D_CLIP_CFG", 0, 5) as u32,
        }
    }

    /// CDMA's feature cube in memory.
    pub fn feature_layout(&self) -> CubeLayout {
        CubeLayout {
            base: self.address("CDMA", "D_DAIN_ADDR_LOW_0", "D_DAIN_ADDR_HIGH_0"),
            line: u64::from(self.get("CDMA", "D_LINE_STRIDE")),
            surface: u64::from(self.get("CDMA", "D_SURF_STRIDE")),
        }
    }

    pub fn weight_base(&self) -> u64 {
        self.address("CDMA", "D_WEIGHT_ADDR_LOW", "D_WEIGHT_ADDR_HIGH")
    }

    /// SDP's output cube in memory.
    pub fn output_layout(&self) -> CubeLayout {
        CubeLayout {
            base: self.address("SDP", "D_DST_BASE_ADDR_LOW", "D_DST_BASE_ADDR_HIGH"),
            line: u64::from(self.get("SDP", "D_DST_LINE_STRIDE")),
            surface: u64::from(self.get("SDP", "D_DST_SURFACE_STRIDE")),
        }
    }

    fn stage(&self, name: &str) -> Stage {
        let get = |r: &str| self.get("SDP", &format!("D_DP_{name}_{r}"));
        Stage { cfg: get("CFG"), alu_cfg: get("ALU_CFG"), alu_value: get("ALU_SRC_VALUE"), mul_cfg: get("MUL_CFG"), mul_value: get("MUL_SRC_VALUE") }
    }

    pub fn sdp(&self) -> FlyingSdp {
        FlyingSdp {
            bs: self.stage("BS"),
            bn: self.stage("BN"),
            ew: Ew {
                cfg: self.get("SDP", "D_DP_EW_CFG"),
                alu_value: self.get("SDP", "D_DP_EW_ALU_SRC_VALUE"),
                mul_value: self.get("SDP", "D_DP_EW_MUL_SRC_VALUE"),
                truncate: self.get("SDP", "D_DP_EW_TRUNCATE_VALUE") & 0x3ff,
            },
            cvt_offset: self.get("SDP", "D_CVT_OFFSET") as i32,
            cvt_scale: self.get("SDP", "D_CVT_SCALE") as u16 as i16,
            cvt_shift: self.get("SDP", "D_CVT_SHIFT") & 0x3f,
        }
    }
}

/// The memory after a dc trace's layer, computed by the plain reference from the trace's
/// registers and initial memory; `seen` collects the SDP cases met.
pub fn play_trace(trace: &Trace, seen: &mut BTreeSet<&'static str>) -> (Memory, Conv, Vec<i64>) {
    let p = Programmed::from_trace(trace);
    let conv = p.conv();
    let mut memory = trace.initial_memory();
    let input = p.feature_layout().read(&memory, (conv.width, conv.height, conv.channels));
    let weights = conv.read_weights(&memory, p.weight_base());
    let sums = conv.sums(&input, &weights);
    let values: Vec<i32> = sums.iter().map(|&s| conv.truncate(s)).collect();
    p.sdp().write(&mut memory, p.output_layout(), &values, (conv.out_width, conv.out_height, conv.kernels), seen);
    (memory, conv, sums)
}
