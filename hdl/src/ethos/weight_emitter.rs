//! The weight decoder's beat emitter (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.6): the
//! next output beat of up to 4 weights, from the zeros still owed and the 4 entries at the
//! head of each queue. In order of priority: up to 4 zeros of a long run still owed; up to 4
//! plain (unpaired) weights; the zero run that leads a slice; up to 4 lanes of *weight, its
//! zero run* pairs, a pair taken only if every pair before it was taken with all its zeros.
//! Combinational: `WeightDecoder` sends the beat when its output register is free and then
//! pops the entries and keeps `next_zeros_left`. The model's `emit` in
//! model/src/ethos/weight_decoder/weight_emitter.rs is the same rule; the decoder's lock-step tests cover it.
use super::weight_decoder_core::constants;
use crate::primitives::Concat;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WeightEmitter {
    pub qw_count: Signal<In, Bits<6>>,
    pub qz_count: Signal<In, Bits<6>>,
    pub zeros_left: Signal<In, Bits<16>>,
    pub head_value: [Signal<In, Bits<9>>; 4],
    pub head_paired: [Signal<In, Bit>; 4],
    pub head_run: [Signal<In, Bits<16>>; 4],
    pub head_lead: [Signal<In, Bit>; 4],
    /// The beat: weights in lanes `0..new_count` (lane i in bits 9i+8:9i), entries it pops
    /// from each queue, zeros still owed after it.
    pub new_count: Signal<Out, Bits<3>>,
    pub new_lanes: Signal<Out, Bits<36>>,
    pub pop_w: Signal<Out, Bits<5>>,
    pub pop_z: Signal<Out, Bits<5>>,
    pub next_zeros_left: Signal<Out, Bits<16>>,

    lanes_low: Concat<9, 9, 18>,
    lanes_high: Concat<9, 9, 18>,
    lanes_all: Concat<18, 18, 36>,
    have_w: [Signal<Local, Bit>; 4],
    have_z: [Signal<Local, Bit>; 4],
    new_lane: [Signal<Local, Bits<9>>; 4],
    plain_go: [Signal<Local, Bit>; 5],
    pair_take: [Signal<Local, Bit>; 4],
    pair_count: [Signal<Local, Bits<3>>; 5],
    pair_at: [Signal<Local, Bits<3>>; 5],
    pair_room: [Signal<Local, Bits<16>>; 4],
    pair_fit: [Signal<Local, Bits<16>>; 4],
    pair_left: [Signal<Local, Bits<16>>; 5],
    lead_fit: Signal<Local, Bits<16>>,
    k3: [Constant<Bits<3>>; 5],
    k5: [Constant<Bits<5>>; 5],
    k6: [Constant<Bits<6>>; 4],
    k16: [Constant<Bits<16>>; 5],
    zero9: Constant<Bits<9>>,
}

impl Default for WeightEmitter {
    fn default() -> Self {
        Self {
            qw_count: Default::default(),
            qz_count: Default::default(),
            zeros_left: Default::default(),
            head_value: Default::default(),
            head_paired: Default::default(),
            head_run: Default::default(),
            head_lead: Default::default(),
            new_count: Default::default(),
            new_lanes: Default::default(),
            pop_w: Default::default(),
            pop_z: Default::default(),
            next_zeros_left: Default::default(),
            lanes_low: Default::default(),
            lanes_high: Default::default(),
            lanes_all: Default::default(),
            have_w: Default::default(),
            have_z: Default::default(),
            new_lane: Default::default(),
            plain_go: Default::default(),
            pair_take: Default::default(),
            pair_count: Default::default(),
            pair_at: Default::default(),
            pair_room: Default::default(),
            pair_fit: Default::default(),
            pair_left: Default::default(),
            lead_fit: Default::default(),
            k3: constants(),
            k5: constants(),
            k6: constants(),
            k16: constants(),
            zero9: Constant::new(0.into()),
        }
    }
}

