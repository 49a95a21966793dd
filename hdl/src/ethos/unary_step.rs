//! The weight decoder's unary step (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.6): a chunk's
//! unary part, `wunary0`, `zunary` and `wunary1` at the head of the bit buffer, read as up to 12
//! weight and 12 zero-run quotients, with the two TRM corrections (FIX-1: `wunary1` is
//! `popcount(wunary0)` bits long; FIX-2: zero-run quotients only up to the slice's count). It
//! tells `WeightDecoderCore` how long the unary part is, the counts and partial quotients after
//! it, its faults, and the quotient banks' 24 write ports (which the core enables when the step
//! commits). From registers alone (the parser's, through `SliceParams`), and computed only in
//! the unary state (`active`), so that the Verilated model skips it in the others; outside it
//! every output is 0 and unused (docs/ethos.md, "Verilated speed").
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use super::weight_decoder_core::constants;
use crate::primitives::constant as k;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct UnaryStep {
    /// The parser is in its unary state.
    pub active: Signal<In, Bit>,
    pub held: Signal<In, Bits<96>>,
    /// Quotients completed so far and the partial quotient of each kind (the parser's registers).
    pub wq_i: Signal<In, Bits<16>>,
    pub zq_i: Signal<In, Bits<16>>,
    pub wq: Signal<In, Bits<10>>,
    pub zq: Signal<In, Bits<16>>,
    pub zdiv: Signal<In, Bits<3>>,
    pub wtrunc: Signal<In, Bit>,
    /// The bank this step fills.
    pub bank: Signal<In, Bit>,
    pub w_cnt: Signal<In, Bits<16>>,
    pub z_cnt: Signal<In, Bits<16>>,
    pub alternating: Signal<In, Bit>,
    pub uncompressed: Signal<In, Bit>,
    pub ubits: Signal<In, Bits<7>>,
    /// The chunk has weights, zero runs to read.
    pub w_en: Signal<Out, Bit>,
    pub z_en: Signal<Out, Bit>,
    /// Bits of the unary part: where its first remainder group starts.
    pub unary_need: Signal<Out, Bits<7>>,
    pub quotient_fault: Signal<Out, Bit>,
    pub zero_run_fault: Signal<Out, Bit>,
    /// Counts and partial quotients after the step.
    pub w_done_end: Signal<Out, Bits<16>>,
    pub w_run_end: Signal<Out, Bits<10>>,
    pub z_done_end: Signal<Out, Bits<16>>,
    /// The zero runs' partial quotient before position i (after the step at 12): also the
    /// quotient written at position i, so the banks' zero-run data.
    pub z_run: [Signal<Out, Bits<16>>; 13],
    /// Uncompressed weights in the chunk (they have no quotients).
    pub unc_count: Signal<Out, Bits<16>>,
    /// The banks' write ports: the quotient completed at position i goes to slot
    /// `w_done[i] - wq_i` (less than 12, so its low 4 bits) of bank `bank` (address bit 4).
    /// The enables are packed, bit i for position i, and the data are the chains' own
    /// signals (`w_data[i]` is the sum at position i, the zero runs' data `z_run[i]`): one
    /// store a cycle instead of 12 for each, as every signal is stored on every path, in
    /// idle cycles too (docs/ethos.md, "Verilated speed", decoder step).
    pub w_write: Signal<Out, Bits<12>>,
    pub w_address: [Signal<Out, Bits<5>>; 12],
    pub w_data: [Signal<Out, Bits<10>>; 12],
    pub z_write: Signal<Out, Bits<12>>,
    pub z_address: [Signal<Out, Bits<5>>; 12],

    wunary0: Signal<Local, Bits<12>>,
    zunary: Signal<Local, Bits<12>>,
    wunary1: Signal<Local, Bits<12>>,
    w_unary: Signal<Local, Bit>,
    zunary_at: Signal<Local, Bits<7>>,
    wunary1_at: Signal<Local, Bits<7>>,
    zunary_len: Signal<Local, Bits<4>>,
    max_zq: Signal<Local, Bits<16>>,
    unc_per_chunk: Signal<Local, Bits<16>>,
    write_half: Signal<Local, Bits<5>>,
    ones: [Signal<Local, Bits<7>>; 13],
    w_done: [Signal<Local, Bits<16>>; 13],
    w_run: [Signal<Local, Bits<10>>; 13],
    z_done: [Signal<Local, Bits<16>>; 13],
    /// Per position, packed (bit i): the weight quotient is read, completed; the zero run is read.
    w_active: Signal<Local, Bits<12>>,
    w_complete: Signal<Local, Bits<12>>,
    z_active: Signal<Local, Bits<12>>,
    /// Bit i alone, to set a packed flag.
    bit12: [Constant<Bits<12>>; 12],
    k4: [Constant<Bits<4>>; 13],
    k7: [Constant<Bits<7>>; 2],
    five7: Constant<Bits<7>>,
    k10: [Constant<Bits<10>>; 3],
    three3: Constant<Bits<3>>,
    zero5: Constant<Bits<5>>,
    sixteen5: Constant<Bits<5>>,
    zero12: Constant<Bits<12>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    eight16: Constant<Bits<16>>,
    twelve16: Constant<Bits<16>>,
    eight7: Constant<Bits<7>>,
    twelve7: Constant<Bits<7>>,
    max_quotient: Constant<Bits<10>>,
    max_run: Constant<Bits<16>>,
}

