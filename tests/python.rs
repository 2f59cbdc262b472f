//! The Python package (python/): its wheel built by maturin from this workspace (the dev
//! profile, so that it reuses the compiled Oxigraph and RocksDB of the test build),
//! installed into a virtual environment (`python-venv` in the target directory, made if
//! missing, with python/requirements-test.txt), and pytest run there: python/tests, the
//! docstrings' examples (`--doctest-modules` over the installed package) and
//! python/README.md's. Fails with pytest's output when any fails, and when Python or the
//! packages are missing, unless `IHIGRAPH_SKIP_PYTHON=1` says to skip.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

mod common;

use common::python::{pip_install, root, run, skipped, target_dir, venv};
use std::process::Command;

#[test]
fn the_python_package_passes_its_tests_and_doctests() {
    if skipped("the Python package") {
        return;
    }
    let venv = venv("python-venv", "python/requirements-test.txt");
    let python = venv.join("bin/python");
    let wheels = target_dir().join("python-wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    // The dev profile, as `cargo test` builds: the same features and profile for the
    // shared dependencies, so RocksDB is not compiled again. CC and CXX (ccache) pass
    // through from the environment.
    run(
        Command::new(venv.join("bin/maturin"))
            .current_dir(root().join("python"))
            .args(["build", "--profile", "dev", "--interpreter"])
            .arg(&python)
            .arg("--out")
            .arg(&wheels)
            .env("CARGO_TARGET_DIR", target_dir()),
        "building the wheel with maturin",
    );
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "whl"))
        .expect("maturin wrote a wheel");
    pip_install(
        &venv,
        &[
            "--force-reinstall".as_ref(),
            "--no-deps".as_ref(),
            wheel.as_os_str(),
        ],
        "installing the wheel",
    );
    // From python/tests, so that `import ihigraph` is the installed package, not the
    // source folder beside it (which lacks the compiled module).
    let output = Command::new(&python)
        .current_dir(root().join("python/tests"))
        .args([
            "-m",
            "pytest",
            "-c",
            "../pytest.ini",
            "--rootdir",
            "..",
            "-p",
        ])
        .args([
            "no:cacheprovider",
            "-ra",
            "--doctest-modules",
            "--doctest-glob=README.md",
        ])
        .args([".", "../README.md", "--pyargs", "ihigraph"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "pytest failed:\n{text}");
    let summary = text.lines().last().unwrap_or_default();
    assert!(summary.contains(" passed"), "{text}");
    eprintln!("pytest: {summary}");
}
