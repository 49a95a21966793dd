//! The packed depthwise walk of the convolution datapath (issue 19; docs/ethos.md,
//! "Convolution datapath", "Depthwise tap packing"; TRM L1033-1076, digest §5.1): per 2x2
//! OFM block of a packed depthwise layer, which mapping runs it (tap by tap, fresh or reuse)
//! and, in a packed block, the cycle's first window row and the four IFM reads. Model:
//! `model/src/ethos/conv_datapath/depthwise_walk.rs` (the cycle-level form of
//! `model/src/ethos/depthwise_packing.rs`, which is the reference of the data movement).
//!
//! The walk keeps no block counters of its own: the traversal's (`conv_traversal.rs`)
//! `origin_*` are the block's, and its block step tells the walk what the next block is
//! (`next_first`: a new OFM group, `next_row_start`: the first block of a row of blocks).
//! Instanced beside the traversal in `conv_datapath.rs` (its IFM ports take the walk's
//! addresses in a packed block); it also keeps the packed cycle's stage-2 registers for the
//! feed (`depthwise_feed.rs`).
//! Decision: a packed block's last cycle is the traversal's "last tap", so that the
//! output walk's wait stalls it as it stalls a tap-by-tap group's last tap, whatever the
//! number of output lanes (4 now: a block costs max(its cycles, 8); 16: its cycles).
use super::conv_datapath::DIM_BITS;
use crate::primitives::constant as k;
use crate::primitives::{RegEn, ZeroExtend};
use rust_hdl::prelude::*;

/// `layer_packed`: the layer runs the packed mapping (stride and dilation 1 in x, a kernel 2-3
/// wide and 1-3 high, `R = sy + (kh - 1)·dy + 1 <= 4` window rows, and no more rows than
/// taps: for a kernel 2 or more high `kh·kw >= 4 >= R` holds, for one row `R <= kw`).
/// `block_packed`/`reuse`: the block's mapping (neither: tap by tap; `block_packed` alone:
/// fresh, one window row a cycle, the ports reading columns 0-3; both: reuse, two rows a
/// cycle, the ports reading columns 2 and 3 of rows `row` and `row + 1`, columns 0 and 1
/// coming from the column store). `rows` (1 or 2; 0 tap by tap) and `last` (the block's last
/// cycle) are of this cycle; port `p` reads (`y{p}`, `x{p}`) when `issue` and the element is
/// inside the IFM, and `pad[p]` marks an element of a row taken that is outside (its lanes
/// are 0 in stage 2). `issue` with `advance` steps the walk: to the next rows, or at
/// `block_end` to the next block's mapping; `check` (CHECK) starts a layer tap by tap.
#[derive(LogicBlock)]
pub struct DepthwiseWalk {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    pub check: Signal<In, Bit>,
    pub issue: Signal<In, Bit>,
    pub block_end: Signal<In, Bit>,
    pub next_first: Signal<In, Bit>,
    pub next_row_start: Signal<In, Bit>,
    pub origin_y: Signal<In, Bits<14>>,
    pub origin_x: Signal<In, Bits<14>>,
    pub ifm_height: Signal<In, Bits<DIM_BITS>>,
    pub ifm_width: Signal<In, Bits<DIM_BITS>>,
    pub depthwise: Signal<In, Bit>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    pub dilation_y: Signal<In, Bit>,
    pub dilation_x: Signal<In, Bit>,
    pub block_packed: Signal<Out, Bit>,
    pub last: Signal<Out, Bit>,
    pub read0: Signal<Out, Bit>,
    pub read1: Signal<Out, Bit>,
    pub read2: Signal<Out, Bit>,
    pub read3: Signal<Out, Bit>,
    pub y0: Signal<Out, Bits<DIM_BITS>>,
    pub y1: Signal<Out, Bits<DIM_BITS>>,
    pub y2: Signal<Out, Bits<DIM_BITS>>,
    pub y3: Signal<Out, Bits<DIM_BITS>>,
    pub x0: Signal<Out, Bits<DIM_BITS>>,
    pub x1: Signal<Out, Bits<DIM_BITS>>,
    pub x2: Signal<Out, Bits<DIM_BITS>>,
    pub x3: Signal<Out, Bits<DIM_BITS>>,
    /// The issued tap's kernel position (the traversal's `ky`, `kx`; below 3 when packed).
    pub tap_ky: Signal<In, Bits<2>>,
    pub tap_kx: Signal<In, Bits<2>>,
    /// Stage 2 (the cycle after the issue, registers enabled by `advance`), for the feed
    /// (`depthwise_feed.rs`): a packed cycle was issued (`packed2`) with this mapping, rows
    /// and padding; or a tap of a packed layer's tap-by-tap block (`load2`, the kernel
    /// register takes its weight row as element (`ky2`, `kx2`)).
    pub packed2: Signal<Out, Bit>,
    pub reuse2: Signal<Out, Bit>,
    pub row2: Signal<Out, Bits<2>>,
    pub rows2: Signal<Out, Bits<2>>,
    pub pad2: Signal<Out, Bits<4>>,
    pub load2: Signal<Out, Bit>,
    pub ky2: Signal<Out, Bits<2>>,
    pub kx2: Signal<Out, Bits<2>>,

