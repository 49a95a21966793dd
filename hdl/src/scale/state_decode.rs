//! ScaleNPU's engine state decode, a sub-block of the layer engine (`engine.rs`): which state
//! the state machine (`state_machine.rs`) is in, whether a stop acts now, the exit code's
//! outputs, and the current phase's request count, address step and completion. Model: the
//! engine's state machine (`model/src/scale/engine/state_machine.rs`: `State`, `phase`).
//!
//! Why a block of its own: its inputs are registers (the state machine's state, stop and code)
//! and other sub-blocks' registers (the tile sizes, the phase's counts), wired by single
//! assignments, and the engine's logic reads its outputs; the state machine's next-state logic
//! reads the engine's decisions. Kept in the state machine's `always`, the decode shared its
//! signals with the next-state logic, so Verilator saw engine -> state machine -> engine as a
//! loop (UNOPTFLAT, docs/scale.md, the rule below the sub-block table).
use super::state_machine::{BIAS, CHECK, DONE, DRAIN, FLUSH, IDLE, KSTART, NEXTN, NSTART, PLAN, STREAM, SUMS, WLOAD};
use super::tile_sequencer::WORD_BYTES;
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StateDecode {
    /// The state machine's registers.
    pub state: Signal<In, Bits<4>>,
    pub stop: Signal<In, Bit>,
    pub code: Signal<In, Bits<2>>,
    pub inrows: Signal<In, Bits<8>>,
    /// The tile sequencer's K tile weight rows and strides of W and X rows.
    pub k_rows: Signal<In, Bits<9>>,
    pub ncw_bytes: Signal<In, Bits<32>>,
    pub nxw_bytes: Signal<In, Bits<32>>,
    /// The phase request generator's requests taken and responses outstanding.
    pub issued: Signal<In, Bits<9>>,
    pub outstanding: Signal<In, Bits<9>>,
    /// The state decode.
    pub in_idle: Signal<Out, Bit>,
    pub in_check: Signal<Out, Bit>,
    pub in_plan: Signal<Out, Bit>,
    pub in_nstart: Signal<Out, Bit>,
    pub in_bias: Signal<Out, Bit>,
    pub in_sums: Signal<Out, Bit>,
    pub in_kstart: Signal<Out, Bit>,
    pub in_wload: Signal<Out, Bit>,
    pub in_stream: Signal<Out, Bit>,
    pub in_drain: Signal<Out, Bit>,
    pub in_nextn: Signal<Out, Bit>,
    pub in_flush: Signal<Out, Bit>,
    pub in_done: Signal<Out, Bit>,
    /// A layer runs (neither IDLE nor DONE); a stop acts now (goes to FLUSH at this edge).
    pub running: Signal<Out, Bit>,
    pub stopping: Signal<Out, Bit>,
    /// The exit code is SUCCESS.
    pub success: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    pub finish: Signal<Out, Bit>,
    pub exit_code: Signal<Out, Bits<2>>,
    /// The phase issues requests; its request count and address step; it is done.
    pub issues: Signal<Out, Bit>,
    pub total: Signal<Out, Bits<9>>,
    pub stride: Signal<Out, Bits<32>>,
    pub phase_done: Signal<Out, Bit>,

    inrows9: ZeroExtend<8, 9>,
    s_idle: Constant<Bits<4>>,
    s_check: Constant<Bits<4>>,
    s_plan: Constant<Bits<4>>,
    s_nstart: Constant<Bits<4>>,
    s_bias: Constant<Bits<4>>,
    s_sums: Constant<Bits<4>>,
    s_kstart: Constant<Bits<4>>,
    s_wload: Constant<Bits<4>>,
    s_stream: Constant<Bits<4>>,
    s_drain: Constant<Bits<4>>,
    s_nextn: Constant<Bits<4>>,
    s_flush: Constant<Bits<4>>,
    s_done: Constant<Bits<4>>,
    c_success: Constant<Bits<2>>,
    word_bytes: Constant<Bits<32>>,
    two9: Constant<Bits<9>>,
    zero9: Constant<Bits<9>>,
    zero32: Constant<Bits<32>>,
}

