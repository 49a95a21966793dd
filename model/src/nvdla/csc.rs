//! The convolution sequence controller (seeds/001, "Convolution sequence controller"): the
//! order of atomic operations of a direct convolution, the weight loads into CMAC's shadow
//! bank, the padding value, and the tags CACC accumulates by (the CSC -> CMAC interface of
//! `docs/nvdla-dc-interface`, quoted in docs/nvdla.md "Direct convolution").
//!
//! Order, per kernel group of 8 kernels: for each block of up to [`STRIPE_MAX`] output pixels
//! (in output order, x fastest), for each channel block of 8 channels, for each kernel tap
//! (r, s) in row order: one stripe, i.e. the 8 weight loads of that tap and channel block
//! (kernel 0..7), then one atomic operation per pixel of the block (the 8 channels of the input
//! pixel the tap reads). The weight loads of a stripe come before its first operation, none
//! while a stripe runs (the shadow bank then waits a cycle at most per load; the loads could
//! overlap the previous stripe: a later refinement).
//!
//! Timing: [`Csc::step`] decides a cycle's weight load or op and reads CBUF for it; the
//! outputs it registers are what the next step returns. The RTL (`npu_hdl::nvdla::csc`) reads
//! CBUF through registered read ports on the edge of the decision, which is that output
//! register: the same cycle (the model of the exported top reads CBUF before the cycle's
//! write, `csc_cbuf`).
//!
//! CBUF placement (what CDMA writes): the feature atom (x, y, surface) at entry
//! [`CscLayer::data_entry`], the weight atom (channel block, tap, kernel of the group) of the
//! current kernel group at [`CscLayer::weight_entry`], channels past the cube 0 in both.

use super::cbuf::{Cbuf, BANK_ENTRIES};

/// Output pixels a stripe covers at most (one CACC assembly group).
pub const STRIPE_MAX: usize = 32;
/// Atomic-C = atomic-K = 8 on nv_small.
const ATOM: usize = 8;

/// A direct-convolution layer as CSC's registers describe it (sizes, not minus one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CscLayer {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub kernel_width: usize,
    pub kernel_height: usize,
    pub kernels: usize,
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub pad_left: usize,
    pub pad_top: usize,
    pub out_width: usize,
    pub out_height: usize,
    pub pad_value: i8,
    /// D_BANK.DATA_BANK + 1: the weights start after these banks.
    pub data_banks: usize,
}

impl CscLayer {
    pub fn channel_blocks(&self) -> usize {
        self.channels.div_ceil(ATOM)
    }

    pub fn kernel_groups(&self) -> usize {
        self.kernels.div_ceil(ATOM)
    }

    fn taps(&self) -> usize {
        self.kernel_width * self.kernel_height
    }

    pub fn pixels(&self) -> usize {
        self.out_width * self.out_height
    }

    /// CBUF entry of feature atom (x, y, surface): surfaces, then lines, then pixels.
    pub fn data_entry(&self, x: usize, y: usize, surface: usize) -> usize {
        (surface * self.height + y) * self.width + x
    }

    /// Entries the feature cube takes.
    pub fn data_entries(&self) -> usize {
        self.width * self.height * self.channel_blocks()
    }

    /// CBUF entry of the current kernel group's weight atom (channel block, tap, kernel k of
    /// the group), after the data banks: one atom per (block, tap, kernel), 8 kernels a tap
    /// even in a last, partial group.
    pub fn weight_entry(&self, block: usize, tap: usize, k: usize) -> usize {
        self.data_banks * BANK_ENTRIES + (block * self.taps() + tap) * ATOM + k
    }

    /// Entries one kernel group's weights take.
    pub fn weight_entries(&self) -> usize {
        self.channel_blocks() * self.taps() * ATOM
    }

    /// Lanes of channel block `block` inside the cube, as a byte mask.
    fn lane_mask(&self, block: usize) -> u64 {
        let lanes = (self.channels - block * ATOM).min(ATOM);
        if lanes == ATOM { u64::MAX } else { (1u64 << (8 * lanes)) - 1 }
    }
}

/// The CSC's registered outputs are CMAC's inputs (`reset` always low).
pub use super::cmac::In as CscOut;

/// Where the sequence is: kernel group, first pixel of the block, channel block, tap, and
/// within the stripe either the kernel being loaded or the pixel being sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Position {
    group: usize,
    block_start: usize,
    channel_block: usize,
    tap: usize,
    load: usize,
    pixel: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Csc {
    layer: CscLayer,
    running: bool,
    at: Position,
    /// Waiting for the next kernel group's weights in CBUF (after the last stripe of a group).
    wait_weights: bool,
    out: CscOut,
}

impl Csc {
    pub fn running(&self) -> bool {
        self.running
    }

