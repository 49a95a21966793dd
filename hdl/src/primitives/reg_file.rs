//! Single-clock register file with a combinational read port.
use rust_hdl::prelude::*;

/// `2^A` words of `D` bits. On each rising edge `write_enable` → `mem[write_address] <=
/// write_data`; `read_data` is `mem[read_address]` in the same cycle (the word before this
/// cycle's write). For a block that reads, changes and writes back one word in one cycle
/// (NVDLA's CACC assembly buffer) or shows the head of a queue without a cycle's delay:
/// [`super::Ram`]'s registered read would need forwarding for both. No reset, no `initial`
/// block: a word reads what was written into it; before that, whatever it powered up with.
#[derive(LogicBlock)]
pub struct RegFile<const D: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<D>>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<D>>,
    _mem: Vec<Bits<D>>,
}

impl<const D: usize, const A: usize> Default for RegFile<D, A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: vec![Bits::default(); 1 << A],
        }
    }
}

impl<const D: usize, const A: usize> Logic for RegFile<D, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            self._mem[self.write_address.val().index()] = self.write_data.val();
        }
        self.read_data.next = self._mem[self.read_address.val().index()];
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "reg [{msb}:0] mem [0:{last}];\n\
             always @(posedge clock) if (write_enable) mem[write_address] <= write_data;\n\
             always @(*) read_data = mem[read_address];",
            msb = D - 1,
            last = (1usize << A) - 1,
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reg_file".into(),
            clock: "clock".into(),
            inputs: ["write_enable", "write_address", "write_data"].map(String::from).into(),
            outputs: vec![],
        }]
    }
}
