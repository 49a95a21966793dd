//! One Ethos-U65 dot-product unit: the accumulator of one OFM channel at one OFM position,
//! fed 8 IFM channels a cycle (TRM L1033-1076; digest §0, §5.1). Model:
//! `model/src/ethos/mac_unit.rs`, which documents the modes.
use rust_hdl::prelude::*;

/// Conv (`mode` 0, and 3): `acc (+)= Σ act[i]·w[i]`; depthwise (1): `acc (+)= act[own]·w[own]`;
/// max pooling (2): `acc = max(acc, act[own])`. `clear` starts a new accumulation (`=` instead
/// of `+=`); `act16_high` marks the high byte of 16-bit activations (its products count 256
/// times); `pad` marks an OFM position whose input is outside the IFM (adds nothing, and is
/// ignored by max). Changes only when `enable`; the accumulator is 40 bits, wrapping; reset
/// clears it. `packed_cycle` (the convolution datapath's packed depthwise cycle) takes the operands
/// `pact` and `pw` instead of `act` and `w`, as the conv mode without padding (the caller holds
/// `act16_high` low in such cycles); the choice is made in the clocked process, so no 72-bit
/// multiplexer before the unit runs in every cycle (docs/ethos.md, "Verilated speed", twelfth
/// step).
///
/// Lanes `i` are `act[9i+8:9i]` and `w[9i+8:9i]`, two's complement. Written as Verilog, with
/// the products inside the accumulator's clocked process, for two reasons: rust-hdl multiplies
/// only 16x16 bits and has no signed part-select; and `act` comes straight from the datapath's
/// ports, so products computed in combinational logic before a register are input-region logic
/// that Verilator evaluates on every input change (three times a cycle in the NPU); in the
/// clocked process they run once a cycle, with the same registers and the same cycles
/// (docs/ethos.md, "Verilated speed", fifth step). The lanes are part-selects in that process,
/// not arguments of functions of the 72-bit words (seventh step).
#[derive(LogicBlock)]
pub struct DotProduct {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub mode: Signal<In, Bits<2>>,
    pub act16_high: Signal<In, Bit>,
    pub pad: Signal<In, Bit>,
    pub act: Signal<In, Bits<72>>,
    pub w: Signal<In, Bits<72>>,
    pub packed_cycle: Signal<In, Bit>,
    pub pact: Signal<In, Bits<54>>,
    pub pw: Signal<In, Bits<54>>,
    pub acc: Signal<Out, Bits<40>>,
    /// The lane of this unit's own OFM channel (depthwise, max pooling).
    own: Constant<Bits<3>>,
}

impl DotProduct {
    /// The unit of OFM channel `own` (0..8) of its group of 8.
    pub fn new(own: usize) -> Self {
        assert!(own < 8, "a dot-product unit's own channel is 0..8, not {own}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            mode: Default::default(),
            act16_high: Default::default(),
            pad: Default::default(),
            act: Default::default(),
            w: Default::default(),
            packed_cycle: Default::default(),
            pact: Default::default(),
            pw: Default::default(),
            acc: Default::default(),
            own: Constant::new((own as u64).into()),
        }
    }

