//! The Ethos-U65 weight decoder's register-only logic (TRM §4.7, L4670-5120; digest
//! `shared/spec/ethos-u65.md` §1): the parser's step with its palette and quotient banks, the
//! two 32-entry queues' storage (`WeightQueues`, weight_queues.rs) and the emitter's next beat
//! (`WeightEmitter`, weight_emitter.rs), all computed from registers only. `WeightDecoder` keeps the few
//! registers whose next value depends on its inputs (`in_valid`, `out_ready`): the bit buffer,
//! the queue pointers and the output beat. The split is for the Verilated model's speed:
//! Verilator evaluates logic reading an input on every `eval` (twice a cycle in the bridge),
//! logic reading registers only once, after the clock edge (docs/ethos.md, "Verilated speed").
//! The queues and quotient banks are memories (`RegFile`) for the same reason, and the unary
//! and remainder steps' logic is computed only in its state, so that the Verilated model skips
//! the step not taken.
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use super::weight_emitter::WeightEmitter;
use super::weight_queues::WeightQueues;
use crate::primitives::{Reg, RegFile, ZeroExtend};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

/// The parser, queue storage and emitter of `WeightDecoder`: what they would do this cycle,
/// given the decoder's registers; the decoder applies it as its handshakes allow.
#[derive(LogicBlock)]
pub struct WeightDecoderCore {
    pub clock: Signal<In, Clock>,
    /// Clears every register: reset, or a finished stream.
    pub restart: Signal<In, Bit>,
    // the bit buffer, queue pointers and emitter registers, kept by the decoder
    pub held: Signal<In, Bits<96>>,
    pub fill: Signal<In, Bits<7>>,
    pub bitpos: Signal<In, Bits<3>>,
    pub words: Signal<In, Bits<2>>,
    pub seen_last: Signal<In, Bit>,
    pub qw_head: Signal<In, Bits<5>>,
    pub qw_count: Signal<In, Bits<6>>,
    pub qz_head: Signal<In, Bits<5>>,
    pub qz_count: Signal<In, Bits<6>>,
    pub zeros_left: Signal<In, Bits<16>>,
    /// Bits the parser's step takes from the bit buffer this cycle.
    pub consume: Signal<Out, Bits<7>>,
    /// The step's error code (`no_fault` = 0 when none).
    pub fault: Signal<Out, Bits<4>>,
    /// Entries pushed this cycle: `field_count` onto the weight queue (`push_w`) or the zero-run queue (`push_z`).
    pub push_w: Signal<Out, Bit>,
    pub push_z: Signal<Out, Bit>,
    pub field_count: Signal<Out, Bits<3>>,
    /// The beat the emitter would send if the output register takes one: its lanes, count,
    /// the queue entries it pops and the zeros still owed after it.
    pub new_count: Signal<Out, Bits<3>>,
    pub new_lanes: Signal<Out, Bits<36>>,
    pub pop_w: Signal<Out, Bits<5>>,
    pub pop_z: Signal<Out, Bits<5>>,
    pub next_zeros_left: Signal<Out, Bits<16>>,
    /// Parser state: still reading the stream, finished (waiting for the queues to drain), failed.
    pub parsing: Signal<Out, Bit>,
    pub finished: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    pub error_code: Signal<Out, Bits<4>>,

    // Registers: bit buffer
    // parser
    state: Reg<Bits<3>>,
    code: Reg<Bits<4>>,
    have_palette: Reg<Bit>,
    after_end: Reg<Bit>,
    /// End markers since the first of a row: padding bytes (model: `MAX_PADDING_BYTES`).
    padding: Reg<Bits<4>>,
    zdiv: Reg<Bits<3>>,
    wdiv: Reg<Bits<3>>,
    wtrunc: Reg<Bit>,
    newpal: Reg<Bit>,
    slicelen: Reg<Bits<15>>,
    dirofs: Reg<Bits<5>>,
    palsize: Reg<Bits<6>>,
    palbits: Reg<Bits<4>>,
    palette: [Reg<Bits<9>>; 32],
    pal_i: Reg<Bits<6>>,
    wq_i: Reg<Bits<16>>,
    zq_i: Reg<Bits<16>>,
    wr_i: Reg<Bits<16>>,
    zr_i: Reg<Bits<16>>,
    w_due: Reg<Bits<16>>,
    z_due: Reg<Bits<16>>,
    wq: Reg<Bits<10>>,
    zq: Reg<Bits<16>>,
    more: Reg<Bit>,
    bank: Reg<Bit>,
    w_slot: Reg<Bits<4>>,
    z_slot: Reg<Bits<4>>,
    /// Quotients of a chunk's weights and zero runs (§1.6), slot s of bank b: the unary step
    /// fills bank `bank` with the quotients it completes (slot s with the s-th), the remainder
    /// steps of the chunk before read bank `bank` too, which the step before filled.
    /// Both banks in one memory each for weights and zero runs: bank b, slot s at address
    /// 16 b + s (one write port per unary position and one read port per lane, not two).
    wbank: RegFile<10, 5, 12, 4>,
    zbank: RegFile<16, 5, 12, 4>,
    // queues and the emitter
    queues: WeightQueues,
    emitter: WeightEmitter,

    // Widening and packing
    slicelen_wide: ZeroExtend<15, 16>,
    wdiv_wide: ZeroExtend<3, 7>,
    zdiv_wide: ZeroExtend<3, 7>,
    palbits_wide: ZeroExtend<4, 7>,
    bitpos_wide: ZeroExtend<3, 7>,
    palsize_field: ZeroExtend<5, 6>,
    palbits_field: ZeroExtend<3, 4>,
    palsize_wide: ZeroExtend<6, 10>,
    dirofs_wide: ZeroExtend<5, 10>,

