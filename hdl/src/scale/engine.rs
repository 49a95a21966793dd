//! ScaleNPU's layer engine: checks a layer's registers, walks its tiles, drives the memory
//! master port and the systolic array, and reports the exit code. The model
//! (`model/src/scale/engine.rs`) documents the states and changes the same registers in the
//! same cycles; docs/scale.md has the memory layout, the timing and the decisions.
use super::pe_column::VECTOR;
use super::regmap::{EXIT_CPU_ERR, EXIT_MEM_ERR, EXIT_SUCCESS, EXIT_UNUSED};
use super::{ResultBuffer, Systolic, TileRam, SIZE, X_WORDS};
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

/// Bytes per memory word, and its log2.
pub const WORD_BYTES: u64 = 2 * SIZE as u64;
const LOG2_WORD_BYTES: u64 = WORD_BYTES.trailing_zeros() as u64;
const X_ADDR_BITS: usize = X_WORDS.trailing_zeros() as usize;
/// The memory window the unit may address: `[0, MEM_BYTES)`.
pub const MEM_BYTES: u64 = 1 << 20;

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
    pub mem_req_ready: Signal<In, Bit>,
    pub mem_resp_valid: Signal<In, Bit>,
    pub mem_resp_data: Signal<In, Bits<VECTOR>>,
    pub mem_resp_error: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    pub finish: Signal<Out, Bit>,
    pub exit_code: Signal<Out, Bits<2>>,
    pub mem_req_valid: Signal<Out, Bit>,
    pub mem_req_write: Signal<Out, Bit>,
    pub mem_req_addr: Signal<Out, Bits<32>>,
    pub mem_req_wdata: Signal<Out, Bits<VECTOR>>,

    array: Systolic,
    results: ResultBuffer,
    /// The X buffer: this layer's X kept on chip for the column tiles after the first (the
    /// model's `Engine::xbuf` has the decisions).
    xbuf: TileRam<X_ADDR_BITS, X_WORDS>,
    // Registers (as in the model).
    state: Reg<Bits<4>>,
    code: Reg<Bits<2>>,
    stop: Reg<Bit>,
    stop_code: Reg<Bits<2>>,
    x_bytes: Reg<Bits<32>>,
    w_bytes: Reg<Bits<32>>,
    bs_bytes: Reg<Bits<32>>,
    r_bytes: Reg<Bits<32>>,
    nxw_bytes: Reg<Bits<32>>,
    ncw_bytes: Reg<Bits<32>>,
    wk_stride: Reg<Bits<32>>,
    n_left: Reg<Bits<8>>,
    k_left: Reg<Bits<8>>,
    b_ptr: Reg<Bits<32>>,
    s_ptr: Reg<Bits<32>>,
    w_nt_ptr: Reg<Bits<32>>,
    w_kt_ptr: Reg<Bits<32>>,
    x_kt_ptr: Reg<Bits<32>>,
    out_ptr: Reg<Bits<32>>,
    first_k: Reg<Bit>,
    /// The first column tile: its STREAM phases fill the X buffer.
    first_n: Reg<Bit>,
    /// The weight bank the current K tile streams with (the one loaded last).
    bank: Reg<Bit>,
    req_addr: Reg<Bits<32>>,
    issued: Reg<Bits<9>>,
    outstanding: Reg<Bits<9>>,
    responses: Reg<Bits<9>>,
    held: Reg<Bit>,
    writing: Reg<Bit>,
    out_next_row: Reg<Bits<9>>,
    p1: Reg<Bit>,
    p2: Reg<Bit>,
    w_loaded: Reg<Bit>,
    w_rows: Reg<Bits<8>>,
    w_cols: Reg<Bits<8>>,
    // Widening (inputs from ports and registers only).
    inrows16: ZeroExtend<8, 16>,
    incols16: ZeroExtend<8, 16>,
    wghtrows16: ZeroExtend<8, 16>,
    wghtcols16: ZeroExtend<8, 16>,
    inrows9: ZeroExtend<8, 9>,
    k_left9: ZeroExtend<8, 9>,
    base34: ZeroExtend<32, 34>,
    result34: ZeroExtend<32, 34>,
    x34: ZeroExtend<32, 34>,
    w34: ZeroExtend<32, 34>,
    bs34: ZeroExtend<32, 34>,
    r34: ZeroExtend<32, 34>,
    // Constants.
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
    s_out: Constant<Bits<4>>,
    s_nextn: Constant<Bits<4>>,
    s_flush: Constant<Bits<4>>,
    s_done: Constant<Bits<4>>,
    c_unused: Constant<Bits<2>>,
    c_success: Constant<Bits<2>>,
    c_mem_err: Constant<Bits<2>>,
    c_cpu_err: Constant<Bits<2>>,
    word_bytes: Constant<Bits<32>>,
    two_words: Constant<Bits<32>>,
    log2_word_bytes: Constant<Bits<32>>,
    align_mask: Constant<Bits<32>>,
    mem_limit: Constant<Bits<34>>,
    size_m1_16: Constant<Bits<16>>,
    log2_size_16: Constant<Bits<16>>,
    size16: Constant<Bits<16>>,
    size8: Constant<Bits<8>>,
    size9: Constant<Bits<9>>,
    one16: Constant<Bits<16>>,
    two16: Constant<Bits<16>>,
    one_hot0: Constant<Bits<SIZE>>,
    two9: Constant<Bits<9>>,
    one9: Constant<Bits<9>>,
    zero9: Constant<Bits<9>>,
    zero8: Constant<Bits<8>>,
    zero32: Constant<Bits<32>>,
    zero_x: Constant<Bits<X_ADDR_BITS>>,
    // Combinational.
    in_idle: Signal<Local, Bit>,
    in_check: Signal<Local, Bit>,
    in_plan: Signal<Local, Bit>,
    in_nstart: Signal<Local, Bit>,
    in_bias: Signal<Local, Bit>,
    in_sums: Signal<Local, Bit>,
    in_kstart: Signal<Local, Bit>,
    in_wload: Signal<Local, Bit>,
    in_stream: Signal<Local, Bit>,
    in_drain: Signal<Local, Bit>,
    in_out: Signal<Local, Bit>,
    in_nextn: Signal<Local, Bit>,
    in_flush: Signal<Local, Bit>,
    in_done: Signal<Local, Bit>,
    issues: Signal<Local, Bit>,
    total: Signal<Local, Bits<9>>,
    stride: Signal<Local, Bits<32>>,
    phase_done: Signal<Local, Bit>,
    valid: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    buffer_read: Signal<Local, Bit>,
    /// This column tile streams X from the X buffer, and reads it now.
    x_on_chip: Signal<Local, Bit>,
    x_read: Signal<Local, Bit>,
    stream_more: Signal<Local, Bit>,
    requested: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    response: Signal<Local, Bit>,
    adv1: Signal<Local, Bit>,
    adv2: Signal<Local, Bit>,
    out_read: Signal<Local, Bit>,
    nxw16: Signal<Local, Bits<16>>,
    ncw16: Signal<Local, Bits<16>>,
    dims_zero: Signal<Local, Bit>,
    bad_reinputs: Signal<Local, Bit>,
    bad_reweights: Signal<Local, Bit>,
    cpu_err: Signal<Local, Bit>,
    at_base: Signal<Local, Bit>,
    w_addr34: Signal<Local, Bits<34>>,
    b_addr34: Signal<Local, Bits<34>>,
    s_addr34: Signal<Local, Bits<34>>,
    end34: Signal<Local, Bits<34>>,
    mem_err: Signal<Local, Bit>,
    stopping: Signal<Local, Bit>,
    running: Signal<Local, Bit>,
    next: Signal<Local, Bits<4>>,
    /// The bank KSTART loads (the other one) or WLOAD loads (the current one), and whether
    /// no row of it is left in the array.
    load_bank: Signal<Local, Bit>,
    bank_free: Signal<Local, Bit>,
}

