//! The register state a command stream builds and the operations it starts (TRM §4.6, digest
//! §2.2 and §3): every `NPU_SET_*` writes its value into the state, and every kernel or DMA
//! command starts an operation that sees the state as it is then (settings apply to every
//! later kernel until written again). This is the behaviour the NPU's command front end has
//! to reproduce; here it is the host-side reference.
use super::command_stream::Decoded;
use npu_hdl::ethos::command_set::Kind;
use std::collections::BTreeMap;

/// The register state: the last parameter of each cmd0 and the last (parameter, payload) of
/// each cmd1 written, by command name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registers {
    cmd0: BTreeMap<&'static str, u16>,
    cmd1: BTreeMap<&'static str, (u16, u32)>,
}

impl Registers {
    /// A cmd0 register's parameter, 0 until written (the TRM gives no other reset value).
    pub fn param(&self, name: &str) -> u16 {
        self.cmd0.get(name).copied().unwrap_or(0)
    }

    /// A cmd1 register's 48-bit value (parameter bits 47:32, payload bits 31:0), 0 until written.
    pub fn address(&self, name: &str) -> u64 {
        self.cmd1.get(name).map_or(0, |&(param, payload)| (u64::from(param) << 32) | u64::from(payload))
    }

    /// A cmd1 register's parameter and payload.
    pub fn cmd1(&self, name: &str) -> (u16, u32) {
        self.cmd1.get(name).copied().unwrap_or((0, 0))
    }
}

/// An operation a stream starts: a kernel (CONV, DEPTHWISE, POOL with its mode, ELEMENTWISE
/// with its mode) or a DMA, with the registers it sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// `NPU_OP_CONV`, `NPU_OP_DMA_START`, ...
    pub name: &'static str,
    /// The command's parameter (the POOL or ELEMENTWISE mode).
    pub mode: u16,
    /// Byte offset of the command in the stream.
    pub offset: usize,
    pub registers: Registers,
}

/// Operations that start work: kernels and DMA. STOP, IRQ, the waits and PMU_MASK order or
/// signal work and start none.
const STARTS: [&str; 5] = ["NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE", "NPU_OP_DMA_START"];

/// The operations of a decoded stream, in order.
pub fn operations(stream: &[Decoded]) -> Vec<Operation> {
    let mut registers = Registers::default();
    let mut ops = Vec::new();
    for c in stream {
        let name = c.command.name;
        if STARTS.contains(&name) {
            ops.push(Operation { name, mode: c.param, offset: c.offset, registers: registers.clone() });
        } else if name.starts_with("NPU_SET_") {
            match (c.command.kind, c.payload) {
                (Kind::Cmd0, _) => {
                    registers.cmd0.insert(name, c.param);
                }
                (Kind::Cmd1, Some(payload)) => {
                    registers.cmd1.insert(name, (c.param, payload));
                }
                (Kind::Cmd1, None) => unreachable!("the decoder gives every cmd1 its payload"),
            }
        }
    }
    ops
}

/// A feature map as the IFM, IFM2 or OFM registers describe it (digest §2.2, §3.2-3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureMap {
    pub region: u16,
    /// Tile 0's height, tile 0 and 2's width, and the depth (the `_M1` registers plus one).
    pub height: u32,
    pub width: u32,
    pub depth: u32,
    pub base: [u64; 4],
    /// Byte strides: x (next element), y (next row), c (next 16-channel block, NHCWB16).
    pub stride: (i64, i64, i64),
    /// The zero point, as a signed value for a signed feature map.
    pub zero_point: i32,
    pub signed: bool,
    /// Bits per element: 8, 16 or 32.
    pub bits: u32,
    /// NHCWB16 rather than NHWC.
    pub nhcwb16: bool,
}

/// A 48-bit stride register read as a signed byte count (param holds the sign extension).
fn signed48(value: u64) -> i64 {
    ((value << 16) as i64) >> 16
}

impl Operation {
    /// The IFM (`"IFM"`) or IFM2 (`"IFM2"`) the operation reads.
    pub fn input(&self, which: &str) -> FeatureMap {
        let r = &self.registers;
        let precision = r.param(&format!("NPU_SET_{which}_PRECISION"));
        let signed = precision & 1 == 1;
        let zero_point = r.param(&format!("NPU_SET_{which}_ZERO_POINT"));
        FeatureMap {
            region: r.param(&format!("NPU_SET_{which}_REGION")),
            height: u32::from(r.param(&format!("NPU_SET_{which}_HEIGHT0_M1"))) + 1,
            width: u32::from(r.param(&format!("NPU_SET_{which}_WIDTH0_M1"))) + 1,
            // IFM2 has no depth register: elementwise operands share the IFM's depth.
            depth: u32::from(r.param("NPU_SET_IFM_DEPTH_M1")) + 1,
            base: [0, 1, 2, 3].map(|k| r.address(&format!("NPU_SET_{which}_BASE{k}"))),
            stride: ["X", "Y", "C"].map(|a| signed48(r.address(&format!("NPU_SET_{which}_STRIDE_{a}")))).into(),
            zero_point: if signed { i32::from(zero_point as i16) } else { i32::from(zero_point) },
            signed,
            bits: 8 << ((precision >> 2) & 3),
            nhcwb16: (precision >> 6) & 3 == 1,
        }
    }

