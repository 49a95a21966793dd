//! The weight decoder's registers whose next value depends on its inputs (TRM §4.7; digest
//! `shared/spec/ethos-u65.md` §1.6): the bit buffer (`held`, `fill`, `bitpos`, `words`,
//! `seen_last`), the queue pointers, the zeros still owed, the output beat and the `done`
//! pulse. `WeightDecoder` decides the handshakes (`accept`, `take_beat`, `restart`) and
//! `WeightDecoderCore` what the step and the emitter would do; this block applies them.
//!
//! One clocked process, in which the registers hold unless loaded: as 14 `Reg`s each
//! register's reset input, hold (`d = q`) and next-value multiplexer were logic that the
//! Verilated model ran every cycle, and in the decoder's own top in the input region (it
//! reads `in_valid` and `out_ready`), twice a cycle; here they are computed only at the clock
//! edge, and the 96-bit bit buffer is written only when the step takes bits (`took`) or a
//! word is accepted (issue 19). Every read of a register in the process precedes its write
//! (the restart last), so Verilator keeps no shadow copies.
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct DecoderRegisters {
    pub clock: Signal<In, Clock>,
    /// Clears every register but `done_pulse`: reset, or a finished stream.
    pub restart: Signal<In, Bit>,
    /// `done_pulse` is `drained` a cycle later, unless `reset`.
    pub reset: Signal<In, Bit>,
    pub drained: Signal<In, Bit>,
    /// A stream word is accepted: appended behind the step's `kept` bits.
    pub accept: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<32>>,
    pub in_last: Signal<In, Bit>,
    /// The step took bits (`consume` != 0): the bit buffer becomes `kept`.
    pub took: Signal<In, Bit>,
    pub kept: Signal<In, Bits<96>>,
    pub kept_fill: Signal<In, Bits<7>>,
    pub kept_bitpos: Signal<In, Bits<3>>,
    /// The output register takes the emitter's next beat (`new_*`, popping `pop_*` entries).
    pub take_beat: Signal<In, Bit>,
    pub pop_w: Signal<In, Bits<5>>,
    pub pop_z: Signal<In, Bits<5>>,
    pub next_zeros_left: Signal<In, Bits<16>>,
    pub new_count: Signal<In, Bits<3>>,
    pub new_lanes: Signal<In, Bits<36>>,
    /// The step pushes `field_count` entries onto the weight (`push_w`) or zero-run queue.
    pub push_w: Signal<In, Bit>,
    pub push_z: Signal<In, Bit>,
    pub field_count: Signal<In, Bits<3>>,
    /// A fault: the output beat is dropped.
    pub fault: Signal<In, Bit>,
    pub held: Signal<Out, Bits<96>>,
    pub fill: Signal<Out, Bits<7>>,
    pub bitpos: Signal<Out, Bits<3>>,
    pub words: Signal<Out, Bits<2>>,
    pub seen_last: Signal<Out, Bit>,
    pub qw_head: Signal<Out, Bits<5>>,
    pub qw_count: Signal<Out, Bits<6>>,
    pub qz_head: Signal<Out, Bits<5>>,
    pub qz_count: Signal<Out, Bits<6>>,
    pub zeros_left: Signal<Out, Bits<16>>,
    pub beat_valid: Signal<Out, Bit>,
    pub beat_count: Signal<Out, Bits<3>>,
    pub beat_lanes: Signal<Out, Bits<36>>,
    pub done_pulse: Signal<Out, Bit>,
}

