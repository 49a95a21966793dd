//! The command front end's APB register port (TRM register map, §3; digest
//! `shared/spec/ethos-u65.md` §4): ID, STATUS, CMD, QBASE0/1, QREAD (read only, the command
//! processor's), QSIZE, CONFIG and BASEP0..15, the STATUS bits and IRQ, and the clear of the
//! register file and BASEPs after reset (STATUS.reset_status). A sub-block of
//! [`super::CommandFrontEnd`], whose documentation states the APB timing and the decisions kept
//! here; the model is `model/src/ethos/register_port.rs`.
//!
//! Ports. The APB slave's (`apb_*`, `irq`) are the front end's. `running` and `clearing` are
//! STATUS.state; `qbase0`, `qbase1`, `qsize` the queue registers; `start` a CMD write with
//! transition_to_running accepted this cycle (it restarts the stream at QREAD = 0).
//! `clear_index` walks the register-file entries while `clearing`. `basep_write_*`: the BASEP
//! writes (an APB write or the clear), for the copies the DMA and the debug port read. The
//! inputs `signal` (with the command's parameter, `history`), `stop`, `parse_error`, `at_end`,
//! `fetch_error`, `dma_read_error`, `dma_write_error` and `kernel_failed` (with
//! `kernel_error`) are what happened this cycle; STATUS takes them at the edge.
//!
//! Every output that another sub-block reads is a register, or logic on registers and the
//! front end's own inputs, computed apart from the statements that read this cycle's events:
//! Verilator splits an `always` block only into statements that share no signal written in
//! it, so `start` is computed twice (the output and `starting`, which STATUS reads), or the
//! command processor, which reads `start` where it computes its events, and this block would
//! be one loop for Verilator (UNOPTFLAT).
//!
//! Verilated speed (docs/ethos.md, NPU step 5): the APB and the memory port's responses are
//! the top's inputs, so everything in this block runs in Verilator's input region, twice a
//! cycle and once more after the edge. The APB's decode is under `apb_sel`, and STATUS's next
//! value in a cycle without an access or a response's error comes from
//! [`super::status_events::StatusEvents`], from registers alone; the full update below runs
//! only in a cycle with such an event. Same bits in every cycle.
use crate::primitives::constant as k;
use crate::primitives::{Ram, Reg, ZeroExtend};
use super::status_events::StatusEvents;
use rust_hdl::prelude::*;

/// ID register value (digest §4: Ethos-U65 r0p0, architecture 1.0.6).
pub const ID: u32 = 0x1006_6001;
/// CONFIG register value of ethos-u65-256 (digest §4: 48 KB SHRAM, 2^8 MACs a cycle).
pub const CONFIG: u32 = 0x1000_3008;
/// CMD's reset value (clock and power Q-channels enabled).
pub const CMD_RESET: u32 = 0xC;

/// APB offsets (digest §4).
pub mod offset {
    pub const ID: u32 = 0x000;
    pub const STATUS: u32 = 0x004;
    pub const CMD: u32 = 0x008;
    pub const QBASE0: u32 = 0x010;
    pub const QBASE1: u32 = 0x014;
    pub const QREAD: u32 = 0x018;
    pub const QSIZE: u32 = 0x020;
    pub const CONFIG: u32 = 0x028;
    pub const BASEP0: u32 = 0x080;
}

/// STATUS bits (digest §4).
pub mod status {
    pub const RUNNING: u32 = 1 << 0;
    pub const IRQ_RAISED: u32 = 1 << 1;
    pub const BUS_STATUS: u32 = 1 << 2;
    pub const RESET_STATUS: u32 = 1 << 3;
    pub const CMD_PARSE_ERROR: u32 = 1 << 4;
    pub const CMD_END_REACHED: u32 = 1 << 5;
    pub const FAULTING_CHANNEL_SHIFT: u32 = 12;
    pub const IRQ_HISTORY_SHIFT: u32 = 16;
}

/// faulting_channel of a DMA read and write error (digest §4: mem2mem read 4, write 9).
pub const DMA_READ_CHANNEL: u32 = 4;
pub const DMA_WRITE_CHANNEL: u32 = 9;

/// QBASE0 and QSIZE bits kept (see the front end's decisions).
pub const QBASE0_MASK: u32 = 0xffff_fffc;
pub const QSIZE_MASK: u32 = 0x01ff_fffc;