    /// The OFM the operation writes.
    pub fn output(&self) -> FeatureMap {
        let r = &self.registers;
        let precision = r.param("NPU_SET_OFM_PRECISION");
        let signed = precision & 1 == 1;
        let zero_point = r.param("NPU_SET_OFM_ZERO_POINT");
        FeatureMap {
            region: r.param("NPU_SET_OFM_REGION"),
            height: u32::from(r.param("NPU_SET_OFM_HEIGHT_M1")) + 1,
            width: u32::from(r.param("NPU_SET_OFM_WIDTH_M1")) + 1,
            depth: u32::from(r.param("NPU_SET_OFM_DEPTH_M1")) + 1,
            base: [0, 1, 2, 3].map(|k| r.address(&format!("NPU_SET_OFM_BASE{k}"))),
            stride: ["X", "Y", "C"].map(|a| signed48(r.address(&format!("NPU_SET_OFM_STRIDE_{a}")))).into(),
            zero_point: if signed { i32::from(zero_point as i16) } else { i32::from(zero_point) },
            signed,
            bits: 8 << ((precision >> 1) & 3),
            nhcwb16: (precision >> 6) & 3 == 1,
        }
    }

    /// Kernel height and width (undilated), strides (y, x) and dilations (y, x), from
    /// KERNEL_HEIGHT/WIDTH_M1 (the dilated size - 1) and the KERNEL_STRIDE bit field.
    pub fn kernel(&self) -> Kernel {
        let r = &self.registers;
        let s = r.param("NPU_SET_KERNEL_STRIDE");
        let bit = |k: u16| (s >> k) & 1;
        let stride = ((((s >> 9) & 7) << 1 | bit(1)) + 1, (((s >> 6) & 7) << 1 | bit(0)) + 1);
        let dilation = (bit(4) + 1, bit(3) + 1);
        let dilated = (r.param("NPU_SET_KERNEL_HEIGHT_M1"), r.param("NPU_SET_KERNEL_WIDTH_M1"));
        Kernel {
            size: (dilated.0 / dilation.0 + 1, dilated.1 / dilation.1 + 1),
            stride,
            dilation,
            part_kernel_first: bit(2) == 1,
        }
    }

    /// Padding (top, left, bottom, right).
    pub fn padding(&self) -> [u16; 4] {
        ["TOP", "LEFT", "BOTTOM", "RIGHT"].map(|side| self.registers.param(&format!("NPU_SET_IFM_PAD_{side}")))
    }

    /// A stream the operation reads: `"WEIGHT"` or `"SCALE"`: (region, base, length).
    pub fn stream(&self, which: &str) -> (u16, u64, u64) {
        let r = &self.registers;
        (r.param(&format!("NPU_SET_{which}_REGION")), r.address(&format!("NPU_SET_{which}_BASE")), r.address(&format!("NPU_SET_{which}_LENGTH")))
    }
}

/// What the kernel registers say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// (height, width), undilated.
    pub size: (u16, u16),
    /// (y, x).
    pub stride: (u16, u16),
    /// (y, x).
    pub dilation: (u16, u16),
    /// Weight order: part-kernel-first rather than depth-first.
    pub part_kernel_first: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ethos::command_stream::decode;
    use npu_hdl::ethos::command_set::named;

    #[test]
    fn settings_apply_to_every_later_kernel_until_written_again() {
        let w = |name: &str, param: u16| named(name).unwrap().word(param);
        let stream = [
            w("NPU_SET_IFM_ZERO_POINT", 0xfffd),
            w("NPU_SET_IFM_PRECISION", 1),
            w("NPU_SET_KERNEL_STRIDE", (1 << 9) | 1 | (1 << 3)),
            w("NPU_SET_KERNEL_WIDTH_M1", 4),
            w("NPU_SET_IFM_STRIDE_Y", 0xffff),
            0xffff_fff0,
            w("NPU_OP_CONV", 0),
            w("NPU_SET_IFM_PRECISION", 0),
            w("NPU_OP_POOL", 1),
        ];
        let ops = operations(&decode(&stream).unwrap());
        assert_eq!(ops.iter().map(|o| (o.name, o.mode)).collect::<Vec<_>>(), [("NPU_OP_CONV", 0), ("NPU_OP_POOL", 1)]);
        let ifm = ops[0].input("IFM");
        assert_eq!((ifm.zero_point, ifm.signed, ifm.bits), (-3, true, 8));
        assert_eq!(ifm.stride.1, -16, "the parameter sign-extends the stride");
        // Stride y = ((1 << 1) | 0) + 1 = 3, x = (0 << 1 | 1) + 1 = 2; x dilation 2 over a
        // dilated width of 5 taps: 3 taps.
        assert_eq!(ops[0].kernel(), Kernel { size: (1, 3), stride: (3, 2), dilation: (1, 2), part_kernel_first: false });
        let later = ops[1].input("IFM");
        assert_eq!((later.zero_point, later.signed), (0xfffd, false), "unsigned after the second PRECISION");
    }
}
