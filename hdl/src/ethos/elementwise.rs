//! The kernel unit: NPU_OP_ELEMENTWISE and NPU_OP_POOL (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §2.3, §3.2). ELEMENTWISE: int8 IFM and IFM2 (or the IFM2
//! scalar, IFM2 broadcast along any of height, width and depth, operands swapped by
//! IFM2_BROADCAST bit 6), MUL, ADD, SUB, MIN and MAX with the OPA/OPB/OFM scales. POOL: max and
//! average over the kernel (size, strides and the four IFM_PAD registers; an average uses
//! OFM_SCALE, or with padding divides by the taps inside: `pooling_alu.rs`). Both in NHWC or
//! NHCWB16, with zero points and the activation clamp; the OFM gathered into 64-bit words
//! written with their byte strobes. The model is `npu_model::ethos::elementwise`; docs/ethos.md, "NPU top and
//! the kernel unit", has the timing and the decisions, which are also in
//! `elementwise_states.rs`.
//!
//! Ports: the front end's kernel handshake (`kernel_start`, `kernel_op`, `kernel_mode` in;
//! `kernel_done` for one cycle with `kernel_error`), its debug port (`debug_index`,
//! `debug_hold` out, `debug_value` in: the register file, and BASEPs at
//! `command_front_end::DEBUG_BASEP`), and a memory master of the NPU's interface (one read and
//! one write at a time) behind the NPU's arbiter.
//!
//! States: `elementwise_states.rs` (the codes, what each does, the timing of an element).
//! Decisions (the TRM leaves these open): in `elementwise_states.rs`, beside the states and
//! the error codes they concern (kept apart so that this file stays a readable size).
use super::elementwise_check::ElementwiseCheck;
use super::elementwise_datapath::ElementwiseDatapath;
use super::elementwise_memory::ElementwiseMemory;
use super::elementwise_walk::ElementwiseWalk;
use super::kernel_operation::KernelOperation;
use super::kernel_registers::KernelRegisters;
use super::pool_taps::PoolTaps;
use super::word_mode::WordMode;
pub use super::elementwise_states::{state, ERROR_IFM, ERROR_OFM, ERROR_UNSUPPORTED};
pub use super::kernel_registers::{latch_table, scalar, LATCH_STEPS, MAPS};
use crate::primitives::Reg;
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

/// The unit: the state machine and the element loop. Its sub-blocks: the operation taken
/// (`kernel_operation.rs`), the LATCHed registers (`kernel_registers.rs`), the CHECK verdict
/// (`elementwise_check.rs`), word mode (`word_mode.rs`), the element and its deferred OFM byte
/// (`elementwise_walk.rs`), the arithmetic of an element (`elementwise_datapath.rs`: the 8
/// lanes, and for a pool the pooling ALU and the output unit's two stages), the pool's tap
/// walk (`pool_taps.rs`) and the memory side (`elementwise_memory.rs`: the three feature-map
/// addresses, the word caches, the read and the strobed write through `ofm_write_buffer.rs`).
#[derive(LogicBlock)]
pub struct Elementwise {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    pub kernel_op: Signal<In, Bits<2>>,
    pub kernel_mode: Signal<In, Bits<16>>,
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
    datapath: ElementwiseDatapath,
    check: ElementwiseCheck,
    memory: ElementwiseMemory,
    // State.
    state: Reg<Bits<4>>,
    /// The start taken in IDLE, and its operation (`pool`, else an ELEMENTWISE) and mode.
    operation: KernelOperation,
    error: Reg<Bits<4>>,
    /// The element (`elementwise_walk.rs`).
    walk: ElementwiseWalk,
    /// The operands: the IFM and IFM2 words shifted so that the element's byte is lane 0 (in
    /// word mode: the words of the element's 8 channels).
    ifm_word: Reg<Bits<64>>,
    ifm2_word: Reg<Bits<64>>,
    /// Word mode (issue 19, `word_mode.rs`): a word of channels at a time; `word_mode.word` is
    /// a register, decided in CHECK.
    word_mode: WordMode,
    /// The pool's tap (ky, kx), its running max or sum, and the taps inside so far.
    taps: PoolTaps,
    /// The registers (module `scalar`) and the LATCH sequence.
    registers: KernelRegisters,
    // Combinational.
    /// The IFM2 byte comes this cycle (READ_B's hit, WAIT_B's read, READ_A's with both words
    /// cached: `elementwise_memory.rs`, `both`).
    leave_b: Signal<Local, Bit>,
    /// The element leaves READ_B/WAIT_B for the next element's READ_A (not the last), which
    /// takes its OFM byte (the walk's `deferred`, until taken; `elementwise_memory.rs`).
    defer: Signal<Local, Bit>,
    /// A pool's word has its last tap now (taken or skipped), or waits in CALC for the drain.
    word_end: Signal<Local, Bit>,
    /// The word's lanes move to the drain (`pool_taps.rs`), the walk to the next word.
    drain_load: Signal<Local, Bit>,
    /// Bits read nowhere (fields of registers the unit keeps whole), named as lint expects.
    unused_bits: Signal<Local, Bit>,
    // Constants.
    s_idle: Constant<Bits<4>>,
    s_latch: Constant<Bits<4>>,
    s_check: Constant<Bits<4>>,
    s_read_a: Constant<Bits<4>>,
    s_wait_a: Constant<Bits<4>>,
    s_read_b: Constant<Bits<4>>,
    s_wait_b: Constant<Bits<4>>,
    s_calc: Constant<Bits<4>>,
    s_flush: Constant<Bits<4>>,
    s_done: Constant<Bits<4>>,
    e_none: Constant<Bits<4>>,
    e_ifm: Constant<Bits<4>>,
    e_ofm: Constant<Bits<4>>,
    e_unsupported: Constant<Bits<4>>,
    one16: Constant<Bits<16>>,
}

