//! CDP in off-flying mode with its read DMA (seeds/001 "Channel Data Processor"; CDP_RDMA and
//! CDP registers): for each (x, y) of the input cube (x fastest, then lines) the engine reads
//! the atoms of its surfaces in order, one a step, into three atom registers (`lower`, `centre`,
//! `upper`, as NVIDIA's C model keeps three atom buffers), and after each shift hands the
//! window of `centre`'s surface ([`CdpWindow`]) to the datapath (`CdpDp`, beside this block in
//! the top), then writes the datapath's atom at the output cube's (x, y, surface) (CDP's DST
//! registers). A surface past the cube shifts in padding without a read, so every input atom
//! is read once. The positions and addresses come from two [`CubeWalk`]s (the read walk with
//! the padding surface as one more innermost position, the write walk). Model:
//! `npu_model::nvdla::cdp`; docs/nvdla.md "CDP" and "Cube walk".
//!
//! One output atom takes at least 7 cycles (step, read request, read data, window to the
//! datapath, its 2 cycles, write), and each (x, y) one more read and step before its first
//! window. `done` is high in the cycle the last write is taken; `running` while not idle.
use super::cdp_window::CdpWindow;
use super::cube_walk::CubeWalk;
use crate::primitives::Reg;
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

#[derive(LogicBlock)]
pub struct Cdp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub layer_ready: Signal<In, Bit>,
    pub width: Signal<In, Bits<13>>,
    pub height: Signal<In, Bits<13>>,
    /// CDP_RDMA's CHANNEL (channels minus 1).
    pub channel: Signal<In, Bits<13>>,
    pub src_base: Signal<In, Bits<64>>,
    pub src_line: Signal<In, Bits<64>>,
    pub src_surface: Signal<In, Bits<64>>,
    pub dst_base: Signal<In, Bits<64>>,
    pub dst_line: Signal<In, Bits<64>>,
    pub dst_surface: Signal<In, Bits<64>>,
    pub datin_offset: Signal<In, Bits<16>>,
    pub dbb_req_ready: Signal<In, Bit>,
    pub dbb_resp_valid: Signal<In, Bit>,
    pub dbb_resp_data: Signal<In, Bits<64>>,
    /// The datapath's result, a fixed latency after `dp_valid`.
    pub dp_out_valid: Signal<In, Bit>,
    pub dp_out_atom: Signal<In, Bits<64>>,
    pub done: Signal<Out, Bit>,
    pub running: Signal<Out, Bit>,
    pub dbb_req_valid: Signal<Out, Bit>,
    pub dbb_req_write: Signal<Out, Bit>,
    pub dbb_req_addr: Signal<Out, Bits<64>>,
    pub dbb_req_wdata: Signal<Out, Bits<64>>,
    /// A window for the datapath (`in_valid`, `in_window`).
    pub dp_valid: Signal<Out, Bit>,
    pub dp_window: Signal<Out, Bits<128>>,
    gather: CdpWindow,
    /// The input cube's walk, surfaces of an (x, y) first, with one more surface position
    /// past the cube (its padding, not read): the surface shifted in next at its (x, y).
    read_walk: CubeWalk,
    /// The output cube's walk in the same order, without the padding position.
    write_walk: CubeWalk,
    /// The walks' outputs this engine does not need.
    unused_walk: Signal<Local, Bit>,
    state: Reg<Bits<3>>,
    lower: Reg<Bits<64>>,
    centre: Reg<Bits<64>>,
    upper: Reg<Bits<64>>,
    addr: Reg<Bits<64>>,
    wdata: Reg<Bits<64>>,
    /// The read walk's surface is in the cube (else it is the padding past it).
    in_cube: Signal<Local, Bit>,
    s_idle: Constant<Bits<3>>,
    s_step: Constant<Bits<3>>,
    s_read_request: Constant<Bits<3>>,
    s_read_wait: Constant<Bits<3>>,
    s_window: Constant<Bits<3>>,
    s_datapath: Constant<Bits<3>>,
    s_write_request: Constant<Bits<3>>,
    zero13: Constant<Bits<13>>,
    one13: Constant<Bits<13>>,
    atom_bytes: Constant<Bits<64>>,
}

impl Default for Cdp {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            layer_ready: Default::default(),
            width: Default::default(),
            height: Default::default(),
            channel: Default::default(),
            src_base: Default::default(),
            src_line: Default::default(),
            src_surface: Default::default(),
            dst_base: Default::default(),
            dst_line: Default::default(),
            dst_surface: Default::default(),
            datin_offset: Default::default(),
            dbb_req_ready: Default::default(),
            dbb_resp_valid: Default::default(),
            dbb_resp_data: Default::default(),
            dp_out_valid: Default::default(),
            dp_out_atom: Default::default(),
            done: Default::default(),
            running: Default::default(),
            dbb_req_valid: Default::default(),
            dbb_req_write: Default::default(),
            dbb_req_addr: Default::default(),
            dbb_req_wdata: Default::default(),
            dp_valid: Default::default(),
            dp_window: Default::default(),
            gather: Default::default(),
            read_walk: Default::default(),
            write_walk: Default::default(),
            unused_walk: Default::default(),
            state: Default::default(),
            lower: Default::default(),
            centre: Default::default(),
            upper: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            in_cube: Default::default(),
            s_idle: k(0),
            s_step: k(1),
            s_read_request: k(2),
            s_read_wait: k(3),
            s_window: k(4),
            s_datapath: k(5),
            s_write_request: k(6),
            zero13: k(0),
            one13: k(1),
            atom_bytes: k(8),
        }
    }
}