    // Combinational
    next_state: Signal<Local, Bits<3>>,
    w_cnt: Signal<Local, Bits<16>>,
    z_cnt: Signal<Local, Bits<16>>,
    alternating: Signal<Local, Bit>,
    uncompressed: Signal<Local, Bit>,
    ubits: Signal<Local, Bits<7>>,
    rbits: Signal<Local, Bits<7>>,
    // header
    field_zdiv: Signal<Local, Bits<3>>,
    field_wdiv: Signal<Local, Bits<3>>,
    field_newpal: Signal<Local, Bit>,
    field_palsize: Signal<Local, Bits<5>>,
    align: Signal<Local, Bits<7>>,
    align_bits: Signal<Local, Bits<8>>,
    align_mask: Signal<Local, Bits<8>>,
    header_need: Signal<Local, Bits<7>>,
    align_need: Signal<Local, Bits<7>>,
    // shared by the palette and remainder steps: four fields of `field_width` bits each
    field_width: Signal<Local, Bits<7>>,
    field_at: [Signal<Local, Bits<7>>; 5],
    field_need: Signal<Local, Bits<7>>,
    field_mask: Signal<Local, Bits<16>>,
    field_raw: [Signal<Local, Bits<16>>; 4],
    field: [Signal<Local, Bits<16>>; 4],
    pal_left: Signal<Local, Bits<6>>,
    // unary step
    w_en: Signal<Local, Bit>,
    z_en: Signal<Local, Bit>,
    w_unary: Signal<Local, Bit>,
    wunary0: Signal<Local, Bits<12>>,
    zunary: Signal<Local, Bits<12>>,
    wunary1: Signal<Local, Bits<12>>,
    zunary_at: Signal<Local, Bits<7>>,
    wunary1_at: Signal<Local, Bits<7>>,
    unary_need: Signal<Local, Bits<7>>,
    ones: [Signal<Local, Bits<7>>; 13],
    w_done: [Signal<Local, Bits<16>>; 13],
    w_run: [Signal<Local, Bits<10>>; 13],
    w_sum: [Signal<Local, Bits<10>>; 12],
    w_active: [Signal<Local, Bit>; 12],
    w_complete: [Signal<Local, Bit>; 12],
    z_done: [Signal<Local, Bits<16>>; 13],
    z_run: [Signal<Local, Bits<16>>; 13],
    z_active: [Signal<Local, Bit>; 12],
    unary_commit: Signal<Local, Bit>,
    /// The remainder step's slots again, from registers alone: see the bank reads in `update`.
    bank_w_phase: Signal<Local, Bit>,
    bank_slot: [Signal<Local, Bits<5>>; 4],
    /// 16 when `bank` is 1: the bank's half of the memories, for the reads (`bank_half`)
    /// and, as a signal of its own, for the writes (`write_half`).
    bank_half: Signal<Local, Bits<5>>,
    write_half: Signal<Local, Bits<5>>,
    w_slot_wide: ZeroExtend<4, 5>,
    z_slot_wide: ZeroExtend<4, 5>,
    zunary_len: Signal<Local, Bits<4>>,
    max_zq: Signal<Local, Bits<16>>,
    quotient_fault: Signal<Local, Bit>,
    zero_run_fault: Signal<Local, Bit>,
    unc_per_chunk: Signal<Local, Bits<16>>,
    unc_count: Signal<Local, Bits<16>>,
    // remainder group (the remainder step's, or the unary step's first)
    due_w: Signal<Local, Bits<16>>,
    due_z: Signal<Local, Bits<16>>,
    w_slot_base: Signal<Local, Bits<4>>,
    z_slot_base: Signal<Local, Bits<4>>,
    more_after: Signal<Local, Bit>,
    owed: Signal<Local, Bit>,
    group_ready: Signal<Local, Bit>,
    take_group: Signal<Local, Bit>,
    w_phase: Signal<Local, Bit>,
    due_left: Signal<Local, Bits<16>>,
    queue_room: Signal<Local, Bit>,
    r_slot: [Signal<Local, Bits<4>>; 4],
    r_wq: [Signal<Local, Bits<10>>; 4],
    r_zq: [Signal<Local, Bits<16>>; 4],
    idx: [Signal<Local, Bits<10>>; 4],
    direct: [Signal<Local, Bits<10>>; 4],
    raw: [Signal<Local, Bits<9>>; 4],
    magnitude: [Signal<Local, Bits<9>>; 4],
    value: [Signal<Local, Bits<9>>; 4],
    lane_fault: [Signal<Local, Bits<4>>; 5],
    run: [Signal<Local, Bits<16>>; 4],

    // Constants
    // states, and error codes as `npu_model::ethos::weight_decoder::DecodeError`
    st_header: Constant<Bits<3>>,
    st_palette: Constant<Bits<3>>,
    st_unary: Constant<Bits<3>>,
    st_remainder: Constant<Bits<3>>,
    st_drain: Constant<Bits<3>>,
    st_error: Constant<Bits<3>>,
    no_fault: Constant<Bits<4>>,
    e_truncated: Constant<Bits<4>>,
    e_missing_end: Constant<Bits<4>>,
    e_length: Constant<Bits<4>>,
    e_reserved_zdiv: Constant<Bits<4>>,
    e_reserved_wdiv: Constant<Bits<4>>,
    e_no_palette: Constant<Bits<4>>,
    e_quotient: Constant<Bits<4>>,
    e_index: Constant<Bits<4>>,
    e_value: Constant<Bits<4>>,
    e_padding: Constant<Bits<4>>,
    e_zero_run: Constant<Bits<4>>,
    e_long_padding: Constant<Bits<4>>,
    max_padding: Constant<Bits<4>>,
    k3: [Constant<Bits<3>>; 8],
    k4: [Constant<Bits<4>>; 13],
    zero5: Constant<Bits<5>>,
    k5: [Constant<Bits<5>>; 4],
    sixteen5: Constant<Bits<5>>,
    k6: [Constant<Bits<6>>; 32],
    k7: [Constant<Bits<7>>; 6],
    k10: [Constant<Bits<10>>; 32],
    four16: Constant<Bits<16>>,
    eight16: Constant<Bits<16>>,
    twelve16: Constant<Bits<16>>,
    zero2: Constant<Bits<2>>,
    mask7: Constant<Bits<7>>,
    eight7: Constant<Bits<7>>,
    twelve7: Constant<Bits<7>>,
    zero12: Constant<Bits<12>>,
    zero9: Constant<Bits<9>>,
    zero16: Constant<Bits<16>>,
    one8: Constant<Bits<8>>,
    one16: Constant<Bits<16>>,
    header_short: Constant<Bits<7>>,
    header_long: Constant<Bits<7>>,
    max_index: Constant<Bits<10>>,
    max_quotient: Constant<Bits<10>>,
    max_run: Constant<Bits<16>>,
    queue_limit: Constant<Bits<6>>,
}

