//! The convolution traversal's sub-kernel sides (`conv_traversal.rs`; Vela's `decomp_h` /
//! `decomp_w`, `SubKernelMax`, digest §1.9): a kernel side above `8 / dilation` is walked as
//! sub-kernels of at most that many elements, y outside x. From the kernel's sides, the
//! dilation and the current sub-kernel's origin (`sy`, `sx`), the sides of the current
//! sub-kernel, whether another follows, what is left after it, and the first sub-kernel's
//! sides. Reads registers only (the latched layer registers, the traversal's origin), so
//! Verilator evaluates it once a cycle (docs/ethos.md, "Verilated speed").
use crate::primitives::constant as k;
use rust_hdl::prelude::*;

/// `most_h`/`most_w`: the most a sub-kernel has, `8 / dilation`; `cur_h`/`cur_w`: the current
/// sub-kernel's sides; `more_y`/`more_x`: another sub-kernel follows on that side;
/// `rest_h2`/`rest_w2`: the side left after the current sub-kernel; `first_h`/`first_w`: the
/// first sub-kernel's sides.
#[derive(LogicBlock)]
pub struct SubKernels {
    /// The traversal is in DECODE or MAC, the only phases that read the outputs: outside them
    /// every output is 0 and Verilator skips the rest (issue 19).
    pub active: Signal<In, Bit>,
    pub kernel_height: Signal<In, Bits<4>>,
    pub kernel_width: Signal<In, Bits<4>>,
    pub dilation_y: Signal<In, Bit>,
    pub dilation_x: Signal<In, Bit>,
    pub sy: Signal<In, Bits<4>>,
    pub sx: Signal<In, Bits<4>>,
    pub most_h: Signal<Out, Bits<4>>,
    pub most_w: Signal<Out, Bits<4>>,
    pub cur_h: Signal<Out, Bits<4>>,
    pub cur_w: Signal<Out, Bits<4>>,
    pub more_y: Signal<Out, Bit>,
    pub more_x: Signal<Out, Bit>,
    pub rest_h2: Signal<Out, Bits<4>>,
    pub rest_w2: Signal<Out, Bits<4>>,
    pub first_h: Signal<Out, Bits<4>>,
    pub first_w: Signal<Out, Bits<4>>,
    rest_h: Signal<Local, Bits<4>>,
    rest_w: Signal<Local, Bits<4>>,
    zero4: Constant<Bits<4>>,
    four4: Constant<Bits<4>>,
    eight4: Constant<Bits<4>>,
}

impl Default for SubKernels {
    fn default() -> Self {
        Self {
            active: Default::default(),
            kernel_height: Default::default(),
            kernel_width: Default::default(),
            dilation_y: Default::default(),
            dilation_x: Default::default(),
            sy: Default::default(),
            sx: Default::default(),
            most_h: Default::default(),
            most_w: Default::default(),
            cur_h: Default::default(),
            cur_w: Default::default(),
            more_y: Default::default(),
            more_x: Default::default(),
            rest_h2: Default::default(),
            rest_w2: Default::default(),
            first_h: Default::default(),
            first_w: Default::default(),
            rest_h: Default::default(),
            rest_w: Default::default(),
            zero4: k(0),
            four4: k(4),
            eight4: k(8),
        }
    }
}

impl Logic for SubKernels {
    #[hdl_gen]
    fn update(&mut self) {
        self.most_h.next = self.zero4.val();
        self.most_w.next = self.zero4.val();
        self.rest_h.next = self.zero4.val();
        self.rest_w.next = self.zero4.val();
        self.more_y.next = false;
        self.more_x.next = false;
        self.cur_h.next = self.zero4.val();
        self.cur_w.next = self.zero4.val();
        self.rest_h2.next = self.zero4.val();
        self.rest_w2.next = self.zero4.val();
        self.first_h.next = self.zero4.val();
        self.first_w.next = self.zero4.val();
        if self.active.val() {
            // Sub-kernels of at most `8 / dilation` a side (`sy`, `sx` < the kernel's side).
            self.most_h.next = self.eight4.val();
            if self.dilation_y.val() {
                self.most_h.next = self.four4.val();
            }
            self.most_w.next = self.eight4.val();
            if self.dilation_x.val() {
                self.most_w.next = self.four4.val();
            }
            self.rest_h.next = self.kernel_height.val() - self.sy.val();
            self.rest_w.next = self.kernel_width.val() - self.sx.val();
            self.more_y.next = self.most_h.val() < self.rest_h.val();
            self.more_x.next = self.most_w.val() < self.rest_w.val();
            self.cur_h.next = self.rest_h.val();
            if self.more_y.val() {
                self.cur_h.next = self.most_h.val();
            }
            self.cur_w.next = self.rest_w.val();
            if self.more_x.val() {
                self.cur_w.next = self.most_w.val();
            }
            self.rest_h2.next = self.rest_h.val() - self.most_h.val();
            self.rest_w2.next = self.rest_w.val() - self.most_w.val();
            self.first_h.next = self.kernel_height.val();
            if self.most_h.val() < self.kernel_height.val() {
                self.first_h.next = self.most_h.val();
            }
            self.first_w.next = self.kernel_width.val();
            if self.most_w.val() < self.kernel_width.val() {
                self.first_w.next = self.most_w.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(SubKernels::default, "sub_kernels");
}