    /// Working and waiting for the next kernel group's weights: CDMA may overwrite the weight
    /// banks (the previous group is done), and calls [`Self::weights_ready`] when it has.
    pub fn wants_weights(&self) -> bool {
        self.running && self.wait_weights
    }

    /// The outputs registered at the last step (what the next step returns).
    pub fn registered(&self) -> CscOut {
        self.out.clone()
    }

    /// The kernel group CSC works on or waits for.
    pub fn group(&self) -> usize {
        self.at.group
    }

    pub fn start(&mut self, layer: CscLayer) {
        *self = Csc { layer, running: true, at: Position::default(), wait_weights: true, out: CscOut::default() };
    }

    /// The current kernel group's weights are in CBUF.
    pub fn weights_ready(&mut self) {
        self.wait_weights = false;
    }

    fn block_pixels(&self) -> usize {
        (self.layer.pixels() - self.at.block_start).min(STRIPE_MAX)
    }

    /// The 8 features of the input pixel that output pixel `pixel` reads at the current tap
    /// and channel block: the CBUF atom inside the cube, the padding value outside it;
    /// channels past the cube 0.
    fn feature(&self, cbuf: &Cbuf, pixel: usize, events: &mut Vec<&'static str>) -> u64 {
        let l = &self.layer;
        let (ox, oy) = (pixel % l.out_width, pixel / l.out_width);
        let (r, s) = (self.at.tap / l.kernel_width, self.at.tap % l.kernel_width);
        let x = (ox * l.stride.0 + s * l.dilation.0).checked_sub(l.pad_left).filter(|&x| x < l.width);
        let y = (oy * l.stride.1 + r * l.dilation.1).checked_sub(l.pad_top).filter(|&y| y < l.height);
        let atom = match (x, y) {
            (Some(x), Some(y)) => cbuf.read(l.data_entry(x, y, self.at.channel_block)),
            _ => {
                events.push("csc padding");
                u64::from(l.pad_value as u8) * 0x0101_0101_0101_0101
            }
        };
        if l.lane_mask(self.at.channel_block) != u64::MAX {
            events.push("csc partial channel block");
        }
        atom & l.lane_mask(self.at.channel_block)
    }

    /// One clock edge: `hold` (CACC cannot take another stripe) keeps a stripe from starting.
    /// Returns the registered outputs before the edge; `events` gets what the cycle did.
    pub fn step(&mut self, cbuf: &Cbuf, hold: bool, events: &mut Vec<&'static str>) -> CscOut {
        let out = std::mem::take(&mut self.out);
        if !self.running {
            return out;
        }
        if self.wait_weights {
            events.push("csc wait weights");
            return out;
        }
        let l = self.layer;
        let at = self.at;
        if at.load < ATOM {
            if at.load == 0 && hold {
                events.push("csc hold");
                return out;
            }
            let kernel = at.group * ATOM + at.load;
            self.out.wt_valid = true;
            self.out.wt_kernel = at.load as u8;
            self.out.wt_data = if kernel < l.kernels { cbuf.read(l.weight_entry(at.channel_block, at.tap, at.load)) & l.lane_mask(at.channel_block) } else { 0 };
            if kernel >= l.kernels {
                events.push("csc kernel past the last");
            }
            self.at.load += 1;
            events.push("csc weight load");
            return out;
        }
        let last_tap = at.tap + 1 == l.taps();
        let last_block = at.channel_block + 1 == l.channel_blocks();
        let last_pixel = at.pixel + 1 == self.block_pixels();
        let last_pixel_block = at.block_start + STRIPE_MAX >= l.pixels();
        let last_group = at.group + 1 == l.kernel_groups();
        self.out = CscOut {
            dat_valid: true,
            dat_data: self.feature(cbuf, at.block_start + at.pixel, events),
            dat_stripe_first: at.pixel == 0,
            dat_acc_first: at.tap == 0 && at.channel_block == 0,
            dat_acc_last: last_tap && last_block,
            dat_layer_last: last_pixel && last_tap && last_block && last_pixel_block && last_group,
            ..CscOut::default()
        };
        events.push("csc atomic op");
        if at.pixel + 1 == STRIPE_MAX {
            events.push("csc op 32 of a stripe");
        }
        // The next position: pixel, tap, channel block, pixel block, kernel group.
        let mut next = at;
        if !last_pixel {
            next.pixel += 1;
        } else {
            next = Position { load: 0, pixel: 0, ..next };
            if !last_tap {
                next.tap += 1;
            } else if !last_block {
                (next.tap, next.channel_block) = (0, next.channel_block + 1);
            } else if !last_pixel_block {
                (next.tap, next.channel_block, next.block_start) = (0, 0, next.block_start + STRIPE_MAX);
            } else if !last_group {
                next = Position { group: next.group + 1, ..Position::default() };
                self.wait_weights = true;
            } else {
                self.running = false;
                events.push("csc done");
            }
        }
        self.at = next;
        out
    }
}