impl Logic for WeightEmitter {
    #[hdl_gen]
    fn update(&mut self) {
        for p in 0..4 {
            self.have_w[p].next = false;
            self.have_z[p].next = false;
        }
        self.pop_w.next = self.k5[0].val();
        self.pop_z.next = self.k5[0].val();
        self.new_count.next = self.k3[0].val();
        for l in 0..4 {
            self.new_lane[l].next = self.zero9.val();
        }
        // Nothing queued and no zeros owed: the beat is empty (count 0, lanes 0, nothing
        // popped, no zeros owed), which the rule below gives too. Computed only when there
        // is something to emit, so that the Verilated model skips it while the decoder idles
        // (docs/ethos.md, "Verilated speed", ninth step); the locals' defaults are never used.
        // The head entries (`WeightQueues`) are read only when something is queued and no
        // zeros are owed: the cases below that use them.
        self.next_zeros_left.next = self.zeros_left.val();
        self.lead_fit.next = self.k16[0].val();
        for p in 0..5 {
            self.plain_go[p].next = false;
            self.pair_count[p].next = self.k3[0].val();
            self.pair_at[p].next = self.k3[0].val();
            self.pair_left[p].next = self.k16[0].val();
        }
        for p in 0..4 {
            self.pair_room[p].next = self.k16[0].val();
            self.pair_fit[p].next = self.k16[0].val();
            self.pair_take[p].next = false;
        }
        if self.zeros_left.val() != self.k16[0].val() {
            // Zeros owed go first, up to 4 a beat, and need nothing from the queues: on a long
            // zero run the emitter computes only this (the Zeros stream, issue 19).
            self.new_count.next = self.k3[4].val();
            self.next_zeros_left.next = self.zeros_left.val() - self.k16[4].val();
            if self.zeros_left.val() < self.k16[4].val() {
                self.new_count.next = self.zeros_left.val().get_bits::<3>(0);
                self.next_zeros_left.next = self.k16[0].val();
            }
        } else if self.qw_count.val() != self.k6[0].val() || self.qz_count.val() != self.k6[0].val() {
            for p in 0..4 {
                self.have_w[p].next = self.qw_count.val() > self.k6[p].val();
                self.have_z[p].next = self.qz_count.val() > self.k6[p].val();
            }
            // plain weights: up to 4 untagged entries from the head
            self.plain_go[0].next = true;
            for p in 0..4 {
                self.plain_go[p + 1].next = self.plain_go[p].val() && self.have_w[p].val() && !self.head_paired[p].val();
            }
            // pairs (weight, zero run): pair p starts at lane pair_at[p]
            self.pair_count[0].next = self.k3[0].val();
            self.pair_at[0].next = self.k3[0].val();
            self.pair_left[0].next = self.k16[0].val();
            for p in 0..4 {
                self.pair_room[p].next = self.k16[3].val();
                if self.pair_at[p].val() == self.k3[1].val() {
                    self.pair_room[p].next = self.k16[2].val();
                }
                if self.pair_at[p].val() == self.k3[2].val() {
                    self.pair_room[p].next = self.k16[1].val();
                }
                if self.pair_at[p].val() == self.k3[3].val() {
                    self.pair_room[p].next = self.k16[0].val();
                }
                self.pair_fit[p].next = self.head_run[p].val();
                if self.head_run[p].val() > self.pair_room[p].val() {
                    self.pair_fit[p].next = self.pair_room[p].val();
                }
                // pair p only if every pair before was taken with all its zeros
                self.pair_take[p].next = self.pair_count[p].val() == self.k3[p].val()
                    && self.pair_left[p].val() == self.k16[0].val()
                    && self.pair_at[p].val() < self.k3[4].val()
                    && self.have_w[p].val()
                    && self.have_z[p].val()
                    && self.head_paired[p].val()
                    && !self.head_lead[p].val();
                self.pair_at[p + 1].next = self.pair_at[p].val();
                self.pair_left[p + 1].next = self.pair_left[p].val();
                self.pair_count[p + 1].next = self.pair_count[p].val();
                if self.pair_take[p].val() {
                    self.pair_at[p + 1].next = self.pair_at[p].val() + self.k3[1].val() + self.pair_fit[p].val().get_bits::<3>(0);
                    self.pair_left[p + 1].next = self.head_run[p].val() - self.pair_fit[p].val();
                    self.pair_count[p + 1].next = self.pair_count[p].val() + self.k3[1].val();
                }
            }
            self.lead_fit.next = self.head_run[0].val();
            if self.head_run[0].val() > self.k16[4].val() {
                self.lead_fit.next = self.k16[4].val();
            }
            if self.plain_go[1].val() {
                for p in 0..4 {
                    if self.plain_go[p + 1].val() {
                        self.new_count.next = self.k3[p + 1].val();
                        self.pop_w.next = self.k5[p + 1].val();
                        self.new_lane[p].next = self.head_value[p].val();
                    }
                }
            } else if self.have_z[0].val() && self.head_lead[0].val() {
                self.pop_z.next = self.k5[1].val();
                self.new_count.next = self.lead_fit.val().get_bits::<3>(0);
                self.next_zeros_left.next = self.head_run[0].val() - self.lead_fit.val();
            } else {
                self.new_count.next = self.pair_at[4].val();
                self.next_zeros_left.next = self.pair_left[4].val();
                for p in 0..4 {
                    if self.pair_count[4].val() == self.k3[p + 1].val() {
                        self.pop_w.next = self.k5[p + 1].val();
                        self.pop_z.next = self.k5[p + 1].val();
                    }
                    for l in 0..4 {
                        if self.pair_take[p].val() && self.pair_at[p].val() == self.k3[l].val() {
                            self.new_lane[l].next = self.head_value[p].val();
                        }
                    }
                }
            }
        }
        self.lanes_low.low.next = self.new_lane[0].val();
        self.lanes_low.high.next = self.new_lane[1].val();
        self.lanes_high.low.next = self.new_lane[2].val();
        self.lanes_high.high.next = self.new_lane[3].val();
        self.lanes_all.low.next = self.lanes_low.joined.val();
        self.lanes_all.high.next = self.lanes_high.joined.val();
        self.new_lanes.next = self.lanes_all.joined.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightEmitter::default, "weight_emitter");
}
