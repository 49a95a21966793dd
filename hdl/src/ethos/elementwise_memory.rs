//! The kernel unit's memory side (TRM §4.6 feature-map registers; digest
//! `shared/spec/ethos-u65.md` §2.2-§2.3, §3.3): the three feature-map address generators
//! (`feature_map.rs`) at the element (IFM2 broadcast along the axes IFM2_BROADCAST[2:0] names;
//! a pool's IFM at its tap, halved for IFM_UPSCALE 1), the IFM and IFM2 word caches
//! (`word_cache.rs`), the read port (one aligned word, its byte picked by the address's low
//! bits) and the strobed OFM write (one byte a beat, its word, lane and strobe kept from CALC;
//! the gathered word and the write port are the sub-block `ofm_write_buffer.rs`).
//! A sub-block of [`super::Elementwise`], whose comment has the states and the other
//! decisions; the model is `model/src/ethos/elementwise_memory.rs`.
//!
//! Decision: one cached word per operand, forgotten in CHECK (the front end's DMA writes
//! memory between kernels only in a well-formed stream: docs/ethos.md has the argument). The
//! unit's own OFM write updates a cached word it hits rather than forgetting it: an in-place
//! operation (Vela lets an elementwise OFM take its IFM's place) then still reads each word
//! once. A hit takes one cycle (READ_A/READ_B), a miss the read as before; a read error is
//! reported as without the cache (a failed read fills nothing).
//!
//! The OFM byte is taken in CALC, or for an element with an IFM2 byte in the next element's
//! READ_A (`deferred`, the address kept when the element leaves): that READ_A waits (`hold`,
//! `conflict`) while the byte cannot be taken, when it reads that byte, and on a miss of its
//! word.
//!
//! The two caches are separate registers with a read port each (issue 19): READ_A of an
//! element with an IFM2 map (`pair`) whose IFM and IFM2 words are both cached takes both bytes
//! in its one cycle (`both`, `operand2_word`), unless the deferred OFM byte taken in that cycle
//! is the IFM2 byte (the cache has it from the next cycle: READ_B then takes it).
//!
//! Word mode (`word`, issue 19; docs/ethos.md "Elementwise unit timing", *Word mode*): an
//! ELEMENTWISE whose maps put channel c at lane c mod 8 takes a word of 8 channels an element:
//! the addresses are aligned, the OFM word is taken whole with the element's strobes
//! (`lane_strb`, kept in `p_strb` with `p_addr` for the deferred take), WAIT_A takes the IFM2
//! word from its cache (or the scalar) beside the IFM word read (`wait_both`), and the IFM2
//! cache has a second entry (`cache_c`; fills alternate), so that a per-channel IFM2 of two
//! words stays cached. The caches forward the OFM word taken last cycle (`word_cache.rs`).
//!
//! Ports: the unit's `state` (its codes, `super::elementwise::state`), the LATCH loads of the
//! three maps, the element (`y`, `x`, `c`), the pool's tap (`iy`, `ix`; `padding`: no read),
//! `pool`, `upscale`
//! (IFM_UPSCALE = 1), `broadcast` (IFM2_BROADCAST[2:0]), `result` (the datapath's write word),
//! and the memory master's read response; out: the read and write requests, `hit` (READ_A or
//! READ_B finds its word in the operand's cache: no read) and `operand_word`/`operand2_word`,
//! the IFM/IFM2 word of the cycle shifted so that the element's byte is lane 0 (the cached one
//! in READ_A/READ_B, the word read in WAIT_A/WAIT_B). The requests and `hit` follow registers
//! only; the words also the read data.
use super::elementwise::state;
use super::feature_map::FeatureMap;
use super::ofm_write_buffer::OfmWriteBuffer;
use super::word_cache::WordCache;
use crate::primitives::constant as k;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ElementwiseMemory {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub state: Signal<In, Bits<4>>,
    pub ifm_load: Signal<In, Bit>,
    pub ifm2_load: Signal<In, Bit>,
    pub ofm_load: Signal<In, Bit>,
    pub load_slot: Signal<In, Bits<4>>,
    pub load_value: Signal<In, Bits<40>>,
    pub pool: Signal<In, Bit>,
    /// The element reads an IFM2 map (an ELEMENTWISE without the scalar).
    pub pair: Signal<In, Bit>,
    pub y: Signal<In, Bits<16>>,
    pub x: Signal<In, Bits<16>>,
    pub c: Signal<In, Bits<16>>,
    pub iy: Signal<In, Bits<16>>,
    pub ix: Signal<In, Bits<16>>,
    pub upscale: Signal<In, Bit>,
    pub broadcast: Signal<In, Bits<3>>,
    pub result: Signal<In, Bits<64>>,
    /// The 8 lanes' OFM word (`elementwise_lanes.rs`), taken in word mode instead of `result`.
    pub word_result: Signal<In, Bits<64>>,
    pub mem_r_valid: Signal<In, Bit>,
    pub mem_r_data: Signal<In, Bits<64>>,
    pub mem_r_error: Signal<In, Bit>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    /// The unit has an error (a read's): the gathered OFM word is dropped, not written.
    pub discard: Signal<In, Bit>,
    /// READ_A holds the previous element's OFM byte (the unit's register: the element left
    /// READ_B/WAIT_B for this READ_A, not after the last), taken this cycle if `take`; its
    /// address is the one kept in READ_B/WAIT_B.
    pub deferred: Signal<In, Bit>,
    /// A pool's READ_A whose tap lies in the padding: no read, no hit (the unit steps past it;
    /// issue 19, no POOL_TAP cycle).
    pub padding: Signal<In, Bit>,
    /// A pool's read in flight is not its word's last tap: WAIT_A offers the next tap's read
    /// (the walk is at it) unless `padding`, in the word that comes, or held (issue 19).
    pub next_tap: Signal<In, Bit>,
    /// An ELEMENTWISE a word of channels at a time (issue 19, `lane_layout.rs`): the element is
    /// a word of 8 channels at an aligned address, its OFM strobes `lane_strb` (the map's last
    /// word partly), the IFM2 cache has a second entry.
    pub word: Signal<In, Bit>,
    pub lane_strb: Signal<In, Bits<8>>,
    /// A pool's drain offers lane `drain_lane` of its word (`pool_taps.rs`): the byte goes to
    /// the OFM address kept at `drain_load` (the word's first channel) plus the lane.
    pub drain: Signal<In, Bit>,
    pub drain_load: Signal<In, Bit>,
    pub drain_lane: Signal<In, Bits<3>>,
    pub mem_ar_valid: Signal<Out, Bit>,
    pub mem_ar_addr: Signal<Out, Bits<40>>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    pub hit: Signal<Out, Bit>,
    /// The IFM word of the cycle shifted so that the element's byte is its lane 0 (a pool's lanes,
    /// `pool_taps.rs`; a pool's own OFM write reaches the cache before its next READ_A).
    pub operand_word: Signal<Out, Bits<64>>,
    /// READ_A/READ_B misses a word whose OFM write is gathered or in flight: the read waits.
    pub conflict: Signal<Out, Bit>,
    /// CALC takes the element's OFM byte into the gathered word (else it waits for the write
    /// of the previous word to finish).
    pub take: Signal<Out, Bit>,
    /// An OFM write of this kernel failed (sticky until CHECK).
    pub write_error: Signal<Out, Bit>,
    /// No write in flight, and nothing gathered that is still to be written.
    pub drained: Signal<Out, Bit>,
    /// READ_A may not use its cached byte: the deferred byte cannot be taken this cycle, or
    /// it is the byte READ_A reads (the cache has it from the next cycle).
    pub hold: Signal<Out, Bit>,
    /// READ_A takes its IFM byte (a hit, not held) and the IFM2 byte from the IFM2 cache,
    /// `operand2_word`, in the same cycle.
    pub both: Signal<Out, Bit>,
    /// The IFM2 word of the cycle shifted so that the element's byte is its lane 0: from the IFM2
    /// cache (either entry), or in WAIT_B the word read.
    pub operand2_word: Signal<Out, Bits<64>>,
    /// In word mode, the element's IFM2 word is cached (either entry): WAIT_A takes it beside
    /// the IFM word read (issue 19).
    pub wait_both: Signal<Out, Bit>,
    ifm: FeatureMap,
    ifm2: FeatureMap,
    ofm: FeatureMap,
    /// The last IFM and IFM2 words read (`word_cache.rs`).
    cache_a: WordCache,
    cache_b: WordCache,
    /// The IFM2 cache's second entry (word mode only: a per-channel IFM2 of 16 channels is two
    /// words); fills alternate between the entries (`b_next`: the next fill goes to `cache_c`).
    cache_c: WordCache,
    b_next: Reg<Bit>,
    b_hit: Signal<Local, Bit>,
    /// The IFM2 word from the entry that hits (shifted to the byte's lane).
    cached2: Signal<Local, Bits<64>>,
    lane_mask: [Signal<Local, Bits<64>>; 8],
    /// The OFM strobes of the element's write, and the OFM word's strobes kept with `p_addr`.
    p_strb: Reg<Bits<8>>,
    /// The OFM write buffer (`ofm_write_buffer.rs`): the gathered word and the write port.
    buffer: OfmWriteBuffer,
    /// The OFM byte CALC took last cycle, for the word caches.
    t_valid: Reg<Bit>,
    t_addr: Reg<Bits<40>>,
    t_data: Reg<Bits<64>>,
    t_mask: Reg<Bits<64>>,
    /// The OFM byte address of the element in READ_B/WAIT_B, for the next READ_A (`deferred`).
    p_addr: Reg<Bits<40>>,
    /// The OFM data taken: `result`, or in word mode `word_result`.
    o_data: Signal<Local, Bits<64>>,
    /// The OFM byte address of the drain's lane 0.
    d_base: Reg<Bits<40>>,
    lane40: ZeroExtend<3, 40>,
    /// The drain offers its byte (none after an error).
    drain_on: Signal<Local, Bit>,
    /// The OFM byte address taken: the deferred one in READ_A, the element's in CALC.
    o_addr: Signal<Local, Bits<40>>,
    read_a: Signal<Local, Bit>,
    miss: Signal<Local, Bit>,
    /// WAIT_A's offer of a pool's next tap; the IFM byte address of the read in flight (its
    /// cache tag and lane: a pool's walk is at the next tap by then).
    early_miss: Signal<Local, Bit>,
    a_addr: Reg<Bits<40>>,
    ofm_word: Signal<Local, Bits<40>>,
    ofm_strb: Signal<Local, Bits<8>>,
    ofm_mask: Signal<Local, Bits<64>>,
    read_b: Signal<Local, Bit>,
    r_lane: Signal<Local, Bits<40>>,
    r_shifted: Signal<Local, Bits<64>>,
    s_check: Constant<Bits<4>>,
    s_read_a: Constant<Bits<4>>,
    s_wait_a: Constant<Bits<4>>,
    s_read_b: Constant<Bits<4>>,
    s_wait_b: Constant<Bits<4>>,
    s_calc: Constant<Bits<4>>,
    s_flush: Constant<Bits<4>>,
    byte_ff: Constant<Bits<64>>,
    lane_shift: [Constant<Bits<64>>; 8],
    zero16: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    zero40: Constant<Bits<40>>,
    zero64: Constant<Bits<64>>,
    align_mask: Constant<Bits<40>>,
    seven40: Constant<Bits<40>>,
    three40: Constant<Bits<40>>,
    one8: Constant<Bits<8>>,
}

