//! Ethos-U65 convolution datapath: the traversal unit that runs one quantized int8 CONV_2D or
//! DEPTHWISE_CONV_2D layer on the weight decoder, the MAC unit and the output unit (TRM §4,
//! digest `shared/spec/ethos-u65.md` §0, §1.9, §2, §5). The model
//! (`model/src/ethos/conv_datapath.rs`) changes the same registers in the same cycles and
//! documents the phases; docs/ethos.md ("Convolution datapath") has the diagram, the port
//! timing and the decisions.
//!
//! Phases: CHECK the layer registers; DECODE the compressed weight stream into the weight
//! buffer (rows of 64 weights, one per MAC cycle); SCALE_BIAS, the 10-byte records into the
//! parameter memory; then for every 2x2 OFM block and 8-channel OFM group, MAC (one weight row
//! and four IFM reads a cycle) and OUT (the 32 accumulators through the output unit, one a
//! cycle, each written to the OFM port three cycles later); DRAIN; DONE.
use super::{MacUnit, OutputUnit, WeightDecoder};
use crate::primitives::{Diagonal, IfmLanes, MulU, Ram, Reg, SignExtendBits, ZeroExtend};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

/// Rows of 64 weights (8 OFM x 8 IFM channels, 576 bits) the weight buffer holds, and its
/// address width.
pub const WEIGHT_ROWS: u64 = 1 << WEIGHT_ADDRESS_BITS;
const WEIGHT_ADDRESS_BITS: usize = 12;
/// Width of the IFM/OFM height, width and depth registers: each is 1..=4095.
pub const DIM_BITS: usize = 12;

/// `state` values.
pub const STATE_IDLE: u64 = 0;
pub const STATE_CHECK: u64 = 1;
pub const STATE_DECODE: u64 = 2;
pub const STATE_SCALE_BIAS: u64 = 3;
pub const STATE_MAC: u64 = 4;
pub const STATE_OUT: u64 = 5;
pub const STATE_DRAIN: u64 = 6;
pub const STATE_DONE: u64 = 7;

/// `error_code` values; `error_detail` says more.
pub const ERROR_NONE: u64 = 0;
/// A layer register out of range; detail: [`SHAPE_DIMS`] | [`SHAPE_KERNEL`] | ...
pub const ERROR_SHAPE: u64 = 1;
/// The weight decoder found the stream malformed; detail: its error code.
pub const ERROR_WEIGHT_STREAM: u64 = 2;
/// The stream decoded to more or fewer weights than the layer has; detail: weights decoded
/// when the unit stopped (when the first row beyond the layer's completes, or at the stream's end).
pub const ERROR_WEIGHT_COUNT: u64 = 3;
/// `sb_last` before one record per OFM channel; detail: bytes received.
pub const ERROR_SCALE_BIAS_SHORT: u64 = 4;
/// More bytes than the records padded to 16 bytes; detail: bytes received.
pub const ERROR_SCALE_BIAS_LONG: u64 = 5;
/// A record's shift byte has its reserved bits 7:6 set; detail: the OFM channel.
pub const ERROR_SCALE_BIAS_RESERVED: u64 = 6;

/// `ERROR_SHAPE` detail bits.
pub const SHAPE_DIMS: u64 = 1;
pub const SHAPE_KERNEL: u64 = 2;
pub const SHAPE_STRIDE: u64 = 4;
pub const SHAPE_DEPTHWISE: u64 = 8;
pub const SHAPE_WEIGHT_ROWS: u64 = 16;

/// The shift register that gathers decoded weights into rows: 67 lanes of 9 bits, the newest
/// weight on top. A row of 64 (or 8) is the window just below the up to 3 weights of the next
/// row that the completing beat (up to 4 weights) brings.
const GATHER_BITS: u64 = 67 * 9;

#[derive(LogicBlock)]
pub struct ConvDatapath {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Starts a layer (in IDLE). The layer registers below must hold until `done`.
    pub start: Signal<In, Bit>,
    /// Holds the layer where it is in MAC, OUT and DRAIN (a clock enable, low to run): no
    /// register of the traversal changes, the MAC unit does not accumulate and no accumulator
    /// enters the output unit; the values already in the output unit still leave on the OFM
    /// port. An IFM read is answered on `ifm_data` from the cycle after it until the next
    /// cycle without `hold`, which takes the data. In the other phases `hold` does nothing:
    /// the streams' own handshakes pace DECODE and SCALE_BIAS (the weight decoder, a block of
    /// its own, has no clock enable, and its one-cycle `done` must not be missed). The NPU's
    /// convolution unit holds the layer while it serves the IFM reads and the OFM writes
    /// from the one memory port.
    pub hold: Signal<In, Bit>,
    pub ifm_height: Signal<In, Bits<DIM_BITS>>,
    pub ifm_width: Signal<In, Bits<DIM_BITS>>,
    pub ifm_depth: Signal<In, Bits<DIM_BITS>>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    /// 1..=8 each.
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    /// 1..=3 each.
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    /// IFM rows above / columns left of the OFM's first window that are padding.
    pub pad_top: Signal<In, Bits<3>>,
    pub pad_left: Signal<In, Bits<3>>,
    pub depthwise: Signal<In, Bit>,
    /// int8 each.
    pub ifm_zero_point: Signal<In, Bits<8>>,
    pub ofm_zero_point: Signal<In, Bits<8>>,
    pub act_min: Signal<In, Bits<8>>,
    pub act_max: Signal<In, Bits<8>>,
    /// Compressed weight stream (the decoder's input): 32-bit words, valid/ready, last word.
    pub w_valid: Signal<In, Bit>,
    pub w_data: Signal<In, Bits<32>>,
    pub w_last: Signal<In, Bit>,
    pub w_ready: Signal<Out, Bit>,
    /// Scale/bias stream: 32-bit words of `sb_bytes_m1 + 1` bytes (low bytes first).
    pub sb_valid: Signal<In, Bit>,
    pub sb_data: Signal<In, Bits<32>>,
    pub sb_bytes_m1: Signal<In, Bits<2>>,
    pub sb_last: Signal<In, Bit>,
    pub sb_ready: Signal<Out, Bit>,
    /// IFM read port of OFM position p of the 2x2 block (0 (0,0), 1 (0,1), 2 (1,0), 3 (1,1)):
    /// with `ifm_read{p}`, the 8 channels `8 * ifm_group{p} ..` of IFM element
    /// (`ifm_y{p}`, `ifm_x{p}`) are wanted on `ifm_data{p}` in the next cycle (channel
    /// `8g + i` in bits 8i+7:8i; channels beyond the depth may hold anything).
    pub ifm_read0: Signal<Out, Bit>,
    pub ifm_y0: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_x0: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_group0: Signal<Out, Bits<9>>,
    pub ifm_data0: Signal<In, Bits<64>>,
    pub ifm_read1: Signal<Out, Bit>,
    pub ifm_y1: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_x1: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_group1: Signal<Out, Bits<9>>,
    pub ifm_data1: Signal<In, Bits<64>>,
    pub ifm_read2: Signal<Out, Bit>,
    pub ifm_y2: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_x2: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_group2: Signal<Out, Bits<9>>,
    pub ifm_data2: Signal<In, Bits<64>>,
    pub ifm_read3: Signal<Out, Bit>,
    pub ifm_y3: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_x3: Signal<Out, Bits<DIM_BITS>>,
    pub ifm_group3: Signal<Out, Bits<9>>,
    pub ifm_data3: Signal<In, Bits<64>>,
    /// OFM write port: one element a cycle, int16 (within the int8 activation range).
    pub ofm_valid: Signal<Out, Bit>,
    pub ofm_y: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_x: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_channel: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_data: Signal<Out, Bits<16>>,
    pub busy: Signal<Out, Bit>,
    /// One cycle at the end of a layer, with or without error.
    pub done: Signal<Out, Bit>,
    /// Held from `done` until the next `start`.
    pub error_code: Signal<Out, Bits<3>>,
    pub error_detail: Signal<Out, Bits<20>>,
    pub state: Signal<Out, Bits<3>>,

