//! CMAC, nv_small's MAC array (seeds/001 "Convolution MAC"): atomic-C 8 x atomic-K 8 = 64
//! int8 multipliers in 8 MAC cells, one cell per kernel. RTL: `npu_hdl::nvdla::cmac::Cmac`;
//! interface and timing: docs/nvdla.md "CMAC".
//!
//! - A weight load (`wt_valid`) writes the SHADOW weights of cell `wt_kernel`: 8 int8 weights,
//!   channel c in bits 8c+7..8c.
//! - An atomic operation (`dat_valid`) carries one input pixel's 8 int8 channels and four tags.
//!   With `dat_stripe_first` the shadow bank is copied into the active bank on this edge,
//!   before the op multiplies; a weight load in the same cycle goes to the shadow bank after
//!   the copy (it is for the next stripe), as NVIDIA's C model promotes the shadow at a
//!   stripe's start and CSC loads the next stripe's weights meanwhile.
//! - [`CMAC_LATENCY`] = 2 cycles later: `psum_valid`, the 8 partial sums (cell k: the sum over
//!   the 8 channels of feature x active weight, exact in 18 bits, carried in 20), and the four
//!   tags unchanged. Stage 1 registers the op, stage 2 the sums. Between ops the stage
//!   registers hold their last values.
pub use npu_hdl::nvdla::cmac::{CMAC_LATENCY, PSUM_BITS};

/// Every input port (the rust-hdl names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub reset: bool,
    pub wt_valid: bool,
    /// The MAC cell (kernel) 0..7 the weights are for.
    pub wt_kernel: u8,
    pub wt_data: u64,
    pub dat_valid: bool,
    pub dat_data: u64,
    pub dat_stripe_first: bool,
    pub dat_acc_first: bool,
    pub dat_acc_last: bool,
    pub dat_layer_last: bool,
}

/// Every output port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub psum_valid: bool,
    /// Kernels 0..3 (`psum_lo`) and 4..7 (`psum_hi`), 20-bit two's complement each, kernel
    /// k in bits 20(k mod 4)+19..20(k mod 4): a cosimulated port is at most 128 bits wide.
    pub psum_lo: u128,
    pub psum_hi: u128,
    pub psum_stripe_first: bool,
    pub psum_acc_first: bool,
    pub psum_acc_last: bool,
    pub psum_layer_last: bool,
}

impl Out {
    /// CACC's inputs: these partial sums and tags, with CACC's truncation and SDP's ready.
    pub fn cacc(&self, clip_truncate: u8, out_ready: bool) -> super::cacc::In {
        super::cacc::In {
            reset: false,
            psum_valid: self.psum_valid,
            psum_lo: self.psum_lo,
            psum_hi: self.psum_hi,
            psum_stripe_first: self.psum_stripe_first,
            psum_acc_first: self.psum_acc_first,
            psum_acc_last: self.psum_acc_last,
            psum_layer_last: self.psum_layer_last,
            clip_truncate,
            out_ready,
        }
    }
}

/// The tags an op carries from CSC to CACC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tags {
    pub stripe_first: bool,
    pub acc_first: bool,
    pub acc_last: bool,
    pub layer_last: bool,
}

/// Lane c of an atom of 8 int8 values.
pub fn lane(atom: u64, c: usize) -> i8 {
    (atom >> (8 * c)) as u8 as i8
}

/// Cell k's partial sum: the dot product of the pixel's 8 channels with the cell's weights.
pub fn dot(data: u64, weights: u64) -> i32 {
    (0..8).map(|c| i32::from(lane(data, c)) * i32::from(lane(weights, c))).sum()
}

/// The 8 partial sums as the two output words.
pub fn pack_psums(psums: [i32; 8]) -> (u128, u128) {
    let mask = (1u128 << PSUM_BITS) - 1;
    let word = |k0: usize| (0..4).fold(0u128, |w, k| w | ((psums[k0 + k] as u128 & mask) << (PSUM_BITS * k)));
    (word(0), word(4))
}

/// The 8 partial sums of the two output words.
pub fn unpack_psums(lo: u128, hi: u128) -> [i32; 8] {
    std::array::from_fn(|k| {
        let word = if k < 4 { lo } else { hi };
        let raw = (word >> (PSUM_BITS * (k % 4))) as u32;
        ((raw << (32 - PSUM_BITS)) as i32) >> (32 - PSUM_BITS)
    })
}

