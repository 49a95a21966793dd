//! Driving the MNIST NPU chip at its pins: pin programs that follow the datasheet's timing
//! ([`program`]) and the text trace format that stores any pin sequence ([`trace`]).
pub mod data;
pub mod demo;
pub mod driver;
pub mod network;
pub mod program;
pub mod trace;
pub mod train;

/// A word from a user's file for an error message: in single quotes, non-printing
/// characters escaped, so the message shows what is in the file (not Rust's Debug text).
pub fn quoted(word: &str) -> String {
    format!("'{}'", word.escape_default())
}
