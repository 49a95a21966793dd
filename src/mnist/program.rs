//! Pin programs for the MNIST NPU chip, as a master system drives it (seeds/002 §9, §10,
//! §11). The cycle numbers are those of docs/mnist.md, "Frame timing".
use npu_model::mnist::chip::{ssfr_bits, Controls, In};
use rand::Rng;

/// Cycles from a frame's SSFR window to the first of its four PISO_OUT bytes on D_OUT (and
/// to its first FIFO write, and to a valid comparator index).
pub const FIRST_BYTE_AFTER_SSFR_WINDOW: usize = 3;
/// Cycles from the last frame's SSFR window until FSM_ACC is back in IDLE after the
/// finishing sequence (§9.2): LAST, WAIT until FSM_OUT's S5, IDLE.
pub const IDLE_AFTER_SSFR_WINDOW: usize = 7;
/// Smallest N for back-to-back frames: FSM_OUT needs six cycles from one EN_ReLU to the
/// next, and a frame lasts N + 2.
pub const MIN_CONTINUOUS_N: usize = 4;

/// SSFR value (Table 5) from its fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ssfr {
    pub sel_out: u8,
    pub bypass_relu1: bool,
    pub bypass_relu2: bool,
    pub en_comp: bool,
    pub rst_comp: bool,
    pub en_fifo: bool,
    pub rst_fifo: bool,
    /// SSFR[6:0]: stored by the chip and shown by PISO_DEB, driving nothing (§7).
    pub unused: u8,
}

impl Ssfr {
    /// The fields of a 16-bit SSFR value.
    pub fn from_value(v: u16) -> Self {
        use ssfr_bits::*;
        Self {
            sel_out: (v >> SEL_OUT_SHIFT) as u8 & 7,
            bypass_relu1: v & BYPASS_RELU1 != 0,
            bypass_relu2: v & BYPASS_RELU2 != 0,
            en_comp: v & EN_COMP != 0,
            rst_comp: v & RST_COMP != 0,
            en_fifo: v & EN_FIFO != 0,
            rst_fifo: v & RST_FIFO != 0,
            unused: v as u8 & UNUSED,
        }
    }

    /// After RST_GLO (Table 5).
    pub fn reset() -> Self {
        Self::from_value(npu_model::mnist::ssfr::RESET_VALUE)
    }

    pub fn value(self) -> u16 {
        use ssfr_bits::*;
        let flag = |on: bool, bit: u16| if on { bit } else { 0 };
        u16::from(self.sel_out & 7) << SEL_OUT_SHIFT
            | flag(self.bypass_relu1, BYPASS_RELU1)
            | flag(self.bypass_relu2, BYPASS_RELU2)
            | flag(self.en_comp, EN_COMP)
            | flag(self.rst_comp, RST_COMP)
            | flag(self.en_fifo, EN_FIFO)
            | flag(self.rst_fifo, RST_FIFO)
            | u16::from(self.unused & UNUSED)
    }
}

/// One inference frame (§9.1): two biases, N data pairs per MAC, the SSFR written at its end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub bias1: i8,
    pub bias2: i8,
    /// (DA, DB, DC, DD) of each MAC cycle: MAC1 multiplies DA·DB, MAC2 DC·DD.
    pub pairs: Vec<[i8; 4]>,
    pub ssfr: Ssfr,
}

/// Inputs for every CLKEXT cycle, built window by window.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub cycles: Vec<In>,
}

/// Pins at rest in auto mode: SEL_CON high, everything else low.
pub fn auto_idle() -> In {
    In { SEL_CON: true, ..In::default() }
}

impl Program {
    pub fn push(&mut self, pins: In) -> usize {
        self.cycles.push(pins);
        self.cycles.len() - 1
    }

    pub fn idle(&mut self, cycles: usize) {
        for _ in 0..cycles {
            self.push(auto_idle());
        }
    }

    pub fn reset(&mut self) {
        self.push(In { RST_GLO: true, ..auto_idle() });
    }

    /// One cycle with EN_CONFIG high, outside any frame.
    pub fn configure(&mut self, ssfr: Ssfr) {
        let [da, db] = ssfr.value().to_be_bytes();
        self.push(In { EN_CONFIG: true, DA: da, DB: db, ..auto_idle() });
    }

    /// Frames back to back in auto mode (§9.2), from FSM_ACC in IDLE: a cycle with EN_FSM
    /// high, then per frame the bias/counter window, N MAC cycles and the SSFR window (with
    /// EN_FSM high again if another frame follows), and after the last frame the finishing
    /// sequence, so FSM_ACC is in IDLE at the end. Returns the cycle of each SSFR window.
    ///
    /// Panics if a frame followed by another has fewer than [`MIN_CONTINUOUS_N`] pairs or
    /// if a frame has more than 65535: such a program breaks the datasheet's timing (with
    /// N < 4 it can lock the chip up: docs/mnist.md, "Back-to-back frames with N < 4").
    pub fn frames(&mut self, frames: &[Frame]) -> Vec<usize> {
        let followed = &frames[..frames.len().saturating_sub(1)];
        for (k, f) in followed.iter().enumerate() {
            assert!(f.pairs.len() >= MIN_CONTINUOUS_N, "frame {k}: back-to-back frames need N >= {MIN_CONTINUOUS_N}, not {}", f.pairs.len());
        }
        self.frames_ignoring_timing(frames)
    }

