//! The Ethos-U65 weight decoder's register-only logic (TRM §4.7, L4670-5120; digest
//! `shared/spec/ethos-u65.md` §1): the parser's registers and step with its palette and
//! quotient banks, the two 32-entry queues' storage (`WeightQueues`, weight_queues.rs) and the
//! emitter's next beat (`WeightEmitter`, weight_emitter.rs), all computed from registers only.
//! `WeightDecoder` keeps the few registers whose next value depends on its inputs (`in_valid`,
//! `out_ready`): the bit buffer, the queue pointers and the output beat. The split is for the
//! Verilated model's speed: Verilator evaluates logic reading an input on every `eval` (twice a
//! cycle in the bridge), logic reading registers only once, after the clock edge (docs/ethos.md,
//! "Verilated speed"). The queues and quotient banks are memories (queue_memory.rs,
//! quotient_memory.rs), written and read only in the cycles that use them (issue 19).
//!
//! What the step would do is computed by sub-blocks from registers alone: `SliceParams`
//! (slice_params.rs: counts and widths), `HeaderStep` (header_step.rs), `UnaryStep`
//! (unary_step.rs: the unary part's quotients and the banks' write ports) and `RemainderGroup`
//! (remainder_group.rs: the fields and the 4 remainder lanes); this block's `update` wires
//! registers into them and decides the step (which state next, faults, register loads) from
//! their outputs. The registers a slice header and end marker set (`SliceRegisters`,
//! slice_registers.rs) and the chunk's counts and slots (`ChunkRegisters`, chunk_registers.rs)
//! are sub-blocks that take the load this block decides. Why sub-blocks fed from registers only: Verilator splits a block's `always`
//! only into parts that share no signal, so a sub-block fed from a value this block computes
//! and read by its fault check would be a combinational loop (UNOPTFLAT; docs/ethos.md,
//! "Verilated speed", tenth step).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use super::chunk_registers::ChunkRegisters;
use super::header_step::HeaderStep;
use super::palette::Palette;
use super::quotient_banks::QuotientBanks;
use super::remainder_group::RemainderGroup;
use super::slice_params::SliceParams;
use super::slice_registers::SliceRegisters;
use super::unary_step::UnaryStep;
use super::weight_emitter::WeightEmitter;
use super::weight_queues::WeightQueues;
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

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
    consume: Signal<Local, Bits<7>>,
    /// The bit buffer after the step took `consume` bits (`held >> consume`, `fill - consume`,
    /// `bitpos + consume`): here, from registers, so that the 96-bit shift runs once a cycle
    /// after the edge, not in the decoder's input region (docs/ethos.md, fifteenth step).
    pub kept: Signal<Out, Bits<96>>,
    pub kept_fill: Signal<Out, Bits<7>>,
    pub kept_bitpos: Signal<Out, Bits<3>>,
    /// The step takes bits (`consume` != 0): the bit buffer becomes `kept`.
    pub took: Signal<Out, Bit>,
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

    // Registers of the parser
    state: Reg<Bits<3>>,
    code: Reg<Bits<4>>,
    /// What slice headers and end markers set: `slice_registers.rs`.
    slice_regs: SliceRegisters,
    pal_i: Reg<Bits<6>>,
    /// The chunk's counts, partial quotients, bank and slots: `chunk_registers.rs`.
    chunk: ChunkRegisters,
    /// Quotients of a chunk's weights and zero runs (§1.6): `quotient_banks.rs`.
    banks: QuotientBanks,
    // queues and the emitter
    queues: WeightQueues,
    emitter: WeightEmitter,
    palette: Palette,
    // the step's parts, from registers alone
    slice: SliceParams,
    header: HeaderStep,
    unary: UnaryStep,
    group: RemainderGroup,

    next_state: Signal<Local, Bits<3>>,
    group_ready: Signal<Local, Bit>,
    take_group: Signal<Local, Bit>,
    // states, and error codes as `npu_model::ethos::weight_decoder::DecodeError`
    st_header: Constant<Bits<3>>,
    st_palette: Constant<Bits<3>>,
    st_unary: Constant<Bits<3>>,
    st_remainder: Constant<Bits<3>>,
    st_drain: Constant<Bits<3>>,
    st_error: Constant<Bits<3>>,
    no_fault: Constant<Bits<4>>,
    e_truncated: Constant<Bits<4>>,
    e_quotient: Constant<Bits<4>>,
    e_zero_run: Constant<Bits<4>>,
    zero6: Constant<Bits<6>>,
    four6: Constant<Bits<6>>,
    zero7: Constant<Bits<7>>,
    zero16: Constant<Bits<16>>,
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
            kept: Default::default(),
            kept_fill: Default::default(),
            kept_bitpos: Default::default(),
            took: Default::default(),
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
            pal_i: Default::default(),
            chunk: Default::default(),
            slice_regs: Default::default(),
            banks: Default::default(),
            queues: Default::default(),
            emitter: Default::default(),
            palette: Default::default(),
            slice: Default::default(),
            header: Default::default(),
            unary: Default::default(),
            group: Default::default(),
            next_state: Default::default(),
            group_ready: Default::default(),
            take_group: Default::default(),
            st_header: k(0),
            st_palette: k(1),
            st_unary: k(2),
            st_remainder: k(3),
            st_drain: k(4),
            st_error: k(5),
            no_fault: k(0),
            e_truncated: k(1),
            e_quotient: k(7),
            e_zero_run: k(11),
            zero6: k(0),
            four6: k(4),
            zero7: k(0),
            zero16: k(0),
        }
    }
}

