//! The weight loader, a sub-block of the layer engine (`engine.rs`): the array's two weight
//! banks (docs/scale.md, "Timing": double-buffered weights), which one a K tile streams with and
//! which one KSTART clears and WLOAD loads, and what a layer leaves for the next one's
//! REWEIGHTS. RTL: `hdl/src/scale/weight_loader.rs`.
//!
//! Decisions: a bank may be cleared or loaded only when no row tagged with it is left in the
//! array (KSTART waits for it); REWEIGHTS streams with the bank loaded last, and is allowed only
//! if the last successful layer's weights fit one tile and have this layer's shape; a failed
//! layer without REWEIGHTS drops them.
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
    /// The bank KSTART clears (the other one) or WLOAD loads (the current one).
    pub fn load_bank(&self, kstart: bool) -> bool {
        self.bank ^ kstart
    }

    /// No row of the other bank (the one KSTART clears) is left in the array.
    pub fn other_free(&self, array: &Systolic) -> bool {
        !array.bank_active(!self.bank)
    }

    /// KSTART clears the other bank now (and switches to it, unless the engine is stopping).
    pub fn clear(&self, kstart: bool, c: &In, array: &Systolic) -> bool {
        kstart && !c.reweights && self.other_free(array)
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
