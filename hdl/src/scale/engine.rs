//! ScaleNPU's layer engine: checks a layer's registers, walks its tiles, drives the memory
//! master port and the systolic array, and reports the exit code. The model
//! (`model/src/scale/engine.rs`) documents the states and changes the same registers in the
//! same cycles; docs/scale.md has the memory layout, the timing and the decisions.
//!
//! This file holds the write channel's offer and the output FIFO's reads, and wires the
//! sub-blocks: the state machine (state, exit code, stops: `state_machine.rs`; its decode and
//! the phases' request counts: `state_decode.rs`), the read channel (which request generator
//! offers, STREAM's reads on chip, whose a response is: `read_channel.rs`), the phase request
//! generator (the counts and address of the phases' reads: `phase_requests.rs`), the
//! look-ahead weight load (the second request generator, while STREAM reads X on chip, between
//! column tiles and in the last DRAIN: `look_ahead.rs`), the tile sequencer (sizes, checks,
//! tile walk and pointers: `tile_sequencer.rs`), the weight loader (the array's two weight
//! banks and REWEIGHTS: `weight_loader.rs`), the output writer (the result writes on the write
//! channel: `output_writer.rs`), the X buffer and the output FIFO (`tile_ram.rs`), the result
//! buffer and the systolic array.
use super::look_ahead::LookAhead;
use super::phase_requests::PhaseRequests;
use super::output_writer::OutputWriter;
use super::pe_column::VECTOR;
use super::read_channel::ReadChannel;
use super::state_decode::StateDecode;
use super::state_machine::StateMachine;
use super::tile_sequencer::TileSequencer;
use super::weight_loader::WeightLoader;
use super::{ResultBuffer, Systolic, TileRam, OUT_WORDS, SIZE, X_WORDS};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

const X_ADDR_BITS: usize = X_WORDS.trailing_zeros() as usize;
const OUT_ADDR_BITS: usize = OUT_WORDS.trailing_zeros() as usize;

#[derive(LogicBlock)]
pub struct Engine {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub write_while_busy: Signal<In, Bit>,
    pub inrows: Signal<In, Bits<8>>,
    pub incols: Signal<In, Bits<8>>,
    pub wghtrows: Signal<In, Bits<8>>,
    pub wghtcols: Signal<In, Bits<8>>,
    pub reinputs: Signal<In, Bit>,
    pub reweights: Signal<In, Bit>,
    pub saveout: Signal<In, Bit>,
    pub usebias: Signal<In, Bit>,
    pub usesumm: Signal<In, Bit>,
    pub shiftamt: Signal<In, Bits<8>>,
    pub actfn: Signal<In, Bit>,
    pub base: Signal<In, Bits<32>>,
    pub result: Signal<In, Bits<32>>,
    /// The memory master port (docs/scale.md, "Memory master port and the AXI4 bridge"): a
    /// read channel (the phases' and the look-ahead's reads) and a write channel (the output
    /// writer's), each answering its own requests in order.
    pub mem_rd_req_ready: Signal<In, Bit>,
    pub mem_rd_resp_valid: Signal<In, Bit>,
    pub mem_rd_resp_data: Signal<In, Bits<VECTOR>>,
    pub mem_rd_resp_error: Signal<In, Bit>,
    pub mem_wr_req_ready: Signal<In, Bit>,
    pub mem_wr_resp_valid: Signal<In, Bit>,
    pub mem_wr_resp_error: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub finish: Signal<Out, Bit>,
    pub exit_code: Signal<Out, Bits<2>>,
    pub mem_rd_req_valid: Signal<Out, Bit>,
    pub mem_rd_req_addr: Signal<Out, Bits<32>>,
    pub mem_wr_req_valid: Signal<Out, Bit>,
    pub mem_wr_req_addr: Signal<Out, Bits<32>>,
    pub mem_wr_req_wdata: Signal<Out, Bits<VECTOR>>,

