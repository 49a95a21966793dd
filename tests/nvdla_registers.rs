//! NVDLA's CSB and register files on the Verilated RTL in lock step with the model: reset
//! values and access types of every register of the table (`npu_hdl::nvdla::regmap`, itself
//! checked against NVIDIA's RDL), unmapped addresses, GLB interrupt mask, set and status with
//! `irq`, and ping-pong switching with a second layer programmed while the first runs
//! (seeds/001 "Ping-pong Synchronization Mechanism", steps 1-9), for SDP and for PDP.
mod nvdla_bench;
use npu::cosim::lockstep::Run;
use npu::nvdla::memory::Memory;
use npu::nvdla::player::Bench;
use npu_hdl::nvdla::csb::read_only_value;
use npu_hdl::nvdla::regmap::{self, Access};
use nvdla_bench::sdp_lut_reference::Lut;
use nvdla_bench::sdp_reference::{reference_convert, Ew, Operands, Stage};
use nvdla_bench::{address, on_bench, program_copy, read, write};
use rand::rngs::SmallRng;
use rand::Rng;
use std::collections::BTreeSet;

/// Every register reads its reset value (both groups of the ping-pong ones), keeps exactly
/// its writable bits, and an address no register has reads 0 and ignores writes.
#[test]
fn reset_values_and_access_types() {
    let run = Run::from_env("reset_values_and_access_types", 0);
    let coverage = on_bench(&run, |b| {
        for unit in regmap::UNITS {
            for group in [0, 1] {
                if unit.name != "GLB" {
                    write(b, address(unit.name, "S_POINTER"), group);
                }
                for r in unit.registers {
                    // CDP's and SDP's LUT data is no register: its reads and writes reach
                    // the LUTs (lut_access_fills_and_reads_both_tables).
                    if npu_hdl::nvdla::csb::is_lut_data(unit.name, r.name) {
                        continue;
                    }
                    let a = unit.csb_address(r);
                    let what = format!("NVDLA_{}.{} group {group}", unit.name, r.name);
                    // S_POINTER reads the PRODUCER just written (CONSUMER 0).
                    let reset = read_only_value(unit.name, r);
                    let after_reset = if r.name == "S_POINTER" { group } else { reset & r.mask_where(Access::readable) };
                    assert_eq!(read(b, a), after_reset, "{what} after reset");
                    // Registers with side effects are checked in the other tests.
                    if matches!(r.name, "D_OP_ENABLE" | "S_POINTER" | "S_INTR_SET" | "S_INTR_STATUS") {
                        continue;
                    }
                    write(b, a, u32::MAX);
                    let stored = r.mask_where(Access::stores);
                    assert_eq!(read(b, a), (reset & !stored | stored) & r.mask_where(Access::readable), "{what}: all ones written");
                    write(b, a, 0);
                    assert_eq!(read(b, a), reset & !stored & r.mask_where(Access::readable), "{what}: zero written");
                    write(b, a, r.reset());
                }
            }
        }
        // CBUF needs no flush here: FLUSH_DONE reads 1 from reset on (the dc traces poll it).
        assert_eq!(read(b, address("CDMA", "S_CBUF_FLUSH_STATUS")), 1, "CDMA.S_CBUF_FLUSH_STATUS");
        // The ping-pong groups are separate: a value in group 1 is not in group 0.
        let width = address("SDP", "D_DATA_CUBE_WIDTH");
        write(b, address("SDP", "S_POINTER"), 1);
        write(b, width, 0x55);
        write(b, address("SDP", "S_POINTER"), 0);
        assert_eq!(read(b, width), 0);
        // Unmapped: a hole inside a unit, past its last register, a unit not built.
        for a in [0x1010 / 4, 0x90fc / 4, 0xb000 / 4, 0xffff] {
            write(b, a, u32::MAX);
            assert_eq!(read(b, a), 0, "address {a:#x}");
        }
    });
    coverage.require(&["csb read", "csb write single", "csb write group", "csb write pointer", "csb write unmapped", "csb read unmapped"]);
}

/// GLB: INTR_SET sets status bits, writing 1 to INTR_STATUS clears them, INTR_MASK hides
/// them from `irq`, and `irq` follows status & ~mask.
#[test]
fn interrupt_status_mask_and_set() {
    let run = Run::from_env("interrupt_status_mask_and_set", 0);
    let (set, status, mask) = (address("GLB", "S_INTR_SET"), address("GLB", "S_INTR_STATUS"), address("GLB", "S_INTR_MASK"));
    let status_bits = regmap::register("GLB", "S_INTR_STATUS").1.mask();
    on_bench(&run, |b| {
        assert!(!b.idle().irq, "no interrupt after reset");
        write(b, set, u32::MAX);
        assert_eq!(read(b, status), status_bits, "INTR_SET sets every status bit");
        assert!(b.idle().irq);
        write(b, mask, status_bits & !1);
        assert!(b.idle().irq, "bit 0 unmasked");
        write(b, status, 1);
        assert_eq!(read(b, status), status_bits & !1);
        assert!(!b.idle().irq, "only masked bits left");
        write(b, mask, 0);
        assert!(b.idle().irq);
        write(b, status, 0);
        assert_eq!(read(b, status), status_bits & !1, "writing 0 clears nothing");
        write(b, status, u32::MAX);
        assert_eq!(read(b, status), 0);
        assert!(!b.idle().irq);
        assert_eq!(read(b, set), 0, "INTR_SET reads 0");
    });
}

/// A plain reference of the converter for the values used here (seeds/001: offset, scale,
/// shift; int8 saturation): `x * scale` with offset 0 and shift 0.
fn scaled(x: u8, scale: i32) -> u8 {
    (i32::from(x as i8) * scale).clamp(-128, 127) as i8 as u8
}

