//! PDP in off-flying mode with its read DMA (seeds/001 "Planar Data Processor"; PDP_RDMA and
//! PDP registers): for each output atom (x fastest, then lines, then 8-channel surfaces) the
//! engine walks the pooling window line by line, reads each of its elements that lies in the
//! input cube through the memory port, folds it into 8 running lane values ([`Pool`]), and
//! writes the pooled atom at the output [`CubeWalk`]'s position. Padded elements are not
//! read: for max and min they do not count, for average the padding values are added
//! ([`Pool`] has the arithmetic). Model: `npu_model::nvdla::pdp`; docs/nvdla.md "PDP" and
//! "Cube walk".
//!
//! One element read at a time (step, request, data), so a window of k elements takes about 3k
//! cycles plus 2 for the write. Split width (PARTIAL_WIDTH_*, SPLIT_NUM) is not needed: the
//! engine has no line buffer to fit, and pools the whole width, which is what the splits
//! compute (decision in docs/nvdla.md). `done` is high in the cycle the last write is taken;
//! `running` while not idle.
use super::cube_walk::CubeWalk;
use super::pool::Pool;
use crate::primitives::{Reg, ZeroExtend};
use rust_hdl::prelude::*;
use crate::primitives::constant as k;

#[derive(LogicBlock)]
pub struct Pdp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub layer_ready: Signal<In, Bit>,
    pub width: Signal<In, Bits<13>>,
    pub height: Signal<In, Bits<13>>,
    pub last_surface: Signal<In, Bits<10>>,
    pub src_base: Signal<In, Bits<64>>,
    pub src_line: Signal<In, Bits<64>>,
    pub src_surface: Signal<In, Bits<64>>,
    pub out_width: Signal<In, Bits<13>>,
    pub out_height: Signal<In, Bits<13>>,
    pub method: Signal<In, Bits<2>>,
    pub kernel_width: Signal<In, Bits<4>>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub stride_width: Signal<In, Bits<4>>,
    pub stride_height: Signal<In, Bits<4>>,
    pub pad_left: Signal<In, Bits<3>>,
    pub pad_top: Signal<In, Bits<3>>,
    pub recip_width: Signal<In, Bits<17>>,
    pub recip_height: Signal<In, Bits<17>>,
    pub pad_value1: Signal<In, Bits<11>>,
    pub pad_value2: Signal<In, Bits<11>>,
    pub pad_value3: Signal<In, Bits<11>>,
    pub pad_value4: Signal<In, Bits<11>>,
    pub pad_value5: Signal<In, Bits<11>>,
    pub pad_value6: Signal<In, Bits<11>>,
    pub pad_value7: Signal<In, Bits<11>>,
    pub dst_base: Signal<In, Bits<64>>,
    pub dst_line: Signal<In, Bits<64>>,
    pub dst_surface: Signal<In, Bits<64>>,
    pub dbb_req_ready: Signal<In, Bit>,
    pub dbb_resp_valid: Signal<In, Bit>,
    pub dbb_resp_data: Signal<In, Bits<64>>,
    pub done: Signal<Out, Bit>,
    pub running: Signal<Out, Bit>,
    pub dbb_req_valid: Signal<Out, Bit>,
    pub dbb_req_write: Signal<Out, Bit>,
    pub dbb_req_addr: Signal<Out, Bits<64>>,
    pub dbb_req_wdata: Signal<Out, Bits<64>>,
    pool: Pool,
    /// The output cube's walk (x fastest): the pooled atom's address, and which window is next.
    out_walk: CubeWalk,
    last_surface13: ZeroExtend<10, 13>,
    /// The walk's outputs this engine does not need.
    unused_walk: Signal<Local, Bit>,
    state: Reg<Bits<3>>,
    ky: Reg<Bits<4>>,
    kx: Reg<Bits<4>>,
    wx: Reg<Bits<18>>,
    wy: Reg<Bits<18>>,
    /// The input cube's current surface's start.
    plane: Reg<Bits<64>>,
    lanes: Reg<Bits<128>>,
    addr: Reg<Bits<64>>,
    wdata: Reg<Bits<64>>,
    first: Reg<Bit>,
    advance: Signal<Local, Bit>,
    s_idle: Constant<Bits<3>>,
    s_step: Constant<Bits<3>>,
    s_read_request: Constant<Bits<3>>,
    s_read_wait: Constant<Bits<3>>,
    s_finish: Constant<Bits<3>>,
    s_write_request: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    atom_bytes: Constant<Bits<64>>,
}

