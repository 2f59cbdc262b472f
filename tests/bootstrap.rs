//! `.ci/libclang`, which `.ci/bootstrap` asks whether the RocksDB build will find
//! libclang, finds it as bindgen's loader does, and never takes libclang-cpp (the C++
//! interface some toolchain images ship alone) for it; and that `.ci/bootstrap` installs
//! the tests' needs for a test run only.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

fn detect(files: &[&str]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        std::fs::write(dir.path().join(file), b"").unwrap();
    }
    let output = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/libclang"))
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

#[test]
fn libclang_cpp_alone_is_missing_libclang() {
    let (found, text) = detect(&["libclang-cpp.so.14", "libclang-cpp.so"]);
    assert!(!found, "{text}");
    assert!(text.contains("libclang: missing"), "{text}");
}

#[test]
fn the_names_bindgen_loads_are_found() {
    for name in [
        "libclang.so.1",
        "libclang.so",
        "libclang-14.so",
        "libclang-14.so.1",
        "libclang.so.14.0.6",
    ] {
        let (found, text) = detect(&["libclang-cpp.so.14", name]);
        assert!(found, "{name}: {text}");
        assert!(text.trim_end().ends_with(name), "{name}: {text}");
    }
}

#[test]
fn other_clang_libraries_do_not_count() {
    let (found, text) = detect(&["libclangBasic.a", "libclang-cpp.so.14.0", "libclang.a"]);
    assert!(!found, "{text}");
}

/// What `.ci/bootstrap --plan` says the command needs: its `build:` and `tests:` lines.
fn plan(command: &[&str]) -> (String, Option<String>) {
    let output = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/bootstrap"))
        .arg("--plan")
        .args(command)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{command:?}: {text}");
    let line = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .map(str::to_owned)
    };
    (line("build: ").unwrap(), line("tests: "))
}

#[test]
fn trying_the_tool_installs_only_what_the_build_needs() {
    for command in [
        &["cargo", "run", "--", "demo"][..],
        &["cargo", "build", "--release"],
        &["cargo", "run", "--", "test"],
        &["cargo", "clippy", "--all-targets", "--", "-D", "warnings"],
        &["cargo", "--color", "always", "run"],
    ] {
        let (build, tests) = plan(command);
        assert_eq!(build, "libclang-dev ccache", "{command:?}");
        assert_eq!(tests, None, "{command:?} would install the tests' needs");
    }
}

#[test]
fn a_test_run_installs_what_the_tests_need_too() {
    for command in [
        &["cargo", "test"][..],
        &["cargo", "+stable", "--locked", "test", "--test", "cli"],
        &["cargo", "--color", "always", "test"],
        &["cargo", "t"],
        &["cargo", "nextest", "run"],
        &["--tests", "make", "check"],
    ] {
        let (build, tests) = plan(command);
        assert_eq!(build, "libclang-dev ccache", "{command:?}");
        let tests = tests.unwrap_or_else(|| panic!("{command:?} is a test run"));
        for need in [
            "strace",
            "default-jdk-headless",
            "virtuoso-opensource",
            "chromium",
            "python3-venv",
            "pip:owlready2",
            "pip:owlrl",
            "pip:SPARQLWrapper",
            "pip:oxigraph==",
            "pip:pyshacl==",
        ] {
            assert!(tests.contains(need), "{command:?} lacks {need}: {tests}");
        }
    }
}

/// The README's first command and CI's test step, as written there, keep to the rule.
#[test]
fn the_readme_and_ci_commands_install_what_they_should() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let first_block: Vec<&str> = readme
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("\n```")
        .next()
        .unwrap()
        .lines()
        .collect();
    assert_eq!(
        first_block,
        [
            ".ci/bootstrap cargo run -- demo",
            ".ci/bootstrap cargo test"
        ]
    );
    let (_, tests) = plan(&["cargo", "run", "--", "demo"]);
    assert_eq!(tests, None);
    let run = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(run.contains("step .ci/bootstrap cargo test\n"), "{run}");
    assert!(plan(&["cargo", "test"]).1.is_some());
}