fn k<const N: usize>(value: u64) -> Constant<Bits<N>> {
    Constant::new(value.into())
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
            mem_req_ready: Default::default(),
            mem_resp_valid: Default::default(),
            mem_resp_data: Default::default(),
            mem_resp_error: Default::default(),
            busy: Default::default(),
            finish: Default::default(),
            exit_code: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_write: Default::default(),
            mem_req_addr: Default::default(),
            mem_req_wdata: Default::default(),
            array: Default::default(),
            results: Default::default(),
            xbuf: Default::default(),
            state: Default::default(),
            code: Default::default(),
            stop: Default::default(),
            stop_code: Default::default(),
            x_bytes: Default::default(),
            w_bytes: Default::default(),
            bs_bytes: Default::default(),
            r_bytes: Default::default(),
            nxw_bytes: Default::default(),
            ncw_bytes: Default::default(),
            wk_stride: Default::default(),
            n_left: Default::default(),
            k_left: Default::default(),
            b_ptr: Default::default(),
            s_ptr: Default::default(),
            w_nt_ptr: Default::default(),
            w_kt_ptr: Default::default(),
            x_kt_ptr: Default::default(),
            out_ptr: Default::default(),
            first_k: Default::default(),
            first_n: Default::default(),
            bank: Default::default(),
            req_addr: Default::default(),
            issued: Default::default(),
            outstanding: Default::default(),
            responses: Default::default(),
            held: Default::default(),
            writing: Default::default(),
            out_next_row: Default::default(),
            p1: Default::default(),
            p2: Default::default(),
            w_loaded: Default::default(),
            w_rows: Default::default(),
            w_cols: Default::default(),
            inrows16: Default::default(),
            incols16: Default::default(),
            wghtrows16: Default::default(),
            wghtcols16: Default::default(),
            inrows9: Default::default(),
            k_left9: Default::default(),
            base34: Default::default(),
            result34: Default::default(),
            x34: Default::default(),
            w34: Default::default(),
            bs34: Default::default(),
            r34: Default::default(),
            s_idle: k(0),
            s_check: k(1),
            s_plan: k(2),
            s_nstart: k(3),
            s_bias: k(4),
            s_sums: k(5),
            s_kstart: k(6),
            s_wload: k(7),
            s_stream: k(8),
            s_drain: k(9),
            s_out: k(10),
            s_nextn: k(11),
            s_flush: k(12),
            s_done: k(13),
            c_unused: k(EXIT_UNUSED.into()),
            c_success: k(EXIT_SUCCESS.into()),
            c_mem_err: k(EXIT_MEM_ERR.into()),
            c_cpu_err: k(EXIT_CPU_ERR.into()),
            word_bytes: k(WORD_BYTES),
            two_words: k(2 * WORD_BYTES),
            log2_word_bytes: k(LOG2_WORD_BYTES),
            align_mask: k(WORD_BYTES - 1),
            mem_limit: k(MEM_BYTES),
            size_m1_16: k(SIZE as u64 - 1),
            log2_size_16: k(u64::from(SIZE.trailing_zeros())),
            size16: k(SIZE as u64),
            size8: k(SIZE as u64),
            size9: k(SIZE as u64),
            one16: k(1),
            two16: k(2),
            one_hot0: k(1),
            two9: k(2),
            one9: k(1),
            zero9: k(0),
            zero8: k(0),
            zero32: k(0),
            zero_x: k(0),
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
            in_out: Default::default(),
            in_nextn: Default::default(),
            in_flush: Default::default(),
            in_done: Default::default(),
            issues: Default::default(),
            total: Default::default(),
            stride: Default::default(),
            phase_done: Default::default(),
            valid: Default::default(),
            accept: Default::default(),
            buffer_read: Default::default(),
            x_on_chip: Default::default(),
            x_read: Default::default(),
            stream_more: Default::default(),
            requested: Default::default(),
            emit: Default::default(),
            taken: Default::default(),
            response: Default::default(),
            adv1: Default::default(),
            adv2: Default::default(),
            out_read: Default::default(),
            nxw16: Default::default(),
            ncw16: Default::default(),
            dims_zero: Default::default(),
            bad_reinputs: Default::default(),
            bad_reweights: Default::default(),
            cpu_err: Default::default(),
            at_base: Default::default(),
            w_addr34: Default::default(),
            b_addr34: Default::default(),
            s_addr34: Default::default(),
            end34: Default::default(),
            mem_err: Default::default(),
            stopping: Default::default(),
            running: Default::default(),
            next: Default::default(),
            load_bank: Default::default(),
            bank_free: Default::default(),
        }
    }
}

