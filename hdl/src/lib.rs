//! rust-hdl descriptions of the NPU datapath blocks.
//!
//! This crate is the single source of truth for the RTL: Verilog, port manifests and the
//! co-simulation handles are all generated from the structs defined here (see `npu-gen`).
//!
//! Conventions every block follows, so that the exported Verilog lints clean under
//! `verilator -Wall` without waiving any functional warning class:
//! - registers are [`primitives::Reg`]: synchronous reset to a stated value, no `initial` block;
//! - no integer literals inside `#[hdl_gen]` (rust-hdl prints them 32 bits wide): every
//!   constant is a sized `Constant<_>` field;
//! - narrowing is a bit slice of a `Bits` signal, never a cast; sign extension and the 8x8
//!   multiplier are the primitives [`primitives::SignExtend`] and [`primitives::MulS8`].
pub mod ethos;
pub mod mnist;
pub mod nvdla;
pub mod primitives;
pub mod scale;
#[cfg(test)]
mod synth_check;

/// Runs `build` on a thread with a 64 MB stack and returns what it returns. rust-hdl blocks
/// are plain values, and building the largest (the Ethos NPU, nv_small) overflows a test
/// thread's 2 MB; `npu_gen::tops` and the synthesis checks build their blocks here.
pub fn on_large_stack<T: Send + 'static>(build: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(build)
        .expect("a thread to build the blocks")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}
