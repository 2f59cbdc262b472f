//! Faults of the place the store lives: a full disk, a read-only file system, a store
//! the user may not read. Each gives a clear error and a non-zero exit, and leaves every
//! stored session whole. The file systems are small tmpfs mounts, which needs root
//! (CAP_SYS_ADMIN); the unreadable store needs root to run ihigraph as another user.
//! Where that is not possible, each test prints that it skipped.
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where skips and findings are reported.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{examples_dir, ihigraph};
use ihigraph::HistoryStore;
use ihigraph::generate::GenerateOptions;
use ihigraph::generate::generate;
use predicates::prelude::*;
use predicates::str::contains;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted on a temporary directory, unmounted when dropped.
struct Mount {
    point: PathBuf,
    _dir: tempfile::TempDir,
}

impl Mount {
    /// A tmpfs of `megabytes`, or None (after saying so) where mounting is not allowed.
    fn tmpfs(megabytes: u32) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let point = dir.path().to_owned();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(&point)
            .output()
            .is_ok_and(|output| output.status.success());
        if !mounted {
            eprintln!("skipped: cannot mount a tmpfs here (needs root)");
            return None;
        }
        Some(Self { point, _dir: dir })
    }

    fn remount(&self, options: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.point)
            .status()
            .unwrap();
        assert!(status.success(), "remount {options}");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.point).status();
    }
}

/// Every stored session exports exactly as one of `inputs` (by SessionID).
fn assert_sessions_whole(store: &Path, inputs: &[serde_json::Value]) -> usize {
    let store = HistoryStore::open(store, &Default::default()).unwrap();
    let sessions = store.sessions().unwrap();
    for (id, _) in &sessions {
        let input = inputs
            .iter()
            .find(|document| document["SessionID"] == id.as_str())
            .unwrap_or_else(|| panic!("session {id} was never ingested"));
        assert_eq!(
            &serde_json::to_value(store.history(id).unwrap()).unwrap(),
            input,
            "session {id} is not whole"
        );
    }
    sessions.len()
}

fn examples() -> Vec<serde_json::Value> {
    std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|entry| {
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn a_full_disk_is_a_clear_error_and_leaves_every_session_whole() {
    let Some(mount) = Mount::tmpfs(12) else {
        return;
    };
    let store = mount.point.join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    // Far more than 12 MB of quads, in small batches so that some fit.
    let corpus: Vec<serde_json::Value> = generate(GenerateOptions {
        sessions: 60,
        seed: 5,
        ..Default::default()
    })
    .collect();
    let input = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    let lines: String = corpus.iter().map(|d| format!("{d}\n")).collect();
    std::fs::write(input.path(), lines).unwrap();
    ihigraph(&store)
        .args(["ingest", "--batch-quads", "20000"])
        .arg(input.path())
        .assert()
        .code(3)
        .stderr(
            contains("cannot store")
                .and(contains(
                    "of earlier batches stored; every session is whole or absent",
                ))
                .and(contains("No space left on device")),
        );
    // With room again, the store opens and holds the examples and whole sessions only.
    mount.remount("size=1024m");
    let mut inputs = examples();
    let examples_count = inputs.len();
    inputs.extend(corpus);
    let stored = assert_sessions_whole(&store, &inputs);
    assert!(
        stored >= examples_count && stored < inputs.len(),
        "{stored}"
    );
}

#[test]
fn a_read_only_store_is_a_clear_error_and_stays_as_it_was() {
    let Some(mount) = Mount::tmpfs(64) else {
        return;
    };
    let store = mount.point.join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    mount.remount("ro");
    for command in [&["info"][..], &["ingest", "-"][..]] {
        ihigraph(&store)
            .args(command)
            .write_stdin("{}")
            .assert()
            .code(3)
            .stderr(contains("cannot open store").and(contains("Read-only file system")));
    }
    mount.remount("rw");
    assert_eq!(assert_sessions_whole(&store, &examples()), 4);
}

#[test]
fn an_unreadable_store_is_a_clear_error() {
    let Some(mount) = Mount::tmpfs(64) else {
        return;
    };
    // The mount point is open to all, the store inside it to its owner only.
    std::fs::set_permissions(
        &mount.point,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let store = mount.point.join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    std::fs::set_permissions(&store, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("ihigraph");
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&binary)
        .arg("--store")
        .arg(&store)
        .arg("info")
        .env_remove("IHIGRAPH_STORE")
        .output();
    let Ok(output) = output else {
        eprintln!("skipped: setpriv is not available");
        return;
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.starts_with("setpriv:") {
        eprintln!("skipped: cannot run ihigraph as another user here: {stderr}");
        return;
    }
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(assert_sessions_whole(&store, &examples()), 4);
}