/// Constants 0, 1, .. N-1 (for comparisons with a loop index); also the decoder's sub-blocks'.
pub(super) fn constants<const W: usize, const N: usize>() -> [Constant<Bits<W>>; N] {
    std::array::from_fn(|i| Constant::new((i as u64).into()))
}

impl Default for WeightDecoderCore {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            restart: Default::default(),
            held: Default::default(),
            fill: Default::default(),
            bitpos: Default::default(),
            words: Default::default(),
            seen_last: Default::default(),
            qw_head: Default::default(),
            qw_count: Default::default(),
            qz_head: Default::default(),
            qz_count: Default::default(),
            zeros_left: Default::default(),
            consume: Default::default(),
            fault: Default::default(),
            push_w: Default::default(),
            push_z: Default::default(),
            field_count: Default::default(),
            new_count: Default::default(),
            new_lanes: Default::default(),
            pop_w: Default::default(),
            pop_z: Default::default(),
            next_zeros_left: Default::default(),
            parsing: Default::default(),
            finished: Default::default(),
            error: Default::default(),
            error_code: Default::default(),
            state: Default::default(),
            code: Default::default(),
            have_palette: Default::default(),
            after_end: Default::default(),
            padding: Default::default(),
            zdiv: Default::default(),
            wdiv: Default::default(),
            wtrunc: Default::default(),
            newpal: Default::default(),
            slicelen: Default::default(),
            dirofs: Default::default(),
            palsize: Default::default(),
            palbits: Default::default(),
            palette: Default::default(),
            pal_i: Default::default(),
            wq_i: Default::default(),
            zq_i: Default::default(),
            wr_i: Default::default(),
            zr_i: Default::default(),
            w_due: Default::default(),
            z_due: Default::default(),
            wq: Default::default(),
            zq: Default::default(),
            more: Default::default(),
            bank: Default::default(),
            w_slot: Default::default(),
            z_slot: Default::default(),
            wbank: Default::default(),
            zbank: Default::default(),
            queues: Default::default(),
            emitter: Default::default(),
            slicelen_wide: Default::default(),
            wdiv_wide: Default::default(),
            zdiv_wide: Default::default(),
            palbits_wide: Default::default(),
            bitpos_wide: Default::default(),
            palsize_field: Default::default(),
            palbits_field: Default::default(),
            palsize_wide: Default::default(),
            dirofs_wide: Default::default(),
            next_state: Default::default(),
            w_cnt: Default::default(),
            z_cnt: Default::default(),
            alternating: Default::default(),
            uncompressed: Default::default(),
            ubits: Default::default(),
            rbits: Default::default(),
            field_zdiv: Default::default(),
            field_wdiv: Default::default(),
            field_newpal: Default::default(),
            field_palsize: Default::default(),
            align: Default::default(),
            align_bits: Default::default(),
            align_mask: Default::default(),
            header_need: Default::default(),
            align_need: Default::default(),
            field_width: Default::default(),
            field_at: Default::default(),
            field_need: Default::default(),
            field_mask: Default::default(),
            field_raw: Default::default(),
            field: Default::default(),
            pal_left: Default::default(),
            w_en: Default::default(),
            z_en: Default::default(),
            w_unary: Default::default(),
            wunary0: Default::default(),
            zunary: Default::default(),
            wunary1: Default::default(),
            zunary_at: Default::default(),
            wunary1_at: Default::default(),
            unary_need: Default::default(),
            ones: Default::default(),
            w_done: Default::default(),
            w_run: Default::default(),
            w_sum: Default::default(),
            w_active: Default::default(),
            w_complete: Default::default(),
            z_done: Default::default(),
            z_run: Default::default(),
            z_active: Default::default(),
            unary_commit: Default::default(),
            bank_w_phase: Default::default(),
            bank_slot: Default::default(),
            bank_half: Default::default(),
            write_half: Default::default(),
            w_slot_wide: Default::default(),
            z_slot_wide: Default::default(),
            zunary_len: Default::default(),
            max_zq: Default::default(),
            quotient_fault: Default::default(),
            zero_run_fault: Default::default(),
            unc_per_chunk: Default::default(),
            unc_count: Default::default(),
            due_w: Default::default(),
            due_z: Default::default(),
            w_slot_base: Default::default(),
            z_slot_base: Default::default(),
            more_after: Default::default(),
            owed: Default::default(),
            group_ready: Default::default(),
            take_group: Default::default(),
            w_phase: Default::default(),
            due_left: Default::default(),
            queue_room: Default::default(),
            r_slot: Default::default(),
            r_wq: Default::default(),
            r_zq: Default::default(),
            idx: Default::default(),
            direct: Default::default(),
            raw: Default::default(),
            magnitude: Default::default(),
            value: Default::default(),
            lane_fault: Default::default(),
            run: Default::default(),
            st_header: k(0),
            st_palette: k(1),
            st_unary: k(2),
            st_remainder: k(3),
            st_drain: k(4),
            st_error: k(5),
            no_fault: k(0),
            e_truncated: k(1),
            e_missing_end: k(2),
            e_length: k(3),
            e_reserved_zdiv: k(4),
            e_reserved_wdiv: k(5),
            e_no_palette: k(6),
            e_quotient: k(7),
            e_index: k(8),
            e_value: k(9),
            e_padding: k(10),
            e_zero_run: k(11),
            e_long_padding: k(12),
            max_padding: k(15),
            k3: constants(),
            k4: constants(),
            zero5: k(0),
            k5: constants(),
            sixteen5: k(16),
            k6: constants(),
            k7: constants(),
            k10: constants(),
            four16: k(4),
            eight16: k(8),
            twelve16: k(12),
            zero2: k(0),
            mask7: k(7),
            eight7: k(8),
            twelve7: k(12),
            zero12: k(0),
            zero9: k(0),
            zero16: k(0),
            one8: k(1),
            one16: k(1),
            header_short: k(23),
            header_long: k(36),
            max_index: k(511),
            max_quotient: k(31),
            max_run: k(0xFFFF),
            queue_limit: k(28),
        }
    }
}

