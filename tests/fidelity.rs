//! Nothing of a source history is lost: for every importer fixture, and for a generated
//! corpus of trajectories shaped as public agent benchmarks log them, every text of the
//! source (each string it holds, as often as it holds it: lines that are no message, a
//! line's own envelope and a streamed chunk's role included), every message, every tool
//! call and every result is found in the sessions stored from it and read back from the
//! store.
//! Histories that end with input (a user's last word, a tool's last result) keep it, as
//! a last turn that awaits its response, marked so in the graph.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

mod common;

use ihigraph::import::{Choice, ImportOptions};
use ihigraph::payload::{find_tool_calls, find_tool_results};
use ihigraph::read::parse_yaml;
use ihigraph::{HistoryStore, Ingest};
use oxigraph::model::Term;
use oxigraph::sparql::QueryResults;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Every importer fixture that must convert, the recordings' JSON Lines included.
fn fixtures() -> Vec<PathBuf> {
    common::import_fixtures(true)
        .into_iter()
        .map(|(_, path)| path)
        .filter(|path| {
            !path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("broken-")
        })
        .collect()
}

/// The records of a source file as JSON: its lines, its document, or (Harmony's text)
/// the bodies of its messages as strings.
fn source_records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => vec![parse_yaml(&text).unwrap()],
        Some("txt") => harmony_bodies(&text).into_iter().map(Value::from).collect(),
        Some("jsonl") => text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
        _ => vec![serde_json::from_str(&text).unwrap()],
    }
}

/// The body of each message of a Harmony text: what follows `<|message|>` up to the
/// token that ends it (or the end of the text).
fn harmony_bodies(text: &str) -> Vec<String> {
    text.split("<|message|>")
        .skip(1)
        .map(|rest| {
            let end = ["<|end|>", "<|call|>", "<|return|>", "<|start|>"]
                .iter()
                .filter_map(|token| rest.find(token))
                .min()
                .unwrap_or(rest.len());
            rest[..end].to_owned()
        })
        .collect()
}

/// Whether a fixture is a log of requests, each of which repeats the conversation so far.
fn replays_history(path: &Path) -> bool {
    path.file_stem()
        .is_some_and(|stem| stem.to_string_lossy().ends_with("log"))
}

/// Every string in `value` (member names left out), counted.
fn strings(value: &Value, counts: &mut HashMap<String, usize>) {
    match value {
        Value::String(text) => *counts.entry(text.clone()).or_default() += 1,
        Value::Array(items) => items.iter().for_each(|item| strings(item, counts)),
        Value::Object(members) => members.values().for_each(|item| strings(item, counts)),
        _ => {}
    }
}

/// Every text of `bodies` (Harmony) is found within a string of `stored`.
fn all_found_within(bodies: &[Value], stored: &HashMap<String, usize>, what: &str) {
    for body in bodies {
        let body = body.as_str().unwrap().trim();
        assert!(
            stored.keys().any(|text| text.contains(body)),
            "{what}: the message {body:?} is not stored"
        );
    }
}

/// Strings of `source` that `stored` holds fewer times than the source does.
fn missing(source: &HashMap<String, usize>, stored: &HashMap<String, usize>) -> Vec<String> {
    let mut missing: Vec<String> = source
        .iter()
        .filter(|(text, count)| stored.get(*text).copied().unwrap_or(0) < **count)
        .map(|(text, count)| format!("{text:?} x{count}"))
        .collect();
    missing.sort();
    missing
}

/// What a run of one source through the store gave back.
struct Stored {
    documents: Vec<Value>,
    /// Tool invocations and results in the stored graphs, and turns awaiting a response.
    invocations: usize,
    results: usize,
    awaiting: usize,
}

