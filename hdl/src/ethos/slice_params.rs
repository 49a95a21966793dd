//! The weight decoder's slice parameters (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.2-1.4),
//! from the slice header's registers alone: how many weights and zero runs the slice has, whether
//! they alternate, whether its weights are uncompressed, and the remainders' widths.
//! A block of its own so that the parser's sub-blocks (`UnaryStep`, `RemainderGroup`) take these
//! from a block that reads registers only: a value computed in `WeightDecoderCore`'s `update`
//! and fed to them would put their logic in a combinational loop with it in the Verilated model
//! (UNOPTFLAT; docs/ethos.md, "Verilated speed", tenth step).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use crate::primitives::constant as k;
use crate::primitives::ZeroExtend;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct SliceParams {
    /// The slice header's registers (§1.2).
    pub slicelen: Signal<In, Bits<15>>,
    pub newpal: Signal<In, Bit>,
    pub zdiv: Signal<In, Bits<3>>,
    pub wdiv: Signal<In, Bits<3>>,
    pub palsize: Signal<In, Bits<6>>,
    pub palbits: Signal<In, Bits<4>>,
    /// Weights and zero runs of the slice (one zero run more when it brings a palette, §1.6).
    pub w_cnt: Signal<Out, Bits<16>>,
    pub z_cnt: Signal<Out, Bits<16>>,
    /// Zero runs alternate with weights (`zdiv` below 4); weights uncompressed (`wdiv` 7).
    pub alternating: Signal<Out, Bit>,
    pub uncompressed: Signal<Out, Bit>,
    /// Uncompressed index bits (§1.4) and a weight remainder's bits.
    pub ubits: Signal<Out, Bits<7>>,
    pub rbits: Signal<Out, Bits<7>>,
    /// `palbits` and `zdiv` as field widths.
    pub palbits_width: Signal<Out, Bits<7>>,
    pub zdiv_width: Signal<Out, Bits<7>>,

    slicelen_wide: ZeroExtend<15, 16>,
    wdiv_wide: ZeroExtend<3, 7>,
    zdiv_wide: ZeroExtend<3, 7>,
    palbits_wide: ZeroExtend<4, 7>,
    one16: Constant<Bits<16>>,
    four3: Constant<Bits<3>>,
    seven3: Constant<Bits<3>>,
    pal_over: [Constant<Bits<6>>; 5],
    ubits_of: [Constant<Bits<7>>; 5],
}

impl Default for SliceParams {
    fn default() -> Self {
        Self {
            slicelen: Default::default(),
            newpal: Default::default(),
            zdiv: Default::default(),
            wdiv: Default::default(),
            palsize: Default::default(),
            palbits: Default::default(),
            w_cnt: Default::default(),
            z_cnt: Default::default(),
            alternating: Default::default(),
            uncompressed: Default::default(),
            ubits: Default::default(),
            rbits: Default::default(),
            palbits_width: Default::default(),
            zdiv_width: Default::default(),
            slicelen_wide: Default::default(),
            wdiv_wide: Default::default(),
            zdiv_wide: Default::default(),
            palbits_wide: Default::default(),
            one16: k(1),
            four3: k(4),
            seven3: k(7),
            // a palette of more than 16, 8, 4, 2, 0 entries: 5, 4, 3, 2, 1 index bits
            pal_over: [k(16), k(8), k(4), k(2), k(0)],
            ubits_of: [k(5), k(4), k(3), k(2), k(1)],
        }
    }
}

impl Logic for SliceParams {
    #[hdl_gen]
    fn update(&mut self) {
        self.slicelen_wide.narrow.next = self.slicelen.val();
        self.w_cnt.next = self.slicelen_wide.wide.val() + self.one16.val();
        self.z_cnt.next = self.w_cnt.val();
        if self.newpal.val() {
            self.z_cnt.next = self.w_cnt.val() + self.one16.val();
        }
        self.alternating.next = self.zdiv.val() < self.four3.val();
        self.uncompressed.next = self.wdiv.val() == self.seven3.val();
        // uncompressed index bits (§1.4): ceil(log2(palette size)), or palbits without a palette
        self.palbits_wide.narrow.next = self.palbits.val();
        self.palbits_width.next = self.palbits_wide.wide.val();
        self.ubits.next = self.palbits_wide.wide.val();
        if self.palsize.val() > self.pal_over[0].val() {
            self.ubits.next = self.ubits_of[0].val();
        } else if self.palsize.val() > self.pal_over[1].val() {
            self.ubits.next = self.ubits_of[1].val();
        } else if self.palsize.val() > self.pal_over[2].val() {
            self.ubits.next = self.ubits_of[2].val();
        } else if self.palsize.val() > self.pal_over[3].val() {
            self.ubits.next = self.ubits_of[3].val();
        } else if self.palsize.val() > self.pal_over[4].val() {
            self.ubits.next = self.ubits_of[4].val();
        }
        self.wdiv_wide.narrow.next = self.wdiv.val();
        self.rbits.next = self.wdiv_wide.wide.val();
        if self.uncompressed.val() {
            self.rbits.next = self.ubits.val();
        }
        self.zdiv_wide.narrow.next = self.zdiv.val();
        self.zdiv_width.next = self.zdiv_wide.wide.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SliceParams::default, "slice_params");
}