/// Two layers: group 0 copies a 16x4x16 cube, group 1 (programmed and enabled while the first
/// runs) multiplies another by -2; each ends with its own done bit, the consumer pointers
/// advance, a write into the running group is dropped, and S_STATUS shows running and
/// pending groups.
#[test]
fn second_layer_programmed_while_the_first_runs() {
    let run = Run::from_env("second_layer_programmed_while_the_first_runs", 0);
    // 16 atoms a line, 4 lines, 2 surfaces: 128 atoms, long enough to program the second
    // layer while the first runs.
    let input: Vec<u8> = (0..16 * 4 * 2 * 8).map(|k| (k * 37 + 11) as u8).collect();
    let (src, dst) = ([0x1000u64, 0x8000], [0x4000u64, 0xc000]);
    on_bench(&run, |b| {
        for layer in [0, 1] {
            b.memory.write(src[layer], &input);
        }
        let program = |b: &mut Bench, group: u32, src: u64, dst: u64, scale: u32| {
            for unit in ["SDP_RDMA", "SDP"] {
                write(b, address(unit, "S_POINTER"), group);
            }
            for (unit, register, value) in [
                ("SDP_RDMA", "D_DATA_CUBE_WIDTH", 15),
                ("SDP_RDMA", "D_DATA_CUBE_HEIGHT", 3),
                ("SDP_RDMA", "D_DATA_CUBE_CHANNEL", 15),
                ("SDP_RDMA", "D_SRC_BASE_ADDR_LOW", src as u32),
                ("SDP_RDMA", "D_SRC_LINE_STRIDE", 128),
                ("SDP_RDMA", "D_SRC_SURFACE_STRIDE", 512),
                ("SDP_RDMA", "D_BRDMA_CFG", 1),
                ("SDP_RDMA", "D_NRDMA_CFG", 1),
                ("SDP_RDMA", "D_ERDMA_CFG", 1),
                ("SDP", "D_DATA_CUBE_WIDTH", 15),
                ("SDP", "D_DATA_CUBE_HEIGHT", 3),
                ("SDP", "D_DATA_CUBE_CHANNEL", 15),
                ("SDP", "D_DST_BASE_ADDR_LOW", dst as u32),
                ("SDP", "D_DST_LINE_STRIDE", 128),
                ("SDP", "D_DST_SURFACE_STRIDE", 512),
                ("SDP", "D_CVT_SCALE", scale),
                ("SDP_RDMA", "D_OP_ENABLE", 1),
                ("SDP", "D_OP_ENABLE", 1),
            ] {
                write(b, address(unit, register), value);
            }
        };
        let sdp_status = address("SDP", "S_STATUS");
        let intr = address("GLB", "S_INTR_STATUS");
        program(b, 0, src[0], dst[0], 1);
        assert_eq!(read(b, sdp_status) & 0x3, 1, "group 0 running");
        // A write into the running group is dropped.
        write(b, address("SDP", "S_POINTER"), 0);
        write(b, address("SDP", "D_CVT_SCALE"), 7);
        assert_eq!(read(b, address("SDP", "D_CVT_SCALE")), 1);
        program(b, 1, src[1], dst[1], (-2i32) as u16 as u32);
        assert_eq!(read(b, sdp_status), 1 | 2 << 16, "group 0 running, group 1 pending");
        let done = |g: usize| regmap::field("GLB", "S_INTR_STATUS", ["SDP_DONE_STATUS0", "SDP_DONE_STATUS1"][g]).mask();
        for (layer, scale) in [(0, 1), (1, -2)] {
            assert!(b.wait_irq(), "layer {layer}: no interrupt");
            let pending = read(b, intr);
            assert_ne!(pending & done(layer), 0, "layer {layer}: its done bit ({pending:#x})");
            write(b, intr, pending);
            let expected: Vec<u8> = input.iter().map(|&x| scaled(x, scale)).collect();
            let got: Vec<u8> = (0..input.len() as u64).map(|k| b.memory.read(dst[layer] + k)).collect();
            assert_eq!(got, expected, "layer {layer}'s output");
        }
        assert_eq!(read(b, address("SDP", "S_POINTER")) >> 16, 0, "both layers done: consumer back to group 0");
        assert_eq!(read(b, sdp_status), 0, "both groups idle");
        assert_eq!(read(b, address("SDP_RDMA", "S_STATUS")), 0);
        // And the group-1 copy of SCALE is -2, group 0's is 1, no longer enabled: writable.
        write(b, address("SDP", "D_CVT_SCALE"), 7);
        assert_eq!(read(b, address("SDP", "D_CVT_SCALE")), 7);
    });
}

/// One SDP layer of the random tests, programmed through the CSB: its cube (`w` atoms a line,
/// `h` lines, `c` channels), strides, addresses, the BS and BN stages with their operand
/// reads, the EW stage and its LUT, the converter, and the input bytes.
struct SdpLayer {
    w: u64,
    h: u64,
    c: u64,
    line: u64,
    surface: u64,
    src: u64,
    dst: u64,
    offset: i32,
    scale: i16,
    shift: u32,
    bs: Stage,
    bn: Stage,
    bs_ops: Operands,
    bn_ops: Operands,
    ew: Ew,
    lut: Lut,
    input: Vec<u8>,
}

/// The bytes the layers write between the output lines and surfaces: untouched.
const FILL: u8 = 0x5a;

impl SdpLayer {
    fn surfaces(&self) -> u64 {
        self.c.div_ceil(8)
    }

    /// The output of input byte `at` (atom `x`, channel `channel`) with the BS and BN
    /// operands `bs_memory` and `bn_memory` read from memory: the value before the converter,
    /// and the output byte.
    fn output(&self, at: u64, bs_memory: (i16, i16), bn_memory: (i16, i16), seen: &mut BTreeSet<&'static str>) -> (i128, i8) {
        let x = self.bn.apply(self.bs.apply(i128::from(self.input[at as usize] as i8), bs_memory, seen), bn_memory, seen);
        let x = self.lut.apply(self.ew.apply(x, seen), seen);
        (x, reference_convert(x, self.offset, self.scale, self.shift))
    }

