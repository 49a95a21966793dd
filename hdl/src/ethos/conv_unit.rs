//! The convolution unit: NPU_OP_CONV and NPU_OP_DEPTHWISE (TRM §4.6; digest
//! `shared/spec/ethos-u65.md` §1.9, §2, §3.2) on the convolution datapath
//! ([`super::ConvDatapath`]), behind the front end's kernel handshake beside the kernel unit
//! (`elementwise.rs`), on the NPU's one memory port. The model is
//! `npu_model::ethos::conv_unit`; docs/ethos.md, "Convolution unit", has the structure, the
//! timing and the decisions, which are also here.
//!
//! Sub-blocks, one a file: the LATCH registers, CHECK and the datapath's layer registers
//! (`conv_layer.rs`), the datapath, the stream reader (`stream_reader.rs`), the IFM server
//! (`ifm_server.rs`), the OFM queue (`ofm_queue.rs`), the hold (`conv_ports.rs`) and the read
//! channel that the stream reader and the IFM server share (`conv_read_channel.rs`), the
//! states (`conv_states.rs`); this block keeps the error.
//!
//! Verilator loops (UNOPTFLAT): Verilator evaluates the datapath's combinational block as one
//! node, every input before every output, and splits this block's `always` only into groups
//! that share no signal written here. So every datapath input is driven from registers, from
//! a sub-block whose outputs are registers or logic on registers only, or from an expression
//! of registers written directly in the connection (`state == RUN`, not the local `running`,
//! which the statements that read the datapath's outputs share): a datapath input computed
//! from a signal those statements also write is a loop through the datapath for Verilator,
//! though none in the logic.
//!
//! States: IDLE; LATCH ([`super::kernel_registers`], the one table every kernel reads: the
//! maps, the scalars, the weight and scale streams and the BASEPs of their regions); CHECK (one
//! cycle; a layer the unit does not walk is `kernel_error` [`ERROR_UNSUPPORTED`], before any
//! access); RUN (the datapath runs; its sub-blocks below); FINISH (until the OFM queue is
//! written and no access is in flight); DONE (`kernel_done` with the error).
//!
//! In RUN, one read in flight for the whole unit (the arbiter's rule):
//! - the stream reader reads the weight stream (`BASEP[WEIGHT_REGION] + WEIGHT_BASE`,
//!   WEIGHT_LENGTH bytes), then the scale stream, one aligned 64-bit word at a time, and
//!   hands each to the datapath's 32-bit `w_*` / `sb_*` port as two words (`w_last` /
//!   `sb_last` on the stream's last); a weight word the datapath no longer takes (its decoder
//!   has finished or failed) is dropped;
//! - the IFM server: while the datapath shows a tap's reads in MAC, the unit holds its
//!   traversal (`hold_mac`; the output walk drains on), reads for each of the four positions that reads the one or two aligned words
//!   holding the group's `min(8, depth - 8g)` bytes through the IFM feature map, gathers them,
//!   and releases the hold for one cycle when all four are in (a MAC cycle that reads no
//!   position, a group's last tap waiting for the output walk or a tap all padding, is
//!   neither held nor served: it goes through at once, `conv_ports.rs`); the gathered words are shown on
//!   `ifm_data0..3` from the cycle after the release until the next release (the datapath
//!   takes them in the first cycle it is not held, `conv_datapath.rs`). A packed depthwise
//!   cycle (`pack_depthwise` is set for every DEPTHWISE) is served the same way: its four
//!   ports read elements of their own rows and columns (a fresh cycle one window row's four
//!   columns, a reuse cycle columns 2 and 3 of two rows), which the server gathers one port
//!   after another as it gathers a tap's 2x2 block;
//! - the OFM queue: [`QUEUE`] entries, each one cycle of the datapath's OFM port (up to 16
//!   values, one OFM row of its 2x2 block: its output lanes), each value written as one strobed
//!   byte at the OFM feature map's address; the datapath is held while the queue and the
//!   values on the OFM port leave fewer than 4 entries free (the output lanes' pipeline still
//!   delivers what it holds under `hold`); its one write in flight is the unit's write
//!   channel.
//!
//! Decisions (CHECK refuses, `kernel_error` 15, STATUS.cmd_parse_error): an IFM or OFM not
//! signed 8-bit NHWC/NHCWB16; an NHWC IFM whose STRIDE_C is not 1 (the server reads a group's
//! channels as contiguous bytes); OFM rounding other than TFL (OFM_PRECISION[15:14]; the
//! datapath's output unit rounds as TFLite); ACTIVATION[4:0] ≠ 0, ACC_FORMAT > 1,
//! IFM_UPSCALE other than 0, 2 on a CONV (zero insertion, Vela's TRANSPOSE_CONV) and 1 on a
//! DEPTHWISE (nearest, Vela's RESIZE_NEAREST_NEIGHBOR with align_corners; positions mapped by
//! `ifm_upscale.rs`); an IFM, OFM, weight or scale region above 7; an IFM or OFM zero point or
//! ACTIVATION_MIN/MAX outside int8; a kernel side above 15 (KERNEL_*_M1 above 14, or above
//! 28 with dilation 2: the datapath's 4-bit kernel ports; larger sides are walked as Vela's
//! sub-kernels); a dilation (KERNEL_STRIDE[4:3]) whose KERNEL_*_M1 is odd (no whole kernel
//! fits it; Vela writes `(k - 1)·2`); a stride above 3; a top or left padding above 7; an OFM_BLK_DEPTH that is not a multiple of
//! 8 or above 128 (the datapath's weight-row address walks Vela's order in 8-channel OFM
//! groups, `weight_rows.rs`; the TRM's least block depth is 8); a size above 4095
//! or an IFM extent outside 1..4095; a weight or scale stream not starting 16-byte aligned
//! (`BASEP + BASE`), or whose LENGTH is 0, not a multiple of 16 or of 2^32 bytes or more. The
//! datapath's own errors (shape, weight or scale stream) are [`ERROR_UNSUPPORTED`] too. A
//! read error is [`ERROR_WEIGHTS`], [`ERROR_SCALE`] or [`ERROR_IFM`] (the TRM's
//! faulting_channel of the stream), a write error [`ERROR_OFM`]; the unit then starts no new
//! access and stops when those in flight are answered.

