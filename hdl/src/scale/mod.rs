//! ScaleNPU: a weight-stationary systolic matrix unit with the control and status registers
//! of its register map (`seeds/004`), an AXI4-Lite slave for them and a memory master.
//! One file per block; the models are in `npu-model` under the same names. See docs/scale.md.

/// Rows and columns of the systolic array. A generation-time parameter: change it here and
/// run `make verilog` (the memory word is `16 * SIZE` bits wide, one tile row).
pub const SIZE: usize = 8;

pub mod regmap;
mod csr;
pub use csr::Csr;
