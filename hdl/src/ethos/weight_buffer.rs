//! The Ethos-U65 convolution datapath's weight buffer (`conv_datapath.rs`; TRM §4, digest
//! §1.9): DECODE gathers the weight decoder's beats into rows of 64 weights (depthwise 8) and
//! writes them in stream order; MAC reads one row a cycle as the MAC unit's eight weight words.
//!
//! The gather register (67 lanes of 9 bits, shifted by every beat), the row selection and
//! the memory's ports read registers only (the decoder's output beat, the datapath's state,
//! the latched layer registers), so Verilator evaluates them once a cycle rather than on
//! every change of the datapath's inputs (docs/ethos.md, "Verilated speed").
use super::conv_datapath::WEIGHT_ROWS;
use crate::primitives::constant as k;
use crate::primitives::{Ram, Reg, RegEn, ZeroExtend};
use rust_hdl::prelude::*;

const WEIGHT_ADDRESS_BITS: usize = 12;
const _: () = assert!(WEIGHT_ROWS == 1 << WEIGHT_ADDRESS_BITS);

/// The shift register that gathers decoded weights into rows: 67 lanes of 9 bits, the newest
/// weight on top. A row of 64 (or 8) is the window just below the up to 3 weights of the next
/// row that the completing beat (up to 4 weights) brings.
const GATHER_BITS: u64 = 67 * 9;

/// `restart` (CHECK) empties the gather; while `decoding`, each beat (`beat_valid`, 1..=4
/// weights of 9 bits) shifts in, and a beat that completes a row writes it at the next row
/// (`rows`) unless the layer's `total_rows` are all written: `beyond` says so, in that cycle.
/// `short`: the rows and the gather after this cycle are not exactly the layer's (read when
/// the decoder says `done`). `weights_seen`: weights decoded, this cycle's beat included.
/// Read side: `read_enable`/`read_address` read a row for the next cycle, as `w[0..8]` (OFM
/// channel o's 8 IFM-channel weights; depthwise: the row's 8 weights on the diagonal), formed
/// only while `active` (the datapath is not idle; 0 otherwise): nothing reads them in IDLE,
/// where an NPU that does not convolve spends its time, so that the Verilated model skips
/// slicing the 576-bit row into eight words there (docs/ethos.md, "Verilated speed").
/// `row_ready`: row `want_row` is written (in an earlier cycle), for the traversal, which runs
/// while DECODE goes on.
#[derive(LogicBlock)]
pub struct WeightBuffer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub restart: Signal<In, Bit>,
    pub decoding: Signal<In, Bit>,
    pub depthwise: Signal<In, Bit>,
    pub total_rows: Signal<In, Bits<13>>,
    pub beat_valid: Signal<In, Bit>,
    pub beat_count: Signal<In, Bits<3>>,
    pub beat_data: Signal<In, Bits<36>>,
    pub read_enable: Signal<In, Bit>,
    pub active: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<WEIGHT_ADDRESS_BITS>>,
    pub want_row: Signal<In, Bits<WEIGHT_ADDRESS_BITS>>,
    pub row_ready: Signal<Out, Bit>,
    want13: ZeroExtend<12, 13>,
    pub beyond: Signal<Out, Bit>,
    pub short: Signal<Out, Bit>,
    pub weights_seen: Signal<Out, Bits<20>>,
    pub w: [Signal<Out, Bits<72>>; 8],

    memory: Ram<576, WEIGHT_ADDRESS_BITS>,
    /// Depthwise: word j is the row's top 72 bits (its 8 weights) masked to lane j (OFM
    /// channel j's weight sits in lane j of its word: the diagonal of an 8x8 lane matrix).
    lane_mask: [Constant<Bits<72>>; 8],
    zero72: Constant<Bits<72>>,
    /// Loaded only on a beat (its enable): a cycle without one neither copies the 603 bits
    /// into the register nor its value back as the next one (docs/ethos.md, "Verilated
    /// speed", NPU step 7).
    gather: RegEn<Bits<603>>,
    fill: Reg<Bits<10>>,
    rows: Reg<Bits<13>>,
    weights: Reg<Bits<20>>,
    count10: ZeroExtend<3, 10>,
    count20: ZeroExtend<3, 20>,
    beat_wide: ZeroExtend<36, 603>,
    beat: Signal<Local, Bit>,
    complete: Signal<Local, Bit>,
    filled: Signal<Local, Bits<10>>,
    overflow: Signal<Local, Bits<10>>,
    shift_out: Signal<Local, Bits<10>>,
    row_word: Signal<Local, Bits<576>>,
    gathered: Signal<Local, Bits<603>>,
    rows_next: Signal<Local, Bits<13>>,
    fill_next: Signal<Local, Bits<10>>,
    gather_bits10: Constant<Bits<10>>,
    zero10: Constant<Bits<10>>,
    zero576: Constant<Bits<576>>,
    zero603: Constant<Bits<603>>,
    zero13: Constant<Bits<13>>,
    zero20: Constant<Bits<20>>,
    one10: Constant<Bits<10>>,
    two10: Constant<Bits<10>>,
    three10: Constant<Bits<10>>,
    four10: Constant<Bits<10>>,
    eight10: Constant<Bits<10>>,
    sixty_four10: Constant<Bits<10>>,
    one13: Constant<Bits<13>>,
    shift3: Constant<Bits<4>>,
}

