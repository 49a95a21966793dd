//! The convolution datapath's 16 dot-product pairs in one clocked process, with the IFM lanes
//! formed inside it (Ethos-U65, TRM L1033-1076, L5425-5462; digest §0, §5.1): the same units,
//! pairing and arithmetic as 16 [`super::DotPair`]s (which `MacUnit`, the unit the MAC tests
//! drive, keeps), in the conv (0) and depthwise (1) modes and the packed depthwise cycle that
//! `ConvMac` uses. Model: `model/src/ethos/conv_mac.rs` (unchanged: same registers, cycles).
//!
//! Why one process (docs/ethos.md, "Verilated speed", eighteenth step): the IFM lanes
//! (each `data[8i+7:8i] - zero_point` below `live`) are a function
//! of the datapath's IFM ports, so as an `always @(*)` before the pairs they ran in Verilator's
//! input region, twice a cycle, and once more after the edge, and the 72-bit words they formed
//! recomputed the lanes that straddle a 32-bit word: about a fifth of the Verilated datapath.
//! Here each lane is a 9-bit local computed once, at the clock edge, only when the units are
//! enabled; each lane pair's 64-bit operand (`pair9` of positions p and p + 2) is formed once
//! for the 8 pairs that share it, and each weight lane's sign extension once for its 2 pairs.
//! The packed cycle's operands likewise (docs/ethos.md, "Convolution datapath", "Packed feed
//! in bytes"): each window word's lane once for the pairs that read it (64 rather than 96),
//! each channel's kernel operand once for its two positions (48 rather than 96), and the
//! lanes of the packed feed's words are formed here too, from its bytes, rather than before
//! the feed in the input region.
use super::pair_dots;
use rust_hdl::prelude::*;

/// Pair `8g + o` (g 0, 1; o 0..8) holds accumulators `8g + o` (`acc_lo`, OFM position g) and
/// `8(g + 2) + o` (`acc_hi`, position g + 2) of OFM channel `o`, as `ConvMac`'s pairs: `acc
/// (+)= Σ_i lane_i(data[p]) · w[o]_i` (conv), `lane_o(data[p]) · w[o]_o` (depthwise), with
/// `lane_i(d) = d[8i+7:8i] - zero_point` (int8, exact in 9 bits) for `i < live`, else 0;
/// `pad[p]` adds nothing to position p. A packed cycle (`ConvMac`'s `packed_cycle`) sums
/// `Σ_l x(WIN[l] + g, o) · kernel[l]_o` (lo) and `· kernel[6 + l]_o` (hi) over six lanes l,
/// no padding, where `x(v, o)` is window word v's IFM lane o (`lane_o(win[v])` when it is
/// live, else 0). Window word `4j + c` (window row `row + j`, column `c`): fresh (`reuse`
/// low), `data[c]` for row 0, live with `win_live[c]`, row 1 not live; reuse, columns 0-1
/// from the column store's window row `row + j` (none past row 3), live with `win_live` and
/// the live bit stored with it, columns 2-3 `data[2j]`, `data[2j + 1]`, live with `win_live`.
/// Each packed cycle stores window row `row`'s columns 2-3 (words 2, 3) and, when `rows` is
/// 2, row `row + 1`'s (words 6, 7), with their live bits (`depthwise_feed.rs`'s column store
/// before). Why here: the words are the datapath's IFM ports, so selecting them before this
/// block ran in Verilator's input region on every evaluation; in the clocked process each
/// is selected once, at the edge (docs/ethos.md, "Convolution datapath", "Packed feed in
/// bytes").
/// `clear` starts a new accumulation; changes only when `enable`; 40-bit wrapping
/// accumulators, cleared by reset.
#[derive(LogicBlock, Default)]
pub struct DotArray {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enable: Signal<In, Bit>,
    pub clear: Signal<In, Bit>,
    pub depthwise: Signal<In, Bit>,
    pub pad: Signal<In, Bits<4>>,
    pub data: [Signal<In, Bits<64>>; 4],
    pub zero_point: Signal<In, Bits<8>>,
    /// Live lanes, 0..=8.
    pub live: Signal<In, Bits<4>>,
    pub w: [Signal<In, Bits<72>>; 8],
    pub packed_cycle: Signal<In, Bit>,
    /// The packed feed's window mapping (a reuse block; window rows `row` and, when `rows`
    /// is 2, `row + 1`), which window words hold an element, and its kernel words
    /// (`ConvMac::reuse`, `row`, `rows`, `win_live`, `kernel`).
    pub reuse: Signal<In, Bit>,
    pub row: Signal<In, Bits<2>>,
    pub rows: Signal<In, Bits<2>>,
    pub win_live: [Signal<In, Bit>; 8],
    pub kernel: [Signal<In, Bits<72>>; 12],
    /// `load` copies every accumulator into the drain bank at the clock edge (the old values,
    /// as the units may clear at the same edge): `bank[k]` takes `acc_lo[k]`, `bank[16 + k]`
    /// `acc_hi[k]` (`ConvMac`'s bank, cleared by reset). Why here rather than in 32 `RegEn`s
    /// of `ConvMac`: Verilator gives a register no shadow copy (`__Vdly`, copied in and out
    /// every cycle) only when every read of it in the clocked region precedes every write; a
    /// bank in its own process was ordered after this one and read the accumulators after
    /// their writes, so all 32 (and the column store) had shadows (docs/ethos.md, "Verilated
    /// speed").
    pub load: Signal<In, Bit>,
    pub bank: [Signal<Out, Bits<40>>; 32],
    acc_lo: [Signal<Local, Bits<40>>; 16],
    acc_hi: [Signal<Local, Bits<40>>; 16],
    /// The column store: window row r's columns 2 and 3 (`store[2r + c - 2]`), IFM bytes, and
    /// whether each holds an element; cleared by reset.
    store: [Signal<Local, Bits<64>>; 8],
    store_live: [Signal<Local, Bit>; 8],
}

