//! The convolution unit's layer registers and CHECK (`conv_unit.rs`; docs/ethos.md,
//! "Convolution unit", CHECK and the layer registers; TRM §4.6, digest
//! `shared/spec/ethos-u65.md` §1.9, §2): the LATCH registers (`kernel_registers.rs`, the one
//! table every kernel reads), CHECK's verdict on them (`bad`: the module comment of
//! `conv_unit.rs` lists what it refuses), the streams' start addresses and lengths, and the
//! datapath's layer registers from the latched copies: IFM height and width are the extent the
//! OFM reads, `(OFM - 1)·stride + (kernel - 1)·dilation + 1 - pads` (registered; KERNEL_*_M1
//! is the dilated side minus 1, TRM §4.6), the kernel `KERNEL_*_M1 / dilation + 1`, PAD_TOP/LEFT the datapath's
//! top/left padding, the zero points and ACTIVATION_MIN/MAX. Every output is a register or
//! logic on registers only. The model is inside `npu_model::ethos::conv_unit` (`unsupported`,
//! `layer`).
use super::kernel_registers::KernelRegisters;
use crate::primitives::constant as k;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ConvLayer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Starts LATCH (`kernel_registers.rs`).
    pub latch: Signal<In, Bit>,
    /// The unit is in CHECK, the one state that reads `bad` and `scale_start` (a register's
    /// value: both are computed only then, so that the Verilated model skips CHECK's
    /// comparisons in every other cycle; docs/ethos.md, "Verilated speed", NPU step 4).
    pub check: Signal<In, Bit>,
    /// The unit is in LATCH or CHECK, the only states in which the latched registers change
    /// or the IFM extent is read before it is registered: the extent is computed and
    /// registered only then (held otherwise, the value it had), so that the Verilated model
    /// skips its adds in the other cycles (docs/ethos.md, NPU step 6).
    pub track: Signal<In, Bit>,
    pub debug_value: Signal<In, Bits<48>>,
    pub debug_index: Signal<Out, Bits<7>>,
    pub debug_hold: Signal<Out, Bit>,
    pub latched: Signal<Out, Bit>,
    /// The feature maps' registers, as LATCH loads them.
    pub ifm_load: Signal<Out, Bit>,
    pub ofm_load: Signal<Out, Bit>,
    pub load_slot: Signal<Out, Bits<4>>,
    pub load_value: Signal<Out, Bits<40>>,
    /// CHECK: the latched layer is one the unit does not walk (valid with `check`; 0 otherwise).
    pub bad: Signal<Out, Bit>,
    /// The streams: first byte address and 64-bit words (`scale_start` valid with `check`,
    /// 0 otherwise: the stream reader takes it at `start`, in CHECK; `weight_start` always,
    /// as the reader takes it when the scale stream ends, in RUN).
    pub weight_start: Signal<Out, Bits<40>>,
    pub weight_words: Signal<Out, Bits<29>>,
    pub scale_start: Signal<Out, Bits<40>>,
    pub scale_words: Signal<Out, Bits<29>>,
    pub ifm_depth_m1: Signal<Out, Bits<16>>,
    /// The datapath's layer registers (`conv_datapath.rs`); the IFM extent registered.
    pub ifm_height: Signal<Out, Bits<12>>,
    pub ifm_width: Signal<Out, Bits<12>>,
    pub ifm_depth: Signal<Out, Bits<12>>,
    pub ofm_height: Signal<Out, Bits<12>>,
    pub ofm_width: Signal<Out, Bits<12>>,
    pub ofm_depth: Signal<Out, Bits<12>>,
    pub kernel_height: Signal<Out, Bits<4>>,
    pub kernel_width: Signal<Out, Bits<4>>,
    /// KERNEL_STRIDE bit 2 (conv weights part-kernel-first) and OFM_BLK_DEPTH / 8 - 1.
    pub part_kernel: Signal<Out, Bit>,
    pub block_groups_m1: Signal<Out, Bits<4>>,
    /// KERNEL_STRIDE bits 4 and 3: dilation 2 in y and x.
    pub dilation_y: Signal<Out, Bit>,
    pub dilation_x: Signal<Out, Bit>,
    pub stride_y: Signal<Out, Bits<2>>,
    pub stride_x: Signal<Out, Bits<2>>,
    pub pad_top: Signal<Out, Bits<3>>,
    pub pad_left: Signal<Out, Bits<3>>,
    pub ifm_zero_point: Signal<Out, Bits<8>>,
    pub ofm_zero_point: Signal<Out, Bits<8>>,
    pub act_min: Signal<Out, Bits<8>>,
    pub act_max: Signal<Out, Bits<8>>,
    /// IFM_UPSCALE's low two bits (`bad` when the register is above 2; the unit takes 2 on a
    /// CONV, 1 on a DEPTHWISE).
    pub upscale: Signal<Out, Bits<2>>,
    registers: KernelRegisters,
    h_q: Reg<Bits<12>>,
    w_q: Reg<Bits<12>>,
    oh: ZeroExtend<16, 20>,
    ow: ZeroExtend<16, 20>,
    kh: ZeroExtend<16, 20>,
    kw: ZeroExtend<16, 20>,
    pt: ZeroExtend<16, 20>,
    pb: ZeroExtend<16, 20>,
    pl: ZeroExtend<16, 20>,
    pr: ZeroExtend<16, 20>,
    h: Signal<Local, Bits<20>>,
    h1: Signal<Local, Bits<20>>,
    h2: Signal<Local, Bits<20>>,
    w: Signal<Local, Bits<20>>,
    w1: Signal<Local, Bits<20>>,
    w2: Signal<Local, Bits<20>>,
    unused_bits: Signal<Local, Bit>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    z9: Constant<Bits<9>>,
    o9: Constant<Bits<9>>,
    two16: Constant<Bits<16>>,
    seven16: Constant<Bits<16>>,
    fourteen16: Constant<Bits<16>>,
    twenty_eight16: Constant<Bits<16>>,
    seven3: Constant<Bits<3>>,
    max_block_m1: Constant<Bits<16>>,
    max_m1: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero20: Constant<Bits<20>>,
    one20: Constant<Bits<20>>,
    max20: Constant<Bits<20>>,
    zero40: Constant<Bits<40>>,
    fifteen40: Constant<Bits<40>>,
    one40: Constant<Bits<40>>,
    one4: Constant<Bits<4>>,
    one12: Constant<Bits<12>>,
    zero5: Constant<Bits<5>>,
}

