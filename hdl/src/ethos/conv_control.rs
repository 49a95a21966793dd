//! The Ethos-U65 convolution datapath's state machine (`conv_datapath.rs`): the phase, the
//! error code and its detail. MAC, OUT and DRAIN follow the traversal (`conv_traversal.rs`);
//! the other phases end on the layer check, the weight decoder and buffer, or the scale/bias
//! loader, as the datapath's docs say. Order: CHECK, SCALE_BIAS, DECODE (the traversal runs
//! in it too: decode overlapped with MAC), MAC. `hold` (in DECODE, MAC, OUT and DRAIN) is the
//! registers' clock enable, and `holding` tells the other blocks; in DECODE the decoder's
//! verdicts still move these registers (the decoder has no clock enable).
use crate::primitives::constant as k;
use crate::primitives::{RegEn, ZeroExtend};
use rust_hdl::prelude::*;

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

#[derive(LogicBlock)]
pub struct ConvControl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub hold: Signal<In, Bit>,
    /// In MAC, holds the traversal (and this phase register) but not the output walk.
    pub hold_mac: Signal<In, Bit>,
    /// CHECK: the `SHAPE_*` bits.
    pub shape: Signal<In, Bits<20>>,
    /// DECODE: the weight buffer's and the decoder's verdicts.
    pub beyond: Signal<In, Bit>,
    pub weights_short: Signal<In, Bit>,
    pub weights_seen: Signal<In, Bits<20>>,
    pub decoder_error: Signal<In, Bit>,
    pub decoder_error_code: Signal<In, Bits<4>>,
    pub decoder_done: Signal<In, Bit>,
    /// SCALE_BIAS: the loader's, on a word taken.
    pub sb_take: Signal<In, Bit>,
    pub sb_too_long: Signal<In, Bit>,
    pub sb_bad_record: Signal<In, Bit>,
    pub sb_short: Signal<In, Bit>,
    pub sb_last: Signal<In, Bit>,
    pub sb_bytes: Signal<In, Bits<20>>,
    pub sb_channel: Signal<In, Bits<20>>,
    /// MAC, OUT, DRAIN: the traversal's next phase.
    pub phase_next: Signal<In, Bits<3>>,
    pub phase: Signal<Out, Bits<3>>,
    pub code: Signal<Out, Bits<3>>,
    pub detail: Signal<Out, Bits<20>>,
    pub in_idle: Signal<Out, Bit>,
    pub in_check: Signal<Out, Bit>,
    pub in_decode: Signal<Out, Bit>,
    pub in_scale_bias: Signal<Out, Bit>,
    pub in_mac: Signal<Out, Bit>,
    pub in_done: Signal<Out, Bit>,
    pub holding: Signal<Out, Bit>,
    /// `holding`, or `hold_mac` in MAC: the traversal, the weight reads and the MAC unit wait.
    pub mac_holding: Signal<Out, Bit>,

    phase_q: RegEn<Bits<3>>,
    code_q: RegEn<Bits<3>>,
    detail_q: RegEn<Bits<20>>,
    decoder_error20: ZeroExtend<4, 20>,
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
    zero20: Constant<Bits<20>>,
}

impl Default for ConvControl {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            hold: Default::default(),
            hold_mac: Default::default(),
            shape: Default::default(),
            beyond: Default::default(),
            weights_short: Default::default(),
            weights_seen: Default::default(),
            decoder_error: Default::default(),
            decoder_error_code: Default::default(),
            decoder_done: Default::default(),
            sb_take: Default::default(),
            sb_too_long: Default::default(),
            sb_bad_record: Default::default(),
            sb_short: Default::default(),
            sb_last: Default::default(),
            sb_bytes: Default::default(),
            sb_channel: Default::default(),
            phase_next: Default::default(),
            phase: Default::default(),
            code: Default::default(),
            detail: Default::default(),
            in_idle: Default::default(),
            in_check: Default::default(),
            in_decode: Default::default(),
            in_scale_bias: Default::default(),
            in_mac: Default::default(),
            in_done: Default::default(),
            holding: Default::default(),
            mac_holding: Default::default(),
            phase_q: Default::default(),
            code_q: Default::default(),
            detail_q: Default::default(),
            decoder_error20: Default::default(),
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
            zero20: k(0),
        }
    }
}