impl Default for UnaryStep {
    fn default() -> Self {
        Self {
            active: Default::default(),
            held: Default::default(),
            wq_i: Default::default(),
            zq_i: Default::default(),
            wq: Default::default(),
            zq: Default::default(),
            zdiv: Default::default(),
            wtrunc: Default::default(),
            bank: Default::default(),
            w_cnt: Default::default(),
            z_cnt: Default::default(),
            alternating: Default::default(),
            uncompressed: Default::default(),
            ubits: Default::default(),
            w_en: Default::default(),
            z_en: Default::default(),
            unary_need: Default::default(),
            quotient_fault: Default::default(),
            zero_run_fault: Default::default(),
            w_done_end: Default::default(),
            w_run_end: Default::default(),
            z_done_end: Default::default(),
            z_run: Default::default(),
            unc_count: Default::default(),
            w_write: Default::default(),
            w_address: Default::default(),
            w_data: Default::default(),
            z_write: Default::default(),
            z_address: Default::default(),
            wunary0: Default::default(),
            zunary: Default::default(),
            wunary1: Default::default(),
            w_unary: Default::default(),
            zunary_at: Default::default(),
            wunary1_at: Default::default(),
            zunary_len: Default::default(),
            max_zq: Default::default(),
            unc_per_chunk: Default::default(),
            write_half: Default::default(),
            ones: Default::default(),
            w_done: Default::default(),
            w_run: Default::default(),
            z_done: Default::default(),
            w_active: Default::default(),
            w_complete: Default::default(),
            z_active: Default::default(),
            bit12: std::array::from_fn(|i| k(1 << i)),
            k4: constants(),
            k7: constants(),
            five7: k(5),
            k10: constants(),
            three3: k(3),
            zero5: k(0),
            sixteen5: k(16),
            zero12: k(0),
            zero16: k(0),
            one16: k(1),
            eight16: k(8),
            twelve16: k(12),
            eight7: k(8),
            twelve7: k(12),
            max_quotient: k(31),
            max_run: k(0xFFFF),
        }
    }
}

