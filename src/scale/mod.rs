//! ScaleNPU (`seeds/004`, docs/scale.md): the bench's memory, layers and their memory
//! image, the register-level driver used by `npu scale run`, the tests and the benchmark,
//! and the MLP workloads (Iris, MNIST).
pub mod iris;
pub mod layer;
pub mod layer_file;
pub mod memory;
pub mod mnist;
pub mod mlp;
pub mod program;
pub mod driver;
