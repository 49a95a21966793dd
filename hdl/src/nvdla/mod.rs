//! NVDLA nv_small (seeds/001; NVIDIA's RDL register descriptions and trace tests in
//! `shared/nvdla/`): the register map of the units built so far. docs/nvdla.md.
pub mod regmap;
