//! The layer engine: checks a layer's registers, walks its tiles, drives the memory master
//! port and the systolic array, and reports the exit code. RTL: `hdl/src/scale/engine.rs`;
//! docs/scale.md has the memory layout, the timing and the decisions.
//!
//! A layer computes `R = trunc16(relu?(X·W + bias + sums) >>> SHIFTAMT)` for X (INROWS x
//! INCOLS) and W (WGHTROWS x WGHTCOLS), int16 elements, 32-bit accumulators wrapping.
//! Every matrix row in memory starts on a memory word (`16·SIZE` bits, little endian, lane
//! `k` = element `k`); bias and sums are int32, `SIZE` of them in two words per tile.
//!
//! States, one step each (every phase issues its requests and waits for all responses):
//! IDLE → CHECK (sizes) → PLAN (exit early with CPU_ERR/MEM_ERR) → for each column tile:
//! NSTART → BIAS? → SUMS? → for each K tile: KSTART → WLOAD? → STREAM; after the last K
//! tile NEXTN (the next column tile's rows follow at once), or for the last column tile DRAIN
//! (until no row is left in the array and every result is written); then DONE → IDLE. The
//! last K tile's rows leave the array as result words (final sums taken as they are written,
//! `systolic.rs`), which go to the result buffer (`result_buffer.rs`) and, with SAVEOUT, to
//! the output FIFO, written to memory by the output writer on the memory port's write channel
//! (`output_writer.rs` has the decisions). The weights are
//! double-buffered: each K tile loads the bank its predecessor does not use, and its rows
//! carry their bank through the array, so a K tile follows the one before without waiting
//! for the array to drain; KSTART waits only while rows of the bank it is about to load (the
//! K tile before the one before) are still in the array. With REWEIGHTS, the bank loaded
//! last is used again. While STREAM reads X on chip (from the X buffer or, with REINPUTS, the
//! result buffer) and while DRAIN waits, the memory port's read channel is free: the look-ahead load fetches
//! the weights of the K tile that follows in the walk (this column tile's next, or the next
//! column tile's first) into the other bank (`look_ahead.rs`); STREAM then goes on with the
//! next K tile at once, without KSTART and WLOAD, and KSTART after NSTART switches to the
//! loaded bank and skips WLOAD. With REINPUTS, STREAM reads X's
//! rows from the result buffer instead of memory. Otherwise the first column tile's STREAM
//! phases store X's rows in the X buffer as they arrive, and the later column tiles stream
//! them from there, if X fits; a larger X is re-read from memory (`Engine::xbuf`). A stop (a register write
//! refused while busy, or an error response) goes to FLUSH, which lets the request in flight,
//! the responses and the array's rows finish, then DONE with the stop's code. PLAN's verdict
//! stands even if a stop came during CHECK; a stop seen in the step to DONE is too late.
//!
//! This file holds the write channel's offer and the output FIFO's reads, and clocks the
//! sub-blocks: the state machine (the states, the exit code, the stops, the phases' request
//! counts: `engine/state_machine.rs`), the read channel (which request generator offers,
//! STREAM's reads on chip, whose a response is: `engine/read_channel.rs`), the phase request
//! generator (the counts and address of the phases' reads: `phase_requests.rs`), the
//! look-ahead weight load (`look_ahead.rs`), the tile sequencer (sizes, checks, tile walk,
//! pointers: `tile_sequencer.rs`), the weight loader (the two weight banks, REWEIGHTS:
//! `weight_loader.rs`), the output writer (the result writes: `output_writer.rs`), the X
//! buffer and the output FIFO (`tile_ram.rs`), the result buffer and the array.
use super::look_ahead::{self, LookAhead};
use super::output_writer::{self, OutputWriter};
use super::phase_requests::{self, PhaseRequests};
use super::result_buffer::{self, ResultBuffer};
use super::systolic::{self, Systolic};
use super::tile_ram::{self, TileRam};
use super::tile_sequencer::TileSequencer;
use super::weight_loader::WeightLoader;
use super::{OUT_WORDS, SIZE, X_WORDS};

