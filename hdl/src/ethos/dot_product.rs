//! One Ethos-U65 dot-product unit: the accumulator of one OFM channel at one OFM position,
//! fed 8 IFM channels a cycle (TRM L1033-1076; digest §0, §5.1). Model:
//! `model/src/ethos/mac_unit.rs`, which documents the modes.
use rust_hdl::prelude::*;

/// Conv (`mode` 0, and 3): `acc (+)= Σ act[i]·w[i]`; depthwise (1): `acc (+)= act[own]·w[own]`;
/// max pooling (2): `acc = max(acc, act[own])`. `clear` starts a new accumulation (`=` instead
/// of `+=`); `act16_high` marks the high byte of 16-bit activations (its products count 256
/// times); `pad` marks an OFM position whose input is outside the IFM (adds nothing, and is
/// ignored by max). Changes only when `enable`; the accumulator is 40 bits, wrapping; reset
/// clears it.
///
/// Lanes `i` are `act[9i+8:9i]` and `w[9i+8:9i]`, two's complement. Written as Verilog, with
/// the products inside the accumulator's clocked process, for two reasons: rust-hdl multiplies
/// only 16x16 bits and has no signed part-select; and `act` comes straight from the datapath's
/// ports, so products computed in combinational logic before a register are input-region logic
/// that Verilator evaluates on every input change (three times a cycle in the NPU); in the
/// clocked process they run once a cycle, with the same registers and the same cycles
/// (docs/ethos.md, "Verilated speed").
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
            acc: Default::default(),
            own: Constant::new((own as u64).into()),
        }
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
        Verilog::Custom(
            "function automatic [39:0] lane(input [71:0] word, input [2:0] i);\n    \
                 lane = {{31{word[9*i + 8]}}, word[9*i +: 9]};\n\
             endfunction\n\
             function automatic [39:0] dot(input [71:0] a, input [71:0] b, input [7:0] lanes);\n    \
                 integer i;\n    \
                 reg signed [20:0] total;\n    \
                 begin\n        \
                     total = 21'sd0;\n        \
                     for (i = 0; i < 8; i = i + 1)\n            \
                         if (lanes[i]) total = total + $signed(a[9*i +: 9]) * $signed(b[9*i +: 9]);\n        \
                     dot = {{19{total[20]}}, total};\n    \
                 end\n\
             endfunction\n\
             function automatic [39:0] term(input [71:0] a, input [71:0] b, input [7:0] lanes, input high, input outside);\n    \
                 term = outside ? 40'd0 : high ? dot(a, b, lanes) << 8 : dot(a, b, lanes);\n\
             endfunction\n\
             always @(posedge clock) begin\n    \
                 if (reset) acc <= 40'd0;\n    \
                 else if (enable) begin\n        \
                     if (mode == 2'd2) begin\n            \
                         // Max pooling; a cleared max over padding only is the most negative value.\n            \
                         if (clear) acc <= pad ? 40'h8000000000 : lane(act, own);\n            \
                         else if (!pad && $signed(lane(act, own)) > $signed(acc)) acc <= lane(act, own);\n        \
                     end\n        \
                     else if (clear) acc <= term(act, w, mode == 2'd1 ? 8'd1 << own : 8'hff, act16_high, pad);\n        \
                     else acc <= acc + term(act, w, mode == 2'd1 ? 8'd1 << own : 8'hff, act16_high, pad);\n    \
                 end\n\
             end"
                .into(),
        )
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "dot_product".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "clear", "mode", "act16_high", "pad", "act", "w"].map(String::from).to_vec(),
            outputs: vec!["acc".into()],
        }]
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DotProduct::new(3), "dot_product");
}
