//! One of the weight decoder's two quotient memories (weights, zero runs; TRM §4.7, digest
//! `shared/spec/ethos-u65.md` §1.6): bank b, slot s at address 16 b + s, slots 0-11 of each
//! bank (slots 12-15 hold nothing and read 0: `RemainderGroup` never uses them). 12 write
//! ports, one per unary position, all taken in a committed unary step (`commit`), and 4 read
//! ports, read only while the parser reads the banks (`read`; 0 otherwise).
//!
//! Why not a `RegFile`: an indexed memory costs the Verilated model, every cycle, each write
//! port's enable, address and data defaults, and Verilator's commit flag of each array write
//! (set to 0, then tested: 24 of each in the decoder), though the banks are written only in a
//! committed unary step. Here the 24 words are registers of one clocked process, written
//! under `commit` alone, and the reads are under `read`, so that an idle decoder (the NPU
//! mostly runs networks that do not convolve) costs two tests (issue 19).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use rust_hdl::prelude::*;

/// Words 0-11 and 16-27 are kept.
fn kept(address: usize) -> bool {
    address % 16 < 12
}

#[derive(LogicBlock)]
pub struct QuotientMemory<const D: usize> {
    pub clock: Signal<In, Clock>,
    /// The unary step commits: port i writes `data[i]` at `address[i]` if bit i of `write` is set.
    pub commit: Signal<In, Bit>,
    pub write: Signal<In, Bits<12>>,
    pub address: [Signal<In, Bits<5>>; 12],
    pub data: [Signal<In, Bits<D>>; 12],
    /// The parser reads the banks (its unary and remainder states): `read_data[j]` is the word
    /// at `read_address[j]` then, 0 otherwise.
    pub read: Signal<In, Bit>,
    pub read_address: [Signal<In, Bits<5>>; 4],
    pub read_data: [Signal<Out, Bits<D>>; 4],
    _mem: Vec<Bits<D>>,
}

impl<const D: usize> Default for QuotientMemory<D> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            commit: Default::default(),
            write: Default::default(),
            address: Default::default(),
            data: Default::default(),
            read: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: vec![Bits::default(); 32],
        }
    }
}

impl<const D: usize> Logic for QuotientMemory<D> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.commit.val() {
            for i in 0..12 {
                let a = self.address[i].val().index();
                if self.write.val().get_bit(i) && kept(a) {
                    self._mem[a] = self.data[i].val();
                }
            }
        }
        for j in 0..4 {
            let a = self.read_address[j].val().index();
            self.read_data[j].next = if self.read.val() && kept(a) { self._mem[a] } else { Bits::default() };
        }
    }
    fn connect(&mut self) {
        for j in 0..4 {
            self.read_data[j].connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let words: Vec<usize> = (0..32).filter(|&a| kept(a)).collect();
        let mut text = String::new();
        for &a in &words {
            text += &format!("reg [{}:0] m{a};\n", D - 1);
        }
        text += "always @(posedge clock) begin\n    if (commit) begin\n";
        for i in 0..12 {
            text += &format!("        if (write[{i}]) begin\n            case (address${i})\n");
            for &a in &words {
                text += &format!("                5'd{a}: m{a} <= data${i};\n");
            }
            text += "                default: ;\n            endcase\n        end\n";
        }
        text += "    end\nend\nalways @(*) begin\n";
        for j in 0..4 {
            text += &format!("    read_data${j} = {D}'d0;\n");
        }
        text += "    if (read) begin\n";
        for j in 0..4 {
            text += &format!("        case (read_address${j})\n");
            for &a in &words {
                text += &format!("            5'd{a}: read_data${j} = m{a};\n");
            }
            text += &format!("            default: read_data${j} = {D}'d0;\n        endcase\n");
        }
        text += "    end\nend";
        Verilog::Custom(text)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(QuotientMemory::<10>::default, "quotient_memory");
}
