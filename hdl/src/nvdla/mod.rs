//! NVDLA nv_small (seeds/001; NVIDIA's RDL register descriptions and trace tests in
//! `shared/nvdla/`): the register map of the units built so far, the CSB and register files,
//! the SDP engine with its BS/BN stages and output converter, the PDP engine with its pooling
//! arithmetic, the CDP engine with its window gathering and datapath, the convolution core
//! (CDMA, CBUF, CSC, CMAC, CACC; SDP takes its atoms in flying mode), and the top.
//! docs/nvdla.md.
pub mod cacc;
mod cdma;
mod cdma_check;
mod cdma_cvt;
pub mod cbuf;
mod cdp;
mod cdp_counters;
pub mod cdp_dp;
pub mod cdp_window;
pub mod cmac;
mod conv_core;
mod convert;
pub mod csb;
mod csb_config;
mod csb_engines;
mod csb_glb;
mod csb_lut_access;
mod csb_unit;
pub mod csc;
pub mod csc_cbuf;
mod cube_walk;
mod nv_small;
mod pdp;
mod pool;
pub mod regmap;
mod sdp;
mod sdp_lut;
mod sdp_operand_words;
mod sdp_operands;
mod sdp_walk;
mod sdp_x;
mod sdp_y;
mod unpack;

pub use cacc::Cacc;
pub use cdma::Cdma;
pub use cbuf::Cbuf;
pub use cdp::Cdp;
pub use cdp_window::CdpWindow;
pub use cmac::Cmac;
pub use conv_core::ConvCore;
pub use convert::Convert;
pub use csb::Csb;
pub use csc::Csc;
pub use csc_cbuf::CscCbuf;
pub use cube_walk::CubeWalk;
pub use nv_small::NvSmall;
pub use pdp::Pdp;
pub use pool::{Pool, PAD_SIGN_BIT};
pub use sdp::Sdp;
pub use sdp_lut::SdpLut;
pub use sdp_operands::SdpOperands;
pub use sdp_x::SdpX;
pub use sdp_y::SdpY;
pub use unpack::Unpack;