    /// Programs the layer into `group`, runs it to its interrupt and checks every byte of the
    /// output cube against the reference (and the gaps: untouched); `seen` counts the cases
    /// met. Returns each output element's value before the converter and its output.
    fn run(&self, b: &mut Bench, layer: u64, group: u32, seed: u64, seen: &mut BTreeSet<&'static str>) -> Vec<(i128, i8)> {
        let (w, h, c, surfaces) = (self.w, self.h, self.c, self.surfaces());
        let (bs, bn, bs_ops, bn_ops, lut) = (&self.bs, &self.bn, &self.bs_ops, &self.bn_ops, &self.lut);
        for ops in [bs_ops, bn_ops].into_iter().filter(|o| o.on()) {
            b.memory.write(ops.base, &ops.image);
            seen.insert(ops.case());
        }
        b.memory.write(self.src, &self.input);
        b.memory.write(self.dst, &vec![FILL; (self.surface * surfaces) as usize]);
        for unit in ["SDP_RDMA", "SDP"] {
            write(b, address(unit, "S_POINTER"), group);
            write(b, address(unit, "D_DATA_CUBE_WIDTH"), w as u32 - 1);
            write(b, address(unit, "D_DATA_CUBE_HEIGHT"), h as u32 - 1);
            write(b, address(unit, "D_DATA_CUBE_CHANNEL"), c as u32 - 1);
        }
        // The LUT's registers have one copy (not grouped): written before the layer starts.
        for (register, value) in lut.registers().into_iter().filter(|_| lut.on) {
            write(b, address("SDP", register), value);
        }
        let (src, dst) = (self.src, self.dst);
        for (unit, register, value) in [
            ("SDP_RDMA", "D_SRC_BASE_ADDR_LOW", src as u32),
            ("SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", (src >> 32) as u32),
            ("SDP_RDMA", "D_SRC_LINE_STRIDE", self.line as u32),
            ("SDP_RDMA", "D_SRC_SURFACE_STRIDE", self.surface as u32),
            ("SDP", "D_DST_BASE_ADDR_LOW", dst as u32),
            ("SDP", "D_DST_BASE_ADDR_HIGH", (dst >> 32) as u32),
            ("SDP", "D_DST_LINE_STRIDE", self.line as u32),
            ("SDP", "D_DST_SURFACE_STRIDE", self.surface as u32),
            ("SDP", "D_CVT_OFFSET", self.offset as u32),
            ("SDP", "D_CVT_SCALE", self.scale as u16 as u32),
            ("SDP", "D_CVT_SHIFT", self.shift),
            ("SDP_RDMA", "D_BRDMA_CFG", bs_ops.cfg),
            ("SDP_RDMA", "D_BS_BASE_ADDR_LOW", bs_ops.base as u32),
            ("SDP_RDMA", "D_BS_BASE_ADDR_HIGH", (bs_ops.base >> 32) as u32),
            ("SDP_RDMA", "D_BS_LINE_STRIDE", bs_ops.line),
            ("SDP_RDMA", "D_BS_SURFACE_STRIDE", bs_ops.surface),
            ("SDP_RDMA", "D_NRDMA_CFG", bn_ops.cfg),
            ("SDP_RDMA", "D_BN_BASE_ADDR_LOW", bn_ops.base as u32),
            ("SDP_RDMA", "D_BN_BASE_ADDR_HIGH", (bn_ops.base >> 32) as u32),
            ("SDP_RDMA", "D_BN_LINE_STRIDE", bn_ops.line),
            ("SDP_RDMA", "D_BN_SURFACE_STRIDE", bn_ops.surface),
            ("SDP", "D_DP_BS_CFG", bs.cfg),
            ("SDP", "D_DP_BS_ALU_CFG", bs.alu_cfg),
            ("SDP", "D_DP_BS_ALU_SRC_VALUE", bs.alu_value),
            ("SDP", "D_DP_BS_MUL_CFG", bs.mul_cfg),
            ("SDP", "D_DP_BS_MUL_SRC_VALUE", bs.mul_value),
            ("SDP", "D_DP_BN_CFG", bn.cfg),
            ("SDP", "D_DP_BN_ALU_CFG", bn.alu_cfg),
            ("SDP", "D_DP_BN_ALU_SRC_VALUE", bn.alu_value),
            ("SDP", "D_DP_BN_MUL_CFG", bn.mul_cfg),
            ("SDP", "D_DP_BN_MUL_SRC_VALUE", bn.mul_value),
            ("SDP", "D_DP_EW_CFG", self.ew.cfg & !(u32::from(lut.on) << 6)),
            ("SDP", "D_DP_EW_ALU_SRC_VALUE", self.ew.alu_value),
            ("SDP", "D_DP_EW_MUL_SRC_VALUE", self.ew.mul_value),
            ("SDP", "D_DP_EW_TRUNCATE_VALUE", self.ew.truncate),
            ("SDP_RDMA", "D_OP_ENABLE", 1),
            ("SDP", "D_OP_ENABLE", 1),
        ] {
            write(b, address(unit, register), value);
        }
        assert!(b.wait_irq(), "layer {layer}: no interrupt (SEED={seed})");
        let intr = address("GLB", "S_INTR_STATUS");
        let pending = read(b, intr);
        write(b, intr, pending);
        let mut outputs = Vec::new();
        for s in 0..surfaces {
            for y in 0..h {
                for k in 0..self.line {
                    let at = s * self.surface + y * self.line + k;
                    let got = b.memory.read(dst + at);
                    let expected = if k < 8 * w {
                        let (x, channel) = (k / 8, 8 * s + k % 8);
                        let (bs_memory, bn_memory) = (bs_ops.element(x, y, channel), bn_ops.element(x, y, channel));
                        for (ops, stage, (alu, mul)) in [(bs_ops, bs, bs_memory), (bn_ops, bn, bn_memory)] {
                            // A part reading memory the read does not supply gets 0.
                            let on = |part: u32, cfg: u32| stage.cfg & 1 == 0 && stage.cfg & part == 0 && cfg & 1 != 0;
                            if ops.on() && ((on(2, stage.alu_cfg) && ops.cfg >> 1 & 3 == 0) || (on(16, stage.mul_cfg) && ops.cfg >> 1 & 3 == 1)) {
                                seen.insert("operand not supplied");
                            }
                            if (alu, mul) != (0, 0) && ops.cfg >> 3 & 1 != 0 && (alu < -128 || alu > 127 || mul < -128 || mul > 127) {
                                seen.insert("two-byte operand beyond int8");
                            }
                        }
                        let (x, value) = self.output(at, bs_memory, bn_memory, seen);
                        outputs.push((x, value));
                        value as u8
                    } else {
                        FILL
                    };
                    assert_eq!(got, expected, "layer {layer}, surface {s}, line {y}, byte {k}: x {:#04x}, BS {bs:x?} (memory operands {:?}, read {:#x}), BN {bn:x?} (memory operands {:?}, read {:#x}), EW {:x?}, LUT {lut:x?}, offset {}, scale {}, shift {} (SEED={seed})", self.input[at as usize], bs_ops.element(k / 8, y, 8 * s + k % 8), bs_ops.cfg, bn_ops.element(k / 8, y, 8 * s + k % 8), bn_ops.cfg, self.ew, self.offset, self.scale, self.shift);
                }
            }
        }
        outputs
    }
}