/// The window word of packed lane l for kernel column 0 (column 1: one more).
const WIN: [usize; 6] = [0, 1, 2, 4, 5, 6];

/// Lane `i` of a word of 9-bit lanes, sign-extended.
fn lane9<const N: usize>(word: Bits<N>, i: usize) -> i64 {
    let raw = (0..9).fold(0i64, |x, k| x | (i64::from(word.get_bit(9 * i + k)) << k));
    (raw << 55) >> 55
}

impl DotArray {
    /// IFM lane `i` of the word `data` (the module docs' `lane_i`).
    fn lane(&self, data: u64, i: usize) -> i64 {
        if (i as u64) >= self.live.val().to_u64() {
            return 0;
        }
        let byte = |v: u64| i64::from(v as u8 as i8);
        byte(data >> (8 * i)) - byte(self.zero_point.val().to_u64())
    }

    /// IFM lane `i` of position `p`.
    fn ifm_lane(&self, p: usize, i: usize) -> i64 {
        self.lane(self.data[p].val().to_u64(), i)
    }

    /// Packed window word `v` and whether it is live (the module docs).
    fn window(&self, v: usize) -> (u64, bool) {
        let (j, c) = (v / 4, v % 4);
        let live = self.win_live[v].val();
        if !self.reuse.val() {
            return if j == 0 { (self.data[c].val().to_u64(), live) } else { (0, false) };
        }
        if c >= 2 {
            return (self.data[2 * j + c - 2].val().to_u64(), live);
        }
        let r = self.row.val().index() + j;
        if r >= 4 {
            return (0, false);
        }
        (self.store[2 * r + c].val().to_u64(), live && self.store_live[2 * r + c].val())
    }