    array: Systolic,
    results: ResultBuffer,
    /// The X buffer: this layer's X kept on chip for the column tiles after the first (the
    /// model's `Engine::xbuf` has the decisions).
    xbuf: TileRam<X_ADDR_BITS, X_WORDS>,
    /// The output FIFO: result words waiting to be written (SAVEOUT).
    ofifo: TileRam<OUT_ADDR_BITS, OUT_WORDS>,
    tiles: TileSequencer,
    weights: WeightLoader,
    writer: OutputWriter,
    /// The look-ahead weight load's counts and address (`look_ahead.rs`).
    ahead: LookAhead,
    /// The phase request generator's counts and address (`phase_requests.rs`).
    requests: PhaseRequests,
    /// The state, exit code and stop registers, the next state (`state_machine.rs`), and their
    /// decode (`state_decode.rs`).
    fsm: StateMachine,
    decode: StateDecode,
    /// The read channel's offer and responses (`read_channel.rs`).
    reads: ReadChannel,
    // Constants.
    zero_x: Constant<Bits<X_ADDR_BITS>>,
    zero_o: Constant<Bits<OUT_ADDR_BITS>>,
    one8: Constant<Bits<8>>,
    lane_mask8: Constant<Bits<8>>,
    // Combinational.
    /// STREAM goes on with the next K tile, its weights loaded ahead; a K tile takes them.
    restart: Signal<Local, Bit>,
    take_ahead: Signal<Local, Bit>,
    /// An error response on either channel.
    mem_error: Signal<Local, Bit>,
    /// The output writer offers a write on the write channel; it is taken; a write response.
    write_valid: Signal<Local, Bit>,
    write_accept: Signal<Local, Bit>,
    write_resp: Signal<Local, Bit>,
    /// The output FIFO: its next word to the read register; a result word into it.
    fifo_read: Signal<Local, Bit>,
    fifo_store: Signal<Local, Bit>,
    /// A word is in the output FIFO's read register, to be written (read at the last edge, or
    /// kept since).
    loaded: Signal<Local, Bit>,
}

impl Default for Engine {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            write_while_busy: Default::default(),
            inrows: Default::default(),
            incols: Default::default(),
            wghtrows: Default::default(),
            wghtcols: Default::default(),
            reinputs: Default::default(),
            reweights: Default::default(),
            saveout: Default::default(),
            usebias: Default::default(),
            usesumm: Default::default(),
            shiftamt: Default::default(),
            actfn: Default::default(),
            base: Default::default(),
            result: Default::default(),
            mem_rd_req_ready: Default::default(),
            mem_rd_resp_valid: Default::default(),
            mem_rd_resp_data: Default::default(),
            mem_rd_resp_error: Default::default(),
            mem_wr_req_ready: Default::default(),
            mem_wr_resp_valid: Default::default(),
            mem_wr_resp_error: Default::default(),
            busy: Default::default(),
            finish: Default::default(),
            exit_code: Default::default(),
            mem_rd_req_valid: Default::default(),
            mem_rd_req_addr: Default::default(),
            mem_wr_req_valid: Default::default(),
            mem_wr_req_addr: Default::default(),
            mem_wr_req_wdata: Default::default(),
            array: Default::default(),
            results: Default::default(),
            xbuf: Default::default(),
            ofifo: Default::default(),
            tiles: Default::default(),
            weights: Default::default(),
            writer: Default::default(),
            ahead: Default::default(),
            requests: Default::default(),
            fsm: Default::default(),
            decode: Default::default(),
            reads: Default::default(),
            zero_x: k(0),
            zero_o: k(0),
            one8: k(1),
            lane_mask8: k(SIZE as u64 - 1),
            restart: Default::default(),
            take_ahead: Default::default(),
            mem_error: Default::default(),
            write_valid: Default::default(),
            write_accept: Default::default(),
            write_resp: Default::default(),
            fifo_read: Default::default(),
            fifo_store: Default::default(),
            loaded: Default::default(),
        }
    }
}

