//! The kernel units' LATCH sequencer (TRM §4.6; docs/ethos.md, "Kernel unit"): from `start`,
//! [`LATCH_STEPS`] cycles with the front end held (`debug_hold`), reading the register-file
//! entries of [`latch_table`] through the front end's debug port, then the BASEP pairs of the
//! IFM, IFM2, OFM, weight and scale regions (`*_region`, the scalar copies LATCH wrote first);
//! the value read at step k arrives at step k + 1, and this block says where it goes: a
//! feature-map slot (`ifm_load`, `ifm2_load`, `ofm_load` with `load_slot`) or scalar id
//! `scalar_id` (`scalar_write`). `latched` is high in the last step. A sub-block of
//! [`super::kernel_registers::KernelRegisters`], which keeps the copies; its model is
//! `model/src/ethos/latch_sequencer.rs` (the sequence as a function of the step).
//!
//! Every output is a function of this block's registers and the region inputs (registers of
//! the parent) only.
use super::latch_table::{index_rom, target_rom, LATCH_STEPS};
#[cfg(doc)]
use super::latch_table::latch_table;
use crate::primitives::constant as k;
use crate::primitives::{Concat, Reg};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LatchSequencer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub ifm_region: Signal<In, Bits<3>>,
    pub ifm2_region: Signal<In, Bits<3>>,
    pub ofm_region: Signal<In, Bits<3>>,
    pub weight_region: Signal<In, Bits<3>>,
    pub scale_region: Signal<In, Bits<3>>,
    pub debug_index: Signal<Out, Bits<7>>,
    pub debug_hold: Signal<Out, Bit>,
    pub latched: Signal<Out, Bit>,
    pub ifm_load: Signal<Out, Bit>,
    pub ifm2_load: Signal<Out, Bit>,
    pub ofm_load: Signal<Out, Bit>,
    pub load_slot: Signal<Out, Bits<4>>,
    pub scalar_write: Signal<Out, Bit>,
    pub scalar_id: Signal<Out, Bits<6>>,
    index_rom: ROM<Bits<7>, 7>,
    target_rom: ROM<Bits<8>, 7>,
    basep_slot: Concat<3, 1, 4>,
    basep_index: Concat<3, 4, 7>,
    busy: Reg<Bit>,
    k: Reg<Bits<7>>,
    entry: Signal<Local, Bits<7>>,
    target: Signal<Local, Bits<8>>,
    loading: Signal<Local, Bit>,
    step: Signal<Local, Bits<7>>,
    region: Signal<Local, Bits<3>>,
    /// Bits read nowhere, named as lint expects.
    unused_bits: Signal<Local, Bit>,
    one7: Constant<Bits<7>>,
    zero7: Constant<Bits<7>>,
    table_len: Constant<Bits<7>>,
    last_step: Constant<Bits<7>>,
    kind_scalar: Constant<Bits<2>>,
    kind_ifm: Constant<Bits<2>>,
    kind_ifm2: Constant<Bits<2>>,
    kind_ofm: Constant<Bits<2>>,
    debug_basep_high: Constant<Bits<3>>,
    one3: Constant<Bits<3>>,
    zero1: Constant<Bits<1>>,
    zero3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    zero6: Constant<Bits<6>>,
    zero8: Constant<Bits<8>>,
    two3: Constant<Bits<3>>,
    three3: Constant<Bits<3>>,
    four3: Constant<Bits<3>>,
}

impl Default for LatchSequencer {
    fn default() -> Self {
        assert_eq!(super::command_front_end::DEBUG_BASEP % 16, 0, "a BASEP's debug index is {{DEBUG_BASEP[6:4], region, half}}");
        assert!(LATCH_STEPS <= 128, "LATCH counts in 7 bits");
        let table_len = super::latch_table::latch_table().len();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            ifm_region: Default::default(),
            ifm2_region: Default::default(),
            ofm_region: Default::default(),
            weight_region: Default::default(),
            scale_region: Default::default(),
            debug_index: Default::default(),
            debug_hold: Default::default(),
            latched: Default::default(),
            ifm_load: Default::default(),
            ifm2_load: Default::default(),
            ofm_load: Default::default(),
            load_slot: Default::default(),
            scalar_write: Default::default(),
            scalar_id: Default::default(),
            index_rom: ROM::new(index_rom()),
            target_rom: ROM::new(target_rom()),
            basep_slot: Default::default(),
            basep_index: Default::default(),
            busy: Default::default(),
            k: Default::default(),
            entry: Default::default(),
            target: Default::default(),
            loading: Default::default(),
            step: Default::default(),
            region: Default::default(),
            unused_bits: Default::default(),
            one7: k(1),
            zero7: k(0),
            table_len: k(table_len as u64),
            last_step: k(LATCH_STEPS as u64 - 1),
            kind_scalar: k(0),
            kind_ifm: k(1),
            kind_ifm2: k(2),
            kind_ofm: k(3),
            debug_basep_high: k((super::command_front_end::DEBUG_BASEP >> 4) as u64),
            one3: k(1),
            zero1: k(0),
            zero3: k(0),
            zero4: k(0),
            zero6: k(0),
            zero8: k(0),
            two3: k(2),
            three3: k(3),
            four3: k(4),
        }
    }
}

