//! Bad data and weight files give an error naming the file, the line and the problem; the
//! `npu mnist` command prints it and exits with status 2, never a panic.
use npu::mnist::data::{self, FileError};
use npu::mnist::network::{Layer, Network};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap()
}

/// A digit line: pixel k = k % 256, then the label.
fn digit_line(label: &str) -> String {
    let mut fields: Vec<String> = (0..784).map(|k| (k % 256).to_string()).collect();
    fields.push(label.into());
    fields.join(",")
}

fn data_error(name: &str, bytes: &[u8]) -> FileError {
    let path = temp(name, bytes);
    let error = data::load(&path).expect_err("a bad data file is refused");
    assert_eq!(error.path, path, "the error names the file");
    error
}

#[test]
fn bad_data_files_are_refused_with_the_line_and_the_problem() {
    let good = digit_line("7");
    let digits = data::load(&temp("good.csv.gz", &gzip(&format!("{good}\n{}\n", digit_line("3.0"))))).unwrap();
    assert_eq!((digits.len(), digits[0].label, digits[1].label, digits[0].pixels[257]), (2, 7, 3, 1));

    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no_such_file.csv.gz");
    assert!(data::load(&missing).unwrap_err().message.starts_with("cannot open"));
    assert!(data_error("plain.csv.gz", good.as_bytes()).message.starts_with("not a gzip-compressed text file"));
    let mut truncated = gzip(&good);
    truncated.truncate(truncated.len() / 2);
    assert!(data_error("truncated.csv.gz", &truncated).message.starts_with("not a gzip-compressed text file"));
    assert_eq!(data_error("empty.csv.gz", &gzip("")).message, "no digits in the file");

    let short = good.rsplit_once(',').unwrap().0.to_string();
    for (text, line, message) in [
        (format!("{good}\n{short}\n"), 2, "784 values, expected 784 pixels and a label"),
        (format!("{good}\n{}\n", digit_line("10")), 2, "label 10 is not a digit 0..=9"),
        (digit_line("x"), 1, "value 785: 'x' is not a number"),
        (good.replacen("0,", "256,", 1), 1, "value 1: 256 is not a whole number in 0..=255"),
        (good.replacen("0,", "-1,", 1), 1, "value 1: -1 is not a whole number in 0..=255"),
        (good.replacen("0,", "0.5,", 1), 1, "value 1: 0.5 is not a whole number in 0..=255"),
    ] {
        let error = data_error("bad.csv.gz", &gzip(&text));
        assert_eq!((error.line, error.message.as_str()), (Some(line), message));
    }
}

/// A gzip bomb: 200 MB of zeros in a 200 KB file. The reader stops at the limit with an
/// error saying so, and holds no more than a line in memory meanwhile; a file just under
/// the limit, in lines of digits, still loads.
#[test]
fn a_gzip_bomb_is_refused_at_the_decompression_limit() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![b'0'; 1 << 20];
    for _ in 0..200 {
        encoder.write_all(&zeros).unwrap();
    }
    let bomb = encoder.finish().unwrap();
    assert!(bomb.len() < 1 << 20, "{} bytes compressed", bomb.len());
    let error = data_error("bomb.csv.gz", &bomb);
    assert_eq!(error.line, Some(1));
    assert!(error.message.starts_with("longer than 16384 bytes"), "{}", error.message);

    // Lines of the right length, but too many of them.
    let line = digit_line("5") + "\n";
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let lines = data::MAX_DECOMPRESSED_BYTES as usize / line.len() + 1;
    for _ in 0..lines {
        encoder.write_all(line.as_bytes()).unwrap();
    }
    let error = data_error("many_lines.csv.gz", &encoder.finish().unwrap());
    assert_eq!((error.line, error.message.as_str()), (None, "decompresses to more than 67108864 bytes, far more than a digit file (the limit is in src/mnist/data.rs)"));

    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..lines - 1 {
        encoder.write_all(line.as_bytes()).unwrap();
    }
    let digits = data::load(&temp("at_the_limit.csv.gz", &encoder.finish().unwrap())).unwrap();
    assert_eq!(digits.len(), lines - 1);
}