mod read_channel;
mod state_machine;
pub use state_machine::State;

/// Bytes per memory word (one tile row of int16).
pub const WORD_BYTES: u32 = 2 * SIZE as u32;
/// The memory window the unit may address: `[0, MEM_BYTES)`.
pub const MEM_BYTES: u64 = 1 << 20;

pub const UNUSED: u8 = 0;
pub const SUCCESS: u8 = 1;
pub const MEM_ERR: u8 = 2;
pub const CPU_ERR: u8 = 3;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub start: bool,
    /// A register write was refused because the unit is busy (the CSR block's pulse).
    pub write_while_busy: bool,
    /// The configuration registers, as the CSR block presents them.
    pub inrows: u8,
    pub incols: u8,
    pub wghtrows: u8,
    pub wghtcols: u8,
    pub reinputs: bool,
    pub reweights: bool,
    pub saveout: bool,
    pub usebias: bool,
    pub usesumm: bool,
    pub shiftamt: u8,
    pub actfn: bool,
    pub base: u32,
    pub result: u32,
    /// The memory master port's read channel (docs/scale.md, "Memory master port and the AXI4
    /// bridge"): requests taken, responses in order with data and error.
    pub mem_rd_req_ready: bool,
    pub mem_rd_resp_valid: bool,
    pub mem_rd_resp_data: u128,
    pub mem_rd_resp_error: bool,
    /// Its write channel: requests taken, responses in order with error.
    pub mem_wr_req_ready: bool,
    pub mem_wr_resp_valid: bool,
    pub mem_wr_resp_error: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub busy: bool,
    pub finish: bool,
    pub exit_code: u8,
    pub mem_rd_req_valid: bool,
    pub mem_rd_req_addr: u32,
    pub mem_wr_req_valid: bool,
    pub mem_wr_req_addr: u32,
    pub mem_wr_req_wdata: u128,
}

/// A layer's X (INROWS x ceil(INCOLS/SIZE) words) fits in the X buffer.
pub fn x_fits(inrows: u8, incols: u8) -> bool {
    tile_ram::fits(inrows, incols, X_WORDS)
}

/// ceil(n / SIZE): memory words per matrix row of `n` elements, or tiles along `n`.
pub fn words(n: u8) -> u32 {
    u32::from(n).div_ceil(SIZE as u32)
}

#[derive(Clone, Debug, Default)]
pub struct Engine {
    pub state: State,
    code: u8,
    stop: bool,
    stop_code: u8,
    /// Sizes, checks, the tile walk and the phases' first addresses.
    pub tiles: TileSequencer,
    /// The weight banks and what REWEIGHTS may use.
    pub weights: WeightLoader,
    /// The result writes (the third request generator).
    pub writer: OutputWriter,
    /// The output FIFO: result words waiting to be written (SAVEOUT), `OUT_WORDS` words, one
    /// column tile's INROWS <= 255 always fit (docs/scale.md, "Where the cycles go now", 2).
    pub ofifo: TileRam<OUT_WORDS, OUT_WORDS>,
    /// The request generator of the current phase.
    pub requests: PhaseRequests,
    /// The look-ahead weight load (docs/scale.md, "Where the cycles go now", 1): a second
    /// request generator on the memory port's read channel, for the weights of the K tile that follows in the
    /// walk (`look_ahead.rs` has the decisions).
    pub ahead: LookAhead,
    pub systolic: Systolic,
    pub results: ResultBuffer,
    /// The X buffer: this layer's X kept on chip, so that X is read from memory once per
    /// layer instead of once per column tile (docs/scale.md, "X kept on chip"). Decisions:
    /// - Why: column tiles outside, K tiles inside, and every column tile needs all of X.
    ///   Re-read from memory, X was most of a layer's requests on the one memory port
    ///   (64x64x64: 4096 of 5136), which bounded it at 79.8 % MAC utilisation.
    /// - What: the first column tile's STREAM phases store X's words as memory returns them,
    ///   K tile by K tile, row by row (word `t·INROWS + r` = word `t` of row `r`); the later
    ///   column tiles read them in the same order, always ready, answered the next cycle.
    /// - Size: `X_WORDS` = 1024 words (16 KiB), a result-buffer bank's block RAM: INROWS x
    ///   ceil(INCOLS/SIZE) <= 1024 (255 rows of 32 columns, 128 of 64, 64 of 128).
    /// - A larger X is not refused: the layer re-reads it from memory for every column tile, as
    ///   before the buffer (only cycles; no layer that ran before is refused now).
    /// - REINPUTS layers stream X from the result buffer and do not use this one.
    /// - Nothing is kept between layers: PLAN restarts the writes at word 0.
    pub xbuf: TileRam<X_WORDS, X_WORDS>,
    events: Vec<&'static str>,
}

