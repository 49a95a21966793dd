//! ScaleNPU: a weight-stationary systolic matrix unit with the control and status registers
//! of its register map (`seeds/004`), an AXI4-Lite slave for them and a memory master.
//! One file per block; the models are in `npu-model` under the same names. See docs/scale.md.

/// Rows and columns of the systolic array. A generation-time parameter: change it here and
/// run `make verilog` (the memory word is `16 * SIZE` bits wide, one tile row).
pub const SIZE: usize = 8;
/// Words (tile rows of results, `16 * SIZE` bits) in each of the result buffer's two banks:
/// the largest INROWS x ceil(WGHTCOLS/SIZE) whose results a next layer can take with
/// REINPUTS (docs/scale.md, "REINPUTS and the result buffer"). A power of two.
pub const RESULT_WORDS: usize = 1024;
/// Words (tile rows of X) in the X buffer, which keeps a layer's X on chip for its column
/// tiles after the first (docs/scale.md, "Timing"); a larger X is re-read from memory for
/// every column tile. A power of two.
pub const X_WORDS: usize = 1024;
/// Words (result words, `16 * SIZE` bits) in the output FIFO, where results wait to be written
/// while the port is busy (docs/scale.md, "Where the cycles go now", 2): one column tile's
/// INROWS <= 255 always fit. A power of two.
pub const OUT_WORDS: usize = 256;

mod activation;
mod csr;
mod csr_read;
mod csr_registers;
mod csr_write;
mod engine;
mod look_ahead;
mod phase_requests;
mod read_channel;
mod output_writer;
mod pe_column;
mod result_buffer;
pub mod regmap;
mod scale_npu;
mod state_decode;
mod state_machine;
mod systolic;
mod tile_ram;
mod tile_sequencer;
mod weight_loader;

pub use activation::Activation;
pub use csr::Csr;
pub use engine::Engine;
pub use look_ahead::LookAhead;
pub use output_writer::OutputWriter;
pub use pe_column::{PeColumn, VECTOR};
pub use result_buffer::ResultBuffer;
pub use scale_npu::ScaleNpu;
pub use systolic::Systolic;
pub use tile_ram::TileRam;
pub use tile_sequencer::TileSequencer;
pub use weight_loader::WeightLoader;
