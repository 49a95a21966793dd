//! The convolution unit (`hdl/src/ethos/conv_unit.rs`, whose comment has the ports, states,
//! timing and decisions): NPU_OP_CONV and NPU_OP_DEPTHWISE on the convolution datapath, its
//! weight and scale streams, IFM reads and OFM writes served from the NPU's one memory port.
//! docs/ethos.md, "Convolution unit". The RTL's sub-blocks (`conv_layer.rs`, `conv_ports.rs`,
//! `stream_reader.rs`, `ifm_server.rs`, `ofm_queue.rs`) are modelled here, in one file
//! (decision): their registers are fields of one struct stepped in the RTL's order, which one
//! file keeps in view.
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

/// The strides of KERNEL_STRIDE (y, x), each 1 + {bit, bit}.
pub fn strides(s: u16) -> (u16, u16) {
    ((((s >> 9) & 7) << 1 | (s >> 1) & 1) + 1, (((s >> 6) & 7) << 1 | s & 1) + 1)
}

impl ConvUnit {
    fn p(&self, id: usize) -> u16 {
        self.regs.param(id)
    }

    /// The IFM rows and columns the OFM reads (the executor's `ifm_extent`): `(OFM - 1)·stride
    /// + KERNEL_M1 + 1 - pad before - pad after` (KERNEL_M1 is the dilated side minus 1; the
    /// RTL computes it in 20 bits with the stride's low 2 bits, equal whenever CHECK lets the
    /// layer run).
    fn extent(&self) -> (i64, i64) {
        let p = |id| i64::from(self.p(id));
        let (sy, sx) = strides(self.p(scalar::KERNEL_STRIDE));
        let h = p(scalar::OFM_HEIGHT_M1) * i64::from(sy) + p(scalar::KERNEL_HEIGHT_M1) + 1 - p(scalar::IFM_PAD_TOP) - p(scalar::IFM_PAD_BOTTOM);
        let w = p(scalar::OFM_WIDTH_M1) * i64::from(sx) + p(scalar::KERNEL_WIDTH_M1) + 1 - p(scalar::IFM_PAD_LEFT) - p(scalar::IFM_PAD_RIGHT);
        (h, w)
    }

    fn stream_start(&self, scale: bool) -> u64 {
        let base = if scale { scalar::SCALE_BASE } else { scalar::WEIGHT_BASE };
        (self.regs.stream_basep(scale) + self.regs.wide(base)) & MASK40
    }

    /// Whether the latched registers ask for what the unit does not do (CHECK; the list is the
    /// RTL's module comment).
    pub fn unsupported(&self) -> bool {
        let p = |id| self.p(id);
        let int8 = |precision: u16, size_shift: u16| precision & 1 == 0 || (precision >> size_shift) & 3 != 0 || (precision >> 6) & 3 > 1;
        let s = p(scalar::KERNEL_STRIDE);
        let (sy, sx) = strides(s);
        let not_int8 = |v: u16| !(-128..=127).contains(&(v as i16));
        let (h, w) = self.extent();
        let length = |id| self.regs.wide(id);
        int8(p(scalar::IFM_PRECISION), 2)
            || int8(p(scalar::OFM_PRECISION), 1)
            || p(scalar::OFM_PRECISION) >> 14 != 0
            || ((p(scalar::IFM_PRECISION) >> 6) & 3 == 0 && self.regs.wide(scalar::IFM_STRIDE_C) != 1)
            || p(scalar::ACTIVATION) & 0x1f != 0
            || p(scalar::ACC_FORMAT) > 1
            // IFM_UPSCALE: 2 (zero insertion, Vela's TRANSPOSE_CONV) on a CONV, 1 (nearest,
            // RESIZE_NEAREST_NEIGHBOR with align_corners) on a DEPTHWISE.
            || match p(scalar::IFM_UPSCALE) {
                0 => false,
                1 => !self.depthwise,
                2 => self.depthwise,
                _ => true,
            }
            || [scalar::IFM_REGION, scalar::OFM_REGION, scalar::WEIGHT_REGION, scalar::SCALE_REGION].iter().any(|&id| p(id) > 7)
            || [scalar::IFM_ZERO_POINT, scalar::OFM_ZERO_POINT, scalar::ACTIVATION_MIN, scalar::ACTIVATION_MAX].iter().any(|&id| not_int8(p(id)))
            // A dilation whose dilated side minus 1 is odd: no whole kernel fits it.
            || (s & 0x10 != 0 && p(scalar::KERNEL_HEIGHT_M1) & 1 != 0)
            || (s & 0x08 != 0 && p(scalar::KERNEL_WIDTH_M1) & 1 != 0)
            // A side above 15 (the datapath's 4-bit kernel ports).
            || p(scalar::KERNEL_HEIGHT_M1) > if s & 0x10 != 0 { 28 } else { 14 }
            || p(scalar::KERNEL_WIDTH_M1) > if s & 0x08 != 0 { 28 } else { 14 }
            || sy > 3
            || sx > 3
            || p(scalar::IFM_PAD_TOP) > 7
            || p(scalar::IFM_PAD_LEFT) > 7
            || p(scalar::OFM_BLK_DEPTH_M1) & 7 != 7
            || p(scalar::OFM_BLK_DEPTH_M1) > 127
            || [scalar::OFM_HEIGHT_M1, scalar::OFM_WIDTH_M1, scalar::OFM_DEPTH_M1, scalar::IFM_DEPTH_M1].iter().any(|&id| p(id) > 4094)
            || !(1..=4095).contains(&h)
            || !(1..=4095).contains(&w)
            || self.stream_start(false) & 15 != 0
            || self.stream_start(true) & 15 != 0
            || [scalar::WEIGHT_LENGTH, scalar::SCALE_LENGTH].iter().any(|&id| length(id) & 15 != 0 || length(id) == 0 || length(id) >> 32 != 0)
    }

