//! Register with a synchronous reset.
use rust_hdl::prelude::*;

/// A register of `T`: on each rising edge of `clock` it takes `init` while `reset` is high,
/// otherwise `d`.
///
/// rust-hdl's `DFF` has no reset port and sets its power-up value with an `initial` block,
/// which neither an ASIC nor most FPGA flows honour. Every register in this project is a
/// `Reg`, so every state bit has a defined value after the block's reset, and the
/// co-simulation can prove it by starting Verilator from random state (`--x-initial unique`).
/// Hold a value by driving `d` from `q` (`dff_setup!` does that).
#[derive(LogicBlock)]
pub struct Reg<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    init: Constant<T>,
}

impl<T: Synth> Reg<T> {
    pub fn new(init: T) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            d: Default::default(),
            q: Default::default(),
            init: Constant::new(init),
        }
    }
}

impl<T: Synth> Default for Reg<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: Synth> Logic for Reg<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = if self.reset.val() { self.init.val() } else { self.d.val() };
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(posedge clock) begin\n    if (reset) q <= init;\n    else q <= d;\nend".into(),
        )
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reg".into(),
            clock: "clock".into(),
            inputs: vec!["d".into(), "reset".into()],
            outputs: vec!["q".into()],
        }]
    }
}
