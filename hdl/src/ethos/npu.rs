//! The Ethos-U65 NPU top (TRM §4.6; digest `shared/spec/ethos-u65.md` §3-§4): the command
//! front end ([`super::CommandFrontEnd`]) with two units behind its kernel handshake, the
//! kernel unit ([`super::elementwise::Elementwise`]: ELEMENTWISE, POOL) and the convolution
//! unit ([`super::conv_unit::ConvUnit`]: CONV, DEPTHWISE), and the arbiter that lets the three
//! share the one memory master port (docs/ethos.md, "NPU top", "Convolution unit"). The model
//! is `npu_model::ethos::npu`.
//!
//! Ports: the front end's APB3 slave and `irq`, and the memory master port of the agreed
//! interface (docs/ethos.md, "Memory port and its AXI4 mapping").
//!
//! Kernel handshake: `kernel_start` goes to the convolution unit for `kernel_op` 0 and 1
//! (NPU_OP_CONV, NPU_OP_DEPTHWISE), to the kernel unit otherwise; only one unit runs at a
//! time and an idle unit drives `kernel_done`, `kernel_error`, `debug_index` and `debug_hold`
//! low, so the top ORs them.
//!
//! Arbitration (decision): one read and one write in flight for the whole NPU, as the port
//! has no IDs; a channel is granted when nothing is in flight on it, the front end (command
//! fetch, DMA) first, then the kernel unit, then the convolution unit (only one of the two
//! runs at a time, so their order never matters); the response goes to the master that was
//! granted. The front end first, because a kernel never waits on the front end's reads while
//! the front end can wait on the kernel (KERNEL_WAIT, STOP), and the front end issues at most
//! one read per fetched line or DMA step, so a unit is never starved for longer than one
//! transfer.
//!
//! Back-to-back kernel reads (issue 19, decision; docs/ethos.md "Pooling timing"): the kernel
//! unit is granted a new read in the cycle its read's data come without error (the R
//! handshake completes then, so still one read in flight after each edge), when the front end
//! does not ask; a pool's WAIT_A offers its next tap's read while it waits, so an inside tap
//! takes one cycle on a memory that answers in one. Why not a second read in flight for the
//! kernel unit: the port's contract is one read in flight with no `r_ready` (docs/ethos.md,
//! "Memory port and its AXI4 mapping"), and a one-cycle memory needs no more. The unit's
//! request follows its registers only (the grant follows `mem_r_valid`/`mem_r_error`, no
//! loop through the unit); a read error is not followed by a grant, so the kernel stops with
//! nothing in flight. Only the kernel unit, so the front end's and the convolution unit's
//! timing is unchanged, and the front end keeps its priority: when it asks in that cycle the
//! kernel unit waits, and the front end has the next free cycle.
use super::command_front_end::CommandFrontEnd;
use super::conv_unit::ConvUnit;
use super::elementwise::Elementwise;
use crate::primitives::Reg;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Npu {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub apb_sel: Signal<In, Bit>,
    pub apb_enable: Signal<In, Bit>,
    pub apb_write: Signal<In, Bit>,
    pub apb_addr: Signal<In, Bits<12>>,
    pub apb_wdata: Signal<In, Bits<32>>,
    pub mem_ar_ready: Signal<In, Bit>,
    pub mem_r_valid: Signal<In, Bit>,
    pub mem_r_data: Signal<In, Bits<64>>,
    pub mem_r_error: Signal<In, Bit>,
    pub mem_aw_ready: Signal<In, Bit>,
    pub mem_b_valid: Signal<In, Bit>,
    pub mem_b_error: Signal<In, Bit>,
    pub apb_rdata: Signal<Out, Bits<32>>,
    pub irq: Signal<Out, Bit>,
    pub mem_ar_valid: Signal<Out, Bit>,
    pub mem_ar_addr: Signal<Out, Bits<40>>,
    pub mem_aw_valid: Signal<Out, Bit>,
    pub mem_aw_addr: Signal<Out, Bits<40>>,
    pub mem_w_data: Signal<Out, Bits<64>>,
    pub mem_w_strb: Signal<Out, Bits<8>>,
    front_end: CommandFrontEnd,
    elementwise: Elementwise,
    conv: ConvUnit,
    /// A read (write) is in flight, whether a kernel's (the kernel unit's or the convolution
    /// unit's) and whether the convolution unit's.
    read_busy: Reg<Bit>,
    read_kernel: Reg<Bit>,
    read_conv: Reg<Bit>,
    write_busy: Reg<Bit>,
    write_kernel: Reg<Bit>,
    write_conv: Reg<Bit>,
    /// The front end's operation is a CONV or DEPTHWISE (`kernel_op` 0 or 1).
    conv_op: Signal<Local, Bit>,
}