impl Default for ConvLayer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            latch: Default::default(),
            check: Default::default(),
            track: Default::default(),
            debug_value: Default::default(),
            debug_index: Default::default(),
            debug_hold: Default::default(),
            latched: Default::default(),
            ifm_load: Default::default(),
            ofm_load: Default::default(),
            load_slot: Default::default(),
            load_value: Default::default(),
            bad: Default::default(),
            weight_start: Default::default(),
            weight_words: Default::default(),
            scale_start: Default::default(),
            scale_words: Default::default(),
            ifm_depth_m1: Default::default(),
            ifm_height: Default::default(),
            ifm_width: Default::default(),
            ifm_depth: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            ofm_depth: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            part_kernel: Default::default(),
            block_groups_m1: Default::default(),
            dilation_y: Default::default(),
            dilation_x: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            pad_top: Default::default(),
            pad_left: Default::default(),
            ifm_zero_point: Default::default(),
            ofm_zero_point: Default::default(),
            act_min: Default::default(),
            act_max: Default::default(),
            upscale: Default::default(),
            registers: Default::default(),
            // The extent of all-zero registers (after reset): `0 + 0 + 1 - 0`.
            h_q: Reg::new(1u64.into()),
            w_q: Reg::new(1u64.into()),
            oh: Default::default(),
            ow: Default::default(),
            kh: Default::default(),
            kw: Default::default(),
            pt: Default::default(),
            pb: Default::default(),
            pl: Default::default(),
            pr: Default::default(),
            h: Default::default(),
            h1: Default::default(),
            h2: Default::default(),
            w: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            unused_bits: Default::default(),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
            three2: k(3),
            z9: k(0),
            o9: k(0x1ff),
            two16: k(2),
            seven16: k(7),
            fourteen16: k(14),
            twenty_eight16: k(28),
            seven3: k(7),
            max_block_m1: k(127),
            max_m1: k(4094),
            one16: k(1),
            zero20: k(0),
            one20: k(1),
            max20: k(4095),
            zero40: k(0),
            fifteen40: k(15),
            one40: k(1),
            one4: k(1),
            one12: k(1),
            zero5: k(0),
        }
    }
}

