//! ScaleNPU's tile sequencer, a sub-block of the layer engine (`engine.rs`): the layer's checks
//! and section addresses (computed in CHECK, acted on in PLAN; docs/scale.md "Exit codes" and
//! "Memory layout at BASE"), and the walk over column tiles and K tiles with the memory
//! pointers of each phase. Model: `model/src/scale/tile_sequencer.rs`.
use super::SIZE;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

/// Bytes per memory word, and its log2.
pub const WORD_BYTES: u64 = 2 * SIZE as u64;
const LOG2_WORD_BYTES: u64 = WORD_BYTES.trailing_zeros() as u64;
/// The memory window the unit may address: `[0, MEM_BYTES)`.
pub const MEM_BYTES: u64 = 1 << 20;

#[derive(LogicBlock)]
pub struct TileSequencer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The engine's state is CHECK: the verdicts and section addresses are computed.
    pub check: Signal<In, Bit>,
    /// The engine's state is PLAN: if the layer can run, the first column tile's pointers load.
    pub plan: Signal<In, Bit>,
    /// The engine's state is NSTART: the column tile's first K tile.
    pub nstart: Signal<In, Bit>,
    /// Step to the next K tile (its rows follow this one's) / to the next column tile.
    pub next_k: Signal<In, Bit>,
    pub next_n: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    pub incols: Signal<In, Bits<8>>,
    pub wghtrows: Signal<In, Bits<8>>,
    pub wghtcols: Signal<In, Bits<8>>,
    pub reinputs: Signal<In, Bit>,
    pub reweights: Signal<In, Bit>,
    pub saveout: Signal<In, Bit>,
    pub usebias: Signal<In, Bit>,
    pub usesumm: Signal<In, Bit>,
    pub base: Signal<In, Bits<32>>,
    pub result: Signal<In, Bits<32>>,
    /// The result buffer keeps results this layer may take (REINPUTS), and the weights in the
    /// array have this layer's shape (REWEIGHTS).
    pub reinput_ok: Signal<In, Bit>,
    pub reweight_ok: Signal<In, Bit>,
    /// PLAN's verdicts (registered in CHECK, valid in PLAN).
    pub cpu_err: Signal<Out, Bit>,
    pub mem_err: Signal<Out, Bit>,
    /// Another K tile / column tile follows this one.
    pub more_k: Signal<Out, Bit>,
    pub more_n: Signal<Out, Bit>,
    pub first_k: Signal<Out, Bit>,
    /// The first column tile: its STREAM phases fill the X buffer.
    pub first_n: Signal<Out, Bit>,
    /// Weight rows of this K tile (min(SIZE, rows left)).
    pub k_rows: Signal<Out, Bits<9>>,
    /// Address steps: one X row, one W or result row.
    pub nxw_bytes: Signal<Out, Bits<32>>,
    pub ncw_bytes: Signal<Out, Bits<32>>,
    /// First addresses of the phases: bias, sums, this K tile's W and X (the output writer keeps
    /// the results' address: it runs a column tile behind the walk).
    pub b_ptr: Signal<Out, Bits<32>>,
    pub s_ptr: Signal<Out, Bits<32>>,
    pub w_kt_ptr: Signal<Out, Bits<32>>,
    pub x_kt_ptr: Signal<Out, Bits<32>>,
    /// A K tile follows this one in the walk (this column tile's next, or the next column
    /// tile's first): the engine's look-ahead weight load has a target; its weight rows and its
    /// W address (docs/scale.md, "Where the cycles go now", 1).
    pub ahead: Signal<Out, Bit>,
    pub ahead_rows: Signal<Out, Bits<9>>,
    pub ahead_ptr: Signal<Out, Bits<32>>,

    /// CHECK's verdicts and section addresses, for PLAN.
    cpu: Reg<Bit>,
    mem: Reg<Bit>,
    w_addr: Reg<Bits<32>>,
    b_addr: Reg<Bits<32>>,
    s_addr: Reg<Bits<32>>,
    nxw: Reg<Bits<32>>,
    ncw: Reg<Bits<32>>,
    wk_stride: Reg<Bits<32>>,
    n_left: Reg<Bits<8>>,
    k_left: Reg<Bits<8>>,
    b: Reg<Bits<32>>,
    s: Reg<Bits<32>>,
    w_nt: Reg<Bits<32>>,
    w_kt: Reg<Bits<32>>,
    x_kt: Reg<Bits<32>>,
    fk: Reg<Bit>,
    fnt: Reg<Bit>,
    inrows16: ZeroExtend<8, 16>,
    incols16: ZeroExtend<8, 16>,
    wghtrows16: ZeroExtend<8, 16>,
    wghtcols16: ZeroExtend<8, 16>,
    k_left9: ZeroExtend<8, 9>,
    wghtrows9: ZeroExtend<8, 9>,
    word_bytes: Constant<Bits<32>>,
    two_words: Constant<Bits<32>>,
    log2_word_bytes: Constant<Bits<32>>,
    align_mask: Constant<Bits<32>>,
    mem_limit: Constant<Bits<32>>,
    window_mask: Constant<Bits<32>>,
    high_mask: Constant<Bits<32>>,
    size_m1_16: Constant<Bits<16>>,
    log2_size_16: Constant<Bits<16>>,
    size16: Constant<Bits<16>>,
    size8: Constant<Bits<8>>,
    size9: Constant<Bits<9>>,
    one16: Constant<Bits<16>>,
    two16: Constant<Bits<16>>,
    zero8: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    nxw16: Signal<Local, Bits<16>>,
    ncw16: Signal<Local, Bits<16>>,
    dims_zero: Signal<Local, Bit>,
    at_base: Signal<Local, Bit>,
    x_bytes: Signal<Local, Bits<32>>,
    w_bytes: Signal<Local, Bits<32>>,
    bs_bytes: Signal<Local, Bits<32>>,
    r_bytes: Signal<Local, Bits<32>>,
    /// Offsets from BASE of W, bias, sums and the end of the last section.
    w_off: Signal<Local, Bits<32>>,
    b_off: Signal<Local, Bits<32>>,
    s_off: Signal<Local, Bits<32>>,
    end_off: Signal<Local, Bits<32>>,
    /// `more_k` and `more_n`, for this block's own use (an output is not read back inside a block).
    mk: Signal<Local, Bit>,
    mn: Signal<Local, Bit>,
    /// K rows left after this K tile.
    k_after: Signal<Local, Bits<9>>,
}