/// A machine where nothing the build or the tests need is installed but libclang (which
/// `.ci/libclang` finds in the system's directories, as on this one): its PATH holds
/// only bash and the few tools `.ci/bootstrap` itself uses, and an `apt-get`, `sudo`,
/// `python3` and `cargo` that note how they were called and install nothing.
struct BareMachine {
    dir: tempfile::TempDir,
}

impl BareMachine {
    fn new() -> BareMachine {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        for tool in ["bash", "dirname", "id"] {
            let real = std::env::split_paths(&std::env::var_os("PATH").unwrap())
                .map(|path| path.join(tool))
                .find(|path| path.is_file())
                .unwrap_or_else(|| panic!("no {tool} on PATH"));
            std::os::unix::fs::symlink(real, bin.join(tool)).unwrap();
        }
        for (tool, script) in [
            ("apt-get", r#"echo "$*" >> "$FAKE_LOG/apt-get""#),
            ("sudo", r#"exec "$@""#),
            // `python3 -c 'import X'` finds nothing; `python3 -m pip install` notes it.
            (
                "python3",
                r#"[ "$1" = -c ] && exit 1; echo "$*" >> "$FAKE_LOG/pip""#,
            ),
            ("cargo", r#"echo "$*" >> "$FAKE_LOG/cargo""#),
        ] {
            let path = bin.join(tool);
            std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        BareMachine { dir }
    }

    /// Runs `.ci/bootstrap` with these arguments; gives what it asked apt-get to install,
    /// what it asked pip to install, and how it ran cargo.
    fn bootstrap(&self, arguments: &[&str]) -> (Vec<String>, Vec<String>, String) {
        let log = self.dir.path().join(format!("log-{}", arguments.join("-")));
        std::fs::create_dir(&log).unwrap();
        let output = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/bootstrap"))
            .args(arguments)
            .env("PATH", self.dir.path().join("bin"))
            .env("FAKE_LOG", &log)
            .env("IHIGRAPH_CHROMIUM", self.dir.path().join("no-chromium"))
            .env("CARGO_TARGET_DIR", self.dir.path().join("target"))
            .env_remove("CC")
            .env_remove("CXX")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{arguments:?}: {stderr}");
        let read = |name: &str| std::fs::read_to_string(log.join(name)).unwrap_or_default();
        let apt: Vec<String> = read("apt-get")
            .lines()
            .filter_map(|line| line.strip_prefix("install -y -qq "))
            .flat_map(|packages| packages.split(' ').map(str::to_owned))
            .collect();
        let pip: Vec<String> = read("pip")
            .lines()
            .filter_map(|line| line.strip_prefix("-m pip install --quiet "))
            .map(str::to_owned)
            .collect();
        (apt, pip, read("cargo").trim_end().to_owned())
    }
}

#[test]
fn on_a_bare_machine_the_first_command_installs_the_build_needs_alone() {
    let machine = BareMachine::new();
    let (apt, pip, cargo) = machine.bootstrap(&["cargo", "run", "--", "demo"]);
    assert_eq!(
        apt,
        ["ccache"],
        "libclang is here, so ccache alone is missing"
    );
    assert!(pip.is_empty(), "{pip:?}");
    assert_eq!(cargo, "run -- demo");

    let (apt, pip, cargo) = machine.bootstrap(&["cargo", "test"]);
    assert_eq!(
        apt,
        [
            "ccache",
            "strace",
            "default-jdk-headless",
            "virtuoso-opensource",
            "chromium",
            "python3-venv"
        ]
    );
    assert_eq!(
        pip,
        [
            "owlready2",
            "owlrl==7.6.2",
            "SPARQLWrapper==2.0.0",
            "oxigraph==0.5.13",
            "pyshacl==0.40.1"
        ]
    );
    assert_eq!(cargo, "test");
}