impl Logic for ConvLayer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, h_q, w_q);
        self.h_q.reset.next = self.reset.val();
        self.w_q.reset.next = self.reset.val();
        self.registers.clock.next = self.clock.val();
        self.registers.reset.next = self.reset.val();

        // LATCH.
        self.registers.start.next = self.latch.val();
        self.registers.debug_value.next = self.debug_value.val();
        self.debug_index.next = self.registers.debug_index.val();
        self.debug_hold.next = self.registers.debug_hold.val();
        self.latched.next = self.registers.latched.val();
        self.ifm_load.next = self.registers.ifm_load.val();
        self.ofm_load.next = self.registers.ofm_load.val();
        self.load_slot.next = self.registers.load_slot.val();
        self.load_value.next = self.registers.load_value.val();
        self.ifm_depth_m1.next = self.registers.ifm_depth_m1.val();
        self.weight_words.next = self.registers.weight_length.val().get_bits::<29>(3);
        self.scale_words.next = self.registers.scale_length.val().get_bits::<29>(3);

        // The IFM extent, `(OFM - 1)·stride + KERNEL_M1 + 1 - pads` (KERNEL_M1: the dilated
        // side minus 1) in 20 bits (exact for strides up
        // to 4; larger ones are refused).
        self.oh.narrow.next = self.registers.ofm_height_m1.val();
        self.ow.narrow.next = self.registers.ofm_width_m1.val();
        self.kh.narrow.next = self.registers.kernel_height_m1.val();
        self.kw.narrow.next = self.registers.kernel_width_m1.val();
        self.pt.narrow.next = self.registers.ifm_pad_top.val();
        self.pb.narrow.next = self.registers.ifm_pad_bottom.val();
        self.pl.narrow.next = self.registers.ifm_pad_left.val();
        self.pr.narrow.next = self.registers.ifm_pad_right.val();
        self.h.next = self.zero20.val();
        self.w.next = self.zero20.val();
        self.h1.next = self.zero20.val();
        self.h2.next = self.zero20.val();
        self.w1.next = self.zero20.val();
        self.w2.next = self.zero20.val();
        if self.track.val() {
            if self.registers.kernel_stride.val().get_bit(1) {
                self.h1.next = self.oh.wide.val();
            }
            if self.registers.kernel_stride.val().get_bit(9) {
                self.h2.next = self.oh.wide.val() + self.oh.wide.val();
            }
            if self.registers.kernel_stride.val().get_bit(0) {
                self.w1.next = self.ow.wide.val();
            }
            if self.registers.kernel_stride.val().get_bit(6) {
                self.w2.next = self.ow.wide.val() + self.ow.wide.val();
            }
            self.h.next = self.oh.wide.val() + self.h1.val() + self.h2.val() + self.kh.wide.val() + self.one20.val() - self.pt.wide.val() - self.pb.wide.val();
            self.w.next = self.ow.wide.val() + self.w1.val() + self.w2.val() + self.kw.wide.val() + self.one20.val() - self.pl.wide.val() - self.pr.wide.val();
        }
        self.weight_start.next = self.registers.weight_basep.val() + self.registers.weight_base.val();

        // CHECK: what the unit does not walk (the module's decisions). Decision: `bad` and
        // `scale_start` only in CHECK, 0 otherwise: nothing reads them in another state
        // (`start` is CHECK's), and in the other cycles, most of a network's, the Verilated
        // model skips these 50 comparisons (docs/ethos.md, "Verilated speed", NPU step 4).
        self.bad.next = false;
        self.scale_start.next = self.zero40.val();
        if self.check.val() {
            self.scale_start.next = self.registers.scale_basep.val() + self.registers.scale_base.val();
            self.bad.next = !self.registers.ifm_precision.val().get_bit(0)
                | (self.registers.ifm_precision.val().get_bits::<2>(2) != self.zero2.val())
                | (self.registers.ifm_precision.val().get_bits::<2>(6) > self.one2.val())
                | !self.registers.ofm_precision.val().get_bit(0)
                | (self.registers.ofm_precision.val().get_bits::<2>(1) != self.zero2.val())
                | (self.registers.ofm_precision.val().get_bits::<2>(6) > self.one2.val())
                | (self.registers.ofm_precision.val().get_bits::<2>(14) != self.zero2.val())
                | ((self.registers.ifm_precision.val().get_bits::<2>(6) == self.zero2.val()) & (self.registers.ifm_stride_c.val() != self.one40.val()))
                | (self.registers.activation.val() != self.zero5.val())
                | (self.registers.acc_format.val() > self.one16.val())
                | (self.registers.ifm_upscale.val() > self.two16.val())
                | (self.registers.ifm_region.val() > self.seven16.val())
                | (self.registers.ofm_region.val() > self.seven16.val())
                | (self.registers.weight_region.val() > self.seven16.val())
                | (self.registers.scale_region.val() > self.seven16.val())
                | ((self.registers.ifm_zero_point.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.ifm_zero_point.val().get_bits::<9>(7) != self.o9.val()))
                | ((self.registers.ofm_zero_point.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.ofm_zero_point.val().get_bits::<9>(7) != self.o9.val()))
                | ((self.registers.activation_min.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.activation_min.val().get_bits::<9>(7) != self.o9.val()))
                | ((self.registers.activation_max.val().get_bits::<9>(7) != self.z9.val()) & (self.registers.activation_max.val().get_bits::<9>(7) != self.o9.val()))
                | (self.registers.kernel_stride.val().get_bit(4) & self.registers.kernel_height_m1.val().get_bit(0))
                | (self.registers.kernel_stride.val().get_bit(3) & self.registers.kernel_width_m1.val().get_bit(0))
                | (self.registers.kernel_height_m1.val() > self.twenty_eight16.val())
                | (self.registers.kernel_width_m1.val() > self.twenty_eight16.val())
                | (!self.registers.kernel_stride.val().get_bit(4) & (self.registers.kernel_height_m1.val() > self.fourteen16.val()))
                | (!self.registers.kernel_stride.val().get_bit(3) & (self.registers.kernel_width_m1.val() > self.fourteen16.val()))
                | self.registers.kernel_stride.val().get_bits::<2>(10).any()
                | self.registers.kernel_stride.val().get_bits::<2>(7).any()
                | (self.registers.kernel_stride.val().get_bit(9) & self.registers.kernel_stride.val().get_bit(1))
                | (self.registers.kernel_stride.val().get_bit(6) & self.registers.kernel_stride.val().get_bit(0))
                | (self.registers.ifm_pad_top.val() > self.seven16.val())
                | (self.registers.ifm_pad_left.val() > self.seven16.val())
                | (self.registers.ofm_blk_depth_m1.val().get_bits::<3>(0) != self.seven3.val())
                | (self.registers.ofm_blk_depth_m1.val() > self.max_block_m1.val())
                | (self.registers.ofm_height_m1.val() > self.max_m1.val())
                | (self.registers.ofm_width_m1.val() > self.max_m1.val())
                | (self.registers.ofm_depth_m1.val() > self.max_m1.val())
                | (self.registers.ifm_depth_m1.val() > self.max_m1.val())
                | (self.h.val() < self.one20.val())
                | (self.h.val() > self.max20.val())
                | (self.w.val() < self.one20.val())
                | (self.w.val() > self.max20.val())
                | ((self.weight_start.val() & self.fifteen40.val()) != self.zero40.val())
                | ((self.scale_start.val() & self.fifteen40.val()) != self.zero40.val())
                | ((self.registers.weight_length.val() & self.fifteen40.val()) != self.zero40.val())
                | (self.registers.weight_length.val() == self.zero40.val())
                | self.registers.weight_length.val().get_bits::<8>(32).any()
                | ((self.registers.scale_length.val() & self.fifteen40.val()) != self.zero40.val())
                | (self.registers.scale_length.val() == self.zero40.val())
                | self.registers.scale_length.val().get_bits::<8>(32).any();
        }

        // The datapath's layer registers.
        if self.track.val() {
            self.h_q.d.next = self.h.val().get_bits::<12>(0);
            self.w_q.d.next = self.w.val().get_bits::<12>(0);
        }
        self.ifm_height.next = self.h_q.q.val();
        self.ifm_width.next = self.w_q.q.val();
        self.ifm_depth.next = self.registers.ifm_depth_m1.val().get_bits::<12>(0) + self.one12.val();
        self.ofm_height.next = self.registers.ofm_height_m1.val().get_bits::<12>(0) + self.one12.val();
        self.ofm_width.next = self.registers.ofm_width_m1.val().get_bits::<12>(0) + self.one12.val();
        self.ofm_depth.next = self.registers.ofm_depth_m1.val().get_bits::<12>(0) + self.one12.val();
        // KERNEL_*_M1 is the dilated side minus 1: `(k - 1)·dilation`.
        self.kernel_height.next = self.registers.kernel_height_m1.val().get_bits::<4>(0) + self.one4.val();
        if self.registers.kernel_stride.val().get_bit(4) {
            self.kernel_height.next = self.registers.kernel_height_m1.val().get_bits::<4>(1) + self.one4.val();
        }
        self.kernel_width.next = self.registers.kernel_width_m1.val().get_bits::<4>(0) + self.one4.val();
        if self.registers.kernel_stride.val().get_bit(3) {
            self.kernel_width.next = self.registers.kernel_width_m1.val().get_bits::<4>(1) + self.one4.val();
        }
        self.dilation_y.next = self.registers.kernel_stride.val().get_bit(4);
        self.dilation_x.next = self.registers.kernel_stride.val().get_bit(3);
        self.part_kernel.next = self.registers.kernel_stride.val().get_bit(2);
        self.block_groups_m1.next = self.registers.ofm_blk_depth_m1.val().get_bits::<4>(3);
        self.stride_y.next = self.one2.val();
        if self.registers.kernel_stride.val().get_bit(1) {
            self.stride_y.next = self.two2.val();
        }
        if self.registers.kernel_stride.val().get_bit(9) {
            self.stride_y.next = self.three2.val();
        }
        self.stride_x.next = self.one2.val();
        if self.registers.kernel_stride.val().get_bit(0) {
            self.stride_x.next = self.two2.val();
        }
        if self.registers.kernel_stride.val().get_bit(6) {
            self.stride_x.next = self.three2.val();
        }
        self.pad_top.next = self.registers.ifm_pad_top.val().get_bits::<3>(0);
        self.pad_left.next = self.registers.ifm_pad_left.val().get_bits::<3>(0);
        self.ifm_zero_point.next = self.registers.ifm_zero_point.val().get_bits::<8>(0);
        self.ofm_zero_point.next = self.registers.ofm_zero_point.val().get_bits::<8>(0);
        self.act_min.next = self.registers.activation_min.val().get_bits::<8>(0);
        self.act_max.next = self.registers.activation_max.val().get_bits::<8>(0);
        self.upscale.next = self.registers.ifm_upscale.val().get_bits::<2>(0);
        self.unused_bits.next = self.registers.ifm2_region.val().any()
            | self.registers.ifm2_zero_point.val().any()
            | self.registers.ifm2_precision.val().any()
            | self.registers.ifm2_broadcast.val().any()
            | self.registers.ifm2_scalar.val().any()
            | self.registers.opa_scale.val().any()
            | self.registers.opb_scale.val().any()
            | self.registers.ofm_scale.val().any()
            | self.registers.ifm_precision.val().get_bits::<2>(8).any()
            | self.registers.ifm_precision.val().get_bit(1)
            | self.registers.ifm_precision.val().get_bits::<2>(4).any()
            | self.registers.ofm_precision.val().get_bits::<3>(3).any()
            | self.registers.ofm_precision.val().get_bits::<6>(8).any()
            | self.registers.kernel_stride.val().get_bits::<4>(12).any()
            | self.registers.kernel_stride.val().get_bit(5)
            | self.registers.ifm2_load.val()
            | self.registers.weight_length.val().get_bits::<3>(0).any()
            | self.registers.scale_length.val().get_bits::<3>(0).any()
            | self.registers.ifm_region.val().any()
            | self.registers.ofm_region.val().any();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvLayer::default, "conv_layer");
}
