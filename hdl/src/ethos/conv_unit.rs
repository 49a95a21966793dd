//! The convolution unit: NPU_OP_CONV and NPU_OP_DEPTHWISE (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §1.9, §2, §3.2) on the convolution datapath
//! ([`super::ConvDatapath`]), behind the front end's kernel handshake beside the kernel unit
//! (`elementwise.rs`), on the NPU's one memory port. The model is
//! `npu_model::ethos::conv_unit`; docs/ethos.md, "Convolution unit", has the structure, the
//! timing and the decisions, which are also here.
//!
//! Status: not yet in the NPU top (`npu.rs`). Wired in, `verilator -Wall` reports UNOPTFLAT
//! loops through the datapath (this block's one combinational block drives sub-block inputs
//! and reads their outputs); docs/ethos.md has the next step.
//!
//! States: IDLE; LATCH ([`super::kernel_registers`], the one table every kernel reads: the
//! maps, the scalars, the weight and scale streams and the BASEPs of their regions); CHECK (one
//! cycle; a layer the unit does not walk is `kernel_error` [`ERROR_UNSUPPORTED`], before any
//! access); RUN (the datapath runs; its sub-blocks below); FINISH (until the OFM queue is
//! written and no access is in flight); DONE (`kernel_done` with the error).
//!
//! In RUN, one read in flight for the whole unit (the arbiter's rule):
//! - the stream reader reads the weight stream (`BASEP[WEIGHT_REGION] + WEIGHT_BASE`,
//!   WEIGHT_LENGTH bytes), then the scale stream, one aligned 64-bit word at a time, and
//!   hands each to the datapath's 32-bit `w_*` / `sb_*` port as two words (`w_last` /
//!   `sb_last` on the stream's last); a weight word the datapath no longer takes (its decoder
//!   has finished or failed) is dropped;
//! - the IFM server: while the datapath shows a tap's reads in MAC, the unit holds it
//!   (`hold`), reads for each of the four positions that reads the one or two aligned words
//!   holding the group's `min(8, depth - 8g)` bytes through the IFM feature map, gathers them,
//!   and releases the hold for one cycle when all four are in; the gathered words are shown on
//!   `ifm_data0..3` from the cycle after the release until the next release (the datapath
//!   takes them in the first cycle it is not held, `conv_datapath.rs`);
//! - the OFM queue: [`QUEUE`] entries of the datapath's OFM values, each written as one
//!   strobed byte at the OFM feature map's address; the datapath is held while the queue and
//!   the value on the OFM port leave fewer than 4 entries free (the output unit's pipeline
//!   still delivers what it holds under `hold`).
//!
//! Decisions (CHECK refuses, `kernel_error` 15, STATUS.cmd_parse_error): an IFM or OFM not
//! signed 8-bit NHWC/NHCWB16; an NHWC IFM whose STRIDE_C is not 1 (the server reads a group's
//! channels as contiguous bytes); OFM rounding other than TFL (OFM_PRECISION[15:14]; the
//! datapath's output unit rounds as TFLite); ACTIVATION[4:0] ≠ 0, ACC_FORMAT > 1,
//! IFM_UPSCALE ≠ 0; an IFM, OFM, weight or scale region above 7; an IFM or OFM zero point or
//! ACTIVATION_MIN/MAX outside int8; a dilation (KERNEL_STRIDE[4:3]); a kernel side above 8; a
//! stride above 3; a top or left padding above 7; a part-kernel-first CONV (KERNEL_STRIDE[2]),
//! or a depth-first one with an IFM deeper than 32 and an OFM block depth above 8 (the
//! datapath walks Vela's weight order only for 8-channel OFM blocks there); a size above 4095
//! or an IFM extent outside 1..4095; a weight or scale stream not starting 16-byte aligned
//! (`BASEP + BASE`), or whose LENGTH is 0, not a multiple of 16 or of 2^32 bytes or more. The
//! datapath's own errors (shape, weight or scale stream) are [`ERROR_UNSUPPORTED`] too. A
//! read error is [`ERROR_WEIGHTS`], [`ERROR_SCALE`] or [`ERROR_IFM`] (the TRM's
//! faulting_channel of the stream), a write error [`ERROR_OFM`]; the unit then starts no new
//! access and stops when those in flight are answered.

/// `kernel_error` codes (the TRM's faulting_channel codes, digest §4; 15: not implemented).
pub const ERROR_IFM: u8 = 1;
pub const ERROR_WEIGHTS: u8 = 2;
pub const ERROR_SCALE: u8 = 3;
pub const ERROR_OFM: u8 = 8;
pub const ERROR_UNSUPPORTED: u8 = 15;
/// The OFM queue's entries.
pub const QUEUE: usize = 8;

/// States (the model names them in its events).
pub mod state {
    pub const IDLE: u8 = 0;
    pub const LATCH: u8 = 1;
    pub const CHECK: u8 = 2;
    pub const RUN: u8 = 3;
    pub const FINISH: u8 = 4;
    pub const DONE: u8 = 5;
}

use super::conv_datapath::ConvDatapath;
use super::conv_ports::{ConvHold, StreamPort};
use super::feature_map::FeatureMap;
use super::kernel_registers::KernelRegisters;
use crate::primitives::{Concat, Reg, RegFile, ZeroExtend};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

/// The datapath's DECODE and MAC states (`conv_datapath.rs`).
const DP_DECODE: u64 = 2;
const DP_MAC: u64 = 4;

