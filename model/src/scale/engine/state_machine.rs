//! The engine's state machine: the state, the exit code and the stop, the current phase's
//! request count and address step, the next state with what each state does at its edge, the
//! stop causes, and what entering a state sets up. RTL: `hdl/src/scale/state_machine.rs`, a
//! sub-block of the engine; here, as there, it reads the engine's sub-blocks and the decisions
//! the engine computed this cycle (`Step`), and acts last in the engine's edge.
use super::{Engine, In, CPU_ERR, MEM_ERR, SUCCESS, UNUSED, WORD_BYTES, words};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum State {
    #[default]
    Idle,
    Check,
    Plan,
    NStart,
    Bias,
    Sums,
    KStart,
    WLoad,
    Stream,
    Drain,
    NextN,
    Flush,
    Done,
}

impl State {
    pub const ALL: [State; 13] = [
        State::Idle,
        State::Check,
        State::Plan,
        State::NStart,
        State::Bias,
        State::Sums,
        State::KStart,
        State::WLoad,
        State::Stream,
        State::Drain,
        State::NextN,
        State::Flush,
        State::Done,
    ];

    pub fn name(self) -> &'static str {
        match self {
            State::Idle => "state IDLE",
            State::Check => "state CHECK",
            State::Plan => "state PLAN",
            State::NStart => "state NSTART",
            State::Bias => "state BIAS",
            State::Sums => "state SUMS",
            State::KStart => "state KSTART",
            State::WLoad => "state WLOAD",
            State::Stream => "state STREAM",
            State::Drain => "state DRAIN",
            State::NextN => "state NEXTN",
            State::Flush => "state FLUSH",
            State::Done => "state DONE",
        }
    }

    /// The phases that issue memory requests.
    pub(super) fn issues(self) -> bool {
        matches!(self, State::Bias | State::Sums | State::WLoad | State::Stream)
    }
}

/// What the engine decided this cycle, from the registers before the edge, for the next state.
pub(super) struct Step {
    /// The phase's requests are all issued and answered.
    pub phase_done: bool,
    /// The look-ahead load is in.
    pub ahead_ready: bool,
    /// The other weight bank has no row left in the array.
    pub bank_free: bool,
    /// Rows are in the array; rows of a first K tile are.
    pub array_active: bool,
    pub first_active: bool,
    /// The output writer has nothing left to write.
    pub writer_idle: bool,
    /// FLUSH's wait is over: no request offered or answer outstanding on either channel, no row
    /// in the array.
    pub flushed: bool,
    /// An error response on either channel.
    pub mem_error: bool,
}

impl Engine {
    /// Total requests of the current phase, and the address step between them.
    pub(super) fn phase(&self, c: &In) -> (u32, u32) {
        let ncw = words(c.wghtcols) * WORD_BYTES;
        match self.state {
            State::Bias | State::Sums => (2, WORD_BYTES),
            State::WLoad => (self.tiles.k_rows(), ncw),
            State::Stream => (u32::from(c.inrows), words(c.incols) * WORD_BYTES),
            _ => (0, 0),
        }
    }

