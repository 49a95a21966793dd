//! `npu-gen OUT_DIR`: writes one Verilog file per user-facing top and `ports.json`.
use std::{fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "build/verilog".into()));
    fs::create_dir_all(&out).unwrap_or_else(|e| panic!("cannot create {}: {e}", out.display()));
    let tops: Vec<_> = npu_gen::tops().into_iter().filter(|t| t.for_users).collect();
    for top in &tops {
        let path = out.join(format!("{}.v", top.name));
        fs::write(&path, &top.verilog).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        println!("{}", path.display());
    }
    let manifest = out.join("ports.json");
    fs::write(&manifest, npu_gen::manifest_json(&tops)).expect("write ports.json");
    println!("{}", manifest.display());
}
