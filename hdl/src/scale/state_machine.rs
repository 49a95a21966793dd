//! ScaleNPU's engine state machine, a sub-block of the layer engine (`engine.rs`): the state,
//! the exit code and the stop registers, the next state, the stop causes, and what entering a
//! state sets up (the phase request generator's start and first address, the look-ahead's
//! release). The decode of its registers is `state_decode.rs`. The model
//! (`model/src/scale/engine/state_machine.rs`) has the states' decisions; docs/scale.md the
//! timing.
//!
//! Why a block of its own: the engine was 740 lines. Its outputs `state`, `stop` and `code`
//! are its registers, each assigned alone, so that Verilator splits them from the next-state
//! logic, which reads the engine's decisions (docs/scale.md, the rule below the sub-block
//! table); the others go to other sub-blocks' inputs only.
use super::regmap::{EXIT_CPU_ERR, EXIT_MEM_ERR, EXIT_SUCCESS, EXIT_UNUSED};
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// The state codes (the model's `State`, in its order; 10 is not used), decoded by
/// `state_decode.rs`.
pub(super) const IDLE: u64 = 0;
pub(super) const CHECK: u64 = 1;
pub(super) const PLAN: u64 = 2;
pub(super) const NSTART: u64 = 3;
pub(super) const BIAS: u64 = 4;
pub(super) const SUMS: u64 = 5;
pub(super) const KSTART: u64 = 6;
pub(super) const WLOAD: u64 = 7;
pub(super) const STREAM: u64 = 8;
pub(super) const DRAIN: u64 = 9;
pub(super) const NEXTN: u64 = 11;
pub(super) const FLUSH: u64 = 12;
pub(super) const DONE: u64 = 13;

#[derive(LogicBlock)]
pub struct StateMachine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub write_while_busy: Signal<In, Bit>,
    pub usebias: Signal<In, Bit>,
    pub usesumm: Signal<In, Bit>,
    pub reweights: Signal<In, Bit>,
    /// The tile sequencer's: PLAN's verdicts, the walk, whether a look-ahead target exists,
    /// the phases' first addresses.
    pub cpu_err: Signal<In, Bit>,
    pub mem_err: Signal<In, Bit>,
    pub more_k: Signal<In, Bit>,
    pub more_n: Signal<In, Bit>,
    pub tiles_ahead: Signal<In, Bit>,
    pub b_ptr: Signal<In, Bits<32>>,
    pub s_ptr: Signal<In, Bits<32>>,
    pub w_kt_ptr: Signal<In, Bits<32>>,
    pub x_kt_ptr: Signal<In, Bits<32>>,
    /// The phase request generator's responses outstanding and request held.
    pub outstanding: Signal<In, Bits<9>>,
    pub req_held: Signal<In, Bit>,
    /// The look-ahead: loaded, a request held, reads outstanding.
    pub ahead_ready: Signal<In, Bit>,
    pub ahead_held: Signal<In, Bit>,
    pub ahead_pending: Signal<In, Bit>,
    /// The weight loader's other bank has no row left in the array.
    pub other_free: Signal<In, Bit>,
    /// The array: rows in it, rows of a first K tile in it.
    pub array_active: Signal<In, Bit>,
    pub first_active: Signal<In, Bit>,
    /// The output writer: idle, a write held, writes outstanding; a word loaded to be written.
    pub writer_idle: Signal<In, Bit>,
    pub writer_held: Signal<In, Bit>,
    pub writer_pending: Signal<In, Bit>,
    pub loaded: Signal<In, Bit>,
    /// The engine's decisions: STREAM reads X on chip; an error response; STREAM's next K tile
    /// on chip starts; a K tile takes the weights loaded ahead.
    pub stream_on_chip: Signal<In, Bit>,
    pub mem_error: Signal<In, Bit>,
    pub restart: Signal<In, Bit>,
    pub take_ahead: Signal<In, Bit>,

    /// The state decode (`state_decode.rs`) of this block's registers: the state, a layer
    /// running, a stop acting now, the phase's requests all answered.
    pub in_idle: Signal<In, Bit>,
    pub in_check: Signal<In, Bit>,
    pub in_plan: Signal<In, Bit>,
    pub in_nstart: Signal<In, Bit>,
    pub in_bias: Signal<In, Bit>,
    pub in_sums: Signal<In, Bit>,
    pub in_kstart: Signal<In, Bit>,
    pub in_wload: Signal<In, Bit>,
    pub in_stream: Signal<In, Bit>,
    pub in_drain: Signal<In, Bit>,
    pub in_nextn: Signal<In, Bit>,
    pub in_flush: Signal<In, Bit>,
    pub in_done: Signal<In, Bit>,
    pub running: Signal<In, Bit>,
    pub stopping: Signal<In, Bit>,
    pub phase_done: Signal<In, Bit>,

    /// The registers: state, stop seen, exit code.
    pub state_out: Signal<Out, Bits<4>>,
    pub stop: Signal<Out, Bit>,
    pub code_out: Signal<Out, Bits<2>>,
    /// Entering a state: the phase request generator clears its counts, loads its address.
    pub req_clear: Signal<Out, Bit>,
    pub req_load: Signal<Out, Bit>,
    pub first_addr: Signal<Out, Bits<32>>,
    /// The look-ahead is free for the next load.
    pub ahead_free: Signal<Out, Bit>,

    state: Reg<Bits<4>>,
    code: Reg<Bits<2>>,
    stop_r: Reg<Bit>,
    stop_code: Reg<Bits<2>>,
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
    c_unused: Constant<Bits<2>>,
    c_success: Constant<Bits<2>>,
    c_mem_err: Constant<Bits<2>>,
    c_cpu_err: Constant<Bits<2>>,
    zero9: Constant<Bits<9>>,
    next: Signal<Local, Bits<4>>,
}

