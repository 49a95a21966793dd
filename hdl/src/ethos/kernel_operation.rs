//! The kernel unit's operation (TRM §4.6; digest `shared/spec/ethos-u65.md` §2.3): whether the
//! front end's kernel start is one the unit takes (`accept`: an ELEMENTWISE or a POOL, in
//! IDLE), and what it latches with it: `pool` (else an ELEMENTWISE), the mode's low bits and
//! whether the mode is one the unit does not implement (`mode_bad`, for CHECK: above MAX for an
//! ELEMENTWISE, above AVERAGE for a POOL); and the state after the IFM byte it implies
//! (`after_a`: READ_B, CALC with the IFM2 scalar, a pool's next tap). A sub-block of [`super::Elementwise`], apart from its
//! state machine so that these registers and `accept` follow registers and the front end's
//! kernel handshake only: in the state machine's block they shared Verilator's input region
//! with the statements that read the memory's response (issue 19). The model is part of
//! `model/src/ethos/elementwise.rs` (its IDLE step).
use super::elementwise::state;
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct KernelOperation {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The unit is in IDLE.
    pub idle: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    pub kernel_op: Signal<In, Bits<2>>,
    pub kernel_mode: Signal<In, Bits<16>>,
    /// IFM2_BROADCAST[7]: the IFM2 operand is the scalar.
    pub scalar_operand: Signal<In, Bit>,
    /// The unit takes this cycle's start (LATCH next).
    pub accept: Signal<Out, Bit>,
    pub pool: Signal<Out, Bit>,
    pub mode: Signal<Out, Bits<3>>,
    pub mode_bad: Signal<Out, Bit>,
    /// The state after the IFM byte (`super::elementwise::state`): READ_B, CALC for the scalar,
    /// a pool's next tap (READ_A; after the last, the unit's `word_end`).
    pub after_a: Signal<Out, Bits<4>>,
    pool_reg: Reg<Bit>,
    mode_reg: Reg<Bits<3>>,
    mode_bad_reg: Reg<Bit>,
    op_elementwise: Constant<Bits<2>>,
    op_pool: Constant<Bits<2>>,
    mode_max: Constant<Bits<16>>,
    pool_mode_max: Constant<Bits<16>>,
    s_read_a: Constant<Bits<4>>,
    s_read_b: Constant<Bits<4>>,
    s_calc: Constant<Bits<4>>,
}

impl Default for KernelOperation {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            idle: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            kernel_mode: Default::default(),
            accept: Default::default(),
            pool: Default::default(),
            mode: Default::default(),
            mode_bad: Default::default(),
            scalar_operand: Default::default(),
            after_a: Default::default(),
            pool_reg: Default::default(),
            mode_reg: Default::default(),
            mode_bad_reg: Default::default(),
            op_elementwise: k(3),
            op_pool: k(2),
            mode_max: k(4),
            pool_mode_max: k(1),
            s_read_a: k(state::READ_A.into()),
            s_read_b: k(state::READ_B.into()),
            s_calc: k(state::CALC.into()),
        }
    }
}

impl Logic for KernelOperation {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pool_reg, mode_reg, mode_bad_reg);
        self.pool_reg.reset.next = self.reset.val();
        self.mode_reg.reset.next = self.reset.val();
        self.mode_bad_reg.reset.next = self.reset.val();
        self.pool.next = self.pool_reg.q.val();
        self.mode.next = self.mode_reg.q.val();
        self.mode_bad.next = self.mode_bad_reg.q.val();
        self.accept.next = self.idle.val()
            & self.kernel_start.val()
            & ((self.kernel_op.val() == self.op_elementwise.val()) | (self.kernel_op.val() == self.op_pool.val()));
        self.after_a.next = self.s_read_b.val();
        if self.scalar_operand.val() {
            self.after_a.next = self.s_calc.val();
        }
        if self.pool_reg.q.val() {
            self.after_a.next = self.s_read_a.val();
        }
        if self.accept.val() {
            self.pool_reg.d.next = self.kernel_op.val() == self.op_pool.val();
            self.mode_reg.d.next = self.kernel_mode.val().get_bits::<3>(0);
            self.mode_bad_reg.d.next = self.kernel_mode.val() > self.mode_max.val();
            if self.kernel_op.val() == self.op_pool.val() {
                self.mode_bad_reg.d.next = self.kernel_mode.val() > self.pool_mode_max.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(KernelOperation::default, "kernel_operation");
}
