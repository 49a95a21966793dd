//! Driving the MNIST NPU chip at its pins: pin programs that follow the datasheet's timing
//! ([`program`]) and the text trace format that stores any pin sequence ([`trace`]).
pub mod data;
pub mod demo;
pub mod driver;
pub mod network;
pub mod program;
pub mod trace;
pub mod train;