impl Logic for WeightDecoderCore {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- registers hold by default; `restart` (reset, or a finished stream) clears them
        dff_setup!(self, clock, state, code, pal_i);
        self.palette.clock.next = self.clock.val();
        self.palette.restart.next = self.restart.val();
        // Memories: no reset, each word read only after it was written.
        self.banks.clock.next = self.clock.val();
        self.chunk.clock.next = self.clock.val();
        self.chunk.restart.next = self.restart.val();
        self.slice_regs.clock.next = self.clock.val();
        self.slice_regs.restart.next = self.restart.val();
        self.slice_regs.h_next_padding.next = self.header.next_padding.val();
        self.slice_regs.h_zdiv.next = self.header.zdiv.val();
        self.slice_regs.h_slicelen.next = self.header.slicelen.val();
        self.slice_regs.h_wtrunc.next = self.header.wtrunc.val();
        self.slice_regs.h_dirofs.next = self.header.dirofs.val();
        self.slice_regs.h_wdiv.next = self.header.wdiv.val();
        self.slice_regs.h_newpal.next = self.header.newpal.val();
        self.slice_regs.h_palsize.next = self.header.palsize.val();
        self.slice_regs.h_palbits.next = self.header.palbits.val();
        self.queues.clock.next = self.clock.val();

        self.state.reset.next = self.restart.val();
        self.code.reset.next = self.restart.val();
        self.pal_i.reset.next = self.restart.val();

        // ---- parser state, for the decoder's handshakes
        self.parsing.next = self.state.q.val() < self.st_drain.val();
        self.finished.next = self.state.q.val() == self.st_drain.val();
        self.error.next = self.state.q.val() == self.st_error.val();
        self.error_code.next = self.code.q.val();