    packed2_q: RegEn<Bit>,
    reuse2_q: RegEn<Bit>,
    row2_q: RegEn<Bits<2>>,
    rows2_q: RegEn<Bits<2>>,
    pad2_q: RegEn<Bits<4>>,
    load2_q: RegEn<Bit>,
    ky2_q: RegEn<Bits<2>>,
    kx2_q: RegEn<Bits<2>>,
    block_packed_q: RegEn<Bit>,
    reuse_q: RegEn<Bit>,
    row_q: RegEn<Bits<2>>,
    stride_y6: ZeroExtend<2, 6>,
    kernel_height6: ZeroExtend<4, 6>,
    kernel_width6: ZeroExtend<4, 6>,
    row6: ZeroExtend<2, 6>,
    row14: ZeroExtend<2, 14>,
    ifm_height14: ZeroExtend<12, 14>,
    ifm_width14: ZeroExtend<12, 14>,
    layer_packed: Signal<Local, Bit>,
    rows: Signal<Local, Bits<2>>,
    pad: Signal<Local, Bits<4>>,
    last_stride6: ZeroExtend<2, 6>,
    last_height6: ZeroExtend<4, 6>,
    last_row6: ZeroExtend<2, 6>,
    last_spread: Signal<Local, Bits<6>>,
    last_window: Signal<Local, Bits<6>>,
    last_rest: Signal<Local, Bits<6>>,
    spread: Signal<Local, Bits<6>>,
    window_rows: Signal<Local, Bits<6>>,
    rest: Signal<Local, Bits<6>>,
    row_top: Signal<Local, Bits<14>>,
    row_bottom: Signal<Local, Bits<14>>,
    in_top: Signal<Local, Bit>,
    in_bottom: Signal<Local, Bit>,
    col: [Signal<Local, Bits<14>>; 4],
    in_col: [Signal<Local, Bit>; 4],
    in_port: [Signal<Local, Bit>; 4],
    taken: [Signal<Local, Bit>; 4],
    column: [Constant<Bits<14>>; 4],
    pad_bit: [Constant<Bits<4>>; 4],
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    zero4: Constant<Bits<4>>,
    zero6: Constant<Bits<6>>,
    zero12: Constant<Bits<12>>,
    zero14: Constant<Bits<14>>,
    one6: Constant<Bits<6>>,
    two6: Constant<Bits<6>>,
    three6: Constant<Bits<6>>,
    four6: Constant<Bits<6>>,
    one_stride: Constant<Bits<2>>,
    eight14: Constant<Bits<14>>,
    one14: Constant<Bits<14>>,
    shift1: Constant<Bits<4>>,
}

