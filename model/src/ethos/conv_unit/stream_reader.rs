//! The convolution unit's stream reader (RTL `hdl/src/ethos/stream_reader.rs`): the scale
//! stream, then the weight stream, one aligned 64-bit word a read.
use super::*;

impl ConvUnit {
    /// The read channel is the reader's: ask for the stream's next word.
    pub(super) fn stream_request(&mut self) {
        self.rd = 1;
        self.rd_addr = self.sr_addr;
        self.rd_for = self.sr_stream;
        self.sr_words -= 1;
        self.rd_last = self.sr_words == 0;
        self.sr_addr = (self.sr_addr + 8) & MASK40;
        // The scale stream first, then the weights: the datapath loads the parameters
        // before it decodes, so that its MAC phase overlaps the decoding.
        if self.sr_words == 0 {
            if self.sr_stream == FOR_SCALE {
                self.sr_stream = FOR_WEIGHTS;
                self.sr_addr = self.stream_start(false);
                self.sr_words = (self.regs.wide(scalar::WEIGHT_LENGTH) >> 3) as u32;
            } else {
                self.sr_stream = FOR_NONE;
            }
        }
    }
}