/// A random cube for layer `layer`: `w` atoms a line, `h` lines, `c` channels, line and
/// surface strides with gaps of up to 2 atoms, source and destination addresses.
fn random_cube(rng: &mut impl Rng, layer: u64) -> (u64, u64, u64, u64, u64, u64, u64) {
    let (w, h, c) = (rng.gen_range(1..=6u64), rng.gen_range(1..=4u64), rng.gen_range(1..=20u64));
    let line = 8 * w + 8 * rng.gen_range(0..3u64);
    let surface = line * h + 8 * rng.gen_range(0..3u64);
    let src = 0x10_0000 * (layer + 1) + 8 * rng.gen_range(0..16u64);
    let dst = src + 0x8_0000 + 8 * rng.gen_range(0..16u64);
    (w, h, c, line, surface, src, dst)
}

/// Random layers (cube sizes, strides with gaps, addresses, BS and BN stages with operands
/// from the registers or read from memory in each of BRDMA's and NRDMA's layouts, the EW stage with register operands and its LUT, converter settings, input bytes) programmed through the CSB into alternating groups, on the RTL in lock step with the model,
/// the memory stalling; every output byte equals the reference, and the bytes between the
/// output lines and surfaces are untouched.
#[test]
fn random_layers_against_a_plain_reference() {
    let run = Run::from_env("random_layers_against_a_plain_reference", 260);
    let mut rng = run.rng();
    let (mut saturated, mut rounded_half, mut shifted_out) = (0u32, 0u32, 0u32);
    let mut seen = BTreeSet::new();
    let coverage = on_bench(&run, |b| {
        for layer in 0..run.cycles {
            let (w, h, c, line, surface, src, dst) = random_cube(&mut rng, layer);
            let surfaces = c.div_ceil(8);
            let offset: i32 = match rng.gen_range(0..3) {
                0 => 0,
                1 => rng.gen_range(-200..200),
                _ => rng.gen(),
            };
            let scale: i16 = if rng.gen_bool(0.3) { 1 } else { rng.gen() };
            let shift: u32 = match rng.gen_range(0..4) {
                0 => 0,
                1 => rng.gen_range(1..8),
                2 => rng.gen_range(8..30),
                _ => rng.gen_range(30..64),
            };
            // BRDMA's and NRDMA's reads: on or off, each layout (per kernel or element, one
            // or two bytes, for the ALU, the multiplier or both) with its own strides.
            let (bs_read, bn_read) = (rng.gen_bool(0.5), rng.gen_bool(0.5));
            let (bs, bn) = (Stage::random(&mut rng, bs_read), Stage::random(&mut rng, bn_read));
            let bs_ops = Operands::random(&mut rng, bs_read, (w, h, surfaces), src + 0x2_0000);
            let bn_ops = Operands::random(&mut rng, bn_read, (w, h, surfaces), src + 0x4_0000);
            let ew = Ew::random(&mut rng);
            let lut = Lut::random(&mut rng, ew.cfg & 1 == 0);
            let input: Vec<u8> = (0..surface * surfaces).map(|_| rng.gen()).collect();
            let layer_settings = SdpLayer { w, h, c, line, surface, src, dst, offset, scale, shift, bs, bn, bs_ops, bn_ops, ew, lut, input };
            for (x, value) in layer_settings.run(b, layer, (layer % 2) as u32, run.seed, &mut seen) {
                let product = (x - i128::from(offset)) * i128::from(scale);
                saturated += u32::from(value == 127 || value == -128);
                rounded_half += u32::from(shift > 0 && shift < 49 && product.rem_euclid(1 << shift) == 1 << (shift - 1));
                shifted_out += u32::from(shift >= 49);
            }
        }
    });
    eprintln!("saturated {saturated}, exact halves {rounded_half}, shifted out {shifted_out}, stage cases {seen:?}\n{coverage}");
    assert!(saturated > 0 && rounded_half > 0 && shifted_out > 0, "the random layers missed a converter case (SEED={})", run.seed);
    let stage_cases = ["alu operand from memory", "mul operand from memory", "operand not supplied", "two-byte operand beyond int8",
        "per kernel, one byte, mul", "per kernel, one byte, alu", "per kernel, one byte, both", "per kernel, two bytes, mul", "per kernel, two bytes, alu", "per kernel, two bytes, both",
        "per element, one byte, mul", "per element, one byte, alu", "per element, one byte, both", "per element, two bytes, mul", "per element, two bytes, alu", "per element, two bytes, both", "alu max", "alu min", "alu sum", "alu sum (algo 3)", "alu operand saturated", "multiplied", "prelu kept", "prelu multiplied", "truncation saturated", "relu clamped", "ew prelu kept", "ew multiplied", "ew truncation saturated", "ew shifted out", "ew alu max", "ew alu min", "ew alu sum", "ew alu saturated", "lut le linear under", "lut le linear hit", "lut le linear over", "lut le exponent under", "lut le exponent hit", "lut le exponent over", "lut lo under", "lut lo hit", "lut lo over", "lut both under", "lut both over", "lut le hit only", "lut lo hit only", "lut both hit", "lut one under one over", "lut took lo", "lut took le", "lut exponent underflow bias", "lut slope left shift", "lut slope", "lut slope saturated"];
    let missed: Vec<_> = stage_cases.iter().filter(|c| !seen.contains(*c)).collect();
    assert!(missed.is_empty(), "the random layers missed the stage cases {missed:?} (SEED={})", run.seed);
    coverage.require(&["sdp start", "sdp done", "read stall", "write stall", "read wait", "bs operand", "bn operand", "operand read stall", "operand wait", "operand next word"]);
}

