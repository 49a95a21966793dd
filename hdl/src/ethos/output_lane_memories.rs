//! The output lanes' eight parameter memories (`output_lanes.rs`): channel c's record in
//! memory `c % 8` at `c / 8`, each memory as [`crate::primitives::Ram`] (no reset of the
//! array, a registered read port that resets and reads only when asked, the old word when
//! both addresses are equal), the eight in one block so that each side is one test when idle.
//!
//! Why (issue 19): as eight `Ram`s, each memory's write enable (`write_enable` and its channel
//! bits) was computed from the SCALE_BIAS phase's outputs, which Verilator evaluates in its
//! input region (three times a cycle), and each memory's write and read enables were tested
//! every cycle: ~40 Verilated instructions a cycle even in the networks that never convolve.
//! Here the write is one test of `write_enable` and a `case` of the channel's bits, and the
//! reads one test of `hold` and the read mask.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct OutputLaneMemories {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Channel `write_channel`'s record is written.
    pub write_enable: Signal<In, Bit>,
    pub write_channel: Signal<In, Bits<12>>,
    pub write_data: Signal<In, Bits<78>>,
    /// Memory j reads its word `read_address` (bit j), unless `hold`.
    pub read_enable: Signal<In, Bits<8>>,
    pub hold: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<9>>,
    pub read_data: [Signal<Out, Bits<78>>; 8],
    /// rust-hdl's simulation state (the Verilog's arrays); `_` fields are not blocks.
    _mem: Vec<Bits<78>>,
}

impl Logic for OutputLaneMemories {
    fn update(&mut self) {
        if self._mem.is_empty() {
            self._mem = vec![Bits::default(); 4096];
        }
        if self.clock.pos_edge() {
            for j in 0..8 {
                if self.reset.val() {
                    self.read_data[j].next = Bits::default();
                } else if self.read_enable.val().get_bit(j) & !self.hold.val() {
                    self.read_data[j].next = self._mem[8 * self.read_address.val().index() + j];
                }
            }
            if self.write_enable.val() {
                self._mem[self.write_channel.val().index()] = self.write_data.val();
            }
        }
    }
    fn connect(&mut self) {
        for j in 0..8 {
            self.read_data[j].connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let (mut decl, mut writes, mut resets, mut reads) = (String::new(), String::new(), String::new(), String::new());
        for j in 0..8 {
            decl += &format!("reg [77:0] mem{j} [0:511];\n");
            writes += &format!("            3'd{j}: mem{j}[write_channel[11:3]] <= write_data;\n");
            resets += &format!("        read_data${j} <= 78'h0;\n");
            reads += &format!("        if (read_enable[{j}]) read_data${j} <= mem{j}[read_address];\n");
        }
        Verilog::Custom(format!(
            "{decl}always @(posedge clock) begin\n    if (write_enable) begin\n        \
             case (write_channel[2:0])\n{writes}        endcase\n    end\nend\n\
             always @(posedge clock) begin\n    if (reset) begin\n{resets}    end else if (!hold && read_enable != 8'd0) begin\n\
             {reads}    end\nend"
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "output_lane_memories".into(),
            clock: "clock".into(),
            inputs: ["reset", "write_enable", "write_channel", "write_data", "read_enable", "hold", "read_address"]
                .map(String::from)
                .to_vec(),
            outputs: (0..8).map(|j| format!("read_data${j}")).collect(),
        }]
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OutputLaneMemories::default, "output_lane_memories");
}