impl Logic for Npu {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, read_busy, read_kernel, read_conv, write_busy, write_kernel, write_conv);
        self.read_busy.reset.next = self.reset.val();
        self.read_kernel.reset.next = self.reset.val();
        self.read_conv.reset.next = self.reset.val();
        self.write_busy.reset.next = self.reset.val();
        self.write_kernel.reset.next = self.reset.val();
        self.write_conv.reset.next = self.reset.val();
        self.front_end.clock.next = self.clock.val();
        self.front_end.reset.next = self.reset.val();
        self.elementwise.clock.next = self.clock.val();
        self.elementwise.reset.next = self.reset.val();
        self.conv.clock.next = self.clock.val();
        self.conv.reset.next = self.reset.val();

        // APB and the kernel handshake: CONV and DEPTHWISE start the convolution unit, the
        // other kernels the kernel unit; only one unit runs at a time and an idle one drives
        // its handshake and debug outputs low, so they are ORed.
        self.front_end.apb_sel.next = self.apb_sel.val();
        self.front_end.apb_enable.next = self.apb_enable.val();
        self.front_end.apb_write.next = self.apb_write.val();
        self.front_end.apb_addr.next = self.apb_addr.val();
        self.front_end.apb_wdata.next = self.apb_wdata.val();
        self.apb_rdata.next = self.front_end.apb_rdata.val();
        self.irq.next = self.front_end.irq.val();
        self.conv_op.next = !self.front_end.kernel_op.val().get_bit(1);
        self.elementwise.kernel_start.next = self.front_end.kernel_start.val() & !self.conv_op.val();
        self.elementwise.kernel_op.next = self.front_end.kernel_op.val();
        self.elementwise.kernel_mode.next = self.front_end.kernel_mode.val();
        self.elementwise.debug_value.next = self.front_end.debug_value.val();
        self.conv.kernel_start.next = self.front_end.kernel_start.val() & self.conv_op.val();
        self.conv.kernel_op.next = self.front_end.kernel_op.val();
        self.conv.debug_value.next = self.front_end.debug_value.val();
        self.front_end.kernel_done.next = self.elementwise.kernel_done.val() | self.conv.kernel_done.val();
        self.front_end.kernel_error.next = self.elementwise.kernel_error.val() | self.conv.kernel_error.val();
        self.front_end.debug_index.next = self.elementwise.debug_index.val() | self.conv.debug_index.val();
        self.front_end.debug_hold.next = self.elementwise.debug_hold.val() | self.conv.debug_hold.val();

        // Read channel: the front end first, then the kernel unit, then the convolution unit;
        // the data to the master granted.
        self.front_end.mem_ar_ready.next = self.mem_ar_ready.val() & !self.read_busy.q.val();
        // (The kernel unit's data test written out in each statement: a shared local would
        // join them for Verilator, which would see a loop through the unit.)
        self.elementwise.mem_ar_ready.next = self.mem_ar_ready.val()
            & (!self.read_busy.q.val() | (self.mem_r_valid.val() & !self.mem_r_error.val() & self.read_kernel.q.val() & !self.read_conv.q.val()))
            & !self.front_end.mem_ar_valid.val();
        self.conv.mem_ar_ready.next = self.mem_ar_ready.val()
            & !self.read_busy.q.val()
            & !self.front_end.mem_ar_valid.val()
            & !self.elementwise.mem_ar_valid.val();
        self.mem_ar_valid.next = (!self.read_busy.q.val()
            & (self.front_end.mem_ar_valid.val() | self.elementwise.mem_ar_valid.val() | self.conv.mem_ar_valid.val()))
            | (self.mem_r_valid.val() & !self.mem_r_error.val() & self.read_kernel.q.val() & !self.read_conv.q.val()
                & self.elementwise.mem_ar_valid.val() & !self.front_end.mem_ar_valid.val());
        self.mem_ar_addr.next = self.elementwise.mem_ar_addr.val();
        if self.conv.mem_ar_valid.val() {
            self.mem_ar_addr.next = self.conv.mem_ar_addr.val();
        }
        if self.front_end.mem_ar_valid.val() {
            self.mem_ar_addr.next = self.front_end.mem_ar_addr.val();
        }
        self.front_end.mem_r_valid.next = self.mem_r_valid.val() & !self.read_kernel.q.val();
        self.elementwise.mem_r_valid.next = self.mem_r_valid.val() & self.read_kernel.q.val() & !self.read_conv.q.val();
        self.conv.mem_r_valid.next = self.mem_r_valid.val() & self.read_kernel.q.val() & self.read_conv.q.val();
        self.front_end.mem_r_data.next = self.mem_r_data.val();
        self.elementwise.mem_r_data.next = self.mem_r_data.val();
        self.conv.mem_r_data.next = self.mem_r_data.val();
        self.front_end.mem_r_error.next = self.mem_r_error.val();
        self.elementwise.mem_r_error.next = self.mem_r_error.val();
        self.conv.mem_r_error.next = self.mem_r_error.val();
        // The data end the read in flight; a read granted in the same cycle (the kernel unit's
        // next) is in flight after the edge.
        if self.mem_r_valid.val() {
            self.read_busy.d.next = false;
        }
        if self.mem_ar_valid.val() & self.mem_ar_ready.val() {
            self.read_busy.d.next = true;
            self.read_kernel.d.next = !self.front_end.mem_ar_valid.val();
            self.read_conv.d.next = !self.front_end.mem_ar_valid.val() & !self.elementwise.mem_ar_valid.val();
        }

        // Write channel, the same way.
        self.front_end.mem_aw_ready.next = self.mem_aw_ready.val() & !self.write_busy.q.val();
        self.elementwise.mem_aw_ready.next =
            self.mem_aw_ready.val() & !self.write_busy.q.val() & !self.front_end.mem_aw_valid.val();
        self.conv.mem_aw_ready.next = self.mem_aw_ready.val()
            & !self.write_busy.q.val()
            & !self.front_end.mem_aw_valid.val()
            & !self.elementwise.mem_aw_valid.val();
        self.mem_aw_valid.next = !self.write_busy.q.val()
            & (self.front_end.mem_aw_valid.val() | self.elementwise.mem_aw_valid.val() | self.conv.mem_aw_valid.val());
        self.mem_aw_addr.next = self.elementwise.mem_aw_addr.val();
        self.mem_w_data.next = self.elementwise.mem_w_data.val();
        self.mem_w_strb.next = self.elementwise.mem_w_strb.val();
        if self.conv.mem_aw_valid.val() {
            self.mem_aw_addr.next = self.conv.mem_aw_addr.val();
            self.mem_w_data.next = self.conv.mem_w_data.val();
            self.mem_w_strb.next = self.conv.mem_w_strb.val();
        }
        if self.front_end.mem_aw_valid.val() {
            self.mem_aw_addr.next = self.front_end.mem_aw_addr.val();
            self.mem_w_data.next = self.front_end.mem_w_data.val();
            self.mem_w_strb.next = self.front_end.mem_w_strb.val();
        }
        self.front_end.mem_b_valid.next = self.mem_b_valid.val() & !self.write_kernel.q.val();
        self.elementwise.mem_b_valid.next = self.mem_b_valid.val() & self.write_kernel.q.val() & !self.write_conv.q.val();
        self.conv.mem_b_valid.next = self.mem_b_valid.val() & self.write_kernel.q.val() & self.write_conv.q.val();
        self.front_end.mem_b_error.next = self.mem_b_error.val();
        self.elementwise.mem_b_error.next = self.mem_b_error.val();
        self.conv.mem_b_error.next = self.mem_b_error.val();
        if !self.write_busy.q.val() & self.mem_aw_valid.val() & self.mem_aw_ready.val() {
            self.write_busy.d.next = true;
            self.write_kernel.d.next = !self.front_end.mem_aw_valid.val();
            self.write_conv.d.next = !self.front_end.mem_aw_valid.val() & !self.elementwise.mem_aw_valid.val();
        }
        if self.mem_b_valid.val() {
            self.write_busy.d.next = false;
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Npu::default, "npu");
}
