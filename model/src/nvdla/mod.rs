//! NVDLA nv_small models (seeds/001), one file per block, named as its RTL block.
pub mod cdp;
pub mod cdp_dp;
pub mod cdp_window;
pub mod convert;
pub mod csb;
pub mod nv_small;
pub mod pdp;
pub mod pool;
pub mod sdp;
pub mod sdp_lut;
pub mod sdp_x;
pub mod sdp_y;
pub mod unpack;
