//! Ethos-U65 weight decoder (TRM §4.7, L4670-5120; digest `shared/spec/ethos-u65.md` §1).
//!
//! The micro-architecture, the timing and the fault rules are documented on the model,
//! `model/src/ethos/weight_decoder.rs`, which changes the same registers in the same cycles;
//! docs/ethos.md has the block diagram. In short: a 96-bit bit buffer fed with 32-bit words,
//! a parser doing one step a cycle (slice header, 4 palette entries, one chunk's unary part
//! with the first 4 remainders that follow it, or 4 remainders of the previous chunk), two 32-entry queues (weight values, zero runs) and
//! an emitter of beats of up to 4 weights.
//!
//! This block decides only what depends on an input (the bit buffer's append on `in_valid`,
//! the queue pointers and the output beat on `out_ready`, and the restart after a drained
//! stream) for the registers that take it; everything computed from registers alone is in
//! `WeightDecoderCore` (weight_decoder_core.rs), so that the Verilated model evaluates it
//! once a cycle rather than on every `eval` (docs/ethos.md, "Verilated speed"). The registers
//! themselves are one clocked process (`DecoderRegisters`, decoder_registers.rs), so that only
//! the handshakes (`accept`, `take_beat`, `restart`) are logic reading the inputs (issue 19).
use super::decoder_registers::DecoderRegisters;
use super::weight_decoder_core::WeightDecoderCore;
use rust_hdl::prelude::*;

/// The streaming weight decoder: 32-bit stream words in (`in_valid`/`in_ready`, `in_last`
/// on the stream's last word), beats of 1..=4 signed 9-bit weights out (`out_valid`/
/// `out_ready`, `out_count`, lane i in `out_data[9i+8:9i]`), `done` for one cycle after a
/// well-formed stream, `error` with `error_code` on a malformed one (held until `reset`).
#[derive(LogicBlock)]
pub struct WeightDecoder {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<32>>,
    pub in_last: Signal<In, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_count: Signal<Out, Bits<3>>,
    pub out_data: Signal<Out, Bits<36>>,
    pub done: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    pub error_code: Signal<Out, Bits<4>>,

    core: WeightDecoderCore,
    regs: DecoderRegisters,
    restart: Signal<Local, Bit>,
    drained: Signal<Local, Bit>,
    take_beat: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    zero4: Constant<Bits<4>>,
    zero6: Constant<Bits<6>>,
    zero16: Constant<Bits<16>>,
    room_limit: Constant<Bits<7>>,
}

impl Default for WeightDecoder {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_last: Default::default(),
            out_ready: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_count: Default::default(),
            out_data: Default::default(),
            done: Default::default(),
            error: Default::default(),
            error_code: Default::default(),
            core: Default::default(),
            regs: Default::default(),
            restart: Default::default(),
            drained: Default::default(),
            take_beat: Default::default(),
            accept: Default::default(),
            zero4: Constant::new(0.into()),
            zero6: Constant::new(0.into()),
            zero16: Constant::new(0.into()),
            room_limit: Constant::new(64.into()),
        }
    }
}

impl Logic for WeightDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- a parsed stream whose weights have all left restarts the decoder
        self.drained.next = self.core.finished.val()
            && self.regs.qw_count.val() == self.zero6.val()
            && self.regs.qz_count.val() == self.zero6.val()
            && self.regs.zeros_left.val() == self.zero16.val()
            && (!self.regs.beat_valid.val() || self.out_ready.val());
        self.restart.next = self.reset.val() || self.drained.val();

        // ---- the registers: `restart` (reset, or a finished stream) clears them; `done`
        // survives the restart that it announces
        self.regs.clock.next = self.clock.val();
        self.regs.restart.next = self.restart.val();
        self.regs.reset.next = self.reset.val();
        self.regs.drained.next = self.drained.val();

        // ---- the core sees registers only (each line below reads nothing written here)
        self.core.clock.next = self.clock.val();
        self.core.restart.next = self.restart.val();
        self.core.held.next = self.regs.held.val();
        self.core.fill.next = self.regs.fill.val();
        self.core.bitpos.next = self.regs.bitpos.val();
        self.core.words.next = self.regs.words.val();
        self.core.seen_last.next = self.regs.seen_last.val();
        self.core.qw_head.next = self.regs.qw_head.val();
        self.core.qw_count.next = self.regs.qw_count.val();
        self.core.qz_head.next = self.regs.qz_head.val();
        self.core.qz_count.next = self.regs.qz_count.val();
        self.core.zeros_left.next = self.regs.zeros_left.val();

        // ---- outputs: all registers
        self.in_ready.next =
            self.core.parsing.val() && !self.regs.seen_last.val() && self.regs.fill.val() <= self.room_limit.val();
        self.out_valid.next = self.regs.beat_valid.val();
        self.out_count.next = self.regs.beat_count.val();
        self.out_data.next = self.regs.beat_lanes.val();
        self.done.next = self.regs.done_pulse.val();
        self.error.next = self.core.error.val();
        self.error_code.next = self.core.error_code.val();

        // ---- emitter: the core's next beat, when the output register is free
        self.take_beat.next = (!self.regs.beat_valid.val() || self.out_ready.val()) && !self.core.error.val();
        self.regs.take_beat.next = self.take_beat.val();
        self.regs.pop_w.next = self.core.pop_w.val();
        self.regs.pop_z.next = self.core.pop_z.val();
        self.regs.next_zeros_left.next = self.core.next_zeros_left.val();
        self.regs.new_count.next = self.core.new_count.val();
        self.regs.new_lanes.next = self.core.new_lanes.val();

        // ---- queues: the core pushes `field_count` entries at the tail, the emitter pops at the head
        self.regs.push_w.next = self.core.push_w.val();
        self.regs.push_z.next = self.core.push_z.val();
        self.regs.field_count.next = self.core.field_count.val();

        // ---- bit buffer: the core's buffer after the step (`kept`), an accepted word appended
        // behind it. The shift is the core's, computed once a cycle from registers; the
        // append is at the clock edge only (`DecoderRegisters`).
        self.accept.next = self.in_ready.val() && self.in_valid.val();
        self.regs.accept.next = self.accept.val();
        self.regs.in_data.next = self.in_data.val();
        self.regs.in_last.next = self.in_last.val();
        self.regs.took.next = self.core.took.val();
        self.regs.kept.next = self.core.kept.val();
        self.regs.kept_fill.next = self.core.kept_fill.val();
        self.regs.kept_bitpos.next = self.core.kept_bitpos.val();

        // ---- a fault stops everything (the output beat is dropped)
        self.regs.fault.next = self.core.fault.val() != self.zero4.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightDecoder::default, "weight_decoder");
}
