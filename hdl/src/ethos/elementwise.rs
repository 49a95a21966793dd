//! The elementwise kernel unit (NPU_OP_ELEMENTWISE, TRM §4.6; digest `shared/spec/ethos-u65.md`
//! §2.3, §3.2): int8 IFM and IFM2 (or the IFM2 scalar, IFM2 broadcast along any of height,
//! width and depth, operands swapped by IFM2_BROADCAST bit 6) in NHWC or NHCWB16, MUL, ADD,
//! SUB, MIN and MAX with the OPA/OPB/OFM scales, zero points and the activation clamp; the
//! OFM written one byte a beat with its byte strobe. The model is
//! `npu_model::ethos::elementwise`; docs/ethos.md, "Elementwise unit", has the timing and the
//! decisions, which are also here.
//!
//! Ports: the front end's kernel handshake (`kernel_start`, `kernel_op`, `kernel_mode` in;
//! `kernel_done` for one cycle with `kernel_error`), its debug port (`debug_index`,
//! `debug_hold` out, `debug_value` in: the register file, and BASEPs at
//! `command_front_end::DEBUG_BASEP`), and a memory master of the NPU's interface (one read and
//! one write at a time) behind the NPU's arbiter.
//!
//! States: IDLE; LATCH, [`LATCH_STEPS`] cycles with the front end held: the registers of
//! [`latch_table`] and then the BASEPs of the IFM, IFM2 and OFM regions are read through the
//! debug port into the three feature-map blocks and the scalar registers (the front end goes
//! on with the next commands afterwards: the unit keeps its own copies); CHECK; then per OFM
//! element, in NHWC order (c innermost): READ_A/WAIT_A (the IFM word), READ_B/WAIT_B (the
//! IFM2 word, skipped for a scalar), CALC (ALU, output scale, clamp), WRITE/WAIT_W (one
//! strobed byte); DONE.
//!
//! Decisions (the TRM leaves these open):
//! - A kernel operation other than ELEMENTWISE answers at once with `kernel_error` =
//!   [`ERROR_UNSUPPORTED`] (the NPU has no other kernel unit yet), as does any field value the
//!   unit does not implement, found in CHECK before anything is read or written: a mode above
//!   4, an IFM, IFM2 (unless scalar) or OFM that is not signed 8-bit NHWC/NHCWB16, ACTIVATION
//!   [4:0] ≠ 0 (lookup table, tanh, sigmoid), ACC_FORMAT > 1, IFM_UPSCALE ≠ 0, ADD/SUB scale
//!   mode 3, ADD/SUB scale mode 1 or 2 with OPA_SHIFT below
//!   [`super::elementwise_alu::MIN_OPA_SHIFT`], a region above 7, an IFM or IFM2 zero point or
//!   an IFM2 scalar outside -128..127 (int8 maps; the bound keeps the ALU's sums in 40 bits). The front end makes this code a
//!   STATUS.cmd_parse_error.
//! - A read error is `kernel_error` [`ERROR_IFM`] (the TRM's IFM channel, for IFM2 too), a
//!   write error [`ERROR_OFM`]; the kernel stops at once.
//! - The IFM2 zero point is signed when IFM2_PRECISION bit 0 says so, also for a scalar
//!   (as the reference executor reads it).
use super::command_set::{register, register_count};
use super::elementwise_alu::ElementwiseAlu;
use super::feature_map::{FeatureMap, SLOTS};
use super::requantize::{Requantize, ScaleProduct};
use rust_hdl::prelude::*;

/// `kernel_error` codes (the TRM's faulting_channel codes for the memory errors, digest §4).
pub const ERROR_IFM: u8 = 1;
pub const ERROR_OFM: u8 = 8;
/// A field value or kernel the NPU does not implement (STATUS.cmd_parse_error).
pub const ERROR_UNSUPPORTED: u8 = 15;

