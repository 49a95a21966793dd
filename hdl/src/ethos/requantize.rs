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

/// Stage 1's arithmetic for rust-hdl's simulator, as [`SCALED_PARTS`]: `(acc + bias) · scale`
/// as its bits 73:16 (signed, the floor of the product / 2^16; 58 bits) and its bits 15:0,
/// from two products by the 16-bit halves of `scale`, no value wider than 64 bits.
pub(super) fn scaled_parts(acc: Bits<40>, bias: Bits<40>, scale: Bits<32>) -> (Bits<58>, Bits<16>) {
    let v = signed(acc) as i64 + signed(bias) as i64;
    let scale = scale.index() as i64;
    let low = v * (scale & 0xffff);
    (bits((v * (scale >> 16) + (low >> 16)).into()), bits(low.into()))
}

/// The 74-bit product of [`scaled_parts`], as [`SCALED`].
fn scaled(acc: Bits<40>, bias: Bits<40>, scale: Bits<32>) -> Bits<74> {
    let (high, low) = scaled_parts(acc, bias, scale);
    bits((signed(high) << 16) | low.index() as i128)
}

/// Stage 2's arithmetic for rust-hdl's simulator, as [`REQUANTIZED_PARTS`], on the product
/// `p = high · 2^16 + low` (`high` signed, `low` unsigned 16 bits), no value wider than 64
/// bits. Every rounding is a floor division `(p + c) / 2^m`: `c` is `2^(n-1)` for the natural
/// rounding, `2^n - 1` for a negative `p` truncated (toward zero), `2^30` with `m = 31` for the
/// first rounding of TFL's shift past 31. With `c = c_high · 2^16 + c_low`, `p + c = w · 2^16 +
/// (low + c_low) mod 2^16` with `w = high + c_high + carry`; for `m >= 16` the quotient is
/// `w >> (m - 16)`, for `m < 16` it is `w · 2^(16-m) + ((low + c_low) mod 2^16) >> m`, with `w`
/// saturated to `±2^40` first (its quotient is then past every int16 either way, and clamps as
/// the exact one does).
fn requantized_parts(high: i64, low: u64, shift: u32, rounding: u64, zero_point: i64, act_min: i64, act_max: i64) -> i64 {
    let tfl_high = rounding == 0 && shift > 31;
    let (m, c_high, c_low) = if tfl_high {
        (31, 1i64 << 14, 0u64)
    } else if rounding == 1 {
        match (high < 0, shift >= 16) {
            (false, _) => (shift, 0, 0),
            (true, true) => (shift, (1i64 << (shift - 16)) - 1, 0xffff),
            (true, false) => (shift, 0, (1u64 << shift) - 1),
        }
    } else {
        let c_high = if shift >= 17 { 1i64 << (shift - 17) } else { 0 };
        let c_low = if (1..=16).contains(&shift) { 1u64 << (shift - 1) } else { 0 };
        (shift, c_high, c_low)
    };
    let sum_low = low + c_low;
    let w = high + c_high + (sum_low >> 16) as i64;
    let q = if m >= 16 {
        w >> (m - 16)
    } else {
        (w.clamp(-(1 << 40), 1 << 40) << (16 - m)) + ((sum_low & 0xffff) >> m) as i64
    };
    let rounded = if tfl_high {
        let extra = shift - 31;
        let mask = (1i64 << extra) - 1;
        (q >> extra) + i64::from((q & mask) > (mask >> 1) + i64::from(q < 0))
    } else {
        q
    };
    let shifted = rounded + zero_point;
    // As the Verilog's comparisons (no panic when `act_min > act_max`, as `clamp` would).
    if shifted < act_min {
        act_min
    } else if shifted > act_max {
        act_max
    } else {
        shifted
    }
}

/// [`requantized_parts`] on `Bits`, for [`RequantizeReg`].
pub(super) fn requantized_bits(high: Bits<58>, low: Bits<16>, shift: Bits<6>, rounding: Bits<2>, zero_point: Bits<16>, act_min: Bits<16>, act_max: Bits<16>) -> Bits<16> {
    let value = requantized_parts(
        signed(high) as i64,
        low.index() as u64,
        shift.index() as u32,
        rounding.index() as u64,
        signed(zero_point) as i64,
        signed(act_min) as i64,
        signed(act_max) as i64,
    );
    bits(value.into())
}

