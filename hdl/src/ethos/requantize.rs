//! The output unit's arithmetic (TRM L1078-1152; digest §2): bias, scale, shift, rounding, zero
//! point and clamp, as two stages, each combinational or registered (the clocked forms compute
//! only in a cycle with their enable). The formulas and why are on the model,
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

/// Stage 1's arithmetic for rust-hdl's simulator: `(acc + bias) · scale`, as [`SCALED`].
fn scaled(acc: Bits<40>, bias: Bits<40>, scale: Bits<32>) -> Bits<74> {
    bits((signed(acc) + signed(bias)) * scale.index() as i128)
}

/// Stage 2's arithmetic for rust-hdl's simulator, as [`REQUANTIZED`].
fn requantized(product: Bits<74>, shift: Bits<6>, rounding: Bits<2>, zero_point: Bits<16>, act_min: Bits<16>, act_max: Bits<16>) -> Bits<16> {
    let (p, shift) = (signed(product), shift.index() as u32);
    let half = if shift == 0 { 0 } else { 1i128 << (shift - 1) };
    let rounded = match rounding.index() {
        1 => p.signum() * (p.abs() >> shift),
        0 if shift > 31 => {
            let (high, extra) = ((p + (1 << 30)) >> 31, shift - 31);
            let mask = (1i128 << extra) - 1;
            (high >> extra) + i128::from((high & mask) > (mask >> 1) + i128::from(high < 0))
        }
        _ => (p + half) >> shift,
    };
    bits((rounded + signed(zero_point)).clamp(signed(act_min), signed(act_max)))
}

