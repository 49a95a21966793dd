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
        (&["ethos", "encode", &bad_text, &out], "bad.txt:2: 'x' is not a weight (an integer -255..255)"),
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

/// Streams the decoder's port cannot carry as they are, and endless padding: an empty file,
/// a good stream with 1-3 bytes more (its weights, nothing from the extra bytes, then the
/// length fault), 20 MB of 0xFF (refused at once, not after minutes). Exit 2, the file and
/// the fault named.
#[test]
fn empty_partial_and_padded_streams_exit_2_with_the_reason() {
    let weights: Vec<i16> = vec![3, -1, 0, 0, 7];
    let text: String = weights.iter().map(|w| format!("{w}\n")).collect();
    let (input, good) = (scratch("five.txt"), scratch("five.bin"));
    std::fs::write(&input, &text).unwrap();
    assert!(npu(&["ethos", "encode", &input, &good]).status.success());
    let stream = std::fs::read(&good).unwrap();
    let (empty, partial, padded) = (scratch("empty.bin"), scratch("partial.bin"), scratch("padded.bin"));
    std::fs::write(&empty, []).unwrap();
    std::fs::write(&partial, [stream.as_slice(), &[0x12, 0x34]].concat()).unwrap();
    std::fs::write(&padded, vec![0xFF; 20 << 20]).unwrap();
    let cases = [
        (&empty, "", "the stream ends without an end marker (or is empty) (error code 2)"),
        (&partial, text.as_str(), "the stream's length is not a multiple of 16 bytes (128-bit words) (error code 3)"),
        (&padded, "", "more than 15 bytes of padding after an end marker (error code 12)"),
    ];
    for (file, printed, fault) in cases {
        for extra in [&[][..], &["--model"]] {
            let start = std::time::Instant::now();
            let o = npu(&[&["ethos", "decode", file][..], extra].concat());
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{file} {extra:?}: {stderr}");
            assert!(stderr.contains(&format!("{file}: malformed stream: {fault}")), "{file} {extra:?}: {stderr}");
            assert_eq!(String::from_utf8_lossy(&o.stdout), printed, "{file} {extra:?}");
            assert!(start.elapsed().as_secs() < 10, "{file} {extra:?}: {:?}", start.elapsed());
        }
    }
}
