//! `npu ethos encode` / `npu ethos decode`: a weights file round-trips through the
//! project's encoder and the Verilated decoder (and the model); bad files and malformed
//! streams exit 2 with a message naming the file and the fault.
use std::path::PathBuf;
use std::process::{Command, Output};

fn npu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npu")).args(args).output().expect("runs npu")
}

fn scratch(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ethos_cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}

#[test]
fn weights_round_trip_through_encoder_and_decoder() {
    let weights: Vec<i16> = (0..1000).map(|i: i32| if i % 7 == 0 { 0 } else { ((i * 37) % 511 - 255) as i16 }).collect();
    let text: String = weights.iter().map(|w| format!("{w}\n")).collect();
    let (input, stream) = (scratch("weights.txt"), scratch("stream.bin"));
    std::fs::write(&input, format!("# test weights\n{text}")).unwrap();
    let encoded = npu(&["ethos", "encode", &input, &stream]);
    assert!(encoded.status.success(), "{}", String::from_utf8_lossy(&encoded.stderr));
    for extra in [&[][..], &["--model"]] {
        let decoded = npu(&[&["ethos", "decode", &stream][..], extra].concat());
        assert!(decoded.status.success(), "{}", String::from_utf8_lossy(&decoded.stderr));
        assert_eq!(String::from_utf8(decoded.stdout).unwrap(), text, "{extra:?}");
        assert!(String::from_utf8_lossy(&decoded.stderr).contains("1000 weights"));
    }
}

#[test]
fn bad_files_and_streams_exit_2_with_the_reason() {
    let (bad_text, bad_stream, out) = (scratch("bad.txt"), scratch("bad.bin"), scratch("out.bin"));
    std::fs::write(&bad_text, "1 2\n3 x\n").unwrap();
    std::fs::write(&bad_stream, [0x08, 0x00, 0x60, 0x25]).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["ethos", "encode", &bad_text, &out], "bad.txt:2: \"x\" is not a weight"),
        (&["ethos", "decode", &bad_stream], "malformed stream: the stream ends inside a slice (error code 1)"),
        (&["ethos", "decode", &bad_stream, "--model"], "malformed stream: the stream ends inside a slice"),
        (&["ethos", "decode", "/nonexistent/stream.bin"], "/nonexistent/stream.bin: "),
    ];
    for (args, message) in cases {
        let o = npu(args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    std::fs::write(&bad_text, "256\n").unwrap();
    let o = npu(&["ethos", "encode", &bad_text, &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("256"), "{}", String::from_utf8_lossy(&o.stderr));
}
