//! A register with a synchronous reset, a clock enable and a choice of two data inputs, made for
//! the kernel unit's wide registers whose next value is one of two (issue 19).
use rust_hdl::prelude::*;

/// A register of `T`: on each rising edge of `clock` it takes `init` while `reset` is high,
/// else, while `enable` is high, `d1` if `select` else `d0`; else it keeps its value.
///
/// Why not [`crate::primitives::RegEn`] with the choice in the driving block: there the choice
/// is a copy of the whole value in the combinational logic on every `eval` (Verilator runs the
/// kernel unit's logic that reads the memory's response on each of the bridge's evals), here
/// only `enable` and `select` are, the copy in the clocked process in the cycles it loads.
#[derive(LogicBlock)]
pub struct RegSelect<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub select: Signal<In, Bit>,
    pub d0: Signal<In, T>,
    pub d1: Signal<In, T>,
    pub q: Signal<Out, T>,
    init: Constant<T>,
}

impl<T: Synth> Default for RegSelect<T> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            select: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            q: Default::default(),
            init: Constant::new(T::default()),
        }
    }
}

impl<T: Synth> Logic for RegSelect<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.q.next = self.init.val();
            } else if self.enable.val() {
                self.q.next = if self.select.val() { self.d1.val() } else { self.d0.val() };
            }
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(posedge clock) begin\n    if (reset) q <= init;\n    else if (enable) q <= select ? d1 : d0;\nend".into(),
        )
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reg_select".into(),
            clock: "clock".into(),
            inputs: vec!["d0".into(), "d1".into(), "select".into(), "reset".into(), "enable".into()],
            outputs: vec!["q".into()],
        }]
    }
}