    /// Packed window word `v`'s lane `o` (the module docs' `x(v, o)`).
    fn win_lane(&self, v: usize, o: usize) -> i64 {
        match self.window(v) {
            (word, true) => self.lane(word, o),
            _ => 0,
        }
    }

    /// Pair k's accumulators after an enabled edge (mirrors the Verilog below).
    fn next(&self, k: usize) -> (u64, u64) {
        let (g, o) = (k / 8, k % 8);
        let wrap = |v: u64| (v as i64) << 24 >> 24;
        let (acc_lo, acc_hi) = (wrap(self.acc_lo[k].val().to_u64()), wrap(self.acc_hi[k].val().to_u64()));
        let clear = self.clear.val();
        let (lo, hi, pad_lo, pad_hi) = if self.packed_cycle.val() {
            let x: Vec<i64> = (0..6).map(|l| self.win_lane(WIN[l] + g, o)).collect();
            let lo: Vec<i64> = (0..6).map(|l| lane9(self.kernel[l].val(), o)).collect();
            let hi: Vec<i64> = (0..6).map(|l| lane9(self.kernel[6 + l].val(), o)).collect();
            let (lo, hi) = pair_dots(&x, &lo, &hi);
            (lo, hi, false, false)
        } else {
            let which: Vec<usize> = if self.depthwise.val() { vec![o] } else { (0..8).collect() };
            let w: Vec<i64> = which.iter().map(|&i| lane9(self.w[o].val(), i)).collect();
            let lo: Vec<i64> = which.iter().map(|&i| self.ifm_lane(g, i)).collect();
            let hi: Vec<i64> = which.iter().map(|&i| self.ifm_lane(g + 2, i)).collect();
            let (lo, hi) = pair_dots(&w, &lo, &hi);
            (lo, hi, self.pad.val().get_bit(g), self.pad.val().get_bit(g + 2))
        };
        let next = |acc: i64, dot: i64, pad: bool| match (clear, pad) {
            (true, true) => 0,
            (false, true) => acc,
            (true, false) => dot,
            (false, false) => acc + dot,
        };
        let mask = |v: i64| (v as u64) & ((1 << 40) - 1);
        (mask(next(acc_lo, lo, pad_lo)), mask(next(acc_hi, hi, pad_hi)))
    }

