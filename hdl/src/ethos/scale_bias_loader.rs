//! The Ethos-U65 convolution datapath's SCALE_BIAS phase (`conv_datapath.rs`; digest §2.4):
//! the scale/bias stream's bytes gather in `held` (up to 9 left from the last word plus 4
//! new); every 10 make a record, {shift[5:0], scale[31:0], bias[39:0]} (its first 78 bits),
//! written to the OFM channel's entry of the parameter memory.
use super::conv_datapath::DIM_BITS;
use crate::primitives::constant as k;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

/// `restart` (CHECK) empties it; while `active`, a word (`valid`, `bytes_m1 + 1` bytes, low
/// bytes first) is taken (`take`). `bytes_new`: the bytes received, this word's included;
/// `too_long`: more than `limit`; `bad_record`: a record completes with its shift byte's
/// reserved bits 7:6 set, of OFM channel `channel`; `short`: after this word, fewer records
/// than `ofm_depth` channels.
#[derive(LogicBlock)]
pub struct ScaleBiasLoader {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub restart: Signal<In, Bit>,
    pub active: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub data: Signal<In, Bits<32>>,
    pub bytes_m1: Signal<In, Bits<2>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    pub limit: Signal<In, Bits<20>>,
    pub take: Signal<Out, Bit>,
    pub bytes_new: Signal<Out, Bits<20>>,
    pub too_long: Signal<Out, Bit>,
    pub bad_record: Signal<Out, Bit>,
    pub channel: Signal<Out, Bits<20>>,
    pub short: Signal<Out, Bit>,
    pub write_enable: Signal<Out, Bit>,
    pub write_address: Signal<Out, Bits<12>>,
    pub write_data: Signal<Out, Bits<78>>,

    held: Reg<Bits<104>>,
    held_count: Reg<Bits<4>>,
    bytes: Reg<Bits<20>>,
    channel_q: Reg<Bits<12>>,
    bytes4: ZeroExtend<2, 4>,
    keep6: ZeroExtend<2, 6>,
    word_wide: ZeroExtend<32, 104>,
    held7: ZeroExtend<4, 7>,
    added20: ZeroExtend<2, 20>,
    channel20: ZeroExtend<12, 20>,
    combined: Signal<Local, Bits<104>>,
    count_new: Signal<Local, Bits<4>>,
    record: Signal<Local, Bit>,
    channel_after: Signal<Local, Bits<12>>,
    zero4: Constant<Bits<4>>,
    zero12: Constant<Bits<12>>,
    zero20: Constant<Bits<20>>,
    zero104: Constant<Bits<104>>,
    zero78: Constant<Bits<78>>,
    zero2: Constant<Bits<2>>,
    one4: Constant<Bits<4>>,
    one12: Constant<Bits<12>>,
    one20: Constant<Bits<20>>,
    three2: Constant<Bits<2>>,
    ten4: Constant<Bits<4>>,
    ones32: Constant<Bits<32>>,
    shift3: Constant<Bits<4>>,
    shift80: Constant<Bits<7>>,
}

impl Default for ScaleBiasLoader {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            active: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            bytes_m1: Default::default(),
            ofm_depth: Default::default(),
            limit: Default::default(),
            take: Default::default(),
            bytes_new: Default::default(),
            too_long: Default::default(),
            bad_record: Default::default(),
            channel: Default::default(),
            short: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            held: Default::default(),
            held_count: Default::default(),
            bytes: Default::default(),
            channel_q: Default::default(),
            bytes4: Default::default(),
            keep6: Default::default(),
            word_wide: Default::default(),
            held7: Default::default(),
            added20: Default::default(),
            channel20: Default::default(),
            combined: Default::default(),
            count_new: Default::default(),
            record: Default::default(),
            channel_after: Default::default(),
            zero4: k(0),
            zero12: k(0),
            zero20: k(0),
            zero104: k(0),
            zero78: k(0),
            zero2: k(0),
            one4: k(1),
            one12: k(1),
            one20: k(1),
            three2: k(3),
            ten4: k(10),
            ones32: k(0xFFFF_FFFF),
            shift3: k(3),
            shift80: k(80),
        }
    }
}

impl Logic for ScaleBiasLoader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_count, bytes, channel_q);
        self.held.reset.next = self.reset.val();
        self.held_count.reset.next = self.reset.val();
        self.bytes.reset.next = self.reset.val();
        self.channel_q.reset.next = self.reset.val();

        self.take.next = self.valid.val() & self.active.val();
        self.bytes4.narrow.next = self.bytes_m1.val();
        self.keep6.narrow.next = self.three2.val() - self.bytes_m1.val();
        self.word_wide.narrow.next = self.data.val() & (self.ones32.val() >> (self.keep6.wide.val() << self.shift3.val()));
        self.held7.narrow.next = self.held_count.q.val();
        self.added20.narrow.next = self.bytes_m1.val();
        self.channel20.narrow.next = self.channel_q.q.val();
        self.write_address.next = self.channel_q.q.val();
        // The word's bytes joined to `held` and what follows from them only in a cycle that
        // takes a word: the block reads the stream's ports, so Verilator runs it in its input
        // region, twice a cycle, in every phase; the control block and the parameter memory
        // read these outputs only with `take` (`write_enable` is `take & record`), so outside
        // it they are 0 (docs/ethos.md, "Verilated speed", fourteenth step).
        self.combined.next = self.zero104.val();
        self.count_new.next = self.zero4.val();
        self.bytes_new.next = self.zero20.val();
        self.record.next = false;
        self.channel_after.next = self.zero12.val();
        self.too_long.next = false;
        self.bad_record.next = false;
        self.short.next = false;
        self.channel.next = self.zero20.val();
        self.write_enable.next = false;
        self.write_data.next = self.zero78.val();
        if self.take.val() {
            self.combined.next = self.held.q.val() | (self.word_wide.wide.val() << (self.held7.wide.val() << self.shift3.val()));
            self.count_new.next = self.held_count.q.val() + self.bytes4.wide.val() + self.one4.val();
            self.bytes_new.next = self.bytes.q.val() + self.added20.wide.val() + self.one20.val();
            self.record.next = (self.channel_q.q.val() != self.ofm_depth.val()) & (self.count_new.val() >= self.ten4.val());
            self.channel_after.next = self.channel_q.q.val();
            if self.record.val() {
                self.channel_after.next = self.channel_q.q.val() + self.one12.val();
            }
            self.too_long.next = self.bytes_new.val() > self.limit.val();
            self.bad_record.next = self.record.val() & (self.combined.val().get_bits::<2>(78) != self.zero2.val());
            self.short.next = self.channel_after.val() != self.ofm_depth.val();
            self.channel.next = self.channel20.wide.val();
            self.write_enable.next = self.record.val();
            self.write_data.next = self.combined.val().get_bits::<78>(0);
        }

        if self.restart.val() {
            self.held.d.next = self.zero104.val();
            self.held_count.d.next = self.zero4.val();
            self.bytes.d.next = self.zero20.val();
            self.channel_q.d.next = self.zero12.val();
        }
        if self.take.val() {
            self.bytes.d.next = self.bytes_new.val();
            if self.record.val() {
                self.held.d.next = self.combined.val() >> self.shift80.val();
                self.held_count.d.next = self.count_new.val() - self.ten4.val();
                self.channel_q.d.next = self.channel_q.q.val() + self.one12.val();
            } else if self.channel_q.q.val() != self.ofm_depth.val() {
                self.held.d.next = self.combined.val();
                self.held_count.d.next = self.count_new.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ScaleBiasLoader::default, "scale_bias_loader");
}