    /// The accumulator's clocked process. Every lane is a constant part-select of `act` and `w`
    /// (the unit's own lane by its `own` parameter): no function takes a 72-bit argument.
    /// Verilator copied and zeroed such arguments (`VlWide` temporaries) at every call, 28 % of
    /// `conv_datapath`'s Verilated time with the products in the profile (docs/ethos.md,
    /// "Verilated speed", seventh step). `mul9` multiplies two 9-bit lanes sign-extended to 32
    /// bits, so that the C++ is a plain signed multiply (a product sign-extended to 21 bits
    /// was a `VL_MULS_III(21, ..)` that sign-extends both operands again; fourteenth step);
    /// `widen` takes the 32-bit sum.
    fn verilog(&self) -> String {
        let lane = |word: &str, i: usize| format!("{word}[{}:{}]", 9 * i + 8, 9 * i);
        let product = |i: usize| format!("mul9({}, {})", lane("act", i), lane("w", i));
        let sum = (0..8).map(product).collect::<Vec<_>>().join("\n                     + ");
        // The packed operands carry six lanes (a unit's lanes 6 and 7 are 0 there).
        let packed_product = |i: usize| format!("mul9({}, {})", lane("pact", i), lane("pw", i));
        let packed_sum = (0..6).map(packed_product).collect::<Vec<_>>().join("\n                     + ");
        // The own lane by the `own` parameter (a constant part-select, as the literal lanes).
        let own_product = "mul9(act[9*own +: 9], w[9*own +: 9])";
        let own_act = "{{31{act[9*own + 8]}}, act[9*own +: 9]}";
        format!(
            "// The product of two 9-bit lanes in a 32-bit word: C++'s own signed multiply, no
// sign extension from a narrower width (docs/ethos.md, \"Verilated speed\", fourteenth step).
function automatic [31:0] mul9(input [8:0] a, input [8:0] b);
    mul9 = $signed({{{{23{{a[8]}}}}, a}}) * $signed({{{{23{{b[8]}}}}, b}});
endfunction
// A dot product (at most 8 x 255 x 255 in magnitude: 21 bits, held in 32) sign-extended to
// the accumulator's 40, times 256 for the high byte of 16-bit activations.
function automatic [39:0] widen(input [31:0] dot, input high);
    widen = high ? {{dot, 8'd0}} : {{{{8{{dot[31]}}}}, dot}};
endfunction
always @(posedge clock) begin
    if (reset) acc <= 40'd0;
    else if (enable) begin
        // A packed depthwise cycle: the conv mode on the second operands, no padding.
        if (packed_cycle) begin
            if (clear) acc <= widen({packed_sum}, 1'b0);
            else acc <= acc + widen({packed_sum}, 1'b0);
        end
        else if (mode == 2'd2) begin
            // Max pooling; a cleared max over padding only is the most negative value.
            if (clear) acc <= pad ? 40'h8000000000 : {own_act};
            else if (!pad && $signed({own_act}) > $signed(acc)) acc <= {own_act};
        end
        // Padding adds nothing: a clear starts from 0, an accumulation keeps its value.
        else if (pad) begin
            if (clear) acc <= 40'd0;
        end
        else if (clear) acc <= widen(mode == 2'd1 ? {own_product}
            : {sum}, act16_high);
        else acc <= acc + widen(mode == 2'd1 ? {own_product}
            : {sum}, act16_high);
    end
end"
        )
    }

    /// Lane `i` of a 72-bit word, sign-extended.
    fn lane(word: Bits<72>, i: usize) -> i64 {
        let raw = (0..9).fold(0i64, |x, k| x | (i64::from(word.get_bit(9 * i + k)) << k));
        (raw << 55) >> 55
    }

    /// The accumulator's next value while `enable` is high (mirrors the Verilog below).
    fn next(&self) -> i64 {
        let own = self.own.val().index();
        let acc = (self.acc.val().to_u64() as i64) << 24 >> 24;
        if self.packed_cycle.val() {
            let (pact, pw) = (bit_cast::<72, 54>(self.pact.val()), bit_cast::<72, 54>(self.pw.val()));
            let dot: i64 = (0..6).map(|i| Self::lane(pact, i) * Self::lane(pw, i)).sum();
            return if self.clear.val() { dot } else { acc + dot };
        }
        let own_act = Self::lane(self.act.val(), own);
        if self.mode.val().index() == 2 {
            return match (self.clear.val(), self.pad.val()) {
                (true, true) => -(1 << 39),
                (_, false) if self.clear.val() || own_act > acc => own_act,
                _ => acc,
            };
        }
        let lanes: Vec<usize> = if self.mode.val().index() == 1 { vec![own] } else { (0..8).collect() };
        let dot: i64 = lanes.iter().map(|&i| Self::lane(self.act.val(), i) * Self::lane(self.w.val(), i)).sum();
        let term = if self.pad.val() { 0 } else if self.act16_high.val() { dot << 8 } else { dot };
        if self.clear.val() { term } else { acc + term }
    }
}

impl Logic for DotProduct {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.acc.next = 0.into();
            } else if self.enable.val() {
                self.acc.next = ((self.next() as u64) & ((1 << 40) - 1)).into();
            }
        }
    }
    fn connect(&mut self) {
        self.acc.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "dot_product".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "clear", "mode", "act16_high", "pad", "act", "w", "packed_cycle", "pact", "pw"].map(String::from).to_vec(),
            outputs: vec!["acc".into()],
        }]
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(|| DotProduct::new(3), "dot_product");
}