    /// The datapath's layer registers from the latched copies (widths as the RTL's ports).
    fn layer(&self, reset: bool, start: bool, hold: bool, hold_mac: bool) -> dp::In {
        let p = |id| self.p(id);
        let (sy, sx) = strides(p(scalar::KERNEL_STRIDE));
        let (dilation_y, dilation_x) = (p(scalar::KERNEL_STRIDE) >> 4 & 1, p(scalar::KERNEL_STRIDE) >> 3 & 1);
        let (h, w) = self.extent();
        dp::In {
            reset,
            start,
            hold,
            hold_mac,
            ifm_height: (h & 0xFFF) as u16,
            ifm_width: (w & 0xFFF) as u16,
            ifm_depth: p(scalar::IFM_DEPTH_M1).wrapping_add(1) & 0xFFF,
            ofm_height: p(scalar::OFM_HEIGHT_M1).wrapping_add(1) & 0xFFF,
            ofm_width: p(scalar::OFM_WIDTH_M1).wrapping_add(1) & 0xFFF,
            ofm_depth: p(scalar::OFM_DEPTH_M1).wrapping_add(1) & 0xFFF,
            // KERNEL_*_M1 is the dilated side minus 1, `(k - 1)·dilation`.
            kernel_height: ((p(scalar::KERNEL_HEIGHT_M1) >> dilation_y).wrapping_add(1) & 15) as u8,
            kernel_width: ((p(scalar::KERNEL_WIDTH_M1) >> dilation_x).wrapping_add(1) & 15) as u8,
            dilation_y: dilation_y == 1,
            dilation_x: dilation_x == 1,
            stride_y: (sy & 3) as u8,
            stride_x: (sx & 3) as u8,
            pad_top: (p(scalar::IFM_PAD_TOP) & 7) as u8,
            pad_left: (p(scalar::IFM_PAD_LEFT) & 7) as u8,
            depthwise: self.depthwise,
            part_kernel: p(scalar::KERNEL_STRIDE) & 4 != 0,
            block_groups_m1: (p(scalar::OFM_BLK_DEPTH_M1) >> 3 & 15) as u8,
            ifm_zero_point: p(scalar::IFM_ZERO_POINT) as i8,
            ofm_zero_point: p(scalar::OFM_ZERO_POINT) as i8,
            // Outside RUN the registers may be half latched (min above max), which the output
            // unit's model refuses; the datapath computes nothing then.
            act_min: if self.state == state::RUN { p(scalar::ACTIVATION_MIN) as i8 } else { i8::MIN },
            act_max: if self.state == state::RUN { p(scalar::ACTIVATION_MAX) as i8 } else { i8::MAX },
            ..dp::In::default()
        }
    }

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

