//! The convolution DMA (seeds/001, "Convolution DMA"), direct convolution of int8 features:
//! what CDMA writes into CBUF. The feature cube's atoms, CDMA's input converter applied to
//! the channels inside the cube (the lanes past the last channel 0), at the entries CSC reads
//! them from ([`CscLayer::data_entry`]); a kernel group's weights, unpacked from NVIDIA's
//! packed layout (docs/nvdla.md, "Data in memory") into one atom per (channel block, tap,
//! kernel) ([`CscLayer::weight_entry`]). The checks of a layer CBUF cannot hold
//! ([`CdmaError`]). Not built yet: the cycle-level fetch through the memory port (one read per
//! 8-byte atom) and the registers; this is the placement the fetch will follow.
use super::cbuf::{Cbuf, BANKS, BANK_ENTRIES};
use super::csc::CscLayer;

/// Atomic-C = atomic-K = 8, the memory atom 8 bytes.
const ATOM: usize = 8;

/// CDMA's input converter (D_CVT_CFG.CVT_EN, CVT_TRUNCATE, D_CVT_OFFSET, D_CVT_SCALE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converter {
    pub offset: i16,
    pub scale: i16,
    /// 0..63.
    pub truncate: u32,
}

impl Converter {
    /// `(x - offset) * scale` (at most 2^31 in magnitude), shifted right by `truncate`
    /// rounding half away from zero, saturated to int8 (NVIDIA's C model, `hls_convertor`).
    pub fn apply(&self, x: i8) -> i8 {
        let product = (i64::from(x) - i64::from(self.offset)) * i64::from(self.scale);
        super::convert::round_shift_saturate(product, self.truncate, 8) as i8
    }
}

/// Where CDMA reads: the feature cube (base, line stride, surface stride) and the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CdmaLayer {
    pub csc: CscLayer,
    pub feature_base: u64,
    pub line_stride: u64,
    pub surface_stride: u64,
    pub weight_base: u64,
    /// D_BANK.WEIGHT_BANK + 1.
    pub weight_banks: usize,
    pub converter: Option<Converter>,
}

/// A layer CBUF cannot hold: the layer is refused (docs/nvdla.md, "Bad input").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CdmaError {
    /// The data and weight banks together exceed CBUF's 32.
    Banks { data: usize, weight: usize },
    /// The feature cube needs more entries than the data banks have.
    Features { entries: usize, room: usize },
    /// One kernel group's weights need more entries than the weight banks have.
    Weights { entries: usize, room: usize },
}

impl std::fmt::Display for CdmaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            CdmaError::Banks { data, weight } => write!(f, "{data} data banks and {weight} weight banks exceed CBUF's {BANKS}"),
            CdmaError::Features { entries, room } => write!(f, "the feature cube needs {entries} CBUF entries, the data banks hold {room}"),
            CdmaError::Weights { entries, room } => write!(f, "a kernel group's weights need {entries} CBUF entries, the weight banks hold {room}"),
        }
    }
}

impl CdmaLayer {
    /// The layer fits CBUF: banks, the whole feature cube, one kernel group's weights.
    pub fn check(&self) -> Result<(), CdmaError> {
        let l = &self.csc;
        if l.data_banks + self.weight_banks > BANKS {
            return Err(CdmaError::Banks { data: l.data_banks, weight: self.weight_banks });
        }
        let (entries, room) = (l.data_entries(), l.data_banks * BANK_ENTRIES);
        if entries > room {
            return Err(CdmaError::Features { entries, room });
        }
        let (entries, room) = (l.weight_entries(), self.weight_banks * BANK_ENTRIES);
        if entries > room {
            return Err(CdmaError::Weights { entries, room });
        }
        Ok(())
    }

    /// Byte address of channel `c` of feature pixel (x, y).
    fn feature_address(&self, x: usize, y: usize, c: usize) -> u64 {
        let surface = (c / ATOM) as u64;
        self.feature_base.wrapping_add(surface.wrapping_mul(self.surface_stride)).wrapping_add((y as u64).wrapping_mul(self.line_stride)).wrapping_add((x * ATOM + c % ATOM) as u64)
    }

