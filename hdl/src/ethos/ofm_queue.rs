//! The convolution unit's OFM queue and write channel (`conv_unit.rs`; docs/ethos.md,
//! "Convolution unit", OFM writes): [`QUEUE`](super::conv_unit::QUEUE) (8: the register
//! file's 3-bit address) entries, each what the datapath's OFM port gives in one cycle: up to 16
//! values, the same n = 1..8 consecutive channels at one OFM position and, when the second
//! column is inside the OFM, at the position to its right, {y, x, channel, second column,
//! n - 1, 16 bytes}, taken at once. A column's n values go out as strobed 64-bit words at the
//! OFM feature map's addresses (TRM §4.6 feature-map registers; digest
//! `shared/spec/ethos-u65.md` §2.2), one write in flight, lane after lane (`at`: lanes 0..n-1,
//! then 8..8+n-1 for the second column, lane i at (y, x + i / 8, channel + i % 8)): a write
//! starts at lane `at`'s address and, where the channels are contiguous bytes (`word`), takes
//! every following lane of the column up to the word's end (so a column is one word, or two
//! where its bytes cross an 8-byte boundary), else that lane's byte alone; the entry leaves
//! the queue with its last lane's write. Contiguous (decision, docs/ethos.md "OFM writes"):
//! NHWC with STRIDE_C = 1, or NHCWB16 when the n channels stay in one 16-channel brick
//! (always: the datapath's channel is a multiple of 8); any other STRIDE_C is written byte by
//! byte, as before. The datapath's OFM port has no ready: the unit holds the datapath while the queue
//! could not take what the output lanes' pipeline still delivers (`conv_ports.rs`, from
//! [`OfmQueue::count`], in entries). The model is inside `npu_model::ethos::conv_unit`.
//!
//! Its outputs to the memory port and to the hold are registers (the write channel's, the
//! entry count); a write error is reported for the cycle its response arrives
//! (`write_error`), the unit keeps the error code. `clear` (the unit's CHECK) empties the
//! queue.
use super::feature_map::FeatureMapLayout;
use super::ofm_write_channel::OfmWriteChannel;
use crate::primitives::constant as k;
use crate::primitives::{Concat, Reg, RegFile, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct OfmQueue {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Empties the queue (the unit's CHECK).
    pub clear: Signal<In, Bit>,
    /// No error so far: writes may start.
    pub ok: Signal<In, Bit>,
    /// The datapath's OFM values to queue: the lanes valid (lanes 0..n-1 and, with the
    /// second column, 8..8+n-1: its `ofm_valid` while the unit runs, else 0; lane 0 valid
    /// pushes an entry), lane 0's element and the 16 bytes (lane i at bits 8i+7:8i).
    /// Bits 0..7, and bit 8 for lanes 8..15 (they repeat lanes 0..7's channels).
    pub lanes: Signal<In, Bits<9>>,
    pub ofm_y: Signal<In, Bits<12>>,
    pub ofm_x: Signal<In, Bits<12>>,
    pub ofm_channel: Signal<In, Bits<12>>,
    pub ofm_data: Signal<In, Bits<128>>,
    /// The OFM feature map's registers (LATCH, `kernel_registers.rs`).
    pub load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    /// Entries queued.
    pub count: Signal<Out, Bits<5>>,
    /// No write in flight.
    pub idle: Signal<Out, Bit>,
    /// The write in flight was answered with an error (this cycle).
    pub write_error: Signal<Out, Bit>,
    /// The OFM's registers: the address and whether the map's channels are contiguous
    /// (STRIDE_C = 1) or in bricks (NHCWB16), from the slots as loaded.
    ofm: FeatureMapLayout,
    /// Entries {y[167:156], x[155:144], c[143:132], second column [131], n - 1 [130:128],
    /// lane 15..0 bytes [127:0]}.
    queue: RegFile<168, 3, 1, 1>,
    entry_yx: Concat<12, 12, 24>,
    entry_yxc: Concat<24, 12, 36>,
    entry_lanes: Concat<1, 3, 4>,
    entry_n: Concat<36, 4, 40>,
    entry: Concat<40, 128, 168>,
    head_y: ZeroExtend<12, 16>,
    head_x: ZeroExtend<12, 16>,
    head_c: ZeroExtend<12, 16>,
    at16: ZeroExtend<3, 16>,
    at_column: ZeroExtend<1, 16>,
    at_bits: ZeroExtend<4, 7>,
    /// The head entry's channels are contiguous bytes: a write takes a run of lanes.
    word: Signal<Local, Bit>,
    /// Lanes left in the column after lane `at`, the room left in `at`'s word after its byte,
    /// and the write's lanes - 1.
    rem: Signal<Local, Bits<3>>,
    room: Signal<Local, Bits<3>>,
    km1: Signal<Local, Bits<3>>,
    /// The lane of the head entry written next.
    at: Reg<Bits<4>>,
    n_m1: Signal<Local, Bits<3>>,
    /// The head entry's n - 1.
    n_m1_head: Signal<Local, Bits<3>>,
    /// The head entry's bytes shifted to lane `at`; only its low 8 bytes are read (the name
    /// matches Verilator's pattern for signals read in part).
    head_shifted_unused_high: Signal<Local, Bits<128>>,
    leave: Signal<Local, Bit>,
    row_end: Signal<Local, Bit>,
    q_head: Reg<Bits<3>>,
    q_count: Reg<Bits<5>>,
    /// The write channel: 0 idle, 1 address, 2 response.
    channel: OfmWriteChannel,
    w_addr: Reg<Bits<40>>,
    w_data: Reg<Bits<64>>,
    w_strb: Reg<Bits<8>>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    lane: Signal<Local, Bits<3>>,
    tail: Signal<Local, Bits<3>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    zero_h: Constant<Bits<3>>,
    zero_at: Constant<Bits<4>>,
    lane_no: [Constant<Bits<3>>; 8],
    second_lane: Constant<Bits<4>>,
    one_at: Constant<Bits<4>>,
    shift3: Constant<Bits<3>>,
    one_h: Constant<Bits<3>>,
    zero_c: Constant<Bits<5>>,
    one_c: Constant<Bits<5>>,
    ones8: Constant<Bits<8>>,
    seven3: Constant<Bits<3>>,
    /// Byte offset j's shift (8j bits) and a write of j + 1 lanes' step, by table: no
    /// widening block in the loop through the feature map's address, which Verilator would
    /// take for a combinational cycle.
    byte_shift: [Constant<Bits<7>>; 8],
    lane_step: [Constant<Bits<4>>; 8],
    align40: Constant<Bits<40>>,
    zero16: Constant<Bits<16>>,
    zero128: Constant<Bits<128>>,
}

impl Default for OfmQueue {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            ok: Default::default(),
            ofm_y: Default::default(),
            ofm_x: Default::default(),
            ofm_channel: Default::default(),
            lanes: Default::default(),
            ofm_data: Default::default(),
            load: Default::default(),
            load_slot: Default::default(),
            load_value: Default::default(),
            mem_aw_ready: Default::default(),
            mem_b_valid: Default::default(),
            mem_b_error: Default::default(),
            mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(),
            mem_w_data: Default::default(),
            mem_w_strb: Default::default(),
            count: Default::default(),
            idle: Default::default(),
            write_error: Default::default(),
            ofm: Default::default(),
            queue: Default::default(),
            entry_yx: Default::default(),
            entry_yxc: Default::default(),
            entry_lanes: Default::default(),
            entry_n: Default::default(),
            entry: Default::default(),
            head_y: Default::default(),
            head_x: Default::default(),
            head_c: Default::default(),
            at16: Default::default(),
            at_column: Default::default(),
            at_bits: Default::default(),
            word: Default::default(),
            rem: Default::default(),
            room: Default::default(),
            km1: Default::default(),
            at: Default::default(),
            n_m1: Default::default(),
            n_m1_head: Default::default(),
            head_shifted_unused_high: Default::default(),
            leave: Default::default(),
            row_end: Default::default(),
            q_head: Default::default(),
            q_count: Default::default(),
            channel: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            pop: Default::default(),
            push: Default::default(),
            lane: Default::default(),
            tail: Default::default(),
            zero2: k(0),
            one2: k(1),
            zero_h: k(0),
            zero_at: k(0),
            lane_no: std::array::from_fn(|i| k(i as u64)),
            second_lane: k(8),
            one_at: k(1),
            shift3: k(3),
            one_h: k(1),
            zero_c: k(0),
            one_c: k(1),
            ones8: k(0xFF),
            seven3: k(7),
            byte_shift: std::array::from_fn(|j| k(8 * j as u64)),
            lane_step: std::array::from_fn(|j| k(j as u64 + 1)),
            align40: k(((1u64 << 40) - 1) & !7),
            zero16: k(0),
            zero128: k(0),
        }
    }
}

