//! The command front end's DMA (TRM §4.6 NPU_OP_DMA_START/DMA_WAIT; digest
//! `shared/spec/ethos-u65.md` §3): one 1D copy between two regions at a time, in steps of up to
//! 8 bytes that stay inside one aligned 64-bit word on both sides (one read, then one write
//! with byte strobes), so any alignment works. A sub-block of [`super::CommandFrontEnd`], which
//! decodes DMA_START and DMA_WAIT, shares its read channel with the command fetch (the DMA
//! first) and turns the errors into STATUS; the model is part of
//! `model/src/ethos/command_front_end.rs`, whose ports are the front end's.
//!
//! Ports. `reg_write`, `reg_index` and `reg_data`: the front end's register-file write (not
//! its clear after reset); the DMA keeps copies of the five `NPU_SET_DMA0_*` registers it reads,
//! so they need no second read port. `basep_write_*`: the BASEP writes, into the DMA's copy of
//! the BASEPs. `go`: DMA_START accepted (only when `idle` and not `fields_bad`): the copies are
//! taken, and later SETs do not disturb the copy. `read_issued`: the front end issued the read
//! the DMA asks for (`wants_read`, `read_addr`) this cycle; `r_valid`, `r_error`, `r_data`: its
//! response. `aw_*`, `w_*`, `b_*`: the write channel, the DMA's alone.
//!
//! Every output is a function of the DMA's registers only: the front end computes `go` and
//! `read_issued` from them in the same cycle, and an output that depended on an input would
//! close a combinational loop through the two blocks (Verilator's UNOPTFLAT).
use crate::primitives::constant as k;
use super::dma_step::DmaStep;
use crate::primitives::{Ram, RegEn, ZeroExtend};
use rust_hdl::prelude::*;

/// DMA states (the model names them in its events).
pub mod state {
    pub const IDLE: u64 = 0;
    /// Reading the source and destination regions' BASEPs (4 reads of the DMA's BASEP copy).
    pub const BASE: u64 = 1;
    pub const ADDR: u64 = 2;
    pub const READ: u64 = 3;
    pub const READ_WAIT: u64 = 4;
    pub const WRITE: u64 = 5;
    pub const WRITE_WAIT: u64 = 6;
}

#[derive(LogicBlock)]
pub struct Dma {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub reg_write: Signal<In, Bit>,
    pub reg_index: Signal<In, Bits<7>>,
    pub reg_data: Signal<In, Bits<48>>,
    pub basep_write_enable: Signal<In, Bit>,
    pub basep_write_address: Signal<In, Bits<4>>,
    pub basep_write_data: Signal<In, Bits<32>>,
    pub go: Signal<In, Bit>,
    pub read_issued: Signal<In, Bit>,
    pub r_valid: Signal<In, Bit>,
    pub r_error: Signal<In, Bit>,
    pub r_data: Signal<In, Bits<64>>,
    pub aw_ready: Signal<In, Bit>,
    pub b_valid: Signal<In, Bit>,
    pub b_error: Signal<In, Bit>,
    pub idle: Signal<Out, Bit>,
    /// A DMA_START now would be a cmd_parse_error: a region with a bit above bit 2 set (an
    /// internal destination, a 2D/3D mode, a region above 7) or a LEN of more than 32 bits.
    pub fields_bad: Signal<Out, Bit>,
    pub wants_read: Signal<Out, Bit>,
    pub read_addr: Signal<Out, Bits<40>>,
    /// Waiting for the write response (a `b_error` now is a write error).
    pub write_wait: Signal<Out, Bit>,
    pub aw_valid: Signal<Out, Bit>,
    pub aw_addr: Signal<Out, Bits<40>>,
    pub w_data: Signal<Out, Bits<64>>,
    pub w_strb: Signal<Out, Bits<8>>,
    /// The DMA's copy of the BASEPs (the front end's own answers APB reads).
    basep: Ram<32, 4>,
    base_ext: ZeroExtend<32, 40>,
    // The registers it reads, copied as the register file takes them (loaded only with
    // `reg_write`: their next values are computed only then).
    src_region_set: RegEn<Bits<16>>,
    dst_region_set: RegEn<Bits<16>>,
    src_set: RegEn<Bits<48>>,
    dst_set: RegEn<Bits<48>>,
    len_set: RegEn<Bits<48>>,
    // The copy under way, loaded only while `active` (DMA_START or a copy under way): idle,
    // the DMA's input-region logic is a test and constant stores, ~50 Verilated instructions
    // an eval less than copying every register (issue 19).
    state: RegEn<Bits<3>>,
    step: RegEn<Bits<3>>,
    src_region: RegEn<Bits<4>>,
    dst_region: RegEn<Bits<4>>,
    src_base: RegEn<Bits<40>>,
    dst_base: RegEn<Bits<40>>,
    src_addr: RegEn<Bits<40>>,
    dst_addr: RegEn<Bits<40>>,
    remaining: RegEn<Bits<40>>,
    write_data: RegEn<Bits<64>>,
    write_strb: RegEn<Bits<8>>,
    /// The step's arithmetic, from the registers alone.
    step_math: DmaStep,
    /// DMA_START or a copy under way: the copy's registers load.
    active: Signal<Local, Bit>,
    i_src_region: Constant<Bits<7>>,
    i_dst_region: Constant<Bits<7>>,
    i_src: Constant<Bits<7>>,
    i_dst: Constant<Bits<7>>,
    i_len: Constant<Bits<7>>,
    region_bad: Constant<Bits<16>>,
    len_bad: Constant<Bits<48>>,
    zero16: Constant<Bits<16>>,
    zero48: Constant<Bits<48>>,
    zero40: Constant<Bits<40>>,
    zero4: Constant<Bits<4>>,
    zero8: Constant<Bits<8>>,
    zero64: Constant<Bits<64>>,
    byte40: Constant<Bits<40>>,
    thirty_two40: Constant<Bits<40>>,
    align_mask: Constant<Bits<40>>,
    s_idle: Constant<Bits<3>>,
    s_base: Constant<Bits<3>>,
    s_addr: Constant<Bits<3>>,
    s_read: Constant<Bits<3>>,
    s_read_wait: Constant<Bits<3>>,
    s_write: Constant<Bits<3>>,
    s_write_wait: Constant<Bits<3>>,
    step0: Constant<Bits<3>>,
    step1: Constant<Bits<3>>,
    step2: Constant<Bits<3>>,
    step3: Constant<Bits<3>>,
    step4: Constant<Bits<3>>,
}

