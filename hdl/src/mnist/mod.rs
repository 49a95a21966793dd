//! MNIST NPU, datasheet V7.1 (`seeds/002`). See `docs/mnist.md`.
mod input_buffer;
mod mac;
mod piso_deb;
mod ssfr;
mod two_casc;

pub use input_buffer::InputBuffer;
pub use mac::Mac;
pub use piso_deb::PisoDeb;
pub use ssfr::Ssfr;
pub use two_casc::TwoCasc;