/// `kernel_error` codes (the TRM's faulting_channel codes, digest §4; 15: not implemented).
pub const ERROR_IFM: u8 = 1;
pub const ERROR_WEIGHTS: u8 = 2;
pub const ERROR_SCALE: u8 = 3;
pub const ERROR_OFM: u8 = 8;
pub const ERROR_UNSUPPORTED: u8 = 15;
/// The OFM queue's entries, each one OFM port cycle of up to 16 values since the 16 output
/// lanes: 8 (128 values, twice the 16 entries of four values before), so that two OFM
/// groups' 2 port cycles fit beside the 4 the hold leaves room for. With 16 entries of 16
/// values the queue never filled in the random conv networks (no hold, the hold untested
/// there); with 8 entries of four values it stayed full for most of a group's writes and the
/// hold kept ready taps waiting (docs/ethos.md).
pub const QUEUE: usize = 8;

/// States (the model names them in its events).
pub mod state {
    pub const IDLE: u8 = 0;
    pub const LATCH: u8 = 1;
    pub const CHECK: u8 = 2;
    pub const RUN: u8 = 3;
    pub const FINISH: u8 = 4;
    pub const DONE: u8 = 5;
}

use super::conv_datapath::ConvDatapath;
use super::conv_layer::ConvLayer;
use super::conv_ports::ConvHold;
use super::conv_read_channel::ConvReadChannel;
use super::conv_states::ConvStates;
use super::ifm_server::IfmServer;
use super::ifm_upscale::IfmUpscale;
use super::ofm_queue::OfmQueue;
use super::stream_reader::StreamReader;
use crate::primitives::constant as k;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

/// The datapath's SCALE_BIAS state (`conv_datapath.rs`): after it (DECODE follows) the
/// datapath is past SCALE_BIAS; a weight word is dropped from MAC on.
const DP_SCALE_BIAS: u64 = 3;

