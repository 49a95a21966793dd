//! The convolution unit (`hdl/src/ethos/conv_unit.rs`, whose comment has the ports, states,
//! timing and decisions): NPU_OP_CONV and NPU_OP_DEPTHWISE on the convolution datapath, its
//! weight and scale streams, IFM reads and OFM writes served from the NPU's one memory port.
//! docs/ethos.md, "Convolution unit". The registers of the RTL's sub-blocks are fields of one
//! struct, stepped here in the RTL's order; the steps of each sub-block are methods in a
//! sub-module named after it: `conv_layer` (`conv_layer.rs`: the layer registers and CHECK),
//! `stream_reader`, `ifm_server` (behind `ifm_upscale.rs`) and `ofm_queue`. `conv_ports.rs`'s
//! hold and release are the few lines of `step_unit` that compute them.
mod conv_layer;
mod ifm_server;
mod ofm_queue;
mod stream_reader;

pub use conv_layer::strides;
use super::conv_datapath::{self as dp, ConvDatapath};
use super::elementwise::{In, Out};
use super::feature_map::address;
use super::kernel_registers::{scalar, KernelRegisters, LATCH_STEPS};
use crate::Block;
pub use npu_hdl::ethos::conv_unit::{state, ERROR_IFM, ERROR_OFM, ERROR_SCALE, ERROR_UNSUPPORTED, ERROR_WEIGHTS, QUEUE};

/// What a read is for (the stream reader's weights or scales, or the IFM server).
const FOR_WEIGHTS: u8 = 0;
const FOR_SCALE: u8 = 1;
/// The stream reader has read both streams (its `sr_stream` 2, as the RTL's; a read's
/// `rd_for` 2 is the IFM's).
const FOR_NONE: u8 = 2;
const FOR_IFM: u8 = 2;

#[derive(Clone, Copy, Debug, Default)]
struct Ofm {
    y: u16,
    x: u16,
    c: u16,
    /// Lanes - 1: the values of channels c .. c + n - 1 (lanes 0..n-1 at column x, and
    /// lanes 8..8+n-1 at column x + 1 when `second`).
    n_m1: u8,
    second: bool,
    data: [u8; 16],
}

pub struct ConvUnit {
    state: u8,
    k: u8,
    depthwise: bool,
    error: u8,
    /// The datapath's start, a cycle after CHECK (registered in the RTL).
    dp_start: bool,
    /// The datapath's reset, registered in the RTL: in DONE and in the cycle after the unit's
    /// reset (the RTL's power-up value; the model also resets the datapath in the reset
    /// cycle itself, where the RTL's register has no value yet).
    dp_reset: bool,
    regs: KernelRegisters,
    datapath: ConvDatapath,
    /// The read channel: 0 idle, 1 address, 2 data; its address, purpose and whether it is
    /// the last word of its stream.
    rd: u8,
    rd_addr: u64,
    rd_for: u8,
    rd_last: bool,
    /// Stream reader: the stream it reads next (0 weights, 1 scales, 2 none), its next word's
    /// address and the words left to ask for; the buffered word, its halves left (2, 1, 0),
    /// its stream and whether it is the stream's last.
    sr_stream: u8,
    sr_addr: u64,
    sr_words: u32,
    sr_buf: u64,
    sr_halves: u8,
    sr_buf_stream: u8,
    sr_buf_last: bool,
    /// IFM server: the position served, its second word, all four gathered; the gathered
    /// words and those shown to the datapath.
    ifs_p: u8,
    ifs_word: bool,
    ifs_ready: bool,
    pending: [u64; 4],
    current: [u64; 4],
    /// OFM queue and the write channel (0 idle, 1 address, 2 response).
    queue: [Ofm; QUEUE],
    q_head: u8,
    q_count: u8,
    /// The head entry's lane written next.
    q_at: u8,
    wr: u8,
    w_addr: u64,
    w_data: u64,
    w_strb: u8,
    events: Vec<&'static str>,
}