impl Default for DepthwiseWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            check: Default::default(),
            issue: Default::default(),
            block_end: Default::default(),
            next_first: Default::default(),
            next_row_start: Default::default(),
            origin_y: Default::default(),
            origin_x: Default::default(),
            ifm_height: Default::default(),
            ifm_width: Default::default(),
            depthwise: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            dilation_y: Default::default(),
            dilation_x: Default::default(),
            block_packed: Default::default(),
            last: Default::default(),
            read0: Default::default(),
            read1: Default::default(),
            read2: Default::default(),
            read3: Default::default(),
            y0: Default::default(),
            y1: Default::default(),
            y2: Default::default(),
            y3: Default::default(),
            x0: Default::default(),
            x1: Default::default(),
            x2: Default::default(),
            x3: Default::default(),
            tap_ky: Default::default(),
            tap_kx: Default::default(),
            packed2: Default::default(),
            reuse2: Default::default(),
            row2: Default::default(),
            rows2: Default::default(),
            pad2: Default::default(),
            load2: Default::default(),
            ky2: Default::default(),
            kx2: Default::default(),
            packed2_q: Default::default(),
            reuse2_q: Default::default(),
            row2_q: Default::default(),
            rows2_q: Default::default(),
            pad2_q: Default::default(),
            load2_q: Default::default(),
            ky2_q: Default::default(),
            kx2_q: Default::default(),
            block_packed_q: Default::default(),
            reuse_q: Default::default(),
            row_q: Default::default(),
            stride_y6: Default::default(),
            kernel_height6: Default::default(),
            kernel_width6: Default::default(),
            row6: Default::default(),
            row14: Default::default(),
            ifm_height14: Default::default(),
            ifm_width14: Default::default(),
            layer_packed: Default::default(),
            rows: Default::default(),
            pad: Default::default(),
            last_stride6: Default::default(),
            last_height6: Default::default(),
            last_row6: Default::default(),
            last_spread: Default::default(),
            last_window: Default::default(),
            last_rest: Default::default(),
            spread: Default::default(),
            window_rows: Default::default(),
            rest: Default::default(),
            row_top: Default::default(),
            row_bottom: Default::default(),
            in_top: Default::default(),
            in_bottom: Default::default(),
            col: Default::default(),
            in_col: Default::default(),
            in_port: Default::default(),
            taken: Default::default(),
            column: std::array::from_fn(|c| k(c as u64)),
            pad_bit: std::array::from_fn(|p| k(1 << p)),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
            zero4: k(0),
            zero6: k(0),
            zero12: k(0),
            zero14: k(0),
            one6: k(1),
            two6: k(2),
            three6: k(3),
            four6: k(4),
            one_stride: k(1),
            eight14: k(8),
            one14: k(1),
            shift1: k(1),
        }
    }
}