impl Default for Dma {
    fn default() -> Self {
        let index = super::command_front_end::register_index;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            reg_write: Default::default(),
            reg_index: Default::default(),
            reg_data: Default::default(),
            basep_write_enable: Default::default(),
            basep_write_address: Default::default(),
            basep_write_data: Default::default(),
            go: Default::default(),
            read_issued: Default::default(),
            r_valid: Default::default(),
            r_error: Default::default(),
            r_data: Default::default(),
            aw_ready: Default::default(),
            b_valid: Default::default(),
            b_error: Default::default(),
            idle: Default::default(),
            fields_bad: Default::default(),
            wants_read: Default::default(),
            read_addr: Default::default(),
            write_wait: Default::default(),
            aw_valid: Default::default(),
            aw_addr: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            basep: Default::default(),
            base_ext: Default::default(),
            src_region_set: Default::default(),
            dst_region_set: Default::default(),
            src_set: Default::default(),
            dst_set: Default::default(),
            len_set: Default::default(),
            state: Default::default(),
            step: Default::default(),
            src_region: Default::default(),
            dst_region: Default::default(),
            src_base: Default::default(),
            dst_base: Default::default(),
            src_addr: Default::default(),
            dst_addr: Default::default(),
            remaining: Default::default(),
            write_data: Default::default(),
            write_strb: Default::default(),
            step_math: Default::default(),
            active: Default::default(),
            i_src_region: index("NPU_SET_DMA0_SRC_REGION"),
            i_dst_region: index("NPU_SET_DMA0_DST_REGION"),
            i_src: index("NPU_SET_DMA0_SRC"),
            i_dst: index("NPU_SET_DMA0_DST"),
            i_len: index("NPU_SET_DMA0_LEN"),
            region_bad: k(0xfff8),
            len_bad: k(0xffff_0000_0000),
            zero16: k(0),
            zero48: k(0),
            zero40: k(0),
            zero4: k(0),
            zero8: k(0),
            zero64: k(0),
            byte40: k(0xff),
            thirty_two40: k(32),
            align_mask: k(((1u64 << 40) - 1) & !7),
            s_idle: k(state::IDLE),
            s_base: k(state::BASE),
            s_addr: k(state::ADDR),
            s_read: k(state::READ),
            s_read_wait: k(state::READ_WAIT),
            s_write: k(state::WRITE),
            s_write_wait: k(state::WRITE_WAIT),
            step0: k(0),
            step1: k(1),
            step2: k(2),
            step3: k(3),
            step4: k(4),
        }
    }
}

