//! FSM_OUT (seeds/002 §8, Table 7).
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// The output FSM of Table 7, a Moore machine with states OUT_IDLE, OUT_S1..OUT_S5 (encoded
/// 0..5; 6 and 7 go to OUT_IDLE). EN_ReLU starts it; S1 loads PISO_OUT, S2..S4 shift it,
/// S2..S5 write the FIFO, S5 signals OUT_DONE. `freeze` (EN_PISO_DEB) holds the state.
/// Model: `npu_model::mnist::fsm_out`.
#[derive(LogicBlock)]
pub struct FsmOut {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub freeze: Signal<In, Bit>,
    pub en_relu: Signal<In, Bit>,
    pub shift_out: Signal<Out, Bit>,
    pub en_piso_out: Signal<Out, Bit>,
    pub out_done: Signal<Out, Bit>,
    pub wr_en: Signal<Out, Bit>,
    state: Reg<Bits<3>>,
    in_idle: Signal<Local, Bit>,
    in_s1: Signal<Local, Bit>,
    in_s5: Signal<Local, Bit>,
    in_busy: Signal<Local, Bit>,
    out_idle: Constant<Bits<3>>,
    s1: Constant<Bits<3>>,
    s5: Constant<Bits<3>>,
    step: Constant<Bits<3>>,
}

impl Default for FsmOut {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            freeze: Default::default(),
            en_relu: Default::default(),
            shift_out: Default::default(),
            en_piso_out: Default::default(),
            out_done: Default::default(),
            wr_en: Default::default(),
            state: Default::default(),
            in_idle: Default::default(),
            in_s1: Default::default(),
            in_s5: Default::default(),
            in_busy: Default::default(),
            out_idle: Constant::new(0.into()),
            s1: Constant::new(1.into()),
            s5: Constant::new(5.into()),
            step: Constant::new(1.into()),
        }
    }
}

impl Logic for FsmOut {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.state.reset.next = self.reset.val();
        self.in_idle.next = self.state.q.val() == self.out_idle.val();
        self.in_s1.next = self.state.q.val() == self.s1.val();
        self.in_s5.next = self.state.q.val() == self.s5.val();
        // S1..S4: the codes between OUT_IDLE and S5.
        self.in_busy.next = !self.in_idle.val() & (self.state.q.val() < self.s5.val());
        // Table 7, outputs.
        self.shift_out.next = !self.in_s1.val();
        self.en_piso_out.next = self.in_busy.val();
        self.out_done.next = self.in_s5.val();
        self.wr_en.next = !self.in_idle.val() & !self.in_s1.val() & (self.state.q.val() <= self.s5.val());
        // Table 7, next state: S1..S4 step to the next code, S5 and the unused codes to OUT_IDLE.
        if !self.freeze.val() {
            if self.in_idle.val() {
                if self.en_relu.val() {
                    self.state.d.next = self.s1.val();
                }
            } else if self.in_busy.val() {
                self.state.d.next = self.state.q.val() + self.step.val();
            } else {
                self.state.d.next = self.out_idle.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(FsmOut::default, "fsm_out");
}