/// Stage 1 in Verilog, a function so that the combinational [`ScaleProduct`] and the clocked
/// [`ScaleProductReg`] share it. Its arguments are not named as the blocks' ports (a function
/// argument that hides a port is a lint warning).
const SCALED: &str = "\
// (a + b) * s: int40 + int40, times uint32; exact in 74 bits.
function automatic [73:0] scaled(input [39:0] a, input [39:0] b, input [31:0] s);
    reg signed [41:0] v;
    begin
        v = {{2{a[39]}}, a} + {{2{b[39]}}, b};
        scaled = v * $signed({1'b0, s});
    end
endfunction";

/// Stage 2 in Verilog, shared as [`SCALED`] is: `p / 2^n` rounded by `mode`, plus `zp`,
/// clamped to `[lo, hi]`.
const REQUANTIZED: &str = "\
// p / 2^n rounded by mode (0 TFL, 1 truncate, 2 and 3 natural), + zp, clamped to [lo, hi].
function automatic [15:0] requantized(input signed [73:0] p, input [5:0] n, input [1:0] mode,
                                       input [15:0] zp, input [15:0] lo, input [15:0] hi);
    reg signed [73:0] half;
    reg signed [73:0] high;
    reg signed [73:0] mask;
    reg signed [73:0] threshold;
    reg signed [73:0] rounded;
    reg signed [73:0] shifted;
    reg [5:0] extra;
    begin
        half = (n == 6'd0) ? 74'sd0 : (74'sd1 <<< (n - 6'd1));
        if (mode == 2'd1) begin
            rounded = p[73] ? -((-p) >>> n) : (p >>> n);
        end else if (mode == 2'd0 && n > 6'd31) begin
            extra = n - 6'd31;
            high = (p + (74'sd1 <<< 30)) >>> 31;
            mask = (74'sd1 <<< extra) - 74'sd1;
            threshold = (mask >>> 1) + $signed({73'd0, high[73]});
            rounded = (high >>> extra) + $signed({73'd0, ((high & mask) > threshold)});
        end else begin
            rounded = (p + half) >>> n;
        end
        shifted = rounded + $signed({{58{zp[15]}}, zp});
        if (shifted < $signed({{58{lo[15]}}, lo})) requantized = lo;
        else if (shifted > $signed({{58{hi[15]}}, hi})) requantized = hi;
        else requantized = shifted[15:0];
    end
endfunction";

/// Stage 1: `product = (acc + bias) · scale`, with `acc` and `bias` int40 and `scale` uint32;
/// exact in 74 bits, while `enable`, else 0. Written as Verilog: rust-hdl multiplies only
/// 16x16 bits. `enable` is a branch in its process, so Verilator computes the product only in
/// the cycles whose user takes it (the kernel unit's calculation state; docs/ethos.md,
/// "Verilated speed", "NPU top" step).
#[derive(LogicBlock, Default)]
pub struct ScaleProduct {
    pub enable: Signal<In, Bit>,
    pub acc: Signal<In, Bits<40>>,
    pub bias: Signal<In, Bits<40>>,
    pub scale: Signal<In, Bits<32>>,
    pub product: Signal<Out, Bits<74>>,
}

impl Logic for ScaleProduct {
    fn update(&mut self) {
        self.product.next = if self.enable.val() { scaled(self.acc.val(), self.bias.val(), self.scale.val()) } else { Bits::default() };
    }
    fn connect(&mut self) {
        self.product.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!("{SCALED}\nalways @(*) begin\n    if (enable) product = scaled(acc, bias, scale);\n    else product = 74'd0;\nend"))
    }
}

/// Stage 1 as a register: on a rising edge, `product <= (acc + bias) · scale` while `enable`
/// (else it keeps its value), 0 while `reset`. The product is computed inside the register's
/// clocked process, so Verilator computes it only in a cycle with `enable` (the output unit's
/// valid), where [`ScaleProduct`] before a register computed it every cycle (docs/ethos.md,
/// "Verilated speed", eighth step).
#[derive(LogicBlock, Default)]
pub struct ScaleProductReg {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub acc: Signal<In, Bits<40>>,
    pub bias: Signal<In, Bits<40>>,
    pub scale: Signal<In, Bits<32>>,
    pub product: Signal<Out, Bits<74>>,
}

impl Logic for ScaleProductReg {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.product.next = Bits::default();
            } else if self.enable.val() {
                self.product.next = scaled(self.acc.val(), self.bias.val(), self.scale.val());
            }
        }
    }
    fn connect(&mut self) {
        self.product.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{SCALED}\nalways @(posedge clock) begin\n    if (reset) product <= 74'd0;\n    \
             else if (enable) product <= scaled(acc, bias, scale);\nend"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "scale_product_reg".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "acc", "bias", "scale"].map(String::from).to_vec(),
            outputs: vec!["product".into()],
        }]
    }
}

/// Stage 2: `product / 2^shift` rounded by `rounding` (0 TFL, 1 truncate, 2 natural; 3, which
/// the TRM does not define, rounds as 2), plus `zero_point`, clamped to `[act_min, act_max]`
/// (int16 each), while `enable`, else 0 (a branch, as [`ScaleProduct`]'s). The arithmetic is
/// Verilog for exact signed widths and shifts.
#[derive(LogicBlock, Default)]
pub struct Requantize {
    pub enable: Signal<In, Bit>,
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
        self.value.next = if self.enable.val() {
            requantized(
                self.product.val(),
                self.shift.val(),
                self.rounding.val(),
                self.zero_point.val(),
                self.act_min.val(),
                self.act_max.val(),
            )
        } else {
            Bits::default()
        };
    }
    fn connect(&mut self) {
        self.value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{REQUANTIZED}\nalways @(*) begin\n    if (enable) value = requantized(product, shift, rounding, zero_point, act_min, act_max);\n    else value = 16'd0;\nend"
        ))
    }
}

/// Stage 2 as a register: on a rising edge, `value <=` [`Requantize`]'s value while `enable`
/// (else it keeps its value), 0 while `reset`; computed only in a cycle with `enable`, as
/// [`ScaleProductReg`] is.
#[derive(LogicBlock, Default)]
pub struct RequantizeReg {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub product: Signal<In, Bits<74>>,
    pub shift: Signal<In, Bits<6>>,
    pub rounding: Signal<In, Bits<2>>,
    pub zero_point: Signal<In, Bits<16>>,
    pub act_min: Signal<In, Bits<16>>,
    pub act_max: Signal<In, Bits<16>>,
    pub value: Signal<Out, Bits<16>>,
}

impl Logic for RequantizeReg {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.value.next = Bits::default();
            } else if self.enable.val() {
                self.value.next = requantized(
                    self.product.val(),
                    self.shift.val(),
                    self.rounding.val(),
                    self.zero_point.val(),
                    self.act_min.val(),
                    self.act_max.val(),
                );
            }
        }
    }
    fn connect(&mut self) {
        self.value.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{REQUANTIZED}\nalways @(posedge clock) begin\n    if (reset) value <= 16'd0;\n    \
             else if (enable) value <= requantized(product, shift, rounding, zero_point, act_min, act_max);\nend"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "requantize_reg".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "product", "shift", "rounding", "zero_point", "act_min", "act_max"].map(String::from).to_vec(),
            outputs: vec!["value".into()],
        }]
    }
}
