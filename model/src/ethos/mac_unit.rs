//! Ethos-U65 MAC unit, U65-256 shape (TRM L1033-1076, Tables 4-126..129; digest §0, §5.1). RTL:
//! `hdl/src/ethos/mac_unit.rs` (32 units as 16 `dot_pair.rs` pairs).
//!
//! Each cycle with `enable`, for each OFM position `p` of the 2x2 block and OFM channel `o` of
//! the group of 8, the accumulator `acc[8p + o]` (40 bits, wrapping) takes:
//! - conv (mode 0): `Σ_i act[p][i] · w[o][i]` over the 8 IFM channels;
//! - depthwise (1): `act[p][o] · w[o][o]` (no reduction over channels: 1/8 of the MACs, Table 4-129);
//! - max pooling (2): `max(acc, act[p][o])`.
//! `clear` makes this the first term (`=` instead of `+=`; a cleared max over a padded position
//! is the most negative value). Operands are 9-bit two's complement: int8 activations minus
//! their zero point (-255..255, TRM L5425-5462) and int8 weights. 16-bit activations take two
//! cycles (half rate, Table 4-126): the low byte as an unsigned 0..255 operand, then the high
//! byte (signed) with `act16_high`, whose products count 256 times. `pad[p]` marks a position
//! outside the IFM (zero padding): it adds nothing and is ignored by max. `acc_out` is
//! accumulator `read_index`.

pub const POSITIONS: usize = 4;
pub const CHANNELS: usize = 8;
pub const ACCUMULATORS: usize = POSITIONS * CHANNELS;
const ACC_BITS: u32 = 40;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Conv = 0,
    Depthwise = 1,
    MaxPool = 2,
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub enable: bool,
    pub clear: bool,
    pub mode: u8,
    pub act16_high: bool,
    pub pad: u8,
    pub act0: u128,
    pub act1: u128,
    pub act2: u128,
    pub act3: u128,
    pub w0: u128,
    pub w1: u128,
    pub w2: u128,
    pub w3: u128,
    pub w4: u128,
    pub w5: u128,
    pub w6: u128,
    pub w7: u128,
    pub read_index: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    /// The accumulator's 40 bits (two's complement).
    pub acc_out: u64,
}

/// 8 lanes of 9-bit two's complement packed as the ports carry them (lane `i` = bits 9i+8:9i).
pub fn pack(lanes: &[i16; CHANNELS]) -> u128 {
    lanes.iter().enumerate().fold(0, |w, (i, &v)| {
        assert!((-256..=255).contains(&v), "{v} is not a 9-bit operand");
        w | (u128::from(v as u16 & 0x1FF) << (9 * i))
    })
}

pub fn unpack(word: u128) -> [i16; CHANNELS] {
    std::array::from_fn(|i| ((((word >> (9 * i)) & 0x1FF) as i16) << 7) >> 7)
}

fn wrap(v: i64) -> i64 {
    (v << (64 - ACC_BITS)) >> (64 - ACC_BITS)
}

impl In {
    pub fn acts(&self) -> [[i16; CHANNELS]; POSITIONS] {
        [self.act0, self.act1, self.act2, self.act3].map(unpack)
    }

    pub fn weights(&self) -> [[i16; CHANNELS]; CHANNELS] {
        [self.w0, self.w1, self.w2, self.w3, self.w4, self.w5, self.w6, self.w7].map(unpack)
    }

    pub fn mode(&self) -> Option<Mode> {
        match self.mode {
            0 => Some(Mode::Conv),
            1 => Some(Mode::Depthwise),
            2 => Some(Mode::MaxPool),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct MacUnit {
    acc: [i64; ACCUMULATORS],
    event: &'static str,
}

impl MacUnit {
    pub fn accumulators(&self) -> [i64; ACCUMULATORS] {
        self.acc
    }

    /// The packed depthwise mapping's cycle (issue 19, `conv_datapath/depthwise_feed.rs`):
    /// every accumulator `k` in the conv mode with operands of its own, no padding (the RTL's
    /// `conv_mac.rs` second feed); `dot(k)` is unit `k`'s dot product of them. A sum, not
    /// the packed words: packing 64 words a cycle to unpack them here was most of the
    /// model's packed cycle (docs/ethos.md, "Verilated speed", twelfth step).
    pub fn accumulate_units(&mut self, clear: bool, dot: impl Fn(usize) -> i64) {
        for (k, acc) in self.acc.iter_mut().enumerate() {
            let term = dot(k);
            *acc = wrap(if clear { term } else { *acc + term });
        }
    }

    fn outputs(&self, i: &In) -> Out {
        Out { acc_out: self.acc[usize::from(i.read_index) % ACCUMULATORS] as u64 & ((1 << ACC_BITS) - 1) }
    }

    fn clock(&mut self, i: &In) -> &'static str {
        if i.reset {
            self.acc = [0; ACCUMULATORS];
            return "reset";
        }
        if !i.enable {
            return "hold";
        }
        let (acts, weights) = (i.acts(), i.weights());
        // Mode 3 is not defined; the RTL treats it as conv (its units compare with 1 and 2).
        let mode = i.mode().unwrap_or(Mode::Conv);
        for p in 0..POSITIONS {
            let padded = i.pad >> p & 1 == 1;
            for o in 0..CHANNELS {
                let acc = &mut self.acc[CHANNELS * p + o];
                if mode == Mode::MaxPool {
                    let a = i64::from(acts[p][o]);
                    *acc = match (i.clear, padded) {
                        (true, true) => -(1 << (ACC_BITS - 1)),
                        (true, false) => a,
                        (false, true) => *acc,
                        (false, false) => (*acc).max(a),
                    };
                    continue;
                }
                let sum: i64 = match mode {
                    Mode::Depthwise => i64::from(acts[p][o]) * i64::from(weights[o][o]),
                    _ => (0..CHANNELS).map(|c| i64::from(acts[p][c]) * i64::from(weights[o][c])).sum(),
                };
                let term = if padded { 0 } else if i.act16_high { sum << 8 } else { sum };
                *acc = wrap(if i.clear { term } else { *acc + term });
            }
        }
        match (mode, i.clear) {
            (Mode::MaxPool, _) => "max",
            (_, true) => "clear and accumulate",
            (Mode::Depthwise, false) => "depthwise accumulate",
            _ if i.act16_high => "accumulate 16-bit high byte",
            _ => "accumulate",
        }
    }
}

crate::sequential_block!(MacUnit, mealy);