impl Default for StateMachine {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            write_while_busy: Default::default(),
            usebias: Default::default(),
            usesumm: Default::default(),
            reweights: Default::default(),
            cpu_err: Default::default(),
            mem_err: Default::default(),
            more_k: Default::default(),
            more_n: Default::default(),
            tiles_ahead: Default::default(),
            b_ptr: Default::default(),
            s_ptr: Default::default(),
            w_kt_ptr: Default::default(),
            x_kt_ptr: Default::default(),
            outstanding: Default::default(),
            req_held: Default::default(),
            ahead_ready: Default::default(),
            ahead_held: Default::default(),
            ahead_pending: Default::default(),
            other_free: Default::default(),
            array_active: Default::default(),
            first_active: Default::default(),
            writer_idle: Default::default(),
            writer_held: Default::default(),
            writer_pending: Default::default(),
            loaded: Default::default(),
            stream_on_chip: Default::default(),
            mem_error: Default::default(),
            restart: Default::default(),
            take_ahead: Default::default(),
            in_idle: Default::default(),
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
            stopping: Default::default(),
            phase_done: Default::default(),
            state_out: Default::default(),
            stop: Default::default(),
            code_out: Default::default(),
            running: Default::default(),
            req_clear: Default::default(),
            req_load: Default::default(),
            first_addr: Default::default(),
            ahead_free: Default::default(),
            state: Default::default(),
            code: Default::default(),
            stop_r: Default::default(),
            stop_code: Default::default(),
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
            c_unused: k(EXIT_UNUSED.into()),
            c_success: k(EXIT_SUCCESS.into()),
            c_mem_err: k(EXIT_MEM_ERR.into()),
            c_cpu_err: k(EXIT_CPU_ERR.into()),
            zero9: k(0),
            next: Default::default(),
        }
    }
}