/// A two-layer weight file 784-2-10 with every value 1, with `edit` applied to its lines,
/// written to `name`.
fn weights(name: &str, edit: impl FnOnce(&mut Vec<String>)) -> Result<Network, FileError> {
    let row = |inputs: usize| vec!["1"; inputs + 1].join(" ");
    let mut lines = vec!["# a comment".to_string(), "npu-mnist-mlp 1".into(), "input_shift 4".into(), "layer 784 2 relu shift 9".into()];
    lines.extend((0..2).map(|_| row(784)));
    lines.push("layer 2 10 linear shift 0".into());
    lines.extend((0..10).map(|_| row(2)));
    edit(&mut lines);
    Network::load(&temp(name, lines.join("\n").as_bytes()))
}

#[test]
fn bad_weight_files_are_refused_with_the_line_and_the_problem() {
    assert_eq!(weights("weights.txt", |_| ()).unwrap().shape(), [2, 10]);
    let cases: Vec<(Box<dyn FnOnce(&mut Vec<String>)>, Option<usize>, &str)> = vec![
        (Box::new(|l| l[1] = "npu-mnist-mlp 2".into()), Some(2), "expected the header 'npu-mnist-mlp 1', found 'npu-mnist-mlp 2'"),
        (Box::new(|l| l[2] = "input_shift 9".into()), Some(3), "input_shift: 9 is outside 0..=7"),
        (Box::new(|l| l[3] = "layer 783 2 relu shift 9".into()), Some(4), "layer 1 takes 783 inputs, but its input has 784 values"),
        (Box::new(|l| l[6] = "layer 3 10 linear shift 0".into()), Some(7), "layer 2 takes 3 inputs, but its input has 2 values"),
        (Box::new(|l| l[3] = "layer 784 2 sigmoid shift 9".into()), Some(4), "expected 'layer INPUTS NEURONS relu|linear shift S', found 'layer 784 2 sigmoid shift 9'"),
        (Box::new(|l| l[7] = "1 1".into()), Some(8), "2 values, expected a bias and 2 weights"),
        (Box::new(|l| l[7] = "1 128 1".into()), Some(8), "128 is outside -128..=127"),
        (Box::new(|l| l[7] = "1 -129 1".into()), Some(8), "-129 is outside -128..=127"),
        (Box::new(|l| l[7] = "1 0.5 1".into()), Some(8), "'0.5' is not an integer"),
        (Box::new(|l| l.truncate(10)), None, "the file ends where neuron 4 of layer 2 should be"),
        (Box::new(|l| l.truncate(3)), None, "no layers"),
    ];
    for (edit, line, message) in cases {
        let error = weights("weights.txt", edit).expect_err("a bad weight file is refused");
        assert!(error.path.ends_with("weights.txt"));
        assert_eq!((error.line, error.message.as_str()), (line, message));
    }
}

/// The command: each bad file ends in one line on stderr naming it, status 2, no panic.
#[test]
fn the_command_reports_bad_files_without_a_panic() {
    let network = weights("command_weights.txt", |_| ()).unwrap();
    let nine_outputs = Network { layers: vec![network.layers[0].clone(), Layer { weights: vec![vec![1; 2]; 9], biases: vec![0; 9], ..network.layers[1].clone() }], ..network.clone() };
    let good_weights = temp("good_weights.txt", network.to_text("").as_bytes());
    let good_data = temp("five.csv.gz", &gzip(&(0..5).map(|k| digit_line(&k.to_string())).collect::<Vec<_>>().join("\n")));
    let out_of_range = temp("range.txt", std::fs::read_to_string(&good_weights).unwrap().replacen("\n1 ", "\n300 ", 1).as_bytes());
    let cases = [
        (vec!["--weights".into(), temp("nine.txt", nine_outputs.to_text("").as_bytes())], "nine.txt: the last layer has 9 neurons, not one per digit (10)"),
        (vec!["--weights".into(), out_of_range], "range.txt:4: 300 is outside -128..=127"),
        (vec!["--weights".into(), good_weights.clone(), "--data".into(), temp("garbage.csv.gz", b"\x1f\x8b garbage")], "garbage.csv.gz: not a gzip-compressed text file"),
        (vec!["--weights".into(), good_weights.clone(), "--data".into(), good_data.clone(), "--images".into(), "3".into()], "--images 3: choose 1 to 1 held-out digits"),
    ];
    for (args, expected) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_npu")).arg("mnist").args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected) && !stderr.contains("panicked"), "{args:?}: expected {expected:?} in\n{stderr}");
    }
}