impl Engine {
    /// The output writer offers a write on the write channel: a word is loaded, whatever the
    /// read channel does.
    fn write_valid(&self) -> bool {
        self.writer.held() || (self.writer.loaded(self.ofifo.read_valid()) && !self.stop)
    }

    /// The outputs: registers, except that the request count of a phase follows INROWS.
    pub fn outputs(&self, c: &In) -> Out {
        // The main generator and the look-ahead never offer together (the look-ahead reads
        // only while the phase reads nothing from memory).
        let ahead = self.ahead_valid(c);
        Out {
            busy: self.state != State::Idle,
            finish: self.state == State::Done,
            exit_code: self.code,
            mem_rd_req_valid: self.main_valid(c) || ahead,
            mem_rd_req_addr: if ahead { self.ahead.addr(self.tiles.ahead_ptr(c)) } else { self.requests.addr },
            mem_wr_req_valid: self.write_valid(),
            mem_wr_req_addr: self.writer.addr(),
            mem_wr_req_wdata: self.ofifo.read_data(),
        }
    }

    /// The rising edge. Every decision reads the registers as they were before the edge.
    pub fn clock(&mut self, i: &In) {
        self.events.clear();
        if i.reset {
            let (systolic, results, xbuf, ofifo) =
                (std::mem::take(&mut self.systolic), std::mem::take(&mut self.results), std::mem::take(&mut self.xbuf), std::mem::take(&mut self.ofifo));
            *self = Self { systolic, results, xbuf, ofifo, ..Self::default() };
            self.systolic.reset();
            self.results.reset();
            self.xbuf.reset();
            self.ofifo.reset();
            self.events.push("reset");
            return;
        }
        let c = i;
        let out = self.outputs(c);
        let r = self.reads(c);
        let write_resp = i.mem_wr_resp_valid;
        let write_valid = self.write_valid();
        let write_accept = write_valid && i.mem_wr_req_ready;
        let read_accept = (r.main_valid || r.ahead_valid) && i.mem_rd_req_ready;
        let ahead_ready = self.ahead.ready();
        let (total, stride) = self.phase(c);
        // The first column tile keeps the X rows it receives from memory.
        let x_store = self.state == State::Stream && self.tiles.first_n && r.mem_response;
        let phase_done = self.requests.issued == total && self.requests.outstanding == 0;
        let array_active = self.systolic.active();
        let first_active = self.systolic.first_active();
        let writer_idle = self.writer.idle(self.ofifo.read_valid());
        // FLUSH waits for both channels' requests offered and responses outstanding. A stopped
        // layer also lets its rows leave the array, so none reaches the next layer.
        let reads_flushed = !self.requests.held && !self.ahead.held() && self.requests.outstanding == 0 && !self.ahead.pending();
        let writes_flushed = !self.writer.held() && !self.writer.pending();
        let flushed = reads_flushed && writes_flushed && !array_active;
        self.events.push(self.state.name());
        if (out.mem_rd_req_valid && !i.mem_rd_req_ready) || (out.mem_wr_req_valid && !i.mem_wr_req_ready) {
            self.events.push("request stalled");
        }
        let read_error = i.mem_rd_resp_valid && i.mem_rd_resp_error;
        let write_error = i.mem_wr_resp_valid && i.mem_wr_resp_error;
        if read_error || write_error {
            self.events.push("error response");
        }
        if write_error && self.state == State::Stream {
            self.events.push("error response to a write while streaming");
        }
        // The two channels side by side (docs/scale.md, "Memory master port and the AXI4 bridge").
        if write_error && self.reads_outstanding(c) {
            self.events.push("error response to a write while reads are outstanding");
        }
        if write_accept && read_accept {
            self.events.push("write and read issued in the same cycle");
        }
        if write_valid && !i.mem_wr_req_ready && read_accept {
            self.events.push("write channel stalled while reads go on");
        }
        if self.state == State::Flush && reads_flushed && !writes_flushed {
            self.events.push("FLUSH waits for the write channel");
        }
        if write_accept {
            match self.state {
                State::Stream => self.events.push("result written while streaming"),
                State::NStart | State::Bias | State::KStart => self.events.push("result written in NSTART/BIAS/KSTART"),
                State::NextN => self.events.push("result written in NEXTN"),
                State::Drain => self.events.push("result written in DRAIN"),
                _ => {}
            }
        }
        // The output FIFO's edge cases: every one of its words holds a result (its write
        // pointer has caught up with its read pointer), its pointers wrap.
        if self.writer.words() == OUT_WORDS as u32 {
            self.events.push("output FIFO full");
        }
        if self.state == State::Done && self.writer.words() > 0 {
            self.events.push("words dropped at DONE");
        }
        if c.saveout && self.systolic.out_valid() && self.ofifo.write_ptr() == OUT_WORDS - 1 {
            self.events.push("output FIFO wraps");
        }
        if self.state == State::Drain && !array_active && !writer_idle {
            self.events.push("DRAIN waits for the writer");
        }
        if self.state == State::Stream && !self.room(c) && !self.stop {
            self.events.push("STREAM waits for room in the output FIFO");
        }

        // The array.
        let in_phase = |s: State| self.state == s && r.response;
        // KSTART loads the other bank once no row of it is left in the array.
        let kstart = self.state == State::KStart;
        let load_bank = self.weights.load_bank(kstart, r.ahead_region);
        let bank_free = self.weights.other_free(&self.systolic);
        if kstart && !c.reweights && !ahead_ready && !bank_free {
            self.events.push("KSTART waits for its bank");
        }
        if self.ahead_phase(c) && self.tiles.ahead() && !self.ahead.on() && !self.stop && !bank_free {
            self.events.push("look-ahead load waits for its bank");
        }
        let ahead_load = r.ahead_resp && r.ahead_region;
        if r.ahead_resp && i.mem_rd_resp_error {
            self.events.push("error response to a look-ahead load");
        }
        if ahead_load {
            self.events.push(if self.state == State::Stream { "weight row loaded while streaming" } else { "weight row loaded between column tiles" });
        }
        let array = systolic::In {
            row_valid: in_phase(State::Stream),
            word: if self.results.read_valid() {
                self.results.read_data()
            } else if self.xbuf.read_valid() {
                self.xbuf.read_data()
            } else {
                i.mem_rd_resp_data
            },
            w_word: i.mem_rd_resp_data,
            row_bank: self.weights.bank,
            row_first: self.tiles.first_k,
            row_last: !self.tiles.more_k(),
            row_tail: !self.tiles.more_n(),
            w_bank: load_bank,
            w_clear: self.weights.clear(kstart, ahead_ready, r.ahead_start, c, &self.systolic),
            w_load: in_phase(State::WLoad) || ahead_load,
            w_row: if self.state == State::WLoad { self.requests.responses } else { self.ahead.index() } as usize % SIZE,
            base_clear: self.state == State::NStart,
            base_add: in_phase(State::Bias) || in_phase(State::Sums),
            base_half: self.requests.responses as usize % 2,
            // At PLAN: between column tiles the counters are back at 0 after whole K tiles, while
            // the rows of the last K tile before are still in the array.
            rows_clear: self.state == State::Plan,
            inrows: c.inrows,
            tail_lanes: usize::from(c.wghtcols.wrapping_sub(1)) % SIZE + 1,
            relu: c.actfn,
            shift: c.shiftamt,
        };
        let (out_word, out_valid, results_fit, x_fits) = (self.systolic.word(), self.systolic.out_valid(), self.results.fits(), self.xbuf.fits());
        // The FIFO's next word goes to its read register when that is empty or its write is taken.
        let loaded = self.writer.loaded(self.ofifo.read_valid());
        let fifo_read = self.writer.words() > 0 && (!loaded || write_accept) && !self.stop;
        let fifo_store = out_valid && c.saveout;
        if self.systolic.clock(&array) > 0 {
            self.events.push("accumulate");
        }
        self.results.clock(&result_buffer::In {
            inrows: c.inrows,
            incols: c.incols,
            wghtcols: c.wghtcols,
            layer_start: self.state == State::Plan,
            read_restart: self.state == State::NStart,
            read: r.buffer_read,
            store: out_valid,
            word: out_word,
            commit: self.state == State::Done && self.code == SUCCESS,
        });
        self.xbuf.clock(&tile_ram::In {
            rows: c.inrows,
            cols: c.incols,
            write_restart: self.state == State::Plan,
            write_base: 0,
            read_restart: self.state == State::NStart,
            read_base: 0,
            read: r.x_read,
            store: x_store,
            word: i.mem_rd_resp_data,
        });
        if r.buffer_read {
            self.events.push("result buffer read");
        }
        if r.x_read {
            self.events.push("X row from the X buffer");
        }
        if x_store && x_fits {
            self.events.push("X row stored in the X buffer");
        }
        if r.accept && self.state == State::Stream && !self.tiles.first_n {
            self.events.push("X re-read from memory: it does not fit the X buffer");
        }
        if out_valid && results_fit {
            self.events.push(if c.saveout { "result stored and written" } else { "result stored, not written" });
        }
        self.ofifo.clock(&tile_ram::In {
            rows: c.inrows,
            cols: 1,
            write_restart: self.state == State::Done,
            write_base: 0,
            read_restart: self.state == State::Done,
            read_base: 0,
            read: fifo_read,
            store: fifo_store,
            word: out_word,
        });
        self.writer.clock(&output_writer::Step {
            restart: self.state == State::Done,
            start: self.state == State::Plan,
            result: c.result,
            reserve: r.requested && self.state == State::Stream && !self.tiles.more_k() && c.saveout,
            store: fifo_store,
            read: fifo_read,
            loaded,
            valid: write_valid,
            accept: write_accept,
            resp: write_resp,
            inrows: c.inrows,
            ncw: words(c.wghtcols) * WORD_BYTES,
            word_bytes: WORD_BYTES,
        });

        // Requests and responses.
        self.requests.clock(&phase_requests::Step { requested: r.requested, response: r.response, stride, stalled: r.main_valid && !i.mem_rd_req_ready });
        self.ahead.clock(&look_ahead::Step {
            start: r.ahead_start,
            valid: r.ahead_valid,
            ready: i.mem_rd_req_ready,
            resp: r.ahead_resp,
            rows: self.tiles.ahead_rows(c),
            ptr: self.tiles.ahead_ptr(c),
            stride: words(c.wghtcols) * WORD_BYTES,
        });

        self.step_state(c, &state_machine::Step { phase_done, ahead_ready, bank_free, array_active, first_active, writer_idle, flushed, mem_error: read_error || write_error });
    }
}

crate::sequential_block!(Engine, mealy, events);