/// Ingests `paths` from `choice` into a store of its own and reads every session back.
fn through_the_store(paths: &[PathBuf], choice: Choice) -> Stored {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let summary = Ingest::new(&store)
        .run_import(paths, choice, &ImportOptions::default(), |_| {})
        .unwrap();
    assert!(summary.refused.is_empty(), "{:?}", summary.refused);
    let documents = store
        .sessions()
        .unwrap()
        .into_iter()
        .map(|(id, _)| serde_json::to_value(store.history(&id).unwrap()).unwrap())
        .collect();
    let count = |class: &str| {
        let query = format!(
            "PREFIX ch: <https://jido.ai/ontology/conversation-history#>
             PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
             SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ ?x {class} }} }}"
        );
        let QueryResults::Solutions(mut rows) = store.query(&query).unwrap() else {
            panic!("a SELECT gives solutions")
        };
        match rows.next().unwrap().unwrap().get("n") {
            Some(Term::Literal(n)) => n.value().parse::<usize>().unwrap(),
            other => panic!("a count, not {other:?}"),
        }
    };
    Stored {
        documents,
        invocations: count("a ch:ToolInvocation"),
        results: count("a ch:ToolResult"),
        awaiting: count("ihi:awaitsResponse true"),
    }
}

/// Calls and results the payload layer finds in a source's records, one record (a
/// message, a line) at a time: what a turn holding them would show.
fn calls_and_results(records: &[Value]) -> (usize, usize) {
    let mut calls = 0;
    let mut results = 0;
    let mut visit = |object: &serde_json::Map<String, Value>| {
        calls += find_tool_calls(object).len();
        results += find_tool_results(object).len();
    };
    for record in records {
        messages_of(record, &mut visit);
    }
    (calls, results)
}

/// Each message-like object of a record: members of the arrays that hold messages.
fn messages_of(value: &Value, visit: &mut dyn FnMut(&serde_json::Map<String, Value>)) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| messages_of(item, visit)),
        Value::Object(object) => {
            let mut held = false;
            for key in [
                "messages", "contents", "history", "input", "output", "tracker",
            ] {
                if let Some(items @ Value::Array(_)) = object.get(key) {
                    messages_of(items, visit);
                    held = true;
                }
            }
            if !held {
                let mut wrapped = serde_json::Map::new();
                wrapped.insert("messages".to_owned(), Value::Array(vec![value.clone()]));
                visit(&wrapped);
            }
        }
        _ => {}
    }
}

#[test]
fn every_text_of_every_fixture_is_stored() {
    let (mut texts, mut fixtures_checked) = (0, 0);
    let mut losses = Vec::new();
    for path in fixtures() {
        let what = path.display().to_string();
        let records = source_records(&path);
        let stored = through_the_store(std::slice::from_ref(&path), Choice::Auto);
        let mut stored_strings = HashMap::new();
        for document in &stored.documents {
            strings(&document["Turns"], &mut stored_strings);
        }
        if path.extension().is_some_and(|e| e == "txt") {
            all_found_within(&records, &stored_strings, &what);
            texts += records.len();
        } else {
            // Every string of every record: a line that is no message, a line's own
            // envelope, a streamed chunk's role are kept as much as the messages.
            let mut source = HashMap::new();
            for record in &records {
                strings(record, &mut source);
            }
            if replays_history(&path) {
                // Each request of a log sends the conversation so far again: a text is
                // stored once however many requests repeat it.
                source.values_mut().for_each(|count| *count = 1);
            }
            let lost = missing(&source, &stored_strings);
            if !lost.is_empty() {
                losses.push(format!("{what}: texts lost: {lost:#?}"));
            }
            texts += source.values().sum::<usize>();
        }
        fixtures_checked += 1;
    }
    assert!(losses.is_empty(), "{}", losses.join("\n"));
    eprintln!("{fixtures_checked} fixtures: {texts} source texts, every one stored");
}

