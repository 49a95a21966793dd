//! The convolution datapath's MAC array with double-buffered accumulators (TRM L1027-1076,
//! digest §0, §5.1; docs/ethos.md, "Convolution datapath", overlapped output): the 32
//! dot-product units of the U65-256 shape (as [`super::MacUnit`], which stays the unit the MAC
//! tests drive) and a drain bank of 32 accumulators that takes all of them in one cycle
//! (`load`), so that the output lanes drain one OFM group while the next accumulates, reading
//! [`LANES`](super::output_lanes::LANES) (16) entries a cycle, one OFM row of the 2x2 block. Model:
//! `model/src/ethos/conv_mac.rs`.
use super::output_lanes::LANES;
use super::dot_array::DotArray;
use crate::primitives::RegEn;
use rust_hdl::prelude::*;

/// Accumulator `8p + o` for OFM position `p` and channel `o`, fed as [`super::MacUnit`]'s and
/// paired as its are: `pairs[8p + o]` (p 0, 1) holds `8p + o` and `8(p + 2) + o`. `load`
/// (with `advance`) copies every accumulator into the bank at the clock edge, the same edge at
/// which the units may clear for the next group (the bank takes the old values). `acc_out[i]`
/// are registers: bank entries `16 * read_index + i` of the previous `advance` cycle (the 16
/// output lanes: OFM row `read_index` of the 2x2 block, lanes 0-7 its left position's 8
/// channels, lanes 8-15 its right one's).
#[derive(LogicBlock)]
pub struct ConvMac {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    /// The layer is depthwise: the depthwise mode (1), except in a packed cycle, which runs
    /// the conv mode (0) on the second feed.
    pub depthwise: Signal<In, Bit>,
    pub pad: Signal<In, Bits<4>>,
    /// OFM position p's IFM word (8 channels), its zero point and live lanes (`DotArray`
    /// forms the lanes), and the weight row's 8 words (word o: OFM channel o).
    pub data: [Signal<In, Bits<64>>; 4],
    pub zero_point: Signal<In, Bits<8>>,
    pub live: Signal<In, Bits<4>>,
    pub w: [Signal<In, Bits<72>>; 8],
    /// The datapath is not held: the bank and `acc_out` may change.
    pub advance: Signal<In, Bit>,
    pub load: Signal<In, Bit>,
    pub read_index: Signal<In, Bit>,
    /// The output walk drains a group (its `busy`): only a read of such a cycle reaches the
    /// output lanes (their stage 1 takes `acc_out` with a lane of the walk's mask, which is
    /// 0 outside), so `acc_out` changes only then.
    pub draining: Signal<In, Bit>,
    pub acc_out: [Signal<Out, Bits<40>>; LANES],
    /// Stage 2 runs a packed depthwise cycle (docs/ethos.md, "Depthwise tap packing"): unit
    /// (a, b, o), accumulator `8 * (2a + b) + o`, takes its operands from the second feed
    /// (`depthwise_feed.rs`) instead: act lane `3j + kx` is IFM lane `o` of window word
    /// `4j + b + kx` (`DotArray` selects it from `data` and its column store by `reuse`,
    /// `row` and `rows`; with `zero_point` and `live`) where it is live (`win_live`), else 0
    /// (padding and rows not taken), weight lane `3j + kx` lane
    /// `o` of `kernel[6a + 3j + kx]`, lanes 6 and 7 zero, in the conv mode.
    pub packed_cycle: Signal<In, Bit>,
    pub reuse: Signal<In, Bit>,
    pub row: Signal<In, Bits<2>>,
    pub rows: Signal<In, Bits<2>>,
    pub win_live: [Signal<In, Bit>; 8],
    pub kernel: [Signal<In, Bits<72>>; 12],
    /// The 16 pairs (`pairs[8p + o]` of `MacUnit`) and the bank (`pairs.bank`: `load`
    /// with `advance`) in one clocked process (`DotArray`'s `load` says why).
    pairs: DotArray,
    acc_q: [RegEn<Bits<40>>; LANES],
    zero40: Constant<Bits<40>>,
}

impl Default for ConvMac {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            depthwise: Default::default(),
            pad: Default::default(),
            data: Default::default(),
            zero_point: Default::default(),
            live: Default::default(),
            w: Default::default(),
            advance: Default::default(),
            load: Default::default(),
            read_index: Default::default(),
            draining: Default::default(),
            acc_out: Default::default(),
            packed_cycle: Default::default(),
            reuse: Default::default(),
            row: Default::default(),
            rows: Default::default(),
            win_live: Default::default(),
            kernel: Default::default(),
            pairs: Default::default(),
            acc_q: Default::default(),
            zero40: Constant::new(0u64.into()),
        }
    }
}

impl Logic for ConvMac {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..16 {
            self.acc_q[i].clock.next = self.clock.val();
            self.acc_q[i].reset.next = self.reset.val();
            // Read while the walk drains alone: idle, Verilator skips the 16 selections and
            // copies (issue 19).
            self.acc_q[i].enable.next = self.advance.val() & self.draining.val();
            self.acc_q[i].d.next = self.zero40.val();
            if self.draining.val() {
                self.acc_q[i].d.next = self.pairs.bank[i].val();
                if self.read_index.val() {
                    self.acc_q[i].d.next = self.pairs.bank[16 + i].val();
                }
            }
            self.acc_out[i].next = self.acc_q[i].q.val();
        }
        self.pairs.clock.next = self.clock.val();
        self.pairs.reset.next = self.reset.val();
        self.pairs.enable.next = self.enable.val();
        self.pairs.clear.next = self.clear.val();
        self.pairs.depthwise.next = self.depthwise.val();
        self.pairs.pad.next = self.pad.val();
        self.pairs.zero_point.next = self.zero_point.val();
        self.pairs.live.next = self.live.val();
        self.pairs.packed_cycle.next = self.packed_cycle.val();
        self.pairs.reuse.next = self.reuse.val();
        self.pairs.row.next = self.row.val();
        self.pairs.rows.next = self.rows.val();
        for p in 0..4 {
            self.pairs.data[p].next = self.data[p].val();
        }
        for o in 0..8 {
            self.pairs.w[o].next = self.w[o].val();
        }
        self.pairs.load.next = self.load.val() & self.advance.val();
        // The second feed (the `packed_cycle` doc above), chosen in the pairs' clocked process.
        for i in 0..8 {
            self.pairs.win_live[i].next = self.win_live[i].val();
        }
        for i in 0..12 {
            self.pairs.kernel[i].next = self.kernel[i].val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvMac::default, "conv_mac");
}