impl Logic for WeightDecoderCore {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- registers hold by default; `restart` (reset, or a finished stream) clears them
        dff_setup!(
            self, clock, state, code, have_palette, after_end, padding, zdiv, wdiv, wtrunc, newpal, slicelen, dirofs,
            palsize, palbits, pal_i, wq_i, zq_i, wr_i, zr_i, w_due, z_due, wq, zq, more, bank, w_slot, z_slot
        );
        for i in 0..32 {
            self.palette[i].clock.next = self.clock.val();
            self.palette[i].d.next = self.palette[i].q.val();
            self.palette[i].reset.next = self.restart.val();
        }
        // Memories: no reset, each word read only after it was written (`RegFile`).
        self.wbank.clock.next = self.clock.val();
        self.zbank.clock.next = self.clock.val();
        self.queues.clock.next = self.clock.val();

        // ---- bank reads at the remainder step's slots. Computed here from registers alone,
        // with signals of their own (`w_phase` and `r_slot` below are the same values): a
        // memory's read address must not share a signal with the logic that reads its data,
        // or Verilator sees a combinational loop through the two blocks (UNOPTFLAT).
        // The unary step's first remainder group reads slots 0-3 of the other bank: the one
        // the unary step before filled (this step's quotients go to bank `bank`).
        self.bank_w_phase.next = self.wr_i.q.val() < self.w_due.q.val();
        self.bank_half.next = self.zero5.val();
        if self.bank.q.val() {
            self.bank_half.next = self.sixteen5.val();
        }
        if self.state.q.val() == self.st_unary.val() {
            self.bank_w_phase.next = self.wr_i.q.val() < self.wq_i.q.val();
            self.bank_half.next = self.sixteen5.val();
            if self.bank.q.val() {
                self.bank_half.next = self.zero5.val();
            }
        }
        self.w_slot_wide.narrow.next = self.w_slot.q.val();
        self.z_slot_wide.narrow.next = self.z_slot.q.val();
        for j in 0..4 {
            // slot + j <= 15: no carry into the bank bit
            self.bank_slot[j].next = (self.z_slot_wide.wide.val() + self.k5[j].val()) | self.bank_half.val();
            if self.bank_w_phase.val() {
                self.bank_slot[j].next = (self.w_slot_wide.wide.val() + self.k5[j].val()) | self.bank_half.val();
            }
            if self.state.q.val() == self.st_unary.val() {
                self.bank_slot[j].next = self.k5[j].val() | self.bank_half.val();
            }
            self.wbank.read_address[j].next = self.bank_slot[j].val();
            self.zbank.read_address[j].next = self.bank_slot[j].val();
        }
        self.state.reset.next = self.restart.val();
        self.code.reset.next = self.restart.val();
        self.have_palette.reset.next = self.restart.val();
        self.after_end.reset.next = self.restart.val();
        self.padding.reset.next = self.restart.val();
        self.zdiv.reset.next = self.restart.val();
        self.wdiv.reset.next = self.restart.val();
        self.wtrunc.reset.next = self.restart.val();
        self.newpal.reset.next = self.restart.val();
        self.slicelen.reset.next = self.restart.val();
        self.dirofs.reset.next = self.restart.val();
        self.palsize.reset.next = self.restart.val();
        self.palbits.reset.next = self.restart.val();
        self.pal_i.reset.next = self.restart.val();
        self.wq_i.reset.next = self.restart.val();
        self.zq_i.reset.next = self.restart.val();
        self.wr_i.reset.next = self.restart.val();
        self.zr_i.reset.next = self.restart.val();
        self.w_due.reset.next = self.restart.val();
        self.z_due.reset.next = self.restart.val();
        self.wq.reset.next = self.restart.val();
        self.zq.reset.next = self.restart.val();
        self.more.reset.next = self.restart.val();
        self.bank.reset.next = self.restart.val();
        self.w_slot.reset.next = self.restart.val();
        self.z_slot.reset.next = self.restart.val();

        // ---- parser state, for the decoder's handshakes
        self.parsing.next = self.state.q.val() < self.st_drain.val();
        self.finished.next = self.state.q.val() == self.st_drain.val();
        self.error.next = self.state.q.val() == self.st_error.val();
        self.error_code.next = self.code.q.val();

        // ---- slice parameters
        self.slicelen_wide.narrow.next = self.slicelen.q.val();
        self.w_cnt.next = self.slicelen_wide.wide.val() + self.one16.val();
        self.z_cnt.next = self.w_cnt.val();
        if self.newpal.q.val() {
            self.z_cnt.next = self.w_cnt.val() + self.one16.val();
        }
        self.alternating.next = self.zdiv.q.val() < self.k3[4].val();
        self.uncompressed.next = self.wdiv.q.val() == self.k3[7].val();
        // uncompressed index bits (§1.4): ceil(log2(palette size)), or palbits without a palette
        self.palbits_wide.narrow.next = self.palbits.q.val();
        self.ubits.next = self.palbits_wide.wide.val();
        if self.palsize.q.val() > self.k6[16].val() {
            self.ubits.next = self.k7[5].val();
        } else if self.palsize.q.val() > self.k6[8].val() {
            self.ubits.next = self.k7[4].val();
        } else if self.palsize.q.val() > self.k6[4].val() {
            self.ubits.next = self.k7[3].val();
        } else if self.palsize.q.val() > self.k6[2].val() {
            self.ubits.next = self.k7[2].val();
        } else if self.palsize.q.val() > self.k6[0].val() {
            self.ubits.next = self.k7[1].val();
        }
        self.wdiv_wide.narrow.next = self.wdiv.q.val();
        self.rbits.next = self.wdiv_wide.wide.val();
        if self.uncompressed.val() {
            self.rbits.next = self.ubits.val();
        }
        self.palsize_wide.narrow.next = self.palsize.q.val();
        self.dirofs_wide.narrow.next = self.dirofs.q.val();

