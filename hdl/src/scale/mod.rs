//! ScaleNPU: a weight-stationary systolic matrix unit with the control and status registers
//! of its register map (`seeds/004`), an AXI4-Lite slave for them and a memory master.
//! One file per block; the models are in `npu-model` under the same names. See docs/scale.md.

/// Rows and columns of the systolic array. A generation-time parameter: change it here and
/// run `make verilog` (the memory word is `16 * SIZE` bits wide, one tile row).
pub const SIZE: usize = 8;

mod activation;
mod csr;
mod engine;
mod pe_column;
pub mod regmap;
mod scale_npu;
mod systolic;

pub use activation::Activation;
pub use csr::Csr;
pub use engine::Engine;
pub use pe_column::{PeColumn, VECTOR};
pub use scale_npu::ScaleNpu;
pub use systolic::Systolic;