/// Every bit of the four operand words SDP_RDMA reads for an atom reaches the output, each
/// with value 0 and with value 1, for BRDMA and for NRDMA: layers in the two-byte DATA_USE
/// BOTH layout (four words an atom: lane k's ALU operand in bits 32k+15..32k of the words,
/// its multiplier operand in bits 32k+31..32k+16), per element or per kernel, one stage
/// under test (the other bypassed, EW and the LUT bypassed, converter scale 1 and offset 0),
/// its ALU (sum, shift 0) or its multiplier (shift 0) taking the operand from memory, the
/// converter shift 0 (half the layers) or 1..9; operands and inputs of any magnitude. A bit is counted as seen
/// where the reference's output byte changes when that bit of the lane's operand is flipped:
/// an RTL whose bit were stuck at the other value would write a different byte, which the
/// layer's check compares. Found by the mutation run (docs/nvdla.md "Mutation score": BN's
/// word 2 bit 36, lane 5's ALU bit 4, stuck at 0, passed the random layers).
#[test]
fn operand_words_reach_the_output_bit_by_bit() {
    let run = Run::from_env("operand_words_reach_the_output_bit_by_bit", 96);
    let mut rng = run.rng();
    let mut seen = BTreeSet::new();
    // (stage: 0 BS, 1 BN; part: 0 ALU, 1 multiplier; lane; bit of the part; its value).
    let mut bits_seen = BTreeSet::new();
    let small = |rng: &mut SmallRng, bits: u32| -> i16 { rng.gen::<i16>() >> rng.gen_range(0..bits) };
    let coverage = on_bench(&run, |b| {
        for layer in 0..run.cycles {
            let (w, h, _, line, surface, src, dst) = random_cube(&mut rng, layer);
            let c = 8 * rng.gen_range(1..=2u64);
            let surfaces = c / 8;
            let (stage, part) = (rng.gen_range(0..2usize), rng.gen_range(0..2usize));
            let bypass = Stage { cfg: 1, alu_cfg: 0, alu_value: 0, mul_cfg: 0, mul_value: 0 };
            // ALU: sum (ALU_ALGO 2), the multiplier and ReLU bypassed; multiplier: the ALU and
            // ReLU bypassed, no PReLU. Shifts 0, the part's SRC memory.
            let tested = [Stage { cfg: 2 << 2 | 16 | 64, alu_cfg: 1, ..bypass }, Stage { cfg: 2 | 64, mul_cfg: 1, ..bypass }][part];
            let [bs, bn] = [0, 1].map(|s| if s == stage { tested } else { bypass });
            let mut ops = [0, 1].map(|s| {
                let base = src + 0x2_0000 * (s + 1);
                let choice = rng.gen_bool(0.5);
                if s as usize == stage {
                    Operands::with_layout(&mut rng, (2, true, choice), (w, h, surfaces), base)
                } else {
                    Operands::random(&mut rng, choice, (w, h, surfaces), base)
                }
            });
            // Operands of any magnitude, little-endian half-words (the layout's two-byte
            // components sit at even offsets).
            ops[stage].image = (0..ops[stage].image.len() / 2).flat_map(|_| small(&mut rng, 16).to_le_bytes()).collect();
            let [bs_ops, bn_ops] = ops;
            let input: Vec<u8> = (0..surface * surfaces).map(|_| small(&mut rng, 8) as i8 as u8).collect();
            let ew = Ew { cfg: 1 | 1 << 6, alu_value: 0, mul_value: 0, truncate: 0 };
            let lut = Lut::random(&mut rng, false);
            // Shift 0 half the time: the operands' low bits show only at small shifts.
            let shift = if rng.gen_bool(0.5) { 0 } else { rng.gen_range(1..10) };
            let layer_settings = SdpLayer { w, h, c, line, surface, src, dst, offset: 0, scale: 1, shift, bs, bn, bs_ops, bn_ops, ew, lut, input };
            layer_settings.run(b, layer, (layer % 2) as u32, run.seed, &mut seen);
            let mut scratch = BTreeSet::new();
            for (s, y, x, lane) in (0..surfaces).flat_map(|s| (0..h).flat_map(move |y| (0..w).flat_map(move |x| (0..8).map(move |lane| (s, y, x, lane))))) {
                let at = s * surface + y * line + 8 * x + lane;
                let channel = 8 * s + lane;
                let memory = [&layer_settings.bs_ops, &layer_settings.bn_ops].map(|o| o.element(x, y, channel));
                let (_, value) = layer_settings.output(at, memory[0], memory[1], &mut scratch);
                let operand = [memory[stage].0, memory[stage].1][part];
                for bit in 0..16u32 {
                    let flipped = operand ^ (1 << bit);
                    let mut changed = memory;
                    changed[stage] = if part == 0 { (flipped, changed[stage].1) } else { (changed[stage].0, flipped) };
                    if layer_settings.output(at, changed[0], changed[1], &mut scratch).1 != value {
                        bits_seen.insert((stage, part, lane, bit, operand >> bit & 1));
                    }
                }
            }
        }
    });
    let missed: Vec<_> = (0..2usize)
        .flat_map(|s| (0..2usize).flat_map(move |p| (0..8u64).flat_map(move |l| (0..16u32).flat_map(move |bit| [0i16, 1].map(|v| (s, p, l, bit, v))))))
        .filter(|case| !bits_seen.contains(case))
        .collect();
    eprintln!("operand bits seen at the output: {} of 1024\n{coverage}", bits_seen.len());
    assert!(missed.is_empty(), "operand bits (stage 0 BS / 1 BN, part 0 ALU / 1 multiplier, lane, bit, value) no output showed: {missed:?} (SEED={})", run.seed);
    coverage.require(&["sdp start", "sdp done", "bs operand", "bn operand", "operand next word"]);
}