impl Default for ConvUnit {
    fn default() -> Self {
        Self {
            state: state::IDLE,
            k: 0,
            depthwise: false,
            error: 0,
            dp_start: false,
            dp_reset: true,
            regs: KernelRegisters::default(),
            datapath: ConvDatapath::default(),
            rd: 0,
            rd_addr: 0,
            rd_for: 0,
            rd_last: false,
            sr_stream: 0,
            sr_addr: 0,
            sr_words: 0,
            sr_buf: 0,
            sr_halves: 0,
            sr_buf_stream: 0,
            sr_buf_last: false,
            ifs_p: 0,
            ifs_word: false,
            ifs_ready: false,
            pending: [0; 4],
            current: [0; 4],
            queue: [Ofm::default(); QUEUE],
            q_head: 0,
            q_at: 0,
            q_count: 0,
            wr: 0,
            w_addr: 0,
            w_data: 0,
            w_strb: 0,
            events: Vec::new(),
        }
    }
}

const MASK40: u64 = (1 << 40) - 1;

impl ConvUnit {
    /// The outputs (they follow the registers only).
    pub fn peek(&self) -> Out {
        let s = self.state;
        Out {
            kernel_done: s == state::DONE,
            kernel_error: if s == state::DONE { self.error } else { 0 },
            debug_index: if s == state::LATCH { self.regs.debug_index(usize::from(self.k)) } else { 0 },
            debug_hold: s == state::LATCH,
            mem_ar_valid: self.rd == 1,
            mem_ar_addr: self.rd_addr,
            mem_aw_valid: self.wr == 1,
            mem_aw_addr: self.w_addr,
            mem_w_data: self.w_data,
            mem_w_strb: self.w_strb,
        }
    }

