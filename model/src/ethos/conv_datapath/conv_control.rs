//! The state machine of the convolution datapath's model (RTL `hdl/src/ethos/conv_control.rs`):
//! the phase, the error code and its detail. CHECK, SCALE_BIAS and DECODE end on the layer
//! check, the scale/bias loader and the weight buffer (`layer_check.rs`,
//! `scale_bias_loader.rs`, `weight_buffer.rs`); MAC, OUT and DRAIN follow the traversal
//! (`conv_traversal.rs`) and the output walk.
use super::conv_traversal::Taps;
use super::*;

/// The coverage event of the phase `state`.
pub(super) fn state_name(state: u8) -> &'static str {
    match state {
        STATE_IDLE => "idle",
        STATE_CHECK => "check",
        STATE_DECODE => "decode",
        STATE_SCALE_BIAS => "scale/bias",
        STATE_MAC => "mac",
        STATE_OUT => "out",
        STATE_DRAIN => "drain",
        _ => "done",
    }
}

impl ConvDatapath {
    /// Ends the layer with `code` and `detail`.
    pub(super) fn stop(&mut self, code: u8, detail: u32) {
        self.walk.code = code;
        self.walk.detail = detail;
        self.state = STATE_DONE;
    }

    /// The phase's step, after the blocks have taken the cycle (not under a hold): `state` is
    /// the phase at the cycle's start, `finishing` the output walk's last entry.
    pub(super) fn control(&mut self, i: &In, state: u8, taps: &Taps, finishing: bool) {
        match state {
            STATE_IDLE if i.start => self.state = STATE_CHECK,
            STATE_CHECK => self.check(i),
            STATE_SCALE_BIAS if i.sb_valid => self.scale_bias(i),
            STATE_MAC | STATE_DECODE if taps.issue => {
                if state == STATE_DECODE {
                    self.events.push("decode overlapped with MAC");
                }
                self.packed_step(i, taps);
                self.tap(i, taps)
            }
            STATE_DECODE if taps.row_wait => self.events.push("tap waits for its weight row"),
            STATE_DECODE if taps.layer_wait => self.events.push("the layer's last tap waits for the decoder"),
            STATE_MAC | STATE_DECODE => self.events.push("last tap waits for the output walk"),
            STATE_OUT if finishing => {
                self.walk.drain = 0;
                self.state = STATE_DRAIN;
            }
            STATE_DRAIN => {
                self.walk.drain = (self.walk.drain + 1) & 3;
                if self.walk.drain == 0 {
                    self.state = STATE_DONE;
                }
            }
            STATE_DONE => self.state = STATE_IDLE,
            _ => {}
        }
    }
}
