//! SCALE_BIAS of the convolution datapath's model (RTL `hdl/src/ethos/scale_bias_loader.rs`):
//! the 10-byte records into the output lanes' parameters, the stream's length checked.
use super::*;

impl ConvDatapath {
    pub(super) fn scale_bias(&mut self, i: &In) {
        let n = u32::from(i.sb_bytes_m1 & 3) + 1;
        let word = u128::from(i.sb_data) & ((1 << (8 * n)) - 1);
        let combined = self.walk.held | word << (8 * self.walk.held_count);
        let count = self.walk.held_count + n;
        let open = self.walk.channel != u32::from(i.ofm_depth);
        let record = open && count >= 10;
        self.walk.bytes += n;
        if record {
            self.output.write(
                self.walk.channel,
                (((combined as i64) << 24) >> 24, (combined >> 40) as u32, (combined >> 72) as u8 & 0x3F),
            );
            self.walk.held = combined >> 80;
            self.walk.held_count = count - 10;
            self.walk.channel += 1;
        } else if open {
            self.walk.held = combined;
            self.walk.held_count = count;
        } else {
            self.events.push("scale/bias padding");
        }
        if self.walk.bytes > self.walk.scale_bias_limit {
            self.events.push("scale/bias too long");
            self.stop(ERROR_SCALE_BIAS_LONG, self.walk.bytes);
        } else if record && (combined >> 78) & 3 != 0 {
            self.events.push("scale/bias reserved bits");
            self.stop(ERROR_SCALE_BIAS_RESERVED, self.walk.channel - 1);
        } else if i.sb_last {
            if self.walk.channel != u32::from(i.ofm_depth) {
                self.events.push("scale/bias short");
                return self.stop(ERROR_SCALE_BIAS_SHORT, self.walk.bytes);
            }
            self.state = STATE_DECODE;
        }
    }
}