impl Logic for DepthwiseWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, block_packed_q, reuse_q, row_q, packed2_q, reuse2_q, row2_q, rows2_q, pad2_q, load2_q, ky2_q, kx2_q);
        self.packed2_q.reset.next = self.reset.val();
        self.reuse2_q.reset.next = self.reset.val();
        self.row2_q.reset.next = self.reset.val();
        self.rows2_q.reset.next = self.reset.val();
        self.pad2_q.reset.next = self.reset.val();
        self.load2_q.reset.next = self.reset.val();
        self.ky2_q.reset.next = self.reset.val();
        self.kx2_q.reset.next = self.reset.val();
        self.packed2_q.enable.next = self.advance.val();
        self.reuse2_q.enable.next = self.advance.val();
        self.row2_q.enable.next = self.advance.val();
        self.rows2_q.enable.next = self.advance.val();
        self.pad2_q.enable.next = self.advance.val();
        self.load2_q.enable.next = self.advance.val();
        self.ky2_q.enable.next = self.advance.val();
        self.kx2_q.enable.next = self.advance.val();
        self.packed2.next = self.packed2_q.q.val();
        self.reuse2.next = self.reuse2_q.q.val();
        self.row2.next = self.row2_q.q.val();
        self.rows2.next = self.rows2_q.q.val();
        self.pad2.next = self.pad2_q.q.val();
        self.load2.next = self.load2_q.q.val();
        self.ky2.next = self.ky2_q.q.val();
        self.kx2.next = self.kx2_q.q.val();
        self.block_packed_q.reset.next = self.reset.val();
        self.reuse_q.reset.next = self.reset.val();
        self.row_q.reset.next = self.reset.val();
        self.block_packed_q.enable.next = self.advance.val() & (self.check.val() | self.issue.val());
        self.reuse_q.enable.next = self.advance.val() & (self.check.val() | self.issue.val());
        self.row_q.enable.next = self.advance.val() & (self.check.val() | self.issue.val());
        self.block_packed.next = self.block_packed_q.q.val();

        // The block's last cycle: the rows left are no more than this cycle's. The traversal
        // reads it to issue, and the next state reads the issue: so it is computed from
        // registers and inputs with locals of its own, which Verilator can then evaluate
        // apart from the rest of this block (else a false loop through the two blocks,
        // UNOPTFLAT; the module comment of `conv_unit.rs`). Read only in a packed block (the
        // traversal's terms carry `block_packed`), so computed only there: Verilator skips it
        // in the other cycles, most of an NPU's (issue 19).
        self.last_stride6.narrow.next = self.stride_y.val();
        self.last_height6.narrow.next = self.kernel_height.val();
        self.last_row6.narrow.next = self.row_q.q.val();
        self.last_spread.next = self.zero6.val();
        self.last_window.next = self.zero6.val();
        self.last_rest.next = self.zero6.val();
        self.last.next = false;
        if self.block_packed_q.q.val() {
            self.last_spread.next = self.last_height6.wide.val() - self.one6.val();
            if self.dilation_y.val() {
                self.last_spread.next = (self.last_height6.wide.val() - self.one6.val()) << self.shift1.val();
            }
            self.last_window.next = self.last_stride6.wide.val() + self.last_spread.val() + self.one6.val();
            self.last_rest.next = self.last_window.val() - self.last_row6.wide.val();
            self.last.next = self.last_rest.val() <= self.one6.val();
            if self.reuse_q.q.val() {
                self.last.next = self.last_rest.val() <= self.two6.val();
            }
        }

        // The window's rows, `sy + (kh - 1)·dy + 1`, and whether the layer is packed: read
        // with `issue` (the kernel load, `block_end`) or in a packed block (`rest`), so
        // computed only then (0 otherwise; idle cycles skip it).
        self.stride_y6.narrow.next = self.stride_y.val();
        self.kernel_height6.narrow.next = self.kernel_height.val();
        self.kernel_width6.narrow.next = self.kernel_width.val();
        self.spread.next = self.zero6.val();
        self.window_rows.next = self.zero6.val();
        self.layer_packed.next = false;
        if self.issue.val() | self.block_packed_q.q.val() {
            self.spread.next = self.kernel_height6.wide.val() - self.one6.val();
            if self.dilation_y.val() {
                self.spread.next = (self.kernel_height6.wide.val() - self.one6.val()) << self.shift1.val();
            }
            self.window_rows.next = self.stride_y6.wide.val() + self.spread.val() + self.one6.val();
            self.layer_packed.next = self.depthwise.val()
                & (self.stride_x.val() == self.one_stride.val())
                & !self.dilation_x.val()
                & ((self.kernel_width6.wide.val() == self.two6.val()) | (self.kernel_width6.wide.val() == self.three6.val()))
                & (self.kernel_height6.wide.val() >= self.one6.val())
                & (self.kernel_height6.wide.val() <= self.three6.val())
                & (self.window_rows.val() <= self.four6.val())
                & ((self.kernel_height6.wide.val() != self.one6.val()) | (self.window_rows.val() <= self.kernel_width6.wide.val()));
        }

        // This cycle's rows (fresh one, reuse two (one over an odd count's last), none tap by
        // tap) and the reads, window rows `row` (top) and `row + 1` (bottom), columns 0-3:
        // computed in a packed block alone. Outside one the rows, `taken`, `pad` and the reads
        // are 0, as they were when computed, and the addresses are read by nothing (the
        // datapath's ports take them only in a packed block), so they are 0 too.
        self.row6.narrow.next = self.row_q.q.val();
        self.row14.narrow.next = self.row_q.q.val();
        self.ifm_height14.narrow.next = self.ifm_height.val();
        self.ifm_width14.narrow.next = self.ifm_width.val();
        self.rest.next = self.zero6.val();
        self.rows.next = self.zero2.val();
        self.row_top.next = self.zero14.val();
        self.row_bottom.next = self.zero14.val();
        self.in_top.next = false;
        self.in_bottom.next = false;
        for c in 0..4 {
            self.col[c].next = self.zero14.val();
            self.in_col[c].next = false;
            self.in_port[c].next = false;
            self.taken[c].next = false;
        }
        self.y0.next = self.zero12.val();
        self.y1.next = self.zero12.val();
        self.y2.next = self.zero12.val();
        self.y3.next = self.zero12.val();
        self.x0.next = self.zero12.val();
        self.x1.next = self.zero12.val();
        self.x2.next = self.zero12.val();
        self.x3.next = self.zero12.val();
        self.pad.next = self.zero4.val();
        self.read0.next = false;
        self.read1.next = false;
        self.read2.next = false;
        self.read3.next = false;
        if self.block_packed_q.q.val() {
            self.rest.next = self.window_rows.val() - self.row6.wide.val();
            self.rows.next = self.one2.val();
            if self.reuse_q.q.val() & (self.rest.val() >= self.two6.val()) {
                self.rows.next = self.two2.val();
            }
            self.row_top.next = self.origin_y.val() + self.row14.wide.val() - self.eight14.val();
            self.row_bottom.next = self.row_top.val() + self.one14.val();
            self.in_top.next = self.row_top.val() < self.ifm_height14.wide.val();
            self.in_bottom.next = self.row_bottom.val() < self.ifm_height14.wide.val();
            for c in 0..4 {
                self.col[c].next = self.origin_x.val() + self.column[c].val() - self.eight14.val();
                self.in_col[c].next = self.col[c].val() < self.ifm_width14.wide.val();
            }
            // Fresh: port p, top row, column p. Reuse: port p, row p / 2, column 2 + p % 2,
            // the bottom row only when the cycle takes two.
            self.y0.next = self.row_top.val().get_bits::<12>(0);
            self.y1.next = self.row_top.val().get_bits::<12>(0);
            self.y2.next = self.row_top.val().get_bits::<12>(0);
            self.y3.next = self.row_top.val().get_bits::<12>(0);
            self.x0.next = self.col[0].val().get_bits::<12>(0);
            self.x1.next = self.col[1].val().get_bits::<12>(0);
            self.x2.next = self.col[2].val().get_bits::<12>(0);
            self.x3.next = self.col[3].val().get_bits::<12>(0);
            for p in 0..4 {
                self.in_port[p].next = self.in_top.val() & self.in_col[p].val();
                self.taken[p].next = true;
            }
            if self.reuse_q.q.val() {
                self.x0.next = self.col[2].val().get_bits::<12>(0);
                self.x1.next = self.col[3].val().get_bits::<12>(0);
                self.y2.next = self.row_bottom.val().get_bits::<12>(0);
                self.y3.next = self.row_bottom.val().get_bits::<12>(0);
                self.in_port[0].next = self.in_top.val() & self.in_col[2].val();
                self.in_port[1].next = self.in_top.val() & self.in_col[3].val();
                self.in_port[2].next = self.in_bottom.val() & self.in_col[2].val();
                self.in_port[3].next = self.in_bottom.val() & self.in_col[3].val();
                self.taken[2].next = self.rows.val() == self.two2.val();
                self.taken[3].next = self.rows.val() == self.two2.val();
            }
            for p in 0..4 {
                if self.taken[p].val() & !self.in_port[p].val() {
                    self.pad.next = self.pad.val() | self.pad_bit[p].val();
                }
            }
            self.read0.next = self.issue.val() & self.taken[0].val() & self.in_port[0].val();
            self.read1.next = self.issue.val() & self.taken[1].val() & self.in_port[1].val();
            self.read2.next = self.issue.val() & self.taken[2].val() & self.in_port[2].val();
            self.read3.next = self.issue.val() & self.taken[3].val() & self.in_port[3].val();
        }

        // Stage 2.
        self.packed2_q.d.next = self.issue.val() & self.block_packed_q.q.val();
        self.reuse2_q.d.next = self.reuse_q.q.val();
        self.row2_q.d.next = self.row_q.q.val();
        self.rows2_q.d.next = self.rows.val();
        self.pad2_q.d.next = self.pad.val();
        self.load2_q.d.next = self.issue.val() & self.layer_packed.val() & !self.block_packed_q.q.val();
        self.ky2_q.d.next = self.tap_ky.val();
        self.kx2_q.d.next = self.tap_kx.val();

        // The next state: the next rows of the block, or the next block's mapping.
        self.block_packed_q.d.next = self.block_packed_q.q.val();
        self.reuse_q.d.next = self.reuse_q.q.val();
        self.row_q.d.next = self.row_q.q.val() + self.rows.val();
        if self.block_end.val() {
            self.row_q.d.next = self.zero2.val();
            self.block_packed_q.d.next = self.layer_packed.val() & !self.next_first.val();
            self.reuse_q.d.next = self.layer_packed.val() & !self.next_first.val() & !self.next_row_start.val() & self.block_packed_q.q.val();
        }
        if self.check.val() {
            self.row_q.d.next = self.zero2.val();
            self.block_packed_q.d.next = false;
            self.reuse_q.d.next = false;
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DepthwiseWalk::default, "depthwise_walk");
}