impl Logic for Engine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, code, stop, stop_code, x_bytes, w_bytes, bs_bytes, r_bytes, nxw_bytes, ncw_bytes,
            wk_stride, n_left, k_left, b_ptr, s_ptr, w_nt_ptr, w_kt_ptr, x_kt_ptr, out_ptr, first_k,
            first_n, bank, req_addr, issued, outstanding, responses, held, writing, out_next_row, p1, p2, w_loaded, w_rows, w_cols
        );
        self.state.reset.next = self.reset.val();
        self.code.reset.next = self.reset.val();
        self.stop.reset.next = self.reset.val();
        self.stop_code.reset.next = self.reset.val();
        self.x_bytes.reset.next = self.reset.val();
        self.w_bytes.reset.next = self.reset.val();
        self.bs_bytes.reset.next = self.reset.val();
        self.r_bytes.reset.next = self.reset.val();
        self.nxw_bytes.reset.next = self.reset.val();
        self.ncw_bytes.reset.next = self.reset.val();
        self.wk_stride.reset.next = self.reset.val();
        self.n_left.reset.next = self.reset.val();
        self.k_left.reset.next = self.reset.val();
        self.b_ptr.reset.next = self.reset.val();
        self.s_ptr.reset.next = self.reset.val();
        self.w_nt_ptr.reset.next = self.reset.val();
        self.w_kt_ptr.reset.next = self.reset.val();
        self.x_kt_ptr.reset.next = self.reset.val();
        self.out_ptr.reset.next = self.reset.val();
        self.first_k.reset.next = self.reset.val();
        self.first_n.reset.next = self.reset.val();
        self.bank.reset.next = self.reset.val();
        self.req_addr.reset.next = self.reset.val();
        self.issued.reset.next = self.reset.val();
        self.outstanding.reset.next = self.reset.val();
        self.responses.reset.next = self.reset.val();
        self.held.reset.next = self.reset.val();
        self.writing.reset.next = self.reset.val();
        self.out_next_row.reset.next = self.reset.val();
        self.p1.reset.next = self.reset.val();
        self.p2.reset.next = self.reset.val();
        self.w_loaded.reset.next = self.reset.val();
        self.w_rows.reset.next = self.reset.val();
        self.w_cols.reset.next = self.reset.val();
        self.array.clock.next = self.clock.val();
        self.array.reset.next = self.reset.val();
        self.results.clock.next = self.clock.val();
        self.results.reset.next = self.reset.val();
        self.xbuf.clock.next = self.clock.val();
        self.xbuf.reset.next = self.reset.val();

        self.inrows16.narrow.next = self.inrows.val();
        self.incols16.narrow.next = self.incols.val();
        self.wghtrows16.narrow.next = self.wghtrows.val();
        self.wghtcols16.narrow.next = self.wghtcols.val();
        self.inrows9.narrow.next = self.inrows.val();
        self.k_left9.narrow.next = self.k_left.q.val();
        self.base34.narrow.next = self.base.val();
        self.result34.narrow.next = self.result.val();
        self.x34.narrow.next = self.x_bytes.q.val();
        self.w34.narrow.next = self.w_bytes.q.val();
        self.bs34.narrow.next = self.bs_bytes.q.val();
        self.r34.narrow.next = self.r_bytes.q.val();

        self.in_idle.next = self.state.q.val() == self.s_idle.val();
        self.in_check.next = self.state.q.val() == self.s_check.val();
        self.in_plan.next = self.state.q.val() == self.s_plan.val();
        self.in_nstart.next = self.state.q.val() == self.s_nstart.val();
        self.in_bias.next = self.state.q.val() == self.s_bias.val();
        self.in_sums.next = self.state.q.val() == self.s_sums.val();
        self.in_kstart.next = self.state.q.val() == self.s_kstart.val();
        self.in_wload.next = self.state.q.val() == self.s_wload.val();
        self.in_stream.next = self.state.q.val() == self.s_stream.val();
        self.in_drain.next = self.state.q.val() == self.s_drain.val();
        self.in_out.next = self.state.q.val() == self.s_out.val();
        self.in_nextn.next = self.state.q.val() == self.s_nextn.val();
        self.in_flush.next = self.state.q.val() == self.s_flush.val();
        self.in_done.next = self.state.q.val() == self.s_done.val();

        // The current phase's request count and address step.
        self.total.next = self.zero9.val();
        self.stride.next = self.zero32.val();
        if self.in_bias.val() | self.in_sums.val() {
            self.total.next = self.two9.val();
            self.stride.next = self.word_bytes.val();
        }
        if self.in_wload.val() {
            self.total.next = self.size9.val();
            if self.k_left9.wide.val() < self.size9.val() {
                self.total.next = self.k_left9.wide.val();
            }
            self.stride.next = self.ncw_bytes.q.val();
        }
        if self.in_stream.val() {
            self.total.next = self.inrows9.wide.val();
            self.stride.next = self.nxw_bytes.q.val();
        }
        if self.in_out.val() {
            self.total.next = self.inrows9.wide.val();
            self.stride.next = self.ncw_bytes.q.val();
        }
        self.phase_done.next = (self.issued.q.val() == self.total.val()) & (self.outstanding.q.val() == self.zero9.val());
        self.issues.next =
            self.in_bias.val() | self.in_sums.val() | self.in_wload.val() | self.in_stream.val() | self.in_out.val();
        // With REINPUTS, STREAM reads the result buffer, after the first column tile the X
        // buffer if X fits (both always ready, answering the next cycle); without SAVEOUT, OUT
        // only stores the results in the result buffer.
        self.stream_more.next =
            self.in_stream.val() & (self.issued.q.val() != self.total.val()) & !self.stop.q.val();
        self.x_on_chip.next = !self.reinputs.val() & !self.first_n.q.val() & self.xbuf.fits.val();
        self.buffer_read.next = self.stream_more.val() & self.reinputs.val();
        self.x_read.next = self.stream_more.val() & self.x_on_chip.val();
        if self.in_out.val() {
            self.valid.next = self.held.q.val() | (self.saveout.val() & self.p2.q.val() & !self.stop.q.val());
        } else {
            self.valid.next = self.held.q.val()
                | (self.issues.val()
                    & (self.issued.q.val() != self.total.val())
                    & !self.stop.q.val()
                    & !(self.in_stream.val() & (self.reinputs.val() | self.x_on_chip.val())));
        }
        self.accept.next = self.valid.val() & self.mem_req_ready.val();
        self.requested.next = self.accept.val() | self.buffer_read.val() | self.x_read.val();
        self.response.next =
            self.mem_resp_valid.val() | self.results.read_valid.val() | self.xbuf.read_valid.val();
        self.busy.next = !self.in_idle.val();
        self.finish.next = self.in_done.val();
        self.exit_code.next = self.code.q.val();
        self.mem_req_valid.next = self.valid.val();
        self.mem_req_write.next = self.writing.q.val();
        self.mem_req_addr.next = self.req_addr.q.val();
        self.mem_req_wdata.next = self.array.out_word.val();

        // The array.
        self.adv2.next = !self.p2.q.val() | self.accept.val() | (!self.saveout.val() & !self.stop.q.val());
        self.emit.next = self.in_out.val() & self.p2.q.val() & self.adv2.val();
        self.taken.next = self.requested.val() | self.emit.val();
        self.adv1.next = !self.p1.q.val() | self.adv2.val();
        self.out_read.next =
            self.in_out.val() & self.adv1.val() & (self.out_next_row.q.val() < self.inrows9.wide.val());
        self.array.row_valid.next = self.in_stream.val() & self.response.val();
        self.array.word.next = self.mem_resp_data.val();
        if self.xbuf.read_valid.val() {
            self.array.word.next = self.xbuf.read_data.val();
        }
        if self.results.read_valid.val() {
            self.array.word.next = self.results.read_data.val();
        }
        // KSTART loads the other bank once no row of it is left in the array.
        self.load_bank.next = self.bank.q.val();
        if self.in_kstart.val() {
            self.load_bank.next = !self.bank.q.val();
        }
        self.bank_free.next = !self.array.bank0_active.val();
        if self.load_bank.val() {
            self.bank_free.next = !self.array.bank1_active.val();
        }
        self.array.row_bank.next = self.bank.q.val();
        self.array.row_first.next = self.first_k.q.val();
        self.array.w_bank.next = self.load_bank.val();
        self.array.inrows.next = self.inrows.val();
        self.array.w_clear.next = self.in_kstart.val() & !self.reweights.val() & self.bank_free.val();
        self.array.w_load.next = self.in_wload.val() & self.response.val();
        self.array.w_row.next = self.one_hot0.val() << self.responses.q.val();
        self.array.base_clear.next = self.in_nstart.val();
        self.array.base_add.next = (self.in_bias.val() | self.in_sums.val()) & self.response.val();
        self.array.base_half.next = self.responses.q.val().get_bit(0);
        self.array.rows_clear.next = self.in_nstart.val();
        self.array.out_phase.next = self.in_out.val();
        self.array.out_read.next = self.out_read.val();
        self.array.out_row.next = self.out_next_row.q.val().get_bits::<8>(0);
        self.array.out_load.next = self.in_out.val() & self.adv2.val() & self.p1.q.val();
        self.array.lanes_on.next = self.n_left.q.val();
        if self.n_left.q.val() > self.size8.val() {
            self.array.lanes_on.next = self.size8.val();
        }
        self.array.relu.next = self.actfn.val();
        self.array.shift.next = self.shiftamt.val();
        if self.in_out.val() {
            if self.adv2.val() {
                self.p2.d.next = self.p1.q.val();
            }
            if self.adv1.val() {
                self.p1.d.next = self.out_read.val();
                if self.out_read.val() {
                    self.out_next_row.d.next = self.out_next_row.q.val() + self.one9.val();
                }
            }
        }

        // The result buffer (REINPUTS).
        self.results.inrows.next = self.inrows.val();
        self.results.incols.next = self.incols.val();
        self.results.wghtcols.next = self.wghtcols.val();
        self.results.layer_start.next = self.in_plan.val();
        self.results.read_restart.next = self.in_nstart.val();
        self.results.read.next = self.buffer_read.val();
        self.results.store.next = self.emit.val();
        self.results.word.next = self.array.out_word.val();
        self.results.commit.next = self.in_done.val() & (self.code.q.val() == self.c_success.val());

        // The X buffer: the first column tile keeps the X rows it receives from memory.
        self.xbuf.rows.next = self.inrows.val();
        self.xbuf.cols.next = self.incols.val();
        self.xbuf.write_restart.next = self.in_plan.val();
        self.xbuf.write_base.next = self.zero_x.val();
        self.xbuf.read_restart.next = self.in_nstart.val();
        self.xbuf.read_base.next = self.zero_x.val();
        self.xbuf.read.next = self.x_read.val();
        self.xbuf.store.next = self.in_stream.val() & self.first_n.q.val() & self.mem_resp_valid.val();
        self.xbuf.word.next = self.mem_resp_data.val();

        // Requests and responses.
        if self.taken.val() {
            self.issued.d.next = self.issued.q.val() + self.one9.val();
            self.req_addr.d.next = self.req_addr.q.val() + self.stride.val();
        }
        self.held.d.next = self.valid.val() & !self.mem_req_ready.val();
        if self.requested.val() & !self.response.val() {
            self.outstanding.d.next = self.outstanding.q.val() + self.one9.val();
        }
        if !self.requested.val() & self.response.val() {
            self.outstanding.d.next = self.outstanding.q.val() - self.one9.val();
        }
        if self.response.val() {
            self.responses.d.next = self.responses.q.val() + self.one9.val();
        }

        // Sizes (CHECK) and the plan (PLAN).
        self.nxw16.next = (self.incols16.wide.val() + self.size_m1_16.val()) >> self.log2_size_16.val();
        self.ncw16.next = (self.wghtcols16.wide.val() + self.size_m1_16.val()) >> self.log2_size_16.val();
        self.dims_zero.next = (self.inrows.val() == self.zero8.val())
            | (self.incols.val() == self.zero8.val())
            | (self.wghtrows.val() == self.zero8.val())
            | (self.wghtcols.val() == self.zero8.val());
        self.bad_reinputs.next = self.reinputs.val() & !self.results.reinput_ok.val();
        self.bad_reweights.next = self.reweights.val()
            & !(self.w_loaded.q.val()
                & (self.w_rows.q.val() == self.wghtrows.val())
                & (self.w_cols.q.val() == self.wghtcols.val()));
        self.cpu_err.next = self.dims_zero.val()
            | (self.incols.val() != self.wghtrows.val())
            | self.bad_reinputs.val()
            | self.bad_reweights.val();
        self.at_base.next = !self.reinputs.val() | !self.reweights.val() | self.usebias.val() | self.usesumm.val();
        self.w_addr34.next = self.base34.wide.val();
        if !self.reinputs.val() {
            self.w_addr34.next = self.base34.wide.val() + self.x34.wide.val();
        }
        self.b_addr34.next = self.w_addr34.val();
        if !self.reweights.val() {
            self.b_addr34.next = self.w_addr34.val() + self.w34.wide.val();
        }
        self.s_addr34.next = self.b_addr34.val();
        if self.usebias.val() {
            self.s_addr34.next = self.b_addr34.val() + self.bs34.wide.val();
        }
        self.end34.next = self.s_addr34.val();
        if self.usesumm.val() {
            self.end34.next = self.s_addr34.val() + self.bs34.wide.val();
        }
        self.mem_err.next = (self.at_base.val()
            & (((self.base.val() & self.align_mask.val()) != self.zero32.val())
                | (self.end34.val() > self.mem_limit.val())))
            | (self.saveout.val()
                & (((self.result.val() & self.align_mask.val()) != self.zero32.val())
                    | ((self.result34.wide.val() + self.r34.wide.val()) > self.mem_limit.val())));

        // Next state; a stop seen now acts from the next cycle.
        self.running.next = !self.in_idle.val() & !self.in_done.val();
        // PLAN's verdict on the registers stands even if a stop came during CHECK.
        self.stopping.next = self.stop.q.val() & self.running.val() & !self.in_plan.val() & !self.in_flush.val();
        self.next.next = self.state.q.val();
        if self.stopping.val() {
            self.next.next = self.s_flush.val();
        } else if self.in_idle.val() {
            if self.start.val() {
                self.next.next = self.s_check.val();
            }
        } else if self.in_check.val() {
            self.x_bytes.d.next = (self.inrows16.wide.val() * self.nxw16.val()) << self.log2_word_bytes.val();
            self.w_bytes.d.next = (self.wghtrows16.wide.val() * self.ncw16.val()) << self.log2_word_bytes.val();
            self.bs_bytes.d.next = (self.two16.val() * self.ncw16.val()) << self.log2_word_bytes.val();
            self.r_bytes.d.next = (self.inrows16.wide.val() * self.ncw16.val()) << self.log2_word_bytes.val();
            self.nxw_bytes.d.next = (self.one16.val() * self.nxw16.val()) << self.log2_word_bytes.val();
            self.ncw_bytes.d.next = (self.one16.val() * self.ncw16.val()) << self.log2_word_bytes.val();
            self.wk_stride.d.next = (self.size16.val() * self.ncw16.val()) << self.log2_word_bytes.val();
            self.next.next = self.s_plan.val();
        } else if self.in_plan.val() {
            if self.cpu_err.val() {
                self.code.d.next = self.c_cpu_err.val();
                self.next.next = self.s_done.val();
            } else if self.mem_err.val() {
                self.code.d.next = self.c_mem_err.val();
                self.next.next = self.s_done.val();
            } else {
                self.w_nt_ptr.d.next = self.w_addr34.val().get_bits::<32>(0);
                self.b_ptr.d.next = self.b_addr34.val().get_bits::<32>(0);
                self.s_ptr.d.next = self.s_addr34.val().get_bits::<32>(0);
                self.out_ptr.d.next = self.result.val();
                self.n_left.d.next = self.wghtcols.val();
                self.first_n.d.next = true;
                self.next.next = self.s_nstart.val();
            }
        } else if self.in_nstart.val() {
            self.k_left.d.next = self.wghtrows.val();
            self.w_kt_ptr.d.next = self.w_nt_ptr.q.val();
            self.x_kt_ptr.d.next = self.base.val();
            self.first_k.d.next = true;
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
            } else if self.bank_free.val() {
                self.bank.d.next = self.load_bank.val();
                self.next.next = self.s_wload.val();
            }
        } else if self.in_wload.val() {
            if self.phase_done.val() {
                self.next.next = self.s_stream.val();
            }
        } else if self.in_stream.val() {
            if self.phase_done.val() {
                if self.k_left.q.val() > self.size8.val() {
                    // The next K tile's rows follow this one's through the array.
                    self.k_left.d.next = self.k_left.q.val() - self.size8.val();
                    self.x_kt_ptr.d.next = self.x_kt_ptr.q.val() + self.word_bytes.val();
                    self.w_kt_ptr.d.next = self.w_kt_ptr.q.val() + self.wk_stride.q.val();
                    self.first_k.d.next = false;
                    self.next.next = self.s_kstart.val();
                } else {
                    self.next.next = self.s_drain.val();
                }
            }
        } else if self.in_drain.val() {
            if self.array.active.val() {
                // Wait: the last rows' products are still on their way to the accumulators.
            } else if self.saveout.val() | self.results.fits.val() {
                self.next.next = self.s_out.val();
            } else {
                self.next.next = self.s_nextn.val();
            }
        } else if self.in_out.val() {
            if self.phase_done.val() {
                self.next.next = self.s_nextn.val();
            }
        } else if self.in_nextn.val() {
            if self.n_left.q.val() > self.size8.val() {
                self.n_left.d.next = self.n_left.q.val() - self.size8.val();
                self.b_ptr.d.next = self.b_ptr.q.val() + self.two_words.val();
                self.s_ptr.d.next = self.s_ptr.q.val() + self.two_words.val();
                self.w_nt_ptr.d.next = self.w_nt_ptr.q.val() + self.word_bytes.val();
                self.out_ptr.d.next = self.out_ptr.q.val() + self.word_bytes.val();
                self.first_n.d.next = false;
                self.next.next = self.s_nstart.val();
            } else {
                self.code.d.next = self.c_success.val();
                self.next.next = self.s_done.val();
            }
        } else if self.in_flush.val() {
            if !self.held.q.val() & (self.outstanding.q.val() == self.zero9.val()) & !self.array.active.val() {
                self.code.d.next = self.stop_code.q.val();
                self.next.next = self.s_done.val();
            }
        } else if self.in_done.val() {
            // What the layer leaves for the next one's REWEIGHTS (and, in the result buffer, REINPUTS).
            if self.code.q.val() == self.c_success.val() {
                self.w_loaded.d.next =
                    (self.wghtrows.val() <= self.size8.val()) & (self.wghtcols.val() <= self.size8.val());
                self.w_rows.d.next = self.wghtrows.val();
                self.w_cols.d.next = self.wghtcols.val();
            } else {
                self.w_loaded.d.next = self.w_loaded.q.val() & self.reweights.val();
            }
            self.next.next = self.s_idle.val();
        }

        // Stop causes: the first one wins; an error response before an abort in one cycle.
        if self.in_idle.val() & self.start.val() {
            self.stop.d.next = false;
        } else if self.running.val() & !self.stop.q.val() {
            if self.mem_resp_valid.val() & self.mem_resp_error.val() {
                self.stop.d.next = true;
                self.stop_code.d.next = self.c_mem_err.val();
            } else if self.write_while_busy.val() {
                self.stop.d.next = true;
                self.stop_code.d.next = self.c_cpu_err.val();
            }
        }

        // Entering a state: the request generator of its phase.
        if self.next.val() != self.state.q.val() {
            self.issued.d.next = self.zero9.val();
            self.responses.d.next = self.zero9.val();
            if self.next.val() == self.s_bias.val() {
                self.req_addr.d.next = self.b_ptr.q.val();
            }
            if self.next.val() == self.s_sums.val() {
                self.req_addr.d.next = self.s_ptr.q.val();
            }
            if self.next.val() == self.s_wload.val() {
                self.req_addr.d.next = self.w_kt_ptr.q.val();
            }
            if self.next.val() == self.s_stream.val() {
                self.req_addr.d.next = self.x_kt_ptr.q.val();
            }
            if self.next.val() == self.s_out.val() {
                self.req_addr.d.next = self.out_ptr.q.val();
                self.out_next_row.d.next = self.zero9.val();
                self.p1.d.next = false;
                self.p2.d.next = false;
            }
            if self.next.val() == self.s_check.val() {
                self.code.d.next = self.c_unused.val();
            }
            if self.next.val() != self.s_flush.val() {
                self.writing.d.next = self.next.val() == self.s_out.val();
            }
        }
        self.state.d.next = self.next.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Engine::default(), "engine");
}