        // ---- the step's parts, each input a register, a port or another part's output (a
        // value computed below would close a loop through this block's `always`)
        self.slice.slicelen.next = self.slice_regs.slicelen.val();
        self.slice.newpal.next = self.slice_regs.newpal.val();
        self.slice.zdiv.next = self.slice_regs.zdiv.val();
        self.slice.wdiv.next = self.slice_regs.wdiv.val();
        self.slice.palsize.next = self.slice_regs.palsize.val();
        self.slice.palbits.next = self.slice_regs.palbits.val();
        self.header.active.next = self.state.q.val() == self.st_header.val()
            && (self.fill.val() != self.zero7.val() || self.seen_last.val());
        self.header.held.next = self.held.val().get_bits::<36>(0);
        self.header.fill.next = self.fill.val();
        self.header.bitpos.next = self.bitpos.val();
        self.header.words.next = self.words.val();
        self.header.seen_last.next = self.seen_last.val();
        self.header.after_end.next = self.slice_regs.after_end.val();
        self.header.padding.next = self.slice_regs.padding.val();
        self.header.have_palette.next = self.slice_regs.have_palette.val();
        self.unary.active.next = self.state.q.val() == self.st_unary.val();
        self.unary.held.next = self.held.val();
        self.unary.wq_i.next = self.chunk.wq_i.val();
        self.unary.zq_i.next = self.chunk.zq_i.val();
        self.unary.wq.next = self.chunk.wq.val();
        self.unary.zq.next = self.chunk.zq.val();
        self.unary.zdiv.next = self.slice_regs.zdiv.val();
        self.unary.wtrunc.next = self.slice_regs.wtrunc.val();
        self.unary.bank.next = self.chunk.bank.val();
        self.unary.w_cnt.next = self.slice.w_cnt.val();
        self.unary.z_cnt.next = self.slice.z_cnt.val();
        self.unary.alternating.next = self.slice.alternating.val();
        self.unary.uncompressed.next = self.slice.uncompressed.val();
        self.unary.ubits.next = self.slice.ubits.val();
        self.group.in_unary.next = self.state.q.val() == self.st_unary.val();
        self.group.in_palette.next = self.state.q.val() == self.st_palette.val();
        self.group.in_lanes.next =
            self.state.q.val() == self.st_remainder.val() || self.state.q.val() == self.st_unary.val();
        self.group.held.next = self.held.val();
        self.group.w_due.next = self.chunk.w_due.val();
        self.group.z_due.next = self.chunk.z_due.val();
        self.group.wq_i.next = self.chunk.wq_i.val();
        self.group.zq_i.next = self.chunk.zq_i.val();
        self.group.wr_i.next = self.chunk.wr_i.val();
        self.group.zr_i.next = self.chunk.zr_i.val();
        self.group.w_slot.next = self.chunk.w_slot.val();
        self.group.z_slot.next = self.chunk.z_slot.val();
        self.group.more.next = self.chunk.more.val();
        self.group.pal_i.next = self.pal_i.q.val();
        self.group.palsize.next = self.slice_regs.palsize.val();
        self.group.dirofs.next = self.slice_regs.dirofs.val();
        self.group.zdiv.next = self.slice_regs.zdiv.val();
        self.group.wdiv.next = self.slice_regs.wdiv.val();
        self.group.palbits_width.next = self.slice.palbits_width.val();
        self.group.zdiv_width.next = self.slice.zdiv_width.val();
        self.group.rbits.next = self.slice.rbits.val();
        self.group.uncompressed.next = self.slice.uncompressed.val();
        self.group.unary_more.next = self.unary.w_en.val() || self.unary.z_en.val();
        self.group.unary_need.next = self.unary.unary_need.val();
        self.group.qw_count.next = self.qw_count.val();
        self.group.qz_count.next = self.qz_count.val();
        self.chunk.uncompressed.next = self.unary.w_en.val() && self.slice.uncompressed.val();
        self.chunk.unc_count.next = self.unary.unc_count.val();
        self.chunk.w_done_end.next = self.unary.w_done_end.val();
        self.chunk.w_run_end.next = self.unary.w_run_end.val();
        self.chunk.z_done_end.next = self.unary.z_done_end.val();
        self.chunk.z_run_end.next = self.unary.z_run[12].val();
        self.chunk.more_next.next = self.unary.w_en.val() || self.unary.z_en.val();
        self.chunk.wr_i_after.next = self.group.wr_i_after.val();
        self.chunk.zr_i_after.next = self.group.zr_i_after.val();
        self.chunk.w_slot_after.next = self.group.w_slot_after.val();
        self.chunk.z_slot_after.next = self.group.z_slot_after.val();
        self.banks.in_unary.next = self.state.q.val() == self.st_unary.val();
        self.banks.reading.next =
            self.state.q.val() == self.st_remainder.val() || self.state.q.val() == self.st_unary.val();
        self.banks.bank.next = self.chunk.bank.val();
        self.banks.wr_i.next = self.chunk.wr_i.val();
        self.banks.w_due.next = self.chunk.w_due.val();
        self.banks.wq_i.next = self.chunk.wq_i.val();
        self.banks.w_slot.next = self.chunk.w_slot.val();
        self.banks.z_slot.next = self.chunk.z_slot.val();
        self.banks.w_write.next = self.unary.w_write.val();
        self.banks.z_write.next = self.unary.z_write.val();
        for i in 0..12 {
            self.banks.w_address[i].next = self.unary.w_address[i].val();
            self.banks.w_data[i].next = self.unary.w_data[i].val();
            self.banks.z_address[i].next = self.unary.z_address[i].val();
            self.banks.z_data[i].next = self.unary.z_run[i].val();
        }
        for j in 0..4 {
            self.group.bank_w[j].next = self.banks.w_read[j].val();
            self.group.bank_z[j].next = self.banks.z_read[j].val();
        }
        for e in 0..32 {
            self.group.palette[e].next = self.palette.entry[e].val();
        }
        // the palette step's write: its fields at `pal_i`
        self.palette.base.next = self.pal_i.q.val().get_bits::<5>(0);
        self.palette.count.next = self.group.field_count.val();
        for j in 0..4 {
            self.palette.field[j].next = self.group.pal_entry[j].val();
        }

