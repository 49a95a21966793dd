//! The weight decoder's fields and remainder lanes (TRM §4.7; digest `shared/spec/ethos-u65.md`
//! §1.3-1.6): the group of up to 4 fields the parser's step would take (palette entries, or
//! the remainders of the chunk before, weights first, then zero runs), and for a remainder
//! group its 4 lanes: the index from the quotient bank and the field (§1.3), the value from the
//! palette or direct (`index - palette size + dirofs`), the lane's index or value fault, and
//! the zero run. The unary step's first group starts after its unary part (`unary_need`) and
//! reads slots 0-3 of the bank the unary step before filled.
//! From registers alone (the parser's, the palette, the banks' read data at addresses computed
//! from registers), so that `WeightDecoderCore`'s step, which reads these outputs, is in no
//! combinational loop with them in the Verilated model (UNOPTFLAT; docs/ethos.md, "Verilated
//! speed", tenth step). The lanes are computed only in the unary and remainder states.
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use super::weight_decoder_core::constants;
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RemainderGroup {
    /// The parser's state: unary, palette, or one of the two that take remainders.
    pub in_unary: Signal<In, Bit>,
    pub in_palette: Signal<In, Bit>,
    pub in_lanes: Signal<In, Bit>,
    pub held: Signal<In, Bits<96>>,
    // the parser's registers
    pub w_due: Signal<In, Bits<16>>,
    pub z_due: Signal<In, Bits<16>>,
    pub wq_i: Signal<In, Bits<16>>,
    pub zq_i: Signal<In, Bits<16>>,
    pub wr_i: Signal<In, Bits<16>>,
    pub zr_i: Signal<In, Bits<16>>,
    pub w_slot: Signal<In, Bits<4>>,
    pub z_slot: Signal<In, Bits<4>>,
    pub more: Signal<In, Bit>,
    pub pal_i: Signal<In, Bits<6>>,
    pub palsize: Signal<In, Bits<6>>,
    pub dirofs: Signal<In, Bits<5>>,
    pub zdiv: Signal<In, Bits<3>>,
    pub wdiv: Signal<In, Bits<3>>,
    // from `SliceParams` and `UnaryStep`
    pub palbits_width: Signal<In, Bits<7>>,
    pub zdiv_width: Signal<In, Bits<7>>,
    pub rbits: Signal<In, Bits<7>>,
    pub uncompressed: Signal<In, Bit>,
    pub unary_more: Signal<In, Bit>,
    pub unary_need: Signal<In, Bits<7>>,
    pub qw_count: Signal<In, Bits<6>>,
    pub qz_count: Signal<In, Bits<6>>,
    /// The quotient banks' words at the group's slots, and the palette.
    pub bank_w: [Signal<In, Bits<10>>; 4],
    pub bank_z: [Signal<In, Bits<16>>; 4],
    pub palette: [Signal<In, Bits<9>>; 32],
    /// The group: fields in it, bits up to its end, its fields as palette entries, the
    /// palette entries still to read.
    pub field_count: Signal<Out, Bits<3>>,
    pub field_need: Signal<Out, Bits<7>>,
    pub pal_entry: [Signal<Out, Bits<9>>; 4],
    pub pal_left: Signal<Out, Bits<6>>,
    /// Remainders: weights still owed (else zero runs), any owed, whether a chunk follows
    /// the chunk's remainders, room in the group's queue.
    pub w_phase: Signal<Out, Bit>,
    pub owed: Signal<Out, Bit>,
    pub more_after: Signal<Out, Bit>,
    pub queue_room: Signal<Out, Bit>,
    /// The lanes: weight values, zero runs, the first lane fault (`no_fault` = 0 when none).
    pub value: [Signal<Out, Bits<9>>; 4],
    pub run: [Signal<Out, Bits<16>>; 4],
    pub lane_fault: Signal<Out, Bits<4>>,
    /// If the step takes the group: the remainders taken and the slots after it, and whether
    /// it ends the chunk's remainders.
    pub wr_i_after: Signal<Out, Bits<16>>,
    pub zr_i_after: Signal<Out, Bits<16>>,
    pub w_slot_after: Signal<Out, Bits<4>>,
    pub z_slot_after: Signal<Out, Bits<4>>,
    pub last_group: Signal<Out, Bit>,

    palsize_wide: ZeroExtend<6, 10>,
    dirofs_wide: ZeroExtend<5, 10>,
    due_w: Signal<Local, Bits<16>>,
    due_z: Signal<Local, Bits<16>>,
    due_left: Signal<Local, Bits<16>>,
    w_slot_base: Signal<Local, Bits<4>>,
    z_slot_base: Signal<Local, Bits<4>>,
    field: [Signal<Local, Bits<16>>; 4],
    field_width: Signal<Local, Bits<7>>,
    field_at: [Signal<Local, Bits<7>>; 5],
    field_mask: Signal<Local, Bits<16>>,
    field_raw: [Signal<Local, Bits<16>>; 4],
    r_slot: [Signal<Local, Bits<4>>; 4],
    r_wq: [Signal<Local, Bits<10>>; 4],
    r_zq: [Signal<Local, Bits<16>>; 4],
    idx: [Signal<Local, Bits<10>>; 4],
    direct: [Signal<Local, Bits<10>>; 4],
    raw: [Signal<Local, Bits<9>>; 4],
    magnitude: [Signal<Local, Bits<9>>; 4],
    faults: [Signal<Local, Bits<4>>; 5],
    k3: [Constant<Bits<3>>; 5],
    k4: [Constant<Bits<4>>; 5],
    four6: Constant<Bits<6>>,
    k10: [Constant<Bits<10>>; 32],
    zero6: Constant<Bits<6>>,
    zero7: Constant<Bits<7>>,
    zero9: Constant<Bits<9>>,
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    four16: Constant<Bits<16>>,
    twelve4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    no_fault: Constant<Bits<4>>,
    e_index: Constant<Bits<4>>,
    e_value: Constant<Bits<4>>,
    max_index: Constant<Bits<10>>,
    queue_limit: Constant<Bits<6>>,
}

