//! The storage of one of the weight decoder's 32-entry queues (TRM §4.7; digest
//! `shared/spec/ethos-u65.md` §1.6): up to 4 entries pushed a cycle at the tail (`data[j]` at
//! `tail + j` for `j < count`, under `push`), the 4 entries from the head read while the
//! emitter reads them (`read`; 0 otherwise).
//!
//! Why not a `RegFile`: an indexed memory costs the Verilated model, every cycle, each write
//! port's enable, address and data defaults and Verilator's commit flag of each array write
//! (set to 0, then tested), though the parser pushes in few cycles (none while the decoder
//! idles, as it mostly does in the NPU; one in many while the emitter pays out a long zero
//! run). Here the 32 entries are registers of one clocked process, written under `push`
//! alone, and the reads are under `read`, so that the Verilated model skips both when
//! unused (issue 19). Entries at and beyond the count are never used (`WeightEmitter`
//! looks at its `have_*` first), so the storage needs no reset.
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct QueueMemory<const D: usize> {
    pub clock: Signal<In, Clock>,
    pub push: Signal<In, Bit>,
    pub count: Signal<In, Bits<3>>,
    pub tail: Signal<In, Bits<5>>,
    pub data: [Signal<In, Bits<D>>; 4],
    pub read: Signal<In, Bit>,
    pub head: Signal<In, Bits<5>>,
    pub read_data: [Signal<Out, Bits<D>>; 4],
    _mem: Vec<Bits<D>>,
}

impl<const D: usize> Default for QueueMemory<D> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            push: Default::default(),
            count: Default::default(),
            tail: Default::default(),
            data: Default::default(),
            read: Default::default(),
            head: Default::default(),
            read_data: Default::default(),
            _mem: vec![Bits::default(); 32],
        }
    }
}

impl<const D: usize> Logic for QueueMemory<D> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.push.val() {
            for j in 0..4 {
                if j < self.count.val().index() {
                    self._mem[(self.tail.val().index() + j) % 32] = self.data[j].val();
                }
            }
        }
        for j in 0..4 {
            self.read_data[j].next =
                if self.read.val() { self._mem[(self.head.val().index() + j) % 32] } else { Bits::default() };
        }
    }
    fn connect(&mut self) {
        for j in 0..4 {
            self.read_data[j].connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let mut text = String::new();
        for e in 0..32 {
            text += &format!("reg [{}:0] m{e};\n", D - 1);
        }
        text += "always @(posedge clock) begin\n    if (push) begin\n";
        for j in 0..4 {
            text += &format!("        if (count > 3'd{j}) begin\n            case (tail + 5'd{j})\n");
            for e in 0..32 {
                text += &format!("                5'd{e}: m{e} <= data${j};\n");
            }
            text += "            endcase\n        end\n";
        }
        text += "    end\nend\nalways @(*) begin\n";
        for j in 0..4 {
            text += &format!("    read_data${j} = {D}'d0;\n");
        }
        text += "    if (read) begin\n";
        for j in 0..4 {
            text += &format!("        case (head + 5'd{j})\n");
            for e in 0..32 {
                text += &format!("            5'd{e}: read_data${j} = m{e};\n");
            }
            text += "        endcase\n";
        }
        text += "    end\nend";
        Verilog::Custom(text)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(QueueMemory::<10>::default, "queue_memory");
}
