//! The packed depthwise feed of the convolution datapath (issue 19; docs/ethos.md,
//! "Convolution datapath", "Depthwise tap packing"; TRM L1033-1076, digest §5.1): the
//! kernel register and the second feed's kernel words and live bits, all in
//! stage 2 (the cycle after the walk, `depthwise_walk.rs`, issued the reads). Model:
//! `model/src/ethos/conv_datapath/depthwise_feed.rs`.
//!
//! - The kernel register (up to 3x3 elements of 8 weights, 9 x 72 bits) takes, in stage 2 of
//!   each tap of an OFM group's first block (tap by tap, `load`), the weight row read for the
//!   tap anyway: a depthwise row has OFM channel `o`'s weight in lane `o` of word `o` and 0 in
//!   every other lane (`primitives/diagonal.rs`), so the element's 8 weights are the OR of
//!   the 8 words. Decision: no cycle is spent loading it, and no clear: lanes of a kernel
//!   column beyond the kernel's width are zeroed where they are read (`k{a}{j}{kx}`), so an
//!   element left from an earlier layer is never used.
//! - `win_live{j}{c}` (`win_live[4j + c]`): window row `row + j`, column `c` holds an element,
//!   from registers alone (fresh: the four ports of row `row` unless padded, row 1 not live;
//!   reuse, rows taken: columns 0-1 live (the MAC unit ANDs the live bit its column store kept),
//!   columns 2-3 unless their port `2j`, `2j + 1` is padded). The window words themselves and
//!   the column store (window rows 0-3 x columns 2 and 3, the ports' bytes of each packed
//!   cycle) are the MAC unit's, in its clocked process (`dot_array.rs`): the ports are the
//!   datapath's inputs, so a mux of them here, before the MAC unit, ran in Verilator's input
//!   region on each of its evaluations, and it took this block's kernel selection with it
//!   (docs/ethos.md, "Convolution datapath", "Packed feed in bytes"). `k{a}{j}{kx}`: the
//!   kernel register's element (`ky`, `kx`) for OFM row `a` of the block and window row `row
//!   + j`, `ky = (row + j - a·sy) / dy` when whole, below the kernel's height and the row
//!   taken, and `kx` below its width; else 0. Dot-product unit (a, b, o) takes lane `3j + kx`
//!   of window word `4j + b + kx` and `k{a}{j}{kx}` (lane `o` of each), lanes 6 and 7 zero,
//!   in the conv mode. Outside a packed cycle (`take` low) no window word is live and every
//!   `k` word is 0, and the kernel register's input is 0 outside a loading cycle: no one
//!   reads them then (docs/ethos.md, "Verilated speed", twelfth step).
use crate::primitives::constant as k;
use crate::primitives::{RegEn, ZeroExtend};
use rust_hdl::prelude::*;

/// The kernel register, the second feed's kernel words and its window words' live bits
/// (module docs).
#[derive(LogicBlock)]
pub struct DepthwiseFeed {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub ky: Signal<In, Bits<2>>,
    pub kx: Signal<In, Bits<2>>,
    pub w: [Signal<In, Bits<72>>; 8],
    pub take: Signal<In, Bit>,
    pub reuse: Signal<In, Bit>,
    pub row: Signal<In, Bits<2>>,
    pub rows: Signal<In, Bits<2>>,
    pub pad: Signal<In, Bits<4>>,
    pub stride_y: Signal<In, Bits<2>>,
    pub dilation_y: Signal<In, Bit>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    /// `win_live{j}{c}` (module docs) is `win_live[4j + c]`.
    pub win_live: [Signal<Out, Bit>; 8],
    /// `k{a}{j}{kx}` (module docs) is `k[6a + 3j + kx]`.
    pub k: [Signal<Out, Bits<72>>; 12],

    kernel: [RegEn<Bits<72>>; 9],
    row4: ZeroExtend<2, 4>,
    stride4: ZeroExtend<2, 4>,
    ky4: ZeroExtend<2, 4>,
    kx4: ZeroExtend<2, 4>,
    element: Signal<Local, Bits<4>>,
    diagonal: Signal<Local, Bits<72>>,
    window_row: [Signal<Local, Bits<4>>; 2],
    taken: [Signal<Local, Bit>; 2],
    distance: [Signal<Local, Bits<4>>; 4],
    reached: [Signal<Local, Bit>; 4],
    kernel_row: [Signal<Local, Bits<4>>; 4],
    tap_row: [Signal<Local, Bit>; 4],
    elements: [Constant<Bits<4>>; 9],
    rows4: [Constant<Bits<4>>; 3],
    zero72: Constant<Bits<72>>,
    one4: Constant<Bits<4>>,
    two2: Constant<Bits<2>>,
    shift1: Constant<Bits<4>>,
}

