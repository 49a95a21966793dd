//! Register with a synchronous reset and a clock enable.
use rust_hdl::prelude::*;

/// A register of `T`: on each rising edge of `clock` it takes `init` while `reset` is high,
/// else `d` while `enable` is high, else keeps its value.
///
/// [`super::Reg`] holds a value by driving `d` from `q`, which puts the choice in the
/// combinational logic of the block that drives `d`; here it is in the register's own clocked
/// process. The Ethos convolution datapath's `hold` is such an enable: with it here, the
/// logic that computes the registers' next values reads registers only, so Verilator
/// evaluates it once a cycle instead of on every change of the inputs (docs/ethos.md,
/// "Verilated speed").
#[derive(LogicBlock)]
pub struct RegEn<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    init: Constant<T>,
}

impl<T: Synth> RegEn<T> {
    pub fn new(init: T) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            d: Default::default(),
            q: Default::default(),
            init: Constant::new(init),
        }
    }
}

impl<T: Synth> Default for RegEn<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: Synth> Logic for RegEn<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.q.next = self.init.val();
            } else if self.enable.val() {
                self.q.next = self.d.val();
            }
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(posedge clock) begin\n    if (reset) q <= init;\n    else if (enable) q <= d;\nend".into(),
        )
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reg_en".into(),
            clock: "clock".into(),
            inputs: vec!["d".into(), "reset".into(), "enable".into()],
            outputs: vec!["q".into()],
        }]
    }
}
