//! Python for the tests that run real Python packages: a virtual environment in the
//! target directory per set of pinned requirements, made if missing and brought up to
//! date when the requirements change; `IHIGRAPH_SKIP_PYTHON=1` skips those tests, and
//! they say so.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The target directory cargo builds into, where the virtual environments go too.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || root().join("target"),
        |dir| {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root().join(dir)
            }
        },
    )
}

/// Whether the environment says to skip the tests that need Python; says so when it
/// does.
pub fn skipped(what: &str) -> bool {
    let skip = std::env::var("IHIGRAPH_SKIP_PYTHON").is_ok_and(|value| value == "1");
    if skip {
        eprintln!("skipped: IHIGRAPH_SKIP_PYTHON=1 ({what} is not tested)");
    }
    skip
}

/// Runs `command`, failing with its output when it fails.
pub fn run(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("{what}: cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The virtual environment `name` in the target directory with the pinned
/// `requirements` (a path from the repository's root) installed.
pub fn venv(name: &str, requirements: &str) -> PathBuf {
    let venv = target_dir().join(name);
    let python = venv.join("bin/python");
    let python3 = std::env::var("IHIGRAPH_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    if !python.exists() {
        run(
            Command::new(&python3).args(["-m", "venv"]).arg(&venv),
            "making a virtual environment (Debian: apt-get install python3-venv; or set IHIGRAPH_SKIP_PYTHON=1 to skip)",
        );
    }
    let wanted = std::fs::read_to_string(root().join(requirements)).unwrap();
    let stamp = venv.join("ihigraph-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        pip_install(
            &venv,
            &["-r".as_ref(), root().join(requirements).as_os_str()],
            &format!("installing {requirements} from PyPI"),
        );
        std::fs::write(&stamp, wanted).unwrap();
    }
    venv
}

/// `pip install ARGUMENTS` in the virtual environment `venv`, quietly; fails with pip's
/// output.
pub fn pip_install(venv: &Path, arguments: &[&std::ffi::OsStr], what: &str) -> Output {
    run(
        Command::new(venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(arguments),
        what,
    )
}
