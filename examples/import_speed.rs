//! Conversion speed of each importer, on one core: each format's fixtures
//! (`tests/fixtures/import/FORMAT/`, the `broken-*` ones left out) copied into a
//! directory until it holds a few MB, then converted as `convert` does, nothing written.
//! Prints one line per format: files, MB, seconds, MB/s, turns/s.
//!
//! With `--chat SESSIONS OUT`, it writes instead the seeded synthetic corpus
//! (`ihigraph generate --seed 1`) as OpenAI Chat Completions conversations, one message
//! array per line, for `benches/import.sh` to compare `ingest --from openai-chat` with
//! plain `ingest` of the same sessions.
//!
//!   cargo run --release --example import_speed [-- MB]          (default 4 MB)
//!   cargo run --release --example import_speed -- --chat 1000 chat.jsonl
#![allow(clippy::print_stdout, clippy::unwrap_used)] // A command-line example prints.

use ihigraph::import::{Choice, IMPORTERS, ImportEvent, ImportOptions, import_paths};
use ihigraph::payload::{PayloadKind, find_tool_calls, find_tool_results, payload_text};
use serde_json::{Value, json};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--chat") {
        let sessions: usize = args.get(1).ok_or("--chat SESSIONS OUT")?.parse()?;
        let out = args.get(2).ok_or("--chat SESSIONS OUT")?;
        return write_chat_corpus(sessions, Path::new(out));
    }
    let megabytes: f64 = args.first().map_or(Ok(4.0), |a| a.parse())?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import");
    println!("| format | files | MB | seconds | MB/s | turns/s |");
    println!("|---|---:|---:|---:|---:|---:|");
    for importer in IMPORTERS {
        let dir = tempfile::tempdir()?;
        let (files, bytes) = replicate(&root.join(importer.name()), dir.path(), megabytes)?;
        let mut turns = 0_u64;
        let mut refused = 0;
        let start = Instant::now();
        import_paths(
            &[dir.path().to_owned()],
            Choice::Format(*importer),
            &ImportOptions::default().session_id("bench"),
            &mut |event| {
                match event {
                    ImportEvent::Session { converted, .. } => turns += converted.turns as u64,
                    ImportEvent::Refused { .. } => refused += 1,
                    _ => {}
                }
                true
            },
        );
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(refused, 0, "{} refused a fixture", importer.name());
        let mb = bytes as f64 / 1e6;
        println!(
            "| {} | {files} | {mb:.1} | {seconds:.2} | {:.1} | {:.0} |",
            importer.name(),
            mb / seconds,
            turns as f64 / seconds
        );
    }
    Ok(())
}

/// Copies the good fixtures of `from` into `to` until they hold `megabytes`.
fn replicate(from: &Path, to: &Path, megabytes: f64) -> std::io::Result<(usize, u64)> {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(from)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("broken-"))
        })
        .collect();
    fixtures.sort();
    let (mut files, mut bytes) = (0, 0_u64);
    while (bytes as f64) < megabytes * 1e6 {
        for fixture in &fixtures {
            let name = fixture
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let target = to.join(format!("{files:05}-{}", name.unwrap_or_default()));
            bytes += std::fs::copy(fixture, target)?;
            files += 1;
        }
    }
    Ok((files, bytes))
}

/// The generated corpus as OpenAI Chat conversations: each turn's prompt text as a user
/// message (or its tool results as tool messages), its answer as an assistant message
/// with its calls.
fn write_chat_corpus(sessions: usize, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut writer = BufWriter::new(std::fs::File::create(out)?);
    let options = ihigraph::generate::GenerateOptions {
        sessions,
        ..Default::default()
    };
    for document in ihigraph::generate::generate(options).take(sessions) {
        let mut messages = vec![json!({"role": "system", "content": "You are a coding agent."})];
        for turn in document["Turns"].as_array().ok_or("Turns")? {
            let prompt = turn["PRCPrompt"].as_object().ok_or("PRCPrompt")?;
            let response = turn["BKNResponse"].as_object().ok_or("BKNResponse")?;
            let results = find_tool_results(prompt);
            for result in &results {
                messages.push(
                    json!({"role": "tool", "tool_call_id": result.call_id, "content": result.data}),
                );
            }
            if results.is_empty() {
                let text = payload_text(prompt, PayloadKind::Prompt).unwrap_or_default();
                messages.push(json!({"role": "user", "content": text}));
            }
            let mut answer = json!({"role": "assistant", "content": payload_text(response, PayloadKind::Answer)});
            let calls: Vec<Value> = find_tool_calls(response)
                .into_iter()
                .map(|call| json!({"id": call.call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}))
                .collect();
            if !calls.is_empty() {
                answer["tool_calls"] = Value::Array(calls);
            }
            messages.push(answer);
        }
        serde_json::to_writer(&mut writer, &Value::Array(messages))?;
        writer.write_all(b"\n")?;
    }
    writer.flush()?;
    Ok(())
}
