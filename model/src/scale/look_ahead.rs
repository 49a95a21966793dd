//! The look-ahead weight load, a sub-block of the layer engine (`engine.rs`): the counts and
//! the address of the second request generator on the memory port's read channel, which
//! fetches the weights of the K tile that follows in the walk into the other bank while STREAM
//! reads X on chip and while DRAIN waits (docs/scale.md, "Where the cycles go now", 1). RTL:
//! `hdl/src/scale/look_ahead.rs`.
//!
//! Decisions:
//! - When: while the port is free, in STREAM when X comes from the X buffer or the result
//!   buffer, and in DRAIN; it starts once no row of the other bank is left in the array
//!   (clearing that bank then), as KSTART does. The engine decides when it starts and offers a
//!   request (it knows the phase and the stop); this block keeps what it has done.
//! - Its requests and responses: its own counts (rows left to request, responses outstanding,
//!   responses taken) and address. The two read generators never have reads outstanding
//!   together (the main one's STREAM reads no memory, and a phase ends only when its responses
//!   are back), so a read response belongs to the look-ahead whenever it has one outstanding
//!   (the output writer's writes have a channel of their own).
//! - STREAM with another K tile waits for the look-ahead to finish, then starts that K tile
//!   (bank switched, no KSTART or WLOAD); DRAIN waits for it too, and the next column tile's
//!   KSTART switches to the loaded bank and skips WLOAD. Waiting never costs cycles against
//!   KSTART and WLOAD, which would wait for the same bank and issue the same requests.
//! - A stop: the look-ahead issues nothing more; FLUSH waits for its responses too; a load a
//!   stopped layer leaves unused is dropped when the next layer starts.

/// What the engine does with the look-ahead in a cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// It starts now: `rows` weight rows from `ptr` (the tile sequencer's target).
    pub start: bool,
    /// It offers a request; the memory port takes requests (`ready`).
    pub valid: bool,
    pub ready: bool,
    /// A memory response is its.
    pub resp: bool,
    pub rows: u32,
    pub ptr: u32,
    /// Address step between weight rows.
    pub stride: u32,
}

#[derive(Clone, Debug, Default)]
pub struct LookAhead {
    /// Started (its bank cleared), rows left to request, responses outstanding and taken,
    /// the next address, a request offered and not taken.
    on: bool,
    left: u32,
    outstanding: u32,
    responses: u32,
    addr: u32,
    held: bool,
}

impl LookAhead {
    /// Started, and not yet taken by a K tile.
    pub fn on(&self) -> bool {
        self.on
    }

    /// Started, with rows left to request.
    pub fn more(&self) -> bool {
        self.on && self.left > 0
    }

    /// A request was offered and not taken: it stays offered, unchanged.
    pub fn held(&self) -> bool {
        self.held
    }

    /// Responses are outstanding: the next memory response is its.
    pub fn pending(&self) -> bool {
        self.outstanding > 0
    }

    /// The weights of the next K tile are in the other bank.
    pub fn ready(&self) -> bool {
        self.on && self.left == 0 && self.outstanding == 0
    }

    /// Responses taken: the bank row the next one loads.
    pub fn index(&self) -> u32 {
        self.responses
    }

    /// The address of its next request (`ptr`, the target's, before it starts).
    pub fn addr(&self, ptr: u32) -> u32 {
        if self.on {
            self.addr
        } else {
            ptr
        }
    }

    /// The rising edge.
    pub fn clock(&mut self, s: &Step) {
        if s.start {
            (self.on, self.left, self.addr) = (true, s.rows, s.ptr);
        }
        let accept = s.valid && s.ready;
        if accept {
            self.left -= 1;
            self.addr = self.addr.wrapping_add(s.stride);
        }
        self.held = s.valid && !s.ready;
        match (accept, s.resp) {
            (true, false) => self.outstanding += 1,
            (false, true) => self.outstanding -= 1,
            _ => {}
        }
        self.responses += u32::from(s.resp);
    }

    /// After the edge: a K tile takes the weights loaded ahead, or a layer starts (a stopped
    /// one may leave a load unused): the look-ahead is free for the next one.
    pub fn free(&mut self) {
        (self.on, self.left, self.responses) = (false, 0, 0);
    }
}