#[derive(LogicBlock)]
pub struct RegisterPort {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub apb_sel: Signal<In, Bit>,
    pub apb_enable: Signal<In, Bit>,
    pub apb_write: Signal<In, Bit>,
    pub apb_addr: Signal<In, Bits<12>>,
    pub apb_wdata: Signal<In, Bits<32>>,
    pub dma_idle: Signal<In, Bit>,
    pub qread: Signal<In, Bits<32>>,
    pub signal: Signal<In, Bit>,
    pub history: Signal<In, Bits<16>>,
    pub stop: Signal<In, Bit>,
    pub parse_error: Signal<In, Bit>,
    pub at_end: Signal<In, Bit>,
    pub fetch_error: Signal<In, Bit>,
    pub dma_read_error: Signal<In, Bit>,
    pub dma_write_error: Signal<In, Bit>,
    pub kernel_failed: Signal<In, Bit>,
    pub kernel_error: Signal<In, Bits<4>>,
    pub apb_rdata: Signal<Out, Bits<32>>,
    pub irq: Signal<Out, Bit>,
    pub running: Signal<Out, Bit>,
    pub clearing: Signal<Out, Bit>,
    pub start: Signal<Out, Bit>,
    pub qbase0: Signal<Out, Bits<32>>,
    pub qbase1: Signal<Out, Bits<8>>,
    pub qsize: Signal<Out, Bits<32>>,
    pub clear_index: Signal<Out, Bits<7>>,
    pub basep_write_enable: Signal<Out, Bit>,
    pub basep_write_address: Signal<Out, Bits<4>>,
    pub basep_write_data: Signal<Out, Bits<32>>,
    basep: Ram<32, 4>,
    status: Reg<Bits<32>>,
    clear_count: Reg<Bits<7>>,
    cmd: Reg<Bits<32>>,
    qbase0_reg: Reg<Bits<32>>,
    qbase1_reg: Reg<Bits<8>>,
    qsize_reg: Reg<Bits<32>>,
    rdata: Reg<Bits<32>>,
    rd_basep: Reg<Bit>,
    events: StatusEvents,
    bus_event: Signal<Local, Bit>,
    qbase1_32: ZeroExtend<8, 32>,
    in_running: Signal<Local, Bit>,
    in_clear: Signal<Local, Bit>,
    apb_wr: Signal<Local, Bit>,
    apb_rd: Signal<Local, Bit>,
    basep_hit: Signal<Local, Bit>,
    starting: Signal<Local, Bit>,
    read_value: Signal<Local, Bits<32>>,
    clear_mask: Signal<Local, Bits<32>>,
    set_mask: Signal<Local, Bits<32>>,
    run_next: Signal<Local, Bit>,
    reset_next: Signal<Local, Bit>,
    state_bits: Signal<Local, Bits<32>>,
    k_id: Constant<Bits<32>>,
    k_config: Constant<Bits<32>>,
    o_id: Constant<Bits<12>>,
    o_status: Constant<Bits<12>>,
    o_cmd: Constant<Bits<12>>,
    o_qbase0: Constant<Bits<12>>,
    o_qbase1: Constant<Bits<12>>,
    o_qread: Constant<Bits<12>>,
    o_qsize: Constant<Bits<12>>,
    o_config: Constant<Bits<12>>,
    basep_high: Constant<Bits<6>>,
    zero2: Constant<Bits<2>>,
    zero32: Constant<Bits<32>>,
    qbase0_mask: Constant<Bits<32>>,
    qsize_mask: Constant<Bits<32>>,
    last_clear: Constant<Bits<7>>,
    one7: Constant<Bits<7>>,
    s_irq: Constant<Bits<32>>,
    s_bus: Constant<Bits<32>>,
    s_parse: Constant<Bits<32>>,
    s_end: Constant<Bits<32>>,
    s_history: Constant<Bits<32>>,
    s_state_bits: Constant<Bits<32>>,
    s_running: Constant<Bits<32>>,
    s_resetting: Constant<Bits<32>>,
    ch_dma_read: Constant<Bits<32>>,
    ch_dma_write: Constant<Bits<32>>,
}