/// PDP's register groups and done interrupt: a 1x1 max pooling (a copy) of a 16x4x8 cube in
/// group 0, a second in group 1 programmed while the first runs; PDP's S_STATUS shows running
/// and pending groups, a write into the running group is dropped, each layer sets its own
/// PDP_DONE_STATUS bit, a masked bit raises no `irq`, and the consumer pointers come back.
#[test]
fn pdp_groups_and_done_interrupt() {
    let run = Run::from_env("pdp_groups_and_done_interrupt", 0);
    let input: Vec<u8> = (0..16 * 4 * 8).map(|k| (k * 53 + 7) as u8).collect();
    let (src, dst) = ([0x1000u64, 0x8000], [0x4000u64, 0xc000]);
    on_bench(&run, |b| {
        let program = |b: &mut Bench, group: u32, src: u64, dst: u64| {
            for unit in ["PDP_RDMA", "PDP"] {
                write(b, address(unit, "S_POINTER"), group);
                write(b, address(unit, "D_DATA_CUBE_IN_WIDTH"), 15);
                write(b, address(unit, "D_DATA_CUBE_IN_HEIGHT"), 3);
                write(b, address(unit, "D_DATA_CUBE_IN_CHANNEL"), 7);
                write(b, address(unit, "D_SRC_BASE_ADDR_LOW"), src as u32);
                write(b, address(unit, "D_SRC_LINE_STRIDE"), 128);
                write(b, address(unit, "D_SRC_SURFACE_STRIDE"), 512);
            }
            for (register, value) in [("D_DATA_CUBE_OUT_WIDTH", 15), ("D_DATA_CUBE_OUT_HEIGHT", 3), ("D_DATA_CUBE_OUT_CHANNEL", 7), ("D_OPERATION_MODE_CFG", 0x11), ("D_DST_BASE_ADDR_LOW", dst as u32), ("D_DST_LINE_STRIDE", 128), ("D_DST_SURFACE_STRIDE", 512)] {
                write(b, address("PDP", register), value);
            }
            write(b, address("PDP", "D_OP_ENABLE"), 1);
            write(b, address("PDP_RDMA", "D_OP_ENABLE"), 1);
        };
        for layer in [0, 1] {
            b.memory.write(src[layer], &input);
        }
        let (status, intr, mask) = (address("PDP", "S_STATUS"), address("GLB", "S_INTR_STATUS"), address("GLB", "S_INTR_MASK"));
        let done = |g: usize| regmap::field("GLB", "S_INTR_STATUS", ["PDP_DONE_STATUS0", "PDP_DONE_STATUS1"][g]).mask();
        write(b, mask, done(1));
        program(b, 0, src[0], dst[0]);
        assert_eq!(read(b, status) & 0x3, 1, "group 0 running");
        write(b, address("PDP", "S_POINTER"), 0);
        write(b, address("PDP", "D_DST_LINE_STRIDE"), 7);
        assert_eq!(read(b, address("PDP", "D_DST_LINE_STRIDE")), 128, "write into the running group dropped");
        program(b, 1, src[1], dst[1]);
        assert_eq!(read(b, status), 1 | 2 << 16, "group 0 running, group 1 pending");
        assert!(b.wait_irq(), "layer 0: no interrupt");
        assert_eq!(read(b, intr) & (done(0) | done(1)), done(0), "layer 0 ends first");
        write(b, intr, done(0));
        // Layer 1's bit is masked: wait for it through the status register instead of irq.
        let mut polls = 0;
        while read(b, intr) & done(1) == 0 {
            assert!(!b.idle().irq, "a masked PDP done bit raised irq");
            polls += 1;
            assert!(polls < 100_000, "layer 1 never finished");
        }
        assert!(!b.idle().irq, "only a masked bit is set");
        write(b, intr, done(1));
        for layer in [0, 1] {
            let got: Vec<u8> = (0..input.len() as u64).map(|k| b.memory.read(dst[layer] + k)).collect();
            assert_eq!(got, input, "layer {layer}: 1x1 max pooling copies");
        }
        assert_eq!(read(b, address("PDP", "S_POINTER")) >> 16, 0, "consumer back to group 0");
        assert_eq!(read(b, address("PDP_RDMA", "S_POINTER")) >> 16, 0);
        assert_eq!(read(b, status), 0, "both groups idle");
    });
}

fn atom(b: &Bench, at: u64) -> [u8; 8] {
    std::array::from_fn(|k| b.memory.read(at.wrapping_add(k as u64)))
}

