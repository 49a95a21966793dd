//! The weight decoder's chunk registers (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.6):
//! the quotients completed and the remainders taken of each kind (`wq_i`, `zq_i`, `wr_i`,
//! `zr_i`), the remainders due from the chunk before (`w_due`, `z_due`), the partial quotients
//! (`wq`, `zq`), whether a chunk follows (`more`), the bank the unary step fills and the
//! remainder groups' slots. `WeightDecoderCore` decides the step and says which load it takes:
//! a slice header clears them, a committed unary step loads its chain ends (`UnaryStep`), a
//! remainder group taken advances its kind's count and slot (`RemainderGroup`). Its own block
//! so that the core stays under 500 lines (docs/ethos.md, "Verilated speed", decoder step);
//! the outputs are the registers, so the core's step reads no value of this block's logic
//! (no combinational loop through the two, UNOPTFLAT).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ChunkRegisters {
    pub clock: Signal<In, Clock>,
    /// Clears every register: reset, or a finished stream.
    pub restart: Signal<In, Bit>,
    /// A slice header is taken: every register 0.
    pub clear: Signal<In, Bit>,
    /// The unary step commits: the chains' ends (`UnaryStep`), or for an uncompressed chunk
    /// (`uncompressed`) `unc_count` weights more; the chunk's remainders become due.
    pub commit: Signal<In, Bit>,
    pub uncompressed: Signal<In, Bit>,
    pub unc_count: Signal<In, Bits<16>>,
    pub w_done_end: Signal<In, Bits<16>>,
    pub w_run_end: Signal<In, Bits<10>>,
    pub z_done_end: Signal<In, Bits<16>>,
    pub z_run_end: Signal<In, Bits<16>>,
    pub more_next: Signal<In, Bit>,
    /// A remainder group of weights (`take_w`) or zero runs (`take_z`) is taken.
    pub take_w: Signal<In, Bit>,
    pub take_z: Signal<In, Bit>,
    pub wr_i_after: Signal<In, Bits<16>>,
    pub zr_i_after: Signal<In, Bits<16>>,
    pub w_slot_after: Signal<In, Bits<4>>,
    pub z_slot_after: Signal<In, Bits<4>>,
    pub wq_i: Signal<Out, Bits<16>>,
    pub zq_i: Signal<Out, Bits<16>>,
    pub wr_i: Signal<Out, Bits<16>>,
    pub zr_i: Signal<Out, Bits<16>>,
    pub w_due: Signal<Out, Bits<16>>,
    pub z_due: Signal<Out, Bits<16>>,
    pub wq: Signal<Out, Bits<10>>,
    pub zq: Signal<Out, Bits<16>>,
    pub more: Signal<Out, Bit>,
    pub bank: Signal<Out, Bit>,
    pub w_slot: Signal<Out, Bits<4>>,
    pub z_slot: Signal<Out, Bits<4>>,

    wq_i_r: Reg<Bits<16>>,
    zq_i_r: Reg<Bits<16>>,
    wr_i_r: Reg<Bits<16>>,
    zr_i_r: Reg<Bits<16>>,
    w_due_r: Reg<Bits<16>>,
    z_due_r: Reg<Bits<16>>,
    wq_r: Reg<Bits<10>>,
    zq_r: Reg<Bits<16>>,
    more_r: Reg<Bit>,
    bank_r: Reg<Bit>,
    w_slot_r: Reg<Bits<4>>,
    z_slot_r: Reg<Bits<4>>,
    zero4: Constant<Bits<4>>,
    zero10: Constant<Bits<10>>,
    zero16: Constant<Bits<16>>,
}

