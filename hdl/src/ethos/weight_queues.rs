//! The weight decoder's two 32-entry queues (TRM §4.7; digest `shared/spec/ethos-u65.md`
//! §1.6): finished weight values, each tagged `paired` when a zero run follows it, and zero
//! runs, each tagged `lead` when it precedes the slice's first weight. The parser pushes up to
//! 4 entries a cycle at the tail, the emitter reads the 4 at the head. Head and count
//! registers are the decoder's (`WeightDecoder`), which moves them on its handshakes; this
//! block holds only the storage (`QueueMemory`, queue_memory.rs: registers written only in a
//! cycle that pushes, read only while the emitter reads them, for the Verilated model's speed,
//! issue 19). Entries at and beyond the count are never read (the emitter looks at `have_*`
//! first), so the storage needs no reset. No model of its own: the decoder's lock-step tests cover it.
use super::queue_memory::QueueMemory;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WeightQueues {
    pub clock: Signal<In, Clock>,
    /// Where the 4 entries are read (head) and pushed (tail = head + count).
    pub qw_head: Signal<In, Bits<5>>,
    pub qw_tail: Signal<In, Bits<5>>,
    pub qz_head: Signal<In, Bits<5>>,
    pub qz_tail: Signal<In, Bits<5>>,
    /// Push lanes `0..count` (`count` <= 4) of `value` (with `paired` each) onto the weight
    /// queue, or of `run` (lane 0 with `lead`) onto the zero-run queue.
    pub push_w: Signal<In, Bit>,
    pub push_z: Signal<In, Bit>,
    pub count: Signal<In, Bits<3>>,
    pub value: [Signal<In, Bits<9>>; 4],
    pub paired: Signal<In, Bit>,
    pub run: [Signal<In, Bits<16>>; 4],
    pub lead: Signal<In, Bit>,
    /// The emitter reads the heads (no zeros owed, something queued): the head entries are 0
    /// otherwise.
    pub read: Signal<In, Bit>,
    /// The 4 entries from the head (meaningful below the count).
    pub head_value: [Signal<Out, Bits<9>>; 4],
    pub head_paired: [Signal<Out, Bit>; 4],
    pub head_run: [Signal<Out, Bits<16>>; 4],
    pub head_lead: [Signal<Out, Bit>; 4],

    /// {paired, value}
    weights: QueueMemory<10>,
    /// {lead, run}
    runs: QueueMemory<17>,
    value_wide: [ZeroExtend<9, 10>; 4],
    run_wide: [ZeroExtend<16, 17>; 4],
    paired_bit: Constant<Bits<10>>,
    lead_bit: Constant<Bits<17>>,
    zero10: Constant<Bits<10>>,
    zero17: Constant<Bits<17>>,
}

impl Default for WeightQueues {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            qw_head: Default::default(),
            qw_tail: Default::default(),
            qz_head: Default::default(),
            qz_tail: Default::default(),
            push_w: Default::default(),
            push_z: Default::default(),
            count: Default::default(),
            value: Default::default(),
            paired: Default::default(),
            run: Default::default(),
            lead: Default::default(),
            read: Default::default(),
            head_value: Default::default(),
            head_paired: Default::default(),
            head_run: Default::default(),
            head_lead: Default::default(),
            weights: Default::default(),
            runs: Default::default(),
            value_wide: Default::default(),
            run_wide: Default::default(),
            paired_bit: Constant::new((1u64 << 9).into()),
            lead_bit: Constant::new((1u64 << 16).into()),
            zero10: Constant::new(0.into()),
            zero17: Constant::new(0.into()),
        }
    }
}

impl Logic for WeightQueues {
    #[hdl_gen]
    fn update(&mut self) {
        self.weights.clock.next = self.clock.val();
        self.runs.clock.next = self.clock.val();
        // Pushes at the tail: the memories take them only in a cycle that pushes onto their
        // queue; the data is computed only then, 0 otherwise, so that the Verilated model
        // skips it while the decoder idles (docs/ethos.md, "Verilated speed", idle NPU step).
        self.weights.push.next = self.push_w.val();
        self.weights.count.next = self.count.val();
        self.weights.tail.next = self.qw_tail.val();
        self.runs.push.next = self.push_z.val();
        self.runs.count.next = self.count.val();
        self.runs.tail.next = self.qz_tail.val();
        for j in 0..4 {
            self.value_wide[j].narrow.next = self.value[j].val();
            self.run_wide[j].narrow.next = self.run[j].val();
            self.weights.data[j].next = self.zero10.val();
            self.runs.data[j].next = self.zero17.val();
        }
        if self.push_w.val() {
            for j in 0..4 {
                self.weights.data[j].next = self.value_wide[j].wide.val();
                if self.paired.val() {
                    self.weights.data[j].next = self.value_wide[j].wide.val() | self.paired_bit.val();
                }
            }
        }
        if self.push_z.val() {
            for j in 0..4 {
                self.runs.data[j].next = self.run_wide[j].wide.val();
            }
            if self.lead.val() {
                self.runs.data[0].next = self.run_wide[0].wide.val() | self.lead_bit.val();
            }
        }
        // reads at the head, while the emitter reads them
        self.weights.read.next = self.read.val();
        self.runs.read.next = self.read.val();
        self.weights.head.next = self.qw_head.val();
        self.runs.head.next = self.qz_head.val();
        for j in 0..4 {
            self.head_value[j].next = self.weights.read_data[j].val().get_bits::<9>(0);
            self.head_paired[j].next = self.weights.read_data[j].val().get_bit(9);
            self.head_run[j].next = self.runs.read_data[j].val().get_bits::<16>(0);
            self.head_lead[j].next = self.runs.read_data[j].val().get_bit(16);
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightQueues::default, "weight_queues");
}