    /// Byte address of weight (k, tap, c) in the packed layout.
    fn weight_address(&self, k: usize, tap: usize, c: usize) -> u64 {
        let l = &self.csc;
        let taps = l.kernel_width * l.kernel_height;
        let (group, block) = (k / ATOM, c / ATOM);
        let in_group = ATOM.min(l.kernels - group * ATOM);
        let in_block = ATOM.min(l.channels - block * ATOM);
        let offset = group * taps * l.channels * ATOM + block * ATOM * taps * in_group + tap * in_block * in_group + (k % ATOM) * in_block + c % ATOM;
        self.weight_base.wrapping_add(offset as u64)
    }

    /// Writes the feature cube into CBUF, read byte by byte through `read`.
    pub fn place_features(&self, cbuf: &mut Cbuf, read: impl Fn(u64) -> u8) {
        let l = &self.csc;
        for surface in 0..l.channel_blocks() {
            for y in 0..l.height {
                for x in 0..l.width {
                    let atom = (0..ATOM.min(l.channels - surface * ATOM)).fold(0u64, |word, lane| {
                        let v = read(self.feature_address(x, y, surface * ATOM + lane)) as i8;
                        let v = self.converter.map_or(v, |cvt| cvt.apply(v));
                        word | u64::from(v as u8) << (8 * lane)
                    });
                    cbuf.write(l.data_entry(x, y, surface), atom);
                }
            }
        }
    }

    /// Writes kernel group `group`'s weights into the weight banks (0 for kernels past the
    /// last), read byte by byte through `read`.
    pub fn place_weights(&self, cbuf: &mut Cbuf, group: usize, read: impl Fn(u64) -> u8) {
        let l = &self.csc;
        let taps = l.kernel_width * l.kernel_height;
        for block in 0..l.channel_blocks() {
            for tap in 0..taps {
                for k in 0..ATOM {
                    let kernel = group * ATOM + k;
                    let atom = if kernel < l.kernels {
                        (0..ATOM.min(l.channels - block * ATOM)).fold(0u64, |word, lane| word | u64::from(read(self.weight_address(kernel, tap, block * ATOM + lane))) << (8 * lane))
                    } else {
                        0
                    };
                    cbuf.write(l.weight_entry(block, tap, k), atom);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The converter, hand-worked: (20-10)*3 >> 1 = 15; (-128-10)*3/2 = -207 saturates; 1.5
    /// rounds to 2 and -1.5 to -2.
    #[test]
    fn converter_rounds_half_away_and_saturates() {
        let cvt = Converter { offset: 10, scale: 3, truncate: 1 };
        assert_eq!([20, -128, 11, 9, 127].map(|x| cvt.apply(x)), [15, -128, 2, -2, 127]);
    }

    /// Each refusal, and a layer that just fits.
    #[test]
    fn layers_cbuf_cannot_hold_are_refused() {
        let csc = CscLayer { width: 64, height: 8, channels: 8, kernel_width: 3, kernel_height: 3, kernels: 8, stride: (1, 1), dilation: (1, 1), out_width: 62, out_height: 6, data_banks: 1, ..CscLayer::default() };
        let layer = CdmaLayer { csc, feature_base: 0, line_stride: 512, surface_stride: 4096, weight_base: 0, weight_banks: 1, converter: None };
        assert_eq!(layer.check(), Ok(()));
        assert_eq!(CdmaLayer { weight_banks: 32, ..layer }.check(), Err(CdmaError::Banks { data: 1, weight: 32 }));
        let wide = CdmaLayer { csc: CscLayer { width: 65, ..csc }, ..layer };
        assert_eq!(wide.check(), Err(CdmaError::Features { entries: 520, room: 512 }));
        let deep = CdmaLayer { csc: CscLayer { channels: 64, height: 1, width: 8, ..csc }, ..layer };
        assert_eq!(deep.check(), Err(CdmaError::Weights { entries: 576, room: 512 }));
        assert_eq!(CdmaError::Weights { entries: 576, room: 512 }.to_string(), "a kernel group's weights need 576 CBUF entries, the weight banks hold 512");
    }
}
