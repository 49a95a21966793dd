//! The convolution unit's states (`conv_unit.rs`; docs/ethos.md, "Convolution unit"): IDLE,
//! LATCH, CHECK, RUN, FINISH, DONE ([`super::conv_unit::state`]), whether the layer is a
//! DEPTHWISE, the datapath's registered start and reset, and what the states write into the
//! unit's error (`error_write` with `error_value`: CHECK's verdict, a datapath error at the
//! end of RUN). The error register stays in the unit, which also takes the read and write
//! channels' errors into it; its value comes back here as `error`.
//!
//! Why a block of its own: every input here is a register or logic on registers (the unit's
//! error, the LATCH sequencer, CHECK's verdict, the datapath's state, the read channel's and
//! the OFM queue's registers), so Verilator evaluates the state machine once a cycle, after
//! the edge. In the unit's block it shared the error's next value with the statements that
//! take the read channel's response (`mem_r_error`) and the write channel's (`mem_b_error`),
//! and so ran in Verilator's input region too, twice a cycle more (docs/ethos.md, "Verilated
//! speed"). Same registers, same assignments in the same order: the model is inside
//! `npu_model::ethos::conv_unit`.
use super::conv_unit::{state, ERROR_UNSUPPORTED};
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ConvStates {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    /// `kernel_op[0]`: a DEPTHWISE (the top routes only CONV and DEPTHWISE here).
    pub kernel_depthwise: Signal<In, Bit>,
    /// LATCH has read every register (`conv_layer.rs`).
    pub latched: Signal<In, Bit>,
    /// CHECK's verdict and the latched IFM_UPSCALE (`conv_layer.rs`).
    pub bad: Signal<In, Bit>,
    pub upscale: Signal<In, Bits<2>>,
    pub dp_done: Signal<In, Bit>,
    pub dp_failed: Signal<In, Bit>,
    /// No read in flight, no write in flight, the OFM queue empty.
    pub read_idle: Signal<In, Bit>,
    pub write_idle: Signal<In, Bit>,
    pub queue_empty: Signal<In, Bit>,
    /// The unit's error register.
    pub error: Signal<In, Bits<4>>,
    pub state: Signal<Out, Bits<3>>,
    pub depthwise: Signal<Out, Bit>,
    /// CHECK passes: the layer starts this cycle.
    pub start: Signal<Out, Bit>,
    pub dp_start: Signal<Out, Bit>,
    pub dp_reset: Signal<Out, Bit>,
    pub error_write: Signal<Out, Bit>,
    pub error_value: Signal<Out, Bits<4>>,
    pub kernel_done: Signal<Out, Bit>,
    pub kernel_error: Signal<Out, Bits<4>>,
    /// The datapath's start, registered (a cycle after CHECK).
    dp_start_reg: Reg<Bit>,
    /// The datapath's reset, registered: high in DONE (it aborts a layer ended by an error)
    /// and in the cycle after the unit's reset (its power-up value 1). From a register, not
    /// `reset | (state == DONE)`: that expression reads the top's `reset` input, which pulled
    /// the datapath's reset chain (the weight decoder's restart, the state machine's
    /// defaults) into Verilator's input region, run twice a cycle (docs/ethos.md, NPU step 6).
    dp_reset_reg: Reg<Bit>,
    state_reg: Reg<Bits<3>>,
    depthwise_reg: Reg<Bit>,
    ok: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    s_idle: Constant<Bits<3>>,
    s_latch: Constant<Bits<3>>,
    s_check: Constant<Bits<3>>,
    s_run: Constant<Bits<3>>,
    s_finish: Constant<Bits<3>>,
    s_done: Constant<Bits<3>>,
    e_none: Constant<Bits<4>>,
    e_unsupported: Constant<Bits<4>>,
}

impl Default for ConvStates {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            kernel_start: Default::default(),
            kernel_depthwise: Default::default(),
            latched: Default::default(),
            bad: Default::default(),
            upscale: Default::default(),
            dp_done: Default::default(),
            dp_failed: Default::default(),
            read_idle: Default::default(),
            write_idle: Default::default(),
            queue_empty: Default::default(),
            error: Default::default(),
            state: Default::default(),
            depthwise: Default::default(),
            start: Default::default(),
            dp_start: Default::default(),
            dp_reset: Default::default(),
            error_write: Default::default(),
            error_value: Default::default(),
            kernel_done: Default::default(),
            kernel_error: Default::default(),
            dp_start_reg: Default::default(),
            dp_reset_reg: Reg::new(true),
            state_reg: Default::default(),
            depthwise_reg: Default::default(),
            ok: Default::default(),
            go: Default::default(),
            s_idle: k(state::IDLE.into()),
            s_latch: k(state::LATCH.into()),
            s_check: k(state::CHECK.into()),
            s_run: k(state::RUN.into()),
            s_finish: k(state::FINISH.into()),
            s_done: k(state::DONE.into()),
            e_none: k(0),
            e_unsupported: k(ERROR_UNSUPPORTED.into()),
        }
    }
}

