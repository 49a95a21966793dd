//! SDP_RDMA's BS or BN operand layout (BRDMA, NRDMA; seeds/001 "Single Data Point
//! Processor": per-channel or per-element operands from memory): from the read's D_xRDMA_CFG,
//! how many 8-byte words one input atom's operands take, where the walk steps, and each
//! lane's ALU and multiplier operand out of the words read. Combinational. Model:
//! `npu_model::nvdla::sdp_operands`; docs/nvdla.md, "SDP's BS and BN stages".
//!
//! The layout is NVIDIA's C model's (cmod/sdp, the RDMA read and its packer; read to learn
//! it): an element is one or two components (DATA_USE BOTH: the ALU's first, then the
//! multiplier's) of one or two bytes (DATA_SIZE; little-endian, a byte sign-extended), so 1,
//! 2 or 4 bytes. PER_ELEMENT: the element of channel c at (x, y) of surface s is at
//! `base + s * SURFACE_STRIDE + y * LINE_STRIDE + (8x + c % 8) * bytes`; PER_KERNEL: channel
//! c's at `base + c * bytes`, the strides unused. Either way an atom's 8 elements are `bytes`
//! consecutive words, at the group address the walk gives: x steps by 8 * bytes (per element)
//! or 0 (per kernel), lines by LINE_STRIDE or 0, surfaces by SURFACE_STRIDE or 8 * bytes.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SdpOperands {
    /// D_BRDMA_CFG or D_NRDMA_CFG bits 4..0: DISABLE, DATA_USE (2), DATA_SIZE, DATA_MODE.
    pub cfg: Signal<In, Bits<5>>,
    /// D_xx_LINE_STRIDE, D_xx_SURFACE_STRIDE.
    pub line: Signal<In, Bits<64>>,
    pub surface: Signal<In, Bits<64>>,
    /// The words kept so far (word i of the atom's operands in `wi`), and the word arriving
    /// in this cycle: when `live`, it replaces word `at`.
    pub w0: Signal<In, Bits<64>>,
    pub w1: Signal<In, Bits<64>>,
    pub w2: Signal<In, Bits<64>>,
    pub w3: Signal<In, Bits<64>>,
    pub incoming: Signal<In, Bits<64>>,
    pub live: Signal<In, Bit>,
    pub at: Signal<In, Bits<2>>,
    /// The number of the atom's last operand word: 0, 1 or 3.
    pub last_word: Signal<Out, Bits<2>>,
    /// The walk's steps along x, to the next line, to the next surface.
    pub x_step: Signal<Out, Bits<64>>,
    pub line_step: Signal<Out, Bits<64>>,
    pub surface_step: Signal<Out, Bits<64>>,
    /// Lane k's 16-bit ALU and multiplier operands in bits 16k+15..16k; 0 for a part the
    /// read does not supply (DATA_USE MUL: the ALU; ALU: the multiplier), and all 0 when the
    /// read is off.
    pub alu: Signal<Out, Bits<128>>,
    pub mul: Signal<Out, Bits<128>>,
}

impl Logic for SdpOperands {
    /// Not simulated by rust-hdl (the project verifies with Verilator): the behaviour is the
    /// Verilog's, checked in lock step against `npu_model::nvdla::sdp_operands`.
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.last_word.connect();
        self.x_step.connect();
        self.line_step.connect();
        self.surface_step.connect();
        self.alu.connect();
        self.mul.connect();
    }
    fn hdl(&self) -> Verilog {
        // DATA_USE 3 (no RDL name) is one component, to the ALU, as the C model routes it.
        let mut body = String::from(
            "wire off = cfg[0], both = cfg[2:1] == 2'd2, to_alu = cfg[1], to_mul = cfg[2:1] == 2'd0, two_byte = cfg[3], per_kernel = !cfg[4];\n\
             wire [63:0] group_bytes = two_byte && both ? 64'd32 : two_byte || both ? 64'd16 : 64'd8;\n\
             wire [63:0] v0 = live && at == 2'd0 ? incoming : w0;\n\
             wire [63:0] v1 = live && at == 2'd1 ? incoming : w1;\n\
             wire [63:0] v2 = live && at == 2'd2 ? incoming : w2;\n\
             wire [63:0] v3 = live && at == 2'd3 ? incoming : w3;\n\
             wire [255:0] words = {v3, v2, v1, v0};\n\
             always @(*) begin\n\
             last_word = two_byte && both ? 2'd3 : two_byte || both ? 2'd1 : 2'd0;\n\
             x_step = per_kernel ? 64'd0 : group_bytes;\n\
             line_step = per_kernel ? 64'd0 : line;\n\
             surface_step = per_kernel ? group_bytes : surface;\n\
             end\n",
        );
        let (mut alu, mut mul) = (Vec::new(), Vec::new());
        for k in 0..8 {
            // Element k: byte k (one byte, one component), bytes 2k and 2k+1 (one byte, both),
            // half-word k (two bytes, one), half-words 2k and 2k+1 (two bytes, both).
            let (b, b2, h, h2) = (8 * k, 16 * k, 16 * k, 32 * k);
            body += &format!(
                "wire [15:0] first{k} = two_byte ? (both ? words[{}:{h2}] : words[{}:{h}]) : (both ? {{{{8{{words[{}]}}}}, words[{}:{b2}]}} : {{{{8{{words[{}]}}}}, words[{}:{b}]}});\n\
                 wire [15:0] second{k} = two_byte ? words[{}:{}] : {{{{8{{words[{}]}}}}, words[{}:{}]}};\n\
                 wire [15:0] alu{k} = off ? 16'h0 : both || to_alu ? first{k} : 16'h0;\n\
                 wire [15:0] mul{k} = off ? 16'h0 : both ? second{k} : to_mul ? first{k} : 16'h0;\n",
                h2 + 15,
                h + 15,
                b2 + 7,
                b2 + 7,
                b + 7,
                b + 7,
                h2 + 31,
                h2 + 16,
                b2 + 15,
                b2 + 15,
                b2 + 8,
            );
            alu.push(format!("alu{k}"));
            mul.push(format!("mul{k}"));
        }
        alu.reverse();
        mul.reverse();
        Verilog::Custom(format!("{body}always @(*) begin\nalu = {{{}}};\nmul = {{{}}};\nend", alu.join(", "), mul.join(", ")))
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SdpOperands::default, "nvdla_sdp_operands");
}