/// Register programs NVDLA does not check (docs/nvdla.md, "Bad register programs"), on the
/// RTL in lock step with the model: a source cube crossing the top of the 64-bit address space
/// reads on from address 0; output lines that overlap are written in walk order, the last
/// write winning; a layer in place (destination = source) copies atom by atom; a layer whose
/// SDP_RDMA group is not enabled waits, S_STATUS PENDING, no interrupt, and starts when it is.
#[test]
fn register_programs_nvdla_does_not_check() {
    let run = Run::from_env("register_programs_nvdla_does_not_check", 0);
    let bytes = |seed: u64, n: usize| -> Vec<u8> { (0..n).map(|k| (k as u64 * 73 + seed * 29 + 5) as u8).collect() };
    let coverage = on_bench(&run, |b| {
        let intr = address("GLB", "S_INTR_STATUS");
        let finish = |b: &mut Bench, what: &str| {
            assert!(b.wait_irq(), "{what}: no interrupt (SEED={})", run.seed);
            let pending = read(b, intr);
            write(b, intr, pending);
        };
        // 4 atoms from 2^64 - 16: the last two come from 0 and 8.
        let top = 0u64.wrapping_sub(16);
        let input = bytes(1, 32);
        b.memory.write(top, &input[..16]);
        b.memory.write(0, &input[16..]);
        program_copy(b, 0, (4, 1), (top, 32), (0x1000, 32));
        finish(b, "wrapping source");
        for k in 0..4 {
            assert_eq!(atom(b, 0x1000 + 8 * k), input[8 * k as usize..][..8], "wrapping source, atom {k} (SEED={})", run.seed);
        }

        // 3 atoms a line, 2 lines, output line stride 8: line 1 starts on line 0's second
        // atom, so memory holds line 0's first atom, then line 1.
        let input = bytes(2, 48);
        b.memory.write(0x2000, &input);
        program_copy(b, 1, (3, 2), (0x2000, 24), (0x3000, 8));
        finish(b, "overlapping output lines");
        let mut expected = vec![0u8; 32];
        for (y, x) in (0..2).flat_map(|y| (0..3).map(move |x| (y, x))) {
            expected[8 * (y + x)..][..8].copy_from_slice(&input[24 * y + 8 * x..][..8]);
        }
        let got: Vec<u8> = (0..4).flat_map(|k| atom(b, 0x3000 + 8 * k)).collect();
        assert_eq!(got, expected, "overlapping output lines (SEED={})", run.seed);

        // In place: each atom is read before it is written, and never read again.
        let input = bytes(3, 64);
        b.memory.write(0x4000, &input);
        program_copy(b, 0, (4, 2), (0x4000, 32), (0x4000, 32));
        finish(b, "in place");
        let got: Vec<u8> = (0..8).flat_map(|k| atom(b, 0x4000 + 8 * k)).collect();
        assert_eq!(got, input, "in place (SEED={})", run.seed);

        // SDP enabled, SDP_RDMA not (group 1): nothing starts; enabling SDP_RDMA starts the
        // layer.
        for unit in ["SDP_RDMA", "SDP"] {
            write(b, address(unit, "S_POINTER"), 1);
        }
        write(b, address("SDP", "D_OP_ENABLE"), 1);
        for _ in 0..200 {
            assert!(!b.idle().irq, "a layer ran without SDP_RDMA enabled (SEED={})", run.seed);
        }
        assert_eq!(read(b, address("SDP", "S_STATUS")) >> 16, 2, "SDP's group 1 is PENDING");
        assert_eq!(read(b, address("SDP_RDMA", "S_STATUS")) >> 16, 0, "SDP_RDMA's group 1 is IDLE");
        write(b, address("SDP_RDMA", "D_OP_ENABLE"), 1);
        finish(b, "enabled late");
    });
    coverage.require(&["sdp start", "sdp done", "read stall"]);
}

/// The largest cube the registers allow (8192 x 8192 lines x 1024 surfaces: 2^36 atoms) runs,
/// and a wait for it ends: `wait_irq` gives up after its bound (the player's time-out, exit
/// status 1, never a hang), with SDP still RUNNING. On the model: the bound is the bench's,
/// the same for the RTL, and 4 M lock-step cycles would add seconds for nothing.
#[test]
fn the_largest_cube_runs_and_a_wait_for_it_ends() {
    let mut unit = npu::model::nvdla::nv_small::NvSmall::default();
    let mut step = |i: &npu::model::nvdla::nv_small::In| npu::model::Block::step(&mut unit, i);
    let mut b = Bench::new(&mut step, Memory::default(), None);
    for unit in ["SDP_RDMA", "SDP"] {
        for (register, value) in [("D_DATA_CUBE_WIDTH", 8191), ("D_DATA_CUBE_HEIGHT", 8191), ("D_DATA_CUBE_CHANNEL", 8191)] {
            write(&mut b, address(unit, register), value);
        }
    }
    write(&mut b, address("SDP", "D_CVT_SCALE"), 1);
    write(&mut b, address("SDP_RDMA", "D_OP_ENABLE"), 1);
    write(&mut b, address("SDP", "D_OP_ENABLE"), 1);
    assert!(!b.wait_irq(), "2^36 atoms cannot end within the bench's wait");
    assert_eq!(read(&mut b, address("SDP", "S_STATUS")) & 3, 1, "SDP's group 0 is RUNNING");
}

