//! The convolution datapath's weight-row address (`conv_datapath.rs`): the row of the weight
//! buffer the MAC phase reads. The buffer holds the decoded stream in stream order, as DECODE
//! writes it; the address follows Vela's weight order (digest `shared/spec/ethos-u65.md`
//! §1.9), whose loops the datapath reads the other way round: it walks one 8-channel OFM group
//! at a time, while the stream has, per OFM block of `8·(block_groups_m1 + 1)` channels, a
//! sequence of "regions": depth-first per 32-channel IFM block per sub-kernel;
//! part-kernel-first per 16-channel IFM block per sub-kernel per 8-channel IFM micro-block
//! holding channels; depthwise per sub-kernel. A region holds, per OFM group of the block,
//! its `U'` rows, `U'` of the region's sub-kernel of `E' = sub_h·sub_w` elements (depth-first
//! `4·E'`: per element the four IFM micro-blocks; part-kernel-first and depthwise
//! `roundup(E', 4)`: one row per element, the padded ones zero). So, with `n` OFM groups in
//! the current block and group `j` of it, the group's rows of a region start at
//! `region + j·U'`; the next region starts at `region + n·U'` (the traversal walks the regions
//! in stream order: `conv_traversal.rs`), the next group of a block at the block's first
//! region, and the next block after the last region of its last group. The padded elements of
//! part-kernel-first are stepped over, not walked (docs/ethos.md, "Increment 4").
//!
//! `groups` (the OFM groups of the current OFM block, all of them but in the layer's last
//! block) is a register set at CLEAR and at the end of a block's last group.
//!
//! `step` is the traversal's `STEP_*` (`conv_traversal.rs`, from its registers), `sub_*` the
//! current sub-kernel's sides and `next_*` those of the sub-kernel the step goes to; `advance`
//! the registers' clock enable (low while held). `row` is a register. The model is
//! `npu_model::ethos::weight_rows`.
use crate::primitives::constant as k;
use crate::primitives::{MulU, RegEn, ZeroExtend};
use rust_hdl::prelude::*;

/// What the MAC tap did, for the address.
pub const STEP_NONE: u64 = 0;
/// Depth-first: the next 8-channel IFM group of the kernel element.
pub const STEP_GROUP: u64 = 1;
/// The next kernel element.
pub const STEP_ELEMENT: u64 = 2;
/// The next region (sub-kernel, IFM block or part-kernel-first micro-block).
pub const STEP_UNIT: u64 = 3;
/// The OFM group's last tap.
pub const STEP_LAST: u64 = 4;
/// CHECK, or the end of the layer: row 0.
pub const STEP_CLEAR: u64 = 5;
/// The OFM group's last tap in a 2x2 OFM block other than the layer's last: the same group's
/// first row again, `block_start + j·U'` of the first sub-kernel (the traversal walks every
/// block of a group before the next group, so that decoding overlaps MAC).
pub const STEP_REPEAT: u64 = 6;

#[derive(LogicBlock)]
pub struct WeightRows {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub advance: Signal<In, Bit>,
    pub step: Signal<In, Bits<3>>,
    pub og: Signal<In, Bits<9>>,
    pub depthwise: Signal<In, Bit>,
    pub part_kernel: Signal<In, Bit>,
    pub ofm_depth: Signal<In, Bits<12>>,
    pub sub_h: Signal<In, Bits<4>>,
    pub sub_w: Signal<In, Bits<4>>,
    pub next_h: Signal<In, Bits<4>>,
    pub next_w: Signal<In, Bits<4>>,
    pub block_groups_m1: Signal<In, Bits<4>>,
    pub row: Signal<Out, Bits<12>>,

    row_q: RegEn<Bits<13>>,
    row_base: RegEn<Bits<13>>,
    /// The current region's first row (of the block's first OFM group).
    region: RegEn<Bits<13>>,
    /// The block's first region.
    block_start: RegEn<Bits<13>>,
    j: RegEn<Bits<4>>,
    /// The OFM groups of the current OFM block (all of them but in the layer's last block).
    groups: RegEn<Bits<5>>,
    elements: MulU<4, 4, 8>,
    next_elements: MulU<4, 4, 8>,
    span: MulU<5, 9, 13>,
    offset: MulU<4, 9, 13>,
    elements9: ZeroExtend<8, 9>,
    next_elements9: ZeroExtend<8, 9>,
    groups5: ZeroExtend<4, 5>,
    j5: ZeroExtend<4, 5>,
    og13: ZeroExtend<9, 13>,
    ofm_depth13: ZeroExtend<12, 13>,
    unit: Signal<Local, Bits<9>>,
    next_unit: Signal<Local, Bits<9>>,
    element_step: Signal<Local, Bits<13>>,
    groups_in_block: Signal<Local, Bits<5>>,
    last_of_block: Signal<Local, Bit>,
    ogs: Signal<Local, Bits<13>>,
    left: Signal<Local, Bits<13>>,
    groups_next: Signal<Local, Bits<5>>,
    j_next: Signal<Local, Bits<4>>,
    next_unit13: ZeroExtend<9, 13>,
    region_next: Signal<Local, Bits<13>>,
    next: Signal<Local, Bits<13>>,
    step_none: Constant<Bits<3>>,
    step_group: Constant<Bits<3>>,
    step_element: Constant<Bits<3>>,
    step_unit: Constant<Bits<3>>,
    step_last: Constant<Bits<3>>,
    step_clear: Constant<Bits<3>>,
    step_repeat: Constant<Bits<3>>,
    repeat_row: Signal<Local, Bits<13>>,
    zero4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    zero8: Constant<Bits<8>>,
    zero13: Constant<Bits<13>>,
    one4: Constant<Bits<4>>,
    one5: Constant<Bits<5>>,
    one13: Constant<Bits<13>>,
    three9: Constant<Bits<9>>,
    round4_9: Constant<Bits<9>>,
    four13: Constant<Bits<13>>,
    seven13: Constant<Bits<13>>,
    shift2: Constant<Bits<4>>,
    shift3: Constant<Bits<4>>,
}

