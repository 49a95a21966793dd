//! Arm Ethos-U65 datapath: the compressed weight stream (TRM §4.7, digest
//! `shared/spec/ethos-u65.md` §1). The decoder's RTL is `npu_hdl::ethos`, its model
//! `npu_model::ethos`; this module holds what surrounds them: the project's own encoder and
//! weight reordering, the Vela oracle, and weight distributions for tests and benchmarks.
pub mod conv;
pub mod command_stream;
pub mod conv_datapath;
pub mod depthwise_packing;
pub mod driver;
pub mod encoder;
pub mod executor;
pub mod front_end;
pub mod memory;
pub mod cnn_training;
pub mod mnist_cnn;
pub mod network;
pub mod npu;
pub mod operation;
pub mod reorder;
pub mod run;
pub mod tflite;
pub mod vela;
pub mod weights;
