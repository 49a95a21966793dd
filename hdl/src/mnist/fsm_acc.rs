//! FSM_ACC (seeds/002 §8, Table 6).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// The accumulation FSM of Table 6, a Moore machine with states IDLE, BIAS, ACC, LAST, WAIT
/// (encoded 0..4; the unused codes 5..7 go to IDLE) and the flag ACC_FLAG (IDLE clears it,
/// ACC sets it). BIAS raises EN_ReLU only with ACC_FLAG set, that is when it directly follows
/// ACC in continuous operation. `load_ctr` (BIAS) and `count_down` (ACC) drive the
/// downcounter. `freeze` (EN_PISO_DEB) holds state and flag. Model:
/// `npu_model::mnist::fsm_acc`.
#[derive(LogicBlock)]
pub struct FsmAcc {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub freeze: Signal<In, Bit>,
    pub en_fsm: Signal<In, Bit>,
    pub ctr_out: Signal<In, Bit>,
    pub out_done: Signal<In, Bit>,
    pub en_buf_in: Signal<Out, Bit>,
    pub clr_buf_in: Signal<Out, Bit>,
    pub en_mac: Signal<Out, Bit>,
    pub rst_mac: Signal<Out, Bit>,
    pub clr_piso_out: Signal<Out, Bit>,
    pub en_relu: Signal<Out, Bit>,
    pub load_ctr: Signal<Out, Bit>,
    pub count_down: Signal<Out, Bit>,
    state: Reg<Bits<3>>,
    acc_flag: Reg<Bit>,
    in_idle: Signal<Local, Bit>,
    in_bias: Signal<Local, Bit>,
    in_acc: Signal<Local, Bit>,
    in_last: Signal<Local, Bit>,
    in_wait: Signal<Local, Bit>,
    state_idle: Constant<Bits<3>>,
    state_bias: Constant<Bits<3>>,
    state_acc: Constant<Bits<3>>,
    state_last: Constant<Bits<3>>,
    state_wait: Constant<Bits<3>>,
}

impl Default for FsmAcc {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            freeze: Default::default(),
            en_fsm: Default::default(),
            ctr_out: Default::default(),
            out_done: Default::default(),
            en_buf_in: Default::default(),
            clr_buf_in: Default::default(),
            en_mac: Default::default(),
            rst_mac: Default::default(),
            clr_piso_out: Default::default(),
            en_relu: Default::default(),
            load_ctr: Default::default(),
            count_down: Default::default(),
            state: Default::default(),
            acc_flag: Default::default(),
            in_idle: Default::default(),
            in_bias: Default::default(),
            in_acc: Default::default(),
            in_last: Default::default(),
            in_wait: Default::default(),
            state_idle: Constant::new(0.into()),
            state_bias: Constant::new(1.into()),
            state_acc: Constant::new(2.into()),
            state_last: Constant::new(3.into()),
            state_wait: Constant::new(4.into()),
        }
    }
}

impl Logic for FsmAcc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, acc_flag);
        self.state.reset.next = self.reset.val();
        self.acc_flag.reset.next = self.reset.val();
        self.in_idle.next = self.state.q.val() == self.state_idle.val();
        self.in_bias.next = self.state.q.val() == self.state_bias.val();
        self.in_acc.next = self.state.q.val() == self.state_acc.val();
        self.in_last.next = self.state.q.val() == self.state_last.val();
        self.in_wait.next = self.state.q.val() == self.state_wait.val();
        // Table 6, outputs.
        self.en_buf_in.next = self.in_acc.val();
        self.clr_buf_in.next = self.in_idle.val() | self.in_bias.val();
        self.en_mac.next = self.in_bias.val() | self.in_acc.val() | self.in_last.val();
        self.rst_mac.next = self.in_bias.val();
        self.clr_piso_out.next = self.in_idle.val();
        self.en_relu.next = self.in_last.val() | (self.in_bias.val() & self.acc_flag.q.val());
        self.load_ctr.next = self.in_bias.val();
        self.count_down.next = self.in_acc.val();
        // Table 6, next state.
        if !self.freeze.val() {
            if self.in_idle.val() {
                self.acc_flag.d.next = false;
                if self.en_fsm.val() {
                    self.state.d.next = self.state_bias.val();
                }
            } else if self.in_bias.val() {
                self.state.d.next = self.state_acc.val();
            } else if self.in_acc.val() {
                self.acc_flag.d.next = true;
                if self.ctr_out.val() {
                    if self.en_fsm.val() {
                        self.state.d.next = self.state_bias.val();
                    } else {
                        self.state.d.next = self.state_last.val();
                    }
                }
            } else if self.in_last.val() {
                self.state.d.next = self.state_wait.val();
            } else if self.in_wait.val() {
                if self.out_done.val() {
                    self.state.d.next = self.state_idle.val();
                }
            } else {
                self.state.d.next = self.state_idle.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(FsmAcc::default, "fsm_acc");
}
