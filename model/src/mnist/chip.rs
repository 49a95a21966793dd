//! The whole MNIST NPU (seeds/002 §3, Figures 1, 3, 4) at its pins. RTL: `hdl/src/mnist/chip.rs`.
//!
//! Composed of the block models exactly as the RTL composes the blocks: each cycle every
//! block's outputs are read from its state, the nets between them are computed, and every
//! block takes the clock edge. The wiring decisions are written once, here and in the RTL,
//! and in docs/mnist.md:
//! - SEL_CON high: the eight core controls come from FSM_ACC/FSM_OUT; low: from DC[7:0]
//!   (Table 8), MAC2 and ReLU2 are disabled (their enables are forced low, so they hold),
//!   WR_EN is forced low and the comparator counts ReLU1 only.
//! - EXT_EN_PISO_DEB high freezes the input buffer, MACs, ReLUs, PISO_OUT, comparator, FIFO,
//!   downcounter and FSMs (every enable, clear and state change is blocked; RST_GLO still
//!   resets); SSFR and PISO_DEB keep working (§11).
//! - The MAC biases are the DA and DC pins (the input buffer is cleared in BIAS).
//! - PISO_DEB samples the SSFR, CON_SIG (the controls the core sees), the MACs and the input
//!   buffer's four registers (DD..DA as the core holds them).
#![allow(non_snake_case)]
use super::{comparator, downcounter, fifo, fsm_acc, fsm_out, input_buffer, mac, output_mux, piso_deb, piso_out, relu, ssfr};
use crate::Block;

/// The input pins (Table 1), CLKEXT aside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub DA: u8,
    pub DB: u8,
    pub DC: u8,
    pub DD: u8,
    pub EXT_EN_PISO_DEB: bool,
    pub EXT_CLR_PISO_DEB: bool,
    pub EXT_SHIFT_DEB: bool,
    pub RST_GLO: bool,
    pub EN_CONFIG: bool,
    pub RD_EN: bool,
    pub EN_FSM: bool,
    pub SEL_CON: bool,
}

/// The output pins (Table 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub D_OUT: u8,
    pub FULL: bool,
    pub EMPTY: bool,
}

/// The eight core controls of §10 in CON_SIG[15:8] / DC[7:0] order, bit 7 first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Controls {
    pub en_buf_in: bool,
    pub clr_buf_in: bool,
    pub en_mac: bool,
    pub rst_mac: bool,
    pub en_relu: bool,
    pub shift_out: bool,
    pub en_piso_out: bool,
    pub clr_piso_out: bool,
}

impl Controls {
    pub fn from_byte(b: u8) -> Self {
        let bit = |k: u8| b >> k & 1 == 1;
        Self {
            en_buf_in: bit(7),
            clr_buf_in: bit(6),
            en_mac: bit(5),
            rst_mac: bit(4),
            en_relu: bit(3),
            shift_out: bit(2),
            en_piso_out: bit(1),
            clr_piso_out: bit(0),
        }
    }

    pub fn to_byte(self) -> u8 {
        [self.en_buf_in, self.clr_buf_in, self.en_mac, self.rst_mac, self.en_relu, self.shift_out, self.en_piso_out, self.clr_piso_out]
            .iter()
            .fold(0, |b, &x| b << 1 | u8::from(x))
    }
}

/// SSFR fields (Table 5).
pub mod ssfr_bits {
    pub const SEL_OUT_SHIFT: u32 = 13;
    pub const BYPASS_RELU1: u16 = 1 << 12;
    pub const BYPASS_RELU2: u16 = 1 << 11;
    pub const EN_COMP: u16 = 1 << 10;
    pub const RST_COMP: u16 = 1 << 9;
    pub const EN_FIFO: u16 = 1 << 8;
    pub const RST_FIFO: u16 = 1 << 7;
    /// SSFR[6:0]: "unused, default as 0" (§7), stored, driving nothing.
    pub const UNUSED: u8 = 0x7F;
}

#[derive(Default)]
pub struct Chip {
    ssfr: ssfr::Ssfr,
    counter: downcounter::Downcounter,
    fsm_acc: fsm_acc::FsmAcc,
    fsm_out: fsm_out::FsmOut,
    input_buffer: input_buffer::InputBuffer,
    mac1: mac::Mac,
    mac2: mac::Mac,
    relu1: relu::Relu,
    relu2: relu::Relu,
    piso_out: piso_out::PisoOut,
    fifo: fifo::Fifo,
    comparator: comparator::Comparator,
    piso_deb: piso_deb::PisoDeb,
    output_mux: output_mux::OutputMux,
    events: Vec<&'static str>,
}

impl Chip {
    /// FSM_ACC's state, for tests that look for a lock-up (docs/mnist.md).
    pub fn fsm_acc_state(&self) -> fsm_acc::State {
        self.fsm_acc.state()
    }
}

