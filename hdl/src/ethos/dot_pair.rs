//! Two Ethos-U65 dot-product units that share one operand: the accumulators of one OFM channel
//! at two OFM positions of the 2x2 block (`lo` at position p, `hi` at p + 2), each fed 8 IFM
//! channels a cycle (TRM L1033-1076; digest §0, §5.1). Model: `model/src/ethos/mac_unit.rs`,
//! which documents the modes (it keeps one unit per accumulator; the pairing is arithmetic only).
use rust_hdl::prelude::*;

/// Each unit as the model's: conv (`mode` 0, and 3): `acc (+)= Σ act[i]·w[i]`; depthwise (1):
/// `acc (+)= act[own]·w[own]`; max pooling (2): `acc = max(acc, act[own])`. `clear` starts a
/// new accumulation (`=` instead of `+=`); `act16_high` marks the high byte of 16-bit
/// activations (its products count 256 times); `pad_lo`/`pad_hi` mark a unit's OFM position
/// outside the IFM (adds nothing, ignored by max). Changes only when `enable`; accumulators are
/// 40 bits, wrapping; reset clears them. `packed_cycle` (the convolution datapath's packed
/// depthwise cycle, docs/ethos.md "Depthwise tap packing") is the conv mode without padding
/// on the second operands: `lo` sums `pact`·`pw_lo`, `hi` `pact`·`pw_hi` (six lanes; the two
/// units of a kernel column share the window, each has its kernel row), chosen in the clocked
/// process (twelfth step of "Verilated speed").
///
/// Why pairs: the two units share one operand in every mode (the weight word in conv and
/// depthwise, the window in a packed cycle), so both dot products come from one 64-bit
/// multiply a lane, `x · (y_lo + y_hi · 2^32)` ([`pair_dots`]), 128 multiplies a MAC cycle
/// instead of 256 (docs/ethos.md, "Verilated speed", sixteenth step). Written as Verilog with
/// the products inside the accumulators' clocked process (fifth step: `act` comes from the
/// datapath's ports, and logic before a register would run in Verilator's input region) and
/// lanes as constant part-selects (seventh step).
#[derive(LogicBlock)]
pub struct DotPair {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub mode: Signal<In, Bits<2>>,
    pub act16_high: Signal<In, Bit>,
    pub pad_lo: Signal<In, Bit>,
    pub pad_hi: Signal<In, Bit>,
    pub act_lo: Signal<In, Bits<72>>,
    pub act_hi: Signal<In, Bits<72>>,
    pub w: Signal<In, Bits<72>>,
    pub packed_cycle: Signal<In, Bit>,
    pub pact: Signal<In, Bits<54>>,
    pub pw_lo: Signal<In, Bits<54>>,
    pub pw_hi: Signal<In, Bits<54>>,
    pub acc_lo: Signal<Out, Bits<40>>,
    pub acc_hi: Signal<Out, Bits<40>>,
    /// The lane of the units' own OFM channel (depthwise, max pooling).
    own: Constant<Bits<3>>,
}

/// Both dot products `Σ x_i·lo_i` and `Σ x_i·hi_i` of 9-bit lanes (-256..255) from one
/// 64-bit multiply a lane, as the Verilog computes them: `s = Σ x_i · (lo_i + hi_i · 2^32)`
/// (wrapping). Each sum is at most 8 · 256 · 256 = 2^19 in magnitude, so `s = s_lo + s_hi ·
/// 2^32` exactly with `|s_lo| < 2^31`: `s_lo` is the low half sign-extended, and the high half
/// is `s_hi` minus the borrow of a negative `s_lo`, its bit 31.
pub fn pair_dots(x: &[i64], lo: &[i64], hi: &[i64]) -> (i64, i64) {
    let s = x.iter().zip(lo.iter().zip(hi)).fold(0u64, |s, (&x, (&l, &h))| {
        let y = ((h as u64) << 32).wrapping_add(l as u64);
        s.wrapping_add((x as u64).wrapping_mul(y))
    });
    let low = s as u32 as i32;
    let high = ((s >> 32) as u32).wrapping_add(((s >> 31) & 1) as u32) as i32;
    (i64::from(low), i64::from(high))
}

impl DotPair {
    /// The units of OFM channel `own` (0..8) of its group of 8.
    pub fn new(own: usize) -> Self {
        assert!(own < 8, "a dot-product unit's own channel is 0..8, not {own}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            mode: Default::default(),
            act16_high: Default::default(),
            pad_lo: Default::default(),
            pad_hi: Default::default(),
            act_lo: Default::default(),
            act_hi: Default::default(),
            w: Default::default(),
            packed_cycle: Default::default(),
            pact: Default::default(),
            pw_lo: Default::default(),
            pw_hi: Default::default(),
            acc_lo: Default::default(),
            acc_hi: Default::default(),
            own: Constant::new((own as u64).into()),
        }
    }

