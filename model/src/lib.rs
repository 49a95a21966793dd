//! Cycle-accurate behavioural models of the NPU blocks, in pure Rust.
//!
//! Each model has the file name of its RTL block in `npu-hdl` and implements [`Block`], the
//! narrow interface through which the co-simulation harness, the benchmarks and the drivers
//! use it. Port structs name their fields exactly as the rust-hdl ports, so the Verilator
//! bridge maps them with no per-block glue.
use std::fmt::Debug;

pub mod ethos;
pub mod scale;
pub mod mnist;
pub mod nvdla;

/// One clocked (or combinational) block, stepped one clock cycle at a time.
pub trait Block: Default {
    /// Every input port but the clock, named as in the rust-hdl struct.
    type In: Clone + Debug;
    /// Every output port, named as in the rust-hdl struct.
    type Out: Clone + Debug + PartialEq;

    /// An input that resets the block in one cycle, or `None` for a combinational block.
    fn reset_input() -> Option<Self::In>;

    /// One clock cycle: returns the outputs as they are before the rising edge, with `input`
    /// applied (a Mealy output may depend on it), then takes the edge.
    fn step(&mut self, input: &Self::In) -> Self::Out;

    /// What the last `step` did, in a few words each ("accumulate", "saturate +", ...): the
    /// harness counts these, and a test asserts that each one was seen. A block reports one
    /// event a cycle; a composition (the chip) reports those of its parts.
    fn events(&self) -> &[&'static str];
}

/// `Block` for a combinational block model with `fn eval(&In) -> (Out, &'static str)` (the
/// outputs and what the inputs exercised) and a field `event` to keep the latter in.
#[macro_export]
macro_rules! combinational_block {
    ($block:ty) => {
        impl $crate::Block for $block {
            type In = In;
            type Out = Out;

            fn reset_input() -> Option<In> {
                None
            }

            fn step(&mut self, input: &In) -> Out {
                let (out, event) = Self::eval(input);
                self.event = event;
                out
            }

            fn events(&self) -> &[&'static str] {
                std::slice::from_ref(&self.event)
            }
        }
    };
}

/// `Block` for a sequential block model with a `reset` input, outputs that depend only on its
/// state (`fn outputs(&self) -> Out`), the edge as `fn clock(&mut self, &In) -> &'static str`
/// returning what it did, and a field `event` to keep that in. `In` and `Out` are the
/// model file's port structs. Variants: `mealy`, for outputs that also follow the inputs
/// (`fn outputs(&self, &In) -> Out`); `events`, for a block that reports several events a
/// cycle (`fn clock(&mut self, &In)` fills a field `events: Vec<&'static str>`).
#[macro_export]
macro_rules! sequential_block {
    ($block:ty) => {
        $crate::sequential_block!(@impl $block, input, [], one);
    };
    ($block:ty, mealy) => {
        $crate::sequential_block!(@impl $block, input, [input], one);
    };
    ($block:ty, events) => {
        $crate::sequential_block!(@impl $block, input, [], many);
    };
    ($block:ty, mealy, events) => {
        $crate::sequential_block!(@impl $block, input, [input], many);
    };
    (@impl $block:ty, $input:ident, [$($mealy:ident)?], $events:ident) => {
        impl $crate::Block for $block {
            type In = In;
            type Out = Out;

            fn reset_input() -> Option<In> {
                Some(In { reset: true, ..In::default() })
            }

            fn step(&mut self, $input: &In) -> Out {
                let out = self.outputs($($mealy)?);
                $crate::sequential_block!(@clock self, $input, $events);
                out
            }

            fn events(&self) -> &[&'static str] {
                $crate::sequential_block!(@events self, $events)
            }
        }
    };
    (@clock $self:ident, $input:ident, one) => {
        $self.event = $self.clock($input)
    };
    (@clock $self:ident, $input:ident, many) => {
        $self.clock($input)
    };
    (@events $self:ident, one) => {
        std::slice::from_ref(&$self.event)
    };
    (@events $self:ident, many) => {
        &$self.events
    };
}
