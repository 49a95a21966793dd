//! MNIST NPU, datasheet V7.1 (`seeds/002`). One file per block, named as its RTL block in
//! `npu-hdl`; `chip` composes them. See docs/mnist.md.
pub mod chip;
pub mod comparator;
pub mod downcounter;
pub mod fifo;
pub mod fsm_acc;
pub mod fsm_out;
pub mod input_buffer;
pub mod mac;
pub mod output_mux;
pub mod piso_deb;
pub mod piso_out;
pub mod relu;
pub mod ssfr;
pub mod two_casc;