/// CDP's and SDP's LUT access ports (RDL NVDLA_CDP and NVDLA_SDP S_LUT_ACCESS_CFG/DATA; the
/// decisions at `npu_hdl::nvdla::csb::CDP_LUT_ENTRIES`): both tables of each unit filled with
/// random entries through S_LUT_ACCESS_DATA and read back, LUT_ADDR stepping on each access
/// and stopping at the last entry, a data read while the type is write reading 0, a data
/// write while it is read ignored, an address past the table's end neither written nor
/// stepped; one unit's writes leave the other's tables alone.
#[test]
fn lut_access_fills_and_reads_both_tables() {
    use rand::{Rng, SeedableRng};
    let run = Run::from_env("lut_access_fills_and_reads_both_tables", 0);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(run.seed);
    // S_LUT_ACCESS_CFG: LUT_ADDR 9..0, LUT_TABLE_ID 16 (0 LE, 1 LO), LUT_ACCESS_TYPE 17 (1 write).
    let point = |table: u32, write: bool, entry: u32| entry | table << 16 | u32::from(write) << 17;
    let coverage = on_bench(&run, |b| {
        let mut written = Vec::new();
        for unit in ["CDP", "SDP"] {
            let (cfg, data) = (address(unit, "S_LUT_ACCESS_CFG"), address(unit, "S_LUT_ACCESS_DATA"));
            let mut tables: [Vec<u16>; 2] = [vec![0; 65], vec![0; 257]];
            for (table, entries) in tables.iter_mut().enumerate() {
                let table = table as u32;
                write(b, cfg, point(table, true, 0));
                for entry in entries.iter_mut() {
                    *entry = rng.gen();
                    write(b, data, u32::from(*entry) | rng.gen::<u32>() << 16);
                }
                let last = entries.len() as u32 - 1;
                assert_eq!(read(b, cfg), point(table, true, last), "{unit} table {table}: LUT_ADDR stops at the last entry");
                // At the last entry, a write overwrites it and the address stays.
                entries[last as usize] = rng.gen();
                write(b, data, u32::from(entries[last as usize]));
                assert_eq!(read(b, cfg), point(table, true, last), "{unit} table {table}: the address stays at the last entry");
                assert_eq!(read(b, data), 0, "{unit} table {table}: a data read while the type is write reads 0");
                assert_eq!(read(b, cfg), point(table, true, last), "{unit} table {table}: nor steps");
            }
            for (table, entries) in tables.iter().enumerate() {
                let table = table as u32;
                let start = rng.gen_range(0..entries.len() as u32);
                write(b, cfg, point(table, false, start));
                for entry in start as usize..entries.len() {
                    assert_eq!(read(b, data), u32::from(entries[entry]), "{unit} table {table} entry {entry}");
                }
                let last = entries.len() - 1;
                assert_eq!(read(b, data), u32::from(entries[last]), "{unit} table {table}: reads stay at the last entry");
                write(b, data, 0x1234);
                assert_eq!(read(b, data), u32::from(entries[last]), "{unit} table {table}: a data write while the type is read is ignored");
                // Past the table's end: nothing is written, reads are 0, the address stays.
                write(b, cfg, point(table, true, 1000));
                write(b, data, 0x5555);
                assert_eq!(read(b, cfg), point(table, true, 1000), "{unit} table {table}: no step past the end");
                write(b, cfg, point(table, false, 1000));
                assert_eq!(read(b, data), 0, "{unit} table {table}: past the end reads 0");
                assert_eq!(read(b, cfg), point(table, false, 1000));
                write(b, cfg, point(table, false, 0));
                assert_eq!(read(b, data), u32::from(entries[0]), "{unit} table {table}: entry 0 kept");
            }
            written.push((cfg, data, tables));
        }
        // CDP's tables after SDP's were written: still CDP's.
        let (cfg, data, tables) = &written[0];
        for (table, entries) in tables.iter().enumerate() {
            write(b, *cfg, point(table as u32, false, 0));
            for (entry, &value) in entries.iter().enumerate() {
                assert_eq!(read(b, *data), u32::from(value), "CDP table {table} entry {entry} after SDP's writes");
            }
        }
    });
    coverage.require(&["csb write lut", "csb write lut ignored", "csb read"]);
}

/// The convolution core's five units (CDMA, CSC, CMAC_A, CMAC_B, CACC) are ping-pong groups
/// of one engine (docs/nvdla.md "Register groups", "Convolution engine"): enabling all five in
/// group 0 (reset values: a 1 x 1 x 1 cube, one 1 x 1 kernel) runs the engine there: each
/// reads running (S_STATUS 1), writes into group 0 are dropped, group 1 stays writable and
/// separate; CDMA's fetches set CDMA_DAT_DONE0 and CDMA_WT_DONE0, but the layer does not end
/// while no SDP takes CACC's atom. A flying SDP layer in group 0 then takes it and writes it:
/// CACC_DONE0 and SDP_DONE0, the five consumers move to group 1, SDP_RDMA's does not.
#[test]
fn convolution_groups_run_until_sdp_takes_the_atoms() {
    let run = Run::from_env("convolution_groups_run_until_sdp_takes_the_atoms", 0);
    let units = ["CDMA", "CSC", "CMAC_A", "CMAC_B", "CACC"];
    let bit = |f: &str| regmap::field("GLB", "S_INTR_STATUS", f).mask();
    let coverage = on_bench(&run, |b| {
        for unit in units {
            write(b, address(unit, "D_OP_ENABLE"), 1);
        }
        for _ in 0..200 {
            b.idle();
        }
        for unit in units {
            assert_eq!(read(b, address(unit, "S_STATUS")), 1, "{unit}: group 0 running, group 1 idle");
            assert_eq!(read(b, address(unit, "S_POINTER")), 0, "{unit}: consumer still group 0");
            // D_MISC_CFG (every one of the five has it): CONV_MODE 1 (Winograd) written.
            let (misc, reset) = (address(unit, "D_MISC_CFG"), regmap::register(unit, "D_MISC_CFG").1.reset());
            write(b, misc, 1);
            assert_eq!(read(b, misc), reset, "{unit}: write into the enabled group dropped");
            write(b, address(unit, "S_POINTER"), 1);
            write(b, misc, 1);
            assert_eq!(read(b, misc), 1, "{unit}: group 1 takes writes");
            write(b, address(unit, "S_POINTER"), 0);
            assert_eq!(read(b, misc), reset, "{unit}: group 0 kept apart");
        }
        let fetched = bit("CDMA_DAT_DONE_STATUS0") | bit("CDMA_WT_DONE_STATUS0");
        assert_eq!(read(b, address("GLB", "S_INTR_STATUS")), fetched, "CDMA's fetches done, the layer not");
        write(b, address("SDP", "D_FEATURE_MODE_CFG"), 1);
        write(b, address("SDP", "D_OP_ENABLE"), 1);
        for _ in 0..20 {
            b.idle();
        }
        assert_eq!(read(b, address("GLB", "S_INTR_STATUS")), fetched | bit("CACC_DONE_STATUS0") | bit("SDP_DONE_STATUS0"));
        for unit in units.iter().chain(&["SDP"]) {
            assert_eq!(read(b, address(unit, "S_POINTER")), 1 << 16, "{unit}: consumer group 1");
            assert_eq!(read(b, address(unit, "S_STATUS")), 0, "{unit}: idle");
        }
        assert_eq!(read(b, address("SDP_RDMA", "S_POINTER")), 0, "SDP_RDMA's group not used on the fly");
    });
    coverage.require(&["conv start", "conv done", "sdp flying start", "sdp flying atom", "sdp done"]);
}
