//! The weight decoder model's header step (RTL `hdl/src/ethos/header_step.rs`; TRM §4.7, digest
//! `shared/spec/ethos-u65.md` §1.2): what the bit buffer's head is (an end marker with its
//! alignment bits, a slice header with or without a palette, the stream's end), its faults, and
//! the slice's parameters loaded from the header's fields.
use super::*;

impl WeightDecoder {
    pub(super) fn header(&mut self) -> Result<Step, DecodeError> {
        if self.fill == 0 && self.seen_last {
            if !self.after_end {
                return Err(DecodeError::MissingEnd);
            }
            if self.words != 0 {
                return Err(DecodeError::Length);
            }
            self.state = State::Drain;
            self.event("stream parsed");
            return Ok(Step::Wait);
        }
        if !self.need(3)? {
            return Ok(Step::Wait);
        }
        let zdiv = self.bits(0, 3);
        if zdiv == 7 {
            let align = (8 - (self.bitpos + 3) % 8) % 8;
            if !self.need(3 + align)? {
                return Ok(Step::Wait);
            }
            if self.bits(3, align) != (1 << align) - 1 {
                return Err(DecodeError::Padding);
            }
            if self.after_end && self.padding == MAX_PADDING_BYTES {
                return Err(DecodeError::LongPadding);
            }
            self.padding = if self.after_end { self.padding + 1 } else { 0 };
            self.have_palette = false;
            self.after_end = true;
            self.event(if align == 5 { "end marker at a byte boundary (or 0xFF padding)" } else { "end marker" });
            return Ok(Step::Consume(3 + align));
        }
        if zdiv == 4 || zdiv == 5 {
            return Err(DecodeError::ReservedZdiv);
        }
        let newpal = self.bits(22, 1) == 1;
        let need = if newpal { 36 } else { 23 };
        if !self.need(need)? {
            return Ok(Step::Wait);
        }
        let wdiv = self.bits(18, 3);
        if wdiv == 6 {
            return Err(DecodeError::ReservedWdiv);
        }
        if !newpal && !self.have_palette {
            return Err(DecodeError::NoPalette);
        }
        let bits = |at, n| field(self.buffer, at, n);
        let s = &mut self.slice;
        s.zdiv = zdiv;
        s.slicelen = bits(3, 15);
        s.wdiv = wdiv;
        s.wtrunc = bits(21, 1) == 1;
        s.newpal = newpal;
        if newpal {
            s.dirofs = bits(23, 5);
            let palsize = bits(28, 5);
            s.palsize = if palsize == 0 { 0 } else { palsize + 1 };
            s.palbits = bits(33, 3) + 2;
        }
        self.pal_i = 0;
        self.chunks = Chunks::default();
        self.have_palette = true;
        self.after_end = false;
        self.state = if newpal && self.slice.palsize > 0 { State::Palette } else { State::Unary };
        self.slice_events();
        Ok(Step::Consume(need))
    }

    fn slice_events(&mut self) {
        let s = self.slice.clone();
        self.event(if s.alternating() { ZDIV_EVENTS[s.zdiv as usize] } else { "zdiv 6 (no zero runs)" });
        self.event(WDIV_EVENTS[s.wdiv as usize]);
        self.event(if s.wtrunc { "wtrunc 1" } else { "wtrunc 0" });
        self.event(if s.newpal { "newpal 1" } else { "newpal 0" });
        if s.newpal {
            self.event(PALSIZE_EVENTS[s.palsize as usize]);
            self.event(PALBITS_EVENTS[s.palbits as usize]);
        }
    }
}

const ZDIV_EVENTS: [&str; 4] = ["zdiv 0", "zdiv 1", "zdiv 2", "zdiv 3"];
const WDIV_EVENTS: [&str; 8] = ["wdiv 0", "wdiv 1", "wdiv 2", "wdiv 3", "wdiv 4", "wdiv 5", "", "wdiv 7 (uncompressed)"];
const PALSIZE_EVENTS: [&str; 33] = [
    "palette size 0", "", "palette size 2", "palette size 3", "palette size 4", "palette size 5", "palette size 6",
    "palette size 7", "palette size 8", "palette size 9", "palette size 10", "palette size 11", "palette size 12",
    "palette size 13", "palette size 14", "palette size 15", "palette size 16", "palette size 17", "palette size 18",
    "palette size 19", "palette size 20", "palette size 21", "palette size 22", "palette size 23", "palette size 24",
    "palette size 25", "palette size 26", "palette size 27", "palette size 28", "palette size 29", "palette size 30",
    "palette size 31", "palette size 32",
];
const PALBITS_EVENTS: [&str; 10] =
    ["", "", "palbits 2", "palbits 3", "palbits 4", "palbits 5", "palbits 6", "palbits 7", "palbits 8", "palbits 9"];