impl Logic for Cdp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, lower, centre, upper, addr, wdata);
        self.state.reset.next = self.reset.val();
        self.lower.reset.next = self.reset.val();
        self.centre.reset.next = self.reset.val();
        self.upper.reset.next = self.reset.val();
        self.addr.reset.next = self.reset.val();
        self.wdata.reset.next = self.reset.val();
        self.in_cube.next = !self.read_walk.end0.val();
        self.read_walk.clock.next = self.clock.val();
        self.read_walk.reset.next = self.reset.val();
        self.read_walk.start.next = (self.state.q.val() == self.s_idle.val()) & self.layer_ready.val();
        // The read walk steps when a surface's data comes, and from the padding position to
        // the next (x, y) when the (x, y)'s last write is taken (not at the padding step: its
        // step would then depend on its own `end0` in one cycle, a loop for Verilator).
        self.read_walk.step.next = ((self.state.q.val() == self.s_read_wait.val()) & self.dbb_resp_valid.val())
            | ((self.state.q.val() == self.s_write_request.val()) & self.dbb_req_ready.val() & self.write_walk.end0.val());
        self.read_walk.base.next = self.src_base.val();
        self.read_walk.stride0.next = self.src_surface.val();
        self.read_walk.stride1.next = self.atom_bytes.val();
        self.read_walk.stride2.next = self.src_line.val();
        self.read_walk.last0.next = (self.channel.val() >> 3) + self.one13.val();
        self.read_walk.last1.next = self.width.val();
        self.read_walk.last2.next = self.height.val();
        self.write_walk.clock.next = self.clock.val();
        self.write_walk.reset.next = self.reset.val();
        self.write_walk.start.next = (self.state.q.val() == self.s_idle.val()) & self.layer_ready.val();
        self.write_walk.step.next = (self.state.q.val() == self.s_write_request.val()) & self.dbb_req_ready.val();
        self.write_walk.base.next = self.dst_base.val();
        self.write_walk.stride0.next = self.dst_surface.val();
        self.write_walk.stride1.next = self.atom_bytes.val();
        self.write_walk.stride2.next = self.dst_line.val();
        self.write_walk.last0.next = self.channel.val() >> 3;
        self.write_walk.last1.next = self.width.val();
        self.write_walk.last2.next = self.height.val();
        self.unused_walk.next = self.read_walk.next_addr.val().any()
            | self.read_walk.end1.val()
            | self.read_walk.last.val()
            | self.write_walk.next_addr.val().any()
            | self.write_walk.index0.val().any()
            | self.write_walk.end1.val();
        self.gather.atom.next = self.dbb_resp_data.val();
        self.gather.last_lanes.next = self.channel.val().get_bits::<3>(0);
        self.gather.last.next = self.read_walk.index0.val() == (self.channel.val() >> 3);
        self.gather.datin_offset.next = self.datin_offset.val();
        self.gather.lower.next = self.lower.q.val();
        self.gather.centre.next = self.centre.q.val();
        self.gather.upper.next = self.upper.q.val();
        self.dbb_req_addr.next = self.addr.q.val();
        self.dbb_req_wdata.next = self.wdata.q.val();
        self.dbb_req_valid.next = (self.state.q.val() == self.s_read_request.val()) | (self.state.q.val() == self.s_write_request.val());
        self.dbb_req_write.next = self.state.q.val() == self.s_write_request.val();
        self.dp_valid.next = self.state.q.val() == self.s_window.val();
        self.dp_window.next = self.gather.window.val();
        self.running.next = self.state.q.val() != self.s_idle.val();
        self.done.next = false;
        if self.state.q.val() == self.s_idle.val() {
            if self.layer_ready.val() {
                self.lower.d.next = self.gather.pad.val();
                self.centre.d.next = self.gather.pad.val();
                self.upper.d.next = self.gather.pad.val();
                self.state.d.next = self.s_step.val();
            }
        } else if self.state.q.val() == self.s_step.val() {
            if self.in_cube.val() {
                self.addr.d.next = self.read_walk.addr.val();
                self.state.d.next = self.s_read_request.val();
            } else {
                // Past the cube: padding shifts in without a read.
                self.lower.d.next = self.centre.q.val();
                self.centre.d.next = self.upper.q.val();
                self.upper.d.next = self.gather.pad.val();
                self.state.d.next = self.s_window.val();
            }
        } else if self.state.q.val() == self.s_read_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_read_wait.val();
            }
        } else if self.state.q.val() == self.s_read_wait.val() {
            if self.dbb_resp_valid.val() {
                self.lower.d.next = self.centre.q.val();
                self.centre.d.next = self.upper.q.val();
                self.upper.d.next = self.gather.padded.val();
                // The first surface of an (x, y) only fills `upper`: no window yet.
                if self.read_walk.index0.val() == self.zero13.val() {
                    self.state.d.next = self.s_step.val();
                } else {
                    self.state.d.next = self.s_window.val();
                }
            }
        } else if self.state.q.val() == self.s_window.val() {
            self.state.d.next = self.s_datapath.val();
        } else if self.state.q.val() == self.s_datapath.val() {
            if self.dp_out_valid.val() {
                self.wdata.d.next = self.dp_out_atom.val();
                self.addr.d.next = self.write_walk.addr.val();
                self.state.d.next = self.s_write_request.val();
            }
        } else if self.state.q.val() == self.s_write_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_step.val();
                if self.write_walk.end0.val() {
                    // The (x, y)'s last surface is written: the next (x, y).
                    self.lower.d.next = self.gather.pad.val();
                    self.centre.d.next = self.gather.pad.val();
                    self.upper.d.next = self.gather.pad.val();
                    if self.write_walk.last.val() {
                        self.done.next = true;
                        self.state.d.next = self.s_idle.val();
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Cdp::default, "nvdla_cdp");
}