impl Logic for StateMachine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, code, stop_r, stop_code);
        self.state.reset.next = self.reset.val();
        self.code.reset.next = self.reset.val();
        self.stop_r.reset.next = self.reset.val();
        self.stop_code.reset.next = self.reset.val();
        // The registers, each alone (see the module's comment).
        self.state_out.next = self.state.q.val();
        self.stop.next = self.stop_r.q.val();
        self.code_out.next = self.code.q.val();

        // Next state.
        self.next.next = self.state.q.val();
        if self.stopping.val() {
            self.next.next = self.s_flush.val();
        } else if self.in_idle.val() {
            if self.start.val() {
                self.next.next = self.s_check.val();
            }
        } else if self.in_check.val() {
            self.next.next = self.s_plan.val();
        } else if self.in_plan.val() {
            if self.cpu_err.val() {
                self.code.d.next = self.c_cpu_err.val();
                self.next.next = self.s_done.val();
            } else if self.mem_err.val() {
                self.code.d.next = self.c_mem_err.val();
                self.next.next = self.s_done.val();
            } else {
                self.next.next = self.s_nstart.val();
            }
        } else if self.in_nstart.val() {
            if self.usebias.val() {
                self.next.next = self.s_bias.val();
            } else if self.usesumm.val() {
                self.next.next = self.s_sums.val();
            } else {
                self.next.next = self.s_kstart.val();
            }
        } else if self.in_bias.val() {
            if self.phase_done.val() {
                if self.usesumm.val() {
                    self.next.next = self.s_sums.val();
                } else {
                    self.next.next = self.s_kstart.val();
                }
            }
        } else if self.in_sums.val() {
            if self.phase_done.val() {
                self.next.next = self.s_kstart.val();
            }
        } else if self.in_kstart.val() {
            if self.reweights.val() {
                self.next.next = self.s_stream.val();
            } else if self.ahead_ready.val() {
                // The next column tile's first K tile, its weights loaded ahead: no WLOAD.
                self.next.next = self.s_stream.val();
            } else if self.other_free.val() {
                self.next.next = self.s_wload.val();
            }
        } else if self.in_wload.val() {
            if self.phase_done.val() {
                self.next.next = self.s_stream.val();
            }
        } else if self.in_stream.val() {
            if self.phase_done.val() {
                // With another K tile, its rows follow this one's through the array: at once if
                // X is on chip (its weights loaded ahead: the engine's `restart`; until then
                // STREAM waits), else after KSTART and WLOAD.
                // After the last K tile, the next column tile's rows follow this one's through the
                // array (NEXTN); the last column tile drains.
                if self.more_k.val() {
                    if !self.stream_on_chip.val() {
                        self.next.next = self.s_kstart.val();
                    }
                } else if self.more_n.val() {
                    self.next.next = self.s_nextn.val();
                } else {
                    self.next.next = self.s_drain.val();
                }
            }
        } else if self.in_drain.val() {
            if self.array_active.val() | !self.writer_idle.val() | self.loaded.val() {
                // Wait: the last rows' results are still on their way, or words are still to be
                // written.
            } else {
                self.code.d.next = self.c_success.val();
                self.next.next = self.s_done.val();
            }
        } else if self.in_nextn.val() {
            // NSTART changes the base that rows of a first K tile still in the array would take;
            // the look-ahead load of the next column tile's first weights finishes here.
            if !self.first_active.val() & !(self.tiles_ahead.val() & !self.ahead_ready.val()) {
                self.next.next = self.s_nstart.val();
            }
        } else if self.in_flush.val() {
            if !self.req_held.val()
                & !self.ahead_held.val()
                & (self.outstanding.val() == self.zero9.val())
                & !self.ahead_pending.val()
                & !self.writer_held.val()
                & !self.writer_pending.val()
                & !self.array_active.val()
            {
                self.code.d.next = self.stop_code.q.val();
                self.next.next = self.s_done.val();
            }
        } else if self.in_done.val() {
            // What the layer leaves for the next one: the weight loader (REWEIGHTS) and the
            // result buffer (REINPUTS) take it from here.
            self.next.next = self.s_idle.val();
        }

        // Stop causes: the first one wins; an error response (on either channel) before an abort
        // in one cycle.
        if self.in_idle.val() & self.start.val() {
            self.stop_r.d.next = false;
        } else if self.running.val() & !self.stop_r.q.val() {
            if self.mem_error.val() {
                self.stop_r.d.next = true;
                self.stop_code.d.next = self.c_mem_err.val();
            } else if self.write_while_busy.val() {
                self.stop_r.d.next = true;
                self.stop_code.d.next = self.c_cpu_err.val();
            }
        }

        // Entering a state: the request generator of its phase; STREAM's next K tile on chip
        // starts its counts again (the address is not used: X is on chip).
        self.req_clear.next = (self.next.val() != self.state.q.val()) | self.restart.val();
        self.req_load.next = false;
        self.first_addr.next = self.b_ptr.val();
        if self.next.val() != self.state.q.val() {
            if self.next.val() == self.s_bias.val() {
                self.req_load.next = true;
            }
            if self.next.val() == self.s_sums.val() {
                self.req_load.next = true;
                self.first_addr.next = self.s_ptr.val();
            }
            if self.next.val() == self.s_wload.val() {
                self.req_load.next = true;
                self.first_addr.next = self.w_kt_ptr.val();
            }
            if self.next.val() == self.s_stream.val() {
                self.req_load.next = true;
                self.first_addr.next = self.x_kt_ptr.val();
            }
            if self.next.val() == self.s_check.val() {
                self.code.d.next = self.c_unused.val();
            }
        }
        self.state.d.next = self.next.val();
        // A K tile takes the weights loaded ahead, or a layer starts (a stopped one may leave a
        // look-ahead load unused): the look-ahead is free for the next one.
        self.ahead_free.next =
            self.take_ahead.val() | ((self.next.val() != self.state.q.val()) & (self.next.val() == self.s_check.val()));
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(StateMachine::default, "state_machine");
}