impl Default for Pdp {
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
            out_width: Default::default(),
            out_height: Default::default(),
            method: Default::default(),
            kernel_width: Default::default(),
            kernel_height: Default::default(),
            stride_width: Default::default(),
            stride_height: Default::default(),
            pad_left: Default::default(),
            pad_top: Default::default(),
            recip_width: Default::default(),
            recip_height: Default::default(),
            pad_value1: Default::default(),
            pad_value2: Default::default(),
            pad_value3: Default::default(),
            pad_value4: Default::default(),
            pad_value5: Default::default(),
            pad_value6: Default::default(),
            pad_value7: Default::default(),
            dst_base: Default::default(),
            dst_line: Default::default(),
            dst_surface: Default::default(),
            dbb_req_ready: Default::default(),
            dbb_resp_valid: Default::default(),
            dbb_resp_data: Default::default(),
            done: Default::default(),
            running: Default::default(),
            dbb_req_valid: Default::default(),
            dbb_req_write: Default::default(),
            dbb_req_addr: Default::default(),
            dbb_req_wdata: Default::default(),
            pool: Default::default(),
            out_walk: Default::default(),
            last_surface13: Default::default(),
            unused_walk: Default::default(),
            state: Default::default(),
            ky: Default::default(),
            kx: Default::default(),
            wx: Default::default(),
            wy: Default::default(),
            plane: Default::default(),
            lanes: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            first: Default::default(),
            advance: Default::default(),
            s_idle: k(0),
            s_step: k(1),
            s_read_request: k(2),
            s_read_wait: k(3),
            s_finish: k(4),
            s_write_request: k(5),
            zero4: k(0),
            one4: k(1),
            atom_bytes: k(8),
        }
    }
}