    /// The accumulators' clocked process. `pair9` forms a lane's doubled operand, `sx` sign-extends
    /// the shared one; the sum `s` and its halves are locals of the process (not registers: each
    /// is written before it is read in the branch that uses it).
    fn verilog(&self) -> String {
        let lane = |word: &str, i: usize| format!("{word}[{}:{}]", 9 * i + 8, 9 * i);
        let term = |x: &str, lo: &str, hi: &str, i: usize| {
            format!("sx({}) * pair9({}, {})", lane(x, i), lane(lo, i), lane(hi, i))
        };
        let join = "\n              + ";
        let sum = (0..8).map(|i| term("w", "act_lo", "act_hi", i)).collect::<Vec<_>>().join(join);
        // The packed operands carry six lanes (a unit's lanes 6 and 7 are 0 there).
        let packed_sum = (0..6).map(|i| term("pact", "pw_lo", "pw_hi", i)).collect::<Vec<_>>().join(join);
        let own_term = "sx(w[9*own +: 9]) * pair9(act_lo[9*own +: 9], act_hi[9*own +: 9])";
        let own_lo = "{{31{act_lo[9*own + 8]}}, act_lo[9*own +: 9]}";
        let own_hi = "{{31{act_hi[9*own + 8]}}, act_hi[9*own +: 9]}";
        format!(
            "// A 9-bit lane sign-extended to 64 bits.
function automatic [63:0] sx(input [8:0] v);
    sx = {{{{55{{v[8]}}}}, v}};
endfunction
// Two 9-bit lanes as one 64-bit operand, lo + hi * 2^32 (each sign-extended).
function automatic [63:0] pair9(input [8:0] lo, input [8:0] hi);
    pair9 = {{{{23{{hi[8]}}}}, hi, 32'd0}} + sx(lo);
endfunction
// A dot product (at most 8 x 256 x 256 in magnitude, held in 32 bits) sign-extended to the
// accumulator's 40, times 256 for the high byte of 16-bit activations.
function automatic [39:0] widen(input [31:0] dot, input high);
    widen = high ? {{dot, 8'd0}} : {{{{8{{dot[31]}}}}, dot}};
endfunction
always @(posedge clock) begin : pair
    // Both units' sums in one word: s = lo + hi * 2^32; lo is its low half, hi its high half
    // plus the borrow of a negative lo (bit 31).
    reg [63:0] s;
    reg [31:0] lo;
    reg [31:0] hi;
    if (reset) begin
        acc_lo <= 40'd0;
        acc_hi <= 40'd0;
    end
    else if (enable) begin
        // A packed depthwise cycle: the conv mode on the second operands, no padding.
        if (packed_cycle) begin
            s = {packed_sum};
            lo = s[31:0];
            hi = s[63:32] + {{31'd0, s[31]}};
            acc_lo <= (clear ? 40'd0 : acc_lo) + widen(lo, 1'b0);
            acc_hi <= (clear ? 40'd0 : acc_hi) + widen(hi, 1'b0);
        end
        else if (mode == 2'd2) begin
            // Max pooling, each unit on its own; a cleared max over padding only is the most
            // negative value.
            if (clear) acc_lo <= pad_lo ? 40'h8000000000 : {own_lo};
            else if (!pad_lo && $signed({own_lo}) > $signed(acc_lo)) acc_lo <= {own_lo};
            if (clear) acc_hi <= pad_hi ? 40'h8000000000 : {own_hi};
            else if (!pad_hi && $signed({own_hi}) > $signed(acc_hi)) acc_hi <= {own_hi};
        end
        // Both positions padded: nothing to add (a clear starts from 0).
        else if (pad_lo && pad_hi) begin
            if (clear) begin
                acc_lo <= 40'd0;
                acc_hi <= 40'd0;
            end
        end
        else begin
            s = mode == 2'd1 ? {own_term}
              : {sum};
            lo = s[31:0];
            hi = s[63:32] + {{31'd0, s[31]}};
            // A padded unit adds nothing: a clear starts from 0, an accumulation keeps its value.
            if (!pad_lo) acc_lo <= (clear ? 40'd0 : acc_lo) + widen(lo, act16_high);
            else if (clear) acc_lo <= 40'd0;
            if (!pad_hi) acc_hi <= (clear ? 40'd0 : acc_hi) + widen(hi, act16_high);
            else if (clear) acc_hi <= 40'd0;
        end
    end
end"
        )
    }

    /// Lane `i` of a word, sign-extended.
    fn lane<const N: usize>(word: Bits<N>, i: usize) -> i64 {
        let raw = (0..9).fold(0i64, |x, k| x | (i64::from(word.get_bit(9 * i + k)) << k));
        (raw << 55) >> 55
    }

    fn lanes<const N: usize>(word: Bits<N>, which: &[usize]) -> Vec<i64> {
        which.iter().map(|&i| Self::lane(word, i)).collect()
    }

    /// The accumulators' next values while `enable` is high (mirrors the Verilog above).
    fn next(&self) -> (i64, i64) {
        let own = self.own.val().index();
        let wrap = |v: u64| (v as i64) << 24 >> 24;
        let (acc_lo, acc_hi) = (wrap(self.acc_lo.val().to_u64()), wrap(self.acc_hi.val().to_u64()));
        let clear = self.clear.val();
        if self.packed_cycle.val() {
            let six: Vec<usize> = (0..6).collect();
            let (lo, hi) = pair_dots(
                &Self::lanes(self.pact.val(), &six),
                &Self::lanes(self.pw_lo.val(), &six),
                &Self::lanes(self.pw_hi.val(), &six),
            );
            return if clear { (lo, hi) } else { (acc_lo + lo, acc_hi + hi) };
        }
        if self.mode.val().index() == 2 {
            let max = |acc: i64, act: Bits<72>, pad: bool| {
                let own_act = Self::lane(act, own);
                match (clear, pad) {
                    (true, true) => -(1 << 39),
                    (_, false) if clear || own_act > acc => own_act,
                    _ => acc,
                }
            };
            return (max(acc_lo, self.act_lo.val(), self.pad_lo.val()), max(acc_hi, self.act_hi.val(), self.pad_hi.val()));
        }
        let which: Vec<usize> = if self.mode.val().index() == 1 { vec![own] } else { (0..8).collect() };
        let (lo, hi) = pair_dots(
            &Self::lanes(self.w.val(), &which),
            &Self::lanes(self.act_lo.val(), &which),
            &Self::lanes(self.act_hi.val(), &which),
        );
        let term = |dot: i64, pad: bool| if pad { 0 } else if self.act16_high.val() { dot << 8 } else { dot };
        let next = |acc: i64, dot: i64, pad: bool| if clear { term(dot, pad) } else { acc + term(dot, pad) };
        (next(acc_lo, lo, self.pad_lo.val()), next(acc_hi, hi, self.pad_hi.val()))
    }
}

impl Logic for DotPair {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.acc_lo.next = 0.into();
                self.acc_hi.next = 0.into();
            } else if self.enable.val() {
                let (lo, hi) = self.next();
                self.acc_lo.next = ((lo as u64) & ((1 << 40) - 1)).into();
                self.acc_hi.next = ((hi as u64) & ((1 << 40) - 1)).into();
            }
        }
    }
    fn connect(&mut self) {
        self.acc_lo.connect();
        self.acc_hi.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.verilog())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "dot_pair".into(),
            clock: "clock".into(),
            inputs: ["reset", "enable", "clear", "mode", "act16_high", "pad_lo", "pad_hi", "act_lo", "act_hi", "w", "packed_cycle", "pact", "pw_lo", "pw_hi"]
                .map(String::from)
                .to_vec(),
            outputs: vec!["acc_lo".into(), "acc_hi".into()],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::pair_dots;

    /// Both sums of `pair_dots` against plain sums.
    fn check(x: &[i64], lo: &[i64], hi: &[i64]) {
        let dot = |y: &[i64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<i64>();
        assert_eq!(pair_dots(x, lo, hi), (dot(lo), dot(hi)), "x {x:?} lo {lo:?} hi {hi:?}");
    }

    /// Every lane at the operands' extremes and around 0 (-256, -255, -1, 0, 1, 254, 255), all 8
    /// lanes alike (the largest sums: +-2^19 and 8 · 255 · 255) and lane by lane against the
    /// others at each extreme, 1 to 8 lanes (depthwise takes one, a packed cycle six); then
    /// every pair of lane values -256..255 in lane 0 with the other lanes at each extreme.
    #[test]
    fn pairing_is_exact_at_the_extremes() {
        const EDGE: [i64; 7] = [-256, -255, -1, 0, 1, 254, 255];
        for n in 1..=8 {
            for &x in &EDGE {
                for &l in &EDGE {
                    for &h in &EDGE {
                        check(&vec![x; n], &vec![l; n], &vec![h; n]);
                        for k in 0..n {
                            for &rest in &[-256, 255] {
                                let mut xs = vec![rest; n];
                                let mut ls = vec![-rest - 1; n];
                                let mut hs = vec![rest; n];
                                xs[k] = x;
                                ls[k] = l;
                                hs[k] = h;
                                check(&xs, &ls, &hs);
                            }
                        }
                    }
                }
            }
        }
        for l in -256..=255 {
            for h in -256..=255 {
                for &rest in &[-256i64, 255] {
                    for &x0 in &[-256i64, 255, -1] {
                        let mut xs = vec![rest; 8];
                        xs[0] = x0;
                        let mut ls = vec![rest; 8];
                        let mut hs = vec![-rest - 1; 8];
                        ls[0] = l;
                        hs[0] = h;
                        check(&xs, &ls, &hs);
                    }
                }
            }
        }
    }

    /// Random lanes -256..255 (`SEED=` repeats a run).
    #[test]
    fn pairing_is_exact_at_random() {
        let seed = std::env::var("SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
        });
        println!("SEED={seed}");
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 512) as i64 - 256
        };
        for _ in 0..200_000 {
            let x: Vec<i64> = (0..8).map(|_| next()).collect();
            let lo: Vec<i64> = (0..8).map(|_| next()).collect();
            let hi: Vec<i64> = (0..8).map(|_| next()).collect();
            check(&x, &lo, &hi);
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(|| DotPair::new(3), "dot_pair");
}