impl Default for TileSequencer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            check: Default::default(),
            plan: Default::default(),
            nstart: Default::default(),
            next_k: Default::default(),
            next_n: Default::default(),
            inrows: Default::default(),
            incols: Default::default(),
            wghtrows: Default::default(),
            wghtcols: Default::default(),
            reinputs: Default::default(),
            reweights: Default::default(),
            saveout: Default::default(),
            usebias: Default::default(),
            usesumm: Default::default(),
            base: Default::default(),
            result: Default::default(),
            reinput_ok: Default::default(),
            reweight_ok: Default::default(),
            cpu_err: Default::default(),
            mem_err: Default::default(),
            more_k: Default::default(),
            more_n: Default::default(),
            first_k: Default::default(),
            first_n: Default::default(),
            k_rows: Default::default(),
            nxw_bytes: Default::default(),
            ncw_bytes: Default::default(),
            b_ptr: Default::default(),
            s_ptr: Default::default(),
            w_kt_ptr: Default::default(),
            x_kt_ptr: Default::default(),
            cpu: Default::default(),
            mem: Default::default(),
            w_addr: Default::default(),
            b_addr: Default::default(),
            s_addr: Default::default(),
            nxw: Default::default(),
            ncw: Default::default(),
            wk_stride: Default::default(),
            n_left: Default::default(),
            k_left: Default::default(),
            b: Default::default(),
            s: Default::default(),
            w_nt: Default::default(),
            w_kt: Default::default(),
            x_kt: Default::default(),
            fk: Default::default(),
            fnt: Default::default(),
            inrows16: Default::default(),
            incols16: Default::default(),
            wghtrows16: Default::default(),
            wghtcols16: Default::default(),
            k_left9: Default::default(),
            wghtrows9: Default::default(),
            mk: Default::default(),
            mn: Default::default(),
            k_after: Default::default(),
            ahead: Default::default(),
            ahead_rows: Default::default(),
            ahead_ptr: Default::default(),
            word_bytes: k(WORD_BYTES),
            two_words: k(2 * WORD_BYTES),
            log2_word_bytes: k(LOG2_WORD_BYTES),
            align_mask: k(WORD_BYTES - 1),
            mem_limit: k(MEM_BYTES),
            window_mask: k(MEM_BYTES - 1),
            high_mask: k(0xFFFF_FFFF & !(MEM_BYTES - 1)),
            size_m1_16: k(SIZE as u64 - 1),
            log2_size_16: k(u64::from(SIZE.trailing_zeros())),
            size16: k(SIZE as u64),
            size8: k(SIZE as u64),
            size9: k(SIZE as u64),
            one16: k(1),
            two16: k(2),
            zero8: k(0),
            zero32: k(0),
            nxw16: Default::default(),
            ncw16: Default::default(),
            dims_zero: Default::default(),
            at_base: Default::default(),
            x_bytes: Default::default(),
            w_bytes: Default::default(),
            bs_bytes: Default::default(),
            r_bytes: Default::default(),
            w_off: Default::default(),
            b_off: Default::default(),
            s_off: Default::default(),
            end_off: Default::default(),
        }
    }
}

