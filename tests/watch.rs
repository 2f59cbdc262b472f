//! `ingest --watch` against a writer that appends a Claude Code transcript line by line
//! while the watcher runs, with half-written lines, a kill of the watcher in the middle
//! and a restart: at the end the store holds every turn written, each once, and a last
//! turn that awaited its response is completed in place when the answer comes.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

mod common;

use common::ihigraph;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SESSION: &str = "6a7b8c9d-0000-4000-8000-00000000beef";

/// How long the watcher may take to catch up with the writer before the test fails.
const CATCH_UP: Duration = Duration::from_secs(60);

/// One line of a Claude Code transcript.
fn line(kind: &str, n: usize, parent: Option<&str>, content: &Value) -> (String, String) {
    let uuid = format!("00000000-0000-4000-8000-{n:012}");
    let mut message = json!({"role": kind, "content": content});
    if kind == "assistant" {
        message["id"] = json!(format!("msg_{n}"));
        message["type"] = json!("message");
    }
    let line = json!({
        "parentUuid": parent, "isSidechain": false, "sessionId": SESSION, "type": kind,
        "message": message, "uuid": uuid,
        "timestamp": format!("2026-11-26T10:{:02}:{:02}.{:03}Z", n / 60_000 % 60, n / 1000 % 60, n % 1000),
    });
    (line.to_string(), uuid)
}

/// Appends transcript lines to a file as an agent does, a turn at a time.
struct Writer {
    file: std::fs::File,
    lines: usize,
    parent: Option<String>,
    turns: usize,
}

impl Writer {
    fn new(path: &Path) -> Self {
        Self {
            file: std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap(),
            lines: 0,
            parent: None,
            turns: 0,
        }
    }

    fn append(&mut self, kind: &str, content: &Value, split: bool) {
        self.lines += 1;
        let (text, uuid) = line(kind, self.lines, self.parent.as_deref(), content);
        let text = format!("{text}\n");
        if split {
            // Half a line first: the watcher must wait for its end.
            let (head, tail) = text.split_at(text.len() / 2);
            self.file.write_all(head.as_bytes()).unwrap();
            self.file.flush().unwrap();
            std::thread::sleep(Duration::from_millis(30));
            self.file.write_all(tail.as_bytes()).unwrap();
        } else {
            self.file.write_all(text.as_bytes()).unwrap();
        }
        self.file.flush().unwrap();
        self.parent = Some(uuid);
    }

    /// One turn: the user's question and the answer, every `split`-th line split.
    fn turn(&mut self) {
        let n = self.turns;
        self.append(
            "user",
            &json!(format!("Frage {n}: wie spät ist es in Zürich?")),
            n % 7 == 3,
        );
        self.append(
            "assistant",
            &json!([{"type": "text", "text": format!("Antwort {n}")}]),
            n % 11 == 5,
        );
        self.turns += 1;
    }

    /// `count` turns at `per_second`.
    fn turns(&mut self, count: usize, per_second: u32) {
        let pause = Duration::from_secs(1) / per_second;
        for _ in 0..count {
            let started = Instant::now();
            self.turn();
            std::thread::sleep(pause.saturating_sub(started.elapsed()));
        }
    }
}

/// The watcher, and its standard output's lines as they come.
struct Watcher {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Watcher {
    fn start(store: &Path, dir: &Path) -> Self {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("ihigraph"))
            .arg("--store")
            .arg(store)
            .args(["ingest", "--watch", "--from", "auto"])
            .arg(dir)
            .env_remove("IHIGRAPH_STORE")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if sender.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Self { child, lines }
    }

    /// Waits until the watcher says the session has `turns` turns (and, with
    /// `awaiting`, that the last awaits its response); the seconds it took.
    fn until(&self, turns: usize, awaiting: bool) -> f64 {
        let started = Instant::now();
        let wanted = format!("{turns} turns");
        loop {
            let left = CATCH_UP.saturating_sub(started.elapsed());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!("the watcher did not store {wanted} within {CATCH_UP:?}")
            });
            let said_turns = line.contains(&format!(": {wanted}"));
            if said_turns && line.contains("awaits its response") == awaiting {
                return started.elapsed().as_secs_f64();
            }
        }
    }

    /// SIGTERM, and its exit status.
    fn stop(mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        self.child.wait().unwrap()
    }
}

/// The session's turns in the store: (turnIndex, promptText, awaiting) in order.
fn stored_turns(store: &Path) -> Vec<(u64, String, bool)> {
    let output = ihigraph(store)
        .args([
            "query",
            "transcript",
            "--param",
            &format!("session={SESSION}"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Value = serde_json::from_slice(&output.stdout).unwrap();
    results["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["turnIndex"]["value"].as_str().unwrap().parse().unwrap(),
                row["promptText"]["value"].as_str().unwrap_or("").to_owned(),
                row["awaiting"]["value"] == "true",
            )
        })
        .collect()
}

fn sessions(store: &Path) -> usize {
    let output = ihigraph(store)
        .args(["sessions", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let results: Value = serde_json::from_slice(&output.stdout).unwrap();
    results["results"]["bindings"].as_array().unwrap().len()
}

#[test]
fn a_watched_transcript_is_stored_whole_through_a_kill_and_a_restart() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let transcript: PathBuf = dir.path().join("project").join(format!("{SESSION}.jsonl"));
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let mut writer = Writer::new(&transcript);
    writer.turns(5, 100);

    let watcher = Watcher::start(store.path(), dir.path());
    watcher.until(5, false);
    writer.turns(195, 100);
    let lag_first = watcher.until(200, false);
    // Killed without a word, while the writer goes on.
    let mut killed = watcher;
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    writer.turns(100, 100);

    let watcher = Watcher::start(store.path(), dir.path());
    writer.turns(100, 100);
    let lag_second = watcher.until(400, false);
    // The user's last word: a turn that awaits its response...
    writer.append("user", &json!("Und in Tokio?"), false);
    watcher.until(401, true);
    // ...completed when the answer comes, not stored twice.
    writer.append(
        "assistant",
        &json!([{"type": "text", "text": "Eine Stunde später."}]),
        false,
    );
    watcher.until(401, false);
    assert!(
        watcher.stop().success(),
        "SIGTERM stops the watcher cleanly"
    );
    eprintln!(
        "after 195 and 200 turns at 100 turns/s, the store caught up in {lag_first:.2} s and {lag_second:.2} s"
    );

    assert_eq!(sessions(store.path()), 1, "one file, one session");
    let turns = stored_turns(store.path());
    assert_eq!(turns.len(), 401, "every turn, each once");
    for (position, (index, prompt, awaiting)) in turns.iter().enumerate() {
        assert_eq!(*index, position as u64);
        assert!(!awaiting, "turn {index} is complete");
        if position < 400 {
            assert_eq!(
                prompt,
                &format!("Frage {position}: wie spät ist es in Zürich?")
            );
        }
    }
    assert_eq!(turns[400].1, "Und in Tokio?");
}

#[test]
fn watch_refuses_pgm_ihi_and_needs_a_path() {
    let store = tempfile::tempdir().unwrap();
    ihigraph(store.path())
        .args(["ingest", "--watch", "."])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "give --from FORMAT or --from auto",
        ));
    ihigraph(store.path())
        .args(["ingest", "--poll", "1", "--from", "auto", "."])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--watch"));
}
