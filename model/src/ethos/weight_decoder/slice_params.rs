//! The weight decoder model's slice parameters (RTL `hdl/src/ethos/slice_params.rs`; TRM §4.7,
//! digest `shared/spec/ethos-u65.md` §1.2-1.4): the slice header's fields, and from them how many
//! weights and zero runs the slice has, whether they alternate, whether its weights are
//! uncompressed, and the remainders' widths. The palette's entries are held here too (the RTL's
//! `palette.rs`); the header step loads the fields, the palette step the entries.
/// Parameters of the current slice (§1.2); the palette ones persist over `newpal = 0`.
#[derive(Clone, Debug, Default)]
pub(super) struct Slice {
    pub(super) zdiv: u32,
    pub(super) wdiv: u32,
    pub(super) wtrunc: bool,
    pub(super) newpal: bool,
    /// slice_length - 1 (weights coded in the slice, minus one).
    pub(super) slicelen: u32,
    pub(super) dirofs: u32,
    /// 0 or 2..=32.
    pub(super) palsize: u32,
    /// 2..=9.
    pub(super) palbits: u32,
    pub(super) palette: [u32; 32],
}

impl Slice {
    pub(super) fn alternating(&self) -> bool {
        self.zdiv < 4
    }
    pub(super) fn uncompressed(&self) -> bool {
        self.wdiv == 7
    }
    pub(super) fn w_cnt(&self) -> u32 {
        self.slicelen + 1
    }
    pub(super) fn z_cnt(&self) -> u32 {
        self.slicelen + 1 + u32::from(self.newpal)
    }
    /// Index bits in uncompressed mode (§1.4).
    pub(super) fn ubits(&self) -> u32 {
        if self.palsize > 0 {
            32 - (self.palsize - 1).leading_zeros()
        } else {
            self.palbits
        }
    }
    pub(super) fn wremain_bits(&self) -> u32 {
        if self.uncompressed() {
            self.ubits()
        } else {
            self.wdiv
        }
    }
}
