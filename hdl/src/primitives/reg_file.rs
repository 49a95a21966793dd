//! Register file: a memory with several write ports and combinational read ports.
use rust_hdl::prelude::*;

/// `2^A` words of `D` bits with `W` write ports and `R` read ports. On each rising edge, for
/// each write port `i` in order: `write_enable[i]` → `mem[write_address[i]] <= write_data[i]`
/// (a later port wins on equal addresses). `read_data[r]` is `mem[read_address[r]]` in the
/// same cycle, without a clock (the word before this cycle's write): for a block that reads,
/// changes and writes back one word in a cycle (NVDLA's CACC assembly buffer) or shows the
/// head of a queue without a cycle's delay, where [`super::Ram`]'s registered read would need
/// forwarding.
///
/// Why not a bank of `Reg`s with a mux: a 32-entry queue written at 4 places and read at 4
/// was 32 registers, 128 compare-and-write branches and 128 compare-and-select branches in
/// the generated C++, all evaluated every cycle; an array indexed by the address is one
/// statement per port (docs/ethos.md, "Verilated speed"). The words have no reset and start
/// from whatever the memory powered up with (in Verilator: random, `--x-initial unique`), so
/// a user must read only words it wrote since its reset, as the weight decoder's queues
/// (entries below the count), palette (entries below the palette size) and quotient banks
/// (slots the last unary step filled) do; its lock-step tests, run from random state, show it.
#[derive(LogicBlock)]
pub struct RegFile<const D: usize, const A: usize, const W: usize, const R: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: [Signal<In, Bit>; W],
    pub write_address: [Signal<In, Bits<A>>; W],
    pub write_data: [Signal<In, Bits<D>>; W],
    pub read_address: [Signal<In, Bits<A>>; R],
    pub read_data: [Signal<Out, Bits<D>>; R],
    _mem: Vec<Bits<D>>,
}

impl<const D: usize, const A: usize, const W: usize, const R: usize> Default for RegFile<D, A, W, R> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write_enable: std::array::from_fn(|_| Default::default()),
            write_address: std::array::from_fn(|_| Default::default()),
            write_data: std::array::from_fn(|_| Default::default()),
            read_address: std::array::from_fn(|_| Default::default()),
            read_data: std::array::from_fn(|_| Default::default()),
            _mem: vec![Bits::default(); 1 << A],
        }
    }
}

impl<const D: usize, const A: usize, const W: usize, const R: usize> Logic for RegFile<D, A, W, R> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            for i in 0..W {
                if self.write_enable[i].val() {
                    self._mem[self.write_address[i].val().index()] = self.write_data[i].val();
                }
            }
        }
        for r in 0..R {
            self.read_data[r].next = self._mem[self.read_address[r].val().index()];
        }
    }
    fn connect(&mut self) {
        for r in 0..R {
            self.read_data[r].connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let mut text = format!("reg [{}:0] mem [0:{}];\nalways @(*) begin\n", D - 1, (1usize << A) - 1);
        for r in 0..R {
            text += &format!("    read_data${r} = mem[read_address${r}];\n");
        }
        text += "end\nalways @(posedge clock) begin\n";
        for i in 0..W {
            text += &format!("    if (write_enable${i}) mem[write_address${i}] <= write_data${i};\n");
        }
        text += "end";
        Verilog::Custom(text)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(RegFile::<10, 5, 4, 4>::default, "reg_file");
}
