//! `npu mnist` at the command line, for issue 16's findings: bad pin traces and a gzip bomb
//! end in one message naming the file, line and word with exit status 2 (no panic, no huge
//! allocation, nothing on stdout); the FIFO path runs a network whose hidden layer is wider
//! than the FIFO without a mismatch.
use npu::mnist::network::{Layer, Network};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output};

fn npu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npu")).args(args).output().expect("runs npu")
}

fn scratch(name: &str, bytes: &[u8]) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mnist_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

fn gzip(chunks: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for chunk in chunks {
        encoder.write_all(&chunk).unwrap();
    }
    encoder.finish().unwrap()
}

/// Status 2, the message on stderr, nothing on stdout, no panic.
fn assert_refused(args: &[&str], expected: &str) {
    let o = npu(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(expected), "{args:?}: expected {expected:?} in\n{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("Some("), "{args:?}: {stderr}");
    assert!(stdout.is_empty(), "{args:?}: output before the error:\n{stdout}");
}

#[test]
fn bad_traces_are_refused_by_line_and_word_before_any_output() {
    let reset = "10010000 00 00 00 00\n";
    let cases = [
        ("huge_repeat.trace", format!("{reset}00010000 00 00 00 00 x18446744073709551615\n"), "line 2: repeat count 'x18446744073709551615' is more than 4294967295"),
        ("signed_byte.trace", format!("{reset}00010000 00 00 +f 00\n"), "line 2: DC must be two hexadecimal digits, found '+f'"),
        ("signed_repeat.trace", format!("{reset}00010000 00 00 00 00 x+3\n"), "line 2: expected a repeat count like x3"),
        // A billion cycles before the bad line: found by the check, nothing run or allocated.
        ("late_error.trace", format!("{reset}00010000 00 00 00 00 x999999999\n00010000 00 00 00 0\n"), "line 3: DD must be two hexadecimal digits, found '0'"),
    ];
    for (name, text, expected) in cases {
        let path = scratch(name, text.as_bytes());
        for model in [&[][..], &["--model"]] {
            let args: Vec<&str> = ["mnist", "replay", &path].into_iter().chain(model.iter().copied()).collect();
            assert_refused(&args, &format!("{name}: {expected}"));
        }
    }
}

#[test]
fn a_gzip_bomb_given_as_data_is_refused() {
    // 200 MB of zeros, compressed to about 200 KB.
    let bomb = scratch("bomb.csv.gz", &gzip((0..200).map(|_| vec![0u8; 1 << 20])));
    assert_refused(&["mnist", "--data", &bomb, "--images", "1"], "bomb.csv.gz:1: longer than 16384 bytes");
}

/// A 784-80-10 network on the FIFO path: 40 frames, 160 bytes for the 128-byte FIFO.
#[test]
fn fifo_path_with_a_hidden_layer_wider_than_the_fifo_runs_without_mismatch() {
    let mut rng = SmallRng::seed_from_u64(80);
    let mut layer = |inputs: usize, neurons: usize, relu, shift| Layer {
        weights: (0..neurons).map(|_| (0..inputs).map(|_| rng.gen_range(-20..20)).collect()).collect(),
        biases: (0..neurons).map(|_| rng.gen()).collect(),
        relu,
        shift,
    };
    let network = Network { input_shift: 4, layers: vec![layer(784, 80, true, 8), layer(80, 10, false, 0)] };
    let weights = scratch("wide.txt", network.to_text("784-80-10").as_bytes());
    let lines: Vec<Vec<u8>> = (0..5).map(|k| format!("{},{k}\n", vec!["17"; 784].join(",")).into_bytes()).collect();
    let data = scratch("five.csv.gz", &gzip(lines));
    let o = npu(&["mnist", "--output", "fifo", "--weights", &weights, "--data", &data]);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stdout.starts_with("network 784-80-10: ") && !stderr.contains("MISMATCH"), "{stdout}\n{stderr}");
}