/// The unit. Sub-blocks: the LATCH registers, the IFM and OFM feature maps, the datapath, the
/// gathered IFM words (two banks of four: one shown to the datapath, one filling) and the OFM
/// queue.
#[derive(LogicBlock)]
pub struct ConvUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    pub kernel_op: Signal<In, Bits<2>>,
    pub debug_value: Signal<In, Bits<48>>,
    pub mem_ar_ready: Signal<In, Bit>,
    pub mem_r_valid: Signal<In, Bit>,
    pub mem_r_data: Signal<In, Bits<64>>,
    pub mem_r_error: Signal<In, Bit>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    pub kernel_done: Signal<Out, Bit>,
    pub kernel_error: Signal<Out, Bits<4>>,
    pub debug_index: Signal<Out, Bits<7>>,
    pub debug_hold: Signal<Out, Bit>,
    pub mem_ar_valid: Signal<Out, Bit>,
    pub mem_ar_addr: Signal<Out, Bits<40>>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    registers: KernelRegisters,
    ifm: FeatureMap,
    ofm: FeatureMap,
    datapath: ConvDatapath,
    ports: ConvHold,
    stream: StreamPort,
    taken: Signal<Local, Bit>,
    /// The IFM extent's low 12 bits and the datapath's start, registered (see `conv_ports.rs`).
    h_q: Reg<Bits<12>>,
    w_q: Reg<Bits<12>>,
    dp_start: Reg<Bit>,
    /// Gathered IFM words: address {bank, position}.
    words: RegFile<64, 3, 1, 4>,
    /// OFM queue entries {y, x, c, data}.
    queue: RegFile<44, 3, 1, 1>,
    entry_yx: Concat<12, 12, 24>,
    entry_yxc: Concat<24, 12, 36>,
    entry: Concat<36, 8, 44>,
    head_y: ZeroExtend<12, 16>,
    head_x: ZeroExtend<12, 16>,
    head_c: ZeroExtend<12, 16>,
    ifm_y: ZeroExtend<12, 16>,
    ifm_x: ZeroExtend<12, 16>,
    ifm_g: ZeroExtend<9, 16>,
    oh: ZeroExtend<16, 20>,
    ow: ZeroExtend<16, 20>,
    kh: ZeroExtend<16, 20>,
    kw: ZeroExtend<16, 20>,
    pt: ZeroExtend<16, 20>,
    pb: ZeroExtend<16, 20>,
    pl: ZeroExtend<16, 20>,
    pr: ZeroExtend<16, 20>,
    rem17: ZeroExtend<16, 17>,
    off17: ZeroExtend<3, 17>,
    byte16: Concat<8, 8, 16>,
    byte32: Concat<16, 16, 32>,
    byte64: Concat<32, 32, 64>,
    // State.
    state: Reg<Bits<3>>,
    depthwise: Reg<Bit>,
    error: Reg<Bits<4>>,
    rd: Reg<Bits<2>>,
    rd_addr: Reg<Bits<40>>,
    rd_for: Reg<Bits<2>>,
    rd_last: Reg<Bit>,
    sr_stream: Reg<Bits<2>>,
    sr_addr: Reg<Bits<40>>,
    sr_words: Reg<Bits<29>>,
    sr_buf: Reg<Bits<64>>,
    sr_halves: Reg<Bits<2>>,
    sr_buf_scale: Reg<Bit>,
    sr_buf_last: Reg<Bit>,
    ifs_p: Reg<Bits<2>>,
    ifs_word: Reg<Bit>,
    ifs_ready: Reg<Bit>,
    /// The first word of a group across two, shifted; the bank shown to the datapath.
    first: Reg<Bits<64>>,
    bank: Reg<Bits<1>>,
    q_head: Reg<Bits<3>>,
    q_count: Reg<Bits<4>>,
    wr: Reg<Bits<2>>,
    w_addr: Reg<Bits<40>>,
    w_data: Reg<Bits<64>>,
    w_strb: Reg<Bits<8>>,
    // Combinational.
    running: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    h: Signal<Local, Bits<20>>,
    h1: Signal<Local, Bits<20>>,
    h2: Signal<Local, Bits<20>>,
    w1: Signal<Local, Bits<20>>,
    w2: Signal<Local, Bits<20>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    w: Signal<Local, Bits<20>>,
    weight_start: Signal<Local, Bits<40>>,
    scale_start: Signal<Local, Bits<40>>,
    sr_wants: Signal<Local, Bit>,
    serving: Signal<Local, Bit>,
    sel_read: Signal<Local, Bit>,
    sel_y: Signal<Local, Bits<12>>,
    sel_x: Signal<Local, Bits<12>>,
    sel_g: Signal<Local, Bits<9>>,
    off: Signal<Local, Bits<3>>,
    two_words: Signal<Local, Bit>,
    lane: Signal<Local, Bits<3>>,
    unused_bits: Signal<Local, Bit>,
    read_at0: Concat<1, 2, 3>,
    read_at1: Concat<1, 2, 3>,
    read_at2: Concat<1, 2, 3>,
    read_at3: Concat<1, 2, 3>,
    write_at: Concat<1, 2, 3>,
    off7: ZeroExtend<3, 7>,
    shift: Signal<Local, Bits<7>>,
    tail: Signal<Local, Bits<3>>,
    s_idle: Constant<Bits<3>>,
    s_latch: Constant<Bits<3>>,
    s_check: Constant<Bits<3>>,
    s_run: Constant<Bits<3>>,
    s_finish: Constant<Bits<3>>,
    s_done: Constant<Bits<3>>,
    three7: Constant<Bits<7>>,
    sixty_four7: Constant<Bits<7>>,
    dp_mac: Constant<Bits<3>>,
    dp_decode: Constant<Bits<3>>,
    e_none: Constant<Bits<4>>,
    e_ifm: Constant<Bits<4>>,
    e_weights: Constant<Bits<4>>,
    e_scale: Constant<Bits<4>>,
    e_ofm: Constant<Bits<4>>,
    e_unsupported: Constant<Bits<4>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    z9: Constant<Bits<9>>,
    o9: Constant<Bits<9>>,
    zero16: Constant<Bits<16>>,
    seven16: Constant<Bits<16>>,
    thirty_one16: Constant<Bits<16>>,
    max_m1: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero20: Constant<Bits<20>>,
    one20: Constant<Bits<20>>,
    max20: Constant<Bits<20>>,
    zero40: Constant<Bits<40>>,
    fifteen40: Constant<Bits<40>>,
    eight40: Constant<Bits<40>>,
    align40: Constant<Bits<40>>,
    one40: Constant<Bits<40>>,
    zero29: Constant<Bits<29>>,
    one29: Constant<Bits<29>>,
    eight17: Constant<Bits<17>>,
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    one12: Constant<Bits<12>>,
    one8: Constant<Bits<8>>,
    one3: Constant<Bits<3>>,
    three3: Constant<Bits<3>>,
    zero3: Constant<Bits<3>>,
    zero5: Constant<Bits<5>>,
}

