//! ScaleNPU (`seeds/004`, docs/scale.md): the bench's memory, layers and their memory
//! image, the register-level driver used by `npu scale run`, the tests and the benchmark,
//! and the Iris workload.
pub mod iris;
pub mod layer;
pub mod layer_file;
pub mod memory;
pub mod program;
pub mod driver;

/// An integer in `range`, decimal or `0x` hex, for the layer and model files.
pub(crate) fn integer(word: &str, range: std::ops::RangeInclusive<i64>) -> Result<i64, String> {
    let parsed = match word.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => word.parse::<i64>().ok(),
    };
    parsed.filter(|v| range.contains(v)).ok_or_else(|| format!("`{word}` is not an integer in {}..={}", range.start(), range.end()))
}