impl Default for Elementwise {
    fn default() -> Self {
        Self {
            clock: Default::default(), reset: Default::default(), kernel_start: Default::default(), kernel_op: Default::default(),
            kernel_mode: Default::default(), debug_value: Default::default(), mem_ar_ready: Default::default(), mem_r_valid: Default::default(),
            mem_r_data: Default::default(), mem_r_error: Default::default(), mem_aw_ready: Default::default(), mem_b_valid: Default::default(),
            mem_b_error: Default::default(), kernel_done: Default::default(), kernel_error: Default::default(), debug_index: Default::default(),
            debug_hold: Default::default(), mem_ar_valid: Default::default(), mem_ar_addr: Default::default(), mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(), mem_w_data: Default::default(), mem_w_strb: Default::default(), datapath: Default::default(),
            taps: Default::default(), memory: Default::default(), check: Default::default(), registers: Default::default(),
            leave_b: Default::default(), defer: Default::default(), state: Default::default(),
            operation: Default::default(),
            error: Default::default(), walk: Default::default(), ifm_word: Default::default(), ifm2_word: Default::default(),
            word_mode: Default::default(), unused_bits: Default::default(), word_end: Default::default(), drain_load: Default::default(),
            s_idle: k(state::IDLE.into()), s_latch: k(state::LATCH.into()), s_check: k(state::CHECK.into()),
            s_read_a: k(state::READ_A.into()), s_wait_a: k(state::WAIT_A.into()), s_read_b: k(state::READ_B.into()),
            s_wait_b: k(state::WAIT_B.into()), s_calc: k(state::CALC.into()), s_flush: k(state::FLUSH.into()),
            s_done: k(state::DONE.into()), e_none: k(0), e_ifm: k(ERROR_IFM.into()), e_ofm: k(ERROR_OFM.into()),
            e_unsupported: k(ERROR_UNSUPPORTED.into()), one16: k(1),
        }
    }
}