#[derive(Default)]
pub struct Cmac {
    shadow: [u64; 8],
    active: [u64; 8],
    /// Stage 1: the op taken (valid, pixel, tags).
    stage1: (bool, u64, Tags),
    out: Out,
    events: Vec<&'static str>,
}

impl Cmac {
    fn outputs(&self) -> Out {
        self.out.clone()
    }

    fn clock(&mut self, input: &In) {
        self.events.clear();
        if input.reset {
            *self = Self::default();
            return;
        }
        // Stage 2: the op of stage 1 with the active bank of this cycle.
        let (valid, data, tags) = self.stage1;
        self.out.psum_valid = valid;
        if valid {
            let (lo, hi) = pack_psums(std::array::from_fn(|k| dot(data, self.active[k])));
            self.out = Out {
                psum_valid: true,
                psum_lo: lo,
                psum_hi: hi,
                psum_stripe_first: tags.stripe_first,
                psum_acc_first: tags.acc_first,
                psum_acc_last: tags.acc_last,
                psum_layer_last: tags.layer_last,
            };
        }
        // Stage 1 and the banks.
        self.stage1.0 = input.dat_valid;
        if input.dat_valid {
            let tags = Tags {
                stripe_first: input.dat_stripe_first,
                acc_first: input.dat_acc_first,
                acc_last: input.dat_acc_last,
                layer_last: input.dat_layer_last,
            };
            self.stage1 = (true, input.dat_data, tags);
            self.events.push("op");
            if input.dat_stripe_first {
                self.active = self.shadow;
                self.events.push("stripe first: shadow to active");
            }
        }
        if input.wt_valid {
            self.shadow[usize::from(input.wt_kernel & 7)] = input.wt_data;
            self.events.push(if input.dat_valid && input.dat_stripe_first { "weight load with a stripe's first op" } else { "weight load" });
        }
        if valid {
            self.events.push("partial sums out");
        }
    }
}

crate::sequential_block!(Cmac, events);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Block;

    fn op(data: u64, stripe_first: bool) -> In {
        In { dat_valid: true, dat_data: data, dat_stripe_first: stripe_first, dat_acc_last: true, ..In::default() }
    }

    /// Hand-worked: -128 x -128 in every channel is 8 x 16384 = 131072; the sums come out two
    /// cycles after the op; a weight load with a stripe's first op waits for the next stripe.
    #[test]
    fn sums_come_two_cycles_later_from_the_active_bank() {
        let mut cmac = Cmac::default();
        cmac.step(&Cmac::reset_input().unwrap());
        for k in 0..8u8 {
            let w = if k == 0 { 0x8080_8080_8080_8080 } else { u64::from(k) * 0x0101_0101_0101_0101 };
            cmac.step(&In { wt_valid: true, wt_kernel: k, wt_data: w, ..In::default() });
        }
        // The first op promotes the bank; kernel 1's new weights (all -1) go to the shadow.
        let first = In { wt_valid: true, wt_kernel: 1, wt_data: u64::MAX, ..op(0x8080_8080_8080_8080, true) };
        assert!(!cmac.step(&first).psum_valid);
        assert!(!cmac.step(&op(0x0102_0304_0506_07ff, false)).psum_valid);
        let out = cmac.step(&In::default());
        assert!(out.psum_valid && out.psum_acc_last && out.psum_stripe_first);
        let sums = unpack_psums(out.psum_lo, out.psum_hi);
        assert_eq!(sums[0], 131072);
        assert_eq!(sums[1], -128 * 8);
        assert_eq!(sums[7], -128 * 8 * 7);
        let out = cmac.step(&op(0x0101_0101_0101_0101, true));
        assert!(out.psum_valid && !out.psum_stripe_first);
        // Channels 7..0 = 1, 2, 3, 4, 5, 6, 7, -1 with kernel 2's weights 2: 2 x 27.
        assert_eq!(unpack_psums(out.psum_lo, out.psum_hi)[2], 54);
        cmac.step(&In::default());
        let out = cmac.step(&In::default());
        assert_eq!(unpack_psums(out.psum_lo, out.psum_hi)[1], -8, "kernel 1 took the load made with the first stripe's op");
    }

    #[test]
    fn psums_pack_and_unpack() {
        let sums = [131072, -131072, 0, -1, 1, 524287, -524288, 12345];
        let (lo, hi) = pack_psums(sums);
        assert_eq!(unpack_psums(lo, hi), sums);
        assert!(lo < 1 << 80 && hi < 1 << 80);
    }
}
