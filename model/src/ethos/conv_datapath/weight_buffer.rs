//! DECODE of the convolution datapath's model (RTL `hdl/src/ethos/weight_buffer.rs`): the
//! decoder's weights gathered into rows of the weight buffer, and the count checked.
use super::*;

impl ConvDatapath {
    pub(super) fn decode(&mut self, i: &In, decoded: &weight_decoder::Out) {
        let row_size = if i.depthwise { CHANNELS } else { CHANNELS * CHANNELS };
        if decoded.out_valid {
            self.walk.gathered.extend(decoded.weights());
        }
        let weights_seen = self.walk.rows as usize * row_size + self.walk.gathered.len();
        if self.walk.gathered.len() >= row_size {
            if self.walk.rows == self.walk.total_rows {
                self.events.push("weight beyond the layer");
                return self.stop(ERROR_WEIGHT_COUNT, weights_seen as u32);
            }
            let row: Vec<i16> = self.walk.gathered.drain(..row_size).collect();
            self.weight_buffer[self.walk.rows as usize] = std::array::from_fn(|o| {
                pack(&std::array::from_fn(|l| {
                    if i.depthwise {
                        if l == o {
                            row[o]
                        } else {
                            0
                        }
                    } else {
                        row[CHANNELS * o + l]
                    }
                }))
            });
            self.walk.rows += 1;
        }
        if decoded.error {
            self.events.push("malformed weight stream");
            self.stop(ERROR_WEIGHT_STREAM, u32::from(decoded.error_code));
        } else if decoded.done {
            if self.walk.rows != self.walk.total_rows || !self.walk.gathered.is_empty() {
                self.events.push("weight stream short");
                return self.stop(ERROR_WEIGHT_COUNT, weights_seen as u32);
            }
            self.state = STATE_MAC;
        }
    }
}