    decoder: WeightDecoder,
    mac: MacUnit,
    output_unit: OutputUnit,
    weight_buffer: Ram<576, WEIGHT_ADDRESS_BITS>,
    /// Per OFM channel {shift[5:0], scale[31:0], bias[39:0]}: a record's first 78 bits.
    parameters: Ram<78, 12>,
    lanes: [IfmLanes; 4],
    diagonal: Diagonal,

    // Layer-derived sizes (CHECK).
    elements: MulU<4, 4, 8>,
    conv_rows: MulU<13, 8, 16>,
    total: MulU<13, 16, 26>,
    ifm_depth13: ZeroExtend<12, 13>,
    ofm_depth13: ZeroExtend<12, 13>,
    ofm_height13: ZeroExtend<12, 13>,
    ofm_width13: ZeroExtend<12, 13>,
    ifm_height14: ZeroExtend<12, 14>,
    ifm_width14: ZeroExtend<12, 14>,
    elements16: ZeroExtend<8, 16>,
    ky14: ZeroExtend<3, 14>,
    kx14: ZeroExtend<3, 14>,
    ky4: ZeroExtend<3, 4>,
    kx4: ZeroExtend<3, 4>,
    stride_y14: ZeroExtend<2, 14>,
    stride_x14: ZeroExtend<2, 14>,
    pad_top14: ZeroExtend<3, 14>,
    pad_left14: ZeroExtend<3, 14>,
    u9: ZeroExtend<2, 9>,
    cg13: ZeroExtend<9, 13>,
    cg_base13: ZeroExtend<9, 13>,
    og13: ZeroExtend<9, 13>,
    group13: ZeroExtend<9, 13>,
    o13: ZeroExtend<3, 13>,
    ofm_zero_point16: SignExtendBits<8, 16>,
    act_min16: SignExtendBits<8, 16>,
    act_max16: SignExtendBits<8, 16>,
    // Weight gathering.
    count10: ZeroExtend<3, 10>,
    count20: ZeroExtend<3, 20>,
    ofm_depth20: ZeroExtend<12, 20>,
    added20: ZeroExtend<2, 20>,
    beat_wide: ZeroExtend<36, 603>,
    // Scale/bias.
    bytes4: ZeroExtend<2, 4>,
    keep6: ZeroExtend<2, 6>,
    word_wide: ZeroExtend<32, 104>,
    held7: ZeroExtend<4, 7>,
    channel20: ZeroExtend<12, 20>,
    decoder_error20: ZeroExtend<4, 20>,

    // Registers.
    phase: Reg<Bits<3>>,
    code: Reg<Bits<3>>,
    detail: Reg<Bits<20>>,
    total_rows: Reg<Bits<13>>,
    scale_bias_limit: Reg<Bits<20>>,
    gather: Reg<Bits<603>>,
    fill: Reg<Bits<10>>,
    rows: Reg<Bits<13>>,
    weights: Reg<Bits<20>>,
    held: Reg<Bits<104>>,
    held_count: Reg<Bits<4>>,
    bytes: Reg<Bits<20>>,
    channel: Reg<Bits<12>>,
    block_y: Reg<Bits<13>>,
    block_x: Reg<Bits<13>>,
    origin_y: Reg<Bits<14>>,
    origin_x: Reg<Bits<14>>,
    og: Reg<Bits<9>>,
    row: Reg<Bits<13>>,
    row_base: Reg<Bits<13>>,
    cg_base: Reg<Bits<9>>,
    u: Reg<Bits<2>>,
    ky: Reg<Bits<3>>,
    kx: Reg<Bits<3>>,
    first: Reg<Bit>,
    k: Reg<Bits<5>>,
    drain: Reg<Bits<2>>,
    mac_valid2: Reg<Bit>,
    clear2: Reg<Bit>,
    pad2: Reg<Bits<4>>,
    live2: Reg<Bits<4>>,
    out_valid2: Reg<Bit>,
    read_index2: Reg<Bits<5>>,
    ofm_y2: Reg<Bits<12>>,
    ofm_x2: Reg<Bits<12>>,
    ofm_c2: Reg<Bits<12>>,
    ofm_y_pipe: [Reg<Bits<12>>; 3],
    ofm_x_pipe: [Reg<Bits<12>>; 3],
    ofm_c_pipe: [Reg<Bits<12>>; 3],

    // Combinational.
    in_idle: Signal<Local, Bit>,
    in_check: Signal<Local, Bit>,
    in_decode: Signal<Local, Bit>,
    in_scale_bias: Signal<Local, Bit>,
    in_mac: Signal<Local, Bit>,
    /// `hold` where it applies: MAC, OUT, DRAIN.
    holding: Signal<Local, Bit>,
    in_out: Signal<Local, Bit>,
    in_drain: Signal<Local, Bit>,
    in_done: Signal<Local, Bit>,
    shape: Signal<Local, Bits<20>>,
    per_og: Signal<Local, Bits<16>>,
    blocks: Signal<Local, Bits<13>>,
    ogs: Signal<Local, Bits<13>>,
    beat: Signal<Local, Bit>,
    complete: Signal<Local, Bit>,
    filled: Signal<Local, Bits<10>>,
    overflow: Signal<Local, Bits<10>>,
    shift_out: Signal<Local, Bits<10>>,
    row_word: Signal<Local, Bits<576>>,
    gathered: Signal<Local, Bits<603>>,
    weights_seen: Signal<Local, Bits<20>>,
    rows_next: Signal<Local, Bits<13>>,
    fill_next: Signal<Local, Bits<10>>,
    take: Signal<Local, Bit>,
    combined: Signal<Local, Bits<104>>,
    count_new: Signal<Local, Bits<4>>,
    bytes_new: Signal<Local, Bits<20>>,
    record: Signal<Local, Bit>,
    reserved: Signal<Local, Bit>,
    iy0: Signal<Local, Bits<14>>,
    iy1: Signal<Local, Bits<14>>,
    ix0: Signal<Local, Bits<14>>,
    ix1: Signal<Local, Bits<14>>,
    row1: Signal<Local, Bit>,
    col1: Signal<Local, Bit>,
    in_y0: Signal<Local, Bit>,
    in_y1: Signal<Local, Bit>,
    in_x0: Signal<Local, Bit>,
    in_x1: Signal<Local, Bit>,
    pad: Signal<Local, Bits<4>>,
    cg: Signal<Local, Bits<9>>,
    group: Signal<Local, Bits<9>>,
    remaining: Signal<Local, Bits<13>>,
    live: Signal<Local, Bits<4>>,
    last_u: Signal<Local, Bit>,
    kx_more: Signal<Local, Bit>,
    ky_more: Signal<Local, Bit>,
    channel_out: Signal<Local, Bits<13>>,
    position_inside: Signal<Local, Bit>,
    out_valid1: Signal<Local, Bit>,
    ifm_row0: Signal<Local, Bits<14>>,
    ifm_row1: Signal<Local, Bits<14>>,
    ifm_col0: Signal<Local, Bits<14>>,
    ifm_col1: Signal<Local, Bits<14>>,
    channel_after: Signal<Local, Bits<12>>,

