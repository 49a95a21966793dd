//! The `npu` command itself: help that lists every command and option, usage errors that name
//! the bad word and suggest the near one (exit status 2), shell completions, README's command
//! list against `--help`, and output paths checked before any long work starts.
use std::path::PathBuf;
use std::process::{Command, Output};

fn npu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_npu")).args(args).output().expect("runs npu")
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The subcommands a help text lists under "Commands:" (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(String::from)
        .collect()
}

/// Every command path (`["scale", "run"]`, ...) that has no subcommands of its own, read
/// from the help texts themselves.
fn leaf_commands() -> Vec<Vec<String>> {
    let mut leaves = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).chain(["--help"]).collect();
        let o = npu(&args);
        assert!(o.status.success(), "npu {args:?}: {}", text(&o).1);
        let subs = subcommands(&text(&o).0);
        // `npu mnist` runs the demo itself and has subcommands: both are commands.
        if subs.is_empty() || path == ["mnist"] {
            leaves.push(path.clone());
        }
        todo.extend(subs.into_iter().map(|s| [path.clone(), vec![s]].concat()));
    }
    leaves.sort();
    leaves
}

#[test]
fn help_lists_every_command_and_the_readme_matches_it() {
    let leaves = leaf_commands();
    for expected in [&["scale", "run"][..], &["scale", "iris"], &["scale", "train-iris"], &["mnist", "replay"], &["ethos", "decode"], &["completions"]] {
        assert!(leaves.iter().any(|l| l == expected), "{expected:?} missing from the help texts: {leaves:?}");
    }
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    // Every command of the tool is in the README, and every command and option the README
    // shows exists in the tool's help.
    let shown: Vec<&str> = readme.lines().flat_map(|l| l.split("cargo run --release -- ").skip(1)).collect();
    for leaf in &leaves {
        let words = leaf.join(" ");
        assert!(shown.iter().any(|s| s.starts_with(&words)), "README shows no `cargo run --release -- {words}`");
    }
    for line in &shown {
        let words: Vec<&str> = line.split_whitespace().map(|w| w.trim_end_matches(['`', ',', '.', ')'])).take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !w.starts_with('-')).collect();
        if words.is_empty() {
            continue; // `--help` itself
        }
        let leaf = leaves.iter().filter(|l| words.starts_with(&l.iter().map(String::as_str).collect::<Vec<_>>())).max_by_key(|l| l.len());
        let leaf = leaf.unwrap_or_else(|| panic!("README: `{line}` is not a command of npu"));
        let help = text(&npu(&[leaf.iter().map(String::as_str).collect::<Vec<_>>(), vec!["--help"]].concat())).0;
        for option in line.split(|c: char| c.is_whitespace() || c == '[' || c == ']').filter(|w| w.starts_with("--")) {
            assert!(help.contains(option), "README: `{line}`: {option} is not in `npu {} --help`", leaf.join(" "));
        }
    }
}

#[test]
fn usage_errors_name_the_bad_word_and_suggest_the_near_one() {
    let cases: [(&[&str], &[&str]); 7] = [
        (&["scale", "run", "x.txt", "--modle"], &["--modle", "--model"]),
        (&["scale", "bogus"], &["bogus"]),
        (&["scale", "iriss"], &["iriss", "iris"]),
        (&["help", "x"], &["x"]),
        (&["mnist", "--images"], &["--images"]),
        (&["mnist", "--output", "fifi"], &["fifi", "fifo"]),
        (&["mnist", "--images", "many"], &["many"]),
    ];
    for (args, words) in cases {
        let o = npu(args);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        for w in words {
            assert!(stderr.contains(&format!("'{w}")), "{args:?}: {w} not named in\n{stderr}");
        }
    }
    // A command group alone prints its own help, naming its subcommands.
    let o = npu(&["scale"]);
    assert_eq!(o.status.code(), Some(2));
    let (_, stderr) = text(&o);
    for w in ["npu scale", "run", "iris", "train-iris"] {
        assert!(stderr.contains(w), "npu scale: {w} missing in\n{stderr}");
    }
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, marker) in [("bash", "complete -F"), ("zsh", "#compdef npu"), ("fish", "complete -c npu")] {
        let o = npu(&["completions", shell]);
        let (stdout, stderr) = text(&o);
        assert!(o.status.success(), "{shell}: {stderr}");
        assert!(stdout.contains(marker), "{shell}: no {marker:?}");
        for word in ["train-iris", "replay", "decode", "weights"] {
            assert!(stdout.contains(word), "{shell}: {word} missing");
        }
    }
    assert_eq!(npu(&["completions", "tcsh"]).status.code(), Some(2));
}

/// Every path a command writes is checked before the work: a missing folder or a folder in
/// its place is an error naming it, exit status 2, and nothing runs.
#[test]
fn unwritable_outputs_are_refused_before_the_work() {
    let missing = scratch("missing-dir").join("x");
    let missing = missing.to_str().unwrap();
    let folder = scratch("a-folder");
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.to_str().unwrap();
    let weights = scratch("w.txt");
    std::fs::write(&weights, "1 2 3\n").unwrap();
    let stream = scratch("s.bin");
    assert!(npu(&["ethos", "encode", weights.to_str().unwrap(), stream.to_str().unwrap()]).status.success());
    let stream = stream.to_str().unwrap();
    let cases: [(&[&str], &str, &str); 6] = [
        (&["mnist", "--waves", "0", missing], missing, "cannot be written"),
        (&["mnist", "--waves", "0", folder], folder, "is a folder"),
        (&["mnist", "train", "--out", missing], missing, "cannot be written"),
        (&["scale", "train-iris", "--out", folder], folder, "is a folder"),
        (&["ethos", "encode", weights.to_str().unwrap(), missing], missing, "cannot be written"),
        (&["mnist", "--waves", "first", missing], "first", "is not an image number"),
    ];
    for (args, path, reason) in cases {
        let o = npu(args);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(path) && stderr.contains(reason), "{args:?}: {stderr}");
        assert!(!stderr.contains("training on") && !stderr.contains("MNIST NPU demo") && stdout.is_empty(), "{args:?} started work: {stderr}");
    }
    for waves in [missing, folder] {
        let o = Command::new(env!("CARGO_BIN_EXE_npu")).args(["ethos", "decode", stream]).env("NPU_WAVES", waves).output().unwrap();
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "NPU_WAVES={waves}: {stderr}");
        assert!(stderr.contains(&format!("NPU_WAVES={waves}")) && stdout.is_empty(), "{stderr}");
    }
    // Inputs with nothing in them are refused, not run as empty work.
    let empty = scratch("empty.txt");
    std::fs::write(&empty, "# only a comment\n\n").unwrap();
    let empty = empty.to_str().unwrap();
    for (args, reason) in [
        (&["mnist", "replay", empty][..], "the trace has no cycles"),
        (&["mnist", "replay", empty, "--model"], "the trace has no cycles"),
        (&["ethos", "encode", empty, stream], "no weights"),
        (&["scale", "run", empty], "holds no layer"),
    ] {
        let o = npu(args);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(empty) && stderr.contains(reason) && stdout.is_empty(), "{args:?}: {stderr}");
    }
    // A waveform that can be written is written.
    let fst = scratch("decode.fst");
    std::fs::remove_file(&fst).ok();
    let o = Command::new(env!("CARGO_BIN_EXE_npu")).args(["ethos", "decode", stream]).env("NPU_WAVES", &fst).output().unwrap();
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(std::fs::metadata(&fst).unwrap().len() > 0);
    assert_eq!(text(&o).0, "1\n2\n3\n");
}
