//! Output FIFO, 128 x 8 (seeds/002 §6.6, §9.4).
use crate::primitives::{Ram, Reg};
use rust_hdl::prelude::*;

/// A synchronous 128-byte FIFO with a registered read port.
///
/// On each rising edge:
/// - `reset` (RST_GLO): empty, `rd_data` 0;
/// - `rst_fifo` (SSFR[7]): empty (both pointers and the count to 0); acts without `en_fifo`;
///   `rd_data` keeps its value;
/// - `en_fifo` (SSFR[8]) low: hold;
/// - otherwise a write happens if `wr_en` and not `full`, a read if `rd_en` and not `empty`,
///   both in one cycle if both are allowed. FULL and EMPTY gate the enables here, in the
///   FIFO (§6.6): a write when full is dropped and a read when empty returns nothing new,
///   and neither disturbs the stored bytes.
///
/// A read in cycle n shows the byte on `rd_data` in cycle n+1 and holds it until the next
/// read. `full` and `empty` are decoded from the count register.
#[derive(LogicBlock)]
pub struct Fifo {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub en_fifo: Signal<In, Bit>,
    pub rst_fifo: Signal<In, Bit>,
    pub wr_en: Signal<In, Bit>,
    pub rd_en: Signal<In, Bit>,
    pub wr_data: Signal<In, Bits<8>>,
    pub rd_data: Signal<Out, Bits<8>>,
    pub full: Signal<Out, Bit>,
    pub empty: Signal<Out, Bit>,
    memory: Ram<8, 7>,
    write_pointer: Reg<Bits<7>>,
    read_pointer: Reg<Bits<7>>,
    count: Reg<Bits<8>>,
    is_full: Signal<Local, Bit>,
    is_empty: Signal<Local, Bit>,
    write: Signal<Local, Bit>,
    read: Signal<Local, Bit>,
    pointer_zero: Constant<Bits<7>>,
    pointer_step: Constant<Bits<7>>,
    count_zero: Constant<Bits<8>>,
    count_step: Constant<Bits<8>>,
    depth: Constant<Bits<8>>,
}

impl Default for Fifo {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en_fifo: Default::default(),
            rst_fifo: Default::default(),
            wr_en: Default::default(),
            rd_en: Default::default(),
            wr_data: Default::default(),
            rd_data: Default::default(),
            full: Default::default(),
            empty: Default::default(),
            memory: Default::default(),
            write_pointer: Default::default(),
            read_pointer: Default::default(),
            count: Default::default(),
            is_full: Default::default(),
            is_empty: Default::default(),
            write: Default::default(),
            read: Default::default(),
            pointer_zero: Constant::new(0.into()),
            pointer_step: Constant::new(1.into()),
            count_zero: Constant::new(0.into()),
            count_step: Constant::new(1.into()),
            depth: Constant::new(128.into()),
        }
    }
}

impl Logic for Fifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_pointer, read_pointer, count);
        self.write_pointer.reset.next = self.reset.val();
        self.read_pointer.reset.next = self.reset.val();
        self.count.reset.next = self.reset.val();
        self.is_full.next = self.count.q.val() == self.depth.val();
        self.is_empty.next = self.count.q.val() == self.count_zero.val();
        self.write.next = self.en_fifo.val() & !self.rst_fifo.val() & self.wr_en.val() & !self.is_full.val();
        self.read.next = self.en_fifo.val() & !self.rst_fifo.val() & self.rd_en.val() & !self.is_empty.val();
        self.memory.clock.next = self.clock.val();
        self.memory.reset.next = self.reset.val();
        self.memory.write_enable.next = self.write.val();
        self.memory.write_address.next = self.write_pointer.q.val();
        self.memory.write_data.next = self.wr_data.val();
        self.memory.read_enable.next = self.read.val();
        self.memory.read_address.next = self.read_pointer.q.val();
        if self.rst_fifo.val() {
            self.write_pointer.d.next = self.pointer_zero.val();
            self.read_pointer.d.next = self.pointer_zero.val();
            self.count.d.next = self.count_zero.val();
        } else {
            if self.write.val() {
                self.write_pointer.d.next = self.write_pointer.q.val() + self.pointer_step.val();
            }
            if self.read.val() {
                self.read_pointer.d.next = self.read_pointer.q.val() + self.pointer_step.val();
            }
            if self.write.val() & !self.read.val() {
                self.count.d.next = self.count.q.val() + self.count_step.val();
            } else if self.read.val() & !self.write.val() {
                self.count.d.next = self.count.q.val() - self.count_step.val();
            }
        }
        self.rd_data.next = self.memory.read_data.val();
        self.full.next = self.is_full.val();
        self.empty.next = self.is_empty.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Fifo::default, "fifo");
}
