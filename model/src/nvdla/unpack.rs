//! SDP_RDMA's unpacking of an int8 atom into SDP's 32-bit lanes (sign-extended). RTL:
//! `npu_hdl::nvdla::unpack::Unpack`.
use super::convert::ATOM;

/// The int8 lanes of an atom (lane k in byte k), sign-extended to 32 bits.
pub fn lanes(atom: u64) -> [i32; ATOM as usize] {
    std::array::from_fn(|lane| i32::from((atom >> (8 * lane)) as u8 as i8))
}