/// The unit: states, CHECK, the layer registers, the error and the read channel; the
/// sub-blocks above.
#[derive(LogicBlock)]
pub struct ConvUnit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    pub kernel_op: Signal<In, Bits<2>>,
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
    layer: ConvLayer,
    datapath: ConvDatapath,
    ports: ConvHold,
    reader: StreamReader,
    upscale: IfmUpscale,
    server: IfmServer,
    ofm_queue: OfmQueue,
    /// The states, the datapath's start and reset (`conv_states.rs`).
    states: ConvStates,
    error: Reg<Bits<4>>,
    /// The read channel the stream reader and the IFM server share.
    channel: ConvReadChannel,
    unused_bits: Signal<Local, Bit>,
    s_idle: Constant<Bits<3>>,
    s_latch: Constant<Bits<3>>,
    s_check: Constant<Bits<3>>,
    s_run: Constant<Bits<3>>,
    dp_scale_bias: Constant<Bits<3>>,
    e_none: Constant<Bits<4>>,
    e_ofm: Constant<Bits<4>>,
    zero2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    zero9: Constant<Bits<9>>,
    zero5: Constant<Bits<5>>,
}

impl Default for ConvUnit {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            kernel_start: Default::default(),
            kernel_op: Default::default(),
            debug_value: Default::default(),
            mem_ar_ready: Default::default(),
            mem_r_valid: Default::default(),
            mem_r_data: Default::default(),
            mem_r_error: Default::default(),
            mem_aw_ready: Default::default(),
            mem_b_valid: Default::default(),
            mem_b_error: Default::default(),
            kernel_done: Default::default(),
            kernel_error: Default::default(),
            debug_index: Default::default(),
            debug_hold: Default::default(),
            mem_ar_valid: Default::default(),
            mem_ar_addr: Default::default(),
            mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(),
            mem_w_data: Default::default(),
            mem_w_strb: Default::default(),
            layer: Default::default(),
            datapath: Default::default(),
            ports: Default::default(),
            reader: Default::default(),
            upscale: Default::default(),
            server: Default::default(),
            ofm_queue: Default::default(),
            states: Default::default(),
            error: Default::default(),
            channel: Default::default(),
            unused_bits: Default::default(),
            s_idle: k(state::IDLE.into()),
            s_latch: k(state::LATCH.into()),
            s_check: k(state::CHECK.into()),
            s_run: k(state::RUN.into()),
            dp_scale_bias: k(DP_SCALE_BIAS),
            e_none: k(0),
            e_ofm: k(ERROR_OFM.into()),
            zero2: k(0),
            three2: k(3),
            zero9: k(0),
            zero5: k(0),
        }
    }
}

