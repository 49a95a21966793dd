//! MNIST NPU, datasheet V7.1 (`seeds/002`). See `docs/mnist.md`.
mod mac;
mod piso_deb;
mod two_casc;

pub use mac::Mac;
pub use piso_deb::PisoDeb;
pub use two_casc::TwoCasc;
