//! The weight decoder's header step (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.2): what
//! the bit buffer's head is (an end marker with its alignment bits, a slice header with or
//! without a palette, the stream's end) and whether its bits are there: the bits the step
//! takes, its fault, and the header's fields. `WeightDecoderCore` applies it in the header
//! state. From the decoder's registers alone, so that the core's step, which reads it, is in
//! no combinational loop with it in the Verilated model (docs/ethos.md, "Verilated speed").
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct HeaderStep {
    /// The header state with bits buffered or the stream's last word seen: the only cycles
    /// whose step can differ from "nothing taken, no fault". Outside them every output is 0
    /// (the core reads the fields only with `slice`), so that the Verilated model skips the
    /// step while the decoder idles (docs/ethos.md, "Verilated speed", idle NPU step).
    pub active: Signal<In, Bit>,
    /// The bit buffer's first 36 bits: a slice header with a palette.
    pub held: Signal<In, Bits<36>>,
    pub fill: Signal<In, Bits<7>>,
    pub bitpos: Signal<In, Bits<3>>,
    pub words: Signal<In, Bits<2>>,
    pub seen_last: Signal<In, Bit>,
    pub after_end: Signal<In, Bit>,
    pub padding: Signal<In, Bits<4>>,
    pub have_palette: Signal<In, Bit>,
    /// The step: bits taken, fault (0 when none), and what it took: the stream's end, an end
    /// marker (`next_padding`: end markers since the first of a row), a slice header.
    pub consume: Signal<Out, Bits<7>>,
    pub fault: Signal<Out, Bits<4>>,
    pub stream_end: Signal<Out, Bit>,
    pub end_marker: Signal<Out, Bit>,
    pub next_padding: Signal<Out, Bits<4>>,
    pub slice: Signal<Out, Bit>,
    /// The slice header's fields (§1.2); `palsize` and `palbits` as the registers keep them.
    pub zdiv: Signal<Out, Bits<3>>,
    pub slicelen: Signal<Out, Bits<15>>,
    pub wtrunc: Signal<Out, Bit>,
    pub dirofs: Signal<Out, Bits<5>>,
    pub wdiv: Signal<Out, Bits<3>>,
    pub newpal: Signal<Out, Bit>,
    pub palsize: Signal<Out, Bits<6>>,
    pub palbits: Signal<Out, Bits<4>>,
    /// The slice brings palette entries (`palsize` field not 0): a palette step follows.
    pub palette_follows: Signal<Out, Bit>,

    field_palsize: Signal<Local, Bits<5>>,
    align: Signal<Local, Bits<7>>,
    align_bits: Signal<Local, Bits<8>>,
    align_mask: Signal<Local, Bits<8>>,
    header_need: Signal<Local, Bits<7>>,
    align_need: Signal<Local, Bits<7>>,
    bitpos_wide: ZeroExtend<3, 7>,
    palsize_field: ZeroExtend<5, 6>,
    palbits_field: ZeroExtend<3, 4>,
    k3: [Constant<Bits<3>>; 4],
    zero2: Constant<Bits<2>>,
    zero3: Constant<Bits<3>>,
    zero8: Constant<Bits<8>>,
    zero15: Constant<Bits<15>>,
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    two4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    zero6: Constant<Bits<6>>,
    one6: Constant<Bits<6>>,
    k7: [Constant<Bits<7>>; 3],
    mask7: Constant<Bits<7>>,
    one8: Constant<Bits<8>>,
    header_short: Constant<Bits<7>>,
    header_long: Constant<Bits<7>>,
    max_padding: Constant<Bits<4>>,
    no_fault: Constant<Bits<4>>,
    e_truncated: Constant<Bits<4>>,
    e_missing_end: Constant<Bits<4>>,
    e_length: Constant<Bits<4>>,
    e_reserved_zdiv: Constant<Bits<4>>,
    e_reserved_wdiv: Constant<Bits<4>>,
    e_no_palette: Constant<Bits<4>>,
    e_padding: Constant<Bits<4>>,
    e_long_padding: Constant<Bits<4>>,
}

impl Default for HeaderStep {
    fn default() -> Self {
        Self {
            active: Default::default(),
            held: Default::default(),
            fill: Default::default(),
            bitpos: Default::default(),
            words: Default::default(),
            seen_last: Default::default(),
            after_end: Default::default(),
            padding: Default::default(),
            have_palette: Default::default(),
            consume: Default::default(),
            fault: Default::default(),
            stream_end: Default::default(),
            end_marker: Default::default(),
            next_padding: Default::default(),
            slice: Default::default(),
            zdiv: Default::default(),
            slicelen: Default::default(),
            wtrunc: Default::default(),
            dirofs: Default::default(),
            wdiv: Default::default(),
            newpal: Default::default(),
            palsize: Default::default(),
            palbits: Default::default(),
            palette_follows: Default::default(),
            field_palsize: Default::default(),
            align: Default::default(),
            align_bits: Default::default(),
            align_mask: Default::default(),
            header_need: Default::default(),
            align_need: Default::default(),
            bitpos_wide: Default::default(),
            palsize_field: Default::default(),
            palbits_field: Default::default(),
            // zdiv: 4 and 5 reserved, 7 an end marker; wdiv 6 reserved
            k3: [k(4), k(5), k(7), k(6)],
            zero2: k(0),
            zero3: k(0),
            zero8: k(0),
            zero15: k(0),
            zero4: k(0),
            one4: k(1),
            two4: k(2),
            zero5: k(0),
            zero6: k(0),
            one6: k(1),
            // the end marker's 3 bits; 0
            k7: [k(0), k(3), k(5)],
            mask7: k(7),
            one8: k(1),
            header_short: k(23),
            header_long: k(36),
            max_padding: k(15),
            no_fault: k(0),
            e_truncated: k(1),
            e_missing_end: k(2),
            e_length: k(3),
            e_reserved_zdiv: k(4),
            e_reserved_wdiv: k(5),
            e_no_palette: k(6),
            e_padding: k(10),
            e_long_padding: k(12),
        }
    }
}

