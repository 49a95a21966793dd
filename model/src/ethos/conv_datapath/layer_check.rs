//! CHECK of the convolution datapath's model (RTL `hdl/src/ethos/layer_check.rs`): the layer
//! registers in range and the weight rows the layer needs.
use super::*;

/// What CHECK finds: the `SHAPE_*` bits and the weight rows the layer needs.
pub fn check_shape(i: &In) -> (u32, u64) {
    let (c, o) = (u64::from(i.ifm_depth), u64::from(i.ofm_depth));
    let elements = u64::from(i.kernel_height) * u64::from(i.kernel_width);
    let per_group = if i.depthwise {
        (elements + 3) & !3
    } else if i.part_kernel {
        c.div_ceil(8) * ((elements + 3) & !3)
    } else {
        4 * c.div_ceil(32) * elements
    };
    let rows = o.div_ceil(8) * per_group;
    let mut shape = 0;
    if [i.ifm_height, i.ifm_width, i.ifm_depth, i.ofm_height, i.ofm_width, i.ofm_depth].contains(&0) {
        shape |= SHAPE_DIMS;
    }
    // Sub-kernels (sides above `8 / dilation`) need no other count: the padded elements of
    // all of them sum to `roundup(KH·KW, 4)` (the RTL's module comment, `layer_check.rs`).
    if !(1..=15).contains(&i.kernel_height) || !(1..=15).contains(&i.kernel_width) {
        shape |= SHAPE_KERNEL;
    }
    if i.stride_y == 0 || i.stride_x == 0 {
        shape |= SHAPE_STRIDE;
    }
    if i.depthwise && c != o {
        shape |= SHAPE_DEPTHWISE;
    }
    if rows > WEIGHT_ROWS as u64 {
        shape |= SHAPE_WEIGHT_ROWS;
    }
    (shape, rows)
}

impl ConvDatapath {
    /// CHECK: the traversal's registers from the layer, then SCALE_BIAS, or DONE with
    /// `ERROR_SHAPE`.
    pub(super) fn check(&mut self, i: &In) {
        let (shape, rows) = check_shape(i);
        let o = u32::from(i.ofm_depth);
        self.walk = Walk {
            total_rows: rows as u32 & 0x1FFF,
            scale_bias_limit: (10 * o + 15) & 0xFFF0,
            origin_y: 8 - u32::from(i.pad_top),
            origin_x: 8 - u32::from(i.pad_left),
            first: true,
            ..Walk::default()
        };
        self.walk.address.step(Step::Clear, 0, &rows_layer(i), (0, 0), (0, 0));
        self.state = STATE_SCALE_BIAS;
        if shape != 0 {
            self.stop(ERROR_SHAPE, shape);
        }
    }
}
