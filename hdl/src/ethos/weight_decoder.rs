//! Ethos-U65 weight decoder (TRM §4.7, L4670-5120; digest `shared/spec/ethos-u65.md` §1).
//!
//! The micro-architecture, the timing and the fault rules are documented on the model,
//! `model/src/ethos/weight_decoder.rs`, which changes the same registers in the same cycles;
//! docs/ethos.md has the block diagram. In short: a 96-bit bit buffer fed with 32-bit words,
//! a parser doing one step a cycle (slice header, 4 palette entries, one chunk's unary part
//! with the first 4 remainders that follow it, or 4 remainders of the previous chunk), two 32-entry queues (weight values, zero runs) and
//! an emitter of beats of up to 4 weights.
//!
//! This block keeps only the registers whose next value depends on an input (the bit
//! buffer on `in_valid`, the queue pointers and the output beat on `out_ready`, and the
//! restart after a drained stream); everything computed from registers alone is in
//! `WeightDecoderCore` (weight_decoder_core.rs), so that the Verilated model evaluates it
//! once a cycle rather than on every `eval` (docs/ethos.md, "Verilated speed").
use super::weight_decoder_core::WeightDecoderCore;
use crate::primitives::{Reg, ZeroExtend};
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
    // bit buffer
    held: Reg<Bits<96>>,
    fill: Reg<Bits<7>>,
    bitpos: Reg<Bits<3>>,
    words: Reg<Bits<2>>,
    seen_last: Reg<Bit>,
    // queue pointers
    qw_head: Reg<Bits<5>>,
    qw_count: Reg<Bits<6>>,
    qz_head: Reg<Bits<5>>,
    qz_count: Reg<Bits<6>>,
    // emitter and output beat (lane i in bits 9i+8:9i)
    zeros_left: Reg<Bits<16>>,
    beat_valid: Reg<Bit>,
    beat_count: Reg<Bits<3>>,
    beat_lanes: Reg<Bits<36>>,
    done_pulse: Reg<Bit>,

    word_wide: ZeroExtend<32, 96>,
    pushed_w: ZeroExtend<3, 6>,
    pushed_z: ZeroExtend<3, 6>,
    popped_w: ZeroExtend<5, 6>,
    popped_z: ZeroExtend<5, 6>,
    restart: Signal<Local, Bit>,
    drained: Signal<Local, Bit>,
    take_beat: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    pop_w: Signal<Local, Bits<5>>,
    pop_z: Signal<Local, Bits<5>>,
    zero3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    zero6: Constant<Bits<6>>,
    zero16: Constant<Bits<16>>,
    zero36: Constant<Bits<36>>,
    one2: Constant<Bits<2>>,
    word_bits: Constant<Bits<7>>,
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
            beat_valid: Default::default(),
            beat_count: Default::default(),
            beat_lanes: Default::default(),
            done_pulse: Default::default(),
            word_wide: Default::default(),
            pushed_w: Default::default(),
            pushed_z: Default::default(),
            popped_w: Default::default(),
            popped_z: Default::default(),
            restart: Default::default(),
            drained: Default::default(),
            take_beat: Default::default(),
            accept: Default::default(),
            pop_w: Default::default(),
            pop_z: Default::default(),
            zero3: Constant::new(0.into()),
            zero4: Constant::new(0.into()),
            zero5: Constant::new(0.into()),
            zero6: Constant::new(0.into()),
            zero16: Constant::new(0.into()),
            zero36: Constant::new(0.into()),
            one2: Constant::new(1.into()),
            word_bits: Constant::new(32.into()),
            room_limit: Constant::new(64.into()),
        }
    }
}