impl Logic for OfmQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, q_head, q_count, w_addr, w_data, w_strb, at);
        self.at.reset.next = self.reset.val();
        self.q_head.reset.next = self.reset.val();
        self.q_count.reset.next = self.reset.val();
        self.channel.clock.next = self.clock.val();
        self.channel.reset.next = self.reset.val();
        self.w_addr.reset.next = self.reset.val();
        self.w_data.reset.next = self.reset.val();
        self.w_strb.reset.next = self.reset.val();
        self.ofm.clock.next = self.clock.val();
        self.queue.clock.next = self.clock.val();
        self.ofm.load.next = self.load.val();
        self.ofm.load_slot.next = self.load_slot.val();
        self.ofm.load_value.next = self.load_value.val();

        // The head entry's value in lane `at`: its byte address (column x + at / 8, channel
        // c + at % 8), and the write's lanes: from `at` to the column's last or the word's.
        // Computed only while the queue holds an entry (a branch on a register, so that
        // Verilator skips it in the cycles of an empty queue, every cycle of a network without
        // convolution; docs/ethos.md, "Verilated speed", NPU step 2): nothing reads them
        // otherwise (`pop` needs an entry), and they are 0 then.
        self.queue.read_address[0].next = self.q_head.q.val();
        self.head_y.narrow.next = self.queue.read_data[0].val().get_bits::<12>(156);
        self.head_x.narrow.next = self.queue.read_data[0].val().get_bits::<12>(144);
        self.head_c.narrow.next = self.queue.read_data[0].val().get_bits::<12>(132);
        self.at16.narrow.next = self.at.q.val().get_bits::<3>(0);
        self.at_column.narrow.next = self.at.q.val().get_bits::<1>(3);
        self.at_bits.narrow.next = self.at.q.val();
        self.ofm.enable.next = false;
        self.ofm.y.next = self.zero16.val();
        self.ofm.x.next = self.zero16.val();
        self.ofm.c.next = self.zero16.val();
        self.lane.next = self.zero_h.val();
        self.head_shifted_unused_high.next = self.zero128.val();
        self.n_m1_head.next = self.zero_h.val();
        self.word.next = false;
        self.rem.next = self.zero_h.val();
        self.room.next = self.zero_h.val();
        self.km1.next = self.zero_h.val();
        if self.q_count.q.val() != self.zero_c.val() {
            self.ofm.enable.next = true;
            self.ofm.y.next = self.head_y.wide.val();
            self.ofm.x.next = self.head_x.wide.val() + self.at_column.wide.val();
            self.ofm.c.next = self.head_c.wide.val() + self.at16.wide.val();
            self.lane.next = self.ofm.address.val().get_bits::<3>(0);
            self.head_shifted_unused_high.next = self.queue.read_data[0].val().get_bits::<128>(0) >> (self.at_bits.wide.val() << self.shift3.val());
            self.n_m1_head.next = self.queue.read_data[0].val().get_bits::<3>(128);
            // In one brick: channel c mod 16 + n - 1 <= 15 (c mod 16 below 8, or c mod 8 + n - 1 <= 7).
            self.word.next = (self.ofm.contiguous.val() & !self.ofm.brick.val())
                | (self.ofm.brick.val() & (!self.queue.read_data[0].val().get_bit(135) | (self.n_m1_head.val() <= (self.seven3.val() - self.queue.read_data[0].val().get_bits::<3>(132)))));
            self.rem.next = self.n_m1_head.val() - self.at.q.val().get_bits::<3>(0);
            self.room.next = self.seven3.val() - self.lane.val();
            if self.word.val() {
                self.km1.next = self.rem.val();
                if self.room.val() < self.rem.val() {
                    self.km1.next = self.room.val();
                }
            }
        }

        // The write channel: its handshake in `OfmWriteChannel` (the only part that reads the
        // channel's inputs, so that Verilator runs the rest once a cycle after the edge;
        // docs/ethos.md, "Verilated speed", NPU step 3).
        self.channel.aw_ready.next = self.mem_aw_ready.val();
        self.channel.b_valid.next = self.mem_b_valid.val();
        self.channel.b_error.next = self.mem_b_error.val();
        self.write_error.next = self.channel.write_error.val();
        self.mem_aw_valid.next = self.channel.state.val() == self.one2.val();
        self.mem_aw_addr.next = self.w_addr.q.val();
        self.mem_w_data.next = self.w_data.q.val();
        self.mem_w_strb.next = self.w_strb.q.val();
        self.count.next = self.q_count.q.val();
        self.idle.next = self.channel.state.val() == self.zero2.val();
        self.pop.next = (self.channel.state.val() == self.zero2.val()) & self.ok.val() & (self.q_count.q.val() != self.zero_c.val());
        self.channel.start.next = self.pop.val();
        // The write takes the column's last channel: the entry leaves, or its second column
        // follows.
        self.row_end.next = self.km1.val() == self.rem.val();
        self.leave.next = self.pop.val() & self.row_end.val() & (self.at.q.val().get_bit(3) | !self.queue.read_data[0].val().get_bit(131));
        if self.pop.val() {
            self.w_addr.d.next = self.ofm.address.val() & self.align40.val();
            self.w_strb.d.next = (self.ones8.val() >> (self.seven3.val() - self.km1.val())) << self.lane.val();
            self.w_data.d.next = self.head_shifted_unused_high.val().get_bits::<64>(0);
            self.at.d.next = self.at.q.val() + self.one_at.val();
            for j in 0..8 {
                if self.lane.val() == self.lane_no[j].val() {
                    self.w_data.d.next = self.head_shifted_unused_high.val().get_bits::<64>(0) << self.byte_shift[j].val();
                }
                if self.km1.val() == self.lane_no[j].val() {
                    self.at.d.next = self.at.q.val() + self.lane_step[j].val();
                }
            }
            if self.row_end.val() {
                self.at.d.next = self.second_lane.val();
            }
        }
        if self.leave.val() {
            self.q_head.d.next = self.q_head.q.val() + self.one_h.val();
            self.at.d.next = self.zero_at.val();
        }

        // The datapath's values join the tail.
        self.entry_yx.high.next = self.ofm_y.val();
        self.entry_yx.low.next = self.ofm_x.val();
        self.entry_yxc.high.next = self.entry_yx.joined.val();
        self.entry_yxc.low.next = self.ofm_channel.val();
        self.push.next = self.lanes.val().get_bit(0);
        self.n_m1.next = self.lane_no[0].val();
        for j in 1..8 {
            if self.lanes.val().get_bit(j) {
                self.n_m1.next = self.lane_no[j].val();
            }
        }
        self.entry_lanes.high.next = self.lanes.val().get_bits::<1>(8);
        self.entry_lanes.low.next = self.n_m1.val();
        self.entry_n.high.next = self.entry_yxc.joined.val();
        self.entry_n.low.next = self.entry_lanes.joined.val();
        self.entry.high.next = self.entry_n.joined.val();
        self.entry.low.next = self.ofm_data.val();
        self.tail.next = self.q_head.q.val() + self.q_count.q.val().get_bits::<3>(0);
        self.queue.write_enable[0].next = self.push.val();
        self.queue.write_address[0].next = self.tail.val();
        self.queue.write_data[0].next = self.entry.joined.val();
        if self.push.val() & !self.leave.val() {
            self.q_count.d.next = self.q_count.q.val() + self.one_c.val();
        }
        if !self.push.val() & self.leave.val() {
            self.q_count.d.next = self.q_count.q.val() - self.one_c.val();
        }
        if self.clear.val() {
            self.at.d.next = self.zero_at.val();
            self.q_head.d.next = self.zero_h.val();
            self.q_count.d.next = self.zero_c.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OfmQueue::default, "ofm_queue");
}