impl Default for ConvUnit {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            debug_value: Default::default(),
            mem_ar_ready: Default::default(),
            mem_r_valid: Default::default(),
            mem_r_data: Default::default(),
            mem_r_error: Default::default(),
            mem_aw_ready: Default::default(),
            mem_b_valid: Default::default(),
            mem_b_error: Default::default(),
            kernel_done: Default::default(),
            kernel_error: Default::default(),
            debug_index: Default::default(),
            debug_hold: Default::default(),
            mem_ar_valid: Default::default(),
            mem_ar_addr: Default::default(),
            mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(),
            mem_w_data: Default::default(),
            mem_w_strb: Default::default(),
            registers: Default::default(),
            ifm: Default::default(),
            ofm: Default::default(),
            datapath: Default::default(),
            ports: Default::default(),
            stream: Default::default(),
            taken: Default::default(),
            h_q: Default::default(),
            w_q: Default::default(),
            dp_start: Default::default(),
            words: Default::default(),
            queue: Default::default(),
            entry_yx: Default::default(),
            entry_yxc: Default::default(),
            entry: Default::default(),
            head_y: Default::default(),
            head_x: Default::default(),
            head_c: Default::default(),
            ifm_y: Default::default(),
            ifm_x: Default::default(),
            ifm_g: Default::default(),
            oh: Default::default(),
            ow: Default::default(),
            kh: Default::default(),
            kw: Default::default(),
            pt: Default::default(),
            pb: Default::default(),
            pl: Default::default(),
            pr: Default::default(),
            rem17: Default::default(),
            off17: Default::default(),
            byte16: Default::default(),
            byte32: Default::default(),
            byte64: Default::default(),
            state: Default::default(),
            depthwise: Default::default(),
            error: Default::default(),
            rd: Default::default(),
            rd_addr: Default::default(),
            rd_for: Default::default(),
            rd_last: Default::default(),
            sr_stream: Default::default(),
            sr_addr: Default::default(),
            sr_words: Default::default(),
            sr_buf: Default::default(),
            sr_halves: Default::default(),
            sr_buf_scale: Default::default(),
            sr_buf_last: Default::default(),
            ifs_p: Default::default(),
            ifs_word: Default::default(),
            ifs_ready: Default::default(),
            first: Default::default(),
            bank: Default::default(),
            q_head: Default::default(),
            q_count: Default::default(),
            wr: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            running: Default::default(),
            ok: Default::default(),
            bad: Default::default(),
            start: Default::default(),
            h: Default::default(),
            h1: Default::default(),
            h2: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            w: Default::default(),
            weight_start: Default::default(),
            scale_start: Default::default(),
            sr_wants: Default::default(),
            serving: Default::default(),
            sel_read: Default::default(),
            sel_y: Default::default(),
            sel_x: Default::default(),
            sel_g: Default::default(),
            off: Default::default(),
            two_words: Default::default(),
            lane: Default::default(),
            unused_bits: Default::default(),
            read_at0: Default::default(),
            read_at1: Default::default(),
            read_at2: Default::default(),
            read_at3: Default::default(),
            write_at: Default::default(),
            off7: Default::default(),
            shift: Default::default(),
            tail: Default::default(),
            s_idle: k(state::IDLE.into()),
            s_latch: k(state::LATCH.into()),
            s_check: k(state::CHECK.into()),
            s_run: k(state::RUN.into()),
            s_finish: k(state::FINISH.into()),
            s_done: k(state::DONE.into()),
            three7: k(3),
            sixty_four7: k(64),
            dp_mac: k(DP_MAC),
            dp_decode: k(DP_DECODE),
            e_none: k(0),
            e_ifm: k(ERROR_IFM.into()),
            e_weights: k(ERROR_WEIGHTS.into()),
            e_scale: k(ERROR_SCALE.into()),
            e_ofm: k(ERROR_OFM.into()),
            e_unsupported: k(ERROR_UNSUPPORTED.into()),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
            three2: k(3),
            z9: k(0),
            o9: k(0x1ff),
            zero16: k(0),
            seven16: k(7),
            thirty_one16: k(31),
            max_m1: k(4094),
            one16: k(1),
            zero20: k(0),
            one20: k(1),
            max20: k(4095),
            zero40: k(0),
            fifteen40: k(15),
            eight40: k(8),
            align40: k(((1u64 << 40) - 1) & !7),
            one40: k(1),
            zero29: k(0),
            one29: k(1),
            eight17: k(8),
            zero4: k(0),
            one4: k(1),
            one12: k(1),
            one8: k(1),
            one3: k(1),
            three3: k(3),
            zero3: k(0),
            zero5: k(0),
        }
    }
}

