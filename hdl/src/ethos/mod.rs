//! Arm Ethos-U65 datapath blocks (TRM 102023_0000_06, `seeds/000`; digest
//! `shared/spec/ethos-u65.md`). One file per block; the models are in `npu-model` under the
//! same names. See docs/ethos.md.
pub mod command_set;
pub mod command_front_end;
pub mod dma;
mod dot_product;
pub mod elementwise;
pub mod elementwise_alu;
pub mod feature_map;
pub mod kernel_registers;
mod npu;
mod mac_unit;
mod output_unit;
pub mod pooling_alu;
mod conv_control;
mod conv_datapath;
mod conv_mac;
mod output_walk;
mod conv_traversal;
mod ifm_reads;
mod layer_check;
mod layer_registers;
mod scale_bias_loader;
mod weight_buffer;
mod weight_rows;
pub mod conv_unit;
mod conv_layer;
mod conv_ports;
mod ifm_server;
mod ofm_queue;
mod stream_reader;
mod requantize;
mod weight_decoder;
mod weight_decoder_core;
mod weight_emitter;
mod weight_queues;
mod word_cache;

pub use command_front_end::CommandFrontEnd;
pub use conv_datapath::ConvDatapath;
pub use conv_unit::ConvUnit;
pub use dot_product::DotProduct;
pub use elementwise::Elementwise;
pub use mac_unit::MacUnit;
pub use npu::Npu;
pub use output_unit::OutputUnit;
pub use requantize::{Requantize, ScaleProduct};
pub use weight_decoder::WeightDecoder;
