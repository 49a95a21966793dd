//! One dot-product unit's operands in the packed depthwise mapping (Ethos-U65, issue 19;
//! docs/ethos.md, "Depthwise tap packing"): lane `l` (`l < 6`) of `act` is `a{l}` and lane
//! `l` of `w` is `k{l}` (9-bit operands), six lanes (the unit's lanes 6 and 7 are 0 in the
//! packed mapping and are not carried), when `enable`; else both words are 0. Verilog: rust-hdl has no concatenation. The enable is the packed cycle: the words are
//! used in no other cycle, and forming 32 pairs of them from the ports every cycle was
//! input-region work in Verilator (docs/ethos.md, "Verilated speed", twelfth step).
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PackedOperands {
    pub enable: Signal<In, Bit>,
    pub a0: Signal<In, Bits<9>>,
    pub a1: Signal<In, Bits<9>>,
    pub a2: Signal<In, Bits<9>>,
    pub a3: Signal<In, Bits<9>>,
    pub a4: Signal<In, Bits<9>>,
    pub a5: Signal<In, Bits<9>>,
    pub k0: Signal<In, Bits<9>>,
    pub k1: Signal<In, Bits<9>>,
    pub k2: Signal<In, Bits<9>>,
    pub k3: Signal<In, Bits<9>>,
    pub k4: Signal<In, Bits<9>>,
    pub k5: Signal<In, Bits<9>>,
    pub act: Signal<Out, Bits<54>>,
    pub w: Signal<Out, Bits<54>>,
}

impl Logic for PackedOperands {
    fn update(&mut self) {
        let gather = |lanes: [Bits<9>; 6]| {
            let mut word: Bits<54> = Bits::default();
            for (l, lane) in lanes.iter().enumerate() {
                word = word | (bit_cast::<54, 9>(*lane) << (9 * l as u64));
            }
            word
        };
        self.act.next = Bits::default();
        self.w.next = Bits::default();
        if self.enable.val() {
            self.act.next = gather([self.a0.val(), self.a1.val(), self.a2.val(), self.a3.val(), self.a4.val(), self.a5.val()]);
            self.w.next = gather([self.k0.val(), self.k1.val(), self.k2.val(), self.k3.val(), self.k4.val(), self.k5.val()]);
        }
    }
    fn connect(&mut self) {
        self.act.connect();
        self.w.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(*) begin\n    if (enable) begin\n        act = {a5, a4, a3, a2, a1, a0};\n        w = {k5, k4, k3, k2, k1, k0};\n    end\n    else begin\n        act = 54'd0;\n        w = 54'd0;\n    end\nend".into(),
        )
    }
}