impl Default for WeightRows {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            advance: Default::default(),
            step: Default::default(),
            og: Default::default(),
            depthwise: Default::default(),
            part_kernel: Default::default(),
            ofm_depth: Default::default(),
            sub_h: Default::default(),
            sub_w: Default::default(),
            next_h: Default::default(),
            next_w: Default::default(),
            block_groups_m1: Default::default(),
            row: Default::default(),
            row_q: Default::default(),
            row_base: Default::default(),
            region: Default::default(),
            block_start: Default::default(),
            j: Default::default(),
            groups: Default::default(),
            elements: Default::default(),
            next_elements: Default::default(),
            span: Default::default(),
            offset: Default::default(),
            elements9: Default::default(),
            next_elements9: Default::default(),
            groups5: Default::default(),
            j5: Default::default(),
            og13: Default::default(),
            ofm_depth13: Default::default(),
            unit: Default::default(),
            next_unit: Default::default(),
            element_step: Default::default(),
            groups_in_block: Default::default(),
            last_of_block: Default::default(),
            ogs: Default::default(),
            left: Default::default(),
            groups_next: Default::default(),
            j_next: Default::default(),
            next_unit13: Default::default(),
            region_next: Default::default(),
            next: Default::default(),
            step_none: k(STEP_NONE),
            step_group: k(STEP_GROUP),
            step_element: k(STEP_ELEMENT),
            step_unit: k(STEP_UNIT),
            step_last: k(STEP_LAST),
            step_clear: k(STEP_CLEAR),
            step_repeat: k(STEP_REPEAT),
            repeat_row: Default::default(),
            zero4: k(0),
            zero5: k(0),
            zero8: k(0),
            zero13: k(0),
            one4: k(1),
            one5: k(1),
            one13: k(1),
            three9: k(3),
            round4_9: k(0x1FC),
            four13: k(4),
            seven13: k(7),
            shift2: k(2),
            shift3: k(3),
        }
    }
}