impl Default for ChunkRegisters {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            restart: Default::default(),
            clear: Default::default(),
            commit: Default::default(),
            uncompressed: Default::default(),
            unc_count: Default::default(),
            w_done_end: Default::default(),
            w_run_end: Default::default(),
            z_done_end: Default::default(),
            z_run_end: Default::default(),
            more_next: Default::default(),
            take_w: Default::default(),
            take_z: Default::default(),
            wr_i_after: Default::default(),
            zr_i_after: Default::default(),
            w_slot_after: Default::default(),
            z_slot_after: Default::default(),
            wq_i: Default::default(),
            zq_i: Default::default(),
            wr_i: Default::default(),
            zr_i: Default::default(),
            w_due: Default::default(),
            z_due: Default::default(),
            wq: Default::default(),
            zq: Default::default(),
            more: Default::default(),
            bank: Default::default(),
            w_slot: Default::default(),
            z_slot: Default::default(),
            wq_i_r: Default::default(),
            zq_i_r: Default::default(),
            wr_i_r: Default::default(),
            zr_i_r: Default::default(),
            w_due_r: Default::default(),
            z_due_r: Default::default(),
            wq_r: Default::default(),
            zq_r: Default::default(),
            more_r: Default::default(),
            bank_r: Default::default(),
            w_slot_r: Default::default(),
            z_slot_r: Default::default(),
            zero4: k(0),
            zero10: k(0),
            zero16: k(0),
        }
    }
}

impl Logic for ChunkRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wq_i_r, zq_i_r, wr_i_r, zr_i_r, w_due_r, z_due_r, wq_r, zq_r, more_r, bank_r, w_slot_r, z_slot_r);
        self.wq_i_r.reset.next = self.restart.val();
        self.zq_i_r.reset.next = self.restart.val();
        self.wr_i_r.reset.next = self.restart.val();
        self.zr_i_r.reset.next = self.restart.val();
        self.w_due_r.reset.next = self.restart.val();
        self.z_due_r.reset.next = self.restart.val();
        self.wq_r.reset.next = self.restart.val();
        self.zq_r.reset.next = self.restart.val();
        self.more_r.reset.next = self.restart.val();
        self.bank_r.reset.next = self.restart.val();
        self.w_slot_r.reset.next = self.restart.val();
        self.z_slot_r.reset.next = self.restart.val();
        self.wq_i.next = self.wq_i_r.q.val();
        self.zq_i.next = self.zq_i_r.q.val();
        self.wr_i.next = self.wr_i_r.q.val();
        self.zr_i.next = self.zr_i_r.q.val();
        self.w_due.next = self.w_due_r.q.val();
        self.z_due.next = self.z_due_r.q.val();
        self.wq.next = self.wq_r.q.val();
        self.zq.next = self.zq_r.q.val();
        self.more.next = self.more_r.q.val();
        self.bank.next = self.bank_r.q.val();
        self.w_slot.next = self.w_slot_r.q.val();
        self.z_slot.next = self.z_slot_r.q.val();
        if self.clear.val() {
            self.wq_i_r.d.next = self.zero16.val();
            self.zq_i_r.d.next = self.zero16.val();
            self.wr_i_r.d.next = self.zero16.val();
            self.zr_i_r.d.next = self.zero16.val();
            self.w_due_r.d.next = self.zero16.val();
            self.z_due_r.d.next = self.zero16.val();
            self.wq_r.d.next = self.zero10.val();
            self.zq_r.d.next = self.zero16.val();
            self.more_r.d.next = false;
            self.bank_r.d.next = false;
            self.w_slot_r.d.next = self.zero4.val();
            self.z_slot_r.d.next = self.zero4.val();
        }
        if self.commit.val() {
            self.wq_i_r.d.next = self.w_done_end.val();
            self.wq_r.d.next = self.w_run_end.val();
            if self.uncompressed.val() {
                // Uncompressed weights have no quotients: the remainder steps take the
                // index from the field alone and never read the bank.
                self.wq_i_r.d.next = self.wq_i_r.q.val() + self.unc_count.val();
            }
            self.zq_i_r.d.next = self.z_done_end.val();
            self.zq_r.d.next = self.z_run_end.val();
            self.w_due_r.d.next = self.wq_i_r.q.val();
            self.z_due_r.d.next = self.zq_i_r.q.val();
            self.more_r.d.next = self.more_next.val();
            self.bank_r.d.next = !self.bank_r.q.val();
            self.w_slot_r.d.next = self.zero4.val();
            self.z_slot_r.d.next = self.zero4.val();
        }
        // a group taken (with the unary part too: after the commit's loads)
        if self.take_w.val() {
            self.wr_i_r.d.next = self.wr_i_after.val();
            self.w_slot_r.d.next = self.w_slot_after.val();
        }
        if self.take_z.val() {
            self.zr_i_r.d.next = self.zr_i_after.val();
            self.z_slot_r.d.next = self.z_slot_after.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ChunkRegisters::default, "chunk_registers");
}