    /// Position `p`'s read: the group's byte address, its byte count, whether it reads, whether
    /// it is an inserted zero (the RTL's `ifm_upscale.rs`: with IFM_UPSCALE 1 or 2 the datapath
    /// walks the IFM upscaled 2x2 and position (y, x) reads IFM element (y / 2, x / 2); with 2
    /// a position at an odd row or column reads nothing and gathers the zero point).
    fn ifm_read(&self, o: &dp::Out, p: usize) -> (u64, u64, bool, bool) {
        let r = o.ifm_reads()[p];
        let mode = self.p(scalar::IFM_UPSCALE) & 3;
        let inserted = mode == 2 && (r.y | r.x) & 1 == 1;
        let (y, x) = if mode == 0 { (r.y, r.x) } else { (r.y >> 1, r.x >> 1) };
        let a = address(&self.regs.maps[0], y, x, r.group << 3);
        let depth = u64::from(self.p(scalar::IFM_DEPTH_M1)) + 1;
        let n = depth.saturating_sub(u64::from(r.group) << 3).min(8);
        (a, n, r.read && !inserted, r.read && inserted)
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
        let mut di = self.layer(i.reset || s == state::DONE, self.dp_start, hold, ifm_wait);
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
                        let p = usize::from(self.ifs_p);
                        let (a, n, _, _) = self.ifm_read(&o, p);
                        let off = a & 7;
                        if !self.ifs_word {
                            self.pending[p] = i.mem_r_data >> (8 * off);
                            if off + n > 8 {
                                self.ifs_word = true;
                                self.events.push("IFM group across two words");
                            } else {
                                self.next_position();
                            }
                        } else {
                            self.pending[p] |= i.mem_r_data << (8 * (8 - off));
                            self.ifs_word = false;
                            self.next_position();
                        }
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
        } else if serving && rd_idle {
            let p = usize::from(self.ifs_p);
            let (a, _, read, zero) = self.ifm_read(&o, p);
            if read {
                self.rd = 1;
                self.rd_addr = ((a & !7) + if self.ifs_word { 8 } else { 0 }) & MASK40;
                self.rd_for = FOR_IFM;
                match self.p(scalar::IFM_UPSCALE) {
                    1 => self.events.push("IFM upscale: nearest, element read"),
                    2 => self.events.push("IFM upscale: zeros, element read"),
                    _ => {}
                }
            } else if zero {
                self.pending[p] = u64::from_le_bytes([self.p(scalar::IFM_ZERO_POINT) as u8; 8]);
                self.next_position();
                self.events.push("IFM upscale: zero inserted");
            } else {
                self.next_position();
                self.events.push("IFM position not read");
            }
        }

        // The OFM queue and the write channel.
        let mut count = self.q_count;
        match self.wr {
            1 if i.mem_aw_ready => self.wr = 2,
            2 if i.mem_b_valid => {
                self.wr = 0;
                if i.mem_b_error {
                    // Over a read error of the same cycle (the RTL's error register at the
                    // cycle's start).
                    if ok {
                        self.error = ERROR_OFM;
                    }
                    self.events.push("write error");
                }
            }
            0 if ok && count > 0 => {
                let e = self.queue[usize::from(self.q_head)];
                let (column, channel) = (u16::from(self.q_at >> 3), u16::from(self.q_at & 7));
                let a = address(&self.regs.maps[2], e.y, e.x + column, (e.c + channel) & 0xFFFF);
                self.w_addr = a & !7;
                self.w_strb = 1 << (a & 7);
                self.w_data = u64::from_le_bytes([e.data[usize::from(self.q_at)]; 8]);
                self.wr = 1;
                if self.q_at & 7 == e.n_m1 && (self.q_at >= 8 || !e.second) {
                    self.q_head = (self.q_head + 1) % QUEUE as u8;
                    self.q_at = 0;
                    count -= 1;
                } else if self.q_at & 7 == e.n_m1 {
                    self.q_at = 8;
                    self.events.push("OFM entry: second column");
                } else {
                    self.q_at += 1;
                    self.events.push("OFM entry: next lane");
                }
            }
            _ => {}
        }
        if o.ofm_valid & 1 == 1 && running {
            let tail = (usize::from(self.q_head) + usize::from(count)) % QUEUE;
            let n_m1 = (1..8).filter(|l| o.ofm_valid >> l & 1 == 1).max().unwrap_or(0);
            let data = o.ofm_data.to_le_bytes();
            let second = o.ofm_valid >> 8 & 1 == 1;
            self.queue[tail] = Ofm { y: o.ofm_y, x: o.ofm_x, c: o.ofm_channel, n_m1, second, data };
            count += 1;
            if count as usize == QUEUE - 3 {
                self.events.push("OFM queue at its limit");
                if o.ofm_valid >> 8 & 1 == 1 {
                    self.events.push("OFM queue at its limit, both columns arriving");
                }
                if o.ofm_valid == 0xFFFF {
                    self.events.push("OFM queue at its limit, 16 lanes arriving");
                }
            }
        }
        self.q_count = count;

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

    fn next_position(&mut self) {
        if self.ifs_p == 3 {
            self.ifs_ready = true;
        } else {
            self.ifs_p += 1;
        }
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
