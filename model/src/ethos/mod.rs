//! Arm Ethos-U65 datapath blocks (TRM 102023_0000_06, `seeds/000`; digest
//! `shared/spec/ethos-u65.md`). One file per block, named as its RTL block in `npu-hdl`.
pub mod weight_decoder;
pub mod output_unit;
pub mod mac_unit;
pub mod conv_datapath;
pub mod conv_mac;
pub mod depthwise_packing;
pub mod output_walk;
pub mod output_lanes;
pub mod weight_rows;
pub mod conv_unit;
pub mod command_front_end;
pub mod command_processor;
pub mod register_port;
pub mod dma;
pub mod feature_map;
pub mod kernel_registers;
pub mod latch_sequencer;
pub mod elementwise;
pub mod elementwise_check;
pub mod elementwise_datapath;
pub mod elementwise_lanes;
pub mod elementwise_memory;
pub mod npu;
