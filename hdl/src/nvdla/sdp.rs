//! SDP in off-flying mode and its read DMA (SDP_RDMA): the engine walks the input cube atom by
//! atom (x fastest, then lines, then 8-channel surfaces, at the strides the registers give),
//! reads each atom through the memory port, widens its 8 lanes to 32 bits
//! ([`super::unpack::Unpack`]), passes them through the BS and BN stages
//! ([`super::sdp_x::SdpX`]) and the EW stage ([`super::sdp_y::SdpY`]), converts them
//! ([`super::convert::Convert`]) and writes the atom to the output cube. Model:
//! `npu_model::nvdla::sdp`.
//!
//! One atom is in flight at a time: read request, read data, then, when SDP_RDMA's BRDMA and
//! NRDMA are on, the BS and the BN operand words (1, 2 or 4 words of 8 bytes, per element or
//! per channel, laid out as [`super::sdp_operands::SdpOperands`] says) the same way, one
//! word at a time, then the write request; each a cycle at least, on the one memory port. The
//! atom's position and addresses are the walk's ([`super::sdp_walk::SdpWalk`]: running pointers,
//! no multiplier), the operand words are kept by [`super::sdp_operand_words::SdpOperandWords`];
//! this block holds the state machine, the memory port's requests and the datapath's wiring.
//! `done` is high in the cycle the last write is taken; `running` while not idle.
//!
//! Flying mode (docs/nvdla.md "Convolution engine"): a layer whose consumer group has
//! FLYING_MODE (`flying_mode` at its start) is sized by SDP's own cube (`fly_*`), reads
//! nothing: it waits for CACC's atom (`fly_ready`, state FlyWait), takes it in a cycle with
//! `atom_valid` (its 8 int32 lanes in place of the unpacked int8 ones, BS and BN operands 0),
//! processes it at that edge and writes it as an off-flying atom, then waits again. A refused
//! convolution layer (`refused`) ends a flying layer waiting for an atom (`done`, nothing
//! written). `flying` is high while a flying layer runs.
use super::convert::Convert;
use super::sdp_operand_words::SdpOperandWords;
use super::sdp_walk::SdpWalk;
use super::sdp_x::SdpX;
use super::sdp_y::SdpY;
use super::unpack::Unpack;
use crate::primitives::Concat;
use crate::primitives::Reg;
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

