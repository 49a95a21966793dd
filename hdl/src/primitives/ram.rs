//! Single-clock memory with a registered, resettable read port.
use rust_hdl::prelude::*;

/// `2^A` words of `D` bits. On each rising edge: `write_enable` → `mem[write_address] <=
/// write_data`; `reset` → `read_data <= 0`, else `read_enable` → `read_data <=
/// mem[read_address]` (the old word when both addresses are equal).
///
/// rust-hdl's `RAM` reads every cycle into an unreset register, so after reset its output
/// would be whatever the memory powered up with. Here the read register resets and only reads
/// when asked, and the memory array itself has no reset and no `initial` block: the shape
/// that FPGA tools map to block RAM with an output-register reset.
#[derive(LogicBlock)]
pub struct Ram<const D: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<D>>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<D>>,
    _mem: Vec<Bits<D>>,
}

impl<const D: usize, const A: usize> Default for Ram<D, A> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: vec![Bits::default(); 1 << A],
        }
    }
}

impl<const D: usize, const A: usize> Logic for Ram<D, A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.read_data.next = Bits::default();
            } else if self.read_enable.val() {
                self.read_data.next = self._mem[self.read_address.val().index()];
            }
            if self.write_enable.val() {
                self._mem[self.write_address.val().index()] = self.write_data.val();
            }
        }
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "reg [{msb}:0] mem [0:{last}];\n\
             always @(posedge clock) begin\n    \
                 if (write_enable) mem[write_address] <= write_data;\n    \
                 if (reset) read_data <= {D}'h0;\n    \
                 else if (read_enable) read_data <= mem[read_address];\n\
             end",
            msb = D - 1,
            last = (1usize << A) - 1,
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "ram".into(),
            clock: "clock".into(),
            inputs: ["reset", "write_enable", "write_address", "write_data", "read_enable", "read_address"].map(String::from).into(),
            outputs: vec!["read_data".into()],
        }]
    }
}
