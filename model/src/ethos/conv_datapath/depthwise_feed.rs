//! The packed depthwise feed of the convolution datapath's model (issue 19; docs/ethos.md,
//! "Depthwise tap packing"; the RTL sub-block is `hdl/src/ethos/depthwise_feed.rs`):
//! the kernel register (up to 3x3 elements of 8 weights, loaded in stage 2 of the group's
//! first block, tap by tap, from the weight rows read for it anyway), the column store
//! (window rows x columns 2 and 3 of the previous block, written in stage 2), and the second
//! act/weight feed of the MAC unit: unit (a, b, o) (accumulator `8·(2a + b) + o`) in the conv
//! mode takes act word `(b, o)` and weight word `(a, o)`, lane `3j + kx` = window row `r_j`'s
//! column `b + kx`, channel `o`, times kernel register (`ky(a, r_j)`, `kx`, `o`).
use crate::ethos::mac_unit::{pack, unpack, CHANNELS};

/// Stage 2 of a packed cycle: what the walk issued in the cycle before.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stage2 {
    pub reuse: bool,
    /// The cycle's first window row and the rows it takes (1 or 2).
    pub row: u32,
    pub rows: u32,
    /// Ports whose element is padding (their lanes are 0).
    pub pad: u8,
}

#[derive(Clone, Debug, Default)]
pub struct DepthwiseFeed {
    /// `[ky][kx][o]`.
    pub kernel: [[[i16; CHANNELS]; 3]; 3],
    /// `[window row][column 2 or 3][o]`.
    pub store: [[[i16; CHANNELS]; 2]; 4],
}

/// The kernel row that OFM row `a` of the block reads from window row `r` (`(r - a·sy) / dy`,
/// when whole and below `kh`).
pub fn kernel_row(r: u32, a: u32, stride_y: u32, dilation_y: u32, kernel_height: u32) -> Option<usize> {
    let d = r.checked_sub(a * stride_y)?;
    (d % dilation_y == 0 && d / dilation_y < kernel_height).then_some((d / dilation_y) as usize)
}

impl DepthwiseFeed {
    /// Stage 2 of the group's first block's tap (`ky`, `kx`): the weight row's diagonal (lane
    /// `o` of word `o`, depthwise) into the kernel register.
    pub fn load(&mut self, ky: usize, kx: usize, weights: &[u128; CHANNELS]) {
        self.kernel[ky][kx] = std::array::from_fn(|o| unpack(weights[o])[o]);
    }

    /// Stage 2 of a packed cycle, as the RTL's outputs: the window words (`win{j}{c}`, `[j][c]`:
    /// window row `row + j`, column `c`; fresh, the four ports of row `row` and row 1 zero;
    /// reuse, columns 0-1 from the store and 2-3 from ports `2j`, `2j + 1`; a row not taken
    /// and a padded port zero) and the kernel words (`k{a}{j}{kx}`, `[a][j][kx]`: element
    /// (`ky(a, row + j)`, `kx`), 0 where that is no tap). `lanes[p]` are the IFM lanes
    /// (minus the zero point, 0 beyond the depth). The column store takes columns 2 and 3 of
    /// the rows taken.
    pub fn feed(&mut self, s: &Stage2, lanes: &[[i16; CHANNELS]; 4], stride_y: u32, dilation_y: u32, kernel: (u32, u32)) -> Words {
        let port = |p: usize| if s.pad >> p & 1 != 0 { [0; CHANNELS] } else { lanes[p] };
        let mut window = [[[0i16; CHANNELS]; 4]; 2];
        for (j, words) in window.iter_mut().enumerate().take(s.rows as usize) {
            let r = s.row as usize + j;
            if s.reuse {
                *words = [self.store[r][0], self.store[r][1], port(2 * j), port(2 * j + 1)];
            } else {
                *words = [port(0), port(1), port(2), port(3)];
            }
            self.store[r] = [words[2], words[3]];
        }
        let kernel_words = std::array::from_fn(|a| {
            std::array::from_fn(|j| {
                std::array::from_fn(|kx| match kernel_row(s.row + j as u32, a as u32, stride_y, dilation_y, kernel.0) {
                    Some(ky) if (j as u32) < s.rows && (kx as u32) < kernel.1 => self.kernel[ky][kx],
                    _ => [0; CHANNELS],
                })
            })
        });
        Words { window, kernel: kernel_words }
    }
}

/// The second feed's words, as `depthwise_feed.rs` gives them to `conv_mac.rs`.
#[derive(Clone, Copy, Debug)]
pub struct Words {
    /// `[j][c]`: window row `row + j`, column `c`, lane `o` channel `o`.
    pub window: [[[i16; CHANNELS]; 4]; 2],
    /// `[a][j][kx]`: the kernel element OFM row `a` reads from window row `row + j`.
    pub kernel: [[[[i16; CHANNELS]; 3]; 2]; 2],
}

impl Words {
    /// Dot-product unit (a, b, o)'s act and weight words in the conv mode (the lane wiring
    /// of `conv_mac.rs`'s second feed): lane `3j + kx` is window (`j`, `b + kx`) and kernel
    /// (`a`, `j`, `kx`), lane `o` of each; lanes 6 and 7 are 0.
    pub fn unit(&self, a: usize, b: usize, o: usize) -> (u128, u128) {
        let act = pack(&std::array::from_fn(|l| if l < 6 { self.window[l / 3][b + l % 3][o] } else { 0 }));
        let w = pack(&std::array::from_fn(|l| if l < 6 { self.kernel[a][l / 3][l % 3][o] } else { 0 }));
        (act, w)
    }

    /// Unit (a, b, o)'s dot product of [`Self::unit`]'s words, without packing them.
    pub fn dot(&self, a: usize, b: usize, o: usize) -> i64 {
        (0..6).map(|l| i64::from(self.window[l / 3][b + l % 3][o]) * i64::from(self.kernel[a][l / 3][l % 3][o])).sum()
    }
}
