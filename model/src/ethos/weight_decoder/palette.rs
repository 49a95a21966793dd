//! The weight decoder model's palette step (RTL `hdl/src/ethos/palette.rs`; TRM §4.7, digest
//! `shared/spec/ethos-u65.md` §1.3): up to 4 palette entries a cycle into the slice's palette.
use super::*;

impl WeightDecoder {
    pub(super) fn palette(&mut self) -> Result<Step, DecodeError> {
        let k = (self.slice.palsize - self.pal_i).min(4);
        let bits = self.slice.palbits;
        if !self.need(k * bits)? {
            return Ok(Step::Wait);
        }
        for j in 0..k {
            self.slice.palette[(self.pal_i + j) as usize] = self.bits(j * bits, bits);
        }
        self.pal_i += k;
        if self.pal_i == self.slice.palsize {
            self.state = State::Unary;
        }
        self.event("palette entries");
        Ok(Step::Consume(k * bits))
    }
}
