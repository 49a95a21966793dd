//! The convolution unit's IFM server (`conv_unit.rs`; docs/ethos.md, "Convolution unit", IFM
//! server; TRM §4.6 feature-map registers, digest `shared/spec/ethos-u65.md` §2.2): while the
//! datapath shows a tap that reads at least one position in MAC (`active`; a MAC cycle that
//! reads nothing is not served), the unit holds its traversal (`hold_mac`, `conv_ports.rs`); the server takes
//! the four positions in turn and, for each that reads, has the unit read the one or two
//! aligned words holding the group's `min(8, depth - 8g)` bytes (contiguous in NHWC with
//! STRIDE_C 1, and in NHCWB16 as a group never crosses a 16-channel brick) at the IFM feature
//! map's address (a position of an IFM upscale mapped to its IFM element by `ifm_upscale.rs`;
//! an inserted zero, `ifm_zero{p}`, is gathered as `zero_word` in the cycle it is served, with
//! no read, as a position that does not read is passed in one cycle), gathers them, and is
//! `ready` when all four are in; the unit then releases
//! the tap for one cycle (`tap_release`; `release` is a SystemVerilog keyword). Each port is
//! served at its own row, column and group, so a packed depthwise cycle (`depthwise_walk.rs`:
//! four elements of one or two window rows, each port its own column) is gathered and
//! released as a tap's 2x2 block is: the server needs no mode of its own for it, and the
//! NPU sets the datapath's `pack_depthwise` for every DEPTHWISE (`conv_unit.rs`). The gathered
//! words are double-buffered in two banks of a register file: the bank shown on
//! `ifm_data0..3` changes only at a release (the datapath takes the words in the first cycle
//! after the release it is not held), while the other fills. So those outputs are memory
//! reads at a register's address: no datapath output reaches them in the same cycle (a loop
//! for Verilator). The model is inside `npu_model::ethos::conv_unit`.
//!
//! The unit owns the read channel: the server asks (`request`, with `address`) when the
//! channel is free for it (`free`: idle and not taken by the stream reader, which goes
//! first); the answer comes back as `response` with `response_data`. What reads the answer
//! (the top's inputs) is a block of its own, `ifm_gather.rs`, which enables this block's
//! registers and writes the word; everything here reads registers only, so that Verilator
//! runs it once a cycle, after the edge, rather than also twice in its input region.
use super::feature_map::FeatureMap;
use super::ifm_gather::IfmGather;
use crate::primitives::constant as k;
use crate::primitives::{Concat, RegEn, RegFile, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct IfmServer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The unit's CHECK: the server starts at position 0 with nothing gathered.
    pub clear: Signal<In, Bit>,
    /// The unit runs without error and the datapath is in MAC with a tap that reads.
    pub active: Signal<In, Bit>,
    /// `active` again, computed by the unit from registers alone in a statement of its own,
    /// for the IFM map's `enable`: Verilator runs what `active` feeds in its input region (the
    /// unit's statement that computes it is grouped with those that read the read channel),
    /// and the map's address with it, three times a cycle.
    pub active_copy: Signal<In, Bit>,
    /// The read channel is idle and not taken by the stream reader this cycle.
    pub free: Signal<In, Bit>,
    /// The gathered tap goes to the datapath this cycle.
    pub tap_release: Signal<In, Bit>,
    /// An IFM read was answered without error, with this data.
    pub response: Signal<In, Bit>,
    pub response_data: Signal<In, Bits<64>>,
    pub ifm_depth_m1: Signal<In, Bits<16>>,
    /// The IFM feature map's registers (LATCH, `kernel_registers.rs`).
    pub load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    /// The datapath's IFM read ports (`conv_datapath.rs`).
    pub ifm_read0: Signal<In, Bit>,
    pub ifm_y0: Signal<In, Bits<12>>,
    pub ifm_x0: Signal<In, Bits<12>>,
    pub ifm_group0: Signal<In, Bits<9>>,
    pub ifm_read1: Signal<In, Bit>,
    pub ifm_y1: Signal<In, Bits<12>>,
    pub ifm_x1: Signal<In, Bits<12>>,
    pub ifm_group1: Signal<In, Bits<9>>,
    pub ifm_read2: Signal<In, Bit>,
    pub ifm_y2: Signal<In, Bits<12>>,
    pub ifm_x2: Signal<In, Bits<12>>,
    pub ifm_group2: Signal<In, Bits<9>>,
    pub ifm_read3: Signal<In, Bit>,
    pub ifm_y3: Signal<In, Bits<12>>,
    pub ifm_x3: Signal<In, Bits<12>>,
    pub ifm_group3: Signal<In, Bits<9>>,
    /// Positions that are inserted zeros (`ifm_upscale.rs`: they do not read): the server
    /// gathers `zero_word` for them without a read.
    pub ifm_zero0: Signal<In, Bit>,
    pub ifm_zero1: Signal<In, Bit>,
    pub ifm_zero2: Signal<In, Bit>,
    pub ifm_zero3: Signal<In, Bit>,
    pub zero_word: Signal<In, Bits<64>>,
    pub ifm_data0: Signal<Out, Bits<64>>,
    pub ifm_data1: Signal<Out, Bits<64>>,
    pub ifm_data2: Signal<Out, Bits<64>>,
    pub ifm_data3: Signal<Out, Bits<64>>,
    /// All four positions gathered.
    pub ready: Signal<Out, Bit>,
    /// Issue a read of `address` now.
    pub request: Signal<Out, Bit>,
    pub address: Signal<Out, Bits<40>>,
    ifm: FeatureMap,
    /// Gathered words: address {bank, position}.
    words: RegFile<64, 3, 1, 4>,
    ifm_y: ZeroExtend<12, 16>,
    ifm_x: ZeroExtend<12, 16>,
    ifm_g: ZeroExtend<9, 16>,
    rem17: ZeroExtend<16, 17>,
    off17: ZeroExtend<3, 17>,
    read_at0: Concat<1, 2, 3>,
    read_at1: Concat<1, 2, 3>,
    read_at2: Concat<1, 2, 3>,
    read_at3: Concat<1, 2, 3>,
    write_at: Concat<1, 2, 3>,
    off7: ZeroExtend<3, 7>,
    /// The position served, whether its second word is next, all four gathered; the first
    /// word of a group across two, shifted; the bank shown to the datapath. Enabled
    /// registers: their next values from registers here, their enables from the response in
    /// `gather` (`ifm_gather.rs`), so that only those run in Verilator's input region.
    ifs_p: RegEn<Bits<2>>,
    ifs_word: RegEn<Bit>,
    ifs_ready: RegEn<Bit>,
    first: RegEn<Bits<64>>,
    bank: RegEn<Bits<1>>,
    gather: IfmGather,
    serving: Signal<Local, Bit>,
    restart: Signal<Local, Bit>,
    sel_read: Signal<Local, Bit>,
    sel_zero: Signal<Local, Bit>,
    sel_y: Signal<Local, Bits<12>>,
    sel_x: Signal<Local, Bits<12>>,
    sel_g: Signal<Local, Bits<9>>,
    off: Signal<Local, Bits<3>>,
    bytes17: Signal<Local, Bits<17>>,
    two_words: Signal<Local, Bit>,
    shift: Signal<Local, Bits<7>>,
    unused_bits: Signal<Local, Bit>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    three3: Constant<Bits<3>>,
    three7: Constant<Bits<7>>,
    one16: Constant<Bits<16>>,
    eight17: Constant<Bits<17>>,
    eight40: Constant<Bits<40>>,
    align40: Constant<Bits<40>>,
    zero40: Constant<Bits<40>>,
    zero12: Constant<Bits<12>>,
    zero9: Constant<Bits<9>>,
}