    /// [`Program::frames`] without the N >= [`MIN_CONTINUOUS_N`] rule: the pins a master
    /// that ignores §9.2's timing would drive, for the test that shows what the chip does
    /// then. Panics only if a frame has more than 65535 pairs (the counter's width).
    pub fn frames_ignoring_timing(&mut self, frames: &[Frame]) -> Vec<usize> {
        let mut windows = Vec::with_capacity(frames.len());
        self.push(In { EN_FSM: true, ..auto_idle() });
        for (k, frame) in frames.iter().enumerate() {
            let n = frame.pairs.len();
            assert!(n <= usize::from(u16::MAX), "frame {k}: {n} pairs do not fit the 16-bit downcounter");
            let [db, dd] = (n as u16).to_be_bytes();
            self.push(In { DA: frame.bias1 as u8, DB: db, DC: frame.bias2 as u8, DD: dd, ..auto_idle() });
            for &[da, db, dc, dd] in &frame.pairs {
                self.push(In { DA: da as u8, DB: db as u8, DC: dc as u8, DD: dd as u8, ..auto_idle() });
            }
            let [da, db] = frame.ssfr.value().to_be_bytes();
            let more = k + 1 < frames.len();
            windows.push(self.push(In { EN_CONFIG: true, EN_FSM: more, DA: da, DB: db, ..auto_idle() }));
        }
        self.idle(IDLE_AFTER_SSFR_WINDOW - 1);
        windows
    }

    /// One frame of MAC1 in manual mode (§10): the eight controls on DC[7:0] in the cycles
    /// FSM_ACC and FSM_OUT would give them, ending with the four PISO_OUT bytes (ReLU2, held,
    /// then ReLU1). Returns the cycle of the first byte on D_OUT.
    pub fn manual_frame(&mut self, bias: i8, pairs: &[[i8; 2]], ssfr: Ssfr) -> usize {
        let manual = |c: Controls| In { DC: c.to_byte(), ..In::default() };
        let none = Controls::default();
        self.push(manual(Controls { clr_buf_in: true, clr_piso_out: true, ..none }));
        self.push(In { DA: bias as u8, ..manual(Controls { clr_buf_in: true, en_mac: true, rst_mac: true, ..none }) });
        for &[a, b] in pairs {
            self.push(In { DA: a as u8, DB: b as u8, ..manual(Controls { en_buf_in: true, en_mac: true, ..none }) });
        }
        // The SSFR window: the MAC adds the last pair.
        let [da, db] = ssfr.value().to_be_bytes();
        self.push(In { EN_CONFIG: true, DA: da, DB: db, ..manual(Controls { en_buf_in: true, en_mac: true, ..none }) });
        // LAST: the ReLU captures the sum.
        self.push(manual(Controls { en_relu: true, ..none }));
        // S1 loads PISO_OUT, S2..S4 shift it: the bytes show in S2..S5.
        self.push(manual(Controls { en_piso_out: true, ..none }));
        let first = self.cycles.len();
        for _ in 0..3 {
            self.push(manual(Controls { shift_out: true, en_piso_out: true, ..none }));
        }
        self.push(manual(Controls { shift_out: true, ..none }));
        first
    }

    /// `count` FIFO reads, one a cycle; each byte shows on D_OUT (SEL_OUT 000) the cycle
    /// after its read. Returns the cycle of the first read.
    pub fn read_fifo(&mut self, count: usize) -> usize {
        let first = self.cycles.len();
        for _ in 0..count {
            self.push(In { RD_EN: true, ..auto_idle() });
        }
        first
    }

