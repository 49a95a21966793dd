//! Arm Ethos-U65 datapath: the compressed weight stream (TRM §4.7, digest
//! `shared/spec/ethos-u65.md` §1). The decoder's RTL is `npu_hdl::ethos`, its model
//! `npu_model::ethos`; this module drives streams through either.
pub mod driver;
