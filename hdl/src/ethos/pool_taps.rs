//! The kernel unit's walk over a POOL's kernel taps (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §2.2): the tap (`ky`, `kx`), row by row, the running max or sum
//! of the taps inside the IFM (`acc`) and their number (`count`). A sub-block of
//! [`super::Elementwise`] (its states POOL_TAP and POOL_NEXT); the arithmetic (the tap's IFM
//! position, whether it is inside, the next max or sum) is the datapath's
//! (`elementwise_datapath.rs`, `pooling_alu.rs`). The model is part of
//! `model/src/ethos/elementwise.rs` (its POOL_NEXT).
//!
//! Ports: the unit's `state`; `in_ifm` and `accumulated`, the datapath's verdict on the tap
//! and the next max or sum; the kernel's sides. Out: the registers and `last` (the tap is the
//! kernel's last). In POOL_NEXT the tap just read counts when inside, then the walk steps;
//! outside the tap loop (POOL_TAP, READ_A, WAIT_A, POOL_NEXT) everything starts afresh at 0
//! (CALC still reads the registers: they are cleared at its end; `hold` keeps them while CALC
//! waits for the OFM write port).
use super::elementwise::state;
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PoolTaps {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub state: Signal<In, Bits<4>>,
    /// CALC waits (the OFM write port is busy): the taps it reads are kept.
    pub hold: Signal<In, Bit>,
    pub in_ifm: Signal<In, Bit>,
    pub accumulated: Signal<In, Bits<32>>,
    pub kernel_height_m1: Signal<In, Bits<16>>,
    pub kernel_width_m1: Signal<In, Bits<16>>,
    pub ky: Signal<Out, Bits<16>>,
    pub kx: Signal<Out, Bits<16>>,
    pub acc: Signal<Out, Bits<32>>,
    pub count: Signal<Out, Bits<17>>,
    pub last: Signal<Out, Bit>,
    ky_reg: Reg<Bits<16>>,
    kx_reg: Reg<Bits<16>>,
    acc_reg: Reg<Bits<32>>,
    count_reg: Reg<Bits<17>>,
    in_taps: Signal<Local, Bit>,
    s_read_a: Constant<Bits<4>>,
    s_wait_a: Constant<Bits<4>>,
    s_pool_tap: Constant<Bits<4>>,
    s_pool_next: Constant<Bits<4>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero17: Constant<Bits<17>>,
    one17: Constant<Bits<17>>,
    zero32: Constant<Bits<32>>,
}

impl Default for PoolTaps {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            state: Default::default(),
            hold: Default::default(),
            in_ifm: Default::default(),
            accumulated: Default::default(),
            kernel_height_m1: Default::default(),
            kernel_width_m1: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            acc: Default::default(),
            count: Default::default(),
            last: Default::default(),
            ky_reg: Default::default(),
            kx_reg: Default::default(),
            acc_reg: Default::default(),
            count_reg: Default::default(),
            in_taps: Default::default(),
            s_read_a: k(state::READ_A.into()),
            s_wait_a: k(state::WAIT_A.into()),
            s_pool_tap: k(state::POOL_TAP.into()),
            s_pool_next: k(state::POOL_NEXT.into()),
            zero16: k(0),
            one16: k(1),
            zero17: k(0),
            one17: k(1),
            zero32: k(0),
        }
    }
}

impl Logic for PoolTaps {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ky_reg, kx_reg, acc_reg, count_reg);
        self.ky_reg.reset.next = self.reset.val();
        self.kx_reg.reset.next = self.reset.val();
        self.acc_reg.reset.next = self.reset.val();
        self.count_reg.reset.next = self.reset.val();
        self.ky.next = self.ky_reg.q.val();
        self.kx.next = self.kx_reg.q.val();
        self.acc.next = self.acc_reg.q.val();
        self.count.next = self.count_reg.q.val();
        self.last.next = (self.kx_reg.q.val() == self.kernel_width_m1.val()) & (self.ky_reg.q.val() == self.kernel_height_m1.val());
        self.in_taps.next = (self.state.val() == self.s_pool_tap.val())
            | (self.state.val() == self.s_pool_next.val())
            | (self.state.val() == self.s_read_a.val())
            | (self.state.val() == self.s_wait_a.val())
            | self.hold.val();
        if !self.in_taps.val() {
            self.ky_reg.d.next = self.zero16.val();
            self.kx_reg.d.next = self.zero16.val();
            self.acc_reg.d.next = self.zero32.val();
            self.count_reg.d.next = self.zero17.val();
        }
        if self.state.val() == self.s_pool_next.val() {
            // The tap just read (it is inside) counts; then the next tap, row by row (after
            // the last, the unit goes to CALC and the walk starts afresh).
            if self.in_ifm.val() {
                self.acc_reg.d.next = self.accumulated.val();
                self.count_reg.d.next = self.count_reg.q.val() + self.one17.val();
            }
            if self.kx_reg.q.val() == self.kernel_width_m1.val() {
                self.kx_reg.d.next = self.zero16.val();
                if self.ky_reg.q.val() != self.kernel_height_m1.val() {
                    self.ky_reg.d.next = self.ky_reg.q.val() + self.one16.val();
                }
            } else {
                self.kx_reg.d.next = self.kx_reg.q.val() + self.one16.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PoolTaps::default, "pool_taps");
}