impl Logic for ConvUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, error);
        self.error.reset.next = self.reset.val();
        self.states.clock.next = self.clock.val();
        self.states.reset.next = self.reset.val();
        self.channel.clock.next = self.clock.val();
        self.channel.reset.next = self.reset.val();
        self.datapath.clock.next = self.clock.val();
        self.reader.clock.next = self.clock.val();
        self.reader.reset.next = self.reset.val();
        self.server.clock.next = self.clock.val();
        self.server.reset.next = self.reset.val();
        self.ofm_queue.clock.next = self.clock.val();
        self.ofm_queue.reset.next = self.reset.val();

        // LATCH, started by a CONV or DEPTHWISE (the top routes only those here).
        self.layer.latch.next = (self.states.state.val() == self.s_idle.val()) & self.kernel_start.val();
        self.layer.debug_value.next = self.debug_value.val();
        self.debug_index.next = self.layer.debug_index.val();
        self.debug_hold.next = self.layer.debug_hold.val();
        self.server.load.next = self.layer.ifm_load.val();
        self.ofm_queue.load.next = self.layer.ofm_load.val();
        self.server.load_slot.next = self.layer.load_slot.val();
        self.ofm_queue.load_slot.next = self.layer.load_slot.val();
        self.server.load_value.next = self.layer.load_value.val();
        self.ofm_queue.load_value.next = self.layer.load_value.val();

        // The layer registers and CHECK (`conv_layer.rs`).
        self.layer.clock.next = self.clock.val();
        self.layer.reset.next = self.reset.val();
        self.layer.check.next = self.states.state.val() == self.s_check.val();
        self.layer.track.next = (self.states.state.val() == self.s_latch.val()) | (self.states.state.val() == self.s_check.val());
        // The states (`conv_states.rs`), from registers only.
        self.states.kernel_start.next = self.kernel_start.val();
        self.states.kernel_depthwise.next = self.kernel_op.val().get_bit(0);
        self.states.latched.next = self.layer.latched.val();
        self.states.bad.next = self.layer.bad.val();
        self.states.upscale.next = self.layer.upscale.val();
        self.states.dp_done.next = self.datapath.done.val();
        self.states.dp_failed.next = self.datapath.error_code.val().any();
        self.states.read_idle.next = self.channel.state.val() == self.zero2.val();
        self.states.write_idle.next = self.ofm_queue.idle.val();
        self.states.queue_empty.next = self.ofm_queue.count.val() == self.zero5.val();
        self.states.error.next = self.error.q.val();
        self.kernel_done.next = self.states.kernel_done.val();
        self.kernel_error.next = self.states.kernel_error.val();
        // The datapath is reset in DONE and in the cycle after the unit's reset (a cycle later
        // than the unit's sub-blocks; nothing reads the datapath before CHECK, and its
        // outputs reach the unit's ports only in RUN).
        self.datapath.reset.next = self.states.dp_reset.val();
        self.datapath.start.next = self.states.dp_start.val();
        self.datapath.ifm_height.next = self.layer.ifm_height.val();
        self.datapath.ifm_width.next = self.layer.ifm_width.val();
        self.datapath.ifm_depth.next = self.layer.ifm_depth.val();
        self.datapath.ofm_height.next = self.layer.ofm_height.val();
        self.datapath.ofm_width.next = self.layer.ofm_width.val();
        self.datapath.ofm_depth.next = self.layer.ofm_depth.val();
        self.datapath.kernel_height.next = self.layer.kernel_height.val();
        self.datapath.kernel_width.next = self.layer.kernel_width.val();
        self.datapath.stride_y.next = self.layer.stride_y.val();
        self.datapath.stride_x.next = self.layer.stride_x.val();
        self.datapath.pad_top.next = self.layer.pad_top.val();
        self.datapath.pad_left.next = self.layer.pad_left.val();
        self.datapath.depthwise.next = self.states.depthwise.val();
        self.datapath.part_kernel.next = self.layer.part_kernel.val();
        self.datapath.block_groups_m1.next = self.layer.block_groups_m1.val();
        self.datapath.dilation_y.next = self.layer.dilation_y.val();
        self.datapath.dilation_x.next = self.layer.dilation_x.val();
        // Every DEPTHWISE runs packed where the datapath's mapping takes it (its `layer_packed`;
        // docs/ethos.md, "Packed traversal"): the IFM server already serves the four read ports
        // each at its own row, column and group, so a packed cycle's four elements are
        // gathered and released as a tap's 2x2 block is, and `ifm_upscale.rs` maps each alone
        // (an align_corners resize's DEPTHWISE runs packed too).
        self.datapath.pack_depthwise.next = self.states.depthwise.val();
        self.datapath.ifm_zero_point.next = self.layer.ifm_zero_point.val();
        self.datapath.ofm_zero_point.next = self.layer.ofm_zero_point.val();
        self.datapath.act_min.next = self.layer.act_min.val();
        self.datapath.act_max.next = self.layer.act_max.val();

        // Hold and release (`conv_ports.rs`; `running` from the state register directly, see
        // the module comment).
        self.ports.running.next = self.states.state.val() == self.s_run.val();
        self.ports.dp_state.next = self.datapath.state.val();
        self.ports.dp_ofm_valid.next = self.datapath.ofm_valid.val().get_bit(0);
        self.ports.dp_read0.next = self.datapath.ifm_read0.val();
        self.ports.dp_read1.next = self.datapath.ifm_read1.val();
        self.ports.dp_read2.next = self.datapath.ifm_read2.val();
        self.ports.dp_read3.next = self.datapath.ifm_read3.val();
        self.ports.ifs_ready.next = self.server.ready.val();
        self.ports.q_count.next = self.ofm_queue.count.val();
        self.datapath.hold.next = self.ports.hold.val();
        self.datapath.hold_mac.next = self.ports.hold_mac.val();

        // The stream reader (`stream_reader.rs`) on the datapath's stream ports.
        self.reader.check.next = self.states.state.val() == self.s_check.val();
        // `start` and `can_read` from the registers, not from a statement shared with the
        // input-reading error: the reader's request leaves the input region (docs/ethos.md, NPU step 4).
        self.reader.start.next = self.states.start.val();
        self.reader.weight_start.next = self.layer.weight_start.val();
        self.reader.weight_words.next = self.layer.weight_words.val();
        self.reader.scale_start.next = self.layer.scale_start.val();
        self.reader.scale_words.next = self.layer.scale_words.val();
        self.reader.running.next = self.states.state.val() == self.s_run.val();
        self.datapath.w_valid.next = self.reader.w_valid.val();
        self.datapath.w_data.next = self.reader.data.val();
        self.datapath.w_last.next = self.reader.last.val();
        self.datapath.sb_valid.next = self.reader.sb_valid.val();
        self.datapath.sb_data.next = self.reader.data.val();
        self.datapath.sb_last.next = self.reader.last.val();
        self.datapath.sb_bytes_m1.next = self.three2.val();
        // The word shown leaves the buffer: taken, or (weights) dropped after the decoder.
        self.reader.taken.next = (self.reader.w_valid.val() & (self.datapath.w_ready.val() | (self.datapath.state.val() > self.dp_scale_bias.val())))
            | (self.reader.sb_valid.val() & self.datapath.sb_ready.val());

        // The IFM server (`ifm_server.rs`) on the datapath's IFM ports.
        self.server.clear.next = self.states.state.val() == self.s_check.val();
        self.server.active.next =
            (self.states.state.val() == self.s_run.val()) & (self.error.q.val() == self.e_none.val()) & self.ports.tap_reads.val();
        self.server.active_copy.next =
            (self.states.state.val() == self.s_run.val()) & (self.error.q.val() == self.e_none.val()) & self.ports.tap_reads.val();
        self.server.tap_release.next = self.ports.tap_release.val();
        self.server.ifm_depth_m1.next = self.layer.ifm_depth_m1.val();
        // Through the IFM upscale (`ifm_upscale.rs`): an upscaled position to its IFM element.
        self.upscale.enable.next =
            (self.states.state.val() == self.s_run.val()) & (self.error.q.val() == self.e_none.val()) & self.ports.tap_reads.val();
        self.upscale.mode.next = self.layer.upscale.val();
        self.upscale.zero_point.next = self.layer.ifm_zero_point.val();
        self.server.zero_word.next = self.upscale.zero_word.val();
        self.upscale.read_in0.next = self.datapath.ifm_read0.val();
        self.upscale.y_in0.next = self.datapath.ifm_y0.val();
        self.upscale.x_in0.next = self.datapath.ifm_x0.val();
        self.server.ifm_read0.next = self.upscale.read0.val();
        self.server.ifm_zero0.next = self.upscale.zero0.val();
        self.server.ifm_y0.next = self.upscale.y0.val();
        self.server.ifm_x0.next = self.upscale.x0.val();
        self.server.ifm_group0.next = self.datapath.ifm_group0.val();
        self.upscale.read_in1.next = self.datapath.ifm_read1.val();
        self.upscale.y_in1.next = self.datapath.ifm_y1.val();
        self.upscale.x_in1.next = self.datapath.ifm_x1.val();
        self.server.ifm_read1.next = self.upscale.read1.val();
        self.server.ifm_zero1.next = self.upscale.zero1.val();
        self.server.ifm_y1.next = self.upscale.y1.val();
        self.server.ifm_x1.next = self.upscale.x1.val();
        self.server.ifm_group1.next = self.datapath.ifm_group1.val();
        self.upscale.read_in2.next = self.datapath.ifm_read2.val();
        self.upscale.y_in2.next = self.datapath.ifm_y2.val();
        self.upscale.x_in2.next = self.datapath.ifm_x2.val();
        self.server.ifm_read2.next = self.upscale.read2.val();
        self.server.ifm_zero2.next = self.upscale.zero2.val();
        self.server.ifm_y2.next = self.upscale.y2.val();
        self.server.ifm_x2.next = self.upscale.x2.val();
        self.server.ifm_group2.next = self.datapath.ifm_group2.val();
        self.upscale.read_in3.next = self.datapath.ifm_read3.val();
        self.upscale.y_in3.next = self.datapath.ifm_y3.val();
        self.upscale.x_in3.next = self.datapath.ifm_x3.val();
        self.server.ifm_read3.next = self.upscale.read3.val();
        self.server.ifm_zero3.next = self.upscale.zero3.val();
        self.server.ifm_y3.next = self.upscale.y3.val();
        self.server.ifm_x3.next = self.upscale.x3.val();
        self.server.ifm_group3.next = self.datapath.ifm_group3.val();
        self.datapath.ifm_data0.next = self.server.ifm_data0.val();
        self.datapath.ifm_data1.next = self.server.ifm_data1.val();
        self.datapath.ifm_data2.next = self.server.ifm_data2.val();
        self.datapath.ifm_data3.next = self.server.ifm_data3.val();

        // The read channel: a release first (no read), then the stream reader, then the IFM
        // server (from the registers at the cycle's start).
        // (`conv_read_channel.rs`).
        self.channel.ar_ready.next = self.mem_ar_ready.val();
        self.channel.r_valid.next = self.mem_r_valid.val();
        self.channel.r_error.next = self.mem_r_error.val();
        self.mem_ar_valid.next = self.channel.ar_valid.val();
        self.mem_ar_addr.next = self.channel.ar_addr.val();
        self.reader.can_read.next =
            (self.states.state.val() == self.s_run.val()) & (self.error.q.val() == self.e_none.val()) & (self.channel.state.val() == self.zero2.val());
        self.reader.grant.next = self.reader.wants.val() & !self.ports.tap_release.val();
        self.reader.response.next = self.channel.reader_response.val();
        self.reader.response_data.next = self.mem_r_data.val();
        self.reader.response_scale.next = self.channel.response_scale.val();
        self.reader.response_last.next = self.channel.response_last.val();
        self.server.free.next = (self.channel.state.val() == self.zero2.val()) & !self.reader.wants.val();
        self.server.response.next = self.channel.server_response.val();
        self.server.response_data.next = self.mem_r_data.val();
        if self.channel.read_error.val() & (self.error.q.val() == self.e_none.val()) {
            self.error.d.next = self.channel.error_code.val();
        }
        self.channel.grant.next = self.reader.grant.val();
        self.channel.reader_addr.next = self.reader.addr.val();
        self.channel.reader_stream.next = self.reader.stream.val();
        self.channel.reader_last.next = self.reader.last_word.val();
        self.channel.request.next = self.server.request.val();
        self.channel.server_addr.next = self.server.address.val();

        // The OFM queue (`ofm_queue.rs`) and the write channel.
        self.ofm_queue.clear.next = self.states.state.val() == self.s_check.val();
        // From the registers directly (not the locals `ok`, `running`), as `server.active_copy`.
        self.ofm_queue.ok.next = self.error.q.val() == self.e_none.val();
        self.ofm_queue.lanes.next = self.datapath.ofm_valid.val().get_bits::<9>(0);
        if self.states.state.val() != self.s_run.val() {
            self.ofm_queue.lanes.next = self.zero9.val();
        }
        self.ofm_queue.ofm_y.next = self.datapath.ofm_y.val();
        self.ofm_queue.ofm_x.next = self.datapath.ofm_x.val();
        self.ofm_queue.ofm_channel.next = self.datapath.ofm_channel.val();
        self.ofm_queue.ofm_data.next = self.datapath.ofm_data.val();
        self.ofm_queue.mem_aw_ready.next = self.mem_aw_ready.val();
        self.ofm_queue.mem_b_valid.next = self.mem_b_valid.val();
        self.ofm_queue.mem_b_error.next = self.mem_b_error.val();
        self.mem_aw_valid.next = self.ofm_queue.mem_aw_valid.val();
        self.mem_aw_addr.next = self.ofm_queue.mem_aw_addr.val();
        self.mem_w_data.next = self.ofm_queue.mem_w_data.val();
        self.mem_w_strb.next = self.ofm_queue.mem_w_strb.val();
        if self.ofm_queue.write_error.val() & (self.error.q.val() == self.e_none.val()) {
            self.error.d.next = self.e_ofm.val();
        }

        // The states' own writes last (CHECK's verdict, a datapath error at the end of RUN).
        if self.states.error_write.val() {
            self.error.d.next = self.states.error_value.val();
        }
        self.unused_bits.next = self.datapath.busy.val()
            | self.datapath.error_detail.val().any()
            | self.datapath.ofm_valid.val().get_bits::<7>(9).any()
            | self.kernel_op.val().get_bit(1)
            | self.ports.ofm_full.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvUnit::default, "conv_unit");
}