impl Default for StateDecode {
    fn default() -> Self {
        Self {
            state: Default::default(),
            code: Default::default(),
            inrows: Default::default(),
            k_rows: Default::default(),
            ncw_bytes: Default::default(),
            nxw_bytes: Default::default(),
            issued: Default::default(),
            outstanding: Default::default(),
            in_check: Default::default(),
            in_plan: Default::default(),
            in_nstart: Default::default(),
            in_bias: Default::default(),
            in_sums: Default::default(),
            in_kstart: Default::default(),
            in_wload: Default::default(),
            in_stream: Default::default(),
            in_drain: Default::default(),
            in_nextn: Default::default(),
            in_flush: Default::default(),
            in_done: Default::default(),
            stop: Default::default(),
            stopping: Default::default(),
            success: Default::default(),
            busy: Default::default(),
            finish: Default::default(),
            exit_code: Default::default(),
            issues: Default::default(),
            total: Default::default(),
            stride: Default::default(),
            phase_done: Default::default(),
            inrows9: Default::default(),
            s_idle: k(IDLE),
            s_check: k(CHECK),
            s_plan: k(PLAN),
            s_nstart: k(NSTART),
            s_bias: k(BIAS),
            s_sums: k(SUMS),
            s_kstart: k(KSTART),
            s_wload: k(WLOAD),
            s_stream: k(STREAM),
            s_drain: k(DRAIN),
            s_nextn: k(NEXTN),
            s_flush: k(FLUSH),
            s_done: k(DONE),
            c_success: k(super::regmap::EXIT_SUCCESS.into()),
            word_bytes: k(WORD_BYTES),
            two9: k(2),
            zero9: k(0),
            zero32: k(0),
            in_idle: Default::default(),
            running: Default::default(),
        }
    }
}

impl Logic for StateDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.inrows9.narrow.next = self.inrows.val();
        self.in_idle.next = self.state.val() == self.s_idle.val();
        self.in_check.next = self.state.val() == self.s_check.val();
        self.in_plan.next = self.state.val() == self.s_plan.val();
        self.in_nstart.next = self.state.val() == self.s_nstart.val();
        self.in_bias.next = self.state.val() == self.s_bias.val();
        self.in_sums.next = self.state.val() == self.s_sums.val();
        self.in_kstart.next = self.state.val() == self.s_kstart.val();
        self.in_wload.next = self.state.val() == self.s_wload.val();
        self.in_stream.next = self.state.val() == self.s_stream.val();
        self.in_drain.next = self.state.val() == self.s_drain.val();
        self.in_nextn.next = self.state.val() == self.s_nextn.val();
        self.in_flush.next = self.state.val() == self.s_flush.val();
        self.in_done.next = self.state.val() == self.s_done.val();
        // A stop seen now acts from the next cycle; PLAN's verdict on the registers stands even
        // if a stop came during CHECK.
        self.running.next = !self.in_idle.val() & !self.in_done.val();
        self.stopping.next = self.stop.val() & self.running.val() & !self.in_plan.val() & !self.in_flush.val();
        self.success.next = self.code.val() == self.c_success.val();
        self.busy.next = !self.in_idle.val();
        self.finish.next = self.in_done.val();
        self.exit_code.next = self.code.val();

        // The current phase's request count and address step.
        self.total.next = self.zero9.val();
        self.stride.next = self.zero32.val();
        if self.in_bias.val() | self.in_sums.val() {
            self.total.next = self.two9.val();
            self.stride.next = self.word_bytes.val();
        }
        if self.in_wload.val() {
            self.total.next = self.k_rows.val();
            self.stride.next = self.ncw_bytes.val();
        }
        if self.in_stream.val() {
            self.total.next = self.inrows9.wide.val();
            self.stride.next = self.nxw_bytes.val();
        }
        self.phase_done.next = (self.issued.val() == self.total.val()) & (self.outstanding.val() == self.zero9.val());
        self.issues.next = self.in_bias.val() | self.in_sums.val() | self.in_wload.val() | self.in_stream.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(StateDecode::default, "state_decode");
}