#[derive(LogicBlock)]
pub struct Sdp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub layer_ready: Signal<In, Bit>,
    pub width: Signal<In, Bits<13>>,
    pub height: Signal<In, Bits<13>>,
    /// CHANNEL / 8: the number of the last 8-channel surface.
    pub last_surface: Signal<In, Bits<10>>,
    pub src_base: Signal<In, Bits<64>>,
    pub src_line: Signal<In, Bits<64>>,
    pub src_surface: Signal<In, Bits<64>>,
    pub dst_base: Signal<In, Bits<64>>,
    pub dst_line: Signal<In, Bits<64>>,
    pub dst_surface: Signal<In, Bits<64>>,
    /// SDP_RDMA's BS and BN operand reads (BRDMA, NRDMA): D_xRDMA_CFG bits 4..0 (DISABLE,
    /// DATA_USE, DATA_SIZE, DATA_MODE), and their cubes.
    pub brdma_cfg: Signal<In, Bits<5>>,
    pub bs_base: Signal<In, Bits<64>>,
    pub bs_line: Signal<In, Bits<64>>,
    pub bs_surface: Signal<In, Bits<64>>,
    pub nrdma_cfg: Signal<In, Bits<5>>,
    pub bn_base: Signal<In, Bits<64>>,
    pub bn_line: Signal<In, Bits<64>>,
    pub bn_surface: Signal<In, Bits<64>>,
    pub cvt_offset: Signal<In, Bits<32>>,
    pub cvt_scale: Signal<In, Bits<16>>,
    pub cvt_shift: Signal<In, Bits<6>>,
    /// The BS and BN stages' fields (hdl/src/nvdla/sdp_x.rs).
    pub bs_cfg: Signal<In, Bits<7>>,
    pub bs_alu_src: Signal<In, Bit>,
    pub bs_alu_shift: Signal<In, Bits<6>>,
    pub bs_alu_operand: Signal<In, Bits<16>>,
    pub bs_mul_src: Signal<In, Bit>,
    pub bs_mul_shift: Signal<In, Bits<6>>,
    pub bs_mul_operand: Signal<In, Bits<16>>,
    pub bn_cfg: Signal<In, Bits<7>>,
    pub bn_alu_src: Signal<In, Bit>,
    pub bn_alu_shift: Signal<In, Bits<6>>,
    pub bn_alu_operand: Signal<In, Bits<16>>,
    pub bn_mul_src: Signal<In, Bit>,
    pub bn_mul_shift: Signal<In, Bits<6>>,
    pub bn_mul_operand: Signal<In, Bits<16>>,
    /// The EW stage's fields (hdl/src/nvdla/sdp_y.rs).
    pub ew_cfg: Signal<In, Bits<6>>,
    pub ew_alu_operand: Signal<In, Bits<32>>,
    pub ew_mul_operand: Signal<In, Bits<32>>,
    pub ew_truncate: Signal<In, Bits<10>>,
    /// The EW stage's lanes out to its LUT (`SdpLut`, beside the engine in the top, next to the
    /// CSB's LUT port), and the LUT's lanes back to the converter.
    pub ew_lanes: Signal<Out, Bits<256>>,
    pub lut_lanes: Signal<In, Bits<256>>,
    pub dbb_req_ready: Signal<In, Bit>,
    pub dbb_resp_valid: Signal<In, Bit>,
    pub dbb_resp_data: Signal<In, Bits<64>>,
    pub done: Signal<Out, Bit>,
    pub running: Signal<Out, Bit>,
    pub dbb_req_valid: Signal<Out, Bit>,
    pub dbb_req_write: Signal<Out, Bit>,
    pub dbb_req_addr: Signal<Out, Bits<64>>,
    pub dbb_req_wdata: Signal<Out, Bits<64>>,
    /// Flying mode: the consumer group's FLYING_MODE and SDP's own cube; CACC's atom (lanes
    /// 0..3 in `atom_lo`), the convolution engine's refusal; waiting for an atom, and running
    /// a flying layer.
    pub flying_mode: Signal<In, Bit>,
    pub fly_width: Signal<In, Bits<13>>,
    pub fly_height: Signal<In, Bits<13>>,
    pub fly_last_surface: Signal<In, Bits<10>>,
    pub atom_valid: Signal<In, Bit>,
    pub atom_lo: Signal<In, Bits<128>>,
    pub atom_hi: Signal<In, Bits<128>>,
    pub refused: Signal<In, Bit>,
    pub fly_ready: Signal<Out, Bit>,
    pub flying: Signal<Out, Bit>,
    unpack: Unpack,
    fly_atom: Concat<128, 128, 256>,
    /// The running layer is a flying one.
    fly: Reg<Bit>,
    /// The cube's last x, y and surface: SDP_RDMA's off the fly, SDP's on it.
    cube_width: Signal<Local, Bits<13>>,
    cube_height: Signal<Local, Bits<13>>,
    cube_last_surface: Signal<Local, Bits<10>>,
    bs: SdpX,
    bn: SdpX,
    /// The BS and BN operand reads' words and layouts.
    bs_words: SdpOperandWords,
    bn_words: SdpOperandWords,
    /// The atom's position and the addresses of its input, output and operand atoms.
    walk: SdpWalk,
    ew: SdpY,
    convert: Convert,
    state: Reg<Bits<4>>,
    /// The operand word being read (of the BS or BN read in progress).
    word: Reg<Bits<2>>,
    /// The input atom, kept while the later reads of the atom run.
    input_atom: Reg<Bits<64>>,
    bs_off: Signal<Local, Bit>,
    bn_off: Signal<Local, Bit>,
    addr: Reg<Bits<64>>,
    wdata: Reg<Bits<64>>,
    /// Where the atom goes when the current read's data comes: its next operand read or
    /// its write.
    after_read: Signal<Local, Bits<4>>,
    /// The BS or BN operand read in progress has words still to read after this one.
    more_words: Signal<Local, Bit>,
    s_idle: Constant<Bits<4>>,
    s_read_request: Constant<Bits<4>>,
    s_read_wait: Constant<Bits<4>>,
    s_write_request: Constant<Bits<4>>,
    s_bs_request: Constant<Bits<4>>,
    s_bs_wait: Constant<Bits<4>>,
    s_bn_request: Constant<Bits<4>>,
    s_bn_wait: Constant<Bits<4>>,
    s_fly_wait: Constant<Bits<4>>,
    zero128: Constant<Bits<128>>,
    word0: Constant<Bits<2>>,
    word1: Constant<Bits<2>>,
    atom_bytes: Constant<Bits<64>>,
}