        // ---- emitter: the beat it would send next (the decoder sends it when the output register is free)
        self.queues.qw_head.next = self.qw_head.val();
        self.queues.qw_tail.next = self.qw_head.val() + self.qw_count.val().get_bits::<5>(0);
        self.queues.qz_head.next = self.qz_head.val();
        self.queues.qz_tail.next = self.qz_head.val() + self.qz_count.val().get_bits::<5>(0);
        self.emitter.qw_count.next = self.qw_count.val();
        self.emitter.qz_count.next = self.qz_count.val();
        self.emitter.zeros_left.next = self.zeros_left.val();
        for p in 0..4 {
            self.emitter.head_value[p].next = self.queues.head_value[p].val();
            self.emitter.head_paired[p].next = self.queues.head_paired[p].val();
            self.emitter.head_run[p].next = self.queues.head_run[p].val();
            self.emitter.head_lead[p].next = self.queues.head_lead[p].val();
        }
        self.new_count.next = self.emitter.new_count.val();
        self.new_lanes.next = self.emitter.new_lanes.val();
        self.pop_w.next = self.emitter.pop_w.val();
        self.pop_z.next = self.emitter.pop_z.val();
        self.next_zeros_left.next = self.emitter.next_zeros_left.val();

        // ---- parser: one step, if its bits are buffered
        self.consume.next = self.k7[0].val();
        self.fault.next = self.no_fault.val();
        self.next_state.next = self.state.q.val();
        self.push_w.next = false;
        self.push_z.next = false;
        self.unary_commit.next = false;

        // header fields (§1.2)
        self.field_zdiv.next = self.held.val().get_bits::<3>(0);
        self.field_newpal.next = self.held.val().get_bit(22);
        self.field_wdiv.next = self.held.val().get_bits::<3>(18);
        self.field_palsize.next = self.held.val().get_bits::<5>(28);
        self.bitpos_wide.narrow.next = self.bitpos.val();
        self.align.next = (self.k7[5].val() - self.bitpos_wide.wide.val()) & self.mask7.val();
        self.align_mask.next = (self.one8.val() << self.align.val()) - self.one8.val();
        self.align_bits.next = self.held.val().get_bits::<8>(3) & self.align_mask.val();
        self.align_need.next = self.align.val() + self.k7[3].val();
        self.palsize_field.narrow.next = self.held.val().get_bits::<5>(28);
        self.palbits_field.narrow.next = self.held.val().get_bits::<3>(33);
        self.header_need.next = self.header_short.val();
        if self.field_newpal.val() {
            self.header_need.next = self.header_long.val();
        }

        // unary part of a chunk (§1.6)
        // Only the unary step reads these: computed in that state alone, so that the
        // Verilated model skips them in the others (docs/ethos.md, "Verilated speed"); the
        // defaults are never used.
        self.w_en.next = false;
        self.z_en.next = false;
        self.w_unary.next = false;
        self.wunary0.next = self.zero12.val();
        self.zunary.next = self.zero12.val();
        self.wunary1.next = self.zero12.val();
        self.zunary_at.next = self.k7[0].val();
        self.wunary1_at.next = self.k7[0].val();
        self.zunary_len.next = self.k4[0].val();
        self.unary_need.next = self.k7[0].val();
        self.max_zq.next = self.zero16.val();
        self.quotient_fault.next = false;
        self.zero_run_fault.next = false;
        self.unc_per_chunk.next = self.zero16.val();
        self.unc_count.next = self.zero16.val();
        for i in 0..13 {
            self.ones[i].next = self.k7[0].val();
            self.w_done[i].next = self.zero16.val();
            self.w_run[i].next = self.k10[0].val();
            self.z_done[i].next = self.zero16.val();
            self.z_run[i].next = self.zero16.val();
        }
        for i in 0..12 {
            self.w_sum[i].next = self.k10[0].val();
            self.w_active[i].next = false;
            self.w_complete[i].next = false;
            self.z_active[i].next = false;
        }
        if self.state.q.val() == self.st_unary.val() {
            self.w_en.next = (!self.alternating.val() || self.wq_i.q.val() < self.zq_i.q.val() + self.eight16.val())
                && self.wq_i.q.val() < self.w_cnt.val();
            self.z_en.next = self.wq_i.q.val() >= self.zq_i.q.val() && self.alternating.val() && self.zq_i.q.val() < self.z_cnt.val();
            self.w_unary.next = self.w_en.val() && !self.uncompressed.val();
            self.wunary0.next = self.held.val().get_bits::<12>(0);
            if !self.w_unary.val() {
                self.wunary0.next = self.zero12.val();
            }
            self.zunary_at.next = self.k7[0].val();
            if self.w_unary.val() {
                self.zunary_at.next = self.twelve7.val();
            }
            self.zunary_len.next = self.k4[12].val();
            if self.zdiv.q.val() == self.k3[3].val() {
                self.zunary_len.next = self.k4[8].val();
            }
            self.wunary1_at.next = self.zunary_at.val();
            if self.z_en.val() {
                self.wunary1_at.next = self.zunary_at.val() + self.twelve7.val();
                if self.zdiv.q.val() == self.k3[3].val() {
                    self.wunary1_at.next = self.zunary_at.val() + self.eight7.val();
                }
            }
            self.zunary.next = self.held.val().get_bits::<12>(self.zunary_at.val().index());
            self.wunary1.next = self.held.val().get_bits::<12>(self.wunary1_at.val().index());
            self.ones[0].next = self.k7[0].val();
            self.w_done[0].next = self.wq_i.q.val();
            self.w_run[0].next = self.wq.q.val();
            self.quotient_fault.next = false;
            for i in 0..12 {
                self.ones[i + 1].next = self.ones[i].val();
                self.w_sum[i].next = self.w_run[i].val();
                if self.wunary0.val().get_bit(i) {
                    self.ones[i + 1].next = self.ones[i].val() + self.k7[1].val();
                    self.w_sum[i].next = self.w_run[i].val() + self.k10[1].val();
                    if self.wunary1.val().get_bit(self.ones[i].val().get_bits::<4>(0).index()) {
                        self.w_sum[i].next = self.w_run[i].val() + self.k10[2].val();
                    }
                }
                self.w_active[i].next = self.w_unary.val() && self.w_done[i].val() < self.w_cnt.val();
                self.w_complete[i].next = self.wtrunc.q.val() || self.w_sum[i].val() < self.w_run[i].val() + self.k10[2].val();
                self.w_done[i + 1].next = self.w_done[i].val();
                self.w_run[i + 1].next = self.w_run[i].val();
                if self.w_active[i].val() {
                    if self.w_sum[i].val() > self.max_quotient.val() {
                        self.quotient_fault.next = true;
                    }
                    self.w_run[i + 1].next = self.w_sum[i].val();
                    if self.w_complete[i].val() {
                        self.w_done[i + 1].next = self.w_done[i].val() + self.one16.val();
                        self.w_run[i + 1].next = self.k10[0].val();
                    }
                }
            }
            self.unary_need.next = self.wunary1_at.val() + self.ones[12].val();
            self.max_zq.next = self.max_run.val() >> self.zdiv.q.val();
            self.z_done[0].next = self.zq_i.q.val();
            self.z_run[0].next = self.zq.q.val();
            self.zero_run_fault.next = false;
            for i in 0..12 {
                self.z_active[i].next =
                    self.z_en.val() && self.z_done[i].val() < self.z_cnt.val() && self.k4[i].val() < self.zunary_len.val();
                self.z_done[i + 1].next = self.z_done[i].val();
                self.z_run[i + 1].next = self.z_run[i].val();
                if self.z_active[i].val() {
                    if self.zunary.val().get_bit(i) {
                        self.z_run[i + 1].next = self.z_run[i].val() + self.one16.val();
                        if self.z_run[i].val() >= self.max_zq.val() {
                            self.zero_run_fault.next = true;
                        }
                    } else {
                        self.z_done[i + 1].next = self.z_done[i].val() + self.one16.val();
                        self.z_run[i + 1].next = self.zero16.val();
                    }
                }
            }
            self.unc_per_chunk.next = self.twelve16.val();
            if self.ubits.val() > self.k7[5].val() {
                self.unc_per_chunk.next = self.eight16.val();
            }
            self.unc_count.next = self.w_cnt.val() - self.wq_i.q.val();
            if self.unc_count.val() > self.unc_per_chunk.val() {
                self.unc_count.next = self.unc_per_chunk.val();
            }
        }

