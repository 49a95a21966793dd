//! The weight loader, a sub-block of the layer engine (`engine.rs`): the array's two weight
//! banks (docs/scale.md, "Timing": double-buffered weights), which one a K tile streams with and
//! which one KSTART clears and WLOAD loads, and what a layer leaves for the next one's
//! REWEIGHTS. RTL: `hdl/src/scale/weight_loader.rs`.
//!
//! Decisions: a bank may be cleared or loaded only when no row tagged with it is left in the
//! array (KSTART waits for it); REWEIGHTS streams with the bank loaded last, and is allowed only
//! if the last successful layer's weights fit one tile and have this layer's shape; a failed
//! layer without REWEIGHTS drops them. The next K tile's weights may also be loaded ahead,
//! while this one streams or the array drains (the engine's look-ahead load, docs/scale.md
//! "Where the cycles go now", 1): into the other bank, cleared once no row of it is left in the
//! array; KSTART (or the end of STREAM) then switches to it without clearing it.
use super::engine::In;
use super::systolic::Systolic;
use super::SIZE;

#[derive(Clone, Debug, Default)]
pub struct WeightLoader {
    /// The bank the current K tile streams with (the one loaded last).
    pub bank: bool,
    w_loaded: bool,
    w_rows: u8,
    w_cols: u8,
}

impl WeightLoader {
    /// The bank KSTART clears (the other one), WLOAD loads (the current one), or the look-ahead
    /// load clears and loads in STREAM and DRAIN (`ahead_region`: the other one).
    pub fn load_bank(&self, kstart: bool, ahead_region: bool) -> bool {
        self.bank ^ (kstart || ahead_region)
    }

    /// No row of the other bank (the one KSTART clears) is left in the array.
    pub fn other_free(&self, array: &Systolic) -> bool {
        !array.bank_active(!self.bank)
    }

    /// KSTART clears the other bank now (and switches to it, unless the engine is stopping),
    /// unless it holds the weights loaded ahead (`ahead_ready`); or the look-ahead load starts
    /// (`ahead_clear`, in STREAM or DRAIN, once the other bank is free).
    pub fn clear(&self, kstart: bool, ahead_ready: bool, ahead_clear: bool, c: &In, array: &Systolic) -> bool {
        (kstart && !c.reweights && self.other_free(array) && !ahead_ready) || ahead_clear
    }

    /// The rising edge in KSTART: switch to the bank just cleared.
    pub fn switch(&mut self) {
        self.bank = !self.bank;
    }

    /// The weights in the array may be used by this layer's REWEIGHTS.
    pub fn reweight_ok(&self, c: &In) -> bool {
        self.w_loaded && self.w_rows == c.wghtrows && self.w_cols == c.wghtcols
    }

    /// DONE: what the layer leaves for the next one's REWEIGHTS.
    pub fn finish_layer(&mut self, success: bool, c: &In) {
        if success {
            self.w_loaded = usize::from(c.wghtrows) <= SIZE && usize::from(c.wghtcols) <= SIZE;
            self.w_rows = c.wghtrows;
            self.w_cols = c.wghtcols;
        } else {
            self.w_loaded &= c.reweights;
        }
    }
}
