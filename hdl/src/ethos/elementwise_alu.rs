//! The elementwise unit's operand arithmetic (digest §2.3 gives no formula; the formulas are
//! the reference executor's, `npu::ethos::executor`, proven equal to TFLite): the two operands
//! (minus their zero points) combined by the ELEMENTWISE mode, before the OFM scale. The model
//! is `npu_model::ethos::elementwise::combine`, which the executor calls too.
//!
//! ```text
//! MUL  a·b          ADD/SUB  a' ± b'          MIN/MAX  min/max(a, b)
//! scale mode 0:  a' = a·OPA_SCALE[15:0], b' = b·OPB_SCALE[15:0]
//! scale mode 1:  a' = apply_scale_tfl(a·2^20, OPA_SCALE, OPA_SHIFT + 20), b' = b·2^19
//! scale mode 2:  a' = a·2^19, b' = apply_scale_tfl(b·2^20, OPA_SCALE, OPA_SHIFT + 20)
//! ```
//! `apply_scale_tfl` rounds as the output unit's TFL mode (`npu_model::ethos::output_unit`).
//! Operands are 18-bit two's complement, the result 40 bits. The elementwise unit takes only
//! int8 operands whose zero points (and scalar) are int8 too, so |a|, |b| <= 255, and refuses an
//! OPA_SHIFT below [`MIN_OPA_SHIFT`] in scale modes 1 and 2: then |a'| < 2^(40 - shift) and
//! the sum always fits.
//!
//! Written as a Verilog leaf (like `requantize.rs`): the signed 18 x 32-bit products, the
//! arithmetic right shifts by a variable amount and the signed MIN/MAX need exact signed
//! widths, and rust-hdl multiplies only 16 x 16 bits and has no signed shift on `Bits`. The
//! elementwise unit's control around it is rust-hdl (`elementwise.rs`).
use rust_hdl::prelude::*;

/// The smallest OPA_SHIFT taken in scale modes 1 and 2: |a'| < 2^8 · 2^32 / 2^shift must stay
/// below 2^38. Vela writes `quantise_scale(s_min·2^20 / (2·s_max))`-like values below 2^20
/// (shift 11 seen with two scales a decade apart: `tests/ethos_npu.rs`, SEED=3), far above.
pub const MIN_OPA_SHIFT: u8 = 2;

/// Ports: `mode` (the ELEMENTWISE parameter: 0 MUL, 1 ADD, 2 SUB, 3 MIN, 4 MAX),
/// `scale_mode` (IFM_PRECISION[9:8]), the operands `a` and `b`, OPA_SCALE's scale and shift,
/// OPB_SCALE's 16-bit scale; `result`, combinationally, while `enable`, else 0. `enable` is a
/// branch around the arithmetic, so Verilator runs the 80-bit products only in the cycles whose
/// result is taken (the kernel unit's calculation state; docs/ethos.md, "Verilated speed",
/// "NPU top" step).
#[derive(LogicBlock, Default)]
pub struct ElementwiseAlu {
    pub enable: Signal<In, Bit>,
    pub mode: Signal<In, Bits<3>>,
    pub scale_mode: Signal<In, Bits<2>>,
    pub a: Signal<In, Bits<18>>,
    pub b: Signal<In, Bits<18>>,
    pub opa_scale: Signal<In, Bits<32>>,
    pub opa_shift: Signal<In, Bits<6>>,
    pub opb_scale: Signal<In, Bits<16>>,
    pub result: Signal<Out, Bits<40>>,
}

impl Logic for ElementwiseAlu {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.result.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "reg signed [79:0] ea;\n\
             reg signed [79:0] eb;\n\
             reg signed [79:0] p;\n\
             reg signed [79:0] high;\n\
             reg signed [79:0] mask;\n\
             reg signed [79:0] threshold;\n\
             reg signed [79:0] scaled;\n\
             reg signed [79:0] oa;\n\
             reg signed [79:0] ob;\n\
             reg signed [79:0] r;\n\
             reg [6:0] shift;\n\
             reg [6:0] extra;\n\
             reg unused_high;\n\
             always @(*) begin\n    \
                 ea = 80'sd0;\n    \
                 eb = 80'sd0;\n    \
                 p = 80'sd0;\n    \
                 shift = 7'd0;\n    \
                 extra = 7'd0;\n    \
                 high = 80'sd0;\n    \
                 mask = 80'sd0;\n    \
                 threshold = 80'sd0;\n    \
                 scaled = 80'sd0;\n    \
                 oa = 80'sd0;\n    \
                 ob = 80'sd0;\n    \
                 r = 80'sd0;\n    \
                 if (enable) begin\n    \
                 ea = {{62{a[17]}}, a};\n    \
                 eb = {{62{b[17]}}, b};\n    \
                 p = ((scale_mode == 2'd2) ? eb : ea) * $signed({48'd0, opa_scale});\n    \
                 p = p <<< 20;\n    \
                 shift = {1'b0, opa_shift} + 7'd20;\n    \
                 if (shift <= 7'd31) begin\n        \
                     scaled = (p + (80'sd1 <<< (shift - 7'd1))) >>> shift;\n    \
                 end else begin\n        \
                     extra = shift - 7'd31;\n        \
                     high = (p + (80'sd1 <<< 30)) >>> 31;\n        \
                     mask = (80'sd1 <<< extra) - 80'sd1;\n        \
                     threshold = (mask >>> 1) + $signed({79'd0, high[79]});\n        \
                     scaled = (high >>> extra) + $signed({79'd0, ((high & mask) > threshold)});\n    \
                 end\n    \
                 case (scale_mode)\n        \
                     2'd0: begin oa = ea * $signed({64'd0, opa_scale[15:0]}); ob = eb * $signed({64'd0, opb_scale}); end\n        \
                     2'd1: begin oa = scaled; ob = eb <<< 19; end\n        \
                     default: begin oa = ea <<< 19; ob = scaled; end\n    \
                 endcase\n    \
                 case (mode)\n        \
                     3'd0: r = ea * eb;\n        \
                     3'd1: r = oa + ob;\n        \
                     3'd2: r = oa - ob;\n        \
                     3'd3: r = (ea < eb) ? ea : eb;\n        \
                     default: r = (ea > eb) ? ea : eb;\n    \
                 endcase\n    \
                 end\n    \
                 result = r[39:0];\n    \
                 unused_high = ^r[79:40];\n\
             end"
                .into(),
        )
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseAlu::default, "elementwise_alu");
}