impl Logic for TileSequencer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cpu, mem, w_addr, b_addr, s_addr, nxw, ncw, wk_stride, n_left, k_left, b, s, w_nt, w_kt, x_kt,
            fk, fnt
        );
        self.cpu.reset.next = self.reset.val();
        self.mem.reset.next = self.reset.val();
        self.w_addr.reset.next = self.reset.val();
        self.b_addr.reset.next = self.reset.val();
        self.s_addr.reset.next = self.reset.val();
        self.nxw.reset.next = self.reset.val();
        self.ncw.reset.next = self.reset.val();
        self.wk_stride.reset.next = self.reset.val();
        self.n_left.reset.next = self.reset.val();
        self.k_left.reset.next = self.reset.val();
        self.b.reset.next = self.reset.val();
        self.s.reset.next = self.reset.val();
        self.w_nt.reset.next = self.reset.val();
        self.w_kt.reset.next = self.reset.val();
        self.x_kt.reset.next = self.reset.val();
        self.fk.reset.next = self.reset.val();
        self.fnt.reset.next = self.reset.val();

        self.inrows16.narrow.next = self.inrows.val();
        self.incols16.narrow.next = self.incols.val();
        self.wghtrows16.narrow.next = self.wghtrows.val();
        self.wghtcols16.narrow.next = self.wghtcols.val();
        self.k_left9.narrow.next = self.k_left.q.val();

        // CHECK: the section sizes in bytes, the verdicts and the section addresses, registered
        // for PLAN. (The registers cannot change while the unit is busy, and what REINPUTS and
        // REWEIGHTS may use changes only at the end of a layer, so CHECK sees what PLAN would.
        // Every output of this block is a register: the engine's next state reads them in the
        // same cycle as it drives this block's inputs.)
        self.nxw16.next = (self.incols16.wide.val() + self.size_m1_16.val()) >> self.log2_size_16.val();
        self.ncw16.next = (self.wghtcols16.wide.val() + self.size_m1_16.val()) >> self.log2_size_16.val();
        self.x_bytes.next = (self.inrows16.wide.val() * self.nxw16.val()) << self.log2_word_bytes.val();
        self.w_bytes.next = (self.wghtrows16.wide.val() * self.ncw16.val()) << self.log2_word_bytes.val();
        self.bs_bytes.next = (self.two16.val() * self.ncw16.val()) << self.log2_word_bytes.val();
        self.r_bytes.next = (self.inrows16.wide.val() * self.ncw16.val()) << self.log2_word_bytes.val();
        self.dims_zero.next = (self.inrows.val() == self.zero8.val())
            | (self.incols.val() == self.zero8.val())
            | (self.wghtrows.val() == self.zero8.val())
            | (self.wghtcols.val() == self.zero8.val());
        self.at_base.next = !self.reinputs.val() | !self.reweights.val() | self.usebias.val() | self.usesumm.val();
        self.w_off.next = self.zero32.val();
        if !self.reinputs.val() {
            self.w_off.next = self.x_bytes.val();
        }
        self.b_off.next = self.w_off.val();
        if !self.reweights.val() {
            self.b_off.next = self.w_off.val() + self.w_bytes.val();
        }
        self.s_off.next = self.b_off.val();
        if self.usebias.val() {
            self.s_off.next = self.b_off.val() + self.bs_bytes.val();
        }
        self.end_off.next = self.s_off.val();
        if self.usesumm.val() {
            self.end_off.next = self.s_off.val() + self.bs_bytes.val();
        }
        if self.check.val() {
            self.cpu.d.next = self.dims_zero.val()
                | (self.incols.val() != self.wghtrows.val())
                | (self.reinputs.val() & !self.reinput_ok.val())
                | (self.reweights.val() & !self.reweight_ok.val());
            // A region [a, a + n) leaves the window if a >= MEM_BYTES (n > 0 whenever the
            // dimensions are not 0, and a 0 dimension is CPU_ERR first) or if its offset in the
            // window plus n passes MEM_BYTES (no overflow: both are below 2^20).
            self.mem.d.next = (self.at_base.val()
                & (((self.base.val() & self.align_mask.val()) != self.zero32.val())
                    | ((self.base.val() & self.high_mask.val()) != self.zero32.val())
                    | (((self.base.val() & self.window_mask.val()) + self.end_off.val()) > self.mem_limit.val())))
                | (self.saveout.val()
                    & (((self.result.val() & self.align_mask.val()) != self.zero32.val())
                        | ((self.result.val() & self.high_mask.val()) != self.zero32.val())
                        | (((self.result.val() & self.window_mask.val()) + self.r_bytes.val()) > self.mem_limit.val())));
            self.w_addr.d.next = self.base.val() + self.w_off.val();
            self.b_addr.d.next = self.base.val() + self.b_off.val();
            self.s_addr.d.next = self.base.val() + self.s_off.val();
            self.nxw.d.next = (self.one16.val() * self.nxw16.val()) << self.log2_word_bytes.val();
            self.ncw.d.next = (self.one16.val() * self.ncw16.val()) << self.log2_word_bytes.val();
            self.wk_stride.d.next = (self.size16.val() * self.ncw16.val()) << self.log2_word_bytes.val();
        }
        self.cpu_err.next = self.cpu.q.val();
        self.mem_err.next = self.mem.q.val();

        // PLAN: the first column tile's pointers, if the layer can run.
        if self.plan.val() & !self.cpu.q.val() & !self.mem.q.val() {
            self.w_nt.d.next = self.w_addr.q.val();
            self.b.d.next = self.b_addr.q.val();
            self.s.d.next = self.s_addr.q.val();
            self.n_left.d.next = self.wghtcols.val();
            self.fnt.d.next = true;
        }

        // The tile walk: column tiles outside, K tiles inside.
        if self.nstart.val() {
            self.k_left.d.next = self.wghtrows.val();
            self.w_kt.d.next = self.w_nt.q.val();
            self.x_kt.d.next = self.base.val();
            self.fk.d.next = true;
        }
        if self.next_k.val() {
            self.k_left.d.next = self.k_left.q.val() - self.size8.val();
            self.x_kt.d.next = self.x_kt.q.val() + self.word_bytes.val();
            self.w_kt.d.next = self.w_kt.q.val() + self.wk_stride.q.val();
            self.fk.d.next = false;
        }
        if self.next_n.val() {
            self.n_left.d.next = self.n_left.q.val() - self.size8.val();
            self.b.d.next = self.b.q.val() + self.two_words.val();
            self.s.d.next = self.s.q.val() + self.two_words.val();
            self.w_nt.d.next = self.w_nt.q.val() + self.word_bytes.val();
            self.fnt.d.next = false;
        }
        self.more_k.next = self.k_left.q.val() > self.size8.val();
        self.more_n.next = self.n_left.q.val() > self.size8.val();
        self.mk.next = self.k_left.q.val() > self.size8.val();
        self.mn.next = self.n_left.q.val() > self.size8.val();
        self.ahead.next = self.mk.val() | self.mn.val();
        // The K tile after this one: this column tile's next (rows left after this one, at most
        // SIZE), or the next column tile's first (min(WGHTROWS, SIZE), one word to the right).
        self.wghtrows9.narrow.next = self.wghtrows.val();
        self.k_after.next = self.k_left9.wide.val() - self.size9.val();
        if self.mk.val() {
            self.ahead_rows.next = self.size9.val();
            if self.k_after.val() < self.size9.val() {
                self.ahead_rows.next = self.k_after.val();
            }
            self.ahead_ptr.next = self.w_kt.q.val() + self.wk_stride.q.val();
        } else {
            self.ahead_rows.next = self.size9.val();
            if self.wghtrows9.wide.val() < self.size9.val() {
                self.ahead_rows.next = self.wghtrows9.wide.val();
            }
            self.ahead_ptr.next = self.w_nt.q.val() + self.word_bytes.val();
        }
        self.first_k.next = self.fk.q.val();
        self.first_n.next = self.fnt.q.val();
        self.k_rows.next = self.size9.val();
        if self.k_left9.wide.val() < self.size9.val() {
            self.k_rows.next = self.k_left9.wide.val();
        }
        self.nxw_bytes.next = self.nxw.q.val();
        self.ncw_bytes.next = self.ncw.q.val();
        self.b_ptr.next = self.b.q.val();
        self.s_ptr.next = self.s.q.val();
        self.w_kt_ptr.next = self.w_kt.q.val();
        self.x_kt_ptr.next = self.x_kt.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(TileSequencer::default, "tile_sequencer");
}