impl Default for RegisterPort {
    fn default() -> Self {
        assert_eq!(super::command_front_end::CLEAR_CYCLES, 1 << 7, "the clear counter walks every register-file entry");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            apb_sel: Default::default(),
            apb_enable: Default::default(),
            apb_write: Default::default(),
            apb_addr: Default::default(),
            apb_wdata: Default::default(),
            dma_idle: Default::default(),
            qread: Default::default(),
            signal: Default::default(),
            history: Default::default(),
            stop: Default::default(),
            parse_error: Default::default(),
            at_end: Default::default(),
            fetch_error: Default::default(),
            dma_read_error: Default::default(),
            dma_write_error: Default::default(),
            kernel_failed: Default::default(),
            kernel_error: Default::default(),
            apb_rdata: Default::default(),
            irq: Default::default(),
            running: Default::default(),
            clearing: Default::default(),
            start: Default::default(),
            qbase0: Default::default(),
            qbase1: Default::default(),
            qsize: Default::default(),
            clear_index: Default::default(),
            basep_write_enable: Default::default(),
            basep_write_address: Default::default(),
            basep_write_data: Default::default(),
            basep: Default::default(),
            status: Reg::new(u64::from(status::RESET_STATUS).into()),
            clear_count: Default::default(),
            cmd: Reg::new(u64::from(CMD_RESET).into()),
            qbase0_reg: Default::default(),
            qbase1_reg: Default::default(),
            qsize_reg: Default::default(),
            rdata: Default::default(),
            rd_basep: Default::default(),
            events: Default::default(),
            bus_event: Default::default(),
            qbase1_32: Default::default(),
            in_running: Default::default(),
            in_clear: Default::default(),
            apb_wr: Default::default(),
            apb_rd: Default::default(),
            basep_hit: Default::default(),
            starting: Default::default(),
            read_value: Default::default(),
            clear_mask: Default::default(),
            set_mask: Default::default(),
            run_next: Default::default(),
            reset_next: Default::default(),
            state_bits: Default::default(),
            k_id: k(u64::from(ID)),
            k_config: k(u64::from(CONFIG)),
            o_id: k(u64::from(offset::ID)),
            o_status: k(u64::from(offset::STATUS)),
            o_cmd: k(u64::from(offset::CMD)),
            o_qbase0: k(u64::from(offset::QBASE0)),
            o_qbase1: k(u64::from(offset::QBASE1)),
            o_qread: k(u64::from(offset::QREAD)),
            o_qsize: k(u64::from(offset::QSIZE)),
            o_config: k(u64::from(offset::CONFIG)),
            basep_high: k(u64::from(offset::BASEP0 >> 6)),
            zero2: k(0),
            zero32: k(0),
            qbase0_mask: k(u64::from(QBASE0_MASK)),
            qsize_mask: k(u64::from(QSIZE_MASK)),
            last_clear: k(super::command_front_end::CLEAR_CYCLES as u64 - 1),
            one7: k(1),
            s_irq: k(u64::from(status::IRQ_RAISED)),
            s_bus: k(u64::from(status::BUS_STATUS)),
            s_parse: k(u64::from(status::CMD_PARSE_ERROR)),
            s_end: k(u64::from(status::CMD_END_REACHED)),
            s_history: k(0xffff_0000),
            s_state_bits: k(u64::from(status::RUNNING | status::RESET_STATUS)),
            s_running: k(u64::from(status::RUNNING)),
            s_resetting: k(u64::from(status::RESET_STATUS)),
            ch_dma_read: k(u64::from(DMA_READ_CHANNEL << status::FAULTING_CHANNEL_SHIFT)),
            ch_dma_write: k(u64::from(DMA_WRITE_CHANNEL << status::FAULTING_CHANNEL_SHIFT)),
        }
    }
}

