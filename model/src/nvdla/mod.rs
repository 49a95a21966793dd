//! NVDLA nv_small models (seeds/001), one file per block, named as its RTL block.
pub mod cacc;
pub mod cbuf;
pub mod cdma;
pub mod cdp;
pub mod cdp_dp;
pub mod cdp_window;
pub mod cmac;
pub mod convert;
pub mod csb;
pub mod csc;
pub mod nv_small;
pub mod pdp;
pub mod pool;
pub mod sdp;
pub mod sdp_x;
pub mod sdp_y;
pub mod unpack;