impl Logic for HeaderStep {
    #[hdl_gen]
    fn update(&mut self) {
        // idle: nothing taken, no fault, every field 0
        self.zdiv.next = self.zero3.val();
        self.slicelen.next = self.zero15.val();
        self.wtrunc.next = false;
        self.newpal.next = false;
        self.dirofs.next = self.zero5.val();
        self.wdiv.next = self.zero3.val();
        self.field_palsize.next = self.zero5.val();
        self.bitpos_wide.narrow.next = self.zero3.val();
        self.align.next = self.k7[0].val();
        self.align_mask.next = self.zero8.val();
        self.align_bits.next = self.zero8.val();
        self.align_need.next = self.k7[0].val();
        self.palsize_field.narrow.next = self.zero5.val();
        self.palbits_field.narrow.next = self.zero3.val();
        self.palsize.next = self.zero6.val();
        self.palette_follows.next = false;
        self.palbits.next = self.zero4.val();
        self.header_need.next = self.k7[0].val();
        self.next_padding.next = self.zero4.val();
        self.consume.next = self.k7[0].val();
        self.fault.next = self.no_fault.val();
        self.stream_end.next = false;
        self.end_marker.next = false;
        self.slice.next = false;
        if self.active.val() {
            // header fields (§1.2)
            self.zdiv.next = self.held.val().get_bits::<3>(0);
            self.slicelen.next = self.held.val().get_bits::<15>(3);
            self.wtrunc.next = self.held.val().get_bit(21);
            self.newpal.next = self.held.val().get_bit(22);
            self.dirofs.next = self.held.val().get_bits::<5>(23);
            self.wdiv.next = self.held.val().get_bits::<3>(18);
            self.field_palsize.next = self.held.val().get_bits::<5>(28);
            self.bitpos_wide.narrow.next = self.bitpos.val();
            self.align.next = (self.k7[2].val() - self.bitpos_wide.wide.val()) & self.mask7.val();
            self.align_mask.next = (self.one8.val() << self.align.val()) - self.one8.val();
            self.align_bits.next = self.held.val().get_bits::<8>(3) & self.align_mask.val();
            self.align_need.next = self.align.val() + self.k7[1].val();
            self.palsize_field.narrow.next = self.held.val().get_bits::<5>(28);
            self.palbits_field.narrow.next = self.held.val().get_bits::<3>(33);
            self.palsize.next = self.zero6.val();
            self.palette_follows.next = self.field_palsize.val() != self.zero5.val();
            if self.palette_follows.val() {
                self.palsize.next = self.palsize_field.wide.val() + self.one6.val();
            }
            self.palbits.next = self.palbits_field.wide.val() + self.two4.val();
            self.header_need.next = self.header_short.val();
            if self.newpal.val() {
                self.header_need.next = self.header_long.val();
            }
            self.next_padding.next = self.zero4.val();
            if self.after_end.val() {
                self.next_padding.next = self.padding.val() + self.one4.val();
            }

            self.consume.next = self.k7[0].val();
            self.fault.next = self.no_fault.val();
            self.stream_end.next = false;
            self.end_marker.next = false;
            self.slice.next = false;
            if self.fill.val() == self.k7[0].val() && self.seen_last.val() {
                if !self.after_end.val() {
                    self.fault.next = self.e_missing_end.val();
                } else if self.words.val() != self.zero2.val() {
                    self.fault.next = self.e_length.val();
                } else {
                    self.stream_end.next = true;
                }
            } else if self.fill.val() < self.k7[1].val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.zdiv.val() == self.k3[2].val() {
                if self.fill.val() < self.align_need.val() {
                    if self.seen_last.val() {
                        self.fault.next = self.e_truncated.val();
                    }
                } else if self.align_bits.val() != self.align_mask.val() {
                    self.fault.next = self.e_padding.val();
                } else if self.after_end.val() && self.padding.val() == self.max_padding.val() {
                    self.fault.next = self.e_long_padding.val();
                } else {
                    self.consume.next = self.align_need.val();
                    self.end_marker.next = true;
                }
            } else if self.zdiv.val() == self.k3[0].val() || self.zdiv.val() == self.k3[1].val() {
                self.fault.next = self.e_reserved_zdiv.val();
            } else if self.fill.val() < self.header_need.val() {
                if self.seen_last.val() {
                    self.fault.next = self.e_truncated.val();
                }
            } else if self.wdiv.val() == self.k3[3].val() {
                self.fault.next = self.e_reserved_wdiv.val();
            } else if !self.newpal.val() && !self.have_palette.val() {
                self.fault.next = self.e_no_palette.val();
            } else {
                self.consume.next = self.header_need.val();
                self.slice.next = true;
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(HeaderStep::default, "header_step");
}
