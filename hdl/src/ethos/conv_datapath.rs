//! Ethos-U65 convolution datapath: the traversal unit that runs one quantized int8 CONV_2D or
//! DEPTHWISE_CONV_2D layer on the weight decoder, the MAC unit and the output unit (TRM §4,
//! digest `shared/spec/ethos-u65.md` §0, §1.9, §2, §5). The model
//! (`model/src/ethos/conv_datapath.rs`) changes the same registers in the same cycles and
//! documents the phases; docs/ethos.md ("Convolution datapath") has the diagram, the port
//! timing and the decisions.
//!
//! Phases: CHECK the layer registers; SCALE_BIAS, the 10-byte records into the parameter
//! memory; DECODE the compressed weight stream into the weight buffer (rows of 64 weights, one
//! per MAC cycle) while the traversal already runs the taps whose rows are written (decode
//! overlapped with MAC); then for every 8-channel OFM group and 2x2 OFM block (every block
//! of a group before the next group), MAC (one weight row
//! and four IFM reads a cycle; the previous group's 32 accumulators drain meanwhile through
//! the 16 output lanes, one OFM row of the block a cycle, each step on the OFM port three
//! cycles later) and OUT
//! (the last group's drain); DRAIN; DONE.
//!
//! Sub-blocks: the layer registers latched at `start` (`layer_registers.rs`), CHECK
//! (`layer_check.rs`), the weight buffer with its gather register and row selection
//! (`weight_buffer.rs`), the scale/bias loader (`scale_bias_loader.rs`) and the traversal
//! counters with the stage-2 registers (`conv_traversal.rs`), and the weight-row address in
//! Vela's order (`weight_rows.rs`), the drain bank (`conv_mac.rs`), the output walk
//! (`output_walk.rs`) and the 16 output lanes with the parameters (`output_lanes.rs`); with
//! `pack_depthwise`, the packed depthwise walk (`depthwise_walk.rs`, beside the traversal)
//! and feed (`depthwise_feed.rs`, stage 2, into `conv_mac.rs`'s second feed). The weight buffer, CHECK and
//! the traversal read registers only, and `hold` is their registers' clock enable; this
//! block keeps what reads the ports (the state machine, the IFM read addresses, the streams'
//! handshakes, the MAC and output units' inputs), so that Verilator evaluates the rest once a
//! cycle (docs/ethos.md, "Verilated speed").
use super::conv_control::ConvControl;
use super::conv_mac::ConvMac;
use super::conv_traversal::ConvTraversal;
use super::depthwise_feed::DepthwiseFeed;
use super::depthwise_walk::DepthwiseWalk;
use super::ifm_reads::IfmReads;
use super::layer_check::LayerCheck;
use super::layer_registers::LayerRegisters;
use super::output_lanes::OutputLanes;
use super::output_walk::OutputWalk;
use super::scale_bias_loader::ScaleBiasLoader;
use super::weight_buffer::WeightBuffer;
use super::weight_rows::WeightRows;
use super::WeightDecoder;
use crate::primitives::RegEn;
use rust_hdl::prelude::*;

/// Rows of 64 weights (8 OFM x 8 IFM channels, 576 bits) the weight buffer holds, and its
/// address width.
pub const WEIGHT_ROWS: u64 = 1 << WEIGHT_ADDRESS_BITS;
const WEIGHT_ADDRESS_BITS: usize = 12;
/// Width of the IFM/OFM height, width and depth registers: each is 1..=4095.
pub const DIM_BITS: usize = 12;

// The `state` and `error_code` values and the CHECK detail bits are beside the state machine.
pub use super::conv_control::{SHAPE_DEPTHWISE, SHAPE_DIMS, SHAPE_KERNEL, SHAPE_STRIDE, SHAPE_WEIGHT_ROWS};

