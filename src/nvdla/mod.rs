//! NVDLA nv_small (seeds/001): NVIDIA's own trace tests, read and played. The units' RTL is
//! to come (docs/nvdla.md); what is here reads the trace format and holds the memory image.
pub mod memory;
pub mod player;
pub mod trace;