impl Logic for ConvUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, h_q, w_q, dp_start, depthwise, error, rd, rd_addr, rd_for, rd_last, sr_stream, sr_addr, sr_words, sr_buf, sr_halves, sr_buf_scale, sr_buf_last, ifs_p, ifs_word, ifs_ready, first, bank, q_head, q_count, wr, w_addr, w_data, w_strb);
        self.state.reset.next = self.reset.val();
        self.depthwise.reset.next = self.reset.val();
        self.h_q.reset.next = self.reset.val();
        self.w_q.reset.next = self.reset.val();
        self.dp_start.reset.next = self.reset.val();
        self.error.reset.next = self.reset.val();
        self.rd.reset.next = self.reset.val();
        self.rd_addr.reset.next = self.reset.val();
        self.rd_for.reset.next = self.reset.val();
        self.rd_last.reset.next = self.reset.val();
        self.sr_stream.reset.next = self.reset.val();
        self.sr_addr.reset.next = self.reset.val();
        self.sr_words.reset.next = self.reset.val();
        self.sr_buf.reset.next = self.reset.val();
        self.sr_halves.reset.next = self.reset.val();
        self.sr_buf_scale.reset.next = self.reset.val();
        self.sr_buf_last.reset.next = self.reset.val();
        self.ifs_p.reset.next = self.reset.val();
        self.ifs_word.reset.next = self.reset.val();
        self.ifs_ready.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.bank.reset.next = self.reset.val();
        self.q_head.reset.next = self.reset.val();
        self.q_count.reset.next = self.reset.val();
        self.wr.reset.next = self.reset.val();
        self.w_addr.reset.next = self.reset.val();
        self.w_data.reset.next = self.reset.val();
        self.w_strb.reset.next = self.reset.val();
        self.registers.clock.next = self.clock.val();
        self.registers.reset.next = self.reset.val();
        self.ifm.clock.next = self.clock.val();
        self.ofm.clock.next = self.clock.val();
        self.datapath.clock.next = self.clock.val();
        self.words.clock.next = self.clock.val();
        self.queue.clock.next = self.clock.val();

        // LATCH, started by a CONV or DEPTHWISE (the top routes only those here).
        self.registers.start.next = (self.state.q.val() == self.s_idle.val()) & self.kernel_start.val();
        self.registers.debug_value.next = self.debug_value.val();
        self.debug_index.next = self.registers.debug_index.val();
        self.debug_hold.next = self.registers.debug_hold.val();
        self.ifm.load.next = self.registers.ifm_load.val();
        self.ofm.load.next = self.registers.ofm_load.val();
        self.ifm.load_slot.next = self.registers.load_slot.val();
        self.ofm.load_slot.next = self.registers.load_slot.val();
        self.ifm.load_value.next = self.registers.load_value.val();
        self.ofm.load_value.next = self.registers.load_value.val();

        // The IFM extent, `(OFM - 1)·stride + kernel - pads` in 20 bits (exact for strides up
        // to 4; larger ones are refused).
        self.oh.narrow.next = self.registers.ofm_height_m1.val();
        self.ow.narrow.next = self.registers.ofm_width_m1.val();
        self.kh.narrow.next = self.registers.kernel_height_m1.val();
        self.kw.narrow.next = self.registers.kernel_width_m1.val();
        self.pt.narrow.next = self.registers.ifm_pad_top.val();
        self.pb.narrow.next = self.registers.ifm_pad_bottom.val();
        self.pl.narrow.next = self.registers.ifm_pad_left.val();
        self.pr.narrow.next = self.registers.ifm_pad_right.val();
        self.h1.next = self.zero20.val();
        if self.registers.kernel_stride.val().get_bit(1) {
            self.h1.next = self.oh.wide.val();
        }
        self.h2.next = self.zero20.val();
        if self.registers.kernel_stride.val().get_bit(9) {
            self.h2.next = self.oh.wide.val() + self.oh.wide.val();
        }
        self.w1.next = self.zero20.val();
        if self.registers.kernel_stride.val().get_bit(0) {
            self.w1.next = self.ow.wide.val();
        }
        self.w2.next = self.zero20.val();
        if self.registers.kernel_stride.val().get_bit(6) {
            self.w2.next = self.ow.wide.val() + self.ow.wide.val();
        }
        self.h.next = self.oh.wide.val() + self.h1.val() + self.h2.val() + self.kh.wide.val() + self.one20.val() - self.pt.wide.val() - self.pb.wide.val();
        self.w.next = self.ow.wide.val() + self.w1.val() + self.w2.val() + self.kw.wide.val() + self.one20.val() - self.pl.wide.val() - self.pr.wide.val();
        self.weight_start.next = self.registers.weight_basep.val() + self.registers.weight_base.val();
        self.scale_start.next = self.registers.scale_basep.val() + self.registers.scale_base.val();

        // CHECK: what the unit does not walk (the module's decisions).
        self.bad.next = !self.registers.ifm_precision.val().get_bit(0)
            | (self.registers.ifm_precision.val().get_bits::<2>(2) != self.zero2.val())
            | (self.registers.ifm_precision.val().get_bits::<2>(6) > self.one2.val())
            | !self.registers.ofm_precision.val().get_bit(0)
            | (self.registers.ofm_precision.val().get_bits::<2>(1) != self.zero2.val())
            | (self.registers.ofm_precision.val().get_bits::<2>(6) > self.one2.val())
            | (self.registers.ofm_precision.val().get_bits::<2>(14) != self.zero2.val())
            | ((self.registers.ifm_precision.val().get_bits::<2>(6) == self.zero2.val()) & (self.registers.ifm_stride_c.val() != self.one40.val()))
            | (self.registers.activation.val() != self.zero5.val())
            | (self.registers.acc_format.val() > self.one16.val())
            | (self.registers.ifm_upscale.val() != self.zero16.val())
            | (self.registers.ifm_region.val() > self.seven16.val())
            | (self.registers.ofm_region.val() > self.seven16.val())
            | (self.registers.weight_region.val() > self.seven16.val())
            | (self.registers.scale_region.val() > self.seven16.val())
            | ((self.registers.ifm_zero_point.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.ifm_zero_point.val().get_bits::<9>(7) != self.o9.val()))
            | ((self.registers.ofm_zero_point.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.ofm_zero_point.val().get_bits::<9>(7) != self.o9.val()))
            | ((self.registers.activation_min.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.activation_min.val().get_bits::<9>(7) != self.o9.val()))
            | ((self.registers.activation_max.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.activation_max.val().get_bits::<9>(7) != self.o9.val()))
            | self.registers.kernel_stride.val().get_bits::<2>(3).any()
            | (self.registers.kernel_height_m1.val() > self.seven16.val())
            | (self.registers.kernel_width_m1.val() > self.seven16.val())
            | self.registers.kernel_stride.val().get_bits::<2>(10).any()
            | self.registers.kernel_stride.val().get_bits::<2>(7).any()
            | (self.registers.kernel_stride.val().get_bit(9) & self.registers.kernel_stride.val().get_bit(1))
            | (self.registers.kernel_stride.val().get_bit(6) & self.registers.kernel_stride.val().get_bit(0))
            | (self.registers.ifm_pad_top.val() > self.seven16.val())
            | (self.registers.ifm_pad_left.val() > self.seven16.val())
            | (!self.depthwise.q.val() & self.registers.kernel_stride.val().get_bit(2))
            | (!self.depthwise.q.val() & (self.registers.ifm_depth_m1.val() > self.thirty_one16.val()) & (self.registers.ofm_blk_depth_m1.val() > self.seven16.val()))
            | (self.registers.ofm_height_m1.val() > self.max_m1.val())
            | (self.registers.ofm_width_m1.val() > self.max_m1.val())
            | (self.registers.ofm_depth_m1.val() > self.max_m1.val())
            | (self.registers.ifm_depth_m1.val() > self.max_m1.val())
            | (self.h.val() < self.one20.val())
            | (self.h.val() > self.max20.val())
            | (self.w.val() < self.one20.val())
            | (self.w.val() > self.max20.val())
            | ((self.weight_start.val() & self.fifteen40.val()) != self.zero40.val())
            | ((self.scale_start.val() & self.fifteen40.val()) != self.zero40.val())
            | ((self.registers.weight_length.val() & self.fifteen40.val()) != self.zero40.val())
            | (self.registers.weight_length.val() == self.zero40.val())
            | self.registers.weight_length.val().get_bits::<8>(32).any()
            | ((self.registers.scale_length.val() & self.fifteen40.val()) != self.zero40.val())
            | (self.registers.scale_length.val() == self.zero40.val())
            | self.registers.scale_length.val().get_bits::<8>(32).any();
        self.start.next = (self.state.q.val() == self.s_check.val()) & !self.bad.val();
        self.running.next = self.state.q.val() == self.s_run.val();
        self.ok.next = self.error.q.val() == self.e_none.val();

        // The datapath's layer registers from the latched copies.
        self.datapath.reset.next = self.reset.val() | (self.state.q.val() == self.s_done.val());
        self.dp_start.d.next = self.start.val();
        self.datapath.start.next = self.dp_start.q.val();
        self.h_q.d.next = self.h.val().get_bits::<12>(0);
        self.w_q.d.next = self.w.val().get_bits::<12>(0);
        self.datapath.ifm_height.next = self.h_q.q.val();
        self.datapath.ifm_width.next = self.w_q.q.val();
        self.datapath.ifm_depth.next = self.registers.ifm_depth_m1.val().get_bits::<12>(0) + self.one12.val();
        self.datapath.ofm_height.next = self.registers.ofm_height_m1.val().get_bits::<12>(0) + self.one12.val();
        self.datapath.ofm_width.next = self.registers.ofm_width_m1.val().get_bits::<12>(0) + self.one12.val();
        self.datapath.ofm_depth.next = self.registers.ofm_depth_m1.val().get_bits::<12>(0) + self.one12.val();
        self.datapath.kernel_height.next = self.registers.kernel_height_m1.val().get_bits::<4>(0) + self.one4.val();
        self.datapath.kernel_width.next = self.registers.kernel_width_m1.val().get_bits::<4>(0) + self.one4.val();
        self.datapath.stride_y.next = self.one2.val();
        if self.registers.kernel_stride.val().get_bit(1) {
            self.datapath.stride_y.next = self.two2.val();
        }
        if self.registers.kernel_stride.val().get_bit(9) {
            self.datapath.stride_y.next = self.three2.val();
        }
        self.datapath.stride_x.next = self.one2.val();
        if self.registers.kernel_stride.val().get_bit(0) {
            self.datapath.stride_x.next = self.two2.val();
        }
        if self.registers.kernel_stride.val().get_bit(6) {
            self.datapath.stride_x.next = self.three2.val();
        }
        self.datapath.pad_top.next = self.registers.ifm_pad_top.val().get_bits::<3>(0);
        self.datapath.pad_left.next = self.registers.ifm_pad_left.val().get_bits::<3>(0);
        self.datapath.depthwise.next = self.depthwise.q.val();
        self.datapath.ifm_zero_point.next = self.registers.ifm_zero_point.val().get_bits::<8>(0);
        self.datapath.ofm_zero_point.next = self.registers.ofm_zero_point.val().get_bits::<8>(0);
        self.datapath.act_min.next = self.registers.activation_min.val().get_bits::<8>(0);
        self.datapath.act_max.next = self.registers.activation_max.val().get_bits::<8>(0);

        // Hold, release and the stream port (`conv_ports.rs`).
        self.ports.running.next = self.running.val();
        self.ports.dp_state.next = self.datapath.state.val();
        self.ports.dp_ofm_valid.next = self.datapath.ofm_valid.val();
        self.ports.ifs_ready.next = self.ifs_ready.q.val();
        self.ports.q_count.next = self.q_count.q.val();
        self.datapath.hold.next = self.ports.hold.val();
        self.stream.running.next = self.running.val();
        self.stream.sr_buf.next = self.sr_buf.q.val();
        self.stream.sr_halves.next = self.sr_halves.q.val();
        self.stream.sr_buf_scale.next = self.sr_buf_scale.q.val();
        self.stream.sr_buf_last.next = self.sr_buf_last.q.val();
        self.datapath.w_valid.next = self.stream.w_valid.val();
        self.datapath.w_data.next = self.stream.data.val();
        self.datapath.w_last.next = self.stream.last.val();
        self.datapath.sb_valid.next = self.stream.sb_valid.val();
        self.datapath.sb_data.next = self.stream.data.val();
        self.datapath.sb_last.next = self.stream.last.val();
        self.datapath.sb_bytes_m1.next = self.three2.val();
        // The word shown leaves the buffer: taken, or (weights) dropped after the decoder.
        self.taken.next = (self.stream.w_valid.val() & (self.datapath.w_ready.val() | (self.datapath.state.val() > self.dp_decode.val())))
            | (self.stream.sb_valid.val() & self.datapath.sb_ready.val());

        // The IFM words shown to the datapath (bank `bank`), and the position served.
        self.read_at0.high.next = self.bank.q.val();
        self.read_at1.high.next = self.bank.q.val();
        self.read_at2.high.next = self.bank.q.val();
        self.read_at3.high.next = self.bank.q.val();
        self.read_at0.low.next = self.zero2.val();
        self.read_at1.low.next = self.one2.val();
        self.read_at2.low.next = self.two2.val();
        self.read_at3.low.next = self.three2.val();
        self.words.read_address[0].next = self.read_at0.joined.val();
        self.words.read_address[1].next = self.read_at1.joined.val();
        self.words.read_address[2].next = self.read_at2.joined.val();
        self.words.read_address[3].next = self.read_at3.joined.val();
        self.datapath.ifm_data0.next = self.words.read_data[0].val();
        self.datapath.ifm_data1.next = self.words.read_data[1].val();
        self.datapath.ifm_data2.next = self.words.read_data[2].val();
        self.datapath.ifm_data3.next = self.words.read_data[3].val();
        self.sel_read.next = self.datapath.ifm_read0.val();
        self.sel_y.next = self.datapath.ifm_y0.val();
        self.sel_x.next = self.datapath.ifm_x0.val();
        self.sel_g.next = self.datapath.ifm_group0.val();
        if self.ifs_p.q.val() == self.one2.val() {
            self.sel_read.next = self.datapath.ifm_read1.val();
            self.sel_y.next = self.datapath.ifm_y1.val();
            self.sel_x.next = self.datapath.ifm_x1.val();
            self.sel_g.next = self.datapath.ifm_group1.val();
        }
        if self.ifs_p.q.val() == self.two2.val() {
            self.sel_read.next = self.datapath.ifm_read2.val();
            self.sel_y.next = self.datapath.ifm_y2.val();
            self.sel_x.next = self.datapath.ifm_x2.val();
            self.sel_g.next = self.datapath.ifm_group2.val();
        }
        if self.ifs_p.q.val() == self.three2.val() {
            self.sel_read.next = self.datapath.ifm_read3.val();
            self.sel_y.next = self.datapath.ifm_y3.val();
            self.sel_x.next = self.datapath.ifm_x3.val();
            self.sel_g.next = self.datapath.ifm_group3.val();
        }
        self.ifm_y.narrow.next = self.sel_y.val();
        self.ifm_x.narrow.next = self.sel_x.val();
        self.ifm_g.narrow.next = self.sel_g.val();
        self.ifm.y.next = self.ifm_y.wide.val();
        self.ifm.x.next = self.ifm_x.wide.val();
        self.ifm.c.next = self.ifm_g.wide.val() << self.three3.val();
        // The group's bytes cross into a second word when offset + min(8, depth - 8g) > 8.
        self.off.next = self.ifm.address.val().get_bits::<3>(0);
        self.rem17.narrow.next = self.registers.ifm_depth_m1.val() + self.one16.val() - (self.ifm_g.wide.val() << self.three3.val());
        self.off17.narrow.next = self.off.val();
        self.two_words.next = (self.rem17.wide.val() + self.off17.wide.val()) > self.eight17.val();
        self.off7.narrow.next = self.off.val();
        self.shift.next = self.off7.wide.val() << self.three7.val();
        self.write_at.high.next = !self.bank.q.val();
        self.write_at.low.next = self.ifs_p.q.val();
        self.words.write_address[0].next = self.write_at.joined.val();
        self.words.write_enable[0].next = false;
        self.words.write_data[0].next = self.mem_r_data.val() >> self.shift.val();
        if self.ifs_word.q.val() {
            self.words.write_data[0].next = self.first.q.val() | (self.mem_r_data.val() << (self.sixty_four7.val() - self.shift.val()));
        }

        // The read channel: the stream reader first, then the IFM server (from the registers at
        // the cycle's start).
        self.sr_wants.next = self.running.val()
            & self.ok.val()
            & (self.rd.q.val() == self.zero2.val())
            & (self.sr_stream.q.val() < self.two2.val())
            & (self.sr_halves.q.val() == self.zero2.val())
            & (self.sr_words.q.val() != self.zero29.val());
        self.serving.next = self.running.val() & self.ok.val() & (self.datapath.state.val() == self.dp_mac.val()) & !self.ifs_ready.q.val();
        self.mem_ar_valid.next = self.rd.q.val() == self.one2.val();
        self.mem_ar_addr.next = self.rd_addr.q.val();
        if (self.rd.q.val() == self.one2.val()) & self.mem_ar_ready.val() {
            self.rd.d.next = self.two2.val();
        }
        if (self.rd.q.val() == self.two2.val()) & self.mem_r_valid.val() {
            self.rd.d.next = self.zero2.val();
            if self.mem_r_error.val() {
                if self.ok.val() {
                    self.error.d.next = self.e_ifm.val();
                    if self.rd_for.q.val() == self.zero2.val() {
                        self.error.d.next = self.e_weights.val();
                    }
                    if self.rd_for.q.val() == self.one2.val() {
                        self.error.d.next = self.e_scale.val();
                    }
                }
            } else if self.rd_for.q.val() == self.two2.val() {
                if self.serving.val() {
                    if !self.ifs_word.q.val() & self.two_words.val() {
                        self.first.d.next = self.mem_r_data.val() >> self.shift.val();
                        self.ifs_word.d.next = true;
                    } else {
                        self.words.write_enable[0].next = true;
                        self.ifs_word.d.next = false;
                        if self.ifs_p.q.val() == self.three2.val() {
                            self.ifs_ready.d.next = true;
                        } else {
                            self.ifs_p.d.next = self.ifs_p.q.val() + self.one2.val();
                        }
                    }
                }
            } else {
                self.sr_buf.d.next = self.mem_r_data.val();
                self.sr_halves.d.next = self.two2.val();
                self.sr_buf_scale.d.next = self.rd_for.q.val() == self.one2.val();
                self.sr_buf_last.d.next = self.rd_last.q.val();
            }
        }
        if self.taken.val() {
            self.sr_halves.d.next = self.sr_halves.q.val() - self.one2.val();
        }
        if self.ports.tap_release.val() {
            self.bank.d.next = !self.bank.q.val();
            self.ifs_ready.d.next = false;
            self.ifs_p.d.next = self.zero2.val();
            self.ifs_word.d.next = false;
        } else if self.sr_wants.val() {
            self.rd.d.next = self.one2.val();
            self.rd_addr.d.next = self.sr_addr.q.val();
            self.rd_for.d.next = self.sr_stream.q.val();
            self.sr_words.d.next = self.sr_words.q.val() - self.one29.val();
            self.rd_last.d.next = self.sr_words.q.val() == self.one29.val();
            self.sr_addr.d.next = self.sr_addr.q.val() + self.eight40.val();
            if self.sr_words.q.val() == self.one29.val() {
                self.sr_stream.d.next = self.sr_stream.q.val() + self.one2.val();
                self.sr_addr.d.next = self.scale_start.val();
                self.sr_words.d.next = self.registers.scale_length.val().get_bits::<29>(3);
            }
        } else if self.serving.val() & (self.rd.q.val() == self.zero2.val()) {
            if self.sel_read.val() {
                self.rd.d.next = self.one2.val();
                self.rd_addr.d.next = self.ifm.address.val() & self.align40.val();
                if self.ifs_word.q.val() {
                    self.rd_addr.d.next = (self.ifm.address.val() & self.align40.val()) + self.eight40.val();
                }
                self.rd_for.d.next = self.two2.val();
            } else if self.ifs_p.q.val() == self.three2.val() {
                self.ifs_ready.d.next = true;
            } else {
                self.ifs_p.d.next = self.ifs_p.q.val() + self.one2.val();
            }
        }

        // The OFM queue and the write channel.
        self.entry_yx.high.next = self.datapath.ofm_y.val();
        self.entry_yx.low.next = self.datapath.ofm_x.val();
        self.entry_yxc.high.next = self.entry_yx.joined.val();
        self.entry_yxc.low.next = self.datapath.ofm_channel.val();
        self.entry.high.next = self.entry_yxc.joined.val();
        self.entry.low.next = self.datapath.ofm_data.val().get_bits::<8>(0);
        self.queue.read_address[0].next = self.q_head.q.val();
        self.head_y.narrow.next = self.queue.read_data[0].val().get_bits::<12>(32);
        self.head_x.narrow.next = self.queue.read_data[0].val().get_bits::<12>(20);
        self.head_c.narrow.next = self.queue.read_data[0].val().get_bits::<12>(8);
        self.ofm.y.next = self.head_y.wide.val();
        self.ofm.x.next = self.head_x.wide.val();
        self.ofm.c.next = self.head_c.wide.val();
        self.lane.next = self.ofm.address.val().get_bits::<3>(0);
        self.byte16.high.next = self.queue.read_data[0].val().get_bits::<8>(0);
        self.byte16.low.next = self.queue.read_data[0].val().get_bits::<8>(0);
        self.byte32.high.next = self.byte16.joined.val();
        self.byte32.low.next = self.byte16.joined.val();
        self.byte64.high.next = self.byte32.joined.val();
        self.byte64.low.next = self.byte32.joined.val();
        self.mem_aw_valid.next = self.wr.q.val() == self.one2.val();
        self.mem_aw_addr.next = self.w_addr.q.val();
        self.mem_w_data.next = self.w_data.q.val();
        self.mem_w_strb.next = self.w_strb.q.val();
        self.tail.next = self.q_head.q.val() + self.q_count.q.val().get_bits::<3>(0);
        if (self.wr.q.val() == self.one2.val()) & self.mem_aw_ready.val() {
            self.wr.d.next = self.two2.val();
        }
        if (self.wr.q.val() == self.two2.val()) & self.mem_b_valid.val() {
            self.wr.d.next = self.zero2.val();
            if self.mem_b_error.val() & (self.error.q.val() == self.e_none.val()) {
                self.error.d.next = self.e_ofm.val();
            }
        }
        self.pop.next = (self.wr.q.val() == self.zero2.val()) & self.ok.val() & (self.q_count.q.val() != self.zero4.val());
        if self.pop.val() {
            self.w_addr.d.next = self.ofm.address.val() & self.align40.val();
            self.w_strb.d.next = self.one8.val() << self.lane.val();
            self.w_data.d.next = self.byte64.joined.val();
            self.wr.d.next = self.one2.val();
            self.q_head.d.next = self.q_head.q.val() + self.one3.val();
        }
        self.push.next = self.datapath.ofm_valid.val() & self.running.val();
        self.queue.write_enable[0].next = self.push.val();
        self.queue.write_address[0].next = self.tail.val();
        self.queue.write_data[0].next = self.entry.joined.val();
        self.q_count.d.next = self.q_count.q.val();
        if self.push.val() & !self.pop.val() {
            self.q_count.d.next = self.q_count.q.val() + self.one4.val();
        }
        if !self.push.val() & self.pop.val() {
            self.q_count.d.next = self.q_count.q.val() - self.one4.val();
        }

        // The unit's states.
        self.kernel_done.next = self.state.q.val() == self.s_done.val();
        self.kernel_error.next = self.e_none.val();
        if self.state.q.val() == self.s_done.val() {
            self.kernel_error.next = self.error.q.val();
        }
        if self.state.q.val() == self.s_idle.val() {
            if self.kernel_start.val() {
                self.state.d.next = self.s_latch.val();
                self.depthwise.d.next = self.kernel_op.val().get_bit(0);
            }
        } else if self.state.q.val() == self.s_latch.val() {
            if self.registers.latched.val() {
                self.state.d.next = self.s_check.val();
            }
        } else if self.state.q.val() == self.s_check.val() {
            self.error.d.next = self.e_none.val();
            self.ifs_p.d.next = self.zero2.val();
            self.ifs_word.d.next = false;
            self.ifs_ready.d.next = false;
            self.q_head.d.next = self.zero3.val();
            self.q_count.d.next = self.zero4.val();
            self.sr_halves.d.next = self.zero2.val();
            if self.start.val() {
                self.state.d.next = self.s_run.val();
                self.sr_stream.d.next = self.zero2.val();
                self.sr_addr.d.next = self.weight_start.val();
                self.sr_words.d.next = self.registers.weight_length.val().get_bits::<29>(3);
            } else {
                self.error.d.next = self.e_unsupported.val();
                self.state.d.next = self.s_done.val();
            }
        } else if self.state.q.val() == self.s_run.val() {
            if !self.ok.val() {
                self.state.d.next = self.s_finish.val();
            } else if self.datapath.done.val() {
                if self.datapath.error_code.val().any() {
                    self.error.d.next = self.e_unsupported.val();
                }
                self.state.d.next = self.s_finish.val();
            }
        } else if self.state.q.val() == self.s_finish.val() {
            if (self.rd.q.val() == self.zero2.val()) & (self.wr.q.val() == self.zero2.val()) & ((self.q_count.q.val() == self.zero4.val()) | !self.ok.val()) {
                self.state.d.next = self.s_done.val();
            }
        } else {
            self.state.d.next = self.s_idle.val();
        }
        self.unused_bits.next = self.datapath.busy.val()
            | self.datapath.error_detail.val().any()
            | self.datapath.ofm_data.val().get_bits::<8>(8).any()
            | self.registers.ifm2_region.val().any()
            | self.registers.ifm2_zero_point.val().any()
            | self.registers.ifm2_precision.val().any()
            | self.registers.ifm2_broadcast.val().any()
            | self.registers.ifm2_scalar.val().any()
            | self.registers.opa_scale.val().any()
            | self.registers.opb_scale.val().any()
            | self.registers.ofm_scale.val().any()
            | self.registers.ifm_precision.val().get_bits::<2>(8).any()
            | self.registers.ifm_precision.val().get_bit(1)
            | self.registers.ifm_precision.val().get_bits::<2>(4).any()
            | self.registers.ofm_precision.val().get_bits::<3>(3).any()
            | self.registers.ofm_precision.val().get_bits::<6>(8).any()
            | self.registers.kernel_stride.val().get_bits::<4>(12).any()
            | self.registers.kernel_stride.val().get_bit(5)
            | self.registers.ifm2_load.val()
            | self.registers.weight_length.val().get_bits::<3>(0).any()
            | self.registers.scale_length.val().get_bits::<3>(0).any()
            | self.registers.ifm_region.val().any()
            | self.registers.ofm_region.val().any()
            | self.rem17.wide.val().get_bit(16)
            | self.off7.wide.val().get_bit(6)
            | self.kernel_op.val().get_bit(1)
            | self.ports.ofm_full.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvUnit::default(), "conv_unit");
}