    /// The edge's last act: the next state, the stop causes, entering a state.
    pub(super) fn step_state(&mut self, c: &In, s: &Step) {
        // Next state; a stop seen now acts from the next cycle.
        // PLAN's verdict on the registers stands even if a stop came during CHECK.
        let stopping = self.stop && !matches!(self.state, State::Idle | State::Plan | State::Flush | State::Done);
        // A stopped layer's words are not written: DONE drops what the FIFO still holds.
        if stopping && (self.writer.words() > 0 || self.writer.loaded(self.ofifo.read_valid())) {
            self.events.push("layer stopped while the writer holds words");
        }
        let next = match self.state {
            _ if stopping => State::Flush,
            State::Idle if c.start => State::Check,
            State::Check => {
                self.tiles.check(c, self.results.reinput_ok(c.inrows, c.incols), self.weights.reweight_ok(c));
                State::Plan
            }
            State::Plan => match self.tiles.plan(c) {
                Some(code) => {
                    self.code = code;
                    self.events.push(if code == CPU_ERR { "exit CPU_ERR at check" } else { "exit MEM_ERR at check" });
                    State::Done
                }
                None => State::NStart,
            },
            State::NStart => {
                self.tiles.start_n(c);
                if c.usebias {
                    State::Bias
                } else if c.usesumm {
                    State::Sums
                } else {
                    State::KStart
                }
            }
            State::Bias if s.phase_done => {
                if c.usesumm {
                    State::Sums
                } else {
                    State::KStart
                }
            }
            State::Sums if s.phase_done => State::KStart,
            State::KStart if c.reweights => State::Stream,
            // The next column tile's first K tile, its weights loaded ahead.
            State::KStart if s.ahead_ready => {
                self.take_ahead();
                State::Stream
            }
            State::KStart if s.bank_free => {
                self.weights.switch();
                State::WLoad
            }
            State::WLoad if s.phase_done => State::Stream,
            // X on chip: the next K tile streams as soon as its weights, loaded ahead, are in.
            State::Stream if s.phase_done && self.tiles.more_k() && self.stream_on_chip(c) => {
                if s.ahead_ready {
                    if s.array_active {
                        self.events.push("next K tile follows rows in the array");
                    }
                    self.tiles.next_k(c);
                    self.take_ahead();
                    // The request generator starts the K tile (the address is not used: X is on chip).
                    self.requests.start(None);
                } else {
                    self.events.push("STREAM waits for the look-ahead load");
                }
                State::Stream
            }
            // The next K tile's rows follow this one's through the array.
            State::Stream if s.phase_done && self.tiles.more_k() => {
                if s.array_active {
                    self.events.push("next K tile follows rows in the array");
                }
                self.tiles.next_k(c);
                State::KStart
            }
            // The next column tile's rows follow this one's last K tile through the array.
            State::Stream if s.phase_done && self.tiles.more_n() => State::NextN,
            State::Stream if s.phase_done => State::Drain,
            // The last column tile: the last rows' results are still on their way, or words are
            // still to be written.
            State::Drain if s.array_active || !s.writer_idle => State::Drain,
            State::Drain => {
                self.code = SUCCESS;
                State::Done
            }
            // NSTART changes the base (bias and sums) that rows of a first K tile still in the
            // array would take; the look-ahead load of the next column tile's first weights
            // finishes here.
            State::NextN if s.first_active || (self.tiles.ahead() && !s.ahead_ready) => State::NextN,
            State::NextN => {
                self.tiles.next_n();
                State::NStart
            }
            State::Flush if s.flushed => {
                self.code = self.stop_code;
                self.events.push(if self.stop_code == CPU_ERR { "exit CPU_ERR after abort" } else { "exit MEM_ERR after error response" });
                State::Done
            }
            State::Done => {
                // What the layer leaves for the next one's REWEIGHTS (REINPUTS: the result buffer).
                self.weights.finish_layer(self.code == SUCCESS, c);
                State::Idle
            }
            state => state,
        };

        // Stop causes: the first one wins; an error response (on either channel) before an
        // abort in one cycle.
        let running = !matches!(self.state, State::Idle | State::Done);
        if self.state == State::Idle && c.start {
            self.stop = false;
        } else if running && !self.stop {
            if s.mem_error {
                (self.stop, self.stop_code) = (true, MEM_ERR);
            } else if c.write_while_busy {
                (self.stop, self.stop_code) = (true, CPU_ERR);
                self.events.push("abort");
            }
        }
        if next != self.state {
            self.enter(next);
        }
        self.state = next;
    }

    /// A K tile starts with the weights loaded ahead: switch to their bank, and the look-ahead
    /// is free for the next one.
    fn take_ahead(&mut self) {
        self.weights.switch();
        self.ahead.free();
        self.events.push("K tile starts with weights loaded ahead");
    }

    /// Sets up the request generator of the phase `next`.
    fn enter(&mut self, next: State) {
        self.requests.start(match next {
            State::Bias => Some(self.tiles.b_ptr),
            State::Sums => Some(self.tiles.s_ptr),
            State::WLoad => Some(self.tiles.w_kt_ptr),
            State::Stream => Some(self.tiles.x_kt_ptr),
            _ => None,
        });
        if next == State::Check {
            self.code = UNUSED;
            // A stopped layer may leave a look-ahead load unused.
            self.ahead.free();
        }
    }
}