impl Default for WeightBuffer {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            restart: Default::default(),
            decoding: Default::default(),
            depthwise: Default::default(),
            total_rows: Default::default(),
            beat_valid: Default::default(),
            beat_count: Default::default(),
            beat_data: Default::default(),
            read_enable: Default::default(),
            active: Default::default(),
            read_address: Default::default(),
            want_row: Default::default(),
            row_ready: Default::default(),
            want13: Default::default(),
            beyond: Default::default(),
            short: Default::default(),
            weights_seen: Default::default(),
            w: Default::default(),
            memory: Default::default(),
            lane_mask: std::array::from_fn(|j| Constant::new(bit_cast::<72, 9>(0x1ff.into()) << (9 * j as u64))),
            zero72: Constant::new(0.into()),
            gather: Default::default(),
            fill: Default::default(),
            rows: Default::default(),
            weights: Default::default(),
            count10: Default::default(),
            count20: Default::default(),
            beat_wide: Default::default(),
            beat: Default::default(),
            complete: Default::default(),
            filled: Default::default(),
            overflow: Default::default(),
            shift_out: Default::default(),
            row_word: Default::default(),
            gathered: Default::default(),
            rows_next: Default::default(),
            fill_next: Default::default(),
            gather_bits10: k(GATHER_BITS),
            zero10: k(0),
            zero576: Constant::new(0.into()),
            zero603: Constant::new(0.into()),
            zero13: k(0),
            zero20: k(0),
            one10: k(1),
            two10: k(2),
            three10: k(3),
            four10: k(4),
            eight10: k(8),
            sixty_four10: k(64),
            one13: k(1),
            shift3: k(3),
        }
    }
}

