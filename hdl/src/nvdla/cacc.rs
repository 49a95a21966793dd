//! CACC, the convolution accumulator (seeds/001 "Convolution Accumulator"), int8 as nv_small
//! runs it. Model: `npu_model::nvdla::cacc`; interface (agreed with CMAC, CSC and SDP),
//! timing and decisions: docs/nvdla.md "CACC".
//!
//! - The assembly buffer: [`STRIPE_MAX`] entries of 8 kernels x [`ASSEMBLY_BITS`], one per
//!   output pixel of a stripe, a register file read, changed ([`CaccLanes`]) and written
//!   back in the cycle an op's partial sums arrive (`psum_valid`). The op's entry is 0 with
//!   `psum_stripe_first`, else the one after the previous op's.
//! - With `psum_acc_last` the truncated, saturated atom joins the delivery buffer
//!   ([`DELIVERY_DEPTH`] atoms, a queue in a register file) unless it is full (dropped);
//!   `sat_count` gives its saturated values in the next cycle.
//! - Towards SDP: `out_valid`, `out_data_lo`/`_hi` (the queue's first atom, zeros when
//!   empty), `out_layer_last`; it leaves on a cycle with `out_ready`.
//! - `busy_full` while the queue holds more than [`BUSY_FULL_ABOVE`] atoms: CSC then starts
//!   no stripe, so a stripe started when it was low always fits.
#[path = "cacc_lanes.rs"]
pub mod cacc_lanes;
pub use cacc_lanes::CaccLanes;
use crate::primitives::{Reg, RegFile};
use rust_hdl::prelude::*;

/// Output pixels (atomic ops) a stripe may have at most: the assembly buffer's entries.
pub const STRIPE_MAX: usize = 32;
/// Bits of one assembled sum, as NVIDIA's C model's assembly buffer. A layer's sum is at
/// most 2^37 in magnitude (32 x 32 taps x 8192 channels x 2^14).
pub const ASSEMBLY_BITS: usize = 48;
/// Atoms the delivery buffer holds: two stripes, one draining towards SDP while the next
/// arrives.
pub const DELIVERY_DEPTH: usize = 64;
/// Ops CSC may have issued that the delivery buffer's count does not show yet when CSC reads
/// `busy_full`: CSC's output register and CMAC's [`super::cmac::CMAC_LATENCY`] stages, and
/// one more should CSC read `busy_full` through a register.
pub const CACC_IN_FLIGHT: usize = 4;
/// `busy_full` is high above this many atoms in the delivery buffer: a stripe started while
/// it is low, with the ops in flight, always fits.
pub const BUSY_FULL_ABOVE: usize = DELIVERY_DEPTH - STRIPE_MAX - CACC_IN_FLIGHT;

#[derive(LogicBlock)]
pub struct Cacc {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub psum_valid: Signal<In, Bit>,
    pub psum_lo: Signal<In, Bits<80>>,
    pub psum_hi: Signal<In, Bits<80>>,
    pub psum_stripe_first: Signal<In, Bit>,
    pub psum_acc_first: Signal<In, Bit>,
    pub psum_acc_last: Signal<In, Bit>,
    pub psum_layer_last: Signal<In, Bit>,
    pub clip_truncate: Signal<In, Bits<5>>,
    pub out_ready: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_data_lo: Signal<Out, Bits<128>>,
    pub out_data_hi: Signal<Out, Bits<128>>,
    pub out_layer_last: Signal<Out, Bit>,
    pub busy_full: Signal<Out, Bit>,
    pub sat_count: Signal<Out, Bits<4>>,
    assembly: RegFile<384, 5, 1, 1>,
    lanes: CaccLanes,
    delivery: RegFile<257, 6, 1, 1>,
    next_index: Reg<Bits<5>>,
    head: Reg<Bits<6>>,
    tail: Reg<Bits<6>>,
    count: Reg<Bits<7>>,
    sat: Reg<Bits<4>>,
    index: Signal<Local, Bits<5>>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    zero4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    one5: Constant<Bits<5>>,
    one6: Constant<Bits<6>>,
    zero7: Constant<Bits<7>>,
    one7: Constant<Bits<7>>,
    depth: Constant<Bits<7>>,
    busy_above: Constant<Bits<7>>,
    zero128: Constant<Bits<128>>,
}