/// A trajectory as an airline-support benchmark logs it: the system prompt, the user's
/// request, then rounds of the assistant calling tools (sometimes several at once) and the
/// tools answering, the assistant talking to the user, the user answering; it ends where
/// the run was cut: after a user's message, after a tool's result, or after the assistant.
fn trajectory(rng: &mut fastrand::Rng, number: usize) -> Value {
    let mut messages = vec![
        json!({"role": "system", "content": format!("# Airline agent policy {number}\nBe exact.")}),
        json!({"role": "user", "content": format!("Hi, I want to change reservation R{number}.")}),
    ];
    let mut call = 0;
    for round in 0..rng.usize(1..8) {
        for _ in 0..rng.usize(0..3) {
            let calls: Vec<Value> = (0..rng.usize(1..4))
                .map(|_| {
                    call += 1;
                    let tools = [
                        "get_reservation_details",
                        "search_direct_flight",
                        "update_reservation_flights",
                        "calculate",
                    ];
                    let name = tools[rng.usize(0..tools.len())];
                    let arguments =
                        format!("{{\"reservation_id\": \"R{number}\", \"round\": {round}}}");
                    json!({"id": format!("call_{number}_{call}"), "type": "function",
                           "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            let results: Vec<Value> = calls
                .iter()
                .map(|c| {
                    let id = c["id"].as_str().unwrap();
                    let outcome = if rng.bool() {
                        format!("Error: payment amount does not add up ({id})")
                    } else {
                        format!("{{\"status\": \"ok\", \"call\": \"{id}\"}}")
                    };
                    json!({"role": "tool", "tool_call_id": id, "name": c["function"]["name"], "content": outcome})
                })
                .collect();
            messages.push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
            messages.extend(results);
        }
        messages.push(
            json!({"role": "assistant", "content": format!("Round {round}: shall I go on?")}),
        );
        messages.push(json!({"role": "user", "content": format!("Yes, round {round} is fine. ###STOP### {number}")}));
    }
    match rng.usize(0..3) {
        0 => {} // The user had the last word.
        1 => {
            call += 1;
            let id = format!("call_{number}_{call}");
            messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": id, "type": "function", "function": {"name": "transfer_to_human_agents", "arguments": "{}"}}]}));
            messages.push(
                json!({"role": "tool", "tool_call_id": id, "content": "Transfer successful"}),
            );
        }
        _ => messages.push(json!({"role": "assistant", "content": "Goodbye."})),
    }
    json!({"task_id": number, "reward": 1.0, "traj": messages})
}

#[test]
fn generated_benchmark_trajectories_keep_every_message_call_and_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = fastrand::Rng::with_seed(32);
    let mut paths = Vec::new();
    let (mut messages, mut ending_with_input) = (0, 0);
    for number in 0..200 {
        let run = trajectory(&mut rng, number);
        let traj = run["traj"].as_array().unwrap().clone();
        messages += traj.len();
        ending_with_input += usize::from(traj.last().unwrap()["role"] != "assistant");
        // Stored as the chat messages of the run, one file per run.
        let path = dir.path().join(format!("airline-{number}.json"));
        std::fs::write(&path, serde_json::to_string(&traj).unwrap()).unwrap();
        paths.push(path);
    }
    let sources: Vec<Value> = paths.iter().flat_map(|p| source_records(p)).collect();
    let (calls, results) = calls_and_results(&sources);
    let stored = through_the_store(&[dir.path().to_path_buf()], Choice::Auto);
    assert_eq!(stored.documents.len(), 200, "one session per file");
    let mut source_strings = HashMap::new();
    sources.iter().for_each(|s| strings(s, &mut source_strings));
    let mut stored_strings = HashMap::new();
    let mut stored_messages = 0;
    for document in &stored.documents {
        strings(&document["Turns"], &mut stored_strings);
        for turn in document["Turns"].as_array().unwrap() {
            for payload in ["PRCPrompt", "BKNResponse"] {
                stored_messages += match turn[payload].get("messages") {
                    Some(Value::Array(items)) => items.len(),
                    _ => usize::from(turn[payload].get("role").is_some()),
                };
            }
        }
    }
    let lost = missing(&source_strings, &stored_strings);
    assert!(lost.is_empty(), "texts lost: {lost:#?}");
    assert_eq!(stored_messages, messages, "messages");
    assert_eq!(stored.invocations, calls, "tool calls");
    assert_eq!(stored.results, results, "tool results");
    assert_eq!(
        stored.awaiting, ending_with_input,
        "turns awaiting their response"
    );
    eprintln!(
        "200 trajectories: {messages} messages, {calls} calls, {results} results, {ending_with_input} ending with input: all stored"
    );
}