impl Logic for ConvControl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase_q, code_q, detail_q);
        self.phase_q.reset.next = self.reset.val();
        self.code_q.reset.next = self.reset.val();
        self.detail_q.reset.next = self.reset.val();
        self.holding.next = self.hold.val()
            & ((self.phase_q.q.val() == self.state_decode.val())
                | (self.phase_q.q.val() == self.state_mac.val())
                | (self.phase_q.q.val() == self.state_out.val())
                | (self.phase_q.q.val() == self.state_drain.val()));
        self.mac_holding.next = self.holding.val()
            | (self.hold_mac.val() & ((self.phase_q.q.val() == self.state_mac.val()) | (self.phase_q.q.val() == self.state_decode.val())));
        self.phase_q.enable.next = !self.mac_holding.val() | (self.phase_q.q.val() == self.state_decode.val());
        self.code_q.enable.next = !self.mac_holding.val() | (self.phase_q.q.val() == self.state_decode.val());
        self.detail_q.enable.next = !self.mac_holding.val() | (self.phase_q.q.val() == self.state_decode.val());
        self.phase.next = self.phase_q.q.val();
        self.code.next = self.code_q.q.val();
        self.detail.next = self.detail_q.q.val();
        self.in_idle.next = self.phase_q.q.val() == self.state_idle.val();
        self.in_check.next = self.phase_q.q.val() == self.state_check.val();
        self.in_decode.next = self.phase_q.q.val() == self.state_decode.val();
        self.in_scale_bias.next = self.phase_q.q.val() == self.state_scale_bias.val();
        self.in_mac.next = self.phase_q.q.val() == self.state_mac.val();
        self.in_done.next = self.phase_q.q.val() == self.state_done.val();
        self.decoder_error20.narrow.next = self.decoder_error_code.val();

        // The next state reads the phase register itself, not the `in_*` outputs: a statement
        // that reads the other blocks' verdicts must share no local with those that drive
        // their inputs, or Verilator sees a combinational loop through the always blocks
        // (UNOPTFLAT).
        self.phase_q.d.next = self.phase_next.val();
        if (self.phase_q.q.val() == self.state_idle.val()) & self.start.val() {
            self.phase_q.d.next = self.state_check.val();
        }
        if self.phase_q.q.val() == self.state_check.val() {
            self.code_q.d.next = self.error_none.val();
            self.detail_q.d.next = self.zero20.val();
            self.phase_q.d.next = self.state_scale_bias.val();
            if self.shape.val() != self.zero20.val() {
                self.code_q.d.next = self.error_shape.val();
                self.detail_q.d.next = self.shape.val();
                self.phase_q.d.next = self.state_done.val();
            }
        }
        if self.phase_q.q.val() == self.state_decode.val() {
            if self.beyond.val() {
                self.code_q.d.next = self.error_weight_count.val();
                self.detail_q.d.next = self.weights_seen.val();
                self.phase_q.d.next = self.state_done.val();
            } else if self.decoder_error.val() {
                self.code_q.d.next = self.error_weight_stream.val();
                self.detail_q.d.next = self.decoder_error20.wide.val();
                self.phase_q.d.next = self.state_done.val();
            } else if self.decoder_done.val() {
                self.phase_q.d.next = self.state_mac.val();
                if self.weights_short.val() {
                    self.code_q.d.next = self.error_weight_count.val();
                    self.detail_q.d.next = self.weights_seen.val();
                    self.phase_q.d.next = self.state_done.val();
                }
            }
        }
        if self.sb_take.val() {
            if self.sb_too_long.val() {
                self.code_q.d.next = self.error_long.val();
                self.detail_q.d.next = self.sb_bytes.val();
                self.phase_q.d.next = self.state_done.val();
            } else if self.sb_bad_record.val() {
                self.code_q.d.next = self.error_reserved.val();
                self.detail_q.d.next = self.sb_channel.val();
                self.phase_q.d.next = self.state_done.val();
            } else if self.sb_last.val() {
                self.phase_q.d.next = self.state_decode.val();
                if self.sb_short.val() {
                    self.code_q.d.next = self.error_short.val();
                    self.detail_q.d.next = self.sb_bytes.val();
                    self.phase_q.d.next = self.state_done.val();
                }
            }
        }
        if self.phase_q.q.val() == self.state_done.val() {
            self.phase_q.d.next = self.state_idle.val();
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvControl::default, "conv_control");
}
