//! The NPU reference project: behavioural models ([`model`]) and the Verilator
//! co-simulation of the exported RTL ([`cosim`]). The RTL itself is in `npu-hdl`, the
//! Verilog export in `npu-gen`; this package holds the regressions (`tests/`) and the
//! benchmarks (`benches/`).
pub use npu_cosim as cosim;
pub use npu_model as model;

pub mod ethos;
pub mod mnist;
pub mod nvdla;
pub mod pypi;
pub mod scale;
pub mod waves;

/// The index of the largest score; on a tie the first (the class a network predicts).
pub fn argmax<T: PartialOrd>(scores: &[T]) -> usize {
    (0..scores.len()).fold(0, |best, i| if scores[i] > scores[best] { i } else { best })
}