impl Default for IfmServer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            active: Default::default(),
            active_copy: Default::default(),
            free: Default::default(),
            tap_release: Default::default(),
            response: Default::default(),
            response_data: Default::default(),
            ifm_depth_m1: Default::default(),
            load: Default::default(),
            load_slot: Default::default(),
            load_value: Default::default(),
            ifm_read0: Default::default(),
            ifm_y0: Default::default(),
            ifm_x0: Default::default(),
            ifm_group0: Default::default(),
            ifm_read1: Default::default(),
            ifm_y1: Default::default(),
            ifm_x1: Default::default(),
            ifm_group1: Default::default(),
            ifm_read2: Default::default(),
            ifm_y2: Default::default(),
            ifm_x2: Default::default(),
            ifm_group2: Default::default(),
            ifm_read3: Default::default(),
            ifm_y3: Default::default(),
            ifm_x3: Default::default(),
            ifm_group3: Default::default(),
            ifm_zero0: Default::default(),
            ifm_zero1: Default::default(),
            ifm_zero2: Default::default(),
            ifm_zero3: Default::default(),
            zero_word: Default::default(),
            ifm_data0: Default::default(),
            ifm_data1: Default::default(),
            ifm_data2: Default::default(),
            ifm_data3: Default::default(),
            ready: Default::default(),
            request: Default::default(),
            address: Default::default(),
            ifm: Default::default(),
            words: Default::default(),
            ifm_y: Default::default(),
            ifm_x: Default::default(),
            ifm_g: Default::default(),
            rem17: Default::default(),
            off17: Default::default(),
            read_at0: Default::default(),
            read_at1: Default::default(),
            read_at2: Default::default(),
            read_at3: Default::default(),
            write_at: Default::default(),
            off7: Default::default(),
            ifs_p: Default::default(),
            ifs_word: Default::default(),
            ifs_ready: Default::default(),
            first: Default::default(),
            bank: Default::default(),
            gather: Default::default(),
            serving: Default::default(),
            restart: Default::default(),
            sel_read: Default::default(),
            sel_zero: Default::default(),
            sel_y: Default::default(),
            sel_x: Default::default(),
            sel_g: Default::default(),
            off: Default::default(),
            bytes17: Default::default(),
            two_words: Default::default(),
            shift: Default::default(),
            unused_bits: Default::default(),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
            three2: k(3),
            three3: k(3),
            three7: k(3),
            one16: k(1),
            eight17: k(8),
            eight40: k(8),
            align40: k(((1u64 << 40) - 1) & !7),
            zero40: k(0),
            zero12: k(0),
            zero9: k(0),
        }
    }
}

