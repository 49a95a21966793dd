//! Eight signed 9x9-bit products summed: the arithmetic of one Ethos-U65 dot-product lane group
//! (8-bit activations minus their zero point are 9-bit, TRM L5425-5462).
use rust_hdl::prelude::*;

/// `sum = Σ a[i]·b[i]` over the lanes `i` whose bit is set in `lanes`, with `a[i]` =
/// `a[9i+8:9i]` and `b[i]` likewise, all two's complement; exact in 21 bits (8 · 2^16).
/// Written as Verilog: rust-hdl multiplies only 16x16 bits and has no signed part-select.
#[derive(LogicBlock, Default)]
pub struct Dot8 {
    pub a: Signal<In, Bits<72>>,
    pub b: Signal<In, Bits<72>>,
    pub lanes: Signal<In, Bits<8>>,
    pub sum: Signal<Out, Bits<21>>,
}

impl Logic for Dot8 {
    fn update(&mut self) {
        let lane = |v: Bits<72>, i: usize| {
            let raw = (0..9).fold(0i64, |x, k| x | (i64::from(v.get_bit(9 * i + k)) << k));
            (raw << 55) >> 55
        };
        let sum: i64 = (0..8).filter(|&i| self.lanes.val().get_bit(i)).map(|i| lane(self.a.val(), i) * lane(self.b.val(), i)).sum();
        self.sum.next = ((sum as u64) & ((1 << 21) - 1)).into();
    }
    fn connect(&mut self) {
        self.sum.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "integer i;\n\
             reg signed [20:0] total;\n\
             always @(*) begin\n    \
                 total = 21'sd0;\n    \
                 for (i = 0; i < 8; i = i + 1)\n        \
                     if (lanes[i]) total = total + $signed(a[9*i +: 9]) * $signed(b[9*i +: 9]);\n    \
                 sum = total;\n\
             end"
                .into(),
        )
    }
}