/// States (the model names them in its events).
pub mod state {
    pub const IDLE: u8 = 0;
    pub const LATCH: u8 = 1;
    pub const CHECK: u8 = 2;
    pub const READ_A: u8 = 3;
    pub const WAIT_A: u8 = 4;
    pub const READ_B: u8 = 5;
    pub const WAIT_B: u8 = 6;
    pub const CALC: u8 = 7;
    pub const WRITE: u8 = 8;
    pub const WAIT_W: u8 = 9;
    pub const DONE: u8 = 10;
}

/// The scalar registers the unit keeps (ids into its scalar array; the regions first, as the
/// BASEP reads at the end of LATCH need them).
pub mod scalar {
    pub const IFM_REGION: usize = 0;
    pub const IFM2_REGION: usize = 1;
    pub const OFM_REGION: usize = 2;
    pub const IFM_ZERO_POINT: usize = 3;
    pub const IFM2_ZERO_POINT: usize = 4;
    pub const OFM_ZERO_POINT: usize = 5;
    pub const IFM_PRECISION: usize = 6;
    pub const IFM2_PRECISION: usize = 7;
    pub const OFM_PRECISION: usize = 8;
    pub const IFM2_BROADCAST: usize = 9;
    pub const IFM2_SCALAR: usize = 10;
    pub const OPA_SCALE: usize = 11;
    pub const OPB_SCALE: usize = 12;
    pub const OFM_SCALE: usize = 13;
    pub const ACTIVATION: usize = 14;
    pub const ACTIVATION_MIN: usize = 15;
    pub const ACTIVATION_MAX: usize = 16;
    pub const ACC_FORMAT: usize = 17;
    pub const IFM_UPSCALE: usize = 18;
    pub const OFM_HEIGHT_M1: usize = 19;
    pub const OFM_WIDTH_M1: usize = 20;
    pub const OFM_DEPTH_M1: usize = 21;
    /// The `NPU_SET_*` register of each id, in id order.
    pub const NAMES: [&str; 22] = [
        "IFM_REGION", "IFM2_REGION", "OFM_REGION", "IFM_ZERO_POINT", "IFM2_ZERO_POINT", "OFM_ZERO_POINT", "IFM_PRECISION",
        "IFM2_PRECISION", "OFM_PRECISION", "IFM2_BROADCAST", "IFM2_SCALAR", "OPA_SCALE", "OPB_SCALE", "OFM_SCALE", "ACTIVATION",
        "ACTIVATION_MIN", "ACTIVATION_MAX", "ACC_FORMAT", "IFM_UPSCALE", "OFM_HEIGHT_M1", "OFM_WIDTH_M1", "OFM_DEPTH_M1",
    ];
}

/// The maps, in target-code order (kind 1, 2, 3).
pub const MAPS: [&str; 3] = ["IFM", "IFM2", "OFM"];

/// What LATCH reads before the BASEPs: (register-file index, target), the target
/// `kind << 6 | slot` with kind 0 a scalar id, 1-3 a slot of the IFM, IFM2, OFM block.
pub fn latch_table() -> &'static [(u8, u8)] {
    static TABLE: std::sync::OnceLock<Vec<(u8, u8)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let index = |name: String| {
            (0..register_count()).find(|&i| register(i).is_some_and(|c| c.name == name)).unwrap_or_else(|| panic!("{name} is not a SET command")) as u8
        };
        let scalars = scalar::NAMES.iter().enumerate().map(|(id, n)| (index(format!("NPU_SET_{n}")), id as u8));
        let maps = MAPS.iter().enumerate().flat_map(|(m, map)| SLOTS.iter().enumerate().map(move |(s, slot)| (format!("NPU_SET_{map}_{slot}"), ((m + 1) << 6 | s) as u8)));
        scalars.chain(maps.map(|(name, target)| (index(name), target))).collect()
    })
}

/// LATCH's cycles: the table, the six BASEP reads, and the cycle the last value arrives.
pub const LATCH_STEPS: usize = scalar::NAMES.len() + 3 * SLOTS.len() + 6 + 1;