#[derive(LogicBlock, Default)]
pub struct ConvDatapath {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Starts a layer (in IDLE). The layer registers below must hold until `done`.
    pub start: Signal<In, Bit>,
    /// Holds the layer where it is in DECODE, MAC, OUT and DRAIN (a clock enable, low to run): no
    /// register of the traversal changes, the MAC unit does not accumulate and no accumulator
    /// enters the output unit; the values already in the output unit still leave on the OFM
    /// port. An IFM read is answered on `ifm_data` from the cycle after it until the next
    /// cycle without `hold`, which takes the data. In DECODE it holds the traversal only, not
    /// the decoder and the weight buffer's writes (the decoder, a block of its own, has no
    /// clock enable, and its one-cycle `done` must not be missed); in the other phases it does
    /// nothing: the streams' own handshakes pace SCALE_BIAS. The NPU's
    /// convolution unit holds the layer while it serves the IFM reads and the OFM writes
    /// from the one memory port.
    pub hold: Signal<In, Bit>,
    /// In DECODE and MAC only: holds the traversal and the MAC unit as `hold` does, while the output
    /// walk goes on draining the previous group's accumulators through the output unit. An
    /// IFM read is answered until the next cycle without `hold` and without `hold_mac`. The
    /// NPU's convolution unit holds a tap this way while its IFM server gathers the reads.
    pub hold_mac: Signal<In, Bit>,
    pub ifm_height: Signal<In, Bits<DIM_BITS>>,
    pub ifm_width: Signal<In, Bits<DIM_BITS>>,
    pub ifm_depth: Signal<In, Bits<DIM_BITS>>,
    pub ofm_height: Signal<In, Bits<DIM_BITS>>,
    pub ofm_width: Signal<In, Bits<DIM_BITS>>,
    pub ofm_depth: Signal<In, Bits<DIM_BITS>>,
    /// 1..=15 each (Vela's sub-kernels walked: `conv_traversal.rs`).
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    /// 1..=3 each.
    pub stride_y: Signal<In, Bits<2>>,
    pub stride_x: Signal<In, Bits<2>>,
    /// IFM rows above / columns left of the OFM's first window that are padding.
    pub pad_top: Signal<In, Bits<3>>,
    pub pad_left: Signal<In, Bits<3>>,
    pub depthwise: Signal<In, Bit>,
    /// Conv: the weight stream is part-kernel-first (KERNEL_STRIDE bit 2), else depth-first.
    pub part_kernel: Signal<In, Bit>,
    /// Conv: the weight order's OFM block depth (OFM_BLK_DEPTH) / 8, minus 1.
    pub block_groups_m1: Signal<In, Bits<4>>,
    /// Dilation 2 in y / x (KERNEL_STRIDE bits 4 / 3), else 1: kernel element (ky, kx) reads
    /// the IFM at `ofm·stride + k·dilation - pad`; sub-kernels of at most `8 / dilation` a side.
    pub dilation_y: Signal<In, Bit>,
    pub dilation_x: Signal<In, Bit>,
    /// Depthwise: run the packed mapping where it applies (docs/ethos.md, "Depthwise tap
    /// packing"; `depthwise_walk.rs`), else every layer tap by tap. Decision: a layer input,
    /// not implied by the shape, because a packed cycle reads four IFM elements of their own
    /// rows and columns, which a user of the datapath must serve (the NPU's convolution unit
    /// sets it for every DEPTHWISE: its IFM server serves each port at its own row and column).
    pub pack_depthwise: Signal<In, Bit>,
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
    /// OFM write port: up to 16 elements a cycle, one per output lane, one OFM row of the
    /// 2x2 block: lane i (valid with bit i of `ofm_valid`) is element (`ofm_y`, `ofm_x` +
    /// i / 8, `ofm_channel` + i % 8) with value `ofm_data[8i+7:8i]`, int8. The set lanes are
    /// lanes 0..n-1 and, when column `ofm_x + 1` is inside the OFM, lanes 8..8+n-1 (n =
    /// 1..=8, fewer than 8 only where the OFM depth ends), so bit 0 says whether anything is
    /// written and bit 8 whether the second column is. Without bit i, lane i's byte is its
    /// last valid value (0 after reset): the output units compute only valid values
    /// (`output_unit.rs`).
    pub ofm_valid: Signal<Out, Bits<16>>,
    pub ofm_y: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_x: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_channel: Signal<Out, Bits<DIM_BITS>>,
    pub ofm_data: Signal<Out, Bits<128>>,
    pub busy: Signal<Out, Bit>,
    /// One cycle at the end of a layer, with or without error.
    pub done: Signal<Out, Bit>,
    /// Held from `done` until the next `start`.
    pub error_code: Signal<Out, Bits<3>>,
    pub error_detail: Signal<Out, Bits<20>>,
    pub state: Signal<Out, Bits<3>>,
    decoder: WeightDecoder,
    mac: ConvMac,
    walk: OutputWalk,
    /// The output units and the per-channel parameters.
    out_lanes: OutputLanes,
    layer: LayerRegisters,
    check: LayerCheck,
    weights: WeightBuffer,
    scale_bias: ScaleBiasLoader,
    traversal: ConvTraversal,
    rows: WeightRows,
    control: ConvControl,
    reads: IfmReads,
    packed_walk: DepthwiseWalk,
    feed: DepthwiseFeed,
    pad2: RegEn<Bits<4>>,
    live2: RegEn<Bits<4>>,
}

