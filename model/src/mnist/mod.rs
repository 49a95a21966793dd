//! MNIST NPU, datasheet V7.1 (`seeds/002`). See `docs/mnist.md`.
pub mod mac;
pub mod piso_deb;
pub mod two_casc;
