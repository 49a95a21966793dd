//! The weight decoder's quotient banks (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.6): the
//! quotients of a chunk's weights and zero runs, slot s of bank b. The unary step fills bank
//! `bank` with the quotients it completes (slot s with the s-th); the remainder steps of the
//! chunk before read bank `bank` too, which the step before filled, 4 slots a group from the
//! group's slot (`w_slot` for weights, then `z_slot`); the unary step's first remainder group
//! reads slots 0-3 of the other bank. Both banks in one memory each for weights and zero runs:
//! bank b, slot s at address 16 b + s (one write port per unary position and one read port per
//! lane, not two). Memories without reset: each slot is read only after the unary step before
//! wrote it (docs/ethos.md, "Verilated speed", second step). The memories (`QuotientMemory`,
//! quotient_memory.rs) are written only in a committed unary step and read, with their
//! addresses computed here, only in the states that read the banks (`reading`), so that the
//! Verilated model skips both while the decoder idles (issue 19).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use super::quotient_memory::QuotientMemory;
use super::weight_decoder_core::constants;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct QuotientBanks {
    pub clock: Signal<In, Clock>,
    /// The parser's registers that place the group: in the unary state, the bank the unary
    /// step fills, the remainders taken and due, the group's slots.
    pub in_unary: Signal<In, Bit>,
    /// The parser is in a state that reads the banks (unary, remainder): `w_read`, `z_read`
    /// are 0 in the others.
    pub reading: Signal<In, Bit>,
    pub bank: Signal<In, Bit>,
    pub wr_i: Signal<In, Bits<16>>,
    pub w_due: Signal<In, Bits<16>>,
    pub wq_i: Signal<In, Bits<16>>,
    pub w_slot: Signal<In, Bits<4>>,
    pub z_slot: Signal<In, Bits<4>>,
    /// The unary step commits: its write ports (`UnaryStep`) are enabled.
    pub commit: Signal<In, Bit>,
    /// Write enables packed, bit i for port i (`UnaryStep`).
    pub w_write: Signal<In, Bits<12>>,
    pub w_address: [Signal<In, Bits<5>>; 12],
    pub w_data: [Signal<In, Bits<10>>; 12],
    pub z_write: Signal<In, Bits<12>>,
    pub z_address: [Signal<In, Bits<5>>; 12],
    pub z_data: [Signal<In, Bits<16>>; 12],
    /// The quotients at the group's 4 slots (slots 12-15 hold nothing: `RemainderGroup` reads 0).
    pub w_read: [Signal<Out, Bits<10>>; 4],
    pub z_read: [Signal<Out, Bits<16>>; 4],

    wbank: QuotientMemory<10>,
    zbank: QuotientMemory<16>,
    /// The group reads weight quotients (else zero-run ones), the half of the memories it
    /// reads (16 for bank 1), its slots.
    w_phase: Signal<Local, Bit>,
    half: Signal<Local, Bits<5>>,
    slot: [Signal<Local, Bits<5>>; 4],
    w_slot_wide: ZeroExtend<4, 5>,
    z_slot_wide: ZeroExtend<4, 5>,
    k5: [Constant<Bits<5>>; 4],
    zero5: Constant<Bits<5>>,
    sixteen5: Constant<Bits<5>>,
}

impl Default for QuotientBanks {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            in_unary: Default::default(),
            reading: Default::default(),
            bank: Default::default(),
            wr_i: Default::default(),
            w_due: Default::default(),
            wq_i: Default::default(),
            w_slot: Default::default(),
            z_slot: Default::default(),
            commit: Default::default(),
            w_write: Default::default(),
            w_address: Default::default(),
            w_data: Default::default(),
            z_write: Default::default(),
            z_address: Default::default(),
            z_data: Default::default(),
            w_read: Default::default(),
            z_read: Default::default(),
            wbank: Default::default(),
            zbank: Default::default(),
            w_phase: Default::default(),
            half: Default::default(),
            slot: Default::default(),
            w_slot_wide: Default::default(),
            z_slot_wide: Default::default(),
            k5: constants(),
            zero5: k(0),
            sixteen5: k(16),
        }
    }
}

impl Logic for QuotientBanks {
    #[hdl_gen]
    fn update(&mut self) {
        self.wbank.clock.next = self.clock.val();
        self.zbank.clock.next = self.clock.val();
        // Reads at the group's slots (`RemainderGroup`'s `w_phase` and `r_slot` are the same
        // values), from registers alone: a memory's read address must not share a signal with
        // the logic that reads its data, or Verilator sees a combinational loop through the two
        // (UNOPTFLAT). Computed only in the states that read the banks, 0 in the others.
        self.wbank.read.next = self.reading.val();
        self.zbank.read.next = self.reading.val();
        self.w_phase.next = false;
        self.half.next = self.zero5.val();
        self.w_slot_wide.narrow.next = self.w_slot.val();
        self.z_slot_wide.narrow.next = self.z_slot.val();
        for j in 0..4 {
            self.slot[j].next = self.zero5.val();
        }
        if self.reading.val() {
            self.w_phase.next = self.wr_i.val() < self.w_due.val();
            if self.bank.val() {
                self.half.next = self.sixteen5.val();
            }
            if self.in_unary.val() {
                self.w_phase.next = self.wr_i.val() < self.wq_i.val();
                self.half.next = self.sixteen5.val();
                if self.bank.val() {
                    self.half.next = self.zero5.val();
                }
            }
            for j in 0..4 {
                // slot + j <= 15: no carry into the bank bit
                self.slot[j].next = (self.z_slot_wide.wide.val() + self.k5[j].val()) | self.half.val();
                if self.w_phase.val() {
                    self.slot[j].next = (self.w_slot_wide.wide.val() + self.k5[j].val()) | self.half.val();
                }
                if self.in_unary.val() {
                    self.slot[j].next = self.k5[j].val() | self.half.val();
                }
            }
        }
        for j in 0..4 {
            self.wbank.read_address[j].next = self.slot[j].val();
            self.zbank.read_address[j].next = self.slot[j].val();
            self.w_read[j].next = self.wbank.read_data[j].val();
            self.z_read[j].next = self.zbank.read_data[j].val();
        }
        // Writes: only a committed unary step writes, the memories test `commit` first.
        self.wbank.commit.next = self.commit.val();
        self.zbank.commit.next = self.commit.val();
        self.wbank.write.next = self.w_write.val();
        self.zbank.write.next = self.z_write.val();
        for i in 0..12 {
            self.wbank.address[i].next = self.w_address[i].val();
            self.wbank.data[i].next = self.w_data[i].val();
            self.zbank.address[i].next = self.z_address[i].val();
            self.zbank.data[i].next = self.z_data[i].val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(QuotientBanks::default, "quotient_banks");
}