        // fields of `field_bits` each at a, a + b, a + 2b, a + 3b (palette entries, remainders):
        // a is 0, or in the unary step the unary part's length, where its first remainder
        // group starts. That group's remainders are due up to the quotients completed before
        // this step (`wq_i`, `zq_i`; the step sets `w_due`, `z_due` to them) from slot 0.
        self.pal_left.next = self.palsize.q.val() - self.pal_i.q.val();
        self.due_w.next = self.w_due.q.val();
        self.due_z.next = self.z_due.q.val();
        self.w_slot_base.next = self.w_slot.q.val();
        self.z_slot_base.next = self.z_slot.q.val();
        self.more_after.next = self.more.q.val();
        self.field_at[0].next = self.k7[0].val();
        if self.state.q.val() == self.st_unary.val() {
            self.due_w.next = self.wq_i.q.val();
            self.due_z.next = self.zq_i.q.val();
            self.w_slot_base.next = self.k4[0].val();
            self.z_slot_base.next = self.k4[0].val();
            self.more_after.next = self.w_en.val() || self.z_en.val();
            self.field_at[0].next = self.unary_need.val();
        }
        self.w_phase.next = self.wr_i.q.val() < self.due_w.val();
        self.owed.next = self.w_phase.val() || self.zr_i.q.val() < self.due_z.val();
        self.due_left.next = self.due_z.val() - self.zr_i.q.val();
        self.zdiv_wide.narrow.next = self.zdiv.q.val();
        self.field_width.next = self.zdiv_wide.wide.val();
        if self.w_phase.val() {
            self.due_left.next = self.due_w.val() - self.wr_i.q.val();
            self.field_width.next = self.rbits.val();
        }
        self.field_count.next = self.k3[4].val();
        if self.state.q.val() == self.st_palette.val() {
            self.field_width.next = self.palbits_wide.wide.val();
            if self.pal_left.val() < self.k6[4].val() {
                self.field_count.next = self.pal_left.val().get_bits::<3>(0);
            }
        } else if self.due_left.val() < self.four16.val() {
            self.field_count.next = self.due_left.val().get_bits::<3>(0);
        }
        for j in 0..4 {
            self.field_at[j + 1].next = self.field_at[j].val() + self.field_width.val();
        }
        self.field_need.next = self.k7[0].val();
        for j in 0..5 {
            if self.field_count.val() == self.k3[j].val() {
                self.field_need.next = self.field_at[j].val();
            }
        }
        self.field_mask.next = (self.one16.val() << self.field_width.val()) - self.one16.val();
        for j in 0..4 {
            self.field_raw[j].next = self.held.val().get_bits::<16>(self.field_at[j].val().index());
            self.field[j].next = self.field_raw[j].val() & self.field_mask.val();
        }