impl Logic for ConvStates {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state_reg, dp_start_reg, dp_reset_reg, depthwise_reg);
        self.state_reg.reset.next = self.reset.val();
        self.dp_reset_reg.reset.next = self.reset.val();
        self.depthwise_reg.reset.next = self.reset.val();
        self.dp_start_reg.reset.next = self.reset.val();
        self.state.next = self.state_reg.q.val();
        self.depthwise.next = self.depthwise_reg.q.val();
        self.dp_start.next = self.dp_start_reg.q.val();
        self.dp_reset.next = self.dp_reset_reg.q.val();
        // IFM_UPSCALE 2 (zero insertion) is a CONV's (Vela's TRANSPOSE_CONV), 1 (nearest) a
        // DEPTHWISE's (Vela's RESIZE_NEAREST_NEIGHBOR with align_corners): each refused on the
        // other, as the executor does (`conv_layer.rs` refuses 3).
        // Both only in CHECK (0 otherwise), branches that Verilator skips in the other cycles.
        self.go.next = false;
        if self.state_reg.q.val() == self.s_check.val() {
            self.go.next = !self.bad.val()
                & !(self.depthwise_reg.q.val() & self.upscale.val().get_bit(1))
                & !(!self.depthwise_reg.q.val() & self.upscale.val().get_bit(0));
        }
        // Again in a statement of its own, from the registers: the stream reader loads at
        // `start`, and from `go`, which the statements that read the datapath's `done` share,
        // the reader's request would be a loop through the datapath for Verilator (UNOPTFLAT).
        self.start.next = false;
        if self.state_reg.q.val() == self.s_check.val() {
            self.start.next = !self.bad.val()
                & !(self.depthwise_reg.q.val() & self.upscale.val().get_bit(1))
                & !(!self.depthwise_reg.q.val() & self.upscale.val().get_bit(0));
        }
        self.dp_start_reg.d.next = self.go.val();
        self.ok.next = self.error.val() == self.e_none.val();
        self.kernel_done.next = self.state_reg.q.val() == self.s_done.val();
        self.kernel_error.next = self.e_none.val();
        if self.state_reg.q.val() == self.s_done.val() {
            self.kernel_error.next = self.error.val();
        }
        self.error_write.next = false;
        self.error_value.next = self.e_unsupported.val();
        if self.state_reg.q.val() == self.s_idle.val() {
            if self.kernel_start.val() {
                self.state_reg.d.next = self.s_latch.val();
                self.depthwise_reg.d.next = self.kernel_depthwise.val();
            }
        } else if self.state_reg.q.val() == self.s_latch.val() {
            if self.latched.val() {
                self.state_reg.d.next = self.s_check.val();
            }
        } else if self.state_reg.q.val() == self.s_check.val() {
            self.error_write.next = true;
            if self.go.val() {
                self.error_value.next = self.e_none.val();
                self.state_reg.d.next = self.s_run.val();
            } else {
                self.state_reg.d.next = self.s_done.val();
            }
        } else if self.state_reg.q.val() == self.s_run.val() {
            if !self.ok.val() {
                self.state_reg.d.next = self.s_finish.val();
            } else if self.dp_done.val() {
                self.error_write.next = self.dp_failed.val();
                self.state_reg.d.next = self.s_finish.val();
            }
        } else if self.state_reg.q.val() == self.s_finish.val() {
            if self.read_idle.val() & self.write_idle.val() & (self.queue_empty.val() | !self.ok.val()) {
                self.state_reg.d.next = self.s_done.val();
            }
        } else {
            self.state_reg.d.next = self.s_idle.val();
        }
        // `dp_reset` is `state == DONE` in every cycle but the one after a reset.
        self.dp_reset_reg.d.next = self.state_reg.d.val() == self.s_done.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvStates::default, "conv_states");
}