        // ---- emitter: the beat it would send next (the decoder sends it when the output register is free)
        self.queues.qw_head.next = self.qw_head.val();
        self.queues.qw_tail.next = self.qw_head.val() + self.qw_count.val().get_bits::<5>(0);
        self.queues.qz_head.next = self.qz_head.val();
        self.queues.qz_tail.next = self.qz_head.val() + self.qz_count.val().get_bits::<5>(0);
        // the emitter reads the heads only with no zeros owed and something queued
        self.queues.read.next = self.zeros_left.val() == self.zero16.val()
            && (self.qw_count.val() != self.zero6.val() || self.qz_count.val() != self.zero6.val());
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
        self.consume.next = self.zero7.val();
        self.fault.next = self.no_fault.val();
        self.next_state.next = self.state.q.val();
        self.push_w.next = false;
        self.push_z.next = false;
        self.banks.commit.next = false;
        self.chunk.clear.next = false;
        self.slice_regs.take_end.next = false;
        self.slice_regs.take_slice.next = false;
        self.chunk.commit.next = false;
        self.palette.write.next = false;
        self.field_count.next = self.group.field_count.val();
        self.group_ready.next =
            self.group.owed.val() && self.fill.val() >= self.group.field_need.val() && self.group.queue_room.val();
        self.take_group.next = false;
        if self.state.q.val() == self.st_header.val() {
            self.consume.next = self.header.consume.val();
            self.fault.next = self.header.fault.val();
            if self.header.stream_end.val() {
                self.next_state.next = self.st_drain.val();
            }
            self.slice_regs.take_end.next = self.header.end_marker.val();
            self.slice_regs.take_slice.next = self.header.slice.val();
            if self.header.slice.val() {
                self.next_state.next = self.st_unary.val();
                if self.header.newpal.val() {
                    if self.header.palette_follows.val() {
                        self.next_state.next = self.st_palette.val();
                    }
                }
                self.pal_i.d.next = self.zero6.val();
                self.chunk.clear.next = true;
            }
        } else if self.state.q.val() == self.st_palette.val() {
            if self.fill.val() < self.group.field_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else {
                self.consume.next = self.group.field_need.val();
                self.palette.write.next = true;
                self.pal_i.d.next = self.pal_i.q.val() + self.four6.val();
                if self.group.pal_left.val() <= self.four6.val() {
                    self.next_state.next = self.st_unary.val();
                }
            }
        } else if self.state.q.val() == self.st_unary.val() {
            if self.fill.val() < self.unary.unary_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.unary.quotient_fault.val() {
                self.fault.next = self.e_quotient.val();
            } else if self.unary.zero_run_fault.val() {
                self.fault.next = self.e_zero_run.val();
            } else if self.group_ready.val() && self.group.w_phase.val() && self.group.lane_fault.val() != self.no_fault.val() {
                self.fault.next = self.group.lane_fault.val();
            } else {
                // the first remainder group too, if its bits are there and its queue has room
                self.take_group.next = self.group_ready.val();
                self.consume.next = self.unary.unary_need.val();
                self.banks.commit.next = true;
                self.chunk.commit.next = true;
                if self.chunk.wr_i.val() < self.chunk.wq_i.val() || self.chunk.zr_i.val() < self.chunk.zq_i.val() {
                    self.next_state.next = self.st_remainder.val();
                } else if !(self.unary.w_en.val() || self.unary.z_en.val()) {
                    self.next_state.next = self.st_header.val();
                }
            }
        } else if self.state.q.val() == self.st_remainder.val() {
            if self.fill.val() < self.group.field_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.group.queue_room.val() {
                if self.group.w_phase.val() && self.group.lane_fault.val() != self.no_fault.val() {
                    self.fault.next = self.group.lane_fault.val();
                } else {
                    self.take_group.next = true;
                }
            }
        }

