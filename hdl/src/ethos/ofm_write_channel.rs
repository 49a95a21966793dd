//! The OFM queue's write-channel handshake (`ofm_queue.rs`; docs/ethos.md, "Convolution unit",
//! OFM writes): the one write in flight, `state` 0 idle, 1 address valid, 2 waiting for the
//! response; `start` (the queue's pop, only while idle) puts a write up, `aw_ready` takes its
//! address, `b_valid` ends it, with `write_error` for the cycle its response is an error.
//! Why a block of its own: its register is the only state of the queue whose next value
//! reads the top's inputs (the write channel's), and in the queue's one `always @(*)`
//! Verilator ran the whole queue (its head entry, pop and push) in its input region, twice a
//! cycle, and once more after the edge; now only this runs there (docs/ethos.md, "Verilated
//! speed", NPU step 3). Same register, same cycles: the model is inside
//! `npu_model::ethos::conv_unit`.
use crate::primitives::constant as k;
use crate::primitives::RegEn;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct OfmWriteChannel {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub aw_ready: Signal<In, Bit>,
    pub b_valid: Signal<In, Bit>,
    pub b_error: Signal<In, Bit>,
    pub state: Signal<Out, Bits<2>>,
    pub write_error: Signal<Out, Bit>,
    /// Enabled: only the enable reads the top's inputs (the next state is from the register:
    /// 0 -> 1 at `start`, 1 -> 2, 2 -> 0), so only it runs in Verilator's input region.
    wr: RegEn<Bits<2>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
}

impl Default for OfmWriteChannel {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            aw_ready: Default::default(),
            b_valid: Default::default(),
            b_error: Default::default(),
            state: Default::default(),
            write_error: Default::default(),
            wr: Default::default(),
            zero2: k(0),
            one2: k(1),
            two2: k(2),
        }
    }
}

impl Logic for OfmWriteChannel {
    #[hdl_gen]
    fn update(&mut self) {
        self.wr.clock.next = self.clock.val();
        self.wr.reset.next = self.reset.val();
        self.state.next = self.wr.q.val();
        self.write_error.next = (self.wr.q.val() == self.two2.val()) & self.b_valid.val() & self.b_error.val();
        self.wr.d.next = self.zero2.val();
        if self.wr.q.val() == self.zero2.val() {
            self.wr.d.next = self.one2.val();
        }
        if self.wr.q.val() == self.one2.val() {
            self.wr.d.next = self.two2.val();
        }
        self.wr.enable.next = ((self.wr.q.val() == self.one2.val()) & self.aw_ready.val())
            | ((self.wr.q.val() == self.two2.val()) & self.b_valid.val())
            | self.start.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(OfmWriteChannel::default, "ofm_write_channel");
}
