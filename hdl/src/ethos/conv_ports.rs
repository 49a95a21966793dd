//! The convolution unit's handshake with its datapath (`conv_unit.rs`; docs/ethos.md,
//! "Convolution unit"), two blocks of their own whose outputs are logic on registers and the
//! datapath's registered outputs only, so that the datapath inputs they drive are no loop
//! through the datapath for Verilator (UNOPTFLAT; the module comment of `conv_unit.rs`):
//! - [`ConvHold`]: from the datapath's registered state, its IFM read ports (logic on its
//!   traversal registers) and OFM valid and the unit's registers, the datapath's `hold` (a
//!   full OFM queue) and `hold_mac` (a tap waiting for the IFM server: the traversal waits,
//!   the output walk drains on), the cycle that releases a gathered tap (`tap_release`; `release` is a SystemVerilog
//!   keyword), whether the shown tap reads (`tap_reads`) and whether the OFM queue is short
//!   of room. Only a tap that reads is held for the IFM server and released: a MAC cycle
//!   without reads (a group's last tap waiting for the output walk, or a tap whose four
//!   positions are all padding; a packed depthwise cycle whose window rows lie outside the
//!   IFM) goes through at once, as its stage 2 needs no data (padded lanes are zeroed there).
//! - [`StreamPort`]: the stream reader's buffered word (`stream_reader.rs`) on the datapath's
//!   `w_*` / `sb_*` ports, low half first (from the reader's registers only).
//!
//! The model is inside `npu_model::ethos::conv_unit`.
use rust_hdl::prelude::*;

/// The datapath's DECODE and MAC states (`conv_datapath.rs`): the traversal issues taps in
/// both (decode overlapped with MAC).
const DP_DECODE: u64 = 2;
const DP_MAC: u64 = 4;

#[derive(LogicBlock)]
pub struct ConvHold {
    /// The unit is in RUN.
    pub running: Signal<In, Bit>,
    pub dp_state: Signal<In, Bits<3>>,
    pub dp_ofm_valid: Signal<In, Bit>,
    /// The datapath's IFM read ports (`ifm_read0..3`).
    pub dp_read0: Signal<In, Bit>,
    pub dp_read1: Signal<In, Bit>,
    pub dp_read2: Signal<In, Bit>,
    pub dp_read3: Signal<In, Bit>,
    pub ifs_ready: Signal<In, Bit>,
    pub q_count: Signal<In, Bits<5>>,
    pub hold: Signal<Out, Bit>,
    /// The tap waits for the IFM server: the traversal is held, the output walk goes on.
    pub hold_mac: Signal<Out, Bit>,
    pub tap_release: Signal<Out, Bit>,
    /// In MAC, the tap shown reads at least one position: the IFM server serves it.
    pub tap_reads: Signal<Out, Bit>,
    /// The OFM queue with the value on the port would leave fewer than 4 entries free.
    pub ofm_full: Signal<Out, Bit>,
    count: Signal<Local, Bits<5>>,
    mac: Signal<Local, Bit>,
    one4: Constant<Bits<5>>,
    limit: Constant<Bits<5>>,
    dp_mac: Constant<Bits<3>>,
    dp_decode: Constant<Bits<3>>,
}

impl Default for ConvHold {
    fn default() -> Self {
        Self {
            running: Default::default(),
            dp_state: Default::default(),
            dp_ofm_valid: Default::default(),
            dp_read0: Default::default(),
            dp_read1: Default::default(),
            dp_read2: Default::default(),
            dp_read3: Default::default(),
            ifs_ready: Default::default(),
            q_count: Default::default(),
            hold: Default::default(),
            hold_mac: Default::default(),
            tap_release: Default::default(),
            tap_reads: Default::default(),
            ofm_full: Default::default(),
            count: Default::default(),
            mac: Default::default(),
            one4: Constant::new(1.into()),
            limit: Constant::new(((super::conv_unit::QUEUE - 4) as u64).into()),
            dp_mac: Constant::new(DP_MAC.into()),
            dp_decode: Constant::new(DP_DECODE.into()),
        }
    }
}

impl Logic for ConvHold {
    #[hdl_gen]
    fn update(&mut self) {
        self.count.next = self.q_count.val();
        if self.dp_ofm_valid.val() {
            self.count.next = self.q_count.val() + self.one4.val();
        }
        self.ofm_full.next = self.count.val() > self.limit.val();
        self.mac.next = ((self.dp_state.val() == self.dp_mac.val()) | (self.dp_state.val() == self.dp_decode.val()))
            & (self.dp_read0.val() | self.dp_read1.val() | self.dp_read2.val() | self.dp_read3.val());
        self.tap_reads.next = self.mac.val();
        self.hold.next = self.ofm_full.val();
        self.hold_mac.next = self.mac.val() & !self.ifs_ready.val();
        self.tap_release.next = self.running.val() & self.mac.val() & self.ifs_ready.val() & !self.ofm_full.val();
    }
}

#[derive(LogicBlock)]
pub struct StreamPort {
    pub running: Signal<In, Bit>,
    pub sr_buf: Signal<In, Bits<64>>,
    pub sr_halves: Signal<In, Bits<2>>,
    pub sr_buf_scale: Signal<In, Bit>,
    pub sr_buf_last: Signal<In, Bit>,
    pub w_valid: Signal<Out, Bit>,
    pub sb_valid: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<32>>,
    pub last: Signal<Out, Bit>,
    shown: Signal<Local, Bit>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
}

impl Default for StreamPort {
    fn default() -> Self {
        Self {
            running: Default::default(),
            sr_buf: Default::default(),
            sr_halves: Default::default(),
            sr_buf_scale: Default::default(),
            sr_buf_last: Default::default(),
            w_valid: Default::default(),
            sb_valid: Default::default(),
            data: Default::default(),
            last: Default::default(),
            shown: Default::default(),
            zero2: Constant::new(0.into()),
            one2: Constant::new(1.into()),
            two2: Constant::new(2.into()),
        }
    }
}

impl Logic for StreamPort {
    #[hdl_gen]
    fn update(&mut self) {
        self.data.next = self.sr_buf.val().get_bits::<32>(32);
        if self.sr_halves.val() == self.two2.val() {
            self.data.next = self.sr_buf.val().get_bits::<32>(0);
        }
        self.shown.next = (self.sr_halves.val() != self.zero2.val()) & self.running.val();
        self.w_valid.next = self.shown.val() & !self.sr_buf_scale.val();
        self.sb_valid.next = self.shown.val() & self.sr_buf_scale.val();
        self.last.next = self.sr_buf_last.val() & (self.sr_halves.val() == self.one2.val());
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ConvHold::default, "conv_hold");
    crate::synth_check::assert_synthesizes(StreamPort::default, "stream_port");
}