        // a remainder group taken (by the remainder step, or with the unary part): up to 4
        // remainders after the group's start, pushed; then on to the next group, chunk or slice
        if self.take_group.val() {
            self.consume.next = self.group.field_need.val();
            self.next_state.next = self.st_remainder.val();
            if self.group.w_phase.val() {
                self.push_w.next = true;
            } else {
                self.push_z.next = true;
            }
            if self.group.last_group.val() {
                self.next_state.next = self.st_unary.val();
                if !self.group.more_after.val() {
                    self.next_state.next = self.st_header.val();
                }
            }
        }

        // ---- queue pushes
        self.queues.push_w.next = self.push_w.val();
        self.chunk.take_w.next = self.push_w.val();
        self.chunk.take_z.next = self.push_z.val();
        self.queues.push_z.next = self.push_z.val();
        self.queues.count.next = self.group.field_count.val();
        self.queues.paired.next = self.slice.alternating.val();
        self.queues.lead.next = self.slice_regs.newpal.val() && self.chunk.zr_i.val() == self.zero16.val();
        for j in 0..4 {
            self.queues.value[j].next = self.group.value[j].val();
            self.queues.run[j].next = self.group.run[j].val();
        }

        self.state.d.next = self.next_state.val();

        // ---- the bit buffer after the step (the decoder appends an accepted word behind it);
        // only a step that takes bits shifts, so an idle cycle copies
        self.kept.next = self.held.val();
        self.kept_fill.next = self.fill.val();
        self.kept_bitpos.next = self.bitpos.val();
        self.took.next = self.consume.val() != self.zero7.val();
        if self.took.val() {
            self.kept.next = self.held.val() >> self.consume.val();
            self.kept_fill.next = self.fill.val() - self.consume.val();
            self.kept_bitpos.next = self.bitpos.val() + self.consume.val().get_bits::<3>(0);
        }

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
    crate::synth_check::assert_synthesizes(WeightDecoderCore::default, "weight_decoder_core");
}