impl Logic for LatchSequencer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, k);
        self.busy.reset.next = self.reset.val();
        self.k.reset.next = self.reset.val();

        // The sequence: step k reads `index_rom[k]`, then the BASEPs; the value read at step
        // k arrives at k + 1 and goes to `target_rom[k]` (kind << 6 | slot or scalar id).
        if self.start.val() {
            self.busy.d.next = true;
            self.k.d.next = self.zero7.val();
        } else if self.busy.q.val() {
            if self.k.q.val() == self.last_step.val() {
                self.busy.d.next = false;
            } else {
                self.k.d.next = self.k.q.val() + self.one7.val();
            }
        }
        self.debug_hold.next = self.busy.q.val();
        // Decision: the sequence's outputs only while busy (a register), 0 otherwise: each is
        // read only with a load or write enable, 0 when not busy, or was 0 then already
        // (`latched`, `debug_index`), so the Verilated model skips the ROMs' decode between
        // LATCHes, most of a kernel's cycles (docs/ethos.md, "Verilated speed", NPU step 4).
        self.latched.next = false;
        self.index_rom.address.next = self.zero7.val();
        self.entry.next = self.zero7.val();
        self.target_rom.address.next = self.zero7.val();
        self.target.next = self.zero8.val();
        self.loading.next = false;
        self.ifm_load.next = false;
        self.ifm2_load.next = false;
        self.ofm_load.next = false;
        self.load_slot.next = self.zero4.val();
        self.scalar_write.next = false;
        self.scalar_id.next = self.zero6.val();
        self.step.next = self.zero7.val();
        self.region.next = self.zero3.val();
        self.basep_slot.high.next = self.zero3.val();
        self.basep_slot.low.next = self.zero1.val();
        self.basep_index.high.next = self.zero3.val();
        self.basep_index.low.next = self.zero4.val();
        self.debug_index.next = self.zero7.val();
        self.unused_bits.next = false;
        if self.busy.q.val() {
            self.latched.next = self.k.q.val() == self.last_step.val();
            self.index_rom.address.next = self.k.q.val();
            self.entry.next = self.k.q.val() - self.one7.val();
            self.target_rom.address.next = self.entry.val();
            self.target.next = self.target_rom.data.val();
            self.loading.next = self.k.q.val() != self.zero7.val();
            self.ifm_load.next = self.loading.val() & (self.target.val().get_bits::<2>(6) == self.kind_ifm.val());
            self.ifm2_load.next = self.loading.val() & (self.target.val().get_bits::<2>(6) == self.kind_ifm2.val());
            self.ofm_load.next = self.loading.val() & (self.target.val().get_bits::<2>(6) == self.kind_ofm.val());
            self.load_slot.next = self.target.val().get_bits::<4>(0);
            // Scalar id `target[5:0]` (the ids of module `scalar`, in order).
            self.scalar_write.next = self.loading.val() & (self.target.val().get_bits::<2>(6) == self.kind_scalar.val());
            self.scalar_id.next = self.target.val().get_bits::<6>(0);

            // The debug port: the table's reads, then BASEP 2r and 2r + 1 of region r of the
            // IFM, IFM2, OFM, weights, scales (step[3:1]; checked by the unit only: a bad region
            // reads some BASEP, unused).
            self.step.next = self.k.q.val() - self.table_len.val();
            self.region.next = self.ifm_region.val();
            if self.step.val().get_bits::<3>(1) == self.one3.val() {
                self.region.next = self.ifm2_region.val();
            }
            if self.step.val().get_bits::<3>(1) == self.two3.val() {
                self.region.next = self.ofm_region.val();
            }
            if self.step.val().get_bits::<3>(1) == self.three3.val() {
                self.region.next = self.weight_region.val();
            }
            if self.step.val().get_bits::<3>(1) == self.four3.val() {
                self.region.next = self.scale_region.val();
            }
            self.basep_slot.high.next = self.region.val();
            self.basep_slot.low.next = self.step.val().get_bits::<1>(0);
            self.basep_index.high.next = self.debug_basep_high.val();
            self.basep_index.low.next = self.basep_slot.joined.val();
            if self.k.q.val() < self.table_len.val() {
                self.debug_index.next = self.index_rom.data.val();
            }
            if (self.k.q.val() >= self.table_len.val()) & (self.k.q.val() < self.last_step.val()) {
                self.debug_index.next = self.basep_index.joined.val();
            }
            self.unused_bits.next = self.step.val().get_bits::<3>(4).any();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(LatchSequencer::default, "latch_sequencer");
}