impl Block for Chip {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { RST_GLO: true, ..In::default() })
    }

    fn step(&mut self, p: &In) -> Out {
        use ssfr_bits::*;
        let reset = p.RST_GLO;
        let freeze = p.EXT_EN_PISO_DEB;
        let run = !freeze;
        let auto = p.SEL_CON;

        let busy = self.fsm_acc.state() != fsm_acc::State::Idle;

        // Outputs of every block, from state.
        let ssfr = self.ssfr.outputs().value;
        let ctr_out = self.counter.outputs().ctr_out;
        let fa = self.fsm_acc.outputs();
        let fo = self.fsm_out.outputs();
        let buf = self.input_buffer.outputs();
        let mac1 = self.mac1.outputs().acc;
        let mac2 = self.mac2.outputs().acc;
        let relu1 = self.relu1.outputs().y;
        let relu2 = self.relu2.outputs().y;
        let piso_out = self.piso_out.outputs().d_out;
        let fifo = self.fifo.outputs();
        let comparator = self.comparator.outputs();
        let piso_deb = self.piso_deb.outputs().d_out;

        // Nets.
        let fsm_controls = Controls {
            en_buf_in: fa.en_buf_in,
            clr_buf_in: fa.clr_buf_in,
            en_mac: fa.en_mac,
            rst_mac: fa.rst_mac,
            en_relu: fa.en_relu,
            shift_out: fo.shift_out,
            en_piso_out: fo.en_piso_out,
            clr_piso_out: fa.clr_piso_out,
        };
        let c = if auto { fsm_controls } else { Controls::from_byte(p.DC) };
        let wr_en = fo.wr_en && auto;
        let con_sig = u16::from(c.to_byte()) << 8 | u16::from(wr_en) << 7 | u16::from(ctr_out) << 6 | u16::from(fo.out_done) << 5;
        let samples = u128::from(ssfr) << 80
            | u128::from(con_sig) << 64
            | u128::from(mac2 as u16) << 48
            | u128::from(mac1 as u16) << 32
            | u128::from(u32::from_be_bytes([buf.buf_d, buf.buf_c, buf.buf_b, buf.buf_a]));
        let sel_out = (ssfr >> SEL_OUT_SHIFT) as u8;
        let mux_in = output_mux::In { sel_out, fifo: fifo.rd_data, piso_out, index: comparator.index, largest: comparator.largest, piso_deb };
        let out = Out { D_OUT: output_mux::select(&mux_in), FULL: fifo.full, EMPTY: fifo.empty };

        // The clock edge.
        self.ssfr.step(&ssfr::In { reset, en_config: p.EN_CONFIG, da: p.DA, db: p.DB });
        self.counter.step(&downcounter::In {
            reset,
            freeze,
            load: fa.load_ctr,
            count_down: fa.count_down,
            start: u16::from_be_bytes([p.DB, p.DD]),
        });
        self.fsm_acc.step(&fsm_acc::In { reset, freeze, en_fsm: p.EN_FSM, ctr_out, out_done: fo.out_done });
        self.fsm_out.step(&fsm_out::In { reset, freeze, en_relu: fa.en_relu });
        self.input_buffer.step(&input_buffer::In {
            reset,
            en_buf_in: c.en_buf_in && run,
            clr_buf_in: c.clr_buf_in && run,
            da: p.DA,
            db: p.DB,
            dc: p.DC,
            dd: p.DD,
        });
        let en_mac = c.en_mac && run;
        self.mac1.step(&mac::In { reset, data_a: buf.buf_a as i8, data_b: buf.buf_b as i8, bias: p.DA as i8, en_mac, rst_mac: c.rst_mac });
        self.mac2.step(&mac::In { reset, data_a: buf.buf_c as i8, data_b: buf.buf_d as i8, bias: p.DC as i8, en_mac: en_mac && auto, rst_mac: c.rst_mac });
        let en_relu = c.en_relu && run;
        self.relu1.step(&relu::In { reset, en_relu, bypass: ssfr & BYPASS_RELU1 != 0, x: mac1 });
        self.relu2.step(&relu::In { reset, en_relu: en_relu && auto, bypass: ssfr & BYPASS_RELU2 != 0, x: mac2 });
        self.piso_out.step(&piso_out::In {
            reset,
            en_piso_out: c.en_piso_out && run,
            clr_piso_out: c.clr_piso_out && run,
            shift_out: c.shift_out,
            out1: relu1,
            out2: relu2,
        });
        self.fifo.step(&fifo::In {
            reset,
            en_fifo: ssfr & EN_FIFO != 0 && run,
            rst_fifo: ssfr & RST_FIFO != 0 && run,
            wr_en,
            rd_en: p.RD_EN,
            wr_data: piso_out,
        });
        self.comparator.step(&comparator::In {
            reset,
            freeze,
            trig: c.en_relu,
            en_comp: ssfr & EN_COMP != 0,
            rst_comp: ssfr & RST_COMP != 0,
            single: !auto,
            relu1,
            relu2,
        });
        self.piso_deb.step(&piso_deb::In {
            reset,
            en_piso_deb: p.EXT_EN_PISO_DEB,
            clr_piso_deb: p.EXT_CLR_PISO_DEB,
            shift_deb: p.EXT_SHIFT_DEB,
            samples,
        });
        self.output_mux.step(&mux_in);

        self.events.clear();
        self.events.push(if auto { "auto mode" } else { "manual mode" });
        if reset && busy {
            self.events.push("RST_GLO mid-frame");
        }
        if freeze && busy {
            self.events.push("freeze mid-frame");
        }
        for block in [
            self.fsm_acc.events(),
            self.fsm_out.events(),
            self.fifo.events(),
            self.comparator.events(),
            self.mac1.events(),
            self.mac2.events(),
            self.relu1.events(),
            self.output_mux.events(),
        ] {
            self.events.extend_from_slice(block);
        }
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}
