//! The output lanes' three register stages (`output_lanes.rs`): the arithmetic of
//! [`super::requantize::ScaleProductReg`] and [`super::requantize::RequantizeReg`] (the same
//! Verilog functions) for the 16 lanes, each stage one clocked process that tests its lanes'
//! enables only when some lane of the stage is valid.
//!
//! Why (docs/ethos.md, "Verilated speed"; issue 19): as 56 registers of their own (16
//! products, 8 shifts, 16 requantized values, 16 bytes), Verilator tested each one's enable
//! every cycle, ~140 instructions a cycle even in the networks that never convolve; here an
//! idle cycle costs one test a stage. Values, cycles and resets are the registers' own:
//! stage 1 takes lane i's product while `in_valid` bit i and memory j's shift while lane j's or
//! lane j + 8's; stage 2 lane i's value while `valid1` bit i; stage 3 its low byte while
//! `valid2` bit i (exact: the value is clamped to the int8 range); all 0 while `reset`.
use super::requantize::{requantized_bits, scaled_parts, REQUANTIZED_PARTS, SCALED_PARTS};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct OutputLaneStages {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Lane i enters stage 1, 2, 3 (bit i).
    pub in_valid: Signal<In, Bits<16>>,
    pub valid1: Signal<In, Bits<16>>,
    pub valid2: Signal<In, Bits<16>>,
    pub acc: [Signal<In, Bits<40>>; 16],
    /// Memory j's read word, {shift[5:0], scale[31:0], bias[39:0]}, for lanes j and j + 8.
    pub parameters: [Signal<In, Bits<78>>; 8],
    /// The layer's int8 zero point and clamp, sign-extended, registered with stage 1.
    pub zero_point: Signal<In, Bits<16>>,
    pub act_min: Signal<In, Bits<16>>,
    pub act_max: Signal<In, Bits<16>>,
    /// Stage 3: lane i's byte in bits 8i+7:8i.
    pub out_data: Signal<Out, Bits<128>>,
    /// rust-hdl's simulation state (the Verilog's registers); `_` fields are not blocks.
    _state: State,
}

#[derive(Clone, Default)]
struct State {
    product_high: [Bits<58>; 16],
    product_low: [Bits<16>; 16],
    shift: [Bits<6>; 8],
    value: [Bits<16>; 16],
    data: Bits<128>,
}

impl Logic for OutputLaneStages {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self._state = State::default();
            } else {
                // In the Verilog's order: each stage reads the previous stage's old values.
                for i in 0..16 {
                    if self.valid2.val().get_bit(i) {
                        self._state.data.set_bits::<8>(8 * i, self._state.value[i].get_bits::<8>(0));
                    }
                    if self.valid1.val().get_bit(i) {
                        let (high, low, shift) = (self._state.product_high[i], self._state.product_low[i], self._state.shift[i % 8]);
                        self._state.value[i] = requantized_bits(
                            high,
                            low,
                            shift,
                            Bits::default(),
                            self.zero_point.val(),
                            self.act_min.val(),
                            self.act_max.val(),
                        );
                    }
                }
                for i in 0..16 {
                    let word = self.parameters[i % 8].val();
                    if self.in_valid.val().get_bit(i) {
                        let (high, low) = scaled_parts(self.acc[i].val(), word.get_bits::<40>(0), word.get_bits::<32>(40));
                        self._state.product_high[i] = high;
                        self._state.product_low[i] = low;
                    }
                }
                for j in 0..8 {
                    if self.in_valid.val().get_bit(j) | self.in_valid.val().get_bit(j + 8) {
                        self._state.shift[j] = self.parameters[j].val().get_bits::<6>(72);
                    }
                }
            }
        }
        self.out_data.next = self._state.data;
    }
    fn connect(&mut self) {
        self.out_data.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut decl = String::new();
        let (mut reset1, mut stage1, mut reset2, mut stage2, mut stage3) =
            (String::new(), String::new(), String::new(), String::new(), String::new());
        for j in 0..8 {
            decl += &format!("reg [5:0] shift{j};\n");
            reset1 += &format!("        shift{j} <= 6'd0;\n");
            stage1 += &format!("        if (in_valid[{j}] | in_valid[{}]) shift{j} <= parameters${j}[77:72];\n", j + 8);
        }
        for i in 0..16 {
            let j = i % 8;
            decl += &format!("reg [57:0] product_high{i};\nreg [15:0] product_low{i};\nreg [15:0] value{i};\n");
            reset1 += &format!("        product_high{i} <= 58'd0;\n        product_low{i} <= 16'd0;\n");
            stage1 += &format!(
                "        if (in_valid[{i}]) begin\n            \
                 product_high{i} <= scaled_high(acc${i}, parameters${j}[39:0], parameters${j}[71:40]);\n            \
                 product_low{i} <= scaled_low(acc${i}[15:0], parameters${j}[15:0], parameters${j}[55:40]);\n        \
                 end\n"
            );
            reset2 += &format!("        value{i} <= 16'd0;\n");
            stage2 += &format!(
                "        if (valid1[{i}]) value{i} <= requantized_parts({{{{6{{product_high{i}[57]}}}}, product_high{i}}}, \
                 product_low{i}, shift{j}, 2'd0, zero_point, act_min, act_max);\n"
            );
            stage3 += &format!("        if (valid2[{i}]) out_data[{}:{}] <= value{i}[7:0];\n", 8 * i + 7, 8 * i);
        }
        // The values' high bytes (sign copies within the int8 clamp) are read by nothing.
        let unused: Vec<String> = (0..16).rev().map(|i| format!("value{i}[15:8]")).collect();
        decl += &format!("wire [127:0] unused_high = {{{}}};\n", unused.join(", "));
        Verilog::Custom(format!(
            "{SCALED_PARTS}\n{REQUANTIZED_PARTS}\n{decl}\
             always @(posedge clock) begin\n    if (reset) out_data <= 128'd0;\n    \
             else if (valid2 != 16'd0) begin\n{stage3}    end\nend\n\
             always @(posedge clock) begin\n    if (reset) begin\n{reset2}    end else if (valid1 != 16'd0) begin\n{stage2}    end\nend\n\
             always @(posedge clock) begin\n    if (reset) begin\n{reset1}    end else if (in_valid != 16'd0) begin\n{stage1}    end\nend"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "output_lane_stages".into(),
            clock: "clock".into(),
            inputs: ["reset", "in_valid", "valid1", "valid2", "acc", "parameters", "zero_point", "act_min", "act_max"]
                .map(String::from)
                .to_vec(),
            outputs: vec!["out_data".into()],
        }]
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputLaneStages::default, "output_lane_stages");
}
