//! The tile sequencer, a sub-block of the layer engine (`engine.rs`): the layer's checks and
//! section addresses (computed in CHECK, acted on in PLAN; docs/scale.md, "Exit codes" and
//! "Memory layout at BASE"), and the walk over column tiles (outside) and K tiles (inside) with the
//! first memory address of each phase. RTL: `hdl/src/scale/tile_sequencer.rs`.
//!
//! The engine calls one method per state it is in (`check`, `plan`, `start_n`, `next_k`,
//! `next_n`) at the rising edge; the registers change as the RTL's do in the same cycle.
use super::engine::{words, In, CPU_ERR, MEM_BYTES, MEM_ERR, WORD_BYTES};
use super::SIZE;

#[derive(Clone, Debug, Default)]
pub struct TileSequencer {
    /// CHECK's verdict (the exit code if the layer cannot run) and section addresses, for PLAN.
    verdict: Option<u8>,
    w_addr: u32,
    b_addr: u32,
    s_addr: u32,
    // The walk.
    n_left: u32,
    k_left: u32,
    /// First addresses: bias, sums (this column tile), W of this column tile, W and X of this
    /// K tile (the output writer keeps the results' address: it runs a column tile behind).
    pub b_ptr: u32,
    pub s_ptr: u32,
    w_nt_ptr: u32,
    pub w_kt_ptr: u32,
    pub x_kt_ptr: u32,
    /// The first K tile of the column tile (its rows start the accumulators).
    pub first_k: bool,
    /// The first column tile: its STREAM phases fill the X buffer.
    pub first_n: bool,
}

impl TileSequencer {
    /// CHECK: the exit code if the layer cannot run (`reinput_ok`, `reweight_ok`: the result
    /// buffer's and the weight loader's word on REINPUTS and REWEIGHTS), and the section
    /// addresses, registered for PLAN. The registers cannot change while the unit is busy, and
    /// what REINPUTS and REWEIGHTS may use changes only at the end of a layer, so CHECK sees
    /// what PLAN would; the RTL registers them so that no output of the sequencer depends on
    /// its inputs in the same cycle.
    pub fn check(&mut self, c: &In, reinput_ok: bool, reweight_ok: bool) {
        let (nxw, ncw) = (words(c.incols), words(c.wghtcols));
        let x_bytes = u32::from(c.inrows) * nxw * WORD_BYTES;
        let w_bytes = u32::from(c.wghtrows) * ncw * WORD_BYTES;
        let bs_bytes = ncw * 2 * WORD_BYTES;
        let r_bytes = u32::from(c.inrows) * ncw * WORD_BYTES;
        let at_base = !c.reinputs || !c.reweights || c.usebias || c.usesumm;
        let base = u64::from(c.base);
        let w_addr = base + if c.reinputs { 0 } else { u64::from(x_bytes) };
        let b_addr = w_addr + if c.reweights { 0 } else { u64::from(w_bytes) };
        let s_addr = b_addr + if c.usebias { u64::from(bs_bytes) } else { 0 };
        let end = s_addr + if c.usesumm { u64::from(bs_bytes) } else { 0 };
        let misaligned = |a: u32| a % WORD_BYTES != 0;
        let bad_base = at_base && (misaligned(c.base) || end > MEM_BYTES);
        let bad_result = c.saveout && (misaligned(c.result) || u64::from(c.result) + u64::from(r_bytes) > MEM_BYTES);
        let dims_zero = c.inrows == 0 || c.incols == 0 || c.wghtrows == 0 || c.wghtcols == 0;
        self.verdict = if dims_zero || c.incols != c.wghtrows || (c.reinputs && !reinput_ok) || (c.reweights && !reweight_ok) {
            Some(CPU_ERR)
        } else if bad_base || bad_result {
            Some(MEM_ERR)
        } else {
            None
        };
        (self.w_addr, self.b_addr, self.s_addr) = (w_addr as u32, b_addr as u32, s_addr as u32);
    }

    /// PLAN: CHECK's verdict; if the layer can run, the first column tile's pointers.
    pub fn plan(&mut self, c: &In) -> Option<u8> {
        if self.verdict.is_none() {
            self.b_ptr = self.b_addr;
            self.s_ptr = self.s_addr;
            self.w_nt_ptr = self.w_addr;
            self.n_left = u32::from(c.wghtcols);
            self.first_n = true;
        }
        self.verdict
    }

    /// NSTART: the column tile's first K tile.
    pub fn start_n(&mut self, c: &In) {
        self.k_left = u32::from(c.wghtrows);
        self.w_kt_ptr = self.w_nt_ptr;
        self.x_kt_ptr = c.base;
        self.first_k = true;
    }

    /// Another K tile follows this one in the column tile.
    pub fn more_k(&self) -> bool {
        self.k_left > SIZE as u32
    }

    /// The next K tile (its rows follow this one's through the array).
    pub fn next_k(&mut self, c: &In) {
        self.k_left -= SIZE as u32;
        self.x_kt_ptr = self.x_kt_ptr.wrapping_add(WORD_BYTES);
        self.w_kt_ptr = self.w_kt_ptr.wrapping_add(SIZE as u32 * words(c.wghtcols) * WORD_BYTES);
        self.first_k = false;
    }

    /// Another column tile follows this one.
    pub fn more_n(&self) -> bool {
        self.n_left > SIZE as u32
    }

    /// The next column tile.
    pub fn next_n(&mut self) {
        self.n_left -= SIZE as u32;
        self.b_ptr = self.b_ptr.wrapping_add(2 * WORD_BYTES);
        self.s_ptr = self.s_ptr.wrapping_add(2 * WORD_BYTES);
        self.w_nt_ptr = self.w_nt_ptr.wrapping_add(WORD_BYTES);
        self.first_n = false;
    }

    /// Weight rows of this K tile.
    pub fn k_rows(&self) -> u32 {
        self.k_left.min(SIZE as u32)
    }

    /// A K tile follows this one in the walk (this column tile's next, or the next column
    /// tile's first): the look-ahead weight load has a target (docs/scale.md, "Where the cycles
    /// go now", 1).
    pub fn ahead(&self) -> bool {
        self.more_k() || self.more_n()
    }

    /// Weight rows of the K tile that follows this one in the walk.
    pub fn ahead_rows(&self, c: &In) -> u32 {
        if self.more_k() {
            (self.k_left - SIZE as u32).min(SIZE as u32)
        } else {
            u32::from(c.wghtrows).min(SIZE as u32)
        }
    }

    /// The W address of the K tile that follows this one in the walk.
    pub fn ahead_ptr(&self, c: &In) -> u32 {
        if self.more_k() {
            self.w_kt_ptr.wrapping_add(SIZE as u32 * words(c.wghtcols) * WORD_BYTES)
        } else {
            self.w_nt_ptr.wrapping_add(WORD_BYTES)
        }
    }
}
