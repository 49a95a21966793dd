//! The Ethos-U65 NPU top (`hdl/src/ethos/npu.rs`, whose comment has the ports and the
//! arbitration): the command front end, the kernel unit (`elementwise.rs`) and the convolution
//! unit (`conv_unit.rs`) composed as the RTL wires them, and the three-way arbiter of the one
//! memory master port (front end, then kernel unit, then convolution unit; docs/ethos.md), the
//! kernel unit granted its next read in the cycle its read's data come (issue 19).
use super::command_front_end::{self as fe, CommandFrontEnd};
use super::conv_unit::ConvUnit;
use super::elementwise::{self as ew, Elementwise};
use crate::Block;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub apb_sel: bool,
    pub apb_enable: bool,
    pub apb_write: bool,
    pub apb_addr: u16,
    pub apb_wdata: u32,
    pub mem_ar_ready: bool,
    pub mem_r_valid: bool,
    pub mem_r_data: u64,
    pub mem_r_error: bool,
    pub mem_aw_ready: bool,
    pub mem_b_valid: bool,
    pub mem_b_error: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub apb_rdata: u32,
    pub irq: bool,
    pub mem_ar_valid: bool,
    pub mem_ar_addr: u64,
    pub mem_aw_valid: bool,
    pub mem_aw_addr: u64,
    pub mem_w_data: u64,
    pub mem_w_strb: u8,
}

#[derive(Default)]
pub struct Npu {
    front_end: CommandFrontEnd,
    elementwise: Elementwise,
    conv: ConvUnit,
    read_busy: bool,
    read_kernel: bool,
    read_conv: bool,
    write_busy: bool,
    write_kernel: bool,
    write_conv: bool,
    events: Vec<&'static str>,
}

impl Block for Npu {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, i: &In) -> Out {
        // The kernel units' handshake and debug outputs come from their state only; the front
        // end's inputs do not depend on the front end's outputs, so it steps first. CONV and
        // DEPTHWISE (`kernel_op` 0 and 1) start the convolution unit, the others the kernel
        // unit. Only one unit runs at a time, and an idle unit drives its handshake and debug
        // outputs low: they are ORed.
        let k = self.elementwise.peek();
        let c = self.conv.peek();
        let f = self.front_end.step(&fe::In {
            reset: i.reset,
            apb_sel: i.apb_sel,
            apb_enable: i.apb_enable,
            apb_write: i.apb_write,
            apb_addr: i.apb_addr,
            apb_wdata: i.apb_wdata,
            mem_ar_ready: i.mem_ar_ready && !self.read_busy,
            mem_r_valid: i.mem_r_valid && !self.read_kernel,
            mem_r_data: i.mem_r_data,
            mem_r_error: i.mem_r_error,
            kernel_done: k.kernel_done || c.kernel_done,
            kernel_error: k.kernel_error | c.kernel_error,
            debug_index: k.debug_index | c.debug_index,
            debug_hold: k.debug_hold || c.debug_hold,
            mem_aw_ready: i.mem_aw_ready && !self.write_busy,
            mem_b_valid: i.mem_b_valid && !self.write_kernel,
            mem_b_error: i.mem_b_error,
        });
        // The kernel unit's read's data come without error: it may be granted its next read now
        // (a pool's next tap, offered while it waits). The kernel unit steps first: the
        // convolution unit's grant waits for its request.
        let kernel_r = i.mem_r_valid && !i.mem_r_error && self.read_kernel && !self.read_conv;
        let unit_in = |conv: bool, k_ar_valid: bool| ew::In {
            reset: i.reset,
            kernel_start: f.kernel_start && (f.kernel_op < 2) == conv,
            kernel_op: f.kernel_op,
            kernel_mode: f.kernel_mode,
            debug_value: f.debug_value,
            mem_ar_ready: i.mem_ar_ready
                && (!self.read_busy || (kernel_r && !conv))
                && !f.mem_ar_valid
                && (!conv || !k_ar_valid),
            mem_r_valid: i.mem_r_valid && self.read_kernel && self.read_conv == conv,
            mem_r_data: i.mem_r_data,
            mem_r_error: i.mem_r_error,
            mem_aw_ready: i.mem_aw_ready && !self.write_busy && !f.mem_aw_valid && (!conv || !k.mem_aw_valid),
            mem_b_valid: i.mem_b_valid && self.write_kernel && self.write_conv == conv,
            mem_b_error: i.mem_b_error,
        };
        let k = self.elementwise.step(&unit_in(false, false));
        self.conv.step(&unit_in(true, k.mem_ar_valid));
        let fe_write = f.mem_aw_valid;
        // As the RTL muxes them: the front end's, else the convolution unit's when it asks,
        // else the kernel unit's (also when no one asks).
        let (ar_addr, aw) = (if c.mem_ar_valid { c.mem_ar_addr } else { k.mem_ar_addr }, if c.mem_aw_valid { &c } else { &k });
        let out = Out {
            apb_rdata: f.apb_rdata,
            irq: f.irq,
            mem_ar_valid: (!self.read_busy && (f.mem_ar_valid || k.mem_ar_valid || c.mem_ar_valid))
                || (kernel_r && k.mem_ar_valid && !f.mem_ar_valid),
            mem_ar_addr: if f.mem_ar_valid { f.mem_ar_addr } else { ar_addr },
            mem_aw_valid: !self.write_busy && (fe_write || k.mem_aw_valid || c.mem_aw_valid),
            mem_aw_addr: if fe_write { f.mem_aw_addr } else { aw.mem_aw_addr },
            mem_w_data: if fe_write { f.mem_w_data } else { aw.mem_w_data },
            mem_w_strb: if fe_write { f.mem_w_strb } else { aw.mem_w_strb },
        };
        self.events = self.front_end.events().to_vec();
        self.events.extend_from_slice(self.elementwise.events());
        self.events.extend_from_slice(self.conv.events());
        if i.reset {
            (self.read_busy, self.read_kernel, self.read_conv) = (false, false, false);
            (self.write_busy, self.write_kernel, self.write_conv) = (false, false, false);
            return out;
        }
        if out.mem_ar_valid && i.mem_ar_ready && self.read_busy {
            self.events.push("arbiter: read granted as the previous one completes");
        }
        // The data end the read in flight; a read granted in the same cycle is in flight after.
        if i.mem_r_valid {
            self.read_busy = false;
        }
        if out.mem_ar_valid && i.mem_ar_ready {
            (self.read_busy, self.read_kernel, self.read_conv) = (true, !f.mem_ar_valid, !f.mem_ar_valid && !k.mem_ar_valid);
            self.events.push(if f.mem_ar_valid {
                "arbiter: front-end read"
            } else if k.mem_ar_valid {
                "arbiter: kernel read"
            } else {
                "arbiter: convolution read"
            });
            if f.mem_ar_valid && (k.mem_ar_valid || c.mem_ar_valid) {
                self.events.push("arbiter: kernel read waits");
            }
        }
        if !self.write_busy && out.mem_aw_valid && i.mem_aw_ready {
            (self.write_busy, self.write_kernel, self.write_conv) = (true, !fe_write, !fe_write && !k.mem_aw_valid);
            self.events.push(if fe_write {
                "arbiter: front-end write"
            } else if k.mem_aw_valid {
                "arbiter: kernel write"
            } else {
                "arbiter: convolution write"
            });
        }
        if i.mem_b_valid {
            self.write_busy = false;
        }
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}
