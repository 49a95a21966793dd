//! The output writer, a sub-block of the layer engine (`engine.rs`): the request generator of
//! the memory master port's write channel, which writes the result words the output FIFO holds
//! (docs/scale.md, "Where the cycles go now", 2). RTL: `hdl/src/scale/output_writer.rs`.
//!
//! A row of a column tile's last K tile leaves the array as a result word (`systolic.rs`:
//! final sums taken as they are written, deskewed); with SAVEOUT the word goes into the output
//! FIFO (the engine's `TileRam` of `OUT_WORDS` words) at the same edge as into the result
//! buffer. This block reads the FIFO into its read port's register, offers that word to
//! memory, and keeps the counts and the address.
//!
//! Decisions:
//! - The write channel is the writer's alone (docs/scale.md, "Memory master port and the AXI4
//!   bridge", decided by the lead in issue 20): a word loaded in the FIFO's read register is
//!   offered whatever the read channel does, so the writes follow the rows while STREAM reads
//!   X from memory, `2·SIZE+2` cycles behind them. Every write response is the writer's (the
//!   channel answers its own requests in order); before the two channels, reads and writes
//!   shared one port and were never outstanding together, at a memory latency per switch.
//! - Room: a row of a last K tile is counted (`reserved`) from its request until its word
//!   leaves the FIFO. A last K tile's STREAM issues its first row only when `reserved + INROWS
//!   <= OUT_WORDS`, so the FIFO never overflows (it fills only when the write channel takes
//!   no write for a column tile's worth of rows); the check is for the whole K tile, not row
//!   by row, so that a K tile's rows, once started, are never held up by a slow write channel.
//! - The address runs a column tile behind the walk, so the writer has its own row count and
//!   column-tile pointer: RESULT + r·ncw + n·WORD_BYTES.
//! - A stop: nothing more is read from the FIFO or offered (a write offered and not taken stays
//!   offered until taken, as every request); FLUSH waits for its responses. DONE empties it
//!   (before the next layer's CHECK, where the stop is cleared), PLAN sets the address.

/// What the engine decides for the writer in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// A layer ends (DONE): empty, so that a stopped layer's words are never written by the
    /// next one. A layer starts (PLAN): at RESULT.
    pub restart: bool,
    pub start: bool,
    pub result: u32,
    /// A row of a last K tile is issued (with SAVEOUT).
    pub reserve: bool,
    /// A result word goes into the FIFO.
    pub store: bool,
    /// The FIFO's next word is read into the read port's register.
    pub read: bool,
    /// A word is in the FIFO's read register (`loaded`).
    pub loaded: bool,
    /// The write is offered, and taken.
    pub valid: bool,
    pub accept: bool,
    /// A memory response is a write's.
    pub resp: bool,
    pub inrows: u8,
    /// Bytes per result row in memory (ceil(WGHTCOLS/SIZE) words).
    pub ncw: u32,
    pub word_bytes: u32,
}

#[derive(Clone, Debug, Default)]
pub struct OutputWriter {
    reserved: u32,
    words: u32,
    /// A word read from the FIFO before the last edge, not yet written.
    kept: bool,
    held: bool,
    outstanding: u32,
    addr: u32,
    row: u32,
    tile_ptr: u32,
}

impl OutputWriter {
    /// Rows of last K tiles issued whose words have not left the FIFO.
    pub fn reserved(&self) -> u32 {
        self.reserved
    }

    /// Words in the FIFO.
    pub fn words(&self) -> u32 {
        self.words
    }

    /// A word is in the FIFO's read register, to be written: read at the last edge
    /// (`read_valid`, the FIFO's), or kept since.
    pub fn loaded(&self, read_valid: bool) -> bool {
        read_valid || self.kept
    }

    /// A write was offered and not taken.
    pub fn held(&self) -> bool {
        self.held
    }

    /// Writes are outstanding on the write channel (FLUSH and DRAIN wait for them).
    pub fn pending(&self) -> bool {
        self.outstanding > 0
    }

    /// Nothing left to write or to be answered.
    pub fn idle(&self, read_valid: bool) -> bool {
        self.reserved == 0 && !self.loaded(read_valid) && !self.held && self.outstanding == 0
    }

    pub fn addr(&self) -> u32 {
        self.addr
    }

    /// The rising edge.
    pub fn clock(&mut self, s: &Step) {
        if s.restart {
            *self = Self::default();
            return;
        }
        if s.start {
            (self.addr, self.tile_ptr, self.row) = (s.result, s.result, 0);
        }
        self.reserved = self.reserved + u32::from(s.reserve) - u32::from(s.read);
        self.words = self.words + u32::from(s.store) - u32::from(s.read);
        self.kept = s.loaded && !s.accept;
        self.held = s.valid && !s.accept;
        self.outstanding = self.outstanding + u32::from(s.accept) - u32::from(s.resp);
        if s.accept {
            if self.row + 1 == u32::from(s.inrows) {
                self.row = 0;
                self.tile_ptr = self.tile_ptr.wrapping_add(s.word_bytes);
                self.addr = self.tile_ptr;
            } else {
                self.row += 1;
                self.addr = self.addr.wrapping_add(s.ncw);
            }
        }
    }
}
