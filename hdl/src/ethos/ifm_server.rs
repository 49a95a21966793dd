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
//! first); the answer comes back as `response` with `response_data`.
use super::feature_map::FeatureMap;
use crate::primitives::constant as k;
use crate::primitives::{Concat, Reg, RegFile, ZeroExtend};
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
    /// word of a group across two, shifted; the bank shown to the datapath.
    ifs_p: Reg<Bits<2>>,
    ifs_word: Reg<Bit>,
    ifs_ready: Reg<Bit>,
    first: Reg<Bits<64>>,
    bank: Reg<Bits<1>>,
    serving: Signal<Local, Bit>,
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
    sixty_four7: Constant<Bits<7>>,
    one16: Constant<Bits<16>>,
    eight17: Constant<Bits<17>>,
    eight40: Constant<Bits<40>>,
    align40: Constant<Bits<40>>,
    zero40: Constant<Bits<40>>,
    zero64: Constant<Bits<64>>,
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
            serving: Default::default(),
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
            sixty_four7: k(64),
            one16: k(1),
            eight17: k(8),
            eight40: k(8),
            align40: k(((1u64 << 40) - 1) & !7),
            zero40: k(0),
            zero64: k(0),
        }
    }
}

impl Logic for IfmServer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ifs_p, ifs_word, ifs_ready, first, bank);
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

        // The position served: its element's address and how its group lies in the words.
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
        self.ifm_y.narrow.next = self.sel_y.val();
        self.ifm_x.narrow.next = self.sel_x.val();
        self.ifm_g.narrow.next = self.sel_g.val();
        self.ifm.y.next = self.ifm_y.wide.val();
        self.ifm.x.next = self.ifm_x.wide.val();
        self.ifm.c.next = self.ifm_g.wide.val() << self.three3.val();
        // The element's address only while a tap is served (0 otherwise), and the word written
        // and the address asked for only then too: the only cycles that read them (`request`,
        // a word in, an inserted zero's word). Branches, so that Verilator skips the map's
        // products and the 64-bit shifts in the other cycles (docs/ethos.md, "Verilated speed",
        // NPU step 3). The map's `enable` is `serving` from `active_copy`, and the width helpers'
        // statements stay outside the branch: a statement that drives a sub-block's input
        // shares no local with those that read its output (Verilator's UNOPTFLAT otherwise).
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
        self.words.write_data[0].next = self.zero64.val();
        self.address.next = self.zero40.val();
        if self.serving.val() {
            self.words.write_data[0].next = self.response_data.val() >> self.shift.val();
            if self.ifs_word.q.val() {
                self.words.write_data[0].next =
                    self.first.q.val() | (self.response_data.val() << (self.sixty_four7.val() - self.shift.val()));
            }
            if self.sel_zero.val() {
                self.words.write_data[0].next = self.zero_word.val();
            }
            self.address.next = self.ifm.address.val() & self.align40.val();
            if self.ifs_word.q.val() {
                self.address.next = (self.ifm.address.val() & self.align40.val()) + self.eight40.val();
            }
        }
        self.write_at.high.next = !self.bank.q.val();
        self.write_at.low.next = self.ifs_p.q.val();
        self.words.write_address[0].next = self.write_at.joined.val();
        self.words.write_enable[0].next = false;

        // A word in: the first of two, or the position's last.
        if self.response.val() & self.serving.val() {
            if !self.ifs_word.q.val() & self.two_words.val() {
                self.first.d.next = self.response_data.val() >> self.shift.val();
                self.ifs_word.d.next = true;
            } else {
                self.words.write_enable[0].next = true;
                self.ifs_word.d.next = false;
                if self.ifs_p.q.val() == self.three2.val() {
                    self.ifs_ready.d.next = true;
                } else {
                    self.ifs_p.d.next = self.ifs_p.q.val() + self.one2.val();
                }
            }
        }
        // The release swaps the banks; else a position that reads asks for its word, one
        // that does not is passed (an inserted zero's word written as it is).
        self.request.next = false;
        if self.tap_release.val() {
            self.bank.d.next = !self.bank.q.val();
            self.ifs_ready.d.next = false;
            self.ifs_p.d.next = self.zero2.val();
            self.ifs_word.d.next = false;
        } else if self.serving.val() & self.free.val() {
            if self.sel_read.val() {
                self.request.next = true;
            } else {
                // An inserted zero is gathered now, without a read.
                if self.sel_zero.val() {
                    self.words.write_enable[0].next = true;
                }
                if self.ifs_p.q.val() == self.three2.val() {
                    self.ifs_ready.d.next = true;
                } else {
                    self.ifs_p.d.next = self.ifs_p.q.val() + self.one2.val();
                }
            }
        }
        if self.clear.val() {
            self.ifs_p.d.next = self.zero2.val();
            self.ifs_word.d.next = false;
            self.ifs_ready.d.next = false;
        }
        self.unused_bits.next = self.rem17.wide.val().get_bit(16) | self.off7.wide.val().get_bit(6);
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(IfmServer::default, "ifm_server");
}