impl Default for ElementwiseMemory {
    fn default() -> Self {
        Self {
            clock: Default::default(), reset: Default::default(), state: Default::default(), ifm_load: Default::default(),
            ifm2_load: Default::default(), ofm_load: Default::default(), load_slot: Default::default(),
            load_value: Default::default(), pool: Default::default(), y: Default::default(), x: Default::default(),
            c: Default::default(), iy: Default::default(), ix: Default::default(), upscale: Default::default(),
            broadcast: Default::default(), result: Default::default(), word_result: Default::default(),
            o_data: Default::default(), mem_r_valid: Default::default(), mem_r_data: Default::default(),
            mem_r_error: Default::default(), mem_aw_ready: Default::default(), mem_b_valid: Default::default(),
            mem_b_error: Default::default(), discard: Default::default(), deferred: Default::default(),
            padding: Default::default(), next_tap: Default::default(), early_miss: Default::default(),
            a_addr: Default::default(), word: Default::default(), lane_strb: Default::default(),
            operand2_word: Default::default(), wait_both: Default::default(), cache_c: Default::default(),
            b_next: Default::default(), b_hit: Default::default(), cached2: Default::default(), lane_mask: Default::default(),
            p_strb: Default::default(), drain: Default::default(), drain_load: Default::default(), drain_lane: Default::default(),
            d_base: Default::default(), drain_on: Default::default(), lane40: Default::default(), hold: Default::default(),
            pair: Default::default(), both: Default::default(), p_addr: Default::default(), o_addr: Default::default(),
            mem_ar_valid: Default::default(), mem_ar_addr: Default::default(), mem_aw_valid: Default::default(),
            mem_aw_addr: Default::default(), mem_w_data: Default::default(), mem_w_strb: Default::default(),
            hit: Default::default(), operand_word: Default::default(), conflict: Default::default(), take: Default::default(),
            write_error: Default::default(), drained: Default::default(), ifm: Default::default(), ifm2: Default::default(),
            ofm: Default::default(), cache_a: Default::default(), cache_b: Default::default(), t_valid: Default::default(),
            t_addr: Default::default(), t_data: Default::default(), t_mask: Default::default(), miss: Default::default(),
            ofm_word: Default::default(), ofm_strb: Default::default(), ofm_mask: Default::default(), read_a: Default::default(),
            read_b: Default::default(), r_lane: Default::default(), r_shifted: Default::default(), buffer: Default::default(),
            s_check: k(state::CHECK.into()),
            s_read_a: k(state::READ_A.into()),
            s_wait_a: k(state::WAIT_A.into()),
            s_read_b: k(state::READ_B.into()),
            s_wait_b: k(state::WAIT_B.into()),
            s_calc: k(state::CALC.into()),
            s_flush: k(state::FLUSH.into()),
            byte_ff: k(0xff),
            lane_shift: [k(0), k(8), k(16), k(24), k(32), k(40), k(48), k(56)],
            zero16: k(0),
            one16: k(1),
            zero40: k(0),
            zero64: k(0),
            align_mask: k(((1u64 << 40) - 1) & !7),
            seven40: k(7),
            three40: k(3),
            one8: k(1),
        }
    }
}

