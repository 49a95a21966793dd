//! One of SDP_RDMA's operand reads, BS (BRDMA) or BN (NRDMA) (seeds/001 "Single Data Point
//! Processor": per-channel or per-element operands from memory): the up to 4 words of the
//! current atom's operands, kept while the atom's later reads run, and their layout
//! ([`super::sdp_operands::SdpOperands`]: how many words, the walk's steps, each lane's ALU
//! and multiplier operand). The sub-block of [`super::sdp::Sdp`] for each read. Model:
//! `npu_model::nvdla::sdp` and `npu_model::nvdla::sdp_operands` (the split is the RTL's
//! alone).
//!
//! Timing: while `live` (the engine waits for this read's word `at`), `incoming` is the
//! memory's data; with `store` (the data is valid) the word is kept at the end of the cycle.
//! The operands are combinational: the word arriving now counts in the cycle it comes.
use super::sdp_operands::SdpOperands;
use crate::primitives::Reg;
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

#[derive(LogicBlock)]
pub struct SdpOperandWords {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// D_BRDMA_CFG or D_NRDMA_CFG bits 4..0, D_xx_LINE_STRIDE, D_xx_SURFACE_STRIDE.
    pub cfg: Signal<In, Bits<5>>,
    pub line: Signal<In, Bits<64>>,
    pub surface: Signal<In, Bits<64>>,
    pub incoming: Signal<In, Bits<64>>,
    pub live: Signal<In, Bit>,
    pub store: Signal<In, Bit>,
    pub at: Signal<In, Bits<2>>,
    /// As [`SdpOperands`]'.
    pub last_word: Signal<Out, Bits<2>>,
    pub x_step: Signal<Out, Bits<64>>,
    pub line_step: Signal<Out, Bits<64>>,
    pub surface_step: Signal<Out, Bits<64>>,
    pub alu: Signal<Out, Bits<128>>,
    pub mul: Signal<Out, Bits<128>>,
    layout: SdpOperands,
    w0: Reg<Bits<64>>,
    w1: Reg<Bits<64>>,
    w2: Reg<Bits<64>>,
    w3: Reg<Bits<64>>,
    word0: Constant<Bits<2>>,
    word1: Constant<Bits<2>>,
    word2: Constant<Bits<2>>,
    word3: Constant<Bits<2>>,
}

impl Default for SdpOperandWords {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            line: Default::default(),
            surface: Default::default(),
            incoming: Default::default(),
            live: Default::default(),
            store: Default::default(),
            at: Default::default(),
            last_word: Default::default(),
            x_step: Default::default(),
            line_step: Default::default(),
            surface_step: Default::default(),
            alu: Default::default(),
            mul: Default::default(),
            layout: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            word0: k(0),
            word1: k(1),
            word2: k(2),
            word3: k(3),
        }
    }
}

impl Logic for SdpOperandWords {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, w0, w1, w2, w3);
        self.w0.reset.next = self.reset.val();
        self.w1.reset.next = self.reset.val();
        self.w2.reset.next = self.reset.val();
        self.w3.reset.next = self.reset.val();
        self.layout.cfg.next = self.cfg.val();
        self.layout.line.next = self.line.val();
        self.layout.surface.next = self.surface.val();
        self.layout.w0.next = self.w0.q.val();
        self.layout.w1.next = self.w1.q.val();
        self.layout.w2.next = self.w2.q.val();
        self.layout.w3.next = self.w3.q.val();
        self.layout.incoming.next = self.incoming.val();
        self.layout.live.next = self.live.val();
        self.layout.at.next = self.at.val();
        self.last_word.next = self.layout.last_word.val();
        self.x_step.next = self.layout.x_step.val();
        self.line_step.next = self.layout.line_step.val();
        self.surface_step.next = self.layout.surface_step.val();
        self.alu.next = self.layout.alu.val();
        self.mul.next = self.layout.mul.val();
        if self.store.val() {
            if self.at.val() == self.word0.val() {
                self.w0.d.next = self.incoming.val();
            }
            if self.at.val() == self.word1.val() {
                self.w1.d.next = self.incoming.val();
            }
            if self.at.val() == self.word2.val() {
                self.w2.d.next = self.incoming.val();
            }
            if self.at.val() == self.word3.val() {
                self.w3.d.next = self.incoming.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SdpOperandWords::default, "nvdla_sdp_operand_words");
}