impl Logic for Dma {
    #[hdl_gen]
    fn update(&mut self) {
        // Every register's d is 0 unless its enable is set (below): idle, no copies.
        clock!(self, clock, src_region_set, dst_region_set, src_set, dst_set, len_set, state, step, src_region);
        clock!(self, clock, dst_region, src_base, dst_base, src_addr, dst_addr, remaining, write_data, write_strb);
        self.src_region_set.reset.next = self.reset.val();
        self.dst_region_set.reset.next = self.reset.val();
        self.src_set.reset.next = self.reset.val();
        self.dst_set.reset.next = self.reset.val();
        self.len_set.reset.next = self.reset.val();
        self.state.reset.next = self.reset.val();
        self.step.reset.next = self.reset.val();
        self.src_region.reset.next = self.reset.val();
        self.dst_region.reset.next = self.reset.val();
        self.src_base.reset.next = self.reset.val();
        self.dst_base.reset.next = self.reset.val();
        self.src_addr.reset.next = self.reset.val();
        self.dst_addr.reset.next = self.reset.val();
        self.remaining.reset.next = self.reset.val();
        self.write_data.reset.next = self.reset.val();
        self.write_strb.reset.next = self.reset.val();
        self.basep.clock.next = self.clock.val();
        self.basep.reset.next = self.reset.val();
        self.basep.write_enable.next = self.basep_write_enable.val();
        self.basep.write_address.next = self.basep_write_address.val();
        self.basep.write_data.next = self.basep_write_data.val();

        // Outputs, from the registers only.
        self.idle.next = self.state.q.val() == self.s_idle.val();
        self.fields_bad.next = ((self.src_region_set.q.val() & self.region_bad.val()) != self.zero16.val())
            | ((self.dst_region_set.q.val() & self.region_bad.val()) != self.zero16.val())
            | ((self.len_set.q.val() & self.len_bad.val()) != self.zero48.val());
        self.wants_read.next = self.state.q.val() == self.s_read.val();
        self.read_addr.next = self.src_addr.q.val() & self.align_mask.val();
        self.write_wait.next = self.state.q.val() == self.s_write_wait.val();
        self.aw_valid.next = self.state.q.val() == self.s_write.val();
        self.aw_addr.next = self.dst_addr.q.val() & self.align_mask.val();
        self.w_data.next = self.write_data.q.val();
        self.w_strb.next = self.write_strb.q.val();

        // The registers it reads, as the register file takes them.
        self.src_region_set.enable.next = self.reg_write.val();
        self.dst_region_set.enable.next = self.reg_write.val();
        self.src_set.enable.next = self.reg_write.val();
        self.dst_set.enable.next = self.reg_write.val();
        self.len_set.enable.next = self.reg_write.val();
        self.src_region_set.d.next = self.zero16.val();
        self.dst_region_set.d.next = self.zero16.val();
        self.src_set.d.next = self.zero48.val();
        self.dst_set.d.next = self.zero48.val();
        self.len_set.d.next = self.zero48.val();
        if self.reg_write.val() {
            self.src_region_set.d.next = self.src_region_set.q.val();
            self.dst_region_set.d.next = self.dst_region_set.q.val();
            self.src_set.d.next = self.src_set.q.val();
            self.dst_set.d.next = self.dst_set.q.val();
            self.len_set.d.next = self.len_set.q.val();
            if self.reg_index.val() == self.i_src_region.val() {
                self.src_region_set.d.next = self.reg_data.val().get_bits::<16>(0);
            }
            if self.reg_index.val() == self.i_dst_region.val() {
                self.dst_region_set.d.next = self.reg_data.val().get_bits::<16>(0);
            }
            if self.reg_index.val() == self.i_src.val() {
                self.src_set.d.next = self.reg_data.val();
            }
            if self.reg_index.val() == self.i_dst.val() {
                self.dst_set.d.next = self.reg_data.val();
            }
            if self.reg_index.val() == self.i_len.val() {
                self.len_set.d.next = self.reg_data.val();
            }
        }

        // A step: the bytes from the source address to the end of its word, of the
        // destination's word, or what is left, whichever is least (`DmaStep`, from the
        // registers alone, so that Verilator computes it once a cycle, not in its input region).
        self.step_math.busy.next = self.state.q.val() != self.s_idle.val();
        self.step_math.src_addr.next = self.src_addr.q.val();
        self.step_math.dst_addr.next = self.dst_addr.q.val();
        self.step_math.remaining.next = self.remaining.q.val();
        self.step_math.src_region.next = self.src_region.q.val();
        self.step_math.dst_region.next = self.dst_region.q.val();
        // BASEP index 2r and 2r + 1 of region r (< 8: checked at DMA_START).
        self.basep.read_enable.next = false;
        self.basep.read_address.next = self.step_math.src_twice.val();
        self.base_ext.narrow.next = self.basep.read_data.val();
        // The copy's registers load only while `active`; their next values are computed only
        // then (the block reads the front end's ports, so Verilator runs it in its input region,
        // twice a cycle: idle, it is this test and the constant stores).
        self.active.next = self.go.val() | (self.state.q.val() != self.s_idle.val());
        self.state.enable.next = self.active.val();
        self.step.enable.next = self.active.val();
        self.src_region.enable.next = self.active.val();
        self.dst_region.enable.next = self.active.val();
        self.src_base.enable.next = self.active.val();
        self.dst_base.enable.next = self.active.val();
        self.src_addr.enable.next = self.active.val();
        self.dst_addr.enable.next = self.active.val();
        self.remaining.enable.next = self.active.val();
        self.write_data.enable.next = self.active.val();
        self.write_strb.enable.next = self.active.val();
        self.state.d.next = self.s_idle.val();
        self.step.d.next = self.step0.val();
        self.src_region.d.next = self.zero4.val();
        self.dst_region.d.next = self.zero4.val();
        self.src_base.d.next = self.zero40.val();
        self.dst_base.d.next = self.zero40.val();
        self.src_addr.d.next = self.zero40.val();
        self.dst_addr.d.next = self.zero40.val();
        self.remaining.d.next = self.zero40.val();
        self.write_data.d.next = self.zero64.val();
        self.write_strb.d.next = self.zero8.val();
        if self.active.val() {
            self.state.d.next = self.state.q.val();
            self.step.d.next = self.step.q.val();
            self.src_region.d.next = self.src_region.q.val();
            self.dst_region.d.next = self.dst_region.q.val();
            self.src_base.d.next = self.src_base.q.val();
            self.dst_base.d.next = self.dst_base.q.val();
            self.src_addr.d.next = self.src_addr.q.val();
            self.dst_addr.d.next = self.dst_addr.q.val();
            self.remaining.d.next = self.remaining.q.val();
            self.write_data.d.next = self.write_data.q.val();
            self.write_strb.d.next = self.write_strb.q.val();
            if self.read_issued.val() {
                self.state.d.next = self.s_read_wait.val();
            }
            if self.r_valid.val() {
                if self.r_error.val() {
                    self.state.d.next = self.s_idle.val();
                } else {
                    self.write_data.d.next =
                        (self.r_data.val() >> self.step_math.read_shift.val()) << self.step_math.write_shift.val();
                    self.write_strb.d.next = self.step_math.strb.val();
                    self.state.d.next = self.s_write.val();
                }
            }
            if self.go.val() {
                self.state.d.next = self.s_base.val();
                self.step.d.next = self.step0.val();
                self.src_region.d.next = self.src_region_set.q.val().get_bits::<4>(0);
                self.dst_region.d.next = self.dst_region_set.q.val().get_bits::<4>(0);
                self.src_addr.d.next = self.src_set.q.val().get_bits::<40>(0);
                self.dst_addr.d.next = self.dst_set.q.val().get_bits::<40>(0);
                self.remaining.d.next = self.len_set.q.val().get_bits::<40>(0);
            }
            if self.state.q.val() == self.s_base.val() {
                self.step.d.next = self.step.q.val() + self.step1.val();
                self.basep.read_enable.next = true;
                if self.step.q.val() == self.step1.val() {
                    self.basep.read_address.next = self.step_math.src_twice1.val();
                    self.src_base.d.next = self.base_ext.wide.val();
                }
                if self.step.q.val() == self.step2.val() {
                    self.basep.read_address.next = self.step_math.dst_twice.val();
                    self.src_base.d.next =
                        self.src_base.q.val() | ((self.base_ext.wide.val() & self.byte40.val()) << self.thirty_two40.val());
                }
                if self.step.q.val() == self.step3.val() {
                    self.basep.read_address.next = self.step_math.dst_twice1.val();
                    self.dst_base.d.next = self.base_ext.wide.val();
                }
                if self.step.q.val() == self.step4.val() {
                    self.dst_base.d.next =
                        self.dst_base.q.val() | ((self.base_ext.wide.val() & self.byte40.val()) << self.thirty_two40.val());
                    self.state.d.next = self.s_addr.val();
                }
            }
            if self.state.q.val() == self.s_addr.val() {
                self.src_addr.d.next = self.src_base.q.val() + self.src_addr.q.val();
                self.dst_addr.d.next = self.dst_base.q.val() + self.dst_addr.q.val();
                self.state.d.next = self.s_read.val();
                if self.remaining.q.val() == self.zero40.val() {
                    self.state.d.next = self.s_idle.val();
                }
            }
            if (self.state.q.val() == self.s_write.val()) & self.aw_ready.val() {
                self.state.d.next = self.s_write_wait.val();
            }
            if (self.state.q.val() == self.s_write_wait.val()) & self.b_valid.val() {
                self.src_addr.d.next = self.step_math.src_after.val();
                self.dst_addr.d.next = self.step_math.dst_after.val();
                self.remaining.d.next = self.step_math.remaining_after.val();
                self.state.d.next = self.s_read.val();
                if self.step_math.last.val() | self.b_error.val() {
                    self.state.d.next = self.s_idle.val();
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Dma::default, "dma");
}