impl Default for RemainderGroup {
    fn default() -> Self {
        Self {
            in_unary: Default::default(),
            in_palette: Default::default(),
            in_lanes: Default::default(),
            held: Default::default(),
            w_due: Default::default(),
            z_due: Default::default(),
            wq_i: Default::default(),
            zq_i: Default::default(),
            wr_i: Default::default(),
            zr_i: Default::default(),
            w_slot: Default::default(),
            z_slot: Default::default(),
            more: Default::default(),
            pal_i: Default::default(),
            palsize: Default::default(),
            dirofs: Default::default(),
            zdiv: Default::default(),
            wdiv: Default::default(),
            palbits_width: Default::default(),
            zdiv_width: Default::default(),
            rbits: Default::default(),
            uncompressed: Default::default(),
            unary_more: Default::default(),
            unary_need: Default::default(),
            qw_count: Default::default(),
            qz_count: Default::default(),
            bank_w: Default::default(),
            bank_z: Default::default(),
            palette: Default::default(),
            field_count: Default::default(),
            field_need: Default::default(),
            pal_entry: Default::default(),
            pal_left: Default::default(),
            w_phase: Default::default(),
            owed: Default::default(),
            more_after: Default::default(),
            queue_room: Default::default(),
            value: Default::default(),
            run: Default::default(),
            lane_fault: Default::default(),
            wr_i_after: Default::default(),
            zr_i_after: Default::default(),
            w_slot_after: Default::default(),
            z_slot_after: Default::default(),
            last_group: Default::default(),
            palsize_wide: Default::default(),
            dirofs_wide: Default::default(),
            due_w: Default::default(),
            due_z: Default::default(),
            due_left: Default::default(),
            w_slot_base: Default::default(),
            z_slot_base: Default::default(),
            field: Default::default(),
            field_width: Default::default(),
            field_at: Default::default(),
            field_mask: Default::default(),
            field_raw: Default::default(),
            r_slot: Default::default(),
            r_wq: Default::default(),
            r_zq: Default::default(),
            idx: Default::default(),
            direct: Default::default(),
            raw: Default::default(),
            magnitude: Default::default(),
            faults: Default::default(),
            k3: constants(),
            k4: constants(),
            four6: k(4),
            k10: constants(),
            zero6: k(0),
            zero7: k(0),
            zero9: k(0),
            zero16: k(0),
            one16: k(1),
            four16: k(4),
            twelve4: k(12),
            one4: k(1),
            no_fault: k(0),
            e_index: k(8),
            e_value: k(9),
            max_index: k(511),
            queue_limit: k(28),
        }
    }
}