impl Default for DepthwiseFeed {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            load: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            w: Default::default(),
            take: Default::default(),
            reuse: Default::default(),
            row: Default::default(),
            rows: Default::default(),
            pad: Default::default(),
            stride_y: Default::default(),
            dilation_y: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            win_live: Default::default(),
            k: Default::default(),
            kernel: Default::default(),
            row4: Default::default(),
            stride4: Default::default(),
            ky4: Default::default(),
            kx4: Default::default(),
            element: Default::default(),
            diagonal: Default::default(),
            window_row: Default::default(),
            taken: Default::default(),
            distance: Default::default(),
            reached: Default::default(),
            kernel_row: Default::default(),
            tap_row: Default::default(),
            elements: std::array::from_fn(|e| k(e as u64)),
            rows4: std::array::from_fn(|r| k(r as u64)),
            zero72: Constant::new(0u64.into()),
            one4: k(1),
            two2: k(2),
            shift1: k(1),
        }
    }
}
impl Logic for DepthwiseFeed {
    #[hdl_gen]
    fn update(&mut self) {
        // The kernel register: element `3·ky + kx` takes the tap's weights in stage 2.
        self.ky4.narrow.next = self.ky.val();
        self.kx4.narrow.next = self.kx.val();
        self.element.next = (self.ky4.wide.val() << self.shift1.val()) + self.ky4.wide.val() + self.kx4.wide.val();
        // Only a loading cycle's diagonal is taken (the kernel's enables need `load`), so
        // it is formed in those cycles alone, not from every cycle's weight rows (docs/ethos.md,
        // "Verilated speed", twelfth step).
        self.diagonal.next = self.zero72.val();
        if self.load.val() {
            self.diagonal.next = self.w[0].val() | self.w[1].val() | self.w[2].val() | self.w[3].val() | self.w[4].val() | self.w[5].val() | self.w[6].val() | self.w[7].val();
        }
        for e in 0..9 {
            self.kernel[e].clock.next = self.clock.val();
            self.kernel[e].reset.next = self.reset.val();
            self.kernel[e].enable.next = self.advance.val() & self.load.val() & (self.element.val() == self.elements[e].val());
            self.kernel[e].d.next = self.diagonal.val();
        }

        // Which window words hold an element in this cycle: a packed cycle's (`take`), from
        // registers alone (module docs).
        self.row4.narrow.next = self.row.val();
        self.window_row[0].next = self.row4.wide.val();
        self.window_row[1].next = self.row4.wide.val() + self.one4.val();
        self.taken[0].next = true;
        self.taken[1].next = self.rows.val() == self.two2.val();
        for c in 0..4 {
            self.win_live[c].next = false;
            self.win_live[4 + c].next = false;
        }
        if self.take.val() {
            if self.reuse.val() {
                for j in 0..2 {
                    if self.taken[j].val() {
                        self.win_live[4 * j].next = true;
                        self.win_live[4 * j + 1].next = true;
                        self.win_live[4 * j + 2].next = !self.pad.val().get_bit(2 * j);
                        self.win_live[4 * j + 3].next = !self.pad.val().get_bit(2 * j + 1);
                    }
                }
            } else {
                for c in 0..4 {
                    self.win_live[c].next = !self.pad.val().get_bit(c);
                }
            }
        }

        // The kernel rows: OFM row a of the block reads window row r as kernel row
        // (r - a·sy) / dy, when whole, below the kernel's height, and the row is taken;
        // computed in a packed cycle alone, the only one that reads them (sixteenth step of
        // "Verilated speed").
        self.stride4.narrow.next = self.stride_y.val();
        for i in 0..4 {
            self.distance[i].next = self.rows4[0].val();
            self.reached[i].next = false;
            self.kernel_row[i].next = self.rows4[0].val();
            self.tap_row[i].next = false;
        }
        for i in 0..12 {
            self.k[i].next = self.zero72.val();
        }
        if self.take.val() {
            for a in 0..2 {
                for j in 0..2 {
                    self.distance[2 * a + j].next = self.window_row[j].val();
                    self.reached[2 * a + j].next = true;
                    if a == 1 {
                        self.distance[2 * a + j].next = self.window_row[j].val() - self.stride4.wide.val();
                        self.reached[2 * a + j].next = self.window_row[j].val() >= self.stride4.wide.val();
                    }
                    self.kernel_row[2 * a + j].next = self.distance[2 * a + j].val();
                    if self.dilation_y.val() {
                        self.kernel_row[2 * a + j].next = self.distance[2 * a + j].val() >> self.shift1.val();
                        if self.distance[2 * a + j].val().get_bit(0) {
                            self.reached[2 * a + j].next = false;
                        }
                    }
                    self.tap_row[2 * a + j].next =
                        self.taken[j].val() & self.reached[2 * a + j].val() & (self.kernel_row[2 * a + j].val() < self.kernel_height.val());
                    for kx in 0..3 {
                        if self.tap_row[2 * a + j].val() & (self.rows4[kx].val() < self.kernel_width.val()) {
                            for ky in 0..3 {
                                if self.kernel_row[2 * a + j].val() == self.rows4[ky].val() {
                                    self.k[6 * a + 3 * j + kx].next = self.kernel[3 * ky + kx].q.val();
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DepthwiseFeed::default, "depthwise_feed");
}