impl Default for Sdp {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            layer_ready: Default::default(),
            width: Default::default(),
            height: Default::default(),
            last_surface: Default::default(),
            src_base: Default::default(),
            src_line: Default::default(),
            src_surface: Default::default(),
            dst_base: Default::default(),
            dst_line: Default::default(),
            dst_surface: Default::default(),
            brdma_cfg: Default::default(),
            bs_base: Default::default(),
            bs_line: Default::default(),
            bs_surface: Default::default(),
            nrdma_cfg: Default::default(),
            bn_base: Default::default(),
            bn_line: Default::default(),
            bn_surface: Default::default(),
            cvt_offset: Default::default(),
            cvt_scale: Default::default(),
            cvt_shift: Default::default(),
            bs_cfg: Default::default(),
            bs_alu_src: Default::default(),
            bs_alu_shift: Default::default(),
            bs_alu_operand: Default::default(),
            bs_mul_src: Default::default(),
            bs_mul_shift: Default::default(),
            bs_mul_operand: Default::default(),
            bn_cfg: Default::default(),
            bn_alu_src: Default::default(),
            bn_alu_shift: Default::default(),
            bn_alu_operand: Default::default(),
            bn_mul_src: Default::default(),
            bn_mul_shift: Default::default(),
            bn_mul_operand: Default::default(),
            ew_cfg: Default::default(),
            ew_alu_operand: Default::default(),
            ew_mul_operand: Default::default(),
            ew_truncate: Default::default(),
            ew_lanes: Default::default(),
            lut_lanes: Default::default(),
            dbb_req_ready: Default::default(),
            dbb_resp_valid: Default::default(),
            dbb_resp_data: Default::default(),
            done: Default::default(),
            running: Default::default(),
            dbb_req_valid: Default::default(),
            dbb_req_write: Default::default(),
            dbb_req_addr: Default::default(),
            dbb_req_wdata: Default::default(),
            flying_mode: Default::default(),
            fly_width: Default::default(),
            fly_height: Default::default(),
            fly_last_surface: Default::default(),
            atom_valid: Default::default(),
            atom_lo: Default::default(),
            atom_hi: Default::default(),
            refused: Default::default(),
            fly_ready: Default::default(),
            flying: Default::default(),
            unpack: Default::default(),
            fly_atom: Default::default(),
            fly: Default::default(),
            cube_width: Default::default(),
            cube_height: Default::default(),
            cube_last_surface: Default::default(),
            bs: Default::default(),
            bn: Default::default(),
            bs_words: Default::default(),
            bn_words: Default::default(),
            walk: Default::default(),
            ew: Default::default(),
            convert: Default::default(),
            state: Default::default(),
            word: Default::default(),
            input_atom: Default::default(),
            bs_off: Default::default(),
            bn_off: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            after_read: Default::default(),
            more_words: Default::default(),
            s_idle: k(0),
            s_read_request: k(1),
            s_read_wait: k(2),
            s_write_request: k(3),
            s_bs_request: k(4),
            s_bs_wait: k(5),
            s_bn_request: k(6),
            s_bn_wait: k(7),
            s_fly_wait: k(8),
            zero128: k(0),
            word0: k(0),
            word1: k(1),
            atom_bytes: k(8),
        }
    }
}