    // Constants.
    state_idle: Constant<Bits<3>>,
    state_check: Constant<Bits<3>>,
    state_decode: Constant<Bits<3>>,
    state_scale_bias: Constant<Bits<3>>,
    state_mac: Constant<Bits<3>>,
    state_out: Constant<Bits<3>>,
    state_drain: Constant<Bits<3>>,
    state_done: Constant<Bits<3>>,
    error_none: Constant<Bits<3>>,
    error_shape: Constant<Bits<3>>,
    error_weight_stream: Constant<Bits<3>>,
    error_weight_count: Constant<Bits<3>>,
    error_short: Constant<Bits<3>>,
    error_long: Constant<Bits<3>>,
    error_reserved: Constant<Bits<3>>,
    shape_dims: Constant<Bits<20>>,
    shape_kernel: Constant<Bits<20>>,
    shape_stride: Constant<Bits<20>>,
    shape_depthwise: Constant<Bits<20>>,
    shape_weight_rows: Constant<Bits<20>>,
    zero2: Constant<Bits<2>>,
    zero3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    zero9: Constant<Bits<9>>,
    zero12: Constant<Bits<12>>,
    zero13: Constant<Bits<13>>,
    zero20: Constant<Bits<20>>,
    one2: Constant<Bits<2>>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    one5: Constant<Bits<5>>,
    one9: Constant<Bits<9>>,
    one13: Constant<Bits<13>>,
    two13: Constant<Bits<13>>,
    three2: Constant<Bits<2>>,
    three16: Constant<Bits<16>>,
    zero5: Constant<Bits<5>>,
    three13: Constant<Bits<13>>,
    four9: Constant<Bits<9>>,
    four13: Constant<Bits<13>>,
    seven13: Constant<Bits<13>>,
    eight4: Constant<Bits<4>>,
    eight13: Constant<Bits<13>>,
    eight14: Constant<Bits<14>>,
    ten4: Constant<Bits<4>>,
    thirty_one13: Constant<Bits<13>>,
    gather_bits10: Constant<Bits<10>>,
    rows_max26: Constant<Bits<26>>,
    round20: Constant<Bits<20>>,
    fifteen20: Constant<Bits<20>>,
    one20: Constant<Bits<20>>,
    zero10: Constant<Bits<10>>,
    three10: Constant<Bits<10>>,
    two10: Constant<Bits<10>>,
    one10: Constant<Bits<10>>,
    four10: Constant<Bits<10>>,
    eight10: Constant<Bits<10>>,
    sixty_four10: Constant<Bits<10>>,
    zero104: Constant<Bits<104>>,
    zero8: Constant<Bits<8>>,
    one12: Constant<Bits<12>>,
    shift1: Constant<Bits<4>>,
    shift2: Constant<Bits<4>>,
    shift3: Constant<Bits<4>>,
    shift5: Constant<Bits<4>>,
    shift80: Constant<Bits<7>>,
    round4_16: Constant<Bits<16>>,
    ones32: Constant<Bits<32>>,
    last_k: Constant<Bits<5>>,
    pad_bit: [Constant<Bits<4>>; 4],
}

impl Default for ConvDatapath {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            hold: Default::default(),
            ifm_height: Default::default(),
            ifm_width: Default::default(),
            ifm_depth: Default::default(),
            ofm_height: Default::default(),
            ofm_width: Default::default(),
            ofm_depth: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            pad_top: Default::default(),
            pad_left: Default::default(),
            depthwise: Default::default(),
            ifm_zero_point: Default::default(),
            ofm_zero_point: Default::default(),
            act_min: Default::default(),
            act_max: Default::default(),
            w_valid: Default::default(),
            w_data: Default::default(),
            w_last: Default::default(),
            w_ready: Default::default(),
            sb_valid: Default::default(),
            sb_data: Default::default(),
            sb_bytes_m1: Default::default(),
            sb_last: Default::default(),
            sb_ready: Default::default(),
            ifm_read0: Default::default(),
            ifm_y0: Default::default(),
            ifm_x0: Default::default(),
            ifm_group0: Default::default(),
            ifm_data0: Default::default(),
            ifm_read1: Default::default(),
            ifm_y1: Default::default(),
            ifm_x1: Default::default(),
            ifm_group1: Default::default(),
            ifm_data1: Default::default(),
            ifm_read2: Default::default(),
            ifm_y2: Default::default(),
            ifm_x2: Default::default(),
            ifm_group2: Default::default(),
            ifm_data2: Default::default(),
            ifm_read3: Default::default(),
            ifm_y3: Default::default(),
            ifm_x3: Default::default(),
            ifm_group3: Default::default(),
            ifm_data3: Default::default(),
            ofm_valid: Default::default(),
            ofm_y: Default::default(),
            ofm_x: Default::default(),
            ofm_channel: Default::default(),
            ofm_data: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            error_code: Default::default(),
            error_detail: Default::default(),
            state: Default::default(),
            decoder: Default::default(),
            mac: Default::default(),
            output_unit: Default::default(),
            weight_buffer: Default::default(),
            parameters: Default::default(),
            lanes: Default::default(),
            diagonal: Default::default(),
            elements: Default::default(),
            conv_rows: Default::default(),
            total: Default::default(),
            ifm_depth13: Default::default(),
            ofm_depth13: Default::default(),
            ofm_height13: Default::default(),
            ofm_width13: Default::default(),
            ifm_height14: Default::default(),
            ifm_width14: Default::default(),
            elements16: Default::default(),
            ky14: Default::default(),
            kx14: Default::default(),
            ky4: Default::default(),
            kx4: Default::default(),
            stride_y14: Default::default(),
            stride_x14: Default::default(),
            pad_top14: Default::default(),
            pad_left14: Default::default(),
            u9: Default::default(),
            cg13: Default::default(),
            cg_base13: Default::default(),
            og13: Default::default(),
            group13: Default::default(),
            o13: Default::default(),
            ofm_zero_point16: Default::default(),
            act_min16: Default::default(),
            act_max16: Default::default(),
            count10: Default::default(),
            count20: Default::default(),
            ofm_depth20: Default::default(),
            added20: Default::default(),
            beat_wide: Default::default(),
            bytes4: Default::default(),
            keep6: Default::default(),
            word_wide: Default::default(),
            held7: Default::default(),
            channel20: Default::default(),
            decoder_error20: Default::default(),
            phase: Default::default(),
            code: Default::default(),
            detail: Default::default(),
            total_rows: Default::default(),
            scale_bias_limit: Default::default(),
            gather: Default::default(),
            fill: Default::default(),
            rows: Default::default(),
            weights: Default::default(),
            held: Default::default(),
            held_count: Default::default(),
            bytes: Default::default(),
            channel: Default::default(),
            block_y: Default::default(),
            block_x: Default::default(),
            origin_y: Default::default(),
            origin_x: Default::default(),
            og: Default::default(),
            row: Default::default(),
            row_base: Default::default(),
            cg_base: Default::default(),
            u: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            first: Default::default(),
            k: Default::default(),
            drain: Default::default(),
            mac_valid2: Default::default(),
            clear2: Default::default(),
            pad2: Default::default(),
            live2: Default::default(),
            out_valid2: Default::default(),
            read_index2: Default::default(),
            ofm_y2: Default::default(),
            ofm_x2: Default::default(),
            ofm_c2: Default::default(),
            ofm_y_pipe: Default::default(),
            ofm_x_pipe: Default::default(),
            ofm_c_pipe: Default::default(),
            in_idle: Default::default(),
            in_check: Default::default(),
            in_decode: Default::default(),
            in_scale_bias: Default::default(),
            in_mac: Default::default(),
            holding: Default::default(),
            in_out: Default::default(),
            in_drain: Default::default(),
            in_done: Default::default(),
            shape: Default::default(),
            per_og: Default::default(),
            blocks: Default::default(),
            ogs: Default::default(),
            beat: Default::default(),
            complete: Default::default(),
            filled: Default::default(),
            overflow: Default::default(),
            shift_out: Default::default(),
            row_word: Default::default(),
            gathered: Default::default(),
            weights_seen: Default::default(),
            rows_next: Default::default(),
            fill_next: Default::default(),
            take: Default::default(),
            combined: Default::default(),
            count_new: Default::default(),
            bytes_new: Default::default(),
            record: Default::default(),
            reserved: Default::default(),
            iy0: Default::default(),
            iy1: Default::default(),
            ix0: Default::default(),
            ix1: Default::default(),
            row1: Default::default(),
            col1: Default::default(),
            in_y0: Default::default(),
            in_y1: Default::default(),
            in_x0: Default::default(),
            in_x1: Default::default(),
            pad: Default::default(),
            cg: Default::default(),
            group: Default::default(),
            remaining: Default::default(),
            live: Default::default(),
            last_u: Default::default(),
            kx_more: Default::default(),
            ky_more: Default::default(),
            channel_out: Default::default(),
            position_inside: Default::default(),
            out_valid1: Default::default(),
            ifm_row0: Default::default(),
            ifm_row1: Default::default(),
            ifm_col0: Default::default(),
            ifm_col1: Default::default(),
            channel_after: Default::default(),
            state_idle: k(STATE_IDLE),
            state_check: k(STATE_CHECK),
            state_decode: k(STATE_DECODE),
            state_scale_bias: k(STATE_SCALE_BIAS),
            state_mac: k(STATE_MAC),
            state_out: k(STATE_OUT),
            state_drain: k(STATE_DRAIN),
            state_done: k(STATE_DONE),
            error_none: k(ERROR_NONE),
            error_shape: k(ERROR_SHAPE),
            error_weight_stream: k(ERROR_WEIGHT_STREAM),
            error_weight_count: k(ERROR_WEIGHT_COUNT),
            error_short: k(ERROR_SCALE_BIAS_SHORT),
            error_long: k(ERROR_SCALE_BIAS_LONG),
            error_reserved: k(ERROR_SCALE_BIAS_RESERVED),
            shape_dims: k(SHAPE_DIMS),
            shape_kernel: k(SHAPE_KERNEL),
            shape_stride: k(SHAPE_STRIDE),
            shape_depthwise: k(SHAPE_DEPTHWISE),
            shape_weight_rows: k(SHAPE_WEIGHT_ROWS),
            zero2: k(0),
            zero3: k(0),
            zero4: k(0),
            zero9: k(0),
            zero12: k(0),
            zero13: k(0),
            zero20: k(0),
            one2: k(1),
            one3: k(1),
            one4: k(1),
            one5: k(1),
            one9: k(1),
            one13: k(1),
            two13: k(2),
            three2: k(3),
            three16: k(3),
            zero5: k(0),
            three13: k(3),
            four9: k(4),
            four13: k(4),
            seven13: k(7),
            eight4: k(8),
            eight13: k(8),
            eight14: k(8),
            ten4: k(10),
            thirty_one13: k(31),
            gather_bits10: k(GATHER_BITS),
            rows_max26: k(WEIGHT_ROWS),
            round20: k(0xFFFF0),
            fifteen20: k(15),
            one20: k(1),
            zero10: k(0),
            three10: k(3),
            two10: k(2),
            one10: k(1),
            four10: k(4),
            eight10: k(8),
            sixty_four10: k(64),
            zero104: k(0),
            zero8: k(0),
            one12: k(1),
            shift1: k(1),
            shift2: k(2),
            shift3: k(3),
            shift5: k(5),
            shift80: k(80),
            round4_16: k(0xFFFC),
            ones32: k(0xFFFF_FFFF),
            last_k: k(31),
            pad_bit: std::array::from_fn(|p| k(1 << p)),
        }
    }
}

