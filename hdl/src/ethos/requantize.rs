//! The output unit's arithmetic (TRM L1078-1152; digest §2): bias, scale, shift, rounding, zero
//! point and clamp, as two combinational stages. The formulas and why are on the model,
//! `npu_model::ethos::output_unit` (`apply_scale`, `output`); `hdl/src/ethos/output_unit.rs`
//! pipelines these stages.
use rust_hdl::prelude::*;

/// The low `N` bits of `value` (two's complement) as `Bits<N>`.
fn bits<const N: usize>(value: i128) -> Bits<N> {
    (0..N).fold(Bits::default(), |b, i| b.replace_bit(i, (value >> i) & 1 == 1))
}

/// `Bits<N>` read as two's complement.
fn signed<const N: usize>(b: Bits<N>) -> i128 {
    let raw = (0..N).fold(0i128, |v, i| v | (i128::from(b.get_bit(i)) << i));
    (raw << (128 - N)) >> (128 - N)
}

/// Stage 1: `product = (acc + bias) · scale`, with `acc` and `bias` int40 and `scale` uint32;
/// exact in 74 bits. Written as Verilog: rust-hdl multiplies only 16x16 bits.
#[derive(LogicBlock, Default)]
pub struct ScaleProduct {
    pub acc: Signal<In, Bits<40>>,
    pub bias: Signal<In, Bits<40>>,
    pub scale: Signal<In, Bits<32>>,
    pub product: Signal<Out, Bits<74>>,
}

impl Logic for ScaleProduct {
    fn update(&mut self) {
        let value = signed(self.acc.val()) + signed(self.bias.val());
        self.product.next = bits(value * self.scale.val().index() as i128);
    }
    fn connect(&mut self) {
        self.product.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire signed [41:0] value = {{2{acc[39]}}, acc} + {{2{bias[39]}}, bias};\n\
             always @(*) product = value * $signed({1'b0, scale});"
                .into(),
        )
    }
}

/// Stage 2: `product / 2^shift` rounded by `rounding` (0 TFL, 1 truncate, 2 natural; 3, which
/// the TRM does not define, rounds as 2), plus `zero_point`, clamped to `[act_min, act_max]`
/// (int16 each). The arithmetic is Verilog for exact signed widths and shifts.
#[derive(LogicBlock, Default)]
pub struct Requantize {
    pub product: Signal<In, Bits<74>>,
    pub shift: Signal<In, Bits<6>>,
    pub rounding: Signal<In, Bits<2>>,
    pub zero_point: Signal<In, Bits<16>>,
    pub act_min: Signal<In, Bits<16>>,
    pub act_max: Signal<In, Bits<16>>,
    pub value: Signal<Out, Bits<16>>,
}

impl Logic for Requantize {
    fn update(&mut self) {
        let (p, shift) = (signed(self.product.val()), self.shift.val().index() as u32);
        let half = if shift == 0 { 0 } else { 1i128 << (shift - 1) };
        let rounded = match self.rounding.val().index() {
            1 => p.signum() * (p.abs() >> shift),
            0 if shift > 31 => {
                let (high, extra) = ((p + (1 << 30)) >> 31, shift - 31);
                let mask = (1i128 << extra) - 1;
                (high >> extra) + i128::from((high & mask) > (mask >> 1) + i128::from(high < 0))
            }
            _ => (p + half) >> shift,
        };
        let offset = rounded + signed(self.zero_point.val());
        self.value.next = bits(offset.clamp(signed(self.act_min.val()), signed(self.act_max.val())));
    }
    fn connect(&mut self) {
        self.value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "reg signed [73:0] p;\n\
             reg signed [73:0] half;\n\
             reg signed [73:0] high;\n\
             reg signed [73:0] mask;\n\
             reg signed [73:0] threshold;\n\
             reg signed [73:0] rounded;\n\
             reg signed [73:0] shifted;\n\
             reg [5:0] extra;\n\
             always @(*) begin\n    \
                 p = product;\n    \
                 half = (shift == 6'd0) ? 74'sd0 : (74'sd1 <<< (shift - 6'd1));\n    \
                 high = 74'sd0;\n    \
                 mask = 74'sd0;\n    \
                 threshold = 74'sd0;\n    \
                 extra = 6'd0;\n    \
                 rounded = 74'sd0;\n    \
                 if (rounding == 2'd1) begin\n        \
                     rounded = p[73] ? -((-p) >>> shift) : (p >>> shift);\n    \
                 end else if (rounding == 2'd0 && shift > 6'd31) begin\n        \
                     extra = shift - 6'd31;\n        \
                     high = (p + (74'sd1 <<< 30)) >>> 31;\n        \
                     mask = (74'sd1 <<< extra) - 74'sd1;\n        \
                     threshold = (mask >>> 1) + $signed({73'd0, high[73]});\n        \
                     rounded = (high >>> extra) + $signed({73'd0, ((high & mask) > threshold)});\n    \
                 end else begin\n        \
                     rounded = (p + half) >>> shift;\n    \
                 end\n    \
                 shifted = rounded + $signed({{58{zero_point[15]}}, zero_point});\n    \
                 if (shifted < $signed({{58{act_min[15]}}, act_min})) value = act_min;\n    \
                 else if (shifted > $signed({{58{act_max[15]}}, act_max})) value = act_max;\n    \
                 else value = shifted[15:0];\n\
             end"
                .into(),
        )
    }
}