impl Logic for Engine {
    #[hdl_gen]
    fn update(&mut self) {
        self.fsm.clock.next = self.clock.val();
        self.fsm.reset.next = self.reset.val();
        self.array.clock.next = self.clock.val();
        self.array.reset.next = self.reset.val();
        self.results.clock.next = self.clock.val();
        self.results.reset.next = self.reset.val();
        self.xbuf.clock.next = self.clock.val();
        self.xbuf.reset.next = self.reset.val();
        self.ofifo.clock.next = self.clock.val();
        self.ofifo.reset.next = self.reset.val();
        self.tiles.clock.next = self.clock.val();
        self.tiles.reset.next = self.reset.val();
        self.weights.clock.next = self.clock.val();
        self.weights.reset.next = self.reset.val();
        self.writer.clock.next = self.clock.val();
        self.writer.reset.next = self.reset.val();
        self.ahead.clock.next = self.clock.val();
        self.ahead.reset.next = self.reset.val();
        self.requests.clock.next = self.clock.val();
        self.requests.reset.next = self.reset.val();

        // The read channel (`read_channel.rs`).
        self.reads.in_stream.next = self.decode.in_stream.val();
        self.reads.in_drain.next = self.decode.in_drain.val();
        self.reads.in_nextn.next = self.decode.in_nextn.val();
        self.reads.issues.next = self.decode.issues.val();
        self.reads.total.next = self.decode.total.val();
        self.reads.stop.next = self.fsm.stop.val();
        self.reads.reinputs.next = self.reinputs.val();
        self.reads.saveout.next = self.saveout.val();
        self.reads.inrows.next = self.inrows.val();
        self.reads.first_n.next = self.tiles.first_n.val();
        self.reads.more_k.next = self.tiles.more_k.val();
        self.reads.tiles_ahead.next = self.tiles.ahead.val();
        self.reads.x_fits.next = self.xbuf.fits.val();
        self.reads.out_fits.next = self.ofifo.fits.val();
        self.reads.issued.next = self.requests.issued.val();
        self.reads.req_held.next = self.requests.held.val();
        self.reads.req_addr.next = self.requests.addr.val();
        self.reads.reserved.next = self.writer.reserved.val();
        self.reads.ahead_on.next = self.ahead.on.val();
        self.reads.ahead_more.next = self.ahead.more.val();
        self.reads.ahead_held.next = self.ahead.held.val();
        self.reads.ahead_pending.next = self.ahead.pending.val();
        self.reads.ahead_addr.next = self.ahead.addr.val();
        self.reads.other_free.next = self.weights.other_free.val();
        self.reads.results_valid.next = self.results.read_valid.val();
        self.reads.xbuf_valid.next = self.xbuf.read_valid.val();
        self.reads.req_ready.next = self.mem_rd_req_ready.val();
        self.reads.resp_valid.next = self.mem_rd_resp_valid.val();
        self.mem_rd_req_valid.next = self.reads.mem_valid.val();
        self.mem_rd_req_addr.next = self.reads.mem_addr.val();
        // The write channel is the output writer's: a loaded word is offered whatever the read
        // channel does. A write response is the writer's.
        self.loaded.next = self.ofifo.read_valid.val() | self.writer.kept.val();
        self.write_valid.next = self.writer.held.val() | (self.loaded.val() & !self.fsm.stop.val());
        self.write_accept.next = self.write_valid.val() & self.mem_wr_req_ready.val();
        self.write_resp.next = self.mem_wr_resp_valid.val();
        self.mem_error.next = (self.mem_rd_resp_valid.val() & self.mem_rd_resp_error.val())
            | (self.mem_wr_resp_valid.val() & self.mem_wr_resp_error.val());
        self.ahead.start.next = self.reads.ahead_start.val();
        self.ahead.valid.next = self.reads.ahead_valid.val();
        self.ahead.req_ready.next = self.mem_rd_req_ready.val();
        self.ahead.resp.next = self.reads.ahead_resp.val();
        self.ahead.rows.next = self.tiles.ahead_rows.val();
        self.ahead.ptr.next = self.tiles.ahead_ptr.val();
        self.ahead.stride.next = self.tiles.ncw_bytes.val();
        self.busy.next = self.decode.busy.val();
        self.finish.next = self.decode.finish.val();
        self.exit_code.next = self.decode.exit_code.val();
        self.mem_wr_req_valid.next = self.write_valid.val();
        self.mem_wr_req_addr.next = self.writer.addr.val();
        self.mem_wr_req_wdata.next = self.ofifo.read_data.val();

        // The tile sequencer: sizes (CHECK), checks and addresses (PLAN), the tile walk.
        self.tiles.check.next = self.decode.in_check.val() & !self.decode.stopping.val();
        self.tiles.plan.next = self.decode.in_plan.val();
        self.tiles.nstart.next = self.decode.in_nstart.val() & !self.decode.stopping.val();
        // STREAM on chip goes on with the next K tile once its weights are loaded ahead.
        self.restart.next = self.reads.stream_on_chip.val()
            & self.decode.phase_done.val()
            & self.tiles.more_k.val()
            & self.ahead.ready.val()
            & !self.decode.stopping.val();
        self.take_ahead.next =
            self.restart.val() | (self.decode.in_kstart.val() & !self.reweights.val() & self.ahead.ready.val() & !self.decode.stopping.val());
        self.tiles.next_k.next = self.decode.in_stream.val()
            & self.decode.phase_done.val()
            & self.tiles.more_k.val()
            & !self.decode.stopping.val()
            & (!self.reads.stream_on_chip.val() | self.ahead.ready.val());
        self.tiles.next_n.next = self.decode.in_nextn.val()
            & !self.array.first_active.val()
            & !(self.tiles.ahead.val() & !self.ahead.ready.val())
            & !self.decode.stopping.val();
        self.tiles.inrows.next = self.inrows.val();
        self.tiles.incols.next = self.incols.val();
        self.tiles.wghtrows.next = self.wghtrows.val();
        self.tiles.wghtcols.next = self.wghtcols.val();
        self.tiles.reinputs.next = self.reinputs.val();
        self.tiles.reweights.next = self.reweights.val();
        self.tiles.saveout.next = self.saveout.val();
        self.tiles.usebias.next = self.usebias.val();
        self.tiles.usesumm.next = self.usesumm.val();
        self.tiles.base.next = self.base.val();
        self.tiles.result.next = self.result.val();
        self.tiles.reinput_ok.next = self.results.reinput_ok.val();
        self.tiles.reweight_ok.next = self.weights.reweight_ok.val();

        // The weight loader: KSTART clears the other bank once no row of it is left in the array.
        self.weights.kstart.next = self.decode.in_kstart.val();
        self.weights.ahead_region.next = self.reads.ahead_region.val();
        self.weights.ahead_ready.next = self.ahead.ready.val();
        self.weights.ahead_clear.next = self.reads.ahead_start.val();
        self.weights.take_ahead.next = self.restart.val();
        self.weights.done.next = self.decode.in_done.val();
        self.weights.success.next = self.decode.success.val();
        self.weights.reweights.next = self.reweights.val();
        self.weights.stopping.next = self.decode.stopping.val();
        self.weights.wghtrows.next = self.wghtrows.val();
        self.weights.wghtcols.next = self.wghtcols.val();
        self.weights.bank0_active.next = self.array.bank0_active.val();
        self.weights.bank1_active.next = self.array.bank1_active.val();
        self.weights.load_row.next =
            (self.decode.in_wload.val() & self.reads.response.val()) | (self.reads.ahead_resp.val() & self.reads.ahead_region.val());
        self.weights.index.next = self.ahead.index.val();
        if self.decode.in_wload.val() {
            self.weights.index.next = self.requests.responses.val();
        }

        // The output writer and the output FIFO: a result word goes in with SAVEOUT; the next
        // word goes to the read register when that is empty or its write is taken.
        self.fifo_store.next = self.array.out_valid.val() & self.saveout.val();
        self.fifo_read.next = self.writer.any.val()
            & (!self.loaded.val() | self.write_accept.val())
            & !self.fsm.stop.val();
        self.writer.restart.next = self.decode.in_done.val();
        self.writer.start.next = self.decode.in_plan.val();
        self.writer.result.next = self.result.val();
        self.writer.reserve.next =
            self.reads.requested.val() & self.decode.in_stream.val() & !self.tiles.more_k.val() & self.saveout.val();
        self.writer.store.next = self.fifo_store.val();
        self.writer.read.next = self.fifo_read.val();
        self.writer.loaded.next = self.loaded.val();
        self.writer.valid.next = self.write_valid.val();
        self.writer.accept.next = self.write_accept.val();
        self.writer.resp.next = self.write_resp.val();
        self.writer.inrows.next = self.inrows.val();
        self.writer.ncw_bytes.next = self.tiles.ncw_bytes.val();
        self.ofifo.rows.next = self.inrows.val();
        self.ofifo.cols.next = self.one8.val();
        self.ofifo.write_restart.next = self.decode.in_done.val();
        self.ofifo.write_base.next = self.zero_o.val();
        self.ofifo.read_restart.next = self.decode.in_done.val();
        self.ofifo.read_base.next = self.zero_o.val();
        self.ofifo.read.next = self.fifo_read.val();
        self.ofifo.store.next = self.fifo_store.val();
        self.ofifo.word.next = self.array.out_word.val();

        // The array.
        self.array.row_valid.next = self.decode.in_stream.val() & self.reads.response.val();
        self.array.word.next = self.mem_rd_resp_data.val();
        self.array.w_word.next = self.mem_rd_resp_data.val();
        if self.xbuf.read_valid.val() {
            self.array.word.next = self.xbuf.read_data.val();
        }
        if self.results.read_valid.val() {
            self.array.word.next = self.results.read_data.val();
        }
        self.array.row_bank.next = self.weights.bank.val();
        self.array.row_first.next = self.tiles.first_k.val();
        self.array.row_last.next = !self.tiles.more_k.val();
        self.array.row_tail.next = !self.tiles.more_n.val();
        self.array.tail_lanes.next = ((self.wghtcols.val() - self.one8.val()) & self.lane_mask8.val()) + self.one8.val();
        self.array.w_bank.next = self.weights.load_bank.val();
        self.array.inrows.next = self.inrows.val();
        self.array.w_clear.next = self.weights.clear.val();
        self.array.w_load.next = self.weights.load.val();
        self.array.w_row.next = self.weights.row.val();
        self.array.base_clear.next = self.decode.in_nstart.val();
        self.array.base_add.next = (self.decode.in_bias.val() | self.decode.in_sums.val()) & self.reads.response.val();
        self.array.base_half.next = self.requests.responses.val().get_bit(0);
        // At PLAN: between column tiles the row counters are back at 0 after whole K tiles, while
        // the last K tile's rows are still in the array.
        self.array.rows_clear.next = self.decode.in_plan.val();
        self.array.relu.next = self.actfn.val();
        self.array.shift.next = self.shiftamt.val();

        // The result buffer (REINPUTS).
        self.results.inrows.next = self.inrows.val();
        self.results.incols.next = self.incols.val();
        self.results.wghtcols.next = self.wghtcols.val();
        self.results.layer_start.next = self.decode.in_plan.val();
        self.results.read_restart.next = self.decode.in_nstart.val();
        self.results.read.next = self.reads.buffer_read.val();
        self.results.store.next = self.array.out_valid.val();
        self.results.word.next = self.array.out_word.val();
        self.results.commit.next = self.decode.in_done.val() & self.decode.success.val();

        // The X buffer: the first column tile keeps the X rows it receives from memory.
        self.xbuf.rows.next = self.inrows.val();
        self.xbuf.cols.next = self.incols.val();
        self.xbuf.write_restart.next = self.decode.in_plan.val();
        self.xbuf.write_base.next = self.zero_x.val();
        self.xbuf.read_restart.next = self.decode.in_nstart.val();
        self.xbuf.read_base.next = self.zero_x.val();
        self.xbuf.read.next = self.reads.x_read.val();
        self.xbuf.store.next = self.decode.in_stream.val() & self.tiles.first_n.val() & self.reads.mem_response.val();
        self.xbuf.word.next = self.mem_rd_resp_data.val();

        // The phase's requests and responses (`phase_requests.rs`).
        self.requests.requested.next = self.reads.requested.val();
        self.requests.response.next = self.reads.response.val();
        self.requests.stride.next = self.decode.stride.val();
        self.requests.stalled.next = self.reads.main_valid.val() & !self.mem_rd_req_ready.val();
        self.requests.clear.next = self.fsm.req_clear.val();
        self.requests.load.next = self.fsm.req_load.val();
        self.requests.first_addr.next = self.fsm.first_addr.val();
        self.ahead.free.next = self.fsm.ahead_free.val();

        // The state machine (`state_machine.rs`).
        self.fsm.start.next = self.start.val();
        self.fsm.write_while_busy.next = self.write_while_busy.val();
        self.fsm.usebias.next = self.usebias.val();
        self.fsm.usesumm.next = self.usesumm.val();
        self.fsm.reweights.next = self.reweights.val();
        self.fsm.cpu_err.next = self.tiles.cpu_err.val();
        self.fsm.mem_err.next = self.tiles.mem_err.val();
        self.fsm.more_k.next = self.tiles.more_k.val();
        self.fsm.more_n.next = self.tiles.more_n.val();
        self.fsm.tiles_ahead.next = self.tiles.ahead.val();
        self.fsm.b_ptr.next = self.tiles.b_ptr.val();
        self.fsm.s_ptr.next = self.tiles.s_ptr.val();
        self.fsm.w_kt_ptr.next = self.tiles.w_kt_ptr.val();
        self.fsm.x_kt_ptr.next = self.tiles.x_kt_ptr.val();
        self.fsm.outstanding.next = self.requests.outstanding.val();
        self.fsm.req_held.next = self.requests.held.val();
        self.fsm.ahead_ready.next = self.ahead.ready.val();
        self.fsm.ahead_held.next = self.ahead.held.val();
        self.fsm.ahead_pending.next = self.ahead.pending.val();
        self.fsm.other_free.next = self.weights.other_free.val();
        self.fsm.array_active.next = self.array.active.val();
        self.fsm.first_active.next = self.array.first_active.val();
        self.fsm.writer_idle.next = self.writer.idle.val();
        self.fsm.writer_held.next = self.writer.held.val();
        self.fsm.writer_pending.next = self.writer.pending.val();
        self.fsm.loaded.next = self.loaded.val();
        self.fsm.stream_on_chip.next = self.reads.stream_on_chip.val();
        self.fsm.mem_error.next = self.mem_error.val();
        self.fsm.restart.next = self.restart.val();
        self.fsm.take_ahead.next = self.take_ahead.val();
        self.fsm.in_idle.next = self.decode.in_idle.val();
        self.fsm.in_check.next = self.decode.in_check.val();
        self.fsm.in_plan.next = self.decode.in_plan.val();
        self.fsm.in_nstart.next = self.decode.in_nstart.val();
        self.fsm.in_bias.next = self.decode.in_bias.val();
        self.fsm.in_sums.next = self.decode.in_sums.val();
        self.fsm.in_kstart.next = self.decode.in_kstart.val();
        self.fsm.in_wload.next = self.decode.in_wload.val();
        self.fsm.in_stream.next = self.decode.in_stream.val();
        self.fsm.in_drain.next = self.decode.in_drain.val();
        self.fsm.in_nextn.next = self.decode.in_nextn.val();
        self.fsm.in_flush.next = self.decode.in_flush.val();
        self.fsm.in_done.next = self.decode.in_done.val();
        self.fsm.running.next = self.decode.running.val();
        self.fsm.stopping.next = self.decode.stopping.val();
        self.fsm.phase_done.next = self.decode.phase_done.val();
        // Its decode (`state_decode.rs`), from registers only.
        self.decode.state.next = self.fsm.state_out.val();
        self.decode.stop.next = self.fsm.stop.val();
        self.decode.code.next = self.fsm.code_out.val();
        self.decode.inrows.next = self.inrows.val();
        self.decode.k_rows.next = self.tiles.k_rows.val();
        self.decode.ncw_bytes.next = self.tiles.ncw_bytes.val();
        self.decode.nxw_bytes.next = self.tiles.nxw_bytes.val();
        self.decode.issued.next = self.requests.issued.val();
        self.decode.outstanding.next = self.requests.outstanding.val();

    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Engine::default, "engine");
}