impl Logic for WeightRows {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, row_q, row_base, region, block_start, j, groups);
        self.row_q.reset.next = self.reset.val();
        self.row_q.enable.next = self.advance.val();
        self.row_base.reset.next = self.reset.val();
        self.row_base.enable.next = self.advance.val();
        self.region.reset.next = self.reset.val();
        self.region.enable.next = self.advance.val();
        self.block_start.reset.next = self.reset.val();
        self.block_start.enable.next = self.advance.val();
        self.j.reset.next = self.reset.val();
        self.j.enable.next = self.advance.val();
        self.groups.reset.next = self.reset.val();
        self.groups.enable.next = self.advance.val();
        self.row.next = self.row_q.q.val().get_bits::<12>(0);

        // The rows of a group in the current and in the next region, and the step from one
        // kernel element to the next.
        self.elements.a.next = self.sub_h.val();
        self.elements.b.next = self.sub_w.val();
        self.elements9.narrow.next = self.elements.product.val();
        self.next_elements.a.next = self.next_h.val();
        self.next_elements.b.next = self.next_w.val();
        self.next_elements9.narrow.next = self.next_elements.product.val();
        self.unit.next = self.elements9.wide.val() << self.shift2.val();
        self.next_unit.next = self.next_elements9.wide.val() << self.shift2.val();
        self.element_step.next = self.four13.val();
        if self.depthwise.val() | self.part_kernel.val() {
            self.unit.next = (self.elements9.wide.val() + self.three9.val()) & self.round4_9.val();
            self.next_unit.next = (self.next_elements9.wide.val() + self.three9.val()) & self.round4_9.val();
            self.element_step.next = self.one13.val();
        }
        self.next_unit13.narrow.next = self.next_unit.val();

        // The multipliers' inputs stay outside the gate below, which reads their products
        // (in one statement with them, a loop for Verilator).
        self.span.a.next = self.groups.q.val();
        self.span.b.next = self.unit.val();
        self.offset.a.next = self.j.q.val();
        self.offset.b.next = self.next_unit.val();
        self.groups5.narrow.next = self.block_groups_m1.val();
        self.j5.narrow.next = self.j.q.val();
        self.og13.narrow.next = self.og.val();
        self.ofm_depth13.narrow.next = self.ofm_depth.val();
        // The next rows are computed only in a cycle that steps (`step` not NONE), 0 in the
        // others (nothing reads them there): Verilator skips them when idle (issue 19).
        self.groups_in_block.next = self.zero5.val();
        self.last_of_block.next = false;
        self.ogs.next = self.zero13.val();
        self.left.next = self.zero13.val();
        self.groups_next.next = self.zero5.val();
        self.region_next.next = self.zero13.val();
        self.next.next = self.zero13.val();
        self.j_next.next = self.zero4.val();
        self.repeat_row.next = self.zero13.val();
        if self.step.val() != self.step_none.val() {
            // The OFM groups of the next OFM block: from group 0 (CLEAR) or after this group
            // (LAST, the block's last group), at most `block_groups_m1 + 1`.
            self.groups_in_block.next = self.groups5.wide.val() + self.one5.val();
            self.last_of_block.next = (self.j5.wide.val() + self.one5.val()) >= self.groups_in_block.val();
            self.ogs.next = (self.ofm_depth13.wide.val() + self.seven13.val()) >> self.shift3.val();
            self.left.next = self.ogs.val() - self.og13.wide.val() - self.one13.val();
            if self.step.val() == self.step_clear.val() {
                self.left.next = self.ogs.val();
            }
            self.groups_next.next = self.groups_in_block.val();
            if (self.left.val().get_bits::<8>(5) == self.zero8.val()) & (self.left.val().get_bits::<5>(0) < self.groups_in_block.val()) {
                self.groups_next.next = self.left.val().get_bits::<5>(0);
            }
            // The next region `region + n·U'`, or (LAST, not the block's last group) the block's
            // first; the group after the step `j_next`; its first row there `+ j_next·U'(next)`:
            // `j·U'(next)` (UNIT), `j·U'(next) + U'(next)` (LAST, the block's next group) or 0 (LAST,
            // the next block). The multiplier takes the register `j` itself: logic of this block
            // on a multiplier's input is a loop for Verilator (UNOPTFLAT).
            self.region_next.next = self.region.q.val() + self.span.product.val();
            self.next.next = self.region_next.val() + self.offset.product.val();
            self.j_next.next = self.j.q.val() + self.one4.val();
            if self.step.val() == self.step_last.val() {
                if self.last_of_block.val() {
                    self.j_next.next = self.zero4.val();
                    self.next.next = self.region_next.val();
                } else {
                    self.region_next.next = self.block_start.q.val();
                    self.next.next = self.block_start.q.val() + self.offset.product.val() + self.next_unit13.wide.val();
                }
            }

            if self.step.val() == self.step_group.val() {
                self.row_q.d.next = self.row_q.q.val() + self.one13.val();
            }
            if self.step.val() == self.step_element.val() {
                self.row_q.d.next = self.row_base.q.val() + self.element_step.val();
                self.row_base.d.next = self.row_base.q.val() + self.element_step.val();
            }
            if self.step.val() == self.step_unit.val() {
                self.row_q.d.next = self.next.val();
                self.row_base.d.next = self.next.val();
                self.region.d.next = self.region_next.val();
            }
            if self.step.val() == self.step_last.val() {
                self.row_q.d.next = self.next.val();
                self.row_base.d.next = self.next.val();
                self.region.d.next = self.region_next.val();
                self.j.d.next = self.j_next.val();
                if self.last_of_block.val() {
                    self.block_start.d.next = self.region_next.val();
                    self.groups.d.next = self.groups_next.val();
                }
            }
            // REPEAT: the group's first row, `block_start + j·U'(next)` (`next` is the first
            // sub-kernel after a group's last tap).
            self.repeat_row.next = self.block_start.q.val() + self.offset.product.val();
            if self.step.val() == self.step_repeat.val() {
                self.row_q.d.next = self.repeat_row.val();
                self.row_base.d.next = self.repeat_row.val();
                self.region.d.next = self.block_start.q.val();
            }
            if self.step.val() == self.step_clear.val() {
                self.row_q.d.next = self.zero13.val();
                self.row_base.d.next = self.zero13.val();
                self.region.d.next = self.zero13.val();
                self.block_start.d.next = self.zero13.val();
                self.j.d.next = self.zero4.val();
                self.groups.d.next = self.groups_next.val();
            }
        }
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(WeightRows::default, "weight_rows");
}