impl Default for Cacc {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            psum_valid: Default::default(),
            psum_lo: Default::default(),
            psum_hi: Default::default(),
            psum_stripe_first: Default::default(),
            psum_acc_first: Default::default(),
            psum_acc_last: Default::default(),
            psum_layer_last: Default::default(),
            clip_truncate: Default::default(),
            out_ready: Default::default(),
            out_valid: Default::default(),
            out_data_lo: Default::default(),
            out_data_hi: Default::default(),
            out_layer_last: Default::default(),
            busy_full: Default::default(),
            sat_count: Default::default(),
            assembly: Default::default(),
            lanes: Default::default(),
            delivery: Default::default(),
            next_index: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            count: Default::default(),
            sat: Default::default(),
            index: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            zero4: Constant::new(0.into()),
            zero5: Constant::new(0.into()),
            one5: Constant::new(1.into()),
            one6: Constant::new(1.into()),
            zero7: Constant::new(0.into()),
            one7: Constant::new(1.into()),
            depth: Constant::new((DELIVERY_DEPTH as u64).into()),
            busy_above: Constant::new((BUSY_FULL_ABOVE as u64).into()),
            zero128: Constant::new(0.into()),
        }
    }
}

impl Logic for Cacc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, next_index, head, tail, count, sat);
        self.next_index.reset.next = self.reset.val();
        self.head.reset.next = self.reset.val();
        self.tail.reset.next = self.reset.val();
        self.count.reset.next = self.reset.val();
        self.sat.reset.next = self.reset.val();
        self.assembly.clock.next = self.clock.val();
        self.delivery.clock.next = self.clock.val();

        // Assembly: read, store or add, write back, in the op's cycle.
        self.index.next = self.next_index.q.val();
        if self.psum_stripe_first.val() {
            self.index.next = self.zero5.val();
        }
        if self.psum_valid.val() {
            self.next_index.d.next = self.index.val() + self.one5.val();
        }
        self.assembly.read_address[0].next = self.index.val();
        self.lanes.old.next = self.assembly.read_data[0].val();
        self.lanes.psum_lo.next = self.psum_lo.val();
        self.lanes.psum_hi.next = self.psum_hi.val();
        self.lanes.acc_first.next = self.psum_acc_first.val();
        self.lanes.clip.next = self.clip_truncate.val();
        self.assembly.write_enable[0].next = self.psum_valid.val();
        self.assembly.write_address[0].next = self.index.val();
        self.assembly.write_data[0].next = self.lanes.sum.val();

        // Delivery: a queue of atoms with their layer-last tag.
        self.push.next = self.psum_valid.val() & self.psum_acc_last.val() & (self.count.q.val() != self.depth.val());
        self.pop.next = (self.count.q.val() != self.zero7.val()) & self.out_ready.val();
        self.lanes.layer_last.next = self.psum_layer_last.val();
        self.delivery.write_enable[0].next = self.push.val();
        self.delivery.write_address[0].next = self.tail.q.val();
        self.delivery.write_data[0].next = self.lanes.entry.val();
        self.delivery.read_address[0].next = self.head.q.val();
        if self.push.val() {
            self.tail.d.next = self.tail.q.val() + self.one6.val();
        }
        if self.pop.val() {
            self.head.d.next = self.head.q.val() + self.one6.val();
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + self.one7.val();
        }
        if self.pop.val() & !self.push.val() {
            self.count.d.next = self.count.q.val() - self.one7.val();
        }
        self.sat.d.next = self.zero4.val();
        if self.psum_valid.val() & self.psum_acc_last.val() {
            self.sat.d.next = self.lanes.saturated.val();
        }

        self.out_valid.next = self.count.q.val() != self.zero7.val();
        self.out_data_lo.next = self.zero128.val();
        self.out_data_hi.next = self.zero128.val();
        self.out_layer_last.next = false;
        if self.count.q.val() != self.zero7.val() {
            self.out_data_lo.next = self.delivery.read_data[0].val().get_bits::<128>(0);
            self.out_data_hi.next = self.delivery.read_data[0].val().get_bits::<128>(128);
            self.out_layer_last.next = self.delivery.read_data[0].val().get_bit(256);
        }
        self.busy_full.next = self.count.q.val() > self.busy_above.val();
        self.sat_count.next = self.sat.q.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Cacc::default, "nvdla_cacc");
}
