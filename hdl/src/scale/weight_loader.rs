//! ScaleNPU's weight loader, a sub-block of the layer engine (`engine.rs`): the array's two
//! weight banks (docs/scale.md, "Timing": double-buffered weights), which one a K tile streams
//! with and which one KSTART clears and WLOAD loads, and what a layer leaves for the next one's
//! REWEIGHTS, and the bank the engine's look-ahead load fills while a K tile streams or the
//! array drains. Model: `model/src/scale/weight_loader.rs`.
use super::SIZE;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WeightLoader {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The engine's state is KSTART, DONE.
    pub kstart: Signal<In, Bit>,
    pub done: Signal<In, Bit>,
    /// The engine is in STREAM or DRAIN, where the look-ahead load fills the other bank.
    pub ahead_region: Signal<In, Bit>,
    /// The other bank holds the next K tile's weights, loaded ahead: KSTART switches to it
    /// without clearing it.
    pub ahead_ready: Signal<In, Bit>,
    /// The look-ahead load starts: clear the other bank.
    pub ahead_clear: Signal<In, Bit>,
    /// STREAM goes on with the next K tile, loaded ahead: switch to its bank.
    pub take_ahead: Signal<In, Bit>,
    /// DONE of a layer that ended SUCCESS.
    pub success: Signal<In, Bit>,
    pub reweights: Signal<In, Bit>,
    /// The engine is stopping (it goes to FLUSH): KSTART does not switch banks.
    pub stopping: Signal<In, Bit>,
    pub wghtrows: Signal<In, Bits<8>>,
    pub wghtcols: Signal<In, Bits<8>>,
    /// Rows tagged with bank 0 / bank 1 are in the array.
    pub bank0_active: Signal<In, Bit>,
    pub bank1_active: Signal<In, Bit>,
    /// A weight row arrives (in WLOAD, or for the look-ahead load), the `index`-th of its K tile.
    pub load_row: Signal<In, Bit>,
    pub index: Signal<In, Bits<9>>,
    /// The bank the current K tile streams with (the one loaded last).
    pub bank: Signal<Out, Bit>,
    /// The bank KSTART clears (the other one) or WLOAD loads (the current one).
    pub load_bank: Signal<Out, Bit>,
    /// No row of the other bank is left in the array: KSTART may clear it and move on.
    pub other_free: Signal<Out, Bit>,
    /// To the array: clear `load_bank`; load `row` (one-hot) of it with the response.
    pub clear: Signal<Out, Bit>,
    pub load: Signal<Out, Bit>,
    pub row: Signal<Out, Bits<SIZE>>,
    /// The weights in the array are a successful layer's of WGHTROWS x WGHTCOLS in one tile:
    /// REWEIGHTS may use them.
    pub reweight_ok: Signal<Out, Bit>,

    current: Reg<Bit>,
    w_loaded: Reg<Bit>,
    w_rows: Reg<Bits<8>>,
    w_cols: Reg<Bits<8>>,
    size8: Constant<Bits<8>>,
    one_hot0: Constant<Bits<SIZE>>,
    /// `other_free`, for this block's own use (an output is not read back inside a block:
    /// Verilator would see the engine's state logic and this block as one loop).
    free: Signal<Local, Bit>,
}

impl Default for WeightLoader {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            kstart: Default::default(),
            done: Default::default(),
            ahead_region: Default::default(),
            ahead_ready: Default::default(),
            ahead_clear: Default::default(),
            take_ahead: Default::default(),
            success: Default::default(),
            reweights: Default::default(),
            stopping: Default::default(),
            wghtrows: Default::default(),
            wghtcols: Default::default(),
            bank0_active: Default::default(),
            bank1_active: Default::default(),
            load_row: Default::default(),
            index: Default::default(),
            bank: Default::default(),
            load_bank: Default::default(),
            other_free: Default::default(),
            clear: Default::default(),
            load: Default::default(),
            row: Default::default(),
            reweight_ok: Default::default(),
            current: Default::default(),
            w_loaded: Default::default(),
            w_rows: Default::default(),
            w_cols: Default::default(),
            size8: Constant::new((SIZE as u64).into()),
            one_hot0: Constant::new(1.into()),
            free: Default::default(),
        }
    }
}

impl Logic for WeightLoader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, current, w_loaded, w_rows, w_cols);
        self.current.reset.next = self.reset.val();
        self.w_loaded.reset.next = self.reset.val();
        self.w_rows.reset.next = self.reset.val();
        self.w_cols.reset.next = self.reset.val();

        // KSTART clears the other bank once no row of it is left in the array, and switches to it.
        self.load_bank.next = self.current.q.val();
        if self.kstart.val() | self.ahead_region.val() {
            self.load_bank.next = !self.current.q.val();
        }
        self.other_free.next = !self.bank1_active.val();
        if self.current.q.val() {
            self.other_free.next = !self.bank0_active.val();
        }
        self.free.next = !self.bank1_active.val();
        if self.current.q.val() {
            self.free.next = !self.bank0_active.val();
        }
        self.clear.next =
            (self.kstart.val() & !self.reweights.val() & self.free.val() & !self.ahead_ready.val()) | self.ahead_clear.val();
        if (self.kstart.val() & !self.reweights.val() & (self.free.val() | self.ahead_ready.val()) & !self.stopping.val())
            | self.take_ahead.val()
        {
            self.current.d.next = !self.current.q.val();
        }
        self.load.next = self.load_row.val();
        self.row.next = self.one_hot0.val() << self.index.val();
        self.bank.next = self.current.q.val();

        // DONE: what the layer leaves for the next one's REWEIGHTS; a failed layer without
        // REWEIGHTS drops them.
        if self.done.val() {
            if self.success.val() {
                self.w_loaded.d.next = (self.wghtrows.val() <= self.size8.val()) & (self.wghtcols.val() <= self.size8.val());
                self.w_rows.d.next = self.wghtrows.val();
                self.w_cols.d.next = self.wghtcols.val();
            } else {
                self.w_loaded.d.next = self.w_loaded.q.val() & self.reweights.val();
            }
        }
        self.reweight_ok.next =
            self.w_loaded.q.val() & (self.w_rows.q.val() == self.wghtrows.val()) & (self.w_cols.q.val() == self.wghtcols.val());
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightLoader::default, "weight_loader");
}
