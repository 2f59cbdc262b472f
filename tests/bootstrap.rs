//! `.ci/libclang`, which `.ci/bootstrap` asks whether the RocksDB build will find
//! libclang, finds it as bindgen's loader does, and never takes libclang-cpp (the C++
//! interface some toolchain images ship alone) for it.
#![allow(clippy::unwrap_used)]

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