impl Logic for ConvDatapath {
    #[hdl_gen]
    fn update(&mut self) {
        // `hold` (where it applies: MAC, OUT, DRAIN) is the clock enable of the traversal's
        // registers; the OFM address pipeline beside the output unit (in the output walk)
        // goes on with it.
        dff_setup!(self, clock, pad2, live2);
        clock!(self, clock, decoder, mac, out_lanes, layer, weights, scale_bias, traversal, rows);
        clock!(self, clock, packed_walk, walk, feed, control);
        self.pad2.reset.next = self.reset.val();
        self.live2.reset.next = self.reset.val();
        self.pad2.enable.next = !self.control.mac_holding.val();
        self.live2.enable.next = !self.control.mac_holding.val();
        self.mac.reset.next = self.reset.val();
        self.out_lanes.reset.next = self.reset.val();
        self.layer.reset.next = self.reset.val();
        self.weights.reset.next = self.reset.val();
        self.scale_bias.reset.next = self.reset.val();
        self.traversal.reset.next = self.reset.val();
        self.busy.next = !self.control.in_idle.val();
        self.done.next = self.control.in_done.val();
        self.error_code.next = self.control.code.val();
        self.error_detail.next = self.control.detail.val();
        self.state.next = self.control.phase.val();

        // The layer registers, latched at `start`, and CHECK on them.
        self.layer.load.next = self.control.in_idle.val() & self.start.val();
        self.layer.ifm_height_in.next = self.ifm_height.val();
        self.layer.ifm_width_in.next = self.ifm_width.val();
        self.layer.ifm_depth_in.next = self.ifm_depth.val();
        self.layer.ofm_height_in.next = self.ofm_height.val();
        self.layer.ofm_width_in.next = self.ofm_width.val();
        self.layer.ofm_depth_in.next = self.ofm_depth.val();
        self.layer.kernel_height_in.next = self.kernel_height.val();
        self.layer.kernel_width_in.next = self.kernel_width.val();
        self.layer.stride_y_in.next = self.stride_y.val();
        self.layer.stride_x_in.next = self.stride_x.val();
        self.layer.pad_top_in.next = self.pad_top.val();
        self.layer.pad_left_in.next = self.pad_left.val();
        self.layer.depthwise_in.next = self.depthwise.val();
        self.layer.part_kernel_in.next = self.part_kernel.val();
        self.layer.block_groups_m1_in.next = self.block_groups_m1.val();
        self.layer.dilation_y_in.next = self.dilation_y.val();
        self.layer.dilation_x_in.next = self.dilation_x.val();
        self.layer.pack_depthwise_in.next = self.pack_depthwise.val();
        self.check.checking.next = self.control.in_check.val();
        self.check.ifm_height.next = self.layer.ifm_height.val();
        self.check.ifm_width.next = self.layer.ifm_width.val();
        self.check.ifm_depth.next = self.layer.ifm_depth.val();
        self.check.ofm_height.next = self.layer.ofm_height.val();
        self.check.ofm_width.next = self.layer.ofm_width.val();
        self.check.ofm_depth.next = self.layer.ofm_depth.val();
        self.check.kernel_height.next = self.layer.kernel_height.val();
        self.check.kernel_width.next = self.layer.kernel_width.val();
        self.check.stride_y.next = self.layer.stride_y.val();
        self.check.stride_x.next = self.layer.stride_x.val();
        self.check.depthwise.next = self.layer.depthwise.val();
        self.check.part_kernel.next = self.layer.part_kernel.val();

        // DECODE: the decoder restarts with every layer; its beats go to the weight buffer.
        // These read the state machine's outputs, not a local: a statement that reads the
        // decoder's `in_ready` must share no local with those that drive its inputs, or
        // Verilator sees a combinational loop through the two always blocks (UNOPTFLAT).
        self.decoder.reset.next = self.reset.val() | self.control.in_check.val();
        self.decoder.in_valid.next = self.w_valid.val() & self.control.in_decode.val();
        self.decoder.in_data.next = self.w_data.val();
        self.decoder.in_last.next = self.w_last.val();
        self.decoder.out_ready.next = self.control.in_decode.val();
        self.w_ready.next = self.decoder.in_ready.val() & self.control.in_decode.val();
        self.weights.restart.next = self.control.in_check.val();
        self.weights.decoding.next = self.control.in_decode.val();
        self.weights.depthwise.next = self.layer.depthwise.val();
        self.weights.total_rows.next = self.check.total_rows.val();
        self.weights.beat_valid.next = self.decoder.out_valid.val();
        self.weights.beat_count.next = self.decoder.out_count.val();
        self.weights.beat_data.next = self.decoder.out_data.val();
        self.weights.read_enable.next = (self.control.in_mac.val() | self.control.in_decode.val()) & !self.control.mac_holding.val();
        self.weights.active.next = !self.control.in_idle.val();
        self.weights.read_address.next = self.rows.row.val();
        self.weights.want_row.next = self.rows.row.val();

        // SCALE_BIAS: the records into the parameter memory.
        self.sb_ready.next = self.control.in_scale_bias.val();
        self.scale_bias.restart.next = self.control.in_check.val();
        self.scale_bias.active.next = self.control.in_scale_bias.val();
        self.scale_bias.valid.next = self.sb_valid.val();
        self.scale_bias.data.next = self.sb_data.val();
        self.scale_bias.bytes_m1.next = self.sb_bytes_m1.val();
        self.scale_bias.ofm_depth.next = self.ofm_depth.val();
        self.scale_bias.limit.next = self.check.scale_bias_limit.val();
        self.out_lanes.write_enable.next = self.scale_bias.write_enable.val();
        self.out_lanes.write_channel.next = self.scale_bias.write_address.val();
        self.out_lanes.write_data.next = self.scale_bias.write_data.val();

        // MAC and OUT: the traversal's counters.
        self.traversal.advance.next = !self.control.mac_holding.val();
        self.traversal.phase.next = self.control.phase.val();
        self.traversal.ifm_depth.next = self.layer.ifm_depth.val();
        self.traversal.ofm_height.next = self.layer.ofm_height.val();
        self.traversal.ofm_width.next = self.layer.ofm_width.val();
        self.traversal.ofm_depth.next = self.layer.ofm_depth.val();
        self.traversal.kernel_height.next = self.layer.kernel_height.val();
        self.traversal.kernel_width.next = self.layer.kernel_width.val();
        self.traversal.stride_y.next = self.layer.stride_y.val();
        self.traversal.stride_x.next = self.layer.stride_x.val();
        self.traversal.pad_top.next = self.layer.pad_top.val();
        self.traversal.pad_left.next = self.layer.pad_left.val();
        self.traversal.depthwise.next = self.layer.depthwise.val();
        self.traversal.part_kernel.next = self.layer.part_kernel.val();
        self.traversal.dilation_y.next = self.layer.dilation_y.val();
        self.traversal.dilation_x.next = self.layer.dilation_x.val();
        self.rows.reset.next = self.reset.val();
        self.rows.advance.next = !self.control.mac_holding.val();
        self.rows.step.next = self.traversal.row_step.val();
        self.rows.og.next = self.traversal.og.val();
        self.rows.depthwise.next = self.layer.depthwise.val();
        self.rows.part_kernel.next = self.layer.part_kernel.val();
        self.rows.ofm_depth.next = self.layer.ofm_depth.val();
        self.rows.sub_h.next = self.traversal.sub_h.val();
        self.rows.sub_w.next = self.traversal.sub_w.val();
        self.rows.next_h.next = self.traversal.next_h.val();
        self.rows.next_w.next = self.traversal.next_w.val();
        self.rows.block_groups_m1.next = self.layer.block_groups_m1.val();
        self.traversal.drain_wait.next = self.walk.must_wait.val();
        self.traversal.drain_finishing.next = self.walk.finishing.val();
        self.traversal.row_ready.next = self.weights.row_ready.val();

        // The packed depthwise walk beside the traversal: the block's mapping and, in a
        // packed block, the cycle's window rows and IFM reads.
        self.packed_walk.reset.next = self.reset.val();
        self.packed_walk.advance.next = !self.control.mac_holding.val();
        self.packed_walk.check.next = self.control.in_check.val();
        self.packed_walk.issue.next = self.traversal.issue.val();
        self.packed_walk.block_end.next = self.traversal.issue_last.val();
        self.packed_walk.next_first.next = self.traversal.next_first.val();
        self.packed_walk.next_row_start.next = self.traversal.next_row_start.val();
        self.packed_walk.origin_y.next = self.traversal.origin_y.val();
        self.packed_walk.origin_x.next = self.traversal.origin_x.val();
        self.packed_walk.ifm_height.next = self.layer.ifm_height.val();
        self.packed_walk.ifm_width.next = self.layer.ifm_width.val();
        self.packed_walk.depthwise.next = self.layer.depthwise.val() & self.layer.pack_depthwise.val();
        self.packed_walk.kernel_height.next = self.layer.kernel_height.val();
        self.packed_walk.kernel_width.next = self.layer.kernel_width.val();
        self.packed_walk.stride_y.next = self.layer.stride_y.val();
        self.packed_walk.stride_x.next = self.layer.stride_x.val();
        self.packed_walk.dilation_y.next = self.layer.dilation_y.val();
        self.packed_walk.dilation_x.next = self.layer.dilation_x.val();
        self.packed_walk.tap_ky.next = self.traversal.ky.val().get_bits::<2>(0);
        self.packed_walk.tap_kx.next = self.traversal.kx.val().get_bits::<2>(0);
        self.traversal.block_packed.next = self.packed_walk.block_packed.val();
        self.traversal.packed_last.next = self.packed_walk.last.val();

        // The output walk drains the bank while the traversal walks the next group.
        self.walk.reset.next = self.reset.val();
        self.walk.advance.next = !self.control.holding.val();
        self.walk.traverse.next = !self.control.mac_holding.val();
        self.walk.restart.next = self.control.in_check.val();
        self.walk.issue_last.next = self.traversal.issue_last.val();
        self.walk.block_y.next = self.traversal.block_y.val();
        self.walk.block_x.next = self.traversal.block_x.val();
        self.walk.og.next = self.traversal.og.val();
        self.walk.ofm_height.next = self.layer.ofm_height.val();
        self.walk.ofm_width.next = self.layer.ofm_width.val();
        self.walk.ofm_depth.next = self.layer.ofm_depth.val();
        self.out_lanes.read_enable.next = self.walk.param_read.val();
        self.out_lanes.hold.next = self.control.holding.val();
        self.out_lanes.read_address.next = self.walk.param_address.val();

        // The tap's IFM reads, from the ports as the model computes them in every state.
        self.reads.mac.next = self.traversal.issue.val();
        self.reads.origin_y.next = self.traversal.origin_y.val();
        self.reads.origin_x.next = self.traversal.origin_x.val();
        self.reads.ky.next = self.traversal.ky.val();
        self.reads.kx.next = self.traversal.kx.val();
        self.reads.block_y.next = self.traversal.block_y.val();
        self.reads.block_x.next = self.traversal.block_x.val();
        self.reads.cg_base.next = self.traversal.cg_base.val();
        self.reads.u.next = self.traversal.u.val();
        self.reads.og.next = self.traversal.og.val();
        self.reads.ifm_height.next = self.ifm_height.val();
        self.reads.ifm_width.next = self.ifm_width.val();
        self.reads.ifm_depth.next = self.ifm_depth.val();
        self.reads.ofm_height.next = self.ofm_height.val();
        self.reads.ofm_width.next = self.ofm_width.val();
        self.reads.stride_y.next = self.stride_y.val();
        self.reads.stride_x.next = self.stride_x.val();
        self.reads.dilation_y.next = self.dilation_y.val();
        self.reads.dilation_x.next = self.dilation_x.val();
        self.reads.depthwise.next = self.depthwise.val();
        self.ifm_read0.next = self.reads.read0.val();
        self.ifm_read1.next = self.reads.read1.val();
        self.ifm_read2.next = self.reads.read2.val();
        self.ifm_read3.next = self.reads.read3.val();
        self.ifm_y0.next = self.reads.y0.val();
        self.ifm_y1.next = self.reads.y0.val();
        self.ifm_y2.next = self.reads.y1.val();
        self.ifm_y3.next = self.reads.y1.val();
        self.ifm_x0.next = self.reads.x0.val();
        self.ifm_x1.next = self.reads.x1.val();
        self.ifm_x2.next = self.reads.x0.val();
        self.ifm_x3.next = self.reads.x1.val();
        self.ifm_group0.next = self.reads.group.val();
        self.ifm_group1.next = self.reads.group.val();
        self.ifm_group2.next = self.reads.group.val();
        self.ifm_group3.next = self.reads.group.val();
        // A packed block's reads come from the walk: four elements of their own rows and
        // columns (the same channel group, the OFM group's).
        if self.packed_walk.block_packed.val() {
            self.ifm_read0.next = self.packed_walk.read0.val();
            self.ifm_read1.next = self.packed_walk.read1.val();
            self.ifm_read2.next = self.packed_walk.read2.val();
            self.ifm_read3.next = self.packed_walk.read3.val();
            self.ifm_y0.next = self.packed_walk.y0.val();
            self.ifm_y1.next = self.packed_walk.y1.val();
            self.ifm_y2.next = self.packed_walk.y2.val();
            self.ifm_y3.next = self.packed_walk.y3.val();
            self.ifm_x0.next = self.packed_walk.x0.val();
            self.ifm_x1.next = self.packed_walk.x1.val();
            self.ifm_x2.next = self.packed_walk.x2.val();
            self.ifm_x3.next = self.packed_walk.x3.val();
        }
        self.pad2.d.next = self.reads.pad.val();
        self.live2.d.next = self.reads.live.val();

        // Stage 2: the MAC unit and the output unit. The MAC unit forms the IFM lanes, of
        // its own words and of the packed feed's, in its clocked process (docs/ethos.md,
        // "Verilated speed", eighteenth step; "Packed feed in bytes").
        self.mac.zero_point.next = self.ifm_zero_point.val();
        self.mac.live.next = self.live2.q.val();
        self.mac.data[0].next = self.ifm_data0.val();
        self.mac.data[1].next = self.ifm_data1.val();
        self.mac.data[2].next = self.ifm_data2.val();
        self.mac.data[3].next = self.ifm_data3.val();
        self.mac.enable.next = self.traversal.mac_valid2.val() & !self.control.mac_holding.val();
        self.mac.clear.next = self.traversal.clear2.val();
        self.mac.depthwise.next = self.layer.depthwise.val();
        // The packed feed (stage 2): the kernel register, the column store, the second
        // feed's words (`depthwise_feed.rs`), into the MAC unit in the conv mode.
        self.feed.reset.next = self.reset.val();
        self.feed.advance.next = self.traversal.mac_valid2.val() & !self.control.mac_holding.val();
        self.feed.load.next = self.packed_walk.load2.val();
        self.feed.ky.next = self.packed_walk.ky2.val();
        self.feed.kx.next = self.packed_walk.kx2.val();
        self.feed.take.next = self.packed_walk.packed2.val();
        self.feed.reuse.next = self.packed_walk.reuse2.val();
        self.feed.row.next = self.packed_walk.row2.val();
        self.feed.rows.next = self.packed_walk.rows2.val();
        self.feed.pad.next = self.packed_walk.pad2.val();
        self.feed.stride_y.next = self.layer.stride_y.val();
        self.feed.dilation_y.next = self.layer.dilation_y.val();
        self.feed.kernel_height.next = self.layer.kernel_height.val();
        self.feed.kernel_width.next = self.layer.kernel_width.val();
        self.mac.packed_cycle.next = self.packed_walk.packed2.val();
        self.mac.reuse.next = self.packed_walk.reuse2.val();
        self.mac.row.next = self.packed_walk.row2.val();
        self.mac.rows.next = self.packed_walk.rows2.val();
        self.mac.pad.next = self.pad2.q.val();
        for o in 0..8 {
            self.feed.w[o].next = self.weights.w[o].val();
            self.mac.w[o].next = self.weights.w[o].val();
        }
        for i in 0..8 {
            self.mac.win_live[i].next = self.feed.win_live[i].val();
        }
        for i in 0..12 {
            self.mac.kernel[i].next = self.feed.k[i].val();
        }
        self.mac.advance.next = !self.control.holding.val();
        self.mac.load.next = self.walk.load.val() & !self.control.mac_holding.val();
        self.mac.read_index.next = self.walk.read_index.val();
        self.mac.draining.next = self.walk.draining.val();
        self.out_lanes.in_valid.next = self.walk.out_valid2.val();
        for i in 0..16 {
            self.out_lanes.acc[i].next = self.mac.acc_out[i].val();
        }
        self.out_lanes.zero_point.next = self.ofm_zero_point.val();
        self.out_lanes.act_min.next = self.act_min.val();
        self.out_lanes.act_max.next = self.act_max.val();
        self.ofm_valid.next = self.out_lanes.out_valid.val();
        self.ofm_y.next = self.walk.ofm_y.val();
        self.ofm_x.next = self.walk.ofm_x.val();
        self.ofm_channel.next = self.walk.ofm_channel.val();
        self.ofm_data.next = self.out_lanes.out_data.val();

        // The state machine.
        self.control.reset.next = self.reset.val();
        self.control.start.next = self.start.val();
        self.control.hold.next = self.hold.val();
        self.control.hold_mac.next = self.hold_mac.val();
        self.control.shape.next = self.check.shape.val();
        self.control.beyond.next = self.weights.beyond.val();
        self.control.weights_short.next = self.weights.short.val();
        self.control.weights_seen.next = self.weights.weights_seen.val();
        self.control.decoder_error.next = self.decoder.error.val();
        self.control.decoder_error_code.next = self.decoder.error_code.val();
        self.control.decoder_done.next = self.decoder.done.val();
        self.control.sb_take.next = self.scale_bias.take.val();
        self.control.sb_too_long.next = self.scale_bias.too_long.val();
        self.control.sb_bad_record.next = self.scale_bias.bad_record.val();
        self.control.sb_short.next = self.scale_bias.short.val();
        self.control.sb_last.next = self.sb_last.val();
        self.control.sb_bytes.next = self.scale_bias.bytes_new.val();
        self.control.sb_channel.next = self.scale_bias.channel.val();
        self.control.phase_next.next = self.traversal.phase_next.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvDatapath::default, "conv_datapath");
}
