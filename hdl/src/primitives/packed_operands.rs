//! One dot-product unit's operands in the packed depthwise mapping (Ethos-U65, issue 19;
//! docs/ethos.md, "Depthwise tap packing"): lane `l` (`l < 6`) of `act` is `a{l}` and lane
//! `l` of `w` is `k{l}` (9-bit operands), lanes 6 and 7 zero. Verilog: rust-hdl has no
//! concatenation.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PackedOperands {
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
    pub act: Signal<Out, Bits<72>>,
    pub w: Signal<Out, Bits<72>>,
}

impl Logic for PackedOperands {
    fn update(&mut self) {
        let gather = |lanes: [Bits<9>; 6]| {
            let mut word: Bits<72> = Bits::default();
            for (l, lane) in lanes.iter().enumerate() {
                word = word | (bit_cast::<72, 9>(*lane) << (9 * l as u64));
            }
            word
        };
        self.act.next = gather([self.a0.val(), self.a1.val(), self.a2.val(), self.a3.val(), self.a4.val(), self.a5.val()]);
        self.w.next = gather([self.k0.val(), self.k1.val(), self.k2.val(), self.k3.val(), self.k4.val(), self.k5.val()]);
    }
    fn connect(&mut self) {
        self.act.connect();
        self.w.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(*) begin\n    act = {18'd0, a5, a4, a3, a2, a1, a0};\n    w = {18'd0, k5, k4, k3, k2, k1, k0};\nend".into(),
        )
    }
}