impl Logic for IfmServer {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ifs_p, ifs_word, ifs_ready, first, bank);
        self.ifs_p.reset.next = self.reset.val();
        self.ifs_word.reset.next = self.reset.val();
        self.ifs_ready.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.bank.reset.next = self.reset.val();
        self.ifm.clock.next = self.clock.val();
        self.words.clock.next = self.clock.val();
        self.ifm.load.next = self.load.val();
        self.ifm.load_slot.next = self.load_slot.val();
        self.ifm.load_value.next = self.load_value.val();

        // The words shown to the datapath: bank `bank`.
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
        self.ifm_data0.next = self.words.read_data[0].val();
        self.ifm_data1.next = self.words.read_data[1].val();
        self.ifm_data2.next = self.words.read_data[2].val();
        self.ifm_data3.next = self.words.read_data[3].val();
        self.ready.next = self.ifs_ready.q.val();

        // The position served: its element's address and how its group lies in the words;
        // selected only while a tap is served (`serving`, from the ports and registers
        // directly: no local shared with the statements that read the map's address), 0
        // otherwise, so that Verilator skips the selection when the unit is idle.
        self.sel_read.next = false;
        self.sel_zero.next = false;
        self.sel_y.next = self.zero12.val();
        self.sel_x.next = self.zero12.val();
        self.sel_g.next = self.zero9.val();
        if self.active_copy.val() & !self.ifs_ready.q.val() {
            self.sel_read.next = self.ifm_read0.val();
            self.sel_zero.next = self.ifm_zero0.val();
            self.sel_y.next = self.ifm_y0.val();
            self.sel_x.next = self.ifm_x0.val();
            self.sel_g.next = self.ifm_group0.val();
            if self.ifs_p.q.val() == self.one2.val() {
                self.sel_read.next = self.ifm_read1.val();
                self.sel_zero.next = self.ifm_zero1.val();
                self.sel_y.next = self.ifm_y1.val();
                self.sel_x.next = self.ifm_x1.val();
                self.sel_g.next = self.ifm_group1.val();
            }
            if self.ifs_p.q.val() == self.two2.val() {
                self.sel_read.next = self.ifm_read2.val();
                self.sel_zero.next = self.ifm_zero2.val();
                self.sel_y.next = self.ifm_y2.val();
                self.sel_x.next = self.ifm_x2.val();
                self.sel_g.next = self.ifm_group2.val();
            }
            if self.ifs_p.q.val() == self.three2.val() {
                self.sel_read.next = self.ifm_read3.val();
                self.sel_zero.next = self.ifm_zero3.val();
                self.sel_y.next = self.ifm_y3.val();
                self.sel_x.next = self.ifm_x3.val();
                self.sel_g.next = self.ifm_group3.val();
            }
        }
        self.ifm_y.narrow.next = self.sel_y.val();
        self.ifm_x.narrow.next = self.sel_x.val();
        self.ifm_g.narrow.next = self.sel_g.val();
        self.ifm.y.next = self.ifm_y.wide.val();
        self.ifm.x.next = self.ifm_x.wide.val();
        self.ifm.c.next = self.ifm_g.wide.val() << self.three3.val();
        // The element's address only while a tap is served (0 otherwise), and the address
        // asked for only then too: the only cycles that read them (`request`). Branches, so
        // that Verilator skips the map's products in the other cycles (docs/ethos.md,
        // "Verilated speed", NPU step 3). The map's `enable` is `serving` from `active_copy`,
        // and the width helpers' statements stay outside the branch: a statement that drives a
        // sub-block's input shares no local with those that read its output (Verilator's
        // UNOPTFLAT otherwise).
        self.ifm.enable.next = self.active_copy.val() & !self.ifs_ready.q.val();
        self.serving.next = self.active.val() & !self.ifs_ready.q.val();
        // The group's bytes cross into a second word when offset + min(8, depth - 8g) > 8.
        self.off.next = self.ifm.address.val().get_bits::<3>(0);
        self.rem17.narrow.next = self.ifm_depth_m1.val() + self.one16.val() - (self.ifm_g.wide.val() << self.three3.val());
        self.bytes17.next = self.rem17.wide.val();
        if self.rem17.wide.val() > self.eight17.val() {
            self.bytes17.next = self.eight17.val();
        }
        self.off17.narrow.next = self.off.val();
        self.two_words.next = (self.bytes17.val() + self.off17.wide.val()) > self.eight17.val();
        self.off7.narrow.next = self.off.val();
        self.shift.next = self.off7.wide.val() << self.three7.val();
        self.address.next = self.zero40.val();
        if self.serving.val() {
            self.address.next = self.ifm.address.val() & self.align40.val();
            if self.ifs_word.q.val() {
                self.address.next = (self.ifm.address.val() & self.align40.val()) + self.eight40.val();
            }
        }
        self.write_at.high.next = !self.bank.q.val();
        self.write_at.low.next = self.ifs_p.q.val();
        self.words.write_address[0].next = self.write_at.joined.val();

        // The release swaps the banks; else a position that reads asks for its word, one
        // that does not is passed (an inserted zero's word written as it is, `gather`).
        // A release or CHECK restarts the position, the word and `ready`; else a word in or a
        // position passed moves on: the next position, or `ready` after the fourth; the
        // second word of a group across two is next after its first (`ifm_gather.rs` enables
        // these registers: the response is the top's input).
        self.request.next = !self.tap_release.val() & self.serving.val() & self.free.val() & self.sel_read.val();
        self.bank.d.next = !self.bank.q.val();
        self.bank.enable.next = self.tap_release.val();
        self.restart.next = self.tap_release.val() | self.clear.val();
        self.ifs_p.d.next = self.ifs_p.q.val() + self.one2.val();
        if self.restart.val() {
            self.ifs_p.d.next = self.zero2.val();
        }
        self.ifs_ready.d.next = !self.restart.val();
        self.ifs_word.d.next = !self.restart.val() & !self.ifs_word.q.val() & self.two_words.val();
        self.gather.serving.next = self.serving.val();
        self.gather.two_words.next = self.two_words.val();
        self.gather.shift.next = self.shift.val();
        self.gather.word_q.next = self.ifs_word.q.val();
        self.gather.first_q.next = self.first.q.val();
        self.gather.p_last.next = self.ifs_p.q.val() == self.three2.val();
        self.gather.sel_zero.next = self.sel_zero.val();
        self.gather.zero_word.next = self.zero_word.val();
        self.gather.pass.next = !self.tap_release.val() & self.serving.val() & self.free.val() & !self.sel_read.val();
        self.gather.restart.next = self.restart.val();

        // The response's side (`ifm_gather.rs`), in Verilator's input region.
        self.gather.response.next = self.response.val();
        self.gather.response_data.next = self.response_data.val();
        self.words.write_enable[0].next = self.gather.write_enable.val();
        self.words.write_data[0].next = self.gather.write_data.val();
        self.first.enable.next = self.gather.first_enable.val();
        self.first.d.next = self.gather.first_d.val();
        self.ifs_p.enable.next = self.gather.p_enable.val();
        self.ifs_ready.enable.next = self.gather.ready_enable.val();
        self.ifs_word.enable.next = self.gather.word_enable.val();
        self.unused_bits.next = self.rem17.wide.val().get_bit(16) | self.off7.wide.val().get_bit(6);
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(IfmServer::default, "ifm_server");
}
