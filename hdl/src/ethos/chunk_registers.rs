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
//! One clocked process, in which the registers hold unless a load is taken: as 12 `Reg`s each
//! register's hold (`d = q`) and reset were logic the Verilated model ran every cycle, though
//! the chunk registers change only in the parser's unary and remainder steps (the decoder idles
//! in the NPU mostly; issue 19). Every read of a register in the process precedes every write
//! (the restart last), so Verilator keeps no shadow copies.
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
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
}

impl Logic for ChunkRegisters {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        if self.commit.val() {
            self.w_due.next = self.wq_i.val();
            self.z_due.next = self.zq_i.val();
            self.bank.next = !self.bank.val();
            self.wq_i.next = if self.uncompressed.val() { self.wq_i.val() + self.unc_count.val() } else { self.w_done_end.val() };
            self.wq.next = self.w_run_end.val();
            self.zq_i.next = self.z_done_end.val();
            self.zq.next = self.z_run_end.val();
            self.more.next = self.more_next.val();
            self.w_slot.next = 0.into();
            self.z_slot.next = 0.into();
        } else if self.clear.val() {
            self.clear_all();
        }
        if self.take_w.val() {
            self.wr_i.next = self.wr_i_after.val();
            self.w_slot.next = self.w_slot_after.val();
        }
        if self.take_z.val() {
            self.zr_i.next = self.zr_i_after.val();
            self.z_slot.next = self.z_slot_after.val();
        }
        if self.restart.val() {
            self.clear_all();
        }
    }
    fn connect(&mut self) {
        self.wq_i.connect();
        self.zq_i.connect();
        self.wr_i.connect();
        self.zr_i.connect();
        self.w_due.connect();
        self.z_due.connect();
        self.wq.connect();
        self.zq.connect();
        self.more.connect();
        self.bank.connect();
        self.w_slot.connect();
        self.z_slot.connect();
    }
    fn hdl(&self) -> Verilog {
        // A slice header (`clear`) and a unary step (`commit`) are never the same cycle.
        Verilog::Custom(format!(
            "always @(posedge clock) begin
    if (commit) begin
        w_due <= wq_i;
        z_due <= zq_i;
        bank <= !bank;
        if (uncompressed) wq_i <= wq_i + unc_count;
        else wq_i <= w_done_end;
        wq <= w_run_end;
        zq_i <= z_done_end;
        zq <= z_run_end;
        more <= more_next;
        w_slot <= 4'd0;
        z_slot <= 4'd0;
    end else if (clear) begin
{clear}    end
    if (take_w) begin
        wr_i <= wr_i_after;
        w_slot <= w_slot_after;
    end
    if (take_z) begin
        zr_i <= zr_i_after;
        z_slot <= z_slot_after;
    end
    if (restart) begin
{clear}    end
end",
            clear = CLEAR
        ))
    }
}

/// Every register 0 (a slice header, or the restart).
const CLEAR: &str = "        wq_i <= 16'd0;
        zq_i <= 16'd0;
        wr_i <= 16'd0;
        zr_i <= 16'd0;
        w_due <= 16'd0;
        z_due <= 16'd0;
        wq <= 10'd0;
        zq <= 16'd0;
        more <= 1'b0;
        bank <= 1'b0;
        w_slot <= 4'd0;
        z_slot <= 4'd0;
";

impl ChunkRegisters {
    fn clear_all(&mut self) {
        self.wq_i.next = 0.into();
        self.zq_i.next = 0.into();
        self.wr_i.next = 0.into();
        self.zr_i.next = 0.into();
        self.w_due.next = 0.into();
        self.z_due.next = 0.into();
        self.wq.next = 0.into();
        self.zq.next = 0.into();
        self.more.next = false;
        self.bank.next = false;
        self.w_slot.next = 0.into();
        self.z_slot.next = 0.into();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ChunkRegisters::default, "chunk_registers");
}
