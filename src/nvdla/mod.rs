//! NVDLA nv_small (seeds/001): NVIDIA's own trace tests, read and played on the RTL
//! (`npu_hdl::nvdla`) or its model (docs/nvdla.md), and the memory image they load and check.
pub mod memory;
pub mod player;
pub mod trace;

use std::path::{Path, PathBuf};

/// A folder of NVIDIA's data: the one the environment variable `var` names, or
/// `shared/nvdla/<name>` beside the project at `root` (where CI has them). Not copied into
/// this repository (NVIDIA's licence; shared/nvdla/README.md).
pub fn shared_folder(var: &str, name: &str, root: &Path) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| root.join("../shared/nvdla").join(name))
}