/// Stage 2 on the 74-bit product, as [`REQUANTIZED`].
fn requantized(product: Bits<74>, shift: Bits<6>, rounding: Bits<2>, zero_point: Bits<16>, act_min: Bits<16>, act_max: Bits<16>) -> Bits<16> {
    let p = signed(product);
    requantized_bits(bits(p >> 16), bits(p), shift, rounding, zero_point, act_min, act_max)
}

/// Stage 1 in Verilog, functions so that the combinational [`ScaleProduct`] (through
/// [`SCALED`]) and the clocked [`ScaleProductReg`] share them. No value is wider than 64 bits:
/// Verilator computes wider ones with slow helper calls (docs/ethos.md, "Verilated speed",
/// thirteenth step). The arguments are not named as the blocks' ports (a function argument that
/// hides a port is a lint warning). The high part is the product's 58 bits 73:16, computed in
/// 58-bit words (in 64-bit ones, bits 63:58 would be only the sign, unused where [`SCALED`]
/// joins the parts: a `-Wall` warning); the register's reader, [`RequantizeReg`],
/// sign-extends it to 64 bits at its call.
macro_rules! scaled_parts {
    () => {
        "\
// (a + b) * s, int40 + int40 times uint32, exact in 74 bits: its bits 73:16 (signed) from the
// products of a + b by the 16-bit halves of s, each at most 58 bits.
// In 58-bit words: a + b is 41 bits, each product 57, their sum 58 (all exact).
function automatic [57:0] scaled_high(input [39:0] a, input [39:0] b, input [31:0] s);
    reg signed [57:0] v;
    reg signed [57:0] low;
    reg signed [57:0] high;
    begin
        v = $signed({{18{a[39]}}, a}) + $signed({{18{b[39]}}, b});
        low = v * $signed({42'd0, s[15:0]});
        high = v * $signed({42'd0, s[31:16]}) + (low >>> 16);
        scaled_high = high;
    end
endfunction
// Its bits 15:0, those of the low 16 bits of a + b times those of s (the callers give those).
function automatic [15:0] scaled_low(input [15:0] a, input [15:0] b, input [15:0] s);
    reg [15:0] v;
    begin
        v = a + b;
        scaled_low = v * s;
    end
endfunction"
    };
}
pub(super) const SCALED_PARTS: &str = scaled_parts!();

/// Stage 1 in Verilog for the combinational [`ScaleProduct`], whose port is the 74-bit product
/// (the elementwise datapath's): [`SCALED_PARTS`]' two parts joined, as [`scaled`] joins
/// [`scaled_parts()`]', so that the product's Verilog exists once (as [`REQUANTIZED`] is over
/// [`REQUANTIZED_PARTS`]).
const SCALED: &str = concat!(
    scaled_parts!(),
    "
// (a + b) * s: int40 + int40, times uint32; exact in 74 bits, the two parts joined.
function automatic [73:0] scaled(input [39:0] a, input [39:0] b, input [31:0] s);
    scaled = {scaled_high(a, b, s), scaled_low(a[15:0], b[15:0], s[15:0])};
endfunction"
);

/// Stage 2 in Verilog on the product's two parts, shared as [`SCALED_PARTS`] is, no value wider
/// than 64 bits; the arithmetic (floor divisions of `p + c`) is explained on
/// [`requantized_parts`].
macro_rules! requantized_parts {
    () => {
        "\
// p / 2^n rounded by mode (0 TFL, 1 truncate, 2 and 3 natural), + zp, clamped to [lo, hi];
// p = t * 2^16 + u. Each rounding is floor((p + c) / 2^m), c = ch * 2^16 + cl.
function automatic [15:0] requantized_parts(input [63:0] t, input [15:0] u, input [5:0] n,
                                             input [1:0] mode, input [15:0] zp, input [15:0] lo,
                                             input [15:0] hi);
    reg tfl_high;
    reg [5:0] m;
    reg [5:0] extra;
    reg [16:0] cl;
    reg [16:0] sum_low;
    reg signed [63:0] ch;
    reg signed [63:0] w;
    reg signed [63:0] q;
    reg signed [63:0] mask;
    reg signed [63:0] threshold;
    reg signed [63:0] rounded;
    begin
        tfl_high = mode == 2'd0 && n > 6'd31;
        m = tfl_high ? 6'd31 : n;
        if (tfl_high) begin
            ch = 64'sd16384;
            cl = 17'd0;
        end else if (mode == 2'd1) begin
            if (!t[63]) begin
                ch = 64'sd0;
                cl = 17'd0;
            end else if (n >= 6'd16) begin
                ch = (64'sd1 <<< (n - 6'd16)) - 64'sd1;
                cl = 17'h0ffff;
            end else begin
                ch = 64'sd0;
                cl = (17'd1 << n) - 17'd1;
            end
        end else begin
            ch = (n >= 6'd17) ? (64'sd1 <<< (n - 6'd17)) : 64'sd0;
            cl = (n >= 6'd1 && n <= 6'd16) ? (17'd1 << (n - 6'd1)) : 17'd0;
        end
        sum_low = {1'b0, u} + cl;
        w = $signed(t) + ch + $signed({63'd0, sum_low[16]});
        if (m >= 6'd16) begin
            q = w >>> (m - 6'd16);
        end else begin
            // Saturated: the quotient is then past every int16 either way.
            if (w > 64'sd1099511627776) w = 64'sd1099511627776;
            else if (w < -64'sd1099511627776) w = -64'sd1099511627776;
            q = (w <<< (6'd16 - m)) + $signed({48'd0, sum_low[15:0] >> m});
        end
        if (tfl_high) begin
            extra = n - 6'd31;
            mask = (64'sd1 <<< extra) - 64'sd1;
            threshold = (mask >>> 1) + $signed({63'd0, q[63]});
            rounded = (q >>> extra) + $signed({63'd0, ((q & mask) > threshold)});
        end else begin
            rounded = q;
        end
        rounded = rounded + $signed({{48{zp[15]}}, zp});
        if (rounded < $signed({{48{lo[15]}}, lo})) requantized_parts = lo;
        else if (rounded > $signed({{48{hi[15]}}, hi})) requantized_parts = hi;
        else requantized_parts = rounded[15:0];
    end
endfunction"
    };
}
pub(super) const REQUANTIZED_PARTS: &str = requantized_parts!();

/// [`REQUANTIZED_PARTS`] on the 74-bit product of the combinational [`Requantize`].
const REQUANTIZED: &str = concat!(
    requantized_parts!(),
    "
function automatic [15:0] requantized(input [73:0] p, input [5:0] n, input [1:0] mode,
                                       input [15:0] zp, input [15:0] lo, input [15:0] hi);
    requantized = requantized_parts({{6{p[73]}}, p[73:16]}, p[15:0], n, mode, zp, lo, hi);
endfunction"
);

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
    /// The product's bits 73:16 (signed) and 15:0, two registers of at most 64 bits (a wider
    /// one Verilator computes with slow helper calls).
    pub product_high: Signal<Out, Bits<58>>,
    pub product_low: Signal<Out, Bits<16>>,
}

impl Logic for ScaleProductReg {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.product_high.next = Bits::default();
                self.product_low.next = Bits::default();
            } else if self.enable.val() {
                let (high, low) = scaled_parts(self.acc.val(), self.bias.val(), self.scale.val());
                self.product_high.next = high;
                self.product_low.next = low;
            }
        }
    }
    fn connect(&mut self) {
        self.product_high.connect();
        self.product_low.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "{SCALED_PARTS}\nalways @(posedge clock) begin\n    if (reset) begin\n        \
             product_high <= 58'd0;\n        product_low <= 16'd0;\n    end else if (enable) begin\n        \
             product_high <= scaled_high(acc, bias, scale);\n        \
             product_low <= scaled_low(acc[15:0], bias[15:0], scale[15:0]);\n    end\nend"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "scale_product_reg".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "acc", "bias", "scale"].map(String::from).to_vec(),
            outputs: vec!["product_high".into(), "product_low".into()],
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
    /// The product's bits 73:16 (signed) and 15:0, as [`ScaleProductReg`] gives them; the high
    /// part is sign-extended to the function's 64-bit `t` at the call.
    pub product_high: Signal<In, Bits<58>>,
    pub product_low: Signal<In, Bits<16>>,
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
                self.value.next = requantized_bits(
                    self.product_high.val(),
                    self.product_low.val(),
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
            "{REQUANTIZED_PARTS}\nalways @(posedge clock) begin\n    if (reset) value <= 16'd0;\n    \
             else if (enable) value <= requantized_parts({{{{6{{product_high[57]}}}}, product_high}}, product_low, shift, rounding, zero_point, \
             act_min, act_max);\nend"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "requantize_reg".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "product_high", "product_low", "shift", "rounding", "zero_point", "act_min", "act_max"].map(String::from).to_vec(),
            outputs: vec!["value".into()],
        }]
    }
}

#[cfg(test)]
#[path = "requantize_tests.rs"]
mod tests;
