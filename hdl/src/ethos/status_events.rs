//! STATUS's next value in a cycle without a bus event (TRM register map, §3; digest
//! `shared/spec/ethos-u65.md` §4), from registers alone: the command processor's events of
//! this cycle (`signal` with `history`, `stop`, `parse_error`, `at_end`, `kernel_failed` with
//! `kernel_error`, all from its registers) and the clear after reset. A sub-block of
//! [`super::register_port::RegisterPort`], which takes `quiet_next` unless an APB access
//! (`apb_sel`) or a memory-port response's error (the fetch's, the DMA's read or write) is
//! seen this cycle, and then computes STATUS in full as before. Those inputs are the top's,
//! so Verilator runs whatever reads them in its input region (twice a cycle, and once more
//! after the edge); from registers alone, this block runs once a cycle (docs/ethos.md,
//! "Verilated speed", NPU step 5). The same bits as the port's full computation with no bus
//! event; the model is the port's (`model/src/ethos/register_port.rs`).
use super::register_port::status;
use crate::primitives::constant as k;
use crate::primitives::{Concat, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StatusEvents {
    pub status: Signal<In, Bits<32>>,
    pub clear_count: Signal<In, Bits<7>>,
    pub signal: Signal<In, Bit>,
    pub history: Signal<In, Bits<16>>,
    pub stop: Signal<In, Bit>,
    pub parse_error: Signal<In, Bit>,
    pub at_end: Signal<In, Bit>,
    pub kernel_failed: Signal<In, Bit>,
    pub kernel_error: Signal<In, Bits<4>>,
    pub quiet_next: Signal<Out, Bits<32>>,
    /// The bits the command processor's events set (signal, parse error, end), and those a
    /// failed kernel adds: the port's full computation starts from them (its responses' errors
    /// override the first, the kernel's bits are added after), so they are written once.
    pub event_mask: Signal<Out, Bits<32>>,
    pub kernel_mask: Signal<Out, Bits<32>>,
    history32: Concat<16, 16, 32>,
    channel32: ZeroExtend<4, 32>,
    in_running: Signal<Local, Bit>,
    in_clear: Signal<Local, Bit>,
    set_mask: Signal<Local, Bits<32>>,
    run_next: Signal<Local, Bit>,
    reset_next: Signal<Local, Bit>,
    state_bits: Signal<Local, Bits<32>>,
    zero16: Constant<Bits<16>>,
    zero32: Constant<Bits<32>>,
    last_clear: Constant<Bits<7>>,
    s_irq: Constant<Bits<32>>,
    s_bus: Constant<Bits<32>>,
    s_parse: Constant<Bits<32>>,
    s_end: Constant<Bits<32>>,
    s_state_bits: Constant<Bits<32>>,
    s_running: Constant<Bits<32>>,
    s_resetting: Constant<Bits<32>>,
    channel_shift: Constant<Bits<32>>,
    k_unsupported: Constant<Bits<4>>,
}

impl Default for StatusEvents {
    fn default() -> Self {
        Self {
            status: Default::default(),
            clear_count: Default::default(),
            signal: Default::default(),
            history: Default::default(),
            stop: Default::default(),
            parse_error: Default::default(),
            at_end: Default::default(),
            kernel_failed: Default::default(),
            kernel_error: Default::default(),
            quiet_next: Default::default(),
            event_mask: Default::default(),
            kernel_mask: Default::default(),
            history32: Default::default(),
            channel32: Default::default(),
            in_running: Default::default(),
            in_clear: Default::default(),
            set_mask: Default::default(),
            run_next: Default::default(),
            reset_next: Default::default(),
            state_bits: Default::default(),
            zero16: k(0),
            zero32: k(0),
            last_clear: k(super::command_front_end::CLEAR_CYCLES as u64 - 1),
            s_irq: k(u64::from(status::IRQ_RAISED)),
            s_bus: k(u64::from(status::BUS_STATUS)),
            s_parse: k(u64::from(status::CMD_PARSE_ERROR)),
            s_end: k(u64::from(status::CMD_END_REACHED)),
            s_state_bits: k(u64::from(status::RUNNING | status::RESET_STATUS)),
            s_running: k(u64::from(status::RUNNING)),
            s_resetting: k(u64::from(status::RESET_STATUS)),
            channel_shift: k(u64::from(status::FAULTING_CHANNEL_SHIFT)),
            k_unsupported: k(u64::from(super::elementwise::ERROR_UNSUPPORTED)),
        }
    }
}

impl Logic for StatusEvents {
    #[hdl_gen]
    fn update(&mut self) {
        // The port's STATUS update with no CMD or Q write (no clear mask, no start) and no
        // bus error: the same sets, in the same order.
        self.in_running.next = (self.status.val() & self.s_running.val()) != self.zero32.val();
        self.in_clear.next = (self.status.val() & self.s_resetting.val()) != self.zero32.val();
        self.history32.high.next = self.history.val();
        self.history32.low.next = self.zero16.val();
        self.channel32.narrow.next = self.kernel_error.val();
        self.event_mask.next = self.zero32.val();
        if self.signal.val() {
            self.event_mask.next = self.history32.joined.val() | self.s_irq.val();
        }
        if self.parse_error.val() {
            self.event_mask.next = self.s_parse.val() | self.s_irq.val();
        }
        if self.in_running.val() & self.at_end.val() {
            self.event_mask.next = self.s_end.val() | self.s_irq.val();
        }
        self.kernel_mask.next = self.zero32.val();
        if self.kernel_failed.val() {
            self.kernel_mask.next = self.s_bus.val() | self.s_irq.val() | (self.channel32.wide.val() << self.channel_shift.val());
            if self.kernel_error.val() == self.k_unsupported.val() {
                self.kernel_mask.next = self.s_parse.val() | self.s_irq.val();
            }
        }
        self.set_mask.next = self.event_mask.val() | self.kernel_mask.val();
        self.run_next.next = self.in_running.val() & !(self.stop.val() | self.parse_error.val() | self.at_end.val() | self.kernel_failed.val());
        self.reset_next.next = self.in_clear.val() & (self.clear_count.val() != self.last_clear.val());
        self.state_bits.next = self.zero32.val();
        if self.run_next.val() {
            self.state_bits.next = self.s_running.val();
        }
        if self.reset_next.val() {
            self.state_bits.next = self.s_resetting.val();
        }
        self.quiet_next.next = ((self.status.val() | self.set_mask.val()) & !self.s_state_bits.val()) | self.state_bits.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(StatusEvents::default, "status_events");
}