impl Logic for UnaryStep {
    #[hdl_gen]
    fn update(&mut self) {
        // Outside the unary state nothing reads these: the defaults are never used.
        self.w_en.next = false;
        self.z_en.next = false;
        self.w_unary.next = false;
        self.wunary0.next = self.zero12.val();
        self.zunary.next = self.zero12.val();
        self.wunary1.next = self.zero12.val();
        self.zunary_at.next = self.k7[0].val();
        self.wunary1_at.next = self.k7[0].val();
        self.zunary_len.next = self.k4[0].val();
        self.unary_need.next = self.k7[0].val();
        self.max_zq.next = self.zero16.val();
        self.quotient_fault.next = false;
        self.zero_run_fault.next = false;
        self.unc_per_chunk.next = self.zero16.val();
        self.unc_count.next = self.zero16.val();
        self.write_half.next = self.zero5.val();
        for i in 0..13 {
            self.ones[i].next = self.k7[0].val();
            self.w_done[i].next = self.zero16.val();
            self.w_run[i].next = self.k10[0].val();
            self.z_done[i].next = self.zero16.val();
            self.z_run[i].next = self.zero16.val();
        }
        self.w_active.next = self.zero12.val();
        self.w_complete.next = self.zero12.val();
        self.z_active.next = self.zero12.val();
        self.w_write.next = self.zero12.val();
        self.z_write.next = self.zero12.val();
        for i in 0..12 {
            self.w_address[i].next = self.zero5.val();
            self.w_data[i].next = self.k10[0].val();
            self.z_address[i].next = self.zero5.val();
        }
        if self.active.val() {
            self.w_en.next = (!self.alternating.val() || self.wq_i.val() < self.zq_i.val() + self.eight16.val())
                && self.wq_i.val() < self.w_cnt.val();
            self.z_en.next = self.wq_i.val() >= self.zq_i.val() && self.alternating.val() && self.zq_i.val() < self.z_cnt.val();
            self.w_unary.next = self.w_en.val() && !self.uncompressed.val();
            self.wunary0.next = self.held.val().get_bits::<12>(0);
            if !self.w_unary.val() {
                self.wunary0.next = self.zero12.val();
            }
            self.zunary_at.next = self.k7[0].val();
            if self.w_unary.val() {
                self.zunary_at.next = self.twelve7.val();
            }
            self.zunary_len.next = self.k4[12].val();
            if self.zdiv.val() == self.three3.val() {
                self.zunary_len.next = self.k4[8].val();
            }
            self.wunary1_at.next = self.zunary_at.val();
            if self.z_en.val() {
                self.wunary1_at.next = self.zunary_at.val() + self.twelve7.val();
                if self.zdiv.val() == self.three3.val() {
                    self.wunary1_at.next = self.zunary_at.val() + self.eight7.val();
                }
            }
            self.zunary.next = self.held.val().get_bits::<12>(self.zunary_at.val().index());
            self.wunary1.next = self.held.val().get_bits::<12>(self.wunary1_at.val().index());
            self.ones[0].next = self.k7[0].val();
            self.w_done[0].next = self.wq_i.val();
            self.w_run[0].next = self.wq.val();
            self.quotient_fault.next = false;
            for i in 0..12 {
                self.ones[i + 1].next = self.ones[i].val();
                self.w_data[i].next = self.w_run[i].val();
                if self.wunary0.val().get_bit(i) {
                    self.ones[i + 1].next = self.ones[i].val() + self.k7[1].val();
                    self.w_data[i].next = self.w_run[i].val() + self.k10[1].val();
                    if self.wunary1.val().get_bit(self.ones[i].val().get_bits::<4>(0).index()) {
                        self.w_data[i].next = self.w_run[i].val() + self.k10[2].val();
                    }
                }
                if self.w_unary.val() && self.w_done[i].val() < self.w_cnt.val() {
                    self.w_active.next = self.w_active.val() | self.bit12[i].val();
                }
                if self.wtrunc.val() || self.w_data[i].val() < self.w_run[i].val() + self.k10[2].val() {
                    self.w_complete.next = self.w_complete.val() | self.bit12[i].val();
                }
                self.w_done[i + 1].next = self.w_done[i].val();
                self.w_run[i + 1].next = self.w_run[i].val();
                if self.w_active.val().get_bit(i) {
                    if self.w_data[i].val() > self.max_quotient.val() {
                        self.quotient_fault.next = true;
                    }
                    self.w_run[i + 1].next = self.w_data[i].val();
                    if self.w_complete.val().get_bit(i) {
                        self.w_done[i + 1].next = self.w_done[i].val() + self.one16.val();
                        self.w_run[i + 1].next = self.k10[0].val();
                    }
                }
            }
            self.unary_need.next = self.wunary1_at.val() + self.ones[12].val();
            self.max_zq.next = self.max_run.val() >> self.zdiv.val();
            self.z_done[0].next = self.zq_i.val();
            self.z_run[0].next = self.zq.val();
            self.zero_run_fault.next = false;
            for i in 0..12 {
                if self.z_en.val() && self.z_done[i].val() < self.z_cnt.val() && self.k4[i].val() < self.zunary_len.val() {
                    self.z_active.next = self.z_active.val() | self.bit12[i].val();
                }
                self.z_done[i + 1].next = self.z_done[i].val();
                self.z_run[i + 1].next = self.z_run[i].val();
                if self.z_active.val().get_bit(i) {
                    if self.zunary.val().get_bit(i) {
                        self.z_run[i + 1].next = self.z_run[i].val() + self.one16.val();
                        if self.z_run[i].val() >= self.max_zq.val() {
                            self.zero_run_fault.next = true;
                        }
                    } else {
                        self.z_done[i + 1].next = self.z_done[i].val() + self.one16.val();
                        self.z_run[i + 1].next = self.zero16.val();
                    }
                }
            }
            self.unc_per_chunk.next = self.twelve16.val();
            if self.ubits.val() > self.five7.val() {
                self.unc_per_chunk.next = self.eight16.val();
            }
            self.unc_count.next = self.w_cnt.val() - self.wq_i.val();
            if self.unc_count.val() > self.unc_per_chunk.val() {
                self.unc_count.next = self.unc_per_chunk.val();
            }
            // the banks' write ports (the core enables them in a committed step)
            if self.bank.val() {
                self.write_half.next = self.sixteen5.val();
            }
            self.w_write.next = self.w_active.val() & self.w_complete.val();
            self.z_write.next = self.z_active.val() & !self.zunary.val();
            for i in 0..12 {
                self.w_address[i].next =
                    (self.w_done[i].val().get_bits::<5>(0) - self.wq_i.val().get_bits::<5>(0)) | self.write_half.val();
                self.z_address[i].next =
                    (self.z_done[i].val().get_bits::<5>(0) - self.zq_i.val().get_bits::<5>(0)) | self.write_half.val();
            }
        }
        self.w_done_end.next = self.w_done[12].val();
        self.w_run_end.next = self.w_run[12].val();
        self.z_done_end.next = self.z_done[12].val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(UnaryStep::default, "unary_step");
}