impl Logic for ElementwiseMemory {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, t_valid, t_addr, t_data, t_mask, p_addr, p_strb, b_next, d_base, a_addr);
        self.a_addr.reset.next = self.reset.val();
        self.p_addr.reset.next = self.reset.val();
        self.d_base.reset.next = self.reset.val();
        self.t_valid.reset.next = self.reset.val();
        self.t_addr.reset.next = self.reset.val();
        self.t_data.reset.next = self.reset.val();
        self.t_mask.reset.next = self.reset.val();
        self.p_strb.reset.next = self.reset.val();
        self.b_next.reset.next = self.reset.val();
        self.read_a.next = (self.state.val() == self.s_read_a.val()) & !self.padding.val();
        self.read_b.next = self.state.val() == self.s_read_b.val();

        // The maps, loaded in LATCH.
        self.ifm.clock.next = self.clock.val();
        self.ifm2.clock.next = self.clock.val();
        self.ofm.clock.next = self.clock.val();
        self.ifm.load.next = self.ifm_load.val();
        self.ifm2.load.next = self.ifm2_load.val();
        self.ofm.load.next = self.ofm_load.val();
        // The unit reads its maps' addresses in most cycles of a kernel: always computed.
        self.ifm.enable.next = true;
        self.ifm2.enable.next = true;
        self.ofm.enable.next = true;
        self.ifm.load_slot.next = self.load_slot.val();
        self.ifm2.load_slot.next = self.load_slot.val();
        self.ofm.load_slot.next = self.load_slot.val();
        self.ifm.load_value.next = self.load_value.val();
        self.ifm2.load_value.next = self.load_value.val();
        self.ofm.load_value.next = self.load_value.val();

        // Coordinates: IFM2 broadcasts along the axes IFM2_BROADCAST[2:0] names.
        self.ifm.y.next = self.y.val();
        self.ifm.x.next = self.x.val();
        if self.pool.val() {
            self.ifm.y.next = self.iy.val();
            self.ifm.x.next = self.ix.val();
            // IFM_UPSCALE 1 (nearest): the tap lies in the IFM upscaled 2x2 (the pooling ALU's
            // extent and padding are the upscaled map's), IFM element (iy / 2, ix / 2).
            if self.upscale.val() {
                self.ifm.y.next = self.iy.val() >> self.one16.val();
                self.ifm.x.next = self.ix.val() >> self.one16.val();
            }
        }
        self.ifm.c.next = self.c.val();
        self.ofm.y.next = self.y.val();
        self.ofm.x.next = self.x.val();
        self.ofm.c.next = self.c.val();
        self.ifm2.y.next = self.y.val();
        if self.broadcast.val().get_bit(0) {
            self.ifm2.y.next = self.zero16.val();
        }
        self.ifm2.x.next = self.x.val();
        if self.broadcast.val().get_bit(1) {
            self.ifm2.x.next = self.zero16.val();
        }
        self.ifm2.c.next = self.c.val();
        if self.broadcast.val().get_bit(2) {
            self.ifm2.c.next = self.zero16.val();
        }

        // The operand caches: forgotten in CHECK, filled by a read, updated by the OFM write.
        self.cache_a.clock.next = self.clock.val();
        self.cache_b.clock.next = self.clock.val();
        self.cache_c.clock.next = self.clock.val();
        self.cache_a.reset.next = self.reset.val();
        self.cache_b.reset.next = self.reset.val();
        self.cache_c.reset.next = self.reset.val();
        self.cache_a.clear.next = self.state.val() == self.s_check.val();
        self.cache_b.clear.next = self.state.val() == self.s_check.val();
        self.cache_c.clear.next = self.state.val() == self.s_check.val();
        self.cache_a.address.next = self.ifm.address.val();
        if self.state.val() == self.s_wait_a.val() {
            self.cache_a.address.next = self.a_addr.q.val();
        }
        self.cache_b.address.next = self.ifm2.address.val();
        self.cache_c.address.next = self.ifm2.address.val();
        self.cache_a.fill.next = (self.state.val() == self.s_wait_a.val()) & self.mem_r_valid.val() & !self.mem_r_error.val();
        self.cache_b.fill.next =
            (self.state.val() == self.s_wait_b.val()) & self.mem_r_valid.val() & !self.mem_r_error.val() & !(self.word.val() & self.b_next.q.val());
        self.cache_c.fill.next =
            (self.state.val() == self.s_wait_b.val()) & self.mem_r_valid.val() & !self.mem_r_error.val() & self.word.val() & self.b_next.q.val();
        if (self.state.val() == self.s_wait_b.val()) & self.mem_r_valid.val() & !self.mem_r_error.val() & self.word.val() {
            self.b_next.d.next = !self.b_next.q.val();
        }
        if self.state.val() == self.s_check.val() {
            self.b_next.d.next = false;
        }
        self.cache_a.fill_data.next = self.mem_r_data.val();
        self.cache_b.fill_data.next = self.mem_r_data.val();
        self.cache_c.fill_data.next = self.mem_r_data.val();
        self.cache_a.write.next = self.t_valid.q.val();
        self.cache_b.write.next = self.t_valid.q.val();
        self.cache_c.write.next = self.t_valid.q.val();
        self.cache_a.write_addr.next = self.t_addr.q.val();
        self.cache_b.write_addr.next = self.t_addr.q.val();
        self.cache_c.write_addr.next = self.t_addr.q.val();
        self.cache_a.write_data.next = self.t_data.q.val();
        self.cache_b.write_data.next = self.t_data.q.val();
        self.cache_c.write_data.next = self.t_data.q.val();
        self.cache_a.write_mask.next = self.t_mask.q.val();
        self.cache_b.write_mask.next = self.t_mask.q.val();
        self.cache_c.write_mask.next = self.t_mask.q.val();
        self.b_hit.next = self.cache_b.hit.val() | self.cache_c.hit.val();
        // One read (a whole aligned word, the byte picked by the address's low bits) unless
        // the operand's cache holds the word.
        self.hit.next = (self.read_a.val() & self.cache_a.hit.val()) | (self.read_b.val() & self.b_hit.val());
        self.miss.next = (self.read_a.val() & !self.cache_a.hit.val()) | (self.read_b.val() & !self.b_hit.val());
        // A pool's next tap offered in WAIT_A unless in the word that comes, granted as the data
        // come (`npu.rs`, issue 19); the read's address kept in READ_A and as WAIT_A's data come.
        self.early_miss.next = (self.state.val() == self.s_wait_a.val()) & self.next_tap.val() & !self.padding.val()
            & ((self.ifm.address.val() & self.align_mask.val()) != (self.a_addr.q.val() & self.align_mask.val()));
        self.mem_ar_addr.next = self.zero40.val();
        if self.read_a.val() | self.early_miss.val() {
            self.mem_ar_addr.next = self.ifm.address.val() & self.align_mask.val();
        }
        // (No local here: one shared with the read request would join them for Verilator.)
        if ((self.state.val() == self.s_read_a.val()) & !self.padding.val()) | ((self.state.val() == self.s_wait_a.val()) & self.mem_r_valid.val()) {
            self.a_addr.d.next = self.ifm.address.val();
        }
        if self.read_b.val() {
            self.mem_ar_addr.next = self.ifm2.address.val() & self.align_mask.val();
        }
        // A missed word whose OFM bytes are gathered or being written waits for that write
        // (memory holds the old bytes until its response).
        self.buffer.clock.next = self.clock.val();
        self.buffer.reset.next = self.reset.val();
        // So does READ_A's miss while the deferred OFM byte cannot be taken, or is taken into
        // the word READ_A reads (`conflict`, below `take`).
        self.r_lane.next = self.ifm2.address.val() & self.seven40.val();
        if self.state.val() == self.s_wait_a.val() {
            self.r_lane.next = self.a_addr.q.val() & self.seven40.val();
        }
        self.r_shifted.next = self.mem_r_data.val() >> (self.r_lane.val() << self.three40.val());
        // READ_A's test again, not `read_a`: sharing it would put the requests in the input region.
        self.operand_word.next = self.r_shifted.val();
        if (self.state.val() == self.s_read_a.val()) & !self.padding.val() {
            self.operand_word.next = self.cache_a.read_word.val();
        }
        // The caches show the OFM byte (word) taken last cycle already (`word_cache.rs`).
        self.cached2.next = self.cache_b.read_word.val();
        if self.cache_c.hit.val() {
            self.cached2.next = self.cache_c.read_word.val();
        }
        self.operand2_word.next = self.cached2.val();
        if self.state.val() == self.s_wait_b.val() {
            self.operand2_word.next = self.r_shifted.val();
        }
        self.wait_both.next = self.word.val() & (!self.pair.val() | self.b_hit.val());

        // The OFM: CALC gathers the element's byte into the word being gathered; a byte of
        // another word hands the gathered word to the write port first, which must be idle
        // (else CALC waits). So does FLUSH (the kernel's end) and a read that misses the
        // gathered word. Nothing is handed over after a failed write or with `discard`.
        self.o_addr.next = self.ofm.address.val();
        self.o_data.next = self.result.val();
        if self.word.val() {
            self.o_data.next = self.word_result.val();
        }
        if self.deferred.val() {
            self.o_addr.next = self.p_addr.q.val();
        }
        // A pool's OFM bytes come from its drain alone (issue 19), beside the taps' reads.
        self.drain_on.next = self.drain.val() & !self.discard.val();
        self.lane40.narrow.next = self.drain_lane.val();
        if self.pool.val() {
            self.o_addr.next = self.d_base.q.val() + self.lane40.wide.val();
        }
        if self.drain_load.val() {
            self.d_base.d.next = self.ofm.address.val();
        }
        self.ofm_word.next = self.o_addr.val() & self.align_mask.val();
        self.ofm_strb.next = self.one8.val() << self.o_addr.val().get_bits::<3>(0);
        if self.word.val() {
            self.ofm_strb.next = self.lane_strb.val();
            if self.deferred.val() {
                self.ofm_strb.next = self.p_strb.q.val();
            }
        }
        // The strobes' byte mask.
        for i in 0..8 {
            self.lane_mask[i].next = self.zero64.val();
            if self.ofm_strb.val().get_bit(i) {
                self.lane_mask[i].next = self.byte_ff.val() << self.lane_shift[i].val();
            }
        }
        self.ofm_mask.next = self.lane_mask[0].val() | self.lane_mask[1].val() | self.lane_mask[2].val() | self.lane_mask[3].val()
            | self.lane_mask[4].val() | self.lane_mask[5].val() | self.lane_mask[6].val() | self.lane_mask[7].val();
        self.write_error.next = self.buffer.error.val();
        self.take.next = (((self.state.val() == self.s_calc.val()) & !self.pool.val()) | self.deferred.val() | self.drain_on.val())
            & !self.buffer.error.val()
            & (!self.buffer.gathered.val() | (self.buffer.gathered_addr.val() == self.ofm_word.val()) | self.buffer.idle.val());
        self.conflict.next = (self.miss.val() | self.early_miss.val())
            & ((self.buffer.gathered.val() & (self.buffer.gathered_addr.val() == self.mem_ar_addr.val()))
                | (!self.buffer.idle.val() & (self.buffer.write_addr.val() == self.mem_ar_addr.val()))
                | (self.deferred.val() & (!self.take.val() | ((self.p_addr.q.val() & self.align_mask.val()) == self.mem_ar_addr.val()))));
        self.hold.next = self.deferred.val() & (!self.take.val() | (self.p_addr.q.val() == self.ifm.address.val()));
        self.both.next = self.read_a.val()
            & self.pair.val()
            & self.cache_a.hit.val()
            & self.b_hit.val()
            & !self.hold.val()
            & !(self.deferred.val() & (self.p_addr.q.val() == self.ifm2.address.val()));
        // After a failed write the unit stops before reading: no read is offered.
        self.mem_ar_valid.next = (self.miss.val() | self.early_miss.val()) & !self.conflict.val() & !self.buffer.error.val();
        // The write buffer (`ofm_write_buffer.rs`): the taken byte (word) gathered, the
        // gathered word handed to the write port for another word's byte, FLUSH (the kernel's
        // end, the drain empty), a read that misses it, or in word mode as the port frees.
        self.buffer.take.next = self.take.val();
        self.buffer.take_word.next = self.ofm_word.val();
        self.buffer.take_data.next = self.o_data.val();
        self.buffer.take_mask.next = self.ofm_mask.val();
        self.buffer.take_strb.next = self.ofm_strb.val();
        self.buffer.flush.next = (self.state.val() == self.s_flush.val()) & !self.drain_on.val();
        self.buffer.read_miss.next = self.miss.val() & !self.deferred.val();
        self.buffer.read_addr.next = self.mem_ar_addr.val();
        self.buffer.eager.next = self.word.val();
        self.buffer.discard.next = self.discard.val();
        self.buffer.drain.next = self.drain.val();
        self.buffer.clear.next = self.state.val() == self.s_check.val();
        self.buffer.mem_aw_ready.next = self.mem_aw_ready.val();
        self.buffer.mem_b_valid.next = self.mem_b_valid.val();
        self.buffer.mem_b_error.next = self.mem_b_error.val();
        self.drained.next = self.buffer.drained.val();
        // The element's OFM byte address, kept while its IFM2 byte is read (the unit's
        // coordinates move on as that byte comes), or as READ_A takes both bytes.
        if self.read_b.val() | (self.state.val() == self.s_wait_b.val()) | self.both.val() | (self.state.val() == self.s_wait_a.val()) {
            self.p_addr.d.next = self.ofm.address.val();
            self.p_strb.d.next = self.lane_strb.val();
        }
        // The OFM byte CALC takes updates a cached word it hits, from registers in the next
        // cycle (`t_*`; the cache's inputs follow registers only, as its outputs feed this
        // block); that cycle's cached byte at the written address is the taken byte (below).
        self.t_valid.d.next = self.take.val();
        if self.take.val() {
            self.t_addr.d.next = self.ofm_word.val();
            self.t_data.d.next = self.o_data.val();
            self.t_mask.d.next = self.ofm_mask.val();
        }
        self.mem_aw_valid.next = self.buffer.mem_aw_valid.val();
        self.mem_aw_addr.next = self.buffer.mem_aw_addr.val();
        self.mem_w_data.next = self.buffer.mem_w_data.val();
        self.mem_w_strb.next = self.buffer.mem_w_strb.val();
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(ElementwiseMemory::default, "elementwise_memory");
}