        // remainders of the previous chunk (§1.6): weight values (§1.3) and zero runs
        // Only the remainder and unary steps read these: computed in those states alone, as above.
        self.queue_room.next = false;
        for j in 0..5 {
            self.lane_fault[j].next = self.no_fault.val();
        }
        for j in 0..4 {
            self.r_slot[j].next = self.k4[0].val();
            self.r_wq[j].next = self.k10[0].val();
            self.r_zq[j].next = self.zero16.val();
            self.idx[j].next = self.k10[0].val();
            self.direct[j].next = self.k10[0].val();
            self.raw[j].next = self.zero9.val();
            self.magnitude[j].next = self.zero9.val();
            self.value[j].next = self.zero9.val();
            self.run[j].next = self.zero16.val();
        }
        if self.state.q.val() == self.st_remainder.val() || self.state.q.val() == self.st_unary.val() {
            self.queue_room.next = self.qw_count.val() <= self.queue_limit.val();
            if !self.w_phase.val() {
                self.queue_room.next = self.qz_count.val() <= self.queue_limit.val();
            }
            self.lane_fault[0].next = self.no_fault.val();
            for j in 0..4 {
                self.r_slot[j].next = self.z_slot_base.val() + self.k4[j].val();
                if self.w_phase.val() {
                    self.r_slot[j].next = self.w_slot_base.val() + self.k4[j].val();
                }
                self.r_wq[j].next = self.k10[0].val();
                self.r_zq[j].next = self.zero16.val();
                if self.r_slot[j].val() < self.k4[12].val() {
                    self.r_wq[j].next = self.wbank.read_data[j].val();
                    self.r_zq[j].next = self.zbank.read_data[j].val();
                }
                self.idx[j].next = self.field[j].val().get_bits::<10>(0);
                if !self.uncompressed.val() {
                    self.idx[j].next = (self.r_wq[j].val() << self.wdiv.q.val()) | self.field[j].val().get_bits::<10>(0);
                }
                self.direct[j].next = self.idx[j].val() - self.palsize_wide.wide.val() + self.dirofs_wide.wide.val();
                self.raw[j].next = self.direct[j].val().get_bits::<9>(0);
                for e in 0..32 {
                    if self.idx[j].val() == self.k10[e].val() && self.idx[j].val() < self.palsize_wide.wide.val() {
                        self.raw[j].next = self.palette[e].q.val();
                    }
                }
                self.magnitude[j].next = self.raw[j].val() >> self.k4[1].val();
                self.value[j].next = self.magnitude[j].val();
                if self.raw[j].val().get_bit(0) {
                    self.value[j].next = self.zero9.val() - self.magnitude[j].val();
                }
                self.lane_fault[j + 1].next = self.lane_fault[j].val();
                if self.lane_fault[j].val() == self.no_fault.val() && self.k3[j].val() < self.field_count.val() {
                    if self.idx[j].val() > self.max_index.val() {
                        self.lane_fault[j + 1].next = self.e_index.val();
                    } else if self.idx[j].val() >= self.palsize_wide.wide.val() && self.direct[j].val() > self.max_index.val() {
                        self.lane_fault[j + 1].next = self.e_value.val();
                    }
                }
                self.run[j].next = (self.r_zq[j].val() << self.zdiv.q.val()) | self.field[j].val();
            }
        }

        // the step of the current state
        self.group_ready.next = self.owed.val() && self.fill.val() >= self.field_need.val() && self.queue_room.val();
        self.take_group.next = false;
        if self.state.q.val() == self.st_header.val() {
            if self.fill.val() == self.k7[0].val() && self.seen_last.val() {
                if !self.after_end.q.val() {
                    self.fault.next = self.e_missing_end.val();
                } else if self.words.val() != self.zero2.val() {
                    self.fault.next = self.e_length.val();
                } else {
                    self.next_state.next = self.st_drain.val();
                }
            } else if self.fill.val() < self.k7[3].val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.field_zdiv.val() == self.k3[7].val() {
                if self.fill.val() < self.align_need.val() {
                    if self.seen_last.val() {
                        self.fault.next = self.e_truncated.val();
                    }
                } else if self.align_bits.val() != self.align_mask.val() {
                    self.fault.next = self.e_padding.val();
                } else if self.after_end.q.val() && self.padding.q.val() == self.max_padding.val() {
                    self.fault.next = self.e_long_padding.val();
                } else {
                    self.consume.next = self.align_need.val();
                    self.have_palette.d.next = false;
                    self.after_end.d.next = true;
                    self.padding.d.next = self.k4[0].val();
                    if self.after_end.q.val() {
                        self.padding.d.next = self.padding.q.val() + self.k4[1].val();
                    }
                }
            } else if self.field_zdiv.val() == self.k3[4].val() || self.field_zdiv.val() == self.k3[5].val() {
                self.fault.next = self.e_reserved_zdiv.val();
            } else if self.fill.val() < self.header_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.field_wdiv.val() == self.k3[6].val() {
                self.fault.next = self.e_reserved_wdiv.val();
            } else if !self.field_newpal.val() && !self.have_palette.q.val() {
                self.fault.next = self.e_no_palette.val();
            } else {
                self.consume.next = self.header_need.val();
                self.zdiv.d.next = self.field_zdiv.val();
                self.slicelen.d.next = self.held.val().get_bits::<15>(3);
                self.wdiv.d.next = self.field_wdiv.val();
                self.wtrunc.d.next = self.held.val().get_bit(21);
                self.newpal.d.next = self.field_newpal.val();
                self.next_state.next = self.st_unary.val();
                if self.field_newpal.val() {
                    self.dirofs.d.next = self.held.val().get_bits::<5>(23);
                    self.palsize.d.next = self.k6[0].val();
                    if self.field_palsize.val() != self.zero5.val() {
                        self.palsize.d.next = self.palsize_field.wide.val() + self.k6[1].val();
                        self.next_state.next = self.st_palette.val();
                    }
                    self.palbits.d.next = self.palbits_field.wide.val() + self.k4[2].val();
                }
                self.pal_i.d.next = self.k6[0].val();
                self.wq_i.d.next = self.zero16.val();
                self.zq_i.d.next = self.zero16.val();
                self.wr_i.d.next = self.zero16.val();
                self.zr_i.d.next = self.zero16.val();
                self.w_due.d.next = self.zero16.val();
                self.z_due.d.next = self.zero16.val();
                self.wq.d.next = self.k10[0].val();
                self.zq.d.next = self.zero16.val();
                self.more.d.next = false;
                self.bank.d.next = false;
                self.w_slot.d.next = self.k4[0].val();
                self.z_slot.d.next = self.k4[0].val();
                self.have_palette.d.next = true;
                self.after_end.d.next = false;
            }
        } else if self.state.q.val() == self.st_palette.val() {
            if self.fill.val() < self.field_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else {
                self.consume.next = self.field_need.val();
                for e in 0..32 {
                    for j in 0..4 {
                        if self.k3[j].val() < self.field_count.val() && self.pal_i.q.val() + self.k6[j].val() == self.k6[e].val() {
                            self.palette[e].d.next = self.field[j].val().get_bits::<9>(0);
                        }
                    }
                }
                self.pal_i.d.next = self.pal_i.q.val() + self.k6[4].val();
                if self.pal_left.val() <= self.k6[4].val() {
                    self.next_state.next = self.st_unary.val();
                }
            }
        } else if self.state.q.val() == self.st_unary.val() {
            if self.fill.val() < self.unary_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.quotient_fault.val() {
                self.fault.next = self.e_quotient.val();
            } else if self.zero_run_fault.val() {
                self.fault.next = self.e_zero_run.val();
            } else if self.group_ready.val() && self.w_phase.val() && self.lane_fault[4].val() != self.no_fault.val() {
                self.fault.next = self.lane_fault[4].val();
            } else {
                // the first remainder group too, if its bits are there and its queue has room
                self.take_group.next = self.group_ready.val();
                self.consume.next = self.unary_need.val();
                self.unary_commit.next = true;
                self.wq_i.d.next = self.w_done[12].val();
                self.wq.d.next = self.w_run[12].val();
                if self.w_en.val() && self.uncompressed.val() {
                    // Uncompressed weights have no quotients: the remainder steps take the
                    // index from the field alone and never read the bank.
                    self.wq_i.d.next = self.wq_i.q.val() + self.unc_count.val();
                }
                self.zq_i.d.next = self.z_done[12].val();
                self.zq.d.next = self.z_run[12].val();
                self.w_due.d.next = self.wq_i.q.val();
                self.z_due.d.next = self.zq_i.q.val();
                self.more.d.next = self.w_en.val() || self.z_en.val();
                self.bank.d.next = !self.bank.q.val();
                self.w_slot.d.next = self.k4[0].val();
                self.z_slot.d.next = self.k4[0].val();
                if self.wr_i.q.val() < self.wq_i.q.val() || self.zr_i.q.val() < self.zq_i.q.val() {
                    self.next_state.next = self.st_remainder.val();
                } else if !(self.w_en.val() || self.z_en.val()) {
                    self.next_state.next = self.st_header.val();
                }
            }
        } else if self.state.q.val() == self.st_remainder.val() {
            if self.fill.val() < self.field_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.queue_room.val() {
                if self.w_phase.val() && self.lane_fault[4].val() != self.no_fault.val() {
                    self.fault.next = self.lane_fault[4].val();
                } else {
                    self.take_group.next = true;
                }
            }
        }