    fn verilog() -> String {
        let sel = |word: String, i: usize| format!("{word}[{}:{}]", 9 * i + 8, 9 * i);
        let mut t = String::from(
            "// A 9-bit lane sign-extended to 64 bits.
function automatic [63:0] sx(input [8:0] v);
    sx = {{55{v[8]}}, v};
endfunction
// Two 9-bit lanes as one 64-bit operand, lo + hi * 2^32 (each sign-extended).
function automatic [63:0] pair9(input [8:0] lo, input [8:0] hi);
    pair9 = {{23{hi[8]}}, hi, 32'd0} + sx(lo);
endfunction
// An IFM lane: a byte minus the zero point (both int8, exact in 9 bits), 0 at and above live.
function automatic [8:0] ifm(input [7:0] b, input [7:0] zp, input [3:0] n, input [3:0] i);
    ifm = (n > i) ? {b[7], b} - {zp[7], zp} : 9'd0;
endfunction
always @(posedge clock) begin : pairs
    // A pair's sums in one word: s = lo + hi * 2^32 (`DotPair`).
    reg [63:0] s;
    reg [31:0] lo;
    reg [31:0] hi;
",
        );
        for i in 0..8 {
            t += &format!("    reg [8:0] x0_{i}, x1_{i}, x2_{i}, x3_{i};\n    reg [63:0] a0_{i}, a1_{i};\n");
        }
        for o in 0..8 {
            t += &format!("    reg [63:0] {};\n", (0..8).map(|i| format!("w{o}_{i}")).collect::<Vec<_>>().join(", "));
        }
        // A packed cycle's operands, each formed once for the pairs that share it: window word
        // v's lane o (`v{v}_{o}`, for the two positions' pairs of channel o that read it) and
        // kernel lanes l and 6 + l of channel o as one operand (`k{l}_{o}`, for both positions).
        // A lane is its byte minus the zero point as a 64-bit word under a mask (all ones or 0:
        // the lane is below `live`, `lm{o}`), 0 in a word that is not live: a few word
        // operations, where the 9-bit `ifm` and `sx` took about twice as many (docs/ethos.md,
        // "Convolution datapath", "Packed feed in bytes"). `xw{v}` and `kb{i}` are the biased
        // words below.
        t += "    reg [63:0] zb;\n";
        // The window words and their live bits, and the column store's words of window rows
        // `row` and `row + 1` (`s{v}`, `sl{v}` for words 0, 1, 4, 5).
        t += &format!("    reg [63:0] {};\n", (0..8).map(|v| format!("ww{v}")).collect::<Vec<_>>().join(", "));
        t += &format!("    reg {};\n", (0..8).map(|v| format!("wl{v}")).collect::<Vec<_>>().join(", "));
        t += &format!("    reg [63:0] {};\n", [0, 1, 4, 5].map(|v| format!("s{v}")).join(", "));
        t += &format!("    reg {};\n", [0, 1, 4, 5].map(|v| format!("sl{v}")).join(", "));
        t += &format!("    reg [63:0] {};\n", (0..8).map(|v| format!("xw{v}, lm{v}")).collect::<Vec<_>>().join(", "));
        t += &format!("    reg [71:0] {};\n", (0..12).map(|i| format!("kb{i}")).collect::<Vec<_>>().join(", "));
        for v in 0..8 {
            t += &format!("    reg [63:0] {};\n", (0..8).map(|o| format!("v{v}_{o}")).collect::<Vec<_>>().join(", "));
        }
        for l in 0..6 {
            t += &format!("    reg [63:0] {};\n", (0..8).map(|o| format!("k{l}_{o}")).collect::<Vec<_>>().join(", "));
        }
        // Every read of a register comes before its writes, reset last (its non-blocking
        // writes win): then Verilator needs no shadow copies (the `load` doc above).
        t += "    if (!reset && load) begin\n";
        for k in 0..16 {
            t += &format!("        bank${k} <= acc_lo${k};\n        bank${} <= acc_hi${k};\n", 16 + k);
        }
        t += "    end\n    if (!reset && enable) begin\n        if (!packed_cycle) begin\n";
        // The IFM lanes, each lane pair's operand (positions g and g + 2), the weight lanes.
        for i in 0..8 {
            for p in 0..4 {
                t += &format!("            x{p}_{i} = ifm(data${p}[{}:{}], zero_point, live, 4'd{i});\n", 8 * i + 7, 8 * i);
            }
            t += &format!("            a0_{i} = pair9(x0_{i}, x2_{i});\n            a1_{i} = pair9(x1_{i}, x3_{i});\n");
        }
        // A depthwise tap reads only weight lane o of word o (the others are 0).
        for o in 0..8 {
            t += &format!("            w{o}_{o} = sx({});\n", sel(format!("w${o}"), o));
        }
        t += "            if (!depthwise) begin\n";
        for o in 0..8 {
            for i in (0..8).filter(|&i| i != o) {
                t += &format!("                w{o}_{i} = sx({});\n", sel(format!("w${o}"), i));
            }
        }
        t += "            end\n        end\n        else begin\n";
        // Biased operands: an n-bit two's complement value x is (x ^ 2^(n-1)) - 2^(n-1), so
        // each word is XORed once and each operand is a zero-extended field minus a constant,
        // rather than a field sign-extended bit by bit (about a third of the instructions).
        // A lane: (byte ^ 80h) - (zero point ^ 80h), both unsigned; a word without an element
        // gives 0 lanes without computing them.
        t += "            zb = {56'd0, zero_point ^ 8'h80};\n";
        // The window (module docs): the store's rows `row` and `row + 1`, then the words.
        t += "            case (row)\n";
        for r in 0..4 {
            t += &format!("                2'd{r}: begin\n");
            for (v, j, c) in [(0, 0, 0), (1, 0, 1), (4, 1, 0), (5, 1, 1)] {
                if r + j < 4 {
                    t += &format!("                    s{v} = store${}; sl{v} = store_live${};\n", 2 * (r + j) + c, 2 * (r + j) + c);
                } else {
                    t += &format!("                    s{v} = 64'd0; sl{v} = 1'b0;\n");
                }
            }
            t += "                end\n";
        }
        t += "            endcase\n            if (reuse) begin\n";
        for v in 0..8 {
            let (j, c) = (v / 4, v % 4);
            if c < 2 {
                t += &format!("                ww{v} = s{v}; wl{v} = win_live${v} & sl{v};\n");
            } else {
                t += &format!("                ww{v} = data${}; wl{v} = win_live${v};\n", 2 * j + c - 2);
            }
        }
        t += "            end\n            else begin\n";
        for v in 0..8 {
            if v < 4 {
                t += &format!("                ww{v} = data${v}; wl{v} = win_live${v};\n");
            } else {
                t += &format!("                ww{v} = 64'd0; wl{v} = 1'b0;\n");
            }
        }
        t += "            end\n";
        // The column store: window row `row`'s columns 2-3, and row `row + 1`'s when taken.
        t += "            case (row)\n";
        for r in 0..4 {
            t += &format!("                2'd{r}: begin\n");
            t += &format!("                    store${} <= ww2; store${} <= ww3; store_live${} <= wl2; store_live${} <= wl3;\n", 2 * r, 2 * r + 1, 2 * r, 2 * r + 1);
            if r + 1 < 4 {
                t += &format!(
                    "                    if (rows == 2'd2) begin\n                        store${} <= ww6; store${} <= ww7; store_live${} <= wl6; store_live${} <= wl7;\n                    end\n",
                    2 * r + 2,
                    2 * r + 3,
                    2 * r + 2,
                    2 * r + 3
                );
            }
            t += "                end\n";
        }
        t += "            endcase\n";
        for i in 0..8 {
            t += &format!("            lm{i} = (live > 4'd{i}) ? ~64'd0 : 64'd0;\n");
        }
        for v in 0..8 {
            t += &format!("            if (wl{v}) begin\n                xw{v} = ww{v} ^ 64'h8080808080808080;\n");
            for o in 0..8 {
                t += &format!("                v{v}_{o} = ({{56'd0, xw{v}[{top}:{bottom}]}} - zb) & lm{o};\n", top = 8 * o + 7, bottom = 8 * o);
            }
            t += "            end\n            else begin\n";
            for o in 0..8 {
                t += &format!("                v{v}_{o} = 64'd0;\n");
            }
            t += "            end\n";
        }
        // A kernel operand pair: sx(lo) + sx(hi) * 2^32 = {hi ^ 100h, lo ^ 100h} as two 32-bit
        // fields, minus 100h * (2^32 + 1).
        for i in 0..12 {
            t += &format!("            kb{i} = kernel${i} ^ {{8{{9'h100}}}};\n");
        }
        for l in 0..6 {
            for o in 0..8 {
                t += &format!(
                    "            k{l}_{o} = {{23'd0, {}, 23'd0, {}}} - 64'h0000010000000100;\n",
                    sel(format!("kb{}", 6 + l), o),
                    sel(format!("kb{l}"), o)
                );
            }
        }
        t += "        end\n";
        for k in 0..16 {
            let (g, o) = (k / 8, k % 8);
            let packed = (0..6).map(|l| format!("v{}_{o} * k{l}_{o}", WIN[l] + g)).collect::<Vec<_>>().join(" + ");
            let sum = (0..8).map(|i| format!("w{o}_{i} * a{g}_{i}")).collect::<Vec<_>>().join(" + ");
            let (plo, phi) = (g, g + 2);
            t += &format!(
                "        // Pair {k}: OFM channel {o}, positions {plo} and {phi}; one write each.
        if (packed_cycle) s = {packed};
        else if (pad[{plo}] && pad[{phi}]) s = 64'd0;
        else s = depthwise ? w{o}_{o} * a{g}_{o} : {sum};
        lo = s[31:0];
        hi = s[63:32] + {{31'd0, s[31]}};
        if (!packed_cycle && pad[{plo}]) lo = 32'd0;
        if (!packed_cycle && pad[{phi}]) hi = 32'd0;
        acc_lo${k} <= (clear ? 40'd0 : acc_lo${k}) + {{{{8{{lo[31]}}}}, lo}};
        acc_hi${k} <= (clear ? 40'd0 : acc_hi${k}) + {{{{8{{hi[31]}}}}, hi}};
"
            );
        }
        t += "    end\n    if (reset) begin\n";
        for k in 0..16 {
            t += &format!("        acc_lo${k} <= 40'd0;\n        acc_hi${k} <= 40'd0;\n");
        }
        for k in 0..32 {
            t += &format!("        bank${k} <= 40'd0;\n");
        }
        for i in 0..8 {
            t += &format!("        store${i} <= 64'd0;\n        store_live${i} <= 1'b0;\n");
        }
        t += "    end\nend";
        t
    }
}

impl Logic for DotArray {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                for k in 0..16 {
                    self.acc_lo[k].next = 0.into();
                    self.acc_hi[k].next = 0.into();
                }
                for i in 0..8 {
                    self.store[i].next = 0u64.into();
                    self.store_live[i].next = false;
                }
                for k in 0..32 {
                    self.bank[k].next = 0.into();
                }
            } else {
                if self.load.val() {
                    for k in 0..16 {
                        self.bank[k].next = self.acc_lo[k].val();
                        self.bank[16 + k].next = self.acc_hi[k].val();
                    }
                }
                if !self.enable.val() {
                    return;
                }
                for k in 0..16 {
                    let (lo, hi) = self.next(k);
                    self.acc_lo[k].next = lo.into();
                    self.acc_hi[k].next = hi.into();
                }
                if self.packed_cycle.val() {
                    // The column store (module docs).
                    let row = self.row.val().index();
                    let mut puts = vec![(row, 2)];
                    if self.rows.val().index() == 2 && row + 1 < 4 {
                        puts.push((row + 1, 6));
                    }
                    for (r, v) in puts {
                        for c in 0..2 {
                            let (word, live) = self.window(v + c);
                            self.store[2 * r + c].next = word.into();
                            self.store_live[2 * r + c].next = live;
                        }
                    }
                }
            }
        }
    }
    fn connect(&mut self) {
        for k in 0..16 {
            self.acc_lo[k].connect();
            self.acc_hi[k].connect();
        }
        for i in 0..8 {
            self.store[i].connect();
            self.store_live[i].connect();
        }
        for k in 0..32 {
            self.bank[k].connect();
        }
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(Self::verilog())
    }
    fn timing(&self) -> Vec<TimingInfo> {
        let mut inputs: Vec<String> = ["reset", "load", "enable", "clear", "depthwise", "pad", "zero_point", "live", "packed_cycle", "reuse", "row", "rows"].map(String::from).to_vec();
        for p in 0..4 {
            inputs.push(format!("data${p}"));
        }
        for o in 0..8 {
            inputs.push(format!("w${o}"));
        }
        for i in 0..8 {
            inputs.push(format!("win_live${i}"));
        }
        for i in 0..12 {
            inputs.push(format!("kernel${i}"));
        }
        let outputs = (0..32).map(|k| format!("bank${k}")).collect();
        vec![TimingInfo { name: "dot_array".into(), clock: "clock".into(), inputs, outputs }]
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(DotArray::default, "dot_array");
}