impl Logic for Pdp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, ky, kx, wx, wy, plane, lanes, addr, wdata, first);
        self.state.reset.next = self.reset.val();
        self.ky.reset.next = self.reset.val();
        self.kx.reset.next = self.reset.val();
        self.wx.reset.next = self.reset.val();
        self.wy.reset.next = self.reset.val();
        self.plane.reset.next = self.reset.val();
        self.lanes.reset.next = self.reset.val();
        self.addr.reset.next = self.reset.val();
        self.wdata.reset.next = self.reset.val();
        self.first.reset.next = self.reset.val();
        self.out_walk.clock.next = self.clock.val();
        self.out_walk.reset.next = self.reset.val();
        self.out_walk.start.next = (self.state.q.val() == self.s_idle.val()) & self.layer_ready.val();
        self.out_walk.step.next = (self.state.q.val() == self.s_write_request.val()) & self.dbb_req_ready.val();
        self.out_walk.base.next = self.dst_base.val();
        self.out_walk.stride0.next = self.atom_bytes.val();
        self.out_walk.stride1.next = self.dst_line.val();
        self.out_walk.stride2.next = self.dst_surface.val();
        self.out_walk.last0.next = self.out_width.val();
        self.out_walk.last1.next = self.out_height.val();
        self.last_surface13.narrow.next = self.last_surface.val();
        self.out_walk.last2.next = self.last_surface13.wide.val();
        self.unused_walk.next = self.out_walk.next_addr.val().any() | self.out_walk.index0.val().any();
        self.pool.method.next = self.method.val();
        self.pool.recip_width.next = self.recip_width.val();
        self.pool.recip_height.next = self.recip_height.val();
        self.pool.width.next = self.width.val();
        self.pool.height.next = self.height.val();
        self.pool.kernel_width.next = self.kernel_width.val();
        self.pool.kernel_height.next = self.kernel_height.val();
        self.pool.stride_width.next = self.stride_width.val();
        self.pool.stride_height.next = self.stride_height.val();
        self.pool.pad_left.next = self.pad_left.val();
        self.pool.pad_top.next = self.pad_top.val();
        self.pool.pad_value1.next = self.pad_value1.val();
        self.pool.pad_value2.next = self.pad_value2.val();
        self.pool.pad_value3.next = self.pad_value3.val();
        self.pool.pad_value4.next = self.pad_value4.val();
        self.pool.pad_value5.next = self.pad_value5.val();
        self.pool.pad_value6.next = self.pad_value6.val();
        self.pool.pad_value7.next = self.pad_value7.val();
        self.pool.lanes.next = self.lanes.q.val();
        self.pool.atom.next = self.dbb_resp_data.val();
        self.pool.start.next = self.first.q.val();
        self.pool.take.next = self.state.q.val() == self.s_read_wait.val();
        self.pool.wx.next = self.wx.q.val();
        self.pool.wy.next = self.wy.q.val();
        self.pool.kx.next = self.kx.q.val();
        self.pool.ky.next = self.ky.q.val();
        self.pool.plane.next = self.plane.q.val();
        self.pool.line.next = self.src_line.val();
        self.dbb_req_addr.next = self.addr.q.val();
        self.dbb_req_wdata.next = self.wdata.q.val();
        self.dbb_req_valid.next = (self.state.q.val() == self.s_read_request.val()) | (self.state.q.val() == self.s_write_request.val());
        self.dbb_req_write.next = self.state.q.val() == self.s_write_request.val();
        self.running.next = self.state.q.val() != self.s_idle.val();
        self.done.next = false;
        // The window's element is done (skipped as padding, or its data folded in): the
        // next element of the window's line, its next line, or the pooled atom's write.
        self.advance.next = ((self.state.q.val() == self.s_step.val()) & !self.pool.in_cube.val()) | ((self.state.q.val() == self.s_read_wait.val()) & self.dbb_resp_valid.val());
        if self.advance.val() {
            self.lanes.d.next = self.pool.lanes_next.val();
            self.first.d.next = false;
            self.kx.d.next = self.kx.q.val() + self.one4.val();
            self.state.d.next = self.s_step.val();
            if self.kx.q.val() == self.kernel_width.val() {
                self.kx.d.next = self.zero4.val();
                self.ky.d.next = self.ky.q.val() + self.one4.val();
                if self.ky.q.val() == self.kernel_height.val() {
                    self.ky.d.next = self.zero4.val();
                    self.state.d.next = self.s_finish.val();
                }
            }
        }
        if self.state.q.val() == self.s_idle.val() {
            if self.layer_ready.val() {
                self.ky.d.next = self.zero4.val();
                self.kx.d.next = self.zero4.val();
                self.wx.d.next = self.pool.wx_first.val();
                self.wy.d.next = self.pool.wy_first.val();
                self.plane.d.next = self.src_base.val();
                self.first.d.next = true;
                self.state.d.next = self.s_step.val();
            }
        } else if self.state.q.val() == self.s_step.val() {
            if self.pool.in_cube.val() {
                self.addr.d.next = self.pool.address.val();
                self.state.d.next = self.s_read_request.val();
            }
        } else if self.state.q.val() == self.s_read_request.val() {
            if self.dbb_req_ready.val() {
                self.state.d.next = self.s_read_wait.val();
            }
        } else if self.state.q.val() == self.s_finish.val() {
            self.wdata.d.next = self.pool.pooled.val();
            self.addr.d.next = self.out_walk.addr.val();
            self.state.d.next = self.s_write_request.val();
        } else if self.state.q.val() == self.s_write_request.val() {
            if self.dbb_req_ready.val() {
                self.first.d.next = true;
                self.state.d.next = self.s_step.val();
                self.wx.d.next = self.pool.wx_step.val();
                if self.out_walk.end0.val() {
                    self.wx.d.next = self.pool.wx_first.val();
                    self.wy.d.next = self.pool.wy_step.val();
                    if self.out_walk.end1.val() {
                        self.wy.d.next = self.pool.wy_first.val();
                        self.plane.d.next = self.plane.q.val() + self.src_surface.val();
                        if self.out_walk.last.val() {
                            self.done.next = true;
                            self.state.d.next = self.s_idle.val();
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Pdp::default, "nvdla_pdp");
}
