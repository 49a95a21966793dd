//! MNIST NPU, datasheet V7.1 (`seeds/002`). One file per block; `chip` wires them to the
//! pins. See docs/mnist.md.
mod chip;
mod comparator;
mod downcounter;
mod fifo;
mod fsm_acc;
mod fsm_out;
mod input_buffer;
mod mac;
mod output_mux;
mod piso_deb;
mod piso_out;
mod relu;
mod ssfr;
mod two_casc;

pub use chip::Chip;
pub use comparator::Comparator;
pub use downcounter::Downcounter;
pub use fifo::Fifo;
pub use fsm_acc::FsmAcc;
pub use fsm_out::FsmOut;
pub use input_buffer::InputBuffer;
pub use mac::Mac;
pub use output_mux::OutputMux;
pub use piso_deb::PisoDeb;
pub use piso_out::PisoOut;
pub use relu::Relu;
pub use ssfr::Ssfr;
pub use two_casc::TwoCasc;