impl Logic for Sdp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fly, state, word, input_atom, addr, wdata);
        self.state.reset.next = self.reset.val();
        self.fly.reset.next = self.reset.val();
        self.word.reset.next = self.reset.val();
        self.input_atom.reset.next = self.reset.val();
        self.addr.reset.next = self.reset.val();
        self.wdata.reset.next = self.reset.val();
        // The atom is processed in the cycle its last read's data comes: the input atom and
        // the operand words from the memory then, or from where they were kept.
        self.unpack.atom.next = self.input_atom.q.val();
        if self.state.q.val() == self.s_read_wait.val() {
            self.unpack.atom.next = self.dbb_resp_data.val();
        }
        self.bs_off.next = self.brdma_cfg.val().get_bit(0);
        self.bn_off.next = self.nrdma_cfg.val().get_bit(0);
        // The operand reads: the word arriving while their wait state is on, kept when valid.
        self.bs_words.clock.next = self.clock.val();
        self.bs_words.reset.next = self.reset.val();
        self.bs_words.cfg.next = self.brdma_cfg.val();
        self.bs_words.line.next = self.bs_line.val();
        self.bs_words.surface.next = self.bs_surface.val();
        self.bs_words.incoming.next = self.dbb_resp_data.val();
        self.bs_words.live.next = self.state.q.val() == self.s_bs_wait.val();
        self.bs_words.store.next = (self.state.q.val() == self.s_bs_wait.val()) & self.dbb_resp_valid.val();
        self.bs_words.at.next = self.word.q.val();
        self.bn_words.clock.next = self.clock.val();
        self.bn_words.reset.next = self.reset.val();
        self.bn_words.cfg.next = self.nrdma_cfg.val();
        self.bn_words.line.next = self.bn_line.val();
        self.bn_words.surface.next = self.bn_surface.val();
        self.bn_words.incoming.next = self.dbb_resp_data.val();
        self.bn_words.live.next = self.state.q.val() == self.s_bn_wait.val();
        self.bn_words.store.next = (self.state.q.val() == self.s_bn_wait.val()) & self.dbb_resp_valid.val();
        self.bn_words.at.next = self.word.q.val();
        self.bs.alu_operands.next = self.bs_words.alu.val();
        self.bs.mul_operands.next = self.bs_words.mul.val();
        self.bn.alu_operands.next = self.bn_words.alu.val();
        self.bn.mul_operands.next = self.bn_words.mul.val();
        self.bs.data_in.next = self.unpack.lanes.val();
        // On the fly: CACC's int32 lanes, no operand reads (operands 0).
        self.fly_atom.high.next = self.atom_hi.val();
        self.fly_atom.low.next = self.atom_lo.val();
        if self.state.q.val() == self.s_fly_wait.val() {
            self.bs.data_in.next = self.fly_atom.joined.val();
            self.bs.alu_operands.next = self.zero128.val();
            self.bs.mul_operands.next = self.zero128.val();
            self.bn.alu_operands.next = self.zero128.val();
            self.bn.mul_operands.next = self.zero128.val();
        }
        self.fly_ready.next = self.state.q.val() == self.s_fly_wait.val();
        self.flying.next = self.fly.q.val() & (self.state.q.val() != self.s_idle.val());
        self.cube_width.next = self.width.val();
        self.cube_height.next = self.height.val();
        self.cube_last_surface.next = self.last_surface.val();
        if self.fly.q.val() {
            self.cube_width.next = self.fly_width.val();
            self.cube_height.next = self.fly_height.val();
            self.cube_last_surface.next = self.fly_last_surface.val();
        }
        self.bn.data_in.next = self.bs.data_out.val();
        self.ew.data_in.next = self.bn.data_out.val();
        self.ew_lanes.next = self.ew.data_out.val();
        self.convert.lanes.next = self.lut_lanes.val();
        self.ew.cfg.next = self.ew_cfg.val();
        self.ew.alu_operand.next = self.ew_alu_operand.val();
        self.ew.mul_operand.next = self.ew_mul_operand.val();
        self.ew.truncate.next = self.ew_truncate.val();
        self.bs.cfg.next = self.bs_cfg.val();
        self.bs.alu_src.next = self.bs_alu_src.val();
        self.bs.alu_shift.next = self.bs_alu_shift.val();
        self.bs.alu_operand.next = self.bs_alu_operand.val();
        self.bs.mul_src.next = self.bs_mul_src.val();
        self.bs.mul_shift.next = self.bs_mul_shift.val();
        self.bs.mul_operand.next = self.bs_mul_operand.val();
        self.bn.cfg.next = self.bn_cfg.val();
        self.bn.alu_src.next = self.bn_alu_src.val();
        self.bn.alu_shift.next = self.bn_alu_shift.val();
        self.bn.alu_operand.next = self.bn_alu_operand.val();
        self.bn.mul_src.next = self.bn_mul_src.val();
        self.bn.mul_shift.next = self.bn_mul_shift.val();
        self.bn.mul_operand.next = self.bn_mul_operand.val();
        self.convert.offset.next = self.cvt_offset.val();
        self.convert.scale.next = self.cvt_scale.val();
        self.convert.shift.next = self.cvt_shift.val();
        self.dbb_req_addr.next = self.addr.q.val();
        self.dbb_req_wdata.next = self.wdata.q.val();
        self.dbb_req_valid.next = (self.state.q.val() == self.s_read_request.val())
            | (self.state.q.val() == self.s_write_request.val())
            | (self.state.q.val() == self.s_bs_request.val())
            | (self.state.q.val() == self.s_bn_request.val());
        self.dbb_req_write.next = self.state.q.val() == self.s_write_request.val();
        self.running.next = self.state.q.val() != self.s_idle.val();
        // The walk: a layer starts, or the atom's write is taken.
        self.walk.clock.next = self.clock.val();
        self.walk.reset.next = self.reset.val();
        self.walk.start.next = (self.state.q.val() == self.s_idle.val()) & self.layer_ready.val();
        self.walk.step.next = (self.state.q.val() == self.s_write_request.val()) & self.dbb_req_ready.val();
        self.walk.fly.next = self.fly.q.val();
        self.walk.last_x.next = self.cube_width.val();
        self.walk.last_y.next = self.cube_height.val();
        self.walk.last_surface.next = self.cube_last_surface.val();
        self.walk.src_base.next = self.src_base.val();
        self.walk.src_line.next = self.src_line.val();
        self.walk.src_surface.next = self.src_surface.val();
        self.walk.dst_base.next = self.dst_base.val();
        self.walk.dst_line.next = self.dst_line.val();
        self.walk.dst_surface.next = self.dst_surface.val();
        self.walk.bs_base.next = self.bs_base.val();
        self.walk.bs_x_step.next = self.bs_words.x_step.val();
        self.walk.bs_line_step.next = self.bs_words.line_step.val();
        self.walk.bs_surface_step.next = self.bs_words.surface_step.val();
        self.walk.bn_base.next = self.bn_base.val();
        self.walk.bn_x_step.next = self.bn_words.x_step.val();
        self.walk.bn_line_step.next = self.bn_words.line_step.val();
        self.walk.bn_surface_step.next = self.bn_words.surface_step.val();
        self.more_words.next = ((self.state.q.val() == self.s_bs_wait.val()) & (self.word.q.val() != self.bs_words.last_word.val()))
            | ((self.state.q.val() == self.s_bn_wait.val()) & (self.word.q.val() != self.bn_words.last_word.val()));
        self.after_read.next = self.s_write_request.val();
        if !self.bn_off.val() & (self.state.q.val() != self.s_bn_wait.val()) {
            self.after_read.next = self.s_bn_request.val();
        }
        if !self.bs_off.val() & (self.state.q.val() == self.s_read_wait.val()) {
            self.after_read.next = self.s_bs_request.val();
        }
        self.done.next = false;
        if self.state.q.val() == self.s_idle.val() {
            if self.layer_ready.val() {
                self.addr.d.next = self.src_base.val();
                self.fly.d.next = self.flying_mode.val();
                self.state.d.next = self.s_read_request.val();
                if self.flying_mode.val() {
                    self.state.d.next = self.s_fly_wait.val();
                }
            }
        } else if self.state.q.val() == self.s_fly_wait.val() {
            // CACC's atom processed at this edge into the write of the current position.
            if self.atom_valid.val() {
                self.addr.d.next = self.walk.dst.val();
                self.wdata.d.next = self.convert.converted.val();
                self.state.d.next = self.s_write_request.val();
            } else if self.refused.val() {
                self.done.next = true;
                self.state.d.next = self.s_idle.val();
            }
        } else if self.state.q.val() == self.s_read_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_read_wait.val();
            }
        } else if self.state.q.val() == self.s_bs_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_bs_wait.val();
            }
        } else if self.state.q.val() == self.s_bn_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_bn_wait.val();
            }
        } else if self.state.q.val() != self.s_write_request.val() {
            // A read's data (input atom, BS or BN operand word): keep it, then the next word
            // of the operand read, the next read of the atom, or its write.
            if self.dbb_resp_valid.val() {
                if self.state.q.val() == self.s_read_wait.val() {
                    self.input_atom.d.next = self.dbb_resp_data.val();
                }
                self.word.d.next = self.word0.val();
                self.state.d.next = self.after_read.val();
                self.addr.d.next = self.walk.dst.val();
                if (self.after_read.val() == self.s_write_request.val()) & !self.more_words.val() {
                    self.wdata.d.next = self.convert.converted.val();
                }
                if self.after_read.val() == self.s_bn_request.val() {
                    self.addr.d.next = self.walk.bn.val();
                }
                if self.after_read.val() == self.s_bs_request.val() {
                    self.addr.d.next = self.walk.bs.val();
                }
                // More words of the same operand read: the next word, 8 bytes on.
                if self.more_words.val() {
                    self.word.d.next = self.word.q.val() + self.word1.val();
                    self.addr.d.next = self.addr.q.val() + self.atom_bytes.val();
                    self.state.d.next = self.s_bs_request.val();
                    if self.state.q.val() == self.s_bn_wait.val() {
                        self.state.d.next = self.s_bn_request.val();
                    }
                }
            }
        } else if self.dbb_req_ready.val() {
            // The atom's write is taken (the walk steps): the layer's end, CACC's next atom,
            // or the next atom's read.
            if self.walk.last.val() {
                self.done.next = true;
                self.state.d.next = self.s_idle.val();
            } else if self.fly.q.val() {
                self.state.d.next = self.s_fly_wait.val();
            } else {
                self.addr.d.next = self.walk.next_src.val();
                self.state.d.next = self.s_read_request.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Sdp::default, "nvdla_sdp");
}