    fn step_unit(&mut self, i: &In) -> Out {
        let out = self.peek();
        self.events.clear();
        let s = self.state;
        // FINISH looks at the channels, the queue and the error as they were at the cycle's
        // start (the RTL's registers), not as this cycle leaves them.
        let (wr_idle, queue_empty) = (self.wr == 0, self.q_count == 0);
        let running = s == state::RUN;
        // The datapath's view: its outputs follow its registers and the layer registers.
        let start = s == state::CHECK && !self.unsupported();
        let probe = self.layer(false, false, false, false);
        let o = self.datapath.outputs(&probe);
        let ofm_full = u32::from(self.q_count) + u32::from(o.ofm_valid & 1) > (QUEUE as u32) - 4;
        // Only a tap that reads is served and released: a MAC cycle without reads (a group's
        // last tap waiting for the output walk, or a tap whose four positions are padding)
        // goes through at once (its stage 2 needs no data).
        let tap_reads = matches!(o.state, dp::STATE_DECODE | dp::STATE_MAC) && o.ifm_reads().iter().any(|r| r.read);
        let ifm_wait = tap_reads && !self.ifs_ready;
        // The IFM wait holds the traversal only (`hold_mac`): the output walk drains on.
        let hold = ofm_full;
        let release = running && tap_reads && self.ifs_ready && !ofm_full;
        let mut di = self.layer(i.reset || self.dp_reset || s == state::DONE, self.dp_start, hold, ifm_wait);
        let half = |buf: u64, halves: u8| if halves == 2 { buf as u32 } else { (buf >> 32) as u32 };
        let shown = self.sr_halves != 0 && running;
        if shown {
            let last = self.sr_buf_last && self.sr_halves == 1;
            let word = half(self.sr_buf, self.sr_halves);
            if self.sr_buf_stream == FOR_WEIGHTS {
                (di.w_valid, di.w_data, di.w_last) = (true, word, last);
            } else {
                (di.sb_valid, di.sb_data, di.sb_last, di.sb_bytes_m1) = (true, word, last, 3);
            }
        }
        [di.ifm_data0, di.ifm_data1, di.ifm_data2, di.ifm_data3] = self.current;
        // A weight word the datapath no longer takes (its decoder finished or failed) is
        // dropped, so the reader never waits on it.
        let past_decode = matches!(o.state, dp::STATE_MAC | dp::STATE_OUT | dp::STATE_DRAIN | dp::STATE_DONE);
        let dropped = shown && self.sr_buf_stream == FOR_WEIGHTS && past_decode;
        if dropped {
            self.events.push("weight word dropped after the decoder");
        }
        let taken = (di.w_valid && o.w_ready) || (di.sb_valid && o.sb_ready) || dropped;
        self.datapath.step(&di);

        if i.reset {
            *self = Self { regs: self.regs.clone(), datapath: std::mem::take(&mut self.datapath), events: vec!["reset"], ..Self::default() };
            return out;
        }
        self.dp_start = start;
        self.dp_reset = false;
        self.packing_events(&o, tap_reads, release);
        if (hold || ifm_wait) && running && matches!(o.state, dp::STATE_DECODE | dp::STATE_MAC | dp::STATE_OUT | dp::STATE_DRAIN) {
            self.events.push(if ofm_full { "held: OFM queue" } else { "held: IFM reads" });
        }
        let ok = self.error == 0;

        // The read channel, and who reads next (from the registers at the cycle's start):
        // the stream reader, then the IFM server.
        let rd_idle = self.rd == 0;
        let sr_wants = running && ok && rd_idle && self.sr_stream != FOR_NONE && self.sr_halves == 0 && self.sr_words > 0;
        let serving = running && ok && tap_reads && !self.ifs_ready;
        match self.rd {
            1 if i.mem_ar_ready => self.rd = 2,
            2 if i.mem_r_valid => {
                self.rd = 0;
                if i.mem_r_error {
                    if ok {
                        self.error = [ERROR_WEIGHTS, ERROR_SCALE, ERROR_IFM][usize::from(self.rd_for)];
                    }
                    self.events.push("read error");
                } else if self.rd_for == FOR_IFM {
                    if serving {
                        self.ifm_response(&o, i.mem_r_data);
                    }
                } else {
                    (self.sr_buf, self.sr_halves, self.sr_buf_stream, self.sr_buf_last) = (i.mem_r_data, 2, self.rd_for, self.rd_last);
                }
            }
            _ => {}
        }
        if taken {
            self.sr_halves -= 1;
        }
        if release {
            self.current = self.pending;
            (self.ifs_ready, self.ifs_p, self.ifs_word) = (false, 0, false);
            self.events.push("IFM tap released");
        } else if sr_wants {
            self.stream_request();
        } else if serving && rd_idle {
            self.ifm_request(&o);
        }

        // The OFM queue and the write channel.
        self.ofm_step(i, &o, ok, running);

        // The unit's states.
        match s {
            state::IDLE if i.kernel_start => {
                self.state = state::LATCH;
                self.k = 0;
                self.depthwise = i.kernel_op == 1;
                self.events.push(if self.depthwise { "start depthwise" } else { "start conv" });
            }
            state::IDLE => self.events.push("idle"),
            state::LATCH => {
                self.regs.latch(usize::from(self.k), i.debug_value);
                if usize::from(self.k) == LATCH_STEPS - 1 {
                    self.state = state::CHECK;
                } else {
                    self.k += 1;
                }
                self.events.push("latch");
            }
            state::CHECK => {
                self.error = 0;
                (self.ifs_p, self.ifs_word, self.ifs_ready, self.q_head, self.q_count, self.sr_halves) = (0, false, false, 0, 0, 0);
                self.q_at = 0;
                if start {
                    self.state = state::RUN;
                    self.sr_stream = FOR_SCALE;
                    self.sr_addr = self.stream_start(true);
                    self.sr_words = (self.regs.wide(scalar::SCALE_LENGTH) >> 3) as u32;
                    self.events.push("check");
                } else {
                    self.error = ERROR_UNSUPPORTED;
                    self.state = state::DONE;
                    self.events.push("unsupported");
                }
            }
            state::RUN => {
                if !ok {
                    self.state = state::FINISH;
                } else if o.done {
                    if o.error_code != 0 {
                        self.error = ERROR_UNSUPPORTED;
                        self.events.push("datapath refused the layer");
                    }
                    self.state = state::FINISH;
                }
            }
            state::FINISH => {
                if rd_idle && wr_idle && (queue_empty || !ok) {
                    self.state = state::DONE;
                }
            }
            _ => {
                self.state = state::IDLE;
                self.events.push("done");
            }
        }
        out
    }
}

impl Block for ConvUnit {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, i: &In) -> Out {
        self.step_unit(i)
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}
