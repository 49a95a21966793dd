//! Depthwise tap packing (issue 19): a [`ConvLayer`] as the packed mapping's model sees it
//! (`npu_model::ethos::depthwise_packing`, which documents the mapping), and the mapping's
//! cycle bound for the bench (docs/ethos.md, "Depthwise tap packing").
use super::conv::padding_offsets;
use super::conv_datapath::Stats;
use super::tflite::{output_shape, ConvLayer};
use npu_model::ethos::depthwise_packing::{self, Layer, Schedule};

/// The registers of depthwise `layer` as the packing model takes them.
pub fn packing_layer(layer: &ConvLayer) -> Layer {
    let (oh, ow, _) = output_shape(layer);
    Layer {
        ifm: layer.input_shape,
        ofm: (oh, ow),
        kernel: layer.kernel,
        stride: layer.stride,
        dilation: layer.dilation,
        pad: padding_offsets(layer),
    }
}

/// `layer` on the packed mapping's model: each OFM element's accumulator without the bias
/// (HWC), and the schedule.
pub fn run(layer: &ConvLayer) -> (Vec<i64>, Schedule) {
    depthwise_packing::run(&packing_layer(layer), &layer.input, &layer.weights, i32::from(layer.input_zero_point))
}

/// The layer's cycles on the packed mapping with `lanes` output lanes, at best: CHECK and the
/// first cycle (2), scale/bias and the decoding of the first OFM group's rows as the datapath
/// measured them (`stats`: decode / groups), every (group, block) after the first at
/// max(its MAC cycles, the `32 / lanes` cycles the walk takes to drain it), and the output
/// phase (15). The same form as the bound under "With decode overlapped with MAC".
pub fn cycle_bound(layer: &ConvLayer, stats: &Stats, lanes: usize) -> f64 {
    let (_, schedule) = run(layer);
    let groups = layer.input_shape.2.div_ceil(8) as f64;
    let first = schedule.block_cycles[0];
    2.0 + stats.scale_bias as f64 + stats.decode as f64 / groups + (schedule.cycles_with_lanes(lanes) - first) as f64 + 15.0
}