impl Logic for WeightBuffer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fill, rows, weights);
        self.gather.clock.next = self.clock.val();
        self.gather.reset.next = self.reset.val();
        self.fill.reset.next = self.reset.val();
        self.rows.reset.next = self.reset.val();
        self.weights.reset.next = self.reset.val();
        self.memory.clock.next = self.clock.val();
        self.memory.reset.next = self.reset.val();

        // A beat's weights shift into `gather`, newest on top.
        self.beat.next = self.beat_valid.val() & self.decoding.val();
        self.count10.narrow.next = self.beat_count.val();
        self.count20.narrow.next = self.beat_count.val();
        self.beat_wide.narrow.next = self.beat_data.val();
        self.shift_out.next = (self.count10.wide.val() << self.shift3.val()) + self.count10.wide.val();
        // The 603-bit gather and the 576-bit row are formed only on a beat, 0 otherwise (only
        // a beat loads `gather` or writes a row), so that the Verilated model skips their wide
        // shifts in every other cycle (docs/ethos.md, "Verilated speed", idle NPU step).
        self.gathered.next = self.zero603.val();
        if self.beat.val() {
            self.gathered.next = (self.gather.q.val() >> self.shift_out.val())
                | (self.beat_wide.wide.val() << (self.gather_bits10.val() - self.shift_out.val()));
        }
        self.filled.next = self.fill.q.val();
        self.weights_seen.next = self.weights.q.val();
        if self.beat.val() {
            self.filled.next = self.fill.q.val() + self.count10.wide.val();
            self.weights_seen.next = self.weights.q.val() + self.count20.wide.val();
        }
        self.overflow.next = self.filled.val() - self.sixty_four10.val();
        if self.depthwise.val() {
            self.overflow.next = self.filled.val() - self.eight10.val();
        }
        self.complete.next = self.beat.val() & (self.overflow.val() < self.four10.val());
        // The row is the 64 lanes just below the `overflow` newest ones (depthwise: its 8
        // weights are the top 8 of those; the read side spreads them on the diagonal).
        self.row_word.next = self.zero576.val();
        if self.beat.val() {
            self.row_word.next = self.gathered.val().get_bits::<576>(27);
            if self.overflow.val() == self.one10.val() {
                self.row_word.next = self.gathered.val().get_bits::<576>(18);
            }
            if self.overflow.val() == self.two10.val() {
                self.row_word.next = self.gathered.val().get_bits::<576>(9);
            }
            if self.overflow.val() == self.three10.val() {
                self.row_word.next = self.gathered.val().get_bits::<576>(0);
            }
        }
        self.memory.write_enable.next = self.complete.val() & (self.rows.q.val() != self.total_rows.val());
        self.memory.write_address.next = self.rows.q.val().get_bits::<12>(0);
        self.memory.write_data.next = self.row_word.val();
        self.rows_next.next = self.rows.q.val();
        self.fill_next.next = self.filled.val();
        if self.complete.val() {
            self.rows_next.next = self.rows.q.val() + self.one13.val();
            self.fill_next.next = self.overflow.val();
        }
        self.beyond.next = self.complete.val() & (self.rows.q.val() == self.total_rows.val());
        self.short.next = (self.rows_next.val() != self.total_rows.val()) | (self.fill_next.val() != self.zero10.val());
        if self.restart.val() {
            self.fill.d.next = self.zero10.val();
            self.weights.d.next = self.zero20.val();
            self.rows.d.next = self.zero13.val();
        }
        self.gather.enable.next = self.beat.val();
        self.gather.d.next = self.gathered.val();
        if self.decoding.val() {
            self.rows.d.next = self.rows_next.val();
            self.fill.d.next = self.fill_next.val();
            self.weights.d.next = self.weights_seen.val();
        }

        // Read side.
        self.want13.narrow.next = self.want_row.val();
        self.row_ready.next = self.want13.wide.val() < self.rows.q.val();
        self.memory.read_enable.next = self.read_enable.val();
        self.memory.read_address.next = self.read_address.val();
        // Word j is the row's OFM channel j (depthwise: the diagonal's row j), only while active.
        for j in 0..8 {
            self.w[j].next = self.zero72.val();
        }
        if self.active.val() {
            if self.depthwise.val() {
                for j in 0..8 {
                    self.w[j].next = self.memory.read_data.val().get_bits::<72>(504) & self.lane_mask[j].val();
                }
            } else {
                for j in 0..8 {
                    self.w[j].next = self.memory.read_data.val().get_bits::<72>(72 * j);
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightBuffer::default, "weight_buffer");
}
