//! The kernel unit's pooling lanes (NPU_OP_POOL, TRM §4.6; the formulas are the reference
//! executor's, as in `pooling_alu.rs`): the running max or sum of up to 8 OFM channels at once,
//! one lane per byte of the IFM word read at a tap (issue 19, docs/ethos.md "Pooling timing":
//! a word of channels at a time). Lane i takes byte i of `word`:
//!
//! ```text
//! a_i = byte_i - IFM zero point;   accumulated_i = a_i (first tap inside), max(acc_i, a_i) or acc_i + a_i
//! ```
//! The lanes' results go one a cycle through the pooling ALU (`pooling_alu.rs` picks the
//! element's lane) and the OFM scale, zero point and clamp (`elementwise_datapath.rs`). An
//! element-at-a-time pool uses lane 0 (its byte shifted there by the memory side). The model is
//! `npu_model::ethos::elementwise_datapath::accumulate_lanes`.
//!
//! Written as a Verilog leaf (like `pooling_alu.rs`): 8 signed comparisons and sums of
//! sign-extended bytes; rust-hdl's `Bits` are unsigned and `#[hdl_gen]` has no arrays.
use rust_hdl::prelude::*;

/// Ports: `acc` (8 lanes of 32 bits, lane i at bits 32i..), `word` (the IFM word, lane i's
/// byte at bits 8i..), `zero_point` (the IFM's), `first` (the first tap inside: every lane
/// starts afresh), `max` (max pooling, else a sum) give `accumulated`; 0 unless `enable` (the
/// word is taken this cycle): the lanes read the memory's response, so Verilator runs them on
/// every `eval` of the bridge, and an idle unit should not pay for them (issue 19).
#[derive(LogicBlock, Default)]
pub struct PoolLanes {
    pub acc: Signal<In, Bits<256>>,
    pub word: Signal<In, Bits<64>>,
    pub zero_point: Signal<In, Bits<16>>,
    pub first: Signal<In, Bit>,
    pub max: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub accumulated: Signal<Out, Bits<256>>,
}

impl Logic for PoolLanes {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.accumulated.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut lanes = String::new();
        for i in 0..8 {
            let (b, a) = (8 * i, 32 * i);
            lanes.push_str(&format!(
                "    ea = $signed({{{{24{{word[{}]}}}}, word[{}:{b}]}}) - zp;\n    \
                 if (first) accumulated[{}:{a}] = ea;\n    \
                 else if (max) accumulated[{}:{a}] = ($signed(acc[{}:{a}]) > ea) ? acc[{}:{a}] : ea;\n    \
                 else accumulated[{}:{a}] = $signed(acc[{}:{a}]) + ea;\n",
                b + 7,
                b + 7,
                a + 31,
                a + 31,
                a + 31,
                a + 31,
                a + 31,
                a + 31,
            ));
        }
        Verilog::Custom(format!(
            "reg signed [31:0] ea;\n\
             reg signed [31:0] zp;\n\
             always @(*) begin\n    \
                 zp = {{{{16{{zero_point[15]}}}}, zero_point}};\n    \
                 ea = 32'd0;\n    \
                 accumulated = 256'd0;\n    \
                 if (enable) begin\n\
             {lanes}    end\n\
             end"
        ))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(PoolLanes::default, "pool_lanes");
}