impl Logic for WeightDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- a parsed stream whose weights have all left restarts the decoder
        self.drained.next = self.core.finished.val()
            && self.qw_count.q.val() == self.zero6.val()
            && self.qz_count.q.val() == self.zero6.val()
            && self.zeros_left.q.val() == self.zero16.val()
            && (!self.beat_valid.q.val() || self.out_ready.val());
        self.restart.next = self.reset.val() || self.drained.val();

        // ---- registers hold by default; `restart` (reset, or a finished stream) clears them
        // (`held`, `fill`, `bitpos` take the core's `kept*` every cycle, below)
        self.held.clock.next = self.clock.val();
        self.fill.clock.next = self.clock.val();
        self.bitpos.clock.next = self.clock.val();
        dff_setup!(
            self, clock, words, seen_last, qw_head, qw_count, qz_head, qz_count, zeros_left,
            beat_valid, beat_count, beat_lanes, done_pulse
        );
        self.held.reset.next = self.restart.val();
        self.fill.reset.next = self.restart.val();
        self.bitpos.reset.next = self.restart.val();
        self.words.reset.next = self.restart.val();
        self.seen_last.reset.next = self.restart.val();
        self.qw_head.reset.next = self.restart.val();
        self.qw_count.reset.next = self.restart.val();
        self.qz_head.reset.next = self.restart.val();
        self.qz_count.reset.next = self.restart.val();
        self.zeros_left.reset.next = self.restart.val();
        self.beat_valid.reset.next = self.restart.val();
        self.beat_count.reset.next = self.restart.val();
        self.beat_lanes.reset.next = self.restart.val();
        // `done` survives the restart that it announces.
        self.done_pulse.reset.next = self.reset.val();
        self.done_pulse.d.next = self.drained.val();

        // ---- the core sees registers only (each line below reads nothing written here)
        self.core.clock.next = self.clock.val();
        self.core.restart.next = self.restart.val();
        self.core.held.next = self.held.q.val();
        self.core.fill.next = self.fill.q.val();
        self.core.bitpos.next = self.bitpos.q.val();
        self.core.words.next = self.words.q.val();
        self.core.seen_last.next = self.seen_last.q.val();
        self.core.qw_head.next = self.qw_head.q.val();
        self.core.qw_count.next = self.qw_count.q.val();
        self.core.qz_head.next = self.qz_head.q.val();
        self.core.qz_count.next = self.qz_count.q.val();
        self.core.zeros_left.next = self.zeros_left.q.val();

        // ---- outputs: all registers
        self.in_ready.next = self.core.parsing.val() && !self.seen_last.q.val() && self.fill.q.val() <= self.room_limit.val();
        self.out_valid.next = self.beat_valid.q.val();
        self.out_count.next = self.beat_count.q.val();
        self.out_data.next = self.beat_lanes.q.val();
        self.done.next = self.done_pulse.q.val();
        self.error.next = self.core.error.val();
        self.error_code.next = self.core.error_code.val();

        // ---- emitter: the core's next beat, when the output register is free
        self.take_beat.next = (!self.beat_valid.q.val() || self.out_ready.val()) && !self.core.error.val();
        self.pop_w.next = self.zero5.val();
        self.pop_z.next = self.zero5.val();
        if self.take_beat.val() {
            self.pop_w.next = self.core.pop_w.val();
            self.pop_z.next = self.core.pop_z.val();
            self.qw_head.d.next = self.qw_head.q.val() + self.core.pop_w.val();
            self.qz_head.d.next = self.qz_head.q.val() + self.core.pop_z.val();
            self.zeros_left.d.next = self.core.next_zeros_left.val();
            self.beat_valid.d.next = self.core.new_count.val() != self.zero3.val();
            self.beat_count.d.next = self.core.new_count.val();
            self.beat_lanes.d.next = self.core.new_lanes.val();
        }

        // ---- queues: the core pushes `field_count` entries at the tail, the emitter pops at the head
        self.pushed_w.narrow.next = self.zero3.val();
        self.pushed_z.narrow.next = self.zero3.val();
        if self.core.push_w.val() {
            self.pushed_w.narrow.next = self.core.field_count.val();
        }
        if self.core.push_z.val() {
            self.pushed_z.narrow.next = self.core.field_count.val();
        }
        self.popped_w.narrow.next = self.pop_w.val();
        self.popped_z.narrow.next = self.pop_z.val();
        self.qw_count.d.next = self.qw_count.q.val() + self.pushed_w.wide.val() - self.popped_w.wide.val();
        self.qz_count.d.next = self.qz_count.q.val() + self.pushed_z.wide.val() - self.popped_z.wide.val();

        // ---- bit buffer: the core's buffer after the step (`kept`), an accepted word appended
        // behind it. The shift is the core's, computed once a cycle from registers; this block
        // reads `in_valid`, so what it computes runs in the input region, twice a cycle
        // (docs/ethos.md, "Verilated speed", fifteenth step).
        self.accept.next = self.in_ready.val() && self.in_valid.val();
        self.word_wide.narrow.next = self.in_data.val();
        self.held.d.next = self.core.kept.val();
        self.fill.d.next = self.core.kept_fill.val();
        self.bitpos.d.next = self.core.kept_bitpos.val();
        if self.accept.val() {
            self.held.d.next = self.core.kept.val() | (self.word_wide.wide.val() << self.core.kept_fill.val());
            self.fill.d.next = self.core.kept_fill.val() + self.word_bits.val();
            self.words.d.next = self.words.q.val() + self.one2.val();
            self.seen_last.d.next = self.in_last.val();
        }

        // ---- a fault stops everything (the output beat is dropped)
        if self.core.fault.val() != self.zero4.val() {
            self.beat_valid.d.next = false;
            self.beat_count.d.next = self.zero3.val();
            self.beat_lanes.d.next = self.zero36.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightDecoder::default, "weight_decoder");
}
