//! ScaleNPU models (`seeds/004`), one file per block, named as its RTL block in `npu-hdl`.

/// Rows and columns of the systolic array: `npu_hdl::scale::SIZE`, which tests/scale_npu.rs
/// checks is the same (the model crate does not depend on the RTL crate).
pub const SIZE: usize = 8;
/// Words in each bank of the result buffer: `npu_hdl::scale::RESULT_WORDS` (checked alike).
pub const RESULT_WORDS: usize = 1024;
/// Words in the X buffer (the engine's `TileRam` that keeps X on chip):
/// `npu_hdl::scale::X_WORDS` (checked alike).
pub const X_WORDS: usize = 1024;
/// Words in the output FIFO (the engine's `TileRam` of result words waiting to be written):
/// `npu_hdl::scale::OUT_WORDS` (checked alike). One column tile's INROWS <= 255 always fit.
pub const OUT_WORDS: usize = 256;

pub mod csr;
pub mod engine;
pub mod look_ahead;
pub mod phase_requests;
pub mod output_writer;
pub mod pe_column;
pub mod result_buffer;
pub mod scale_npu;
pub mod systolic;
pub mod tile_ram;
pub mod tile_sequencer;
pub mod weight_loader;