/// The unit. Its sub-blocks: the three feature-map address generators, the ALU, and the
/// output unit's two arithmetic stages for the OFM scale, zero point and clamp.
#[derive(LogicBlock, Default)]
pub struct Elementwise {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    pub kernel_op: Signal<In, Bits<2>>,
    pub kernel_mode: Signal<In, Bits<16>>,
    pub debug_value: Signal<In, Bits<48>>,
    pub mem_ar_ready: Signal<In, Bit>,
    pub mem_r_valid: Signal<In, Bit>,
    pub mem_r_data: Signal<In, Bits<64>>,
    pub mem_r_error: Signal<In, Bit>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    pub kernel_done: Signal<Out, Bit>,
    pub kernel_error: Signal<Out, Bits<4>>,
    pub debug_index: Signal<Out, Bits<7>>,
    pub debug_hold: Signal<Out, Bit>,
    pub mem_ar_valid: Signal<Out, Bit>,
    pub mem_ar_addr: Signal<Out, Bits<40>>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    ifm: FeatureMap,
    ifm2: FeatureMap,
    ofm: FeatureMap,
    alu: ElementwiseAlu,
    scale_product: ScaleProduct,
    requantize: Requantize,
}

impl Logic for Elementwise {
    fn update(&mut self) {}
    fn connect(&mut self) {
        for s in [&mut self.kernel_done, &mut self.debug_hold, &mut self.mem_ar_valid, &mut self.mem_aw_valid] {
            s.connect();
        }
        self.kernel_error.connect();
        self.debug_index.connect();
        self.mem_ar_addr.connect();
        self.mem_aw_addr.connect();
        self.mem_w_data.connect();
        self.mem_w_strb.connect();
        for m in [&mut self.ifm, &mut self.ifm2, &mut self.ofm] {
            m.clock.connect();
            m.load.connect();
            m.load_slot.connect();
            m.load_value.connect();
            m.y.connect();
            m.x.connect();
            m.c.connect();
        }
        self.alu.mode.connect();
        self.alu.scale_mode.connect();
        self.alu.a.connect();
        self.alu.b.connect();
        self.alu.opa_scale.connect();
        self.alu.opa_shift.connect();
        self.alu.opb_scale.connect();
        self.scale_product.acc.connect();
        self.scale_product.bias.connect();
        self.scale_product.scale.connect();
        self.requantize.product.connect();
        self.requantize.shift.connect();
        self.requantize.rounding.connect();
        self.requantize.zero_point.connect();
        self.requantize.act_min.connect();
        self.requantize.act_max.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

/// The unit's Verilog: the ROM of [`latch_table`] as case statements, then the state machine.
fn verilog() -> String {
    let table = latch_table();
    let n = table.len();
    let index_rom: String = table.iter().enumerate().map(|(k, (i, _))| format!("        6'd{k}: rom_index = 7'd{i};\n")).collect();
    let target_rom: String = table.iter().enumerate().map(|(k, (_, t))| format!("        6'd{k}: rom_target = 8'd{t};\n")).collect();
    let s = |v: u8| format!("4'd{v}");
    format!(
        r#"reg [3:0] state;
reg [5:0] k;
reg [2:0] mode;
reg mode_bad;
reg [3:0] error;
reg [47:0] scalar [0:31];
reg [15:0] y;
reg [15:0] x;
reg [15:0] c;
reg [7:0] ifm_byte;
reg [7:0] ifm2_byte;
reg [39:0] w_addr;
reg [63:0] w_data;
reg [7:0] w_strb;
reg [6:0] rom_index;
reg [7:0] rom_target;
reg [5:0] entry;
reg [5:0] extra;
reg [5:0] step;
reg [7:0] target;
reg [15:0] bcast;
reg [15:0] p_ifm;
reg [15:0] p_ifm2;
reg [15:0] p_ofm;
reg add_sub;
reg bad;
reg [17:0] first;
reg [17:0] second;
reg [63:0] r_shifted;
// Bits read nowhere (fields of registers the unit keeps whole), named unused_* as lint expects.
reg unused_bits;
// A 17-bit two's complement value inside -128..127: its bits 16:7 all equal.
function int8_value(input [9:0] high);
    int8_value = (high == 10'h000) | (high == 10'h3ff);
endfunction
always @(*) begin
    entry = k - 6'd1;
    case (entry)
{target_rom}        default: rom_target = 8'd0;
    endcase
    case (k)
{index_rom}        default: rom_index = 7'd0;
    endcase
    // The BASEP steps: entry n + j reads BASEP 2r + (j & 1) of map j >> 1's region r.
    extra = entry - 6'd{n};
    target = rom_target;
    if (entry >= 6'd{n}) target = {{extra[2:1] + 2'd1, 1'b0, 5'd{basep_low} + {{4'd0, extra[0]}}}};
    bcast = scalar[{broadcast}][15:0];
    p_ifm = scalar[{ifm_precision}][15:0];
    p_ifm2 = scalar[{ifm2_precision}][15:0];
    p_ofm = scalar[{ofm_precision}][15:0];
    add_sub = (mode == 3'd1) | (mode == 3'd2);
    bad = mode_bad
        | (p_ifm[0] == 1'b0) | (p_ifm[3:2] != 2'd0) | (p_ifm[7:6] > 2'd1)
        | (p_ofm[0] == 1'b0) | (p_ofm[2:1] != 2'd0) | (p_ofm[7:6] > 2'd1)
        | (!bcast[7] & ((p_ifm2[0] == 1'b0) | (p_ifm2[3:2] != 2'd0) | (p_ifm2[7:6] > 2'd1)))
        | (scalar[{activation}][4:0] != 5'd0)
        | (scalar[{acc_format}][15:0] > 16'd1)
        | (scalar[{upscale}][15:0] != 16'd0)
        | (add_sub & (p_ifm[9:8] == 2'd3))
        | (add_sub & ((p_ifm[9:8] == 2'd1) | (p_ifm[9:8] == 2'd2)) & (scalar[{opa}][37:32] < 6'd{min_shift}))
        | (scalar[{ifm_region}][15:0] > 16'd7)
        | (scalar[{ofm_region}][15:0] > 16'd7)
        | (!bcast[7] & (scalar[{ifm2_region}][15:0] > 16'd7))
        | !int8_value({{scalar[{ifm_zp}][15], scalar[{ifm_zp}][15:7]}})
        | !int8_value({{p_ifm2[0] & scalar[{ifm2_zp}][15], scalar[{ifm2_zp}][15:7]}})
        | (bcast[7] & !int8_value({{scalar[{ifm2_scalar}][15], scalar[{ifm2_scalar}][15:7]}}));
    // Sub-blocks: the maps load in LATCH; IFM2 broadcasts its coordinates.
    ifm$clock = clock;
    ifm2$clock = clock;
    ofm$clock = clock;
    ifm$load = (state == {latch}) & (k != 6'd0) & (target[7:6] == 2'd1);
    ifm2$load = (state == {latch}) & (k != 6'd0) & (target[7:6] == 2'd2);
    ofm$load = (state == {latch}) & (k != 6'd0) & (target[7:6] == 2'd3);
    ifm$load_slot = target[3:0];
    ifm2$load_slot = target[3:0];
    ofm$load_slot = target[3:0];
    ifm$load_value = debug_value[39:0];
    ifm2$load_value = debug_value[39:0];
    ofm$load_value = debug_value[39:0];
    ifm$y = y;
    ifm$x = x;
    ifm$c = c;
    ofm$y = y;
    ofm$x = x;
    ofm$c = c;
    ifm2$y = bcast[0] ? 16'd0 : y;
    ifm2$x = bcast[1] ? 16'd0 : x;
    ifm2$c = bcast[2] ? 16'd0 : c;
    // Operands minus zero points (18 bits), swapped by IFM2_BROADCAST bit 6.
    first = {{{{10{{ifm_byte[7]}}}}, ifm_byte}} - {{{{2{{scalar[{ifm_zp}][15]}}}}, scalar[{ifm_zp}][15:0]}};
    if (bcast[7]) second = {{{{2{{scalar[{ifm2_scalar}][15]}}}}, scalar[{ifm2_scalar}][15:0]}};
    else second = {{{{10{{ifm2_byte[7]}}}}, ifm2_byte}};
    second = second - {{{{2{{p_ifm2[0] & scalar[{ifm2_zp}][15]}}}}, scalar[{ifm2_zp}][15:0]}};
    alu$mode = mode;
    alu$scale_mode = p_ifm[9:8];
    alu$a = bcast[6] ? second : first;
    alu$b = bcast[6] ? first : second;
    alu$opa_scale = scalar[{opa}][31:0];
    alu$opa_shift = scalar[{opa}][37:32];
    alu$opb_scale = scalar[{opb}][15:0];
end
// Separate blocks for the sub-blocks' outputs: one block that both drives a sub-block's
// inputs and reads its outputs is a combinational loop to Verilator (UNOPTFLAT).
always @(*) begin
    scale_product$acc = alu$result;
    scale_product$bias = 40'd0;
    scale_product$scale = scalar[{ofm_scale}][31:0];
end
always @(*) begin
    requantize$product = scale_product$product;
    requantize$shift = scalar[{ofm_scale}][37:32];
    requantize$rounding = p_ofm[15:14];
    requantize$zero_point = scalar[{ofm_zp}][15:0];
    requantize$act_min = scalar[{act_min}][15:0];
    requantize$act_max = scalar[{act_max}][15:0];
end
always @(*) begin
    kernel_done = state == {done};
    kernel_error = (state == {done}) ? error : 4'd0;
    debug_hold = state == {latch};
    debug_index = 7'd0;
    if ((state == {latch}) & (k < 6'd{n})) debug_index = rom_index;
    step = k - 6'd{n};
    if ((state == {latch}) & (k >= 6'd{n}) & (k < 6'd{last})) debug_index = 7'd{debug_basep} + {{3'd0, scalar[{{3'd0, step[2:1]}}][2:0], step[0]}};
    mem_ar_valid = (state == {read_a}) | (state == {read_b});
    mem_ar_addr = 40'd0;
    if (state == {read_a}) mem_ar_addr = {{ifm$address[39:3], 3'd0}};
    if (state == {read_b}) mem_ar_addr = {{ifm2$address[39:3], 3'd0}};
    mem_aw_valid = state == {write};
    mem_aw_addr = w_addr;
    mem_w_data = w_data;
    mem_w_strb = w_strb;
    r_shifted = mem_r_data >> {{(state == {wait_a}) ? ifm$address[2:0] : ifm2$address[2:0], 3'd0}};
    unused_bits = ^{{requantize$value[15:8], extra[5:3], step[5:3], target[5], bcast[15:8], bcast[5:3], p_ifm[15:10], p_ifm[5:4],
        p_ifm[1], p_ifm2[15:8], p_ifm2[5:4], p_ifm2[1], p_ofm[13:8], p_ofm[5:3], r_shifted[63:8]}};
end
always @(posedge clock) begin
    if ((state == {latch}) & (k != 6'd0) & (target[7:6] == 2'd0)) scalar[target[4:0]] <= debug_value;
    if (reset) begin
        state <= {idle};
        k <= 6'd0;
        mode <= 3'd0;
        mode_bad <= 1'b0;
        error <= 4'd0;
        y <= 16'd0;
        x <= 16'd0;
        c <= 16'd0;
        ifm_byte <= 8'd0;
        ifm2_byte <= 8'd0;
        w_addr <= 40'd0;
        w_data <= 64'd0;
        w_strb <= 8'd0;
    end else begin
        case (state)
            {idle}: if (kernel_start) begin
                if (kernel_op == 2'd3) begin
                    state <= {latch};
                    k <= 6'd0;
                    mode <= kernel_mode[2:0];
                    mode_bad <= kernel_mode > 16'd4;
                end else begin
                    state <= {done};
                    error <= 4'd{unsupported};
                end
            end
            {latch}: begin
                if (k == 6'd{last}) state <= {check};
                else k <= k + 6'd1;
            end
            {check}: begin
                if (bad) begin
                    error <= 4'd{unsupported};
                    state <= {done};
                end else begin
                    error <= 4'd0;
                    y <= 16'd0;
                    x <= 16'd0;
                    c <= 16'd0;
                    state <= {read_a};
                end
            end
            {read_a}: if (mem_ar_ready) state <= {wait_a};
            {read_b}: if (mem_ar_ready) state <= {wait_b};
            {wait_a}: if (mem_r_valid) begin
                if (mem_r_error) begin
                    error <= 4'd{error_ifm};
                    state <= {done};
                end else begin
                    ifm_byte <= r_shifted[7:0];
                    state <= bcast[7] ? {calc} : {read_b};
                end
            end
            {wait_b}: if (mem_r_valid) begin
                if (mem_r_error) begin
                    error <= 4'd{error_ifm};
                    state <= {done};
                end else begin
                    ifm2_byte <= r_shifted[7:0];
                    state <= {calc};
                end
            end
            {calc}: begin
                w_addr <= {{ofm$address[39:3], 3'd0}};
                w_strb <= 8'd1 << ofm$address[2:0];
                w_data <= {{8{{requantize$value[7:0]}}}};
                state <= {write};
            end
            {write}: if (mem_aw_ready) state <= {wait_w};
            {wait_w}: if (mem_b_valid) begin
                if (mem_b_error) begin
                    error <= 4'd{error_ofm};
                    state <= {done};
                end else begin
                    state <= {read_a};
                    if (c == scalar[{depth}][15:0]) begin
                        c <= 16'd0;
                        if (x == scalar[{width}][15:0]) begin
                            x <= 16'd0;
                            if (y == scalar[{height}][15:0]) state <= {done};
                            else y <= y + 16'd1;
                        end else x <= x + 16'd1;
                    end else c <= c + 16'd1;
                end
            end
            default: state <= {idle};
        endcase
    end
end"#,
        basep_low = super::feature_map::BASEP_LOW,
        broadcast = scalar::IFM2_BROADCAST,
        ifm_precision = scalar::IFM_PRECISION,
        ifm2_precision = scalar::IFM2_PRECISION,
        ofm_precision = scalar::OFM_PRECISION,
        activation = scalar::ACTIVATION,
        acc_format = scalar::ACC_FORMAT,
        upscale = scalar::IFM_UPSCALE,
        opa = scalar::OPA_SCALE,
        opb = scalar::OPB_SCALE,
        min_shift = super::elementwise_alu::MIN_OPA_SHIFT,
        ifm_region = scalar::IFM_REGION,
        ofm_region = scalar::OFM_REGION,
        ifm2_region = scalar::IFM2_REGION,
        ifm_zp = scalar::IFM_ZERO_POINT,
        ifm2_zp = scalar::IFM2_ZERO_POINT,
        ofm_zp = scalar::OFM_ZERO_POINT,
        ifm2_scalar = scalar::IFM2_SCALAR,
        ofm_scale = scalar::OFM_SCALE,
        act_min = scalar::ACTIVATION_MIN,
        act_max = scalar::ACTIVATION_MAX,
        depth = scalar::OFM_DEPTH_M1,
        width = scalar::OFM_WIDTH_M1,
        height = scalar::OFM_HEIGHT_M1,
        debug_basep = super::command_front_end::DEBUG_BASEP,
        last = LATCH_STEPS - 1,
        unsupported = ERROR_UNSUPPORTED,
        error_ifm = ERROR_IFM,
        error_ofm = ERROR_OFM,
        idle = s(state::IDLE),
        latch = s(state::LATCH),
        check = s(state::CHECK),
        read_a = s(state::READ_A),
        wait_a = s(state::WAIT_A),
        read_b = s(state::READ_B),
        wait_b = s(state::WAIT_B),
        calc = s(state::CALC),
        write = s(state::WRITE),
        wait_w = s(state::WAIT_W),
        done = s(state::DONE),
    )
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Elementwise::default(), "elementwise");
}