impl Logic for RemainderGroup {
    #[hdl_gen]
    fn update(&mut self) {
        // fields of `field_width` bits each at a, a + b, a + 2b, a + 3b (palette entries, remainders):
        // a is 0, or in the unary step the unary part's length, where its first remainder
        // group starts. That group's remainders are due up to the quotients completed before
        // this step (`wq_i`, `zq_i`; the step sets `w_due`, `z_due` to them) from slot 0.
        // Only the palette, unary and remainder steps read the group: computed in those
        // states alone, 0 in the others (the header state, where the decoder idles), so that
        // the Verilated model skips it there (docs/ethos.md, "Verilated speed", idle NPU step).
        self.pal_left.next = self.zero6.val();
        self.due_w.next = self.zero16.val();
        self.due_z.next = self.zero16.val();
        self.w_slot_base.next = self.k4[0].val();
        self.z_slot_base.next = self.k4[0].val();
        self.more_after.next = false;
        self.w_phase.next = false;
        self.owed.next = false;
        self.due_left.next = self.zero16.val();
        self.field_width.next = self.zero7.val();
        self.field_count.next = self.k3[0].val();
        self.wr_i_after.next = self.zero16.val();
        self.zr_i_after.next = self.zero16.val();
        self.w_slot_after.next = self.k4[0].val();
        self.z_slot_after.next = self.k4[0].val();
        self.last_group.next = false;
        self.field_need.next = self.zero7.val();
        self.field_mask.next = self.zero16.val();
        for j in 0..5 {
            self.field_at[j].next = self.zero7.val();
        }
        for j in 0..4 {
            self.field_raw[j].next = self.zero16.val();
            self.field[j].next = self.zero16.val();
            self.pal_entry[j].next = self.zero9.val();
        }
        if self.in_palette.val() || self.in_lanes.val() {
            self.pal_left.next = self.palsize.val() - self.pal_i.val();
            self.due_w.next = self.w_due.val();
            self.due_z.next = self.z_due.val();
            self.w_slot_base.next = self.w_slot.val();
            self.z_slot_base.next = self.z_slot.val();
            self.more_after.next = self.more.val();
            self.field_at[0].next = self.zero7.val();
            if self.in_unary.val() {
                self.due_w.next = self.wq_i.val();
                self.due_z.next = self.zq_i.val();
                self.w_slot_base.next = self.k4[0].val();
                self.z_slot_base.next = self.k4[0].val();
                self.more_after.next = self.unary_more.val();
                self.field_at[0].next = self.unary_need.val();
            }
            self.w_phase.next = self.wr_i.val() < self.due_w.val();
            self.owed.next = self.w_phase.val() || self.zr_i.val() < self.due_z.val();
            self.due_left.next = self.due_z.val() - self.zr_i.val();
            self.field_width.next = self.zdiv_width.val();
            if self.w_phase.val() {
                self.due_left.next = self.due_w.val() - self.wr_i.val();
                self.field_width.next = self.rbits.val();
            }
            self.field_count.next = self.k3[4].val();
            if self.in_palette.val() {
                self.field_width.next = self.palbits_width.val();
                if self.pal_left.val() < self.four6.val() {
                    self.field_count.next = self.pal_left.val().get_bits::<3>(0);
                }
            } else if self.due_left.val() < self.four16.val() {
                self.field_count.next = self.due_left.val().get_bits::<3>(0);
            }
            // the group taken: up to 4 remainders; the chunk's last group if it leaves none owed
            self.wr_i_after.next = self.wr_i.val() + self.due_left.val();
            self.zr_i_after.next = self.zr_i.val() + self.due_left.val();
            if self.due_left.val() > self.four16.val() {
                self.wr_i_after.next = self.wr_i.val() + self.four16.val();
                self.zr_i_after.next = self.zr_i.val() + self.four16.val();
            }
            self.w_slot_after.next = self.w_slot_base.val() + self.k4[4].val();
            self.z_slot_after.next = self.z_slot_base.val() + self.k4[4].val();
            self.last_group.next =
                self.due_left.val() <= self.four16.val() && (!self.w_phase.val() || self.zr_i.val() == self.due_z.val());
            for j in 0..4 {
                self.field_at[j + 1].next = self.field_at[j].val() + self.field_width.val();
            }
            self.field_need.next = self.zero7.val();
            for j in 0..5 {
                if self.field_count.val() == self.k3[j].val() {
                    self.field_need.next = self.field_at[j].val();
                }
            }
            self.field_mask.next = (self.one16.val() << self.field_width.val()) - self.one16.val();
            for j in 0..4 {
                self.field_raw[j].next = self.held.val().get_bits::<16>(self.field_at[j].val().index());
                self.field[j].next = self.field_raw[j].val() & self.field_mask.val();
                self.pal_entry[j].next = self.field[j].val().get_bits::<9>(0);
            }
        }

        // remainders of the previous chunk (§1.6): weight values (§1.3) and zero runs. Only
        // the remainder and unary steps read these: computed in those states alone, so that
        // the Verilated model skips them in the others; the defaults are never used.
        self.palsize_wide.narrow.next = self.palsize.val();
        self.dirofs_wide.narrow.next = self.dirofs.val();
        self.queue_room.next = false;
        for j in 0..5 {
            self.faults[j].next = self.no_fault.val();
        }
        for j in 0..4 {
            self.r_slot[j].next = self.k4[0].val();
            self.r_wq[j].next = self.k10[0].val();
            self.r_zq[j].next = self.zero16.val();
            self.idx[j].next = self.k10[0].val();
            self.direct[j].next = self.k10[0].val();
            self.raw[j].next = self.zero9.val();
            self.magnitude[j].next = self.zero9.val();
            self.value[j].next = self.zero9.val();
            self.run[j].next = self.zero16.val();
        }
        if self.in_lanes.val() {
            self.queue_room.next = self.qw_count.val() <= self.queue_limit.val();
            if !self.w_phase.val() {
                self.queue_room.next = self.qz_count.val() <= self.queue_limit.val();
            }
            for j in 0..4 {
                self.r_slot[j].next = self.z_slot_base.val() + self.k4[j].val();
                if self.w_phase.val() {
                    self.r_slot[j].next = self.w_slot_base.val() + self.k4[j].val();
                }
                self.r_wq[j].next = self.k10[0].val();
                self.r_zq[j].next = self.zero16.val();
                if self.r_slot[j].val() < self.twelve4.val() {
                    self.r_wq[j].next = self.bank_w[j].val();
                    self.r_zq[j].next = self.bank_z[j].val();
                }
                self.idx[j].next = self.field[j].val().get_bits::<10>(0);
                if !self.uncompressed.val() {
                    self.idx[j].next = (self.r_wq[j].val() << self.wdiv.val()) | self.field[j].val().get_bits::<10>(0);
                }
                self.direct[j].next = self.idx[j].val() - self.palsize_wide.wide.val() + self.dirofs_wide.wide.val();
                self.raw[j].next = self.direct[j].val().get_bits::<9>(0);
                for e in 0..32 {
                    if self.idx[j].val() == self.k10[e].val() && self.idx[j].val() < self.palsize_wide.wide.val() {
                        self.raw[j].next = self.palette[e].val();
                    }
                }
                self.magnitude[j].next = self.raw[j].val() >> self.one4.val();
                self.value[j].next = self.magnitude[j].val();
                if self.raw[j].val().get_bit(0) {
                    self.value[j].next = self.zero9.val() - self.magnitude[j].val();
                }
                self.faults[j + 1].next = self.faults[j].val();
                if self.faults[j].val() == self.no_fault.val() && self.k3[j].val() < self.field_count.val() {
                    if self.idx[j].val() > self.max_index.val() {
                        self.faults[j + 1].next = self.e_index.val();
                    } else if self.idx[j].val() >= self.palsize_wide.wide.val() && self.direct[j].val() > self.max_index.val() {
                        self.faults[j + 1].next = self.e_value.val();
                    }
                }
                self.run[j].next = (self.r_zq[j].val() << self.zdiv.val()) | self.field[j].val();
            }
        }
        self.lane_fault.next = self.faults[4].val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(RemainderGroup::default, "remainder_group");
}