    /// The debugging sequence of §11, interrupting the program before a cycle whose pins are
    /// `held`: EN_PISO_DEB high for 14 cycles, with CLR_PISO_DEB in the first, SHIFT_DEB low
    /// and SEL_OUT switched to PISO_DEB (EN_CONFIG) in the second, and `ssfr` (the value
    /// before the dump) written back in the last. The core is frozen meanwhile, so it sees
    /// `held` (without EN_CONFIG and RST_GLO) and the caller re-issues `held` afterwards: the
    /// computation goes on where it stopped. The chain loads in the second cycle, before the
    /// SSFR changes, so it shows the program's own SSFR. Returns the cycle of the first of the
    /// twelve bytes on D_OUT.
    pub fn debug_dump(&mut self, held: &In, ssfr: Ssfr) -> usize {
        let frozen = In { EXT_EN_PISO_DEB: true, EXT_SHIFT_DEB: true, EN_CONFIG: false, RST_GLO: false, ..held.clone() };
        let config = |s: Ssfr| {
            let [da, db] = s.value().to_be_bytes();
            In { EN_CONFIG: true, DA: da, DB: db, ..frozen.clone() }
        };
        self.push(In { EXT_CLR_PISO_DEB: true, ..frozen.clone() });
        self.push(In { EXT_SHIFT_DEB: false, ..config(Ssfr { sel_out: npu_model::mnist::output_mux::sel_out::PISO_DEB, ..ssfr }) });
        let first = self.cycles.len();
        for _ in 0..11 {
            self.push(frozen.clone());
        }
        self.push(config(ssfr));
        first
    }
}

/// A random legal program of at least `min_cycles` cycles: runs of back-to-back frames
/// (sometimes a single short frame, sometimes N in the hundreds), manual-mode frames, SSFR
/// writes with every output option, FIFO reads, debug dumps in the middle of frames, and
/// resets between runs. "Legal": every window follows §9 and §11; the data, N, the SSFR
/// values and the read pattern are random.
pub fn random_legal(rng: &mut impl Rng, min_cycles: usize) -> Program {
    let mut p = Program::default();
    let mut ssfr = Ssfr::reset();
    let byte = |rng: &mut dyn rand::RngCore, small: bool| -> i8 { if small { rng.gen_range(-16..16) } else { rng.gen() } };
    let random_ssfr = |rng: &mut dyn rand::RngCore| Ssfr {
        sel_out: rng.gen_range(0..8),
        bypass_relu1: rng.gen_bool(0.5),
        bypass_relu2: rng.gen_bool(0.5),
        en_comp: rng.gen_bool(0.6),
        rst_comp: rng.gen_bool(0.1),
        en_fifo: rng.gen_bool(0.8),
        rst_fifo: rng.gen_bool(0.05),
        unused: rng.gen_range(0..0x80),
    };
    while p.cycles.len() < min_cycles {
        let start = p.cycles.len();
        let ssfr_at_start = ssfr;
        // One run in ten writes more than 128 bytes to the FIFO with no read in between.
        let fill_fifo = rng.gen_bool(0.1);
        let reads = !fill_fifo && rng.gen_bool(0.3);
        match rng.gen_range(0..20) {
            0..=11 => {
                let count = if fill_fifo {
                    rng.gen_range(33..40)
                } else if rng.gen_bool(0.2) {
                    1
                } else {
                    rng.gen_range(2..8)
                };
                let frames: Vec<Frame> = (0..count)
                    .map(|_| {
                        let n = match rng.gen_range(0..40) {
                            0 => rng.gen_range(200..400),
                            1..=4 if count == 1 => rng.gen_range(0..MIN_CONTINUOUS_N),
                            _ => rng.gen_range(MIN_CONTINUOUS_N..24),
                        };
                        let small = rng.gen_bool(0.5);
                        Frame {
                            bias1: byte(rng, small),
                            bias2: byte(rng, small),
                            pairs: (0..n).map(|_| [0; 4].map(|_| byte(rng, small))).collect(),
                            ssfr: if fill_fifo { Ssfr { en_fifo: true, rst_fifo: false, ..random_ssfr(rng) } } else { random_ssfr(rng) },
                        }
                    })
                    .collect();
                p.frames(&frames);
                ssfr = frames.last().expect("at least one frame").ssfr;
            }
            12..=13 => {
                let n = rng.gen_range(0..12);
                let small = rng.gen_bool(0.5);
                let pairs: Vec<[i8; 2]> = (0..n).map(|_| [byte(rng, small), byte(rng, small)]).collect();
                ssfr = random_ssfr(rng);
                p.manual_frame(byte(rng, small), &pairs, ssfr);
            }
            14..=15 => {
                ssfr = random_ssfr(rng);
                p.configure(ssfr);
            }
            16..=18 => p.idle(rng.gen_range(1..40)),
            _ => {
                p.reset();
                ssfr = Ssfr::reset();
            }
        }
        if reads {
            for pins in &mut p.cycles[start..] {
                pins.RD_EN = rng.gen_bool(0.5);
            }
        }
        if rng.gen_bool(0.15) && p.cycles.len() > start + 1 {
            // A debug dump before a random cycle of this segment (an SSFR window too), if no
            // reset or SSFR write comes earlier in the segment: then the SSFR to restore is the
            // one in force at the segment's start.
            let at = rng.gen_range(start + 1..p.cycles.len());
            if !p.cycles[start..at].iter().any(|c| c.RST_GLO || c.EN_CONFIG) {
                let tail = p.cycles.split_off(at);
                p.debug_dump(&tail[0], ssfr_at_start);
                p.cycles.extend(tail);
            }
        }
    }
    p
}