        // a remainder group taken (by the remainder step, or with the unary part): up to 4
        // remainders after `field_at[0]`, pushed; then on to the next group, chunk or slice
        if self.take_group.val() {
            self.consume.next = self.field_need.val();
            self.next_state.next = self.st_remainder.val();
            if self.w_phase.val() {
                self.push_w.next = true;
                self.wr_i.d.next = self.wr_i.q.val() + self.due_left.val();
                self.w_slot.d.next = self.w_slot_base.val() + self.k4[4].val();
                if self.due_left.val() > self.four16.val() {
                    self.wr_i.d.next = self.wr_i.q.val() + self.four16.val();
                }
                if self.due_left.val() <= self.four16.val() && self.zr_i.q.val() == self.due_z.val() {
                    self.next_state.next = self.st_unary.val();
                    if !self.more_after.val() {
                        self.next_state.next = self.st_header.val();
                    }
                }
            } else {
                self.push_z.next = true;
                self.zr_i.d.next = self.zr_i.q.val() + self.due_left.val();
                self.z_slot.d.next = self.z_slot_base.val() + self.k4[4].val();
                if self.due_left.val() > self.four16.val() {
                    self.zr_i.d.next = self.zr_i.q.val() + self.four16.val();
                } else {
                    self.next_state.next = self.st_unary.val();
                    if !self.more_after.val() {
                        self.next_state.next = self.st_header.val();
                    }
                }
            }
        }

        // ---- memory writes of the step: quotients (the one completed at position i goes to
        // slot w_done[i] - wq_i of bank `bank`, less than 12, so its low 4 bits), queue pushes
        self.write_half.next = self.zero5.val();
        if self.bank.q.val() {
            self.write_half.next = self.sixteen5.val();
        }
        // Only a committed unary step writes: the ports computed in that cycle alone, so that
        // the Verilated model skips them in the others (docs/ethos.md, "Verilated speed",
        // ninth step); otherwise no write.
        for i in 0..12 {
            self.wbank.write_enable[i].next = false;
            self.wbank.write_address[i].next = self.zero5.val();
            self.wbank.write_data[i].next = self.k10[0].val();
            self.zbank.write_enable[i].next = false;
            self.zbank.write_address[i].next = self.zero5.val();
            self.zbank.write_data[i].next = self.zero16.val();
        }
        if self.unary_commit.val() {
            for i in 0..12 {
                self.wbank.write_enable[i].next = self.w_active[i].val() && self.w_complete[i].val();
                self.wbank.write_address[i].next =
                    (self.w_done[i].val().get_bits::<5>(0) - self.wq_i.q.val().get_bits::<5>(0)) | self.write_half.val();
                self.wbank.write_data[i].next = self.w_sum[i].val();
                self.zbank.write_enable[i].next = self.z_active[i].val() && !self.zunary.val().get_bit(i);
                self.zbank.write_address[i].next =
                    (self.z_done[i].val().get_bits::<5>(0) - self.zq_i.q.val().get_bits::<5>(0)) | self.write_half.val();
                self.zbank.write_data[i].next = self.z_run[i].val();
            }
        }
        self.queues.push_w.next = self.push_w.val();
        self.queues.push_z.next = self.push_z.val();
        self.queues.count.next = self.field_count.val();
        self.queues.paired.next = self.alternating.val();
        self.queues.lead.next = self.newpal.q.val() && self.zr_i.q.val() == self.zero16.val();
        for j in 0..4 {
            self.queues.value[j].next = self.value[j].val();
            self.queues.run[j].next = self.run[j].val();
        }

        self.state.d.next = self.next_state.val();

        // ---- a fault stops everything (the output beat is dropped)
        if self.fault.val() != self.no_fault.val() {
            self.state.d.next = self.st_error.val();
            self.code.d.next = self.fault.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightDecoderCore::default(), "weight_decoder_core");
}