impl Logic for RegisterPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, status, clear_count, cmd, qbase0_reg, qbase1_reg, qsize_reg, rdata, rd_basep);
        self.status.reset.next = self.reset.val();
        self.clear_count.reset.next = self.reset.val();
        self.cmd.reset.next = self.reset.val();
        self.qbase0_reg.reset.next = self.reset.val();
        self.qbase1_reg.reset.next = self.reset.val();
        self.qsize_reg.reset.next = self.reset.val();
        self.rdata.reset.next = self.reset.val();
        self.rd_basep.reset.next = self.reset.val();
        self.basep.clock.next = self.clock.val();
        self.basep.reset.next = self.reset.val();

        // What the other sub-blocks read: registers, and `start` from the inputs, each in a
        // statement of its own (see the module's documentation).
        self.running.next = (self.status.q.val() & self.s_running.val()) != self.zero32.val();
        self.clearing.next = (self.status.q.val() & self.s_resetting.val()) != self.zero32.val();
        self.qbase0.next = self.qbase0_reg.q.val();
        self.qbase1.next = self.qbase1_reg.q.val();
        self.qsize.next = self.qsize_reg.q.val();
        self.clear_index.next = self.clear_count.q.val();
        self.start.next = false;
        if self.apb_sel.val() {
            self.start.next = self.apb_enable.val()
                & self.apb_write.val()
                & (self.apb_addr.val() == self.o_cmd.val())
                & self.apb_wdata.val().get_bit(0)
                & self.dma_idle.val()
                & ((self.status.q.val() & (self.s_state_bits.val() | self.s_bus.val() | self.s_parse.val())) == self.zero32.val());
        }

        self.in_running.next = (self.status.q.val() & self.s_running.val()) != self.zero32.val();
        self.in_clear.next = (self.status.q.val() & self.s_resetting.val()) != self.zero32.val();
        if self.in_clear.val() {
            self.clear_count.d.next = self.clear_count.q.val() + self.one7.val();
        }

        // APB: a write in its access phase, a read sampled in its setup phase. All of it under
        // `apb_sel`, so that Verilator's input region (the APB is the top's) only tests it in
        // the cycles without an access (docs/ethos.md, "Verilated speed", NPU step 5); the
        // BASEP port's address and data matter only with its enable.
        self.apb_wr.next = false;
        self.apb_rd.next = false;
        self.basep_hit.next = false;
        self.starting.next = false;
        self.basep.write_enable.next = false;
        self.basep.write_address.next = self.clear_count.q.val().get_bits::<4>(0);
        self.basep.write_data.next = self.zero32.val();
        self.basep.read_enable.next = false;
        self.basep.read_address.next = self.clear_count.q.val().get_bits::<4>(0);
        self.read_value.next = self.zero32.val();
        if self.apb_sel.val() {
            self.apb_wr.next = self.apb_enable.val() & self.apb_write.val();
            self.apb_rd.next = !self.apb_enable.val() & !self.apb_write.val();
            self.basep_hit.next =
                (self.apb_addr.val().get_bits::<6>(6) == self.basep_high.val()) & (self.apb_addr.val().get_bits::<2>(0) == self.zero2.val());
            if self.apb_wr.val() {
                if self.apb_addr.val() == self.o_cmd.val() {
                    self.cmd.d.next = self.apb_wdata.val();
                    self.starting.next = self.apb_wdata.val().get_bit(0)
                        & self.dma_idle.val()
                        & ((self.status.q.val() & (self.s_state_bits.val() | self.s_bus.val() | self.s_parse.val()))
                            == self.zero32.val());
                }
                if self.apb_addr.val() == self.o_qbase0.val() {
                    self.qbase0_reg.d.next = self.apb_wdata.val() & self.qbase0_mask.val();
                }
                if self.apb_addr.val() == self.o_qbase1.val() {
                    self.qbase1_reg.d.next = self.apb_wdata.val().get_bits::<8>(0);
                }
                if self.apb_addr.val() == self.o_qsize.val() {
                    self.qsize_reg.d.next = self.apb_wdata.val() & self.qsize_mask.val();
                }
                // BASEPs: written by the APB, cleared after reset (below).
                self.basep.write_enable.next = self.basep_hit.val();
                self.basep.write_address.next = self.apb_addr.val().get_bits::<4>(2);
                self.basep.write_data.next = self.apb_wdata.val();
            }
            // The read's value only in a read's setup phase, the only cycle that takes it.
            if self.apb_rd.val() {
                self.basep.read_enable.next = !self.in_clear.val();
                self.basep.read_address.next = self.apb_addr.val().get_bits::<4>(2);
                if self.apb_addr.val() == self.o_id.val() {
                    self.read_value.next = self.k_id.val();
                }
                if self.apb_addr.val() == self.o_status.val() {
                    self.read_value.next = self.status.q.val();
                }
                if self.apb_addr.val() == self.o_cmd.val() {
                    self.read_value.next = self.cmd.q.val();
                }
                if self.apb_addr.val() == self.o_qbase0.val() {
                    self.read_value.next = self.qbase0_reg.q.val();
                }
                if self.apb_addr.val() == self.o_qbase1.val() {
                    self.read_value.next = self.qbase1_32.wide.val();
                }
                if self.apb_addr.val() == self.o_qread.val() {
                    self.read_value.next = self.qread.val();
                }
                if self.apb_addr.val() == self.o_qsize.val() {
                    self.read_value.next = self.qsize_reg.q.val();
                }
                if self.apb_addr.val() == self.o_config.val() {
                    self.read_value.next = self.k_config.val();
                }
                self.rdata.d.next = self.read_value.val();
                self.rd_basep.d.next = self.basep_hit.val();
            }
        }
        if self.in_clear.val() {
            self.basep.write_enable.next = true;
            self.basep.write_address.next = self.clear_count.q.val().get_bits::<4>(0);
            self.basep.write_data.next = self.zero32.val();
        }
        self.basep_write_enable.next = self.basep.write_enable.val();
        self.basep_write_address.next = self.basep.write_address.val();
        self.basep_write_data.next = self.basep.write_data.val();
        self.qbase1_32.narrow.next = self.qbase1_reg.q.val();
        self.apb_rdata.next = self.rdata.q.val();
        if self.rd_basep.q.val() {
            self.apb_rdata.next = self.basep.read_data.val();
        }

        // STATUS: `events` (status_events.rs) computes it from the registers in a cycle without
        // a bus event; with an APB access or a response's error this cycle, in full here:
        // clears from CMD and Q writes, then what happened this cycle sets bits.
        self.events.status.next = self.status.q.val();
        self.events.clear_count.next = self.clear_count.q.val();
        self.events.signal.next = self.signal.val();
        self.events.history.next = self.history.val();
        self.events.stop.next = self.stop.val();
        self.events.parse_error.next = self.parse_error.val();
        self.events.at_end.next = self.at_end.val();
        self.events.kernel_failed.next = self.kernel_failed.val();
        self.events.kernel_error.next = self.kernel_error.val();
        self.bus_event.next = self.apb_sel.val() | self.fetch_error.val() | self.dma_read_error.val() | self.dma_write_error.val();
        self.status.d.next = self.events.quiet_next.val();
        self.clear_mask.next = self.zero32.val();
        self.set_mask.next = self.zero32.val();
        self.run_next.next = false;
        self.reset_next.next = false;
        self.state_bits.next = self.zero32.val();
        if self.bus_event.val() {
            if self.apb_wr.val() & (self.apb_addr.val() == self.o_cmd.val()) {
                self.clear_mask.next = self.apb_wdata.val() & self.s_history.val();
                if self.apb_wdata.val().get_bit(1) {
                    self.clear_mask.next = (self.apb_wdata.val() & self.s_history.val()) | self.s_irq.val();
                }
            }
            if self.apb_wr.val()
                & ((self.apb_addr.val() == self.o_qbase0.val())
                    | (self.apb_addr.val() == self.o_qbase1.val())
                    | (self.apb_addr.val() == self.o_qsize.val()))
                & !self.in_running.val()
            {
                self.clear_mask.next = self.s_end.val();
            }
            // The events' bits (`status_events.rs`); a response's error overrides them, a
            // failed kernel's bits are added.
            self.set_mask.next = self.events.event_mask.val();
            if self.fetch_error.val() {
                self.set_mask.next = self.s_bus.val() | self.s_irq.val();
            }
            if self.dma_read_error.val() {
                self.set_mask.next = self.s_bus.val() | self.s_irq.val() | self.ch_dma_read.val();
            }
            if self.dma_write_error.val() {
                self.set_mask.next = self.s_bus.val() | self.s_irq.val() | self.ch_dma_write.val();
            }
            self.set_mask.next = self.set_mask.val() | self.events.kernel_mask.val();
            self.run_next.next = self.in_running.val();
            if self.stop.val()
                | self.parse_error.val()
                | self.at_end.val()
                | self.fetch_error.val()
                | self.dma_read_error.val()
                | self.dma_write_error.val()
                | self.kernel_failed.val()
            {
                self.run_next.next = false;
            }
            if self.starting.val() {
                self.run_next.next = true;
            }
            self.reset_next.next = self.in_clear.val() & (self.clear_count.q.val() != self.last_clear.val());
            if self.run_next.val() {
                self.state_bits.next = self.s_running.val();
            }
            if self.reset_next.val() {
                self.state_bits.next = self.s_resetting.val();
            }
            self.status.d.next = (((self.status.q.val() & !self.clear_mask.val()) | self.set_mask.val())
                & !self.s_state_bits.val())
                | self.state_bits.val();
        }
        self.irq.next = (self.status.q.val() & self.s_irq.val()) != self.zero32.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(RegisterPort::default, "register_port");
}