impl Logic for Elementwise {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, error, ifm_word, ifm2_word);
        self.registers.clock.next = self.clock.val();
        self.registers.reset.next = self.reset.val();
        self.state.reset.next = self.reset.val();
        self.error.reset.next = self.reset.val();
        self.ifm_word.reset.next = self.reset.val();
        self.ifm2_word.reset.next = self.reset.val();
        // Word mode (`word_mode.rs`): the IFM and OFM lanes (the pool's `word_lanes`) and the
        // IFM2's, decided as CHECK passes.
        self.word_mode.clock.next = self.clock.val();
        self.word_mode.reset.next = self.reset.val();
        self.word_mode.ifm2_load.next = self.registers.ifm2_load.val();
        self.word_mode.load_slot.next = self.registers.load_slot.val();
        self.word_mode.load_value.next = self.registers.load_value.val();
        self.word_mode.pool.next = self.operation.pool.val();
        self.word_mode.word_lanes.next = self.taps.word_lanes.val();
        self.word_mode.scalar_operand.next = self.registers.ifm2_broadcast.val().get_bit(7);
        self.word_mode.broadcast_c.next = self.registers.ifm2_broadcast.val().get_bit(2);
        self.word_mode.decide.next = (self.state.q.val() == self.s_check.val()) & !self.check.unsupported.val();

        // LATCH (the registers block's sequence), started with an ELEMENTWISE or a POOL.
        self.operation.clock.next = self.clock.val();
        self.operation.reset.next = self.reset.val();
        self.operation.idle.next = self.state.q.val() == self.s_idle.val();
        self.operation.kernel_start.next = self.kernel_start.val();
        self.operation.kernel_op.next = self.kernel_op.val();
        self.operation.kernel_mode.next = self.kernel_mode.val();
        self.operation.scalar_operand.next = self.registers.ifm2_broadcast.val().get_bit(7);
        self.registers.start.next = self.operation.accept.val();
        self.registers.debug_value.next = self.debug_value.val();
        self.debug_index.next = self.registers.debug_index.val();
        self.debug_hold.next = self.registers.debug_hold.val();
        // (Written before they are read: rust-hdl's loop check.) A pool's word ends with its
        // last tap taken from the cache or skipped in READ_A, with the data of its last read
        // (`flight_last`: the walk stepped as that read was taken), or waits in CALC while the
        // drain is busy; the drain loads when it is free (issue 19).
        self.word_end.next = self.operation.pool.val()
            & ((self.taps.last.val()
                & (self.state.q.val() == self.s_read_a.val())
                & !self.memory.write_error.val()
                & (!self.datapath.in_ifm.val() | (self.memory.hit.val() & !self.memory.hold.val())))
                | (self.taps.flight_last.val() & (self.state.q.val() == self.s_wait_a.val()) & self.mem_r_valid.val() & !self.mem_r_error.val())
                | ((self.state.q.val() == self.s_calc.val()) & !self.memory.write_error.val()));
        self.drain_load.next = self.word_end.val() & self.taps.drain_free.val();
        // The memory side (`elementwise_memory.rs`): addresses, word caches, read and write.
        self.memory.clock.next = self.clock.val();
        self.memory.reset.next = self.reset.val();
        self.memory.state.next = self.state.q.val();
        // Registers only (the memory side's outputs feed this block).
        self.memory.deferred.next = self.walk.deferred.val();
        // A pool's tap in the padding: READ_A reads nothing (issue 19). From the datapath, as
        // `iy`/`ix`, not through a local the state machine reads (Verilator would see a loop).
        self.memory.padding.next = self.operation.pool.val() & !self.datapath.in_ifm.val();
        self.memory.ifm_load.next = self.registers.ifm_load.val();
        self.memory.ifm2_load.next = self.registers.ifm2_load.val();
        self.memory.ofm_load.next = self.registers.ofm_load.val();
        self.memory.load_slot.next = self.registers.load_slot.val();
        self.memory.load_value.next = self.registers.load_value.val();
        self.memory.pool.next = self.operation.pool.val();
        // A pool's OFM bytes from its drain (`pool_taps.rs`, issue 19).
        self.memory.drain.next = self.taps.drain_valid.val();
        self.memory.drain_load.next = self.drain_load.val();
        // The pool's read in flight is not its word's last: WAIT_A offers the next tap's read.
        self.memory.next_tap.next = self.operation.pool.val() & !self.taps.flight_last.val();
        self.memory.drain_lane.next = self.taps.drain_lane.val();
        self.memory.pair.next = !self.operation.pool.val() & !self.registers.ifm2_broadcast.val().get_bit(7);
        self.memory.y.next = self.walk.y.val();
        self.memory.x.next = self.walk.x.val();
        self.memory.c.next = self.walk.c.val();
        self.memory.iy.next = self.datapath.iy.val();
        self.memory.ix.next = self.datapath.ix.val();
        self.memory.upscale.next = self.registers.ifm_upscale.val() == self.one16.val();
        self.memory.broadcast.next = self.registers.ifm2_broadcast.val().get_bits::<3>(0);
        self.memory.result.next = self.datapath.w_data.val();
        self.memory.word_result.next = self.datapath.word_data.val();
        self.memory.word.next = self.word_mode.word.val();
        self.memory.lane_strb.next = self.walk.strb.val();
        // A pool with word lanes walks a word at a time too (its drain: `pool_taps.rs`).
        self.walk.word.next = self.word_mode.word.val() | (self.operation.pool.val() & self.taps.word_lanes.val());
        self.memory.mem_r_valid.next = self.mem_r_valid.val();
        self.memory.mem_r_data.next = self.mem_r_data.val();
        self.memory.mem_r_error.next = self.mem_r_error.val();
        self.memory.mem_aw_ready.next = self.mem_aw_ready.val();
        self.memory.mem_b_valid.next = self.mem_b_valid.val();
        self.memory.mem_b_error.next = self.mem_b_error.val();
        self.memory.discard.next = self.error.q.val() != self.e_none.val();
        // The element (NHWC order): from (0, 0, 0) after CHECK, the next one when the state
        // machine steps (below).
        self.walk.clock.next = self.clock.val();
        self.walk.reset.next = self.reset.val();
        self.walk.ofm_height_m1.next = self.registers.ofm_height_m1.val();
        self.walk.ofm_width_m1.next = self.registers.ofm_width_m1.val();
        self.walk.ofm_depth_m1.next = self.registers.ofm_depth_m1.val();
        self.walk.read_a.next = self.state.q.val() == self.s_read_a.val();
        self.walk.taken.next = self.memory.take.val();
        // An element with an IFM2 byte (not the last) goes on to the next element's READ_A,
        // which takes this element's OFM byte beside its read (`elementwise_memory.rs`).
        self.leave_b.next = ((self.state.q.val() == self.s_read_b.val()) & !self.memory.write_error.val() & self.memory.hit.val())
            | ((self.state.q.val() == self.s_wait_b.val()) & self.mem_r_valid.val() & !self.mem_r_error.val())
            | ((self.state.q.val() == self.s_read_a.val()) & !self.memory.write_error.val() & self.memory.both.val())
            | ((self.state.q.val() == self.s_wait_a.val()) & self.mem_r_valid.val() & !self.mem_r_error.val() & self.memory.wait_both.val());
        self.defer.next = self.leave_b.val() & !self.walk.last.val();
        self.walk.defer.next = self.defer.val();
        self.walk.clear.next = false;
        self.walk.step.next = self.defer.val();
        self.mem_ar_valid.next = self.memory.mem_ar_valid.val();
        self.mem_ar_addr.next = self.memory.mem_ar_addr.val();
        self.mem_aw_valid.next = self.memory.mem_aw_valid.val();
        self.mem_aw_addr.next = self.memory.mem_aw_addr.val();
        self.mem_w_data.next = self.memory.mem_w_data.val();
        self.mem_w_strb.next = self.memory.mem_w_strb.val();

        // CHECK: the field values the unit does not implement (`elementwise_check.rs`).
        self.check.pool.next = self.operation.pool.val();
        self.check.mode.next = self.operation.mode.val();
        self.check.mode_bad.next = self.operation.mode_bad.val();
        self.check.ifm_precision.next = self.registers.ifm_precision.val();
        self.check.ifm2_precision.next = self.registers.ifm2_precision.val();
        self.check.ofm_precision.next = self.registers.ofm_precision.val();
        self.check.scalar_operand.next = self.registers.ifm2_broadcast.val().get_bit(7);
        self.check.activation.next = self.registers.activation.val();
        self.check.acc_format.next = self.registers.acc_format.val();
        self.check.ifm_upscale.next = self.registers.ifm_upscale.val();
        self.check.opa_shift.next = self.registers.opa_scale.val().get_bits::<6>(32);
        self.check.ifm_region.next = self.registers.ifm_region.val();
        self.check.ifm2_region.next = self.registers.ifm2_region.val();
        self.check.ofm_region.next = self.registers.ofm_region.val();
        self.check.ifm_zero_point_high.next = self.registers.ifm_zero_point.val().get_bits::<9>(7);
        self.check.ifm2_zero_point_high.next = self.registers.ifm2_zero_point.val().get_bits::<9>(7);
        self.check.ifm2_scalar_high.next = self.registers.ifm2_scalar.val().get_bits::<9>(7);
        self.check.dilation.next = self.registers.kernel_stride.val().get_bits::<2>(3);
        self.check.kernel_height_m1.next = self.registers.kernel_height_m1.val();
        self.check.kernel_width_m1.next = self.registers.kernel_width_m1.val();

        // The arithmetic of an element: from the unit's registers and the LATCHed copies.
        // (A pool's OFM bytes come from its drain: `pool_taps.rs`.)
        self.datapath.calc.next = (((self.state.q.val() == self.s_calc.val()) | self.walk.deferred.val()) & !self.word_mode.word.val())
            | self.taps.drain_valid.val();
        // Word mode's 8 lanes, from the same registers (`elementwise_lanes.rs`, in the datapath).
        self.datapath.word_calc.next = ((self.state.q.val() == self.s_calc.val()) | self.walk.deferred.val()) & self.word_mode.word.val();
        self.datapath.ifm_word.next = self.ifm_word.q.val();
        self.datapath.ifm2_word.next = self.ifm2_word.q.val();
        self.datapath.pool.next = self.operation.pool.val();
        self.datapath.mode.next = self.operation.mode.val();
        self.datapath.y.next = self.walk.y.val();
        self.datapath.x.next = self.walk.x.val();
        self.datapath.ky.next = self.taps.ky.val();
        self.datapath.kx.next = self.taps.kx.val();
        // A pool's OFM byte: the drain's lane (`pool_taps.rs`).
        self.datapath.acc.next = self.taps.drain_acc.val();
        self.datapath.lane.next = self.taps.drain_lane.val();
        self.datapath.word_lanes.next = self.taps.word_lanes.val();
        self.datapath.count.next = self.taps.drain_count.val();
        self.datapath.ifm_zero_point.next = self.registers.ifm_zero_point.val();
        self.datapath.ifm2_zero_point.next = self.registers.ifm2_zero_point.val();
        self.datapath.ofm_zero_point.next = self.registers.ofm_zero_point.val();
        self.datapath.scale_mode.next = self.registers.ifm_precision.val().get_bits::<2>(8);
        self.datapath.ifm2_signed.next = self.registers.ifm2_precision.val().get_bit(0);
        self.datapath.rounding.next = self.registers.ofm_precision.val().get_bits::<2>(14);
        self.datapath.scalar_operand.next = self.registers.ifm2_broadcast.val().get_bit(7);
        self.datapath.swap.next = self.registers.ifm2_broadcast.val().get_bit(6);
        self.datapath.ifm2_scalar.next = self.registers.ifm2_scalar.val();
        self.datapath.opa_scale.next = self.registers.opa_scale.val();
        self.datapath.opb_scale.next = self.registers.opb_scale.val();
        self.datapath.ofm_scale.next = self.registers.ofm_scale.val();
        self.datapath.activation_min.next = self.registers.activation_min.val();
        self.datapath.activation_max.next = self.registers.activation_max.val();
        self.datapath.ofm_height_m1.next = self.registers.ofm_height_m1.val();
        self.datapath.ofm_width_m1.next = self.registers.ofm_width_m1.val();
        self.datapath.kernel_height_m1.next = self.registers.kernel_height_m1.val();
        self.datapath.kernel_width_m1.next = self.registers.kernel_width_m1.val();
        self.datapath.kernel_stride.next = self.registers.kernel_stride.val();
        self.datapath.ifm_pad_top.next = self.registers.ifm_pad_top.val();
        self.datapath.ifm_pad_left.next = self.registers.ifm_pad_left.val();
        self.datapath.ifm_pad_bottom.next = self.registers.ifm_pad_bottom.val();
        self.datapath.ifm_pad_right.next = self.registers.ifm_pad_right.val();

        self.kernel_done.next = self.state.q.val() == self.s_done.val();
        self.kernel_error.next = self.e_none.val();
        if self.state.q.val() == self.s_done.val() {
            self.kernel_error.next = self.error.q.val();
        }
        // The convolution unit's registers (one LATCH table for every kernel).
        self.unused_bits.next = self.registers.ifm_depth_m1.val().any() | self.registers.ofm_blk_depth_m1.val().any() | self.registers.weight_region.val().any()
            | self.registers.scale_region.val().any() | self.registers.weight_base.val().any() | self.registers.weight_length.val().any()
            | self.registers.scale_base.val().any() | self.registers.scale_length.val().any() | self.registers.ifm_stride_c.val().any()
            | self.registers.weight_basep.val().any() | self.registers.scale_basep.val().any() | self.registers.ifm2_broadcast.val().get_bits::<3>(3).any();

        // A pool's taps (`pool_taps.rs`).
        self.taps.clock.next = self.clock.val();
        self.taps.reset.next = self.reset.val();
        self.taps.state.next = self.state.q.val();
        self.taps.drain_take.next = self.operation.pool.val() & self.memory.take.val();
        self.taps.drain_clear.next = self.state.q.val() == self.s_check.val();
        self.taps.drain_load.next = self.drain_load.val();
        // The tap's read taken (READ_A's, or WAIT_A's of the next tap): the walk steps.
        self.taps.issue.next = self.operation.pool.val() & self.memory.mem_ar_valid.val() & self.mem_ar_ready.val();
        // A pool's tap in the padding: READ_A reads nothing and steps past it (issue 19).
        self.taps.skip.next =
            (self.state.q.val() == self.s_read_a.val()) & !self.memory.write_error.val() & self.operation.pool.val() & !self.datapath.in_ifm.val();
        // The tap's IFM word, taken with its byte (below), into the lanes (`pool_lanes.rs`).
        self.taps.word.next = self.memory.operand_word.val();
        self.taps.word_load.next = false;
        self.taps.zero_point.next = self.registers.ifm_zero_point.val();
        self.taps.mode.next = self.operation.mode.val();
        self.taps.c.next = self.walk.c.val();
        self.taps.ofm_depth_m1.next = self.registers.ofm_depth_m1.val();
        self.taps.ifm_load.next = self.registers.ifm_load.val();
        self.taps.ofm_load.next = self.registers.ofm_load.val();
        self.taps.load_slot.next = self.registers.load_slot.val();
        self.taps.load_value.next = self.registers.load_value.val();
        self.taps.kernel_height_m1.next = self.registers.kernel_height_m1.val();
        self.taps.kernel_width_m1.next = self.registers.kernel_width_m1.val();

        // The state machine.
        if self.state.q.val() == self.s_idle.val() {
            if self.kernel_start.val() {
                // (`kernel_operation.rs` latches the operation and mode.)
                if self.operation.accept.val() {
                    self.state.d.next = self.s_latch.val();
                } else {
                    self.state.d.next = self.s_done.val();
                    self.error.d.next = self.e_unsupported.val();
                }
            }
        } else if self.state.q.val() == self.s_latch.val() {
            if self.registers.latched.val() {
                self.state.d.next = self.s_check.val();
            }
        } else if self.state.q.val() == self.s_check.val() {
            if self.check.unsupported.val() {
                self.error.d.next = self.e_unsupported.val();
                self.state.d.next = self.s_done.val();
            } else {
                self.error.d.next = self.e_none.val();
                self.walk.clear.next = true;
                self.state.d.next = self.s_read_a.val();
            }
        } else if self.state.q.val() == self.s_read_a.val() {
            // A failed OFM write stops the kernel before the next read.
            if self.memory.write_error.val() {
                self.error.d.next = self.e_ofm.val();
                self.state.d.next = self.s_flush.val();
            } else if self.operation.pool.val() & !self.datapath.in_ifm.val() {
                // A pool's tap in the padding: no read, the walk steps (`pool_taps.rs`; after
                // the last tap, `word_end`; issue 19: no POOL_TAP cycle before each tap).
            } else if self.memory.hit.val() {
                // A cached word: its byte now, no read (unless the deferred OFM byte holds it).
                if !self.memory.hold.val() {
                    self.ifm_word.d.next = self.memory.operand_word.val();
                    self.taps.word_load.next = self.operation.pool.val();
                    self.state.d.next = self.operation.after_a.val();
                    // The IFM2 word cached too: its byte in this cycle, the element done.
                    if self.memory.both.val() {
                        self.ifm2_word.d.next = self.memory.operand2_word.val();
                        self.state.d.next = self.s_calc.val();
                    }
                }
            } else if self.mem_ar_ready.val() & !self.memory.conflict.val() {
                self.state.d.next = self.s_wait_a.val();
            }
        } else if self.state.q.val() == self.s_read_b.val() {
            if self.memory.write_error.val() {
                self.error.d.next = self.e_ofm.val();
                self.state.d.next = self.s_flush.val();
            } else if self.memory.hit.val() {
                self.ifm2_word.d.next = self.memory.operand2_word.val();
                self.state.d.next = self.s_calc.val();
            } else if self.mem_ar_ready.val() & !self.memory.conflict.val() {
                self.state.d.next = self.s_wait_b.val();
            }
        } else if self.state.q.val() == self.s_wait_a.val() {
            if self.mem_r_valid.val() {
                if self.mem_r_error.val() {
                    self.error.d.next = self.e_ifm.val();
                    self.state.d.next = self.s_flush.val();
                } else {
                    self.ifm_word.d.next = self.memory.operand_word.val();
                    self.taps.word_load.next = self.operation.pool.val();
                    self.state.d.next = self.operation.after_a.val();
                    // A pool's next tap's read, offered now, taken: its data next (issue 19).
                    if self.memory.mem_ar_valid.val() & self.mem_ar_ready.val() {
                        self.state.d.next = self.s_wait_a.val();
                    }
                    // Word mode: the IFM2 word from its cache (or the scalar) beside the IFM
                    // word read, the element done (issue 19).
                    if self.memory.wait_both.val() {
                        self.ifm2_word.d.next = self.memory.operand2_word.val();
                        self.state.d.next = self.s_calc.val();
                    }
                }
            }
        } else if self.state.q.val() == self.s_wait_b.val() {
            if self.mem_r_valid.val() {
                if self.mem_r_error.val() {
                    self.error.d.next = self.e_ifm.val();
                    self.state.d.next = self.s_flush.val();
                } else {
                    self.ifm2_word.d.next = self.memory.operand2_word.val();
                    self.state.d.next = self.s_calc.val();
                }
            }
        } else if self.state.q.val() == self.s_calc.val() {
            // The memory side gathers the OFM byte into its word (`take`), or the write of
            // the previous word is still in flight and CALC waits.
            if self.memory.write_error.val() {
                self.error.d.next = self.e_ofm.val();
                self.state.d.next = self.s_flush.val();
            } else if !self.operation.pool.val() & self.memory.take.val() {
                // The next element; after the last, FLUSH. (A pool's CALC waits for its drain:
                // `word_end`.)
                self.state.d.next = self.s_read_a.val();
                if self.walk.last.val() {
                    self.state.d.next = self.s_flush.val();
                }
                self.walk.step.next = true;
            }
        } else if self.state.q.val() == self.s_flush.val() {
            // The last gathered word written (dropped after an error), then DONE; a write
            // that fails meanwhile is the kernel's error unless a read failed first.
            if self.memory.drained.val() {
                self.state.d.next = self.s_done.val();
                if self.memory.write_error.val() & (self.error.q.val() == self.e_none.val()) {
                    self.error.d.next = self.e_ofm.val();
                }
            }
        } else {
            // DONE (its one cycle) and the unused codes.
            self.state.d.next = self.s_idle.val();
        }
        // An element that takes its IFM2 byte (but the last) goes on to the next element's
        // READ_A, the walk stepping, rather than to CALC.
        if self.defer.val() {
            self.state.d.next = self.s_read_a.val();
        }
        // A pool's word whose taps are done: to the drain when it is free, the walk to the next
        // word (after the last, FLUSH, which waits for the drain); else CALC waits for it.
        if self.word_end.val() {
            self.state.d.next = self.s_calc.val();
            if self.drain_load.val() {
                self.walk.step.next = true;
                self.state.d.next = self.s_read_a.val();
                if self.walk.last.val() {
                    self.state.d.next = self.s_flush.val();
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Elementwise::default, "elementwise");
}