impl Logic for DecoderRegisters {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let pushed = |on: bool, count: Bits<3>| -> Bits<6> { if on { bit_cast::<6, 3>(count) } else { 0.into() } };
        let popped = |on: bool, count: Bits<5>| -> Bits<6> { if on { bit_cast::<6, 5>(count) } else { 0.into() } };
        self.qw_count.next = self.qw_count.val() + pushed(self.push_w.val(), self.field_count.val())
            - popped(self.take_beat.val(), self.pop_w.val());
        self.qz_count.next = self.qz_count.val() + pushed(self.push_z.val(), self.field_count.val())
            - popped(self.take_beat.val(), self.pop_z.val());
        if self.take_beat.val() {
            self.qw_head.next = self.qw_head.val() + self.pop_w.val();
            self.qz_head.next = self.qz_head.val() + self.pop_z.val();
            self.zeros_left.next = self.next_zeros_left.val();
            self.beat_valid.next = self.new_count.val().any();
            self.beat_count.next = self.new_count.val();
            self.beat_lanes.next = self.new_lanes.val();
        }
        if self.fault.val() {
            self.beat_valid.next = false;
            self.beat_count.next = 0.into();
            self.beat_lanes.next = 0.into();
        }
        if self.accept.val() {
            self.held.next = self.kept.val() | (bit_cast::<96, 32>(self.in_data.val()) << self.kept_fill.val());
            self.fill.next = self.kept_fill.val() + 32;
            self.words.next = self.words.val() + 1;
            self.seen_last.next = self.in_last.val();
        } else if self.took.val() {
            self.held.next = self.kept.val();
            self.fill.next = self.kept_fill.val();
        }
        if self.took.val() {
            self.bitpos.next = self.kept_bitpos.val();
        }
        self.done_pulse.next = self.drained.val() && !self.reset.val();
        if self.restart.val() {
            self.held.next = 0.into();
            self.fill.next = 0.into();
            self.bitpos.next = 0.into();
            self.words.next = 0.into();
            self.seen_last.next = false;
            self.qw_head.next = 0.into();
            self.qw_count.next = 0.into();
            self.qz_head.next = 0.into();
            self.qz_count.next = 0.into();
            self.zeros_left.next = 0.into();
            self.beat_valid.next = false;
            self.beat_count.next = 0.into();
            self.beat_lanes.next = 0.into();
        }
    }
    fn connect(&mut self) {
        self.held.connect();
        self.fill.connect();
        self.bitpos.connect();
        self.words.connect();
        self.seen_last.connect();
        self.qw_head.connect();
        self.qw_count.connect();
        self.qz_head.connect();
        self.qz_count.connect();
        self.zeros_left.connect();
        self.beat_valid.connect();
        self.beat_count.connect();
        self.beat_lanes.connect();
        self.done_pulse.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(posedge clock) begin
    qw_count <= qw_count + (push_w ? {3'd0, field_count} : 6'd0) - (take_beat ? {1'b0, pop_w} : 6'd0);
    qz_count <= qz_count + (push_z ? {3'd0, field_count} : 6'd0) - (take_beat ? {1'b0, pop_z} : 6'd0);
    if (take_beat) begin
        qw_head <= qw_head + pop_w;
        qz_head <= qz_head + pop_z;
        zeros_left <= next_zeros_left;
        beat_valid <= new_count != 3'd0;
        beat_count <= new_count;
        beat_lanes <= new_lanes;
    end
    if (fault) begin
        beat_valid <= 1'b0;
        beat_count <= 3'd0;
        beat_lanes <= 36'd0;
    end
    if (accept) begin
        held <= kept | ({64'd0, in_data} << kept_fill);
        fill <= kept_fill + 7'd32;
        words <= words + 2'd1;
        seen_last <= in_last;
    end else if (took) begin
        held <= kept;
        fill <= kept_fill;
    end
    if (took) bitpos <= kept_bitpos;
    done_pulse <= drained & !reset;
    if (restart) begin
        held <= 96'd0;
        fill <= 7'd0;
        bitpos <= 3'd0;
        words <= 2'd0;
        seen_last <= 1'b0;
        qw_head <= 5'd0;
        qw_count <= 6'd0;
        qz_head <= 5'd0;
        qz_count <= 6'd0;
        zeros_left <= 16'd0;
        beat_valid <= 1'b0;
        beat_count <= 3'd0;
        beat_lanes <= 36'd0;
    end
end"
            .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DecoderRegisters::default, "decoder_registers");
}
