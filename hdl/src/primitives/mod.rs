//! Primitives shared by every NPU: the few places where rust-hdl's own constructs would
//! export Verilog with width mismatches or without a reset, written once.
mod concat;
mod mul_s16;
mod mul_s8;
mod mul_u;
mod pack8;
mod pack_bytes;
mod ram;
mod reg;
mod reg_en;
mod reg_select;
mod reg_file;
mod sign_extend;
mod sign_extend_bits;
mod zero_extend;

pub use concat::Concat;
pub use mul_s16::MulS16;
pub use mul_s8::MulS8;
pub use mul_u::MulU;
pub use pack8::Pack8;
pub use pack_bytes::PackBytes;
pub use ram::Ram;
pub use reg::Reg;
pub use reg_en::RegEn;
pub use reg_select::RegSelect;
pub use reg_file::RegFile;
pub use sign_extend::SignExtend;
pub use sign_extend_bits::SignExtendBits;
pub use zero_extend::ZeroExtend;

use rust_hdl::prelude::{Bits, Constant};

/// A block's constant field of `N` bits from a number (the `Default` of a block with
/// `Constant` fields); blocks import it as `k`.
pub fn constant<const N: usize>(value: u64) -> Constant<Bits<N>> {
    Constant::new(value.into())
}
