//! Arm Ethos-U65 datapath blocks (TRM 102023_0000_06, `seeds/000`; digest
//! `shared/spec/ethos-u65.md`). One file per block; the models are in `npu-model` under the
//! same names. See docs/ethos.md.
mod weight_decoder;

pub use weight_decoder::WeightDecoder;