impl Logic for ConvDatapath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            code,
            detail,
            total_rows,
            scale_bias_limit,
            gather,
            fill,
            rows,
            weights,
            held,
            held_count,
            bytes,
            channel,
            block_y,
            block_x,
            origin_y,
            origin_x,
            og,
            row,
            row_base,
            cg_base,
            u,
            ky,
            kx,
            first,
            k,
            drain,
            mac_valid2,
            clear2,
            pad2,
            live2,
            out_valid2,
            read_index2,
            ofm_y2,
            ofm_x2,
            ofm_c2
        );
        self.phase.reset.next = self.reset.val();
        self.code.reset.next = self.reset.val();
        self.detail.reset.next = self.reset.val();
        self.total_rows.reset.next = self.reset.val();
        self.scale_bias_limit.reset.next = self.reset.val();
        self.gather.reset.next = self.reset.val();
        self.fill.reset.next = self.reset.val();
        self.rows.reset.next = self.reset.val();
        self.weights.reset.next = self.reset.val();
        self.held.reset.next = self.reset.val();
        self.held_count.reset.next = self.reset.val();
        self.bytes.reset.next = self.reset.val();
        self.channel.reset.next = self.reset.val();
        self.block_y.reset.next = self.reset.val();
        self.block_x.reset.next = self.reset.val();
        self.origin_y.reset.next = self.reset.val();
        self.origin_x.reset.next = self.reset.val();
        self.og.reset.next = self.reset.val();
        self.row.reset.next = self.reset.val();
        self.row_base.reset.next = self.reset.val();
        self.cg_base.reset.next = self.reset.val();
        self.u.reset.next = self.reset.val();
        self.ky.reset.next = self.reset.val();
        self.kx.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.k.reset.next = self.reset.val();
        self.drain.reset.next = self.reset.val();
        self.mac_valid2.reset.next = self.reset.val();
        self.clear2.reset.next = self.reset.val();
        self.pad2.reset.next = self.reset.val();
        self.live2.reset.next = self.reset.val();
        self.out_valid2.reset.next = self.reset.val();
        self.read_index2.reset.next = self.reset.val();
        self.ofm_y2.reset.next = self.reset.val();
        self.ofm_x2.reset.next = self.reset.val();
        self.ofm_c2.reset.next = self.reset.val();
        for i in 0..3 {
            self.ofm_y_pipe[i].clock.next = self.clock.val();
            self.ofm_x_pipe[i].clock.next = self.clock.val();
            self.ofm_c_pipe[i].clock.next = self.clock.val();
            self.ofm_y_pipe[i].reset.next = self.reset.val();
            self.ofm_x_pipe[i].reset.next = self.reset.val();
            self.ofm_c_pipe[i].reset.next = self.reset.val();
        }
        self.ofm_y_pipe[0].d.next = self.ofm_y2.q.val();
        self.ofm_x_pipe[0].d.next = self.ofm_x2.q.val();
        self.ofm_c_pipe[0].d.next = self.ofm_c2.q.val();
        for i in 1..3 {
            self.ofm_y_pipe[i].d.next = self.ofm_y_pipe[i - 1].q.val();
            self.ofm_x_pipe[i].d.next = self.ofm_x_pipe[i - 1].q.val();
            self.ofm_c_pipe[i].d.next = self.ofm_c_pipe[i - 1].q.val();
        }
        self.decoder.clock.next = self.clock.val();
        self.mac.clock.next = self.clock.val();
        self.mac.reset.next = self.reset.val();
        self.output_unit.clock.next = self.clock.val();
        self.output_unit.reset.next = self.reset.val();
        self.weight_buffer.clock.next = self.clock.val();
        self.weight_buffer.reset.next = self.reset.val();
        self.parameters.clock.next = self.clock.val();
        self.parameters.reset.next = self.reset.val();

        self.in_idle.next = self.phase.q.val() == self.state_idle.val();
        self.in_check.next = self.phase.q.val() == self.state_check.val();
        self.in_decode.next = self.phase.q.val() == self.state_decode.val();
        self.in_scale_bias.next = self.phase.q.val() == self.state_scale_bias.val();
        self.in_mac.next = self.phase.q.val() == self.state_mac.val();
        self.in_out.next = self.phase.q.val() == self.state_out.val();
        self.in_drain.next = self.phase.q.val() == self.state_drain.val();
        self.holding.next = self.hold.val() & (self.in_mac.val() | self.in_out.val() | self.in_drain.val());
        self.in_done.next = self.phase.q.val() == self.state_done.val();
        self.busy.next = !self.in_idle.val();
        self.done.next = self.in_done.val();
        self.error_code.next = self.code.q.val();
        self.error_detail.next = self.detail.q.val();
        self.state.next = self.phase.q.val();

        // Widened layer registers.
        self.ifm_depth13.narrow.next = self.ifm_depth.val();
        self.ofm_depth13.narrow.next = self.ofm_depth.val();
        self.ofm_depth20.narrow.next = self.ofm_depth.val();
        self.ofm_height13.narrow.next = self.ofm_height.val();
        self.ofm_width13.narrow.next = self.ofm_width.val();
        self.ifm_height14.narrow.next = self.ifm_height.val();
        self.ifm_width14.narrow.next = self.ifm_width.val();
        self.stride_y14.narrow.next = self.stride_y.val();
        self.stride_x14.narrow.next = self.stride_x.val();
        self.pad_top14.narrow.next = self.pad_top.val();
        self.pad_left14.narrow.next = self.pad_left.val();
        self.ofm_zero_point16.narrow.next = self.ofm_zero_point.val();
        self.act_min16.narrow.next = self.act_min.val();
        self.act_max16.narrow.next = self.act_max.val();

        // CHECK: the weight rows the layer needs, in Vela's order (§1.9): per 8-channel OFM
        // group, conv: 4 rows of 8 IFM channels per 32-channel IFM block and kernel element;
        // depthwise: one row per kernel element, padded to a multiple of 4 elements.
        self.elements.a.next = self.kernel_height.val();
        self.elements.b.next = self.kernel_width.val();
        self.elements16.narrow.next = self.elements.product.val();
        self.blocks.next = (self.ifm_depth13.wide.val() + self.thirty_one13.val()) >> self.shift5.val();
        self.conv_rows.a.next = self.blocks.val();
        self.conv_rows.b.next = self.elements.product.val();
        self.per_og.next = self.conv_rows.product.val() << self.shift2.val();
        if self.depthwise.val() {
            self.per_og.next = (self.elements16.wide.val() + self.three16.val()) & self.round4_16.val();
        }
        self.ogs.next = (self.ofm_depth13.wide.val() + self.seven13.val()) >> self.shift3.val();
        self.total.a.next = self.ogs.val();
        self.total.b.next = self.per_og.val();
        self.shape.next = self.zero20.val();
        if (self.ifm_height.val() == self.zero12.val())
            | (self.ifm_width.val() == self.zero12.val())
            | (self.ifm_depth.val() == self.zero12.val())
            | (self.ofm_height.val() == self.zero12.val())
            | (self.ofm_width.val() == self.zero12.val())
            | (self.ofm_depth.val() == self.zero12.val())
        {
            self.shape.next = self.shape.val() | self.shape_dims.val();
        }
        if (self.kernel_height.val() == self.zero4.val())
            | (self.kernel_height.val() > self.eight4.val())
            | (self.kernel_width.val() == self.zero4.val())
            | (self.kernel_width.val() > self.eight4.val())
        {
            self.shape.next = self.shape.val() | self.shape_kernel.val();
        }
        if (self.stride_y.val() == self.zero2.val()) | (self.stride_x.val() == self.zero2.val()) {
            self.shape.next = self.shape.val() | self.shape_stride.val();
        }
        if self.depthwise.val() & (self.ifm_depth.val() != self.ofm_depth.val()) {
            self.shape.next = self.shape.val() | self.shape_depthwise.val();
        }
        if self.total.product.val() > self.rows_max26.val() {
            self.shape.next = self.shape.val() | self.shape_weight_rows.val();
        }

        // DECODE: the decoder restarts with every layer; its beats (1..=4 weights) shift into
        // `gather`, newest on top. A beat that completes a row (64 weights; depthwise 8, placed
        // on the diagonal) writes it; the weights beyond it stay for the next row.
        // These read the state register itself, not `in_decode`: a statement that reads the
        // decoder's `in_ready` must share no local with those that drive its inputs, or
        // Verilator sees a combinational loop through the two always blocks (UNOPTFLAT).
        self.decoder.reset.next = self.reset.val() | (self.phase.q.val() == self.state_check.val());
        self.decoder.in_valid.next = self.w_valid.val() & (self.phase.q.val() == self.state_decode.val());
        self.decoder.in_data.next = self.w_data.val();
        self.decoder.in_last.next = self.w_last.val();
        self.decoder.out_ready.next = self.phase.q.val() == self.state_decode.val();
        self.w_ready.next = self.decoder.in_ready.val() & (self.phase.q.val() == self.state_decode.val());
        self.beat.next = self.decoder.out_valid.val() & self.in_decode.val();
        self.count10.narrow.next = self.decoder.out_count.val();
        self.count20.narrow.next = self.decoder.out_count.val();
        self.beat_wide.narrow.next = self.decoder.out_data.val();
        self.shift_out.next = (self.count10.wide.val() << self.shift3.val()) + self.count10.wide.val();
        self.gathered.next = (self.gather.q.val() >> self.shift_out.val())
            | (self.beat_wide.wide.val() << (self.gather_bits10.val() - self.shift_out.val()));
        self.filled.next = self.fill.q.val();
        self.weights_seen.next = self.weights.q.val();
        if self.beat.val() {
            self.filled.next = self.fill.q.val() + self.count10.wide.val();
            self.weights_seen.next = self.weights.q.val() + self.count20.wide.val();
        }
        self.overflow.next = self.filled.val() - self.sixty_four10.val();
        if self.depthwise.val() {
            self.overflow.next = self.filled.val() - self.eight10.val();
        }
        self.complete.next = self.beat.val() & (self.overflow.val() < self.four10.val());
        // The row is the 64 lanes just below the `overflow` newest ones (depthwise: its 8
        // weights are the top 8 of those; the MAC side spreads them on the diagonal).
        self.row_word.next = self.gathered.val().get_bits::<576>(27);
        if self.overflow.val() == self.one10.val() {
            self.row_word.next = self.gathered.val().get_bits::<576>(18);
        }
        if self.overflow.val() == self.two10.val() {
            self.row_word.next = self.gathered.val().get_bits::<576>(9);
        }
        if self.overflow.val() == self.three10.val() {
            self.row_word.next = self.gathered.val().get_bits::<576>(0);
        }
        self.weight_buffer.write_enable.next = self.complete.val() & (self.rows.q.val() != self.total_rows.q.val());
        self.weight_buffer.write_address.next = self.rows.q.val().get_bits::<12>(0);
        self.weight_buffer.write_data.next = self.row_word.val();
        self.rows_next.next = self.rows.q.val();
        self.fill_next.next = self.filled.val();
        if self.complete.val() {
            self.rows_next.next = self.rows.q.val() + self.one13.val();
            self.fill_next.next = self.overflow.val();
        }
        self.decoder_error20.narrow.next = self.decoder.error_code.val();

        // SCALE_BIAS: bytes gather in `held` (up to 9 left from the last word plus 4 new);
        // every 10 make a record, written to the channel's parameters.
        self.sb_ready.next = self.in_scale_bias.val();
        self.take.next = self.sb_valid.val() & self.in_scale_bias.val();
        self.bytes4.narrow.next = self.sb_bytes_m1.val();
        self.keep6.narrow.next = self.three2.val() - self.sb_bytes_m1.val();
        self.word_wide.narrow.next = self.sb_data.val() & (self.ones32.val() >> (self.keep6.wide.val() << self.shift3.val()));
        self.held7.narrow.next = self.held_count.q.val();
        self.combined.next = self.held.q.val() | (self.word_wide.wide.val() << (self.held7.wide.val() << self.shift3.val()));
        self.count_new.next = self.held_count.q.val() + self.bytes4.wide.val() + self.one4.val();
        self.added20.narrow.next = self.sb_bytes_m1.val();
        self.bytes_new.next = self.bytes.q.val() + self.added20.wide.val() + self.one20.val();
        self.record.next = (self.channel.q.val() != self.ofm_depth.val()) & (self.count_new.val() >= self.ten4.val());
        self.reserved.next = self.combined.val().get_bits::<2>(78) != self.zero2.val();
        self.channel_after.next = self.channel.q.val();
        if self.record.val() {
            self.channel_after.next = self.channel.q.val() + self.one12.val();
        }
        self.parameters.write_enable.next = self.take.val() & self.record.val();
        self.parameters.write_address.next = self.channel.q.val();
        self.parameters.write_data.next = self.combined.val().get_bits::<78>(0);
        self.channel20.narrow.next = self.channel.q.val();

        // MAC: one tap a cycle, the weight row and the 4 positions' IFM channels read now and
        // used in the next cycle (stage 2). `origin_*` are the block's first IFM row/column
        // plus 8 (so that padding above/left stays non-negative).
        self.ky14.narrow.next = self.ky.q.val();
        self.kx14.narrow.next = self.kx.q.val();
        self.ky4.narrow.next = self.ky.q.val();
        self.kx4.narrow.next = self.kx.q.val();
        self.iy0.next = self.origin_y.q.val() + self.ky14.wide.val();
        self.iy1.next = self.iy0.val() + self.stride_y14.wide.val();
        self.ix0.next = self.origin_x.q.val() + self.kx14.wide.val();
        self.ix1.next = self.ix0.val() + self.stride_x14.wide.val();
        self.row1.next = (self.block_y.q.val() + self.one13.val()) < self.ofm_height13.wide.val();
        self.col1.next = (self.block_x.q.val() + self.one13.val()) < self.ofm_width13.wide.val();
        // Inside the IFM: 0 <= iy - 8 < H (below 0 wraps to above any height).
        self.ifm_row0.next = self.iy0.val() - self.eight14.val();
        self.ifm_row1.next = self.iy1.val() - self.eight14.val();
        self.ifm_col0.next = self.ix0.val() - self.eight14.val();
        self.ifm_col1.next = self.ix1.val() - self.eight14.val();
        self.in_y0.next = self.ifm_row0.val() < self.ifm_height14.wide.val();
        self.in_y1.next = self.row1.val() & (self.ifm_row1.val() < self.ifm_height14.wide.val());
        self.in_x0.next = self.ifm_col0.val() < self.ifm_width14.wide.val();
        self.in_x1.next = self.col1.val() & (self.ifm_col1.val() < self.ifm_width14.wide.val());
        self.pad.next = self.zero4.val();
        if !(self.in_y0.val() & self.in_x0.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[0].val();
        }
        if !(self.in_y0.val() & self.in_x1.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[1].val();
        }
        if !(self.in_y1.val() & self.in_x0.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[2].val();
        }
        if !(self.in_y1.val() & self.in_x1.val()) {
            self.pad.next = self.pad.val() | self.pad_bit[3].val();
        }
        self.u9.narrow.next = self.u.q.val();
        self.cg.next = self.cg_base.q.val() + self.u9.wide.val();
        self.group.next = self.cg.val();
        if self.depthwise.val() {
            self.group.next = self.og.q.val();
        }
        self.group13.narrow.next = self.group.val();
        self.remaining.next = self.ifm_depth13.wide.val() - (self.group13.wide.val() << self.shift3.val());
        self.live.next = self.remaining.val().get_bits::<4>(0);
        if self.remaining.val() >= self.eight13.val() {
            self.live.next = self.eight4.val();
        }
        self.ifm_read0.next = self.in_mac.val() & !self.pad.val().get_bit(0);
        self.ifm_read1.next = self.in_mac.val() & !self.pad.val().get_bit(1);
        self.ifm_read2.next = self.in_mac.val() & !self.pad.val().get_bit(2);
        self.ifm_read3.next = self.in_mac.val() & !self.pad.val().get_bit(3);
        self.ifm_y0.next = self.ifm_row0.val().get_bits::<12>(0);
        self.ifm_y1.next = self.ifm_row0.val().get_bits::<12>(0);
        self.ifm_y2.next = self.ifm_row1.val().get_bits::<12>(0);
        self.ifm_y3.next = self.ifm_row1.val().get_bits::<12>(0);
        self.ifm_x0.next = self.ifm_col0.val().get_bits::<12>(0);
        self.ifm_x1.next = self.ifm_col1.val().get_bits::<12>(0);
        self.ifm_x2.next = self.ifm_col0.val().get_bits::<12>(0);
        self.ifm_x3.next = self.ifm_col1.val().get_bits::<12>(0);
        self.ifm_group0.next = self.group.val();
        self.ifm_group1.next = self.group.val();
        self.ifm_group2.next = self.group.val();
        self.ifm_group3.next = self.group.val();
        self.weight_buffer.read_enable.next = self.in_mac.val() & !self.holding.val();
        self.weight_buffer.read_address.next = self.row.q.val().get_bits::<12>(0);
        self.mac_valid2.d.next = self.in_mac.val();
        self.clear2.d.next = self.first.q.val();
        self.pad2.d.next = self.pad.val();
        self.live2.d.next = self.live.val();
        // Next tap. Conv: 8-channel groups u of the 32-channel block (those beyond the IFM
        // depth skipped), then kernel elements, then blocks; depthwise: kernel elements.
        self.cg13.narrow.next = self.cg.val();
        self.cg_base13.narrow.next = self.cg_base.q.val();
        self.last_u.next = (self.u.q.val() == self.three2.val())
            | (((self.cg13.wide.val() + self.one13.val()) << self.shift3.val()) >= self.ifm_depth13.wide.val());
        self.kx_more.next = (self.kx4.wide.val() + self.one4.val()) < self.kernel_width.val();
        self.ky_more.next = (self.ky4.wide.val() + self.one4.val()) < self.kernel_height.val();

        // OUT: accumulator k = 8p + o of the block, read with its channel's parameters now,
        // into the output unit in the next cycle (stage 2).
        self.og13.narrow.next = self.og.q.val();
        self.o13.narrow.next = self.k.q.val().get_bits::<3>(0);
        self.channel_out.next = (self.og13.wide.val() << self.shift3.val()) + self.o13.wide.val();
        self.position_inside.next = (!self.k.q.val().get_bit(4) | self.row1.val()) & (!self.k.q.val().get_bit(3) | self.col1.val());
        // Only a valid one reads its parameters: the others' entries may never have been
        // written, and the output unit computes on whatever it is given.
        self.out_valid1.next = self.in_out.val() & self.position_inside.val() & (self.channel_out.val() < self.ofm_depth13.wide.val());
        self.parameters.read_enable.next = self.out_valid1.val() & !self.holding.val();
        self.parameters.read_address.next = self.channel_out.val().get_bits::<12>(0);
        self.out_valid2.d.next = self.out_valid1.val();
        self.read_index2.d.next = self.k.q.val();
        self.ofm_y2.d.next = self.block_y.q.val().get_bits::<12>(0);
        if self.k.q.val().get_bit(4) {
            self.ofm_y2.d.next = self.block_y.q.val().get_bits::<12>(0) + self.one12.val();
        }
        self.ofm_x2.d.next = self.block_x.q.val().get_bits::<12>(0);
        if self.k.q.val().get_bit(3) {
            self.ofm_x2.d.next = self.block_x.q.val().get_bits::<12>(0) + self.one12.val();
        }
        self.ofm_c2.d.next = self.channel_out.val().get_bits::<12>(0);

        // Stage 2: the MAC unit and the output unit.
        self.lanes[0].data.next = self.ifm_data0.val();
        self.lanes[1].data.next = self.ifm_data1.val();
        self.lanes[2].data.next = self.ifm_data2.val();
        self.lanes[3].data.next = self.ifm_data3.val();
        for p in 0..4 {
            self.lanes[p].zero_point.next = self.ifm_zero_point.val();
            self.lanes[p].live.next = self.live2.q.val();
        }
        self.mac.enable.next = self.mac_valid2.q.val() & !self.holding.val();
        self.mac.clear.next = self.clear2.q.val();
        self.mac.mode.next = self.zero2.val();
        if self.depthwise.val() {
            self.mac.mode.next = self.one2.val();
        }
        self.mac.act16_high.next = false;
        self.mac.pad.next = self.pad2.q.val();
        self.mac.act0.next = self.lanes[0].lanes.val();
        self.mac.act1.next = self.lanes[1].lanes.val();
        self.mac.act2.next = self.lanes[2].lanes.val();
        self.mac.act3.next = self.lanes[3].lanes.val();
        self.mac.w0.next = self.weight_buffer.read_data.val().get_bits::<72>(0);
        self.mac.w1.next = self.weight_buffer.read_data.val().get_bits::<72>(72);
        self.mac.w2.next = self.weight_buffer.read_data.val().get_bits::<72>(144);
        self.mac.w3.next = self.weight_buffer.read_data.val().get_bits::<72>(216);
        self.mac.w4.next = self.weight_buffer.read_data.val().get_bits::<72>(288);
        self.mac.w5.next = self.weight_buffer.read_data.val().get_bits::<72>(360);
        self.mac.w6.next = self.weight_buffer.read_data.val().get_bits::<72>(432);
        self.mac.w7.next = self.weight_buffer.read_data.val().get_bits::<72>(504);
        self.diagonal.lanes.next = self.weight_buffer.read_data.val().get_bits::<72>(504);
        if self.depthwise.val() {
            self.mac.w0.next = self.diagonal.matrix.val().get_bits::<72>(0);
            self.mac.w1.next = self.diagonal.matrix.val().get_bits::<72>(72);
            self.mac.w2.next = self.diagonal.matrix.val().get_bits::<72>(144);
            self.mac.w3.next = self.diagonal.matrix.val().get_bits::<72>(216);
            self.mac.w4.next = self.diagonal.matrix.val().get_bits::<72>(288);
            self.mac.w5.next = self.diagonal.matrix.val().get_bits::<72>(360);
            self.mac.w6.next = self.diagonal.matrix.val().get_bits::<72>(432);
            self.mac.w7.next = self.diagonal.matrix.val().get_bits::<72>(504);
        }
        self.mac.read_index.next = self.read_index2.q.val();
        self.output_unit.in_valid.next = self.out_valid2.q.val() & !self.holding.val();
        self.output_unit.acc.next = self.mac.acc_out.val();
        self.output_unit.bias.next = self.parameters.read_data.val().get_bits::<40>(0);
        self.output_unit.scale.next = self.parameters.read_data.val().get_bits::<32>(40);
        self.output_unit.shift.next = self.parameters.read_data.val().get_bits::<6>(72);
        self.output_unit.rounding.next = self.zero2.val();
        self.output_unit.zero_point.next = self.ofm_zero_point16.wide.val();
        self.output_unit.act_min.next = self.act_min16.wide.val();
        self.output_unit.act_max.next = self.act_max16.wide.val();
        self.output_unit.lut_enable.next = false;
        self.output_unit.lut_write.next = false;
        self.output_unit.lut_address.next = self.zero8.val();
        self.output_unit.lut_data.next = self.zero8.val();
        self.ofm_valid.next = self.output_unit.out_valid.val();
        self.ofm_y.next = self.ofm_y_pipe[2].q.val();
        self.ofm_x.next = self.ofm_x_pipe[2].q.val();
        self.ofm_channel.next = self.ofm_c_pipe[2].q.val();
        self.ofm_data.next = self.output_unit.out_value.val();

        // The state machine.
        if self.in_idle.val() & self.start.val() {
            self.phase.d.next = self.state_check.val();
        }
        if self.in_check.val() {
            self.code.d.next = self.error_none.val();
            self.detail.d.next = self.zero20.val();
            self.total_rows.d.next = self.total.product.val().get_bits::<13>(0);
            self.scale_bias_limit.d.next = ((self.ofm_depth20.wide.val() << self.shift3.val())
                + (self.ofm_depth20.wide.val() << self.shift1.val())
                + self.fifteen20.val())
                & self.round20.val();
            self.fill.d.next = self.zero10.val();
            self.weights.d.next = self.zero20.val();
            self.rows.d.next = self.zero13.val();
            self.held.d.next = self.zero104.val();
            self.held_count.d.next = self.zero4.val();
            self.bytes.d.next = self.zero20.val();
            self.channel.d.next = self.zero12.val();
            self.block_y.d.next = self.zero13.val();
            self.block_x.d.next = self.zero13.val();
            self.origin_y.d.next = self.eight14.val() - self.pad_top14.wide.val();
            self.origin_x.d.next = self.eight14.val() - self.pad_left14.wide.val();
            self.og.d.next = self.zero9.val();
            self.row.d.next = self.zero13.val();
            self.row_base.d.next = self.zero13.val();
            self.cg_base.d.next = self.zero9.val();
            self.u.d.next = self.zero2.val();
            self.ky.d.next = self.zero3.val();
            self.kx.d.next = self.zero3.val();
            self.first.d.next = true;
            self.k.d.next = self.zero5.val();
            self.phase.d.next = self.state_decode.val();
            if self.shape.val() != self.zero20.val() {
                self.code.d.next = self.error_shape.val();
                self.detail.d.next = self.shape.val();
                self.phase.d.next = self.state_done.val();
            }
        }
        if self.in_decode.val() {
            if self.beat.val() {
                self.gather.d.next = self.gathered.val();
            }
            self.rows.d.next = self.rows_next.val();
            self.fill.d.next = self.fill_next.val();
            self.weights.d.next = self.weights_seen.val();
            if self.complete.val() & (self.rows.q.val() == self.total_rows.q.val()) {
                self.code.d.next = self.error_weight_count.val();
                self.detail.d.next = self.weights_seen.val();
                self.phase.d.next = self.state_done.val();
            } else if self.decoder.error.val() {
                self.code.d.next = self.error_weight_stream.val();
                self.detail.d.next = self.decoder_error20.wide.val();
                self.phase.d.next = self.state_done.val();
            } else if self.decoder.done.val() {
                self.phase.d.next = self.state_scale_bias.val();
                if (self.rows_next.val() != self.total_rows.q.val()) | (self.fill_next.val() != self.zero10.val()) {
                    self.code.d.next = self.error_weight_count.val();
                    self.detail.d.next = self.weights_seen.val();
                    self.phase.d.next = self.state_done.val();
                }
            }
        }
        if self.take.val() {
            self.bytes.d.next = self.bytes_new.val();
            if self.record.val() {
                self.held.d.next = self.combined.val() >> self.shift80.val();
                self.held_count.d.next = self.count_new.val() - self.ten4.val();
                self.channel.d.next = self.channel.q.val() + self.one12.val();
            } else if self.channel.q.val() != self.ofm_depth.val() {
                self.held.d.next = self.combined.val();
                self.held_count.d.next = self.count_new.val();
            }
            if self.bytes_new.val() > self.scale_bias_limit.q.val() {
                self.code.d.next = self.error_long.val();
                self.detail.d.next = self.bytes_new.val();
                self.phase.d.next = self.state_done.val();
            } else if self.record.val() & self.reserved.val() {
                self.code.d.next = self.error_reserved.val();
                self.detail.d.next = self.channel20.wide.val();
                self.phase.d.next = self.state_done.val();
            } else if self.sb_last.val() {
                self.phase.d.next = self.state_mac.val();
                if self.channel_after.val() != self.ofm_depth.val() {
                    self.code.d.next = self.error_short.val();
                    self.detail.d.next = self.bytes_new.val();
                    self.phase.d.next = self.state_done.val();
                }
            }
        }
        if self.in_mac.val() {
            self.first.d.next = false;
            if self.depthwise.val() {
                self.row.d.next = self.row.q.val() + self.one13.val();
                if self.kx_more.val() {
                    self.kx.d.next = self.kx.q.val() + self.one3.val();
                } else if self.ky_more.val() {
                    self.kx.d.next = self.zero3.val();
                    self.ky.d.next = self.ky.q.val() + self.one3.val();
                } else {
                    // The group's rows are padded to a multiple of 4.
                    self.kx.d.next = self.zero3.val();
                    self.ky.d.next = self.zero3.val();
                    self.row.d.next = (self.row.q.val() | self.three13.val()) + self.one13.val();
                    self.row_base.d.next = (self.row.q.val() | self.three13.val()) + self.one13.val();
                    self.phase.d.next = self.state_out.val();
                }
            } else if !self.last_u.val() {
                self.u.d.next = self.u.q.val() + self.one2.val();
                self.row.d.next = self.row.q.val() + self.one13.val();
            } else {
                self.u.d.next = self.zero2.val();
                self.row.d.next = self.row_base.q.val() + self.four13.val();
                self.row_base.d.next = self.row_base.q.val() + self.four13.val();
                if self.kx_more.val() {
                    self.kx.d.next = self.kx.q.val() + self.one3.val();
                } else if self.ky_more.val() {
                    self.kx.d.next = self.zero3.val();
                    self.ky.d.next = self.ky.q.val() + self.one3.val();
                } else {
                    self.kx.d.next = self.zero3.val();
                    self.ky.d.next = self.zero3.val();
                    if ((self.cg_base13.wide.val() + self.four13.val()) << self.shift3.val()) < self.ifm_depth13.wide.val() {
                        self.cg_base.d.next = self.cg_base.q.val() + self.four9.val();
                    } else {
                        self.cg_base.d.next = self.zero9.val();
                        self.phase.d.next = self.state_out.val();
                    }
                }
            }
        }
        if self.in_out.val() {
            self.k.d.next = self.k.q.val() + self.one5.val();
            if self.k.q.val() == self.last_k.val() {
                self.first.d.next = true;
                self.phase.d.next = self.state_mac.val();
                if ((self.og13.wide.val() + self.one13.val()) << self.shift3.val()) < self.ofm_depth13.wide.val() {
                    self.og.d.next = self.og.q.val() + self.one9.val();
                } else {
                    // The block's last group: back to the first row, next block.
                    self.og.d.next = self.zero9.val();
                    self.row.d.next = self.zero13.val();
                    self.row_base.d.next = self.zero13.val();
                    if (self.block_x.q.val() + self.two13.val()) < self.ofm_width13.wide.val() {
                        self.block_x.d.next = self.block_x.q.val() + self.two13.val();
                        self.origin_x.d.next = self.origin_x.q.val() + (self.stride_x14.wide.val() << self.shift1.val());
                    } else if (self.block_y.q.val() + self.two13.val()) < self.ofm_height13.wide.val() {
                        self.block_x.d.next = self.zero13.val();
                        self.block_y.d.next = self.block_y.q.val() + self.two13.val();
                        self.origin_x.d.next = self.eight14.val() - self.pad_left14.wide.val();
                        self.origin_y.d.next = self.origin_y.q.val() + (self.stride_y14.wide.val() << self.shift1.val());
                    } else {
                        self.drain.d.next = self.zero2.val();
                        self.phase.d.next = self.state_drain.val();
                    }
                }
            }
        }
        // The last value leaves the output unit 4 cycles after the last OUT cycle.
        if self.in_drain.val() {
            self.drain.d.next = self.drain.q.val() + self.one2.val();
            if self.drain.q.val() == self.three2.val() {
                self.phase.d.next = self.state_done.val();
            }
        }
        if self.in_done.val() {
            self.phase.d.next = self.state_idle.val();
        }
        // `hold`: every register of the traversal keeps its value (the OFM address pipeline
        // beside the output unit goes on with it).
        if self.holding.val() {
            self.phase.d.next = self.phase.q.val();
            self.code.d.next = self.code.q.val();
            self.detail.d.next = self.detail.q.val();
            self.total_rows.d.next = self.total_rows.q.val();
            self.scale_bias_limit.d.next = self.scale_bias_limit.q.val();
            self.gather.d.next = self.gather.q.val();
            self.fill.d.next = self.fill.q.val();
            self.rows.d.next = self.rows.q.val();
            self.weights.d.next = self.weights.q.val();
            self.held.d.next = self.held.q.val();
            self.held_count.d.next = self.held_count.q.val();
            self.bytes.d.next = self.bytes.q.val();
            self.channel.d.next = self.channel.q.val();
            self.block_y.d.next = self.block_y.q.val();
            self.block_x.d.next = self.block_x.q.val();
            self.origin_y.d.next = self.origin_y.q.val();
            self.origin_x.d.next = self.origin_x.q.val();
            self.og.d.next = self.og.q.val();
            self.row.d.next = self.row.q.val();
            self.row_base.d.next = self.row_base.q.val();
            self.cg_base.d.next = self.cg_base.q.val();
            self.u.d.next = self.u.q.val();
            self.ky.d.next = self.ky.q.val();
            self.kx.d.next = self.kx.q.val();
            self.first.d.next = self.first.q.val();
            self.k.d.next = self.k.q.val();
            self.drain.d.next = self.drain.q.val();
            self.mac_valid2.d.next = self.mac_valid2.q.val();
            self.clear2.d.next = self.clear2.q.val();
            self.pad2.d.next = self.pad2.q.val();
            self.live2.d.next = self.live2.q.val();
            self.out_valid2.d.next = self.out_valid2.q.val();
            self.read_index2.d.next = self.read_index2.q.val();
            self.ofm_y2.d.next = self.ofm_y2.q.val();
            self.ofm_x2.d.next = self.ofm_x2.q.val();
            self.ofm_c2.d.next = self.ofm_c2.q.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvDatapath::default(), "conv_datapath");
}
