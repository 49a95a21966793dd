//! The NVDLA tests' bench helpers: CSB access by register name, the RTL in lock step with the
//! model behind the stalling trace memory, and an SDP copy layer.
#![allow(dead_code)] // each test binary uses its own part
pub mod conv_reference;
pub mod dc_layers;
pub mod flying_conv;
pub mod sdp_lut_reference;
pub mod sdp_reference;
use npu::cosim::lockstep::{Coverage, Lockstep, Run};
use npu::cosim::tops::nv_small::NvSmall as Rtl;
use npu::nvdla::memory::Memory;
use npu::nvdla::player::Bench;
use npu_hdl::nvdla::regmap;

/// NVIDIA's direct-convolution traces.
pub const DC_TRACES: [&str; 9] = [
    "dc_13x15x64_5x3x64x16_int8_0",
    "dc_1x1x8_1x1x8x1_int8_0",
    "dc_24x44x14_5x3x14x41_int8_0",
    "dc_32x26x76_6x3x76x16_int8_0",
    "dc_35x22x54_6x8x54x29_int8_0",
    "dc_4x1x8192_1x1x8192x1_int8_0",
    "dc_6x8x192_3x3x192x32_int8_0",
    "dc_8192x1x1_2x3x1x41_int8_0",
    "dc_8x16x128_3x3x128x32_int8",
];

/// The folder of NVIDIA's traces (`NVDLA_TRACES`, or the shared folder beside the checkout).
pub fn traces_dir() -> std::path::PathBuf {
    let dir = npu::nvdla::shared_folder("NVDLA_TRACES", "traces", std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(dir.is_dir(), "NVIDIA's traces are not at {} (set NVDLA_TRACES to their folder)", dir.display());
    dir
}

pub fn address(unit: &str, register: &str) -> u16 {
    let (u, r) = regmap::register(unit, register);
    u.csb_address(r)
}

/// Runs `body` on a bench whose memory stalls (seed from `run`) in front of the RTL and the
/// model in lock step.
pub fn on_bench(run: &Run, body: impl FnOnce(&mut Bench)) -> Coverage {
    let mut pair = Lockstep::<Rtl>::open(run);
    let mut step = |i: &npu::model::nvdla::nv_small::In| pair.step(i).unwrap_or_else(|m| panic!("{m}"));
    let mut bench = Bench::new(&mut step, Memory::default(), Some(run.seed));
    body(&mut bench);
    drop(bench);
    pair.coverage
}

pub fn read(b: &mut Bench, address: u16) -> u32 {
    b.csb(address, None).unwrap_or_else(|e| panic!("{e:?}"))
}

pub fn write(b: &mut Bench, address: u16, value: u32) {
    b.csb(address, Some(value)).unwrap_or_else(|e| panic!("{e:?}"));
}

/// One SDP layer in bypass with converter scale 1 (a copy), programmed into `group` and
/// enabled: `w` atoms a line, `h` lines, one surface; source and destination with their line
/// strides.
pub fn program_copy(b: &mut Bench, group: u32, (w, h): (u32, u32), (src, src_line): (u64, u32), (dst, dst_line): (u64, u32)) {
    for unit in ["SDP_RDMA", "SDP"] {
        write(b, address(unit, "S_POINTER"), group);
        write(b, address(unit, "D_DATA_CUBE_WIDTH"), w - 1);
        write(b, address(unit, "D_DATA_CUBE_HEIGHT"), h - 1);
        write(b, address(unit, "D_DATA_CUBE_CHANNEL"), 7);
    }
    for (unit, register, value) in [
        ("SDP_RDMA", "D_SRC_BASE_ADDR_LOW", src as u32),
        ("SDP_RDMA", "D_SRC_BASE_ADDR_HIGH", (src >> 32) as u32),
        ("SDP_RDMA", "D_SRC_LINE_STRIDE", src_line),
        ("SDP_RDMA", "D_SRC_SURFACE_STRIDE", src_line * h),
        ("SDP", "D_DST_BASE_ADDR_LOW", dst as u32),
        ("SDP", "D_DST_BASE_ADDR_HIGH", (dst >> 32) as u32),
        ("SDP", "D_DST_LINE_STRIDE", dst_line),
        ("SDP", "D_DST_SURFACE_STRIDE", dst_line * h),
        ("SDP", "D_CVT_SCALE", 1),
        ("SDP_RDMA", "D_OP_ENABLE", 1),
        ("SDP", "D_OP_ENABLE", 1),
    ] {
        write(b, address(unit, register), value);
    }
}

/// An SDP copy of `atoms` random atoms from `src` to `dst`, programmed into `group` and
/// enabled, to run beside another engine's layer on the memory port.
pub fn start_copy(b: &mut Bench, rng: &mut impl rand::Rng, group: u32, (src, dst): (u64, u64), atoms: u32) {
    let copy: Vec<u8> = (0..8 * atoms).map(|_| rng.gen()).collect();
    b.memory.write(src, &copy);
    program_copy(b, group, (atoms, 1), (src, 8 * atoms), (dst, 8 * atoms));
}

/// The copy [`start_copy`] started is complete: `atoms` atoms at `dst` equal those at `src`.
pub fn assert_copied(b: &Bench, (src, dst): (u64, u64), atoms: u32, what: &str) {
    let copied: Vec<u8> = (0..8 * u64::from(atoms)).map(|k| b.memory.read(dst + k)).collect();
    let original: Vec<u8> = (0..8 * u64::from(atoms)).map(|k| b.memory.read(src + k)).collect();
    assert_eq!(copied, original, "{what}: the SDP copy beside it");
}
