//! MNIST NPU, datasheet V7.1 (`seeds/002`). See `docs/mnist.md`.
pub mod input_buffer;
pub mod mac;
pub mod piso_deb;
pub mod ssfr;
pub mod two_casc;
