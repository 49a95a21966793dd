//! The synthesis check each block file runs on itself (`cargo test -p npu-hdl`): yosys
//! elaborates the block's Verilog (`prep`: processes to registers and logic, where a latch
//! would appear as `$dlatch`) and must find no latch, no combinational loop, and no net with
//! several drivers or none. The full technology mapping is `make synth` (npu_gen::fpga).
use rust_hdl::prelude::{generate_verilog, Block};
use std::process::Command;

/// `build` makes the block, on a large stack ([`crate::on_large_stack`]).
pub fn assert_synthesizes<B: Block>(build: impl FnOnce() -> B + Send + 'static, name: &str) {
    let verilog = crate::on_large_stack(move || {
        let mut block = build();
        block.connect_all();
        generate_verilog(&block)
    });
    let dir = std::env::temp_dir().join(format!("npu-synth-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("top.v");
    std::fs::write(&file, verilog).unwrap();
    let script = format!(
        "read_verilog -sv {}; prep -top top; check -assert; select -assert-none t:$dlatch t:$_DLATCH*",
        file.display()
    );
    let out = Command::new("yosys").args(["-q", "-p", &script]).output().expect("yosys is installed by make deps");
    assert!(
        out.status.success(),
        "{name} does not synthesise cleanly:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
