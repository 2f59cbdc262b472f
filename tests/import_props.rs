//! Properties of the importers: any conversation an agent could write in the OpenAI Chat
//! shape (any text, any ids, calls answered or not) converts to documents that pass the
//! checks, with one turn per assistant message; convert -> ingest -> export gives the
//! converted document back, for these and for every fixture of every format with some of
//! its nodes changed; and no input panics any importer.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use ihigraph::check::Severity;
use ihigraph::import::{Choice, ImportEvent, ImportOptions, import_paths, importer};
use ihigraph::{CheckOptions, HistoryStore, Ingest, check_document};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

/// One step of a conversation: a user message, or an assistant message with calls whose
/// results (some of them) follow.
#[derive(Debug, Clone)]
enum Step {
    User(String),
    Assistant {
        text: Option<String>,
        calls: Vec<(String, String, String)>,
        answered: usize,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<String>().prop_map(Step::User),
        (
            proptest::option::of(any::<String>()),
            prop::collection::vec((any::<String>(), "[a-z_]{1,12}", any::<String>()), 0..3),
            0usize..3,
        )
            .prop_map(|(text, calls, answered)| Step::Assistant {
                text,
                calls,
                answered,
            }),
    ]
}

fn messages(steps: &[Step]) -> Value {
    let mut messages = vec![json!({"role": "system", "content": "You are a test."})];
    for step in steps {
        match step {
            Step::User(text) => messages.push(json!({"role": "user", "content": text})),
            Step::Assistant {
                text,
                calls,
                answered,
            } => {
                let tool_calls: Vec<Value> = calls
                    .iter()
                    .map(|(id, name, arguments)| {
                        json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
                    })
                    .collect();
                let mut message = json!({"role": "assistant", "content": text});
                if !tool_calls.is_empty() {
                    message["tool_calls"] = Value::Array(tool_calls);
                }
                messages.push(message);
                for (id, _, arguments) in calls.iter().take(*answered) {
                    messages
                        .push(json!({"role": "tool", "tool_call_id": id, "content": arguments}));
                }
            }
        }
    }
    Value::Array(messages)
}

fn convert(path: &Path) -> Vec<Value> {
    let chat = importer("openai-chat").unwrap();
    let mut documents = Vec::new();
    import_paths(
        &[path.to_owned()],
        Choice::Format(chat),
        &ImportOptions::default().session_id("p"),
        &mut |event| {
            match event {
                ImportEvent::Session { converted, .. } => documents.push(converted.document()),
                ImportEvent::Refused { error, .. } => panic!("refused: {error}"),
                _ => {}
            }
            true
        },
    );
    documents
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_chat_converts_validates_and_comes_back(steps in prop::collection::vec(step(), 1..8)) {
        let assistants = steps.iter().filter(|s| matches!(s, Step::Assistant { .. })).count();
        prop_assume!(assistants > 0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chat.json");
        let chat = messages(&steps);
        std::fs::write(&path, chat.to_string()).unwrap();
        // Input after the last assistant message is one more turn, awaiting its response.
        let awaiting = chat.as_array().and_then(|m| m.last()).is_some_and(|m| m["role"] != "assistant");
        let documents = convert(&path);
        prop_assert_eq!(documents.len(), 1);
        let document = &documents[0];
        prop_assert_eq!(document["TurnCount"].as_u64(), Some((assistants + usize::from(awaiting)) as u64));
        if awaiting {
            let last = document["Turns"].as_array().and_then(|t| t.last()).cloned().unwrap_or_default();
            prop_assert_eq!(&last["BKNResponse"], &serde_json::json!({}));
        }
        let checked = check_document(document, CheckOptions::default());
        prop_assert!(checked.problems.iter().all(|p| p.severity != Severity::Error), "{:?}", checked.problems);

        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let summary = Ingest::new(&store)
            .run_import(&[path], Choice::Format(importer("openai-chat").unwrap()), &ImportOptions::default().session_id("p"), |_| {})
            .unwrap();
        prop_assert_eq!(summary.sessions, 1);
        let back = serde_json::to_value(store.history("p").unwrap()).unwrap();
        prop_assert_eq!(&back, document);
    }
}

/// The members history formats use.
fn history_key() -> impl Strategy<Value = &'static str> + Clone {
    prop::sample::select(vec![
        // OTLP JSON, for the otel importer.
        "resourceSpans",
        "scopeSpans",
        "spans",
        "resourceLogs",
        "scopeLogs",
        "logRecords",
        "traceId",
        "spanId",
        "parentSpanId",
        "attributes",
        "key",
        "value",
        "stringValue",
        "intValue",
        "arrayValue",
        "kvlistValue",
        "values",
        "events",
        "eventName",
        "body",
        "startTimeUnixNano",
        "endTimeUnixNano",
        "role",
        "content",
        "messages",
        "type",
        "parts",
        "tool_calls",
        "id",
        "name",
        "arguments",
        "args",
        "input",
        "output",
        "call_id",
        "tool_call_id",
        "tool_use_id",
        "text",
        "data",
        "kwargs",
        "lc",
        "contents",
        "candidates",
        "functionCall",
        "functionResponse",
        "response",
        "request",
        "choices",
        "message",
        "timestamp",
        "sessionId",
        "uuid",
        "parentUuid",
        "payload",
        "tracker",
        "history",
        "code",
        "return_value",
        "index",
        "metadata",
        "interactionId",
        "isFinal",
        "toolCalls",
        "created_at",
        "created",
        "recipient",
        "channel",
        "system",
        "is_error",
        "status",
        "createdAt",
        "user",
        "assistant",
    ])
}

/// The values history formats use, and any other.
fn history_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "00f067aa0ba902b7",
            "AAAAAAAAAAE=",
            "1700000000000000000",
            "gen_ai.operation.name",
            "gen_ai.conversation.id",
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.prompt.0.content",
            "llm.input_messages.0.message.role",
            "gen_ai.tool.call.id",
            "gen_ai.user.message",
            "chat",
            "execute_tool",
            "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]",
            "tool_call",
            "tool_call_response",
            "user",
            "assistant",
            "system",
            "tool",
            "function",
            "model",
            "human",
            "ai",
            "message",
            "function_call",
            "function_call_output",
            "tool_use",
            "tool_result",
            "text",
            "response_item",
            "session_meta",
            "event_msg",
            "tool_response",
            "USER",
            "2026-03-14T08:00:00Z",
            "2025-02-05T14:03:15",
            "functions.f",
            "commentary",
            "<|start|>user<|message|>hi<|end|>",
            "<|start|>assistant<|channel|>final<|message|>x<|return|>",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
        any::<String>().prop_map(Value::String),
    ]
}

/// JSON built from the members and values history formats use, so that random values
/// reach deep into every importer instead of failing at the first member.
fn history_like() -> impl Strategy<Value = Value> {
    let key = history_key();
    history_leaf().prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// No input panics an importer: each file is refused with a place, or converts to
    /// documents that pass the checks (`Sessions::add` checks every one).
    #[test]
    fn no_input_panics_any_importer(value in history_like(), lines in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("input.json");
        let text = match (&value, lines) {
            (Value::Array(items), true) => items.iter().map(Value::to_string).collect::<Vec<_>>().join("\n"),
            _ => value.to_string(),
        };
        std::fs::write(&path, text).unwrap();
        let choices = ihigraph::import::IMPORTERS
            .iter()
            .map(|importer| Choice::Format(*importer))
            .chain([Choice::Auto]);
        for choice in choices {
            import_paths(std::slice::from_ref(&path), choice, &ImportOptions::default(), &mut |event| {
                if let ImportEvent::Session { converted, .. } = event {
                    let checked = check_document(&converted.document(), CheckOptions::default());
                    assert!(checked.problems.iter().all(|p| p.severity != Severity::Error));
                }
                true
            });
        }
    }
}

/// A fixture's records: the whole file as one value, or one value per JSON Lines line;
/// text files (Harmony, YAML) as one string.
fn fixture_records(path: &Path) -> (bool, Vec<Value>) {
    let text = std::fs::read_to_string(path).unwrap();
    if path.extension().is_some_and(|e| e == "jsonl") {
        let lines = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        return (true, lines);
    }
    match serde_json::from_str(&text) {
        Ok(value) => (false, vec![value]),
        Err(_) => (false, vec![Value::String(text)]),
    }
}

/// Every JSON Pointer of a value.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (key, child) in members {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                pointers(child, format!("{at}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// Replaces the node at the `pick`th pointer with `replacement`, or cuts a string.
fn mutate(value: &mut Value, pick: usize, replacement: &Value) {
    let mut all = Vec::new();
    pointers(value, String::new(), &mut all);
    let pointer = &all[pick % all.len()];
    if let Some(node) = value.pointer_mut(pointer) {
        *node = match (&*node, replacement) {
            (Value::String(text), Value::Bool(true)) => {
                let cut = text
                    .char_indices()
                    .nth(text.chars().count() / 2)
                    .map_or(0, |(i, _)| i);
                Value::String(text[..cut].to_owned())
            }
            _ => replacement.clone(),
        };
    }
}

fn good_fixtures() -> Vec<(String, std::path::PathBuf)> {
    common::import_fixtures(true)
        .into_iter()
        .filter(|(_, path)| {
            !path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("broken-")
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every fixture with a few of its nodes replaced (by null, other types, a cut
    /// string, an empty array or object) is refused or converted by its importer and by
    /// `auto`, never a panic, and what converts passes the checks.
    #[test]
    fn broken_fixtures_never_panic(
        fixture in any::<prop::sample::Index>(),
        changes in prop::collection::vec((any::<usize>(), prop_oneof![
            Just(Value::Null),
            Just(Value::Bool(true)),
            Just(json!(-1)),
            Just(json!("")),
            Just(json!([])),
            Just(json!({})),
            Just(json!([{}])),
            Just(json!("<|start|>")),
            any::<String>().prop_map(Value::String),
        ]), 1..4),
    ) {
        let fixtures = good_fixtures();
        let (format, path) = &fixtures[fixture.index(fixtures.len())];
        let (lines, mut records) = fixture_records(path);
        for (pick, replacement) in &changes {
            let count = records.len();
            mutate(&mut records[pick % count], pick / count, replacement);
        }
        let text = match (lines, &records[..]) {
            (false, [Value::String(text)]) => text.clone(),
            (false, [value]) => value.to_string(),
            _ => records.iter().map(Value::to_string).collect::<Vec<_>>().join("\n"),
        };
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join(path.file_name().unwrap());
        std::fs::write(&input, text).unwrap();
        let mut documents = Vec::new();
        for choice in [Choice::Format(importer(format).unwrap()), Choice::Auto] {
            import_paths(std::slice::from_ref(&input), choice, &ImportOptions::default(), &mut |event| {
                if let ImportEvent::Session { converted, .. } = event {
                    let checked = check_document(&converted.document(), CheckOptions::default());
                    assert!(checked.problems.iter().all(|p| p.severity != Severity::Error));
                    documents.push(converted.document());
                }
                true
            });
        }
        // What converts comes back from the store as converted.
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        for document in &documents {
            let checked = check_document(document, CheckOptions::default());
            let graph = ihigraph::rdf::map_history(&checked.history.unwrap(), store.scheme());
            store.write_session(&graph).unwrap();
            let id = document["SessionID"].as_str().unwrap();
            let back = serde_json::to_value(store.history(id).unwrap()).unwrap();
            prop_assert_eq!(&back, document);
        }
    }
}

/// The sessions of `path` converted with `options`, or the refusal.
fn converted_with(
    format: &str,
    path: &Path,
    options: &ImportOptions,
) -> Result<Vec<Value>, String> {
    let mut documents = Vec::new();
    let mut refusal = None;
    import_paths(
        &[path.to_owned()],
        Choice::Format(importer(format).unwrap()),
        options,
        &mut |event| {
            match event {
                ImportEvent::Session { converted, .. } => documents.push(converted.document()),
                ImportEvent::Refused { error, .. } => refusal = Some(error.to_string()),
                _ => {}
            }
            true
        },
    );
    refusal.map_or(Ok(documents), Err)
}

/// A JSON Lines file longer than what is held in memory is read twice; it gives the very
/// same sessions as one pass, and a bad last line refuses it before any session is
/// given.
#[test]
fn two_passes_give_what_one_pass_gives_and_refuse_alike() {
    let two_passes = ImportOptions::default().session_id("s").held_bytes(0);
    let one_pass = ImportOptions::default().session_id("s");
    let mut json_lines = 0;
    for (format, path) in good_fixtures() {
        if path.extension().is_some_and(|e| e == "jsonl") {
            json_lines += 1;
            assert_eq!(
                converted_with(&format, &path, &two_passes),
                converted_with(&format, &path, &one_pass),
                "{}",
                path.display()
            );
        }
    }
    assert!(json_lines >= 8, "{json_lines}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("train.jsonl");
    let good = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import/openai-finetune/drone.jsonl"),
    )
    .unwrap();
    std::fs::write(
        &path,
        format!("{good}{{\"messages\": [{{\"role\": \"robot\"}}]}}\n"),
    )
    .unwrap();
    for options in [&two_passes, &one_pass] {
        let error = converted_with("openai-finetune", &path, options).unwrap_err();
        assert!(error.starts_with("line 5, /messages/0"), "{error}");
    }
}

/// Asking to stop ends a conversion after the current session, in either pass mode.
#[test]
fn a_sink_that_stops_gets_no_more_sessions() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/openai-finetune/drone.jsonl");
    for options in [
        ImportOptions::default().held_bytes(0),
        ImportOptions::default(),
    ] {
        let mut sessions = 0;
        let summary = import_paths(
            &[path.clone(), path.clone()],
            Choice::Format(importer("openai-finetune").unwrap()),
            &options,
            &mut |event| {
                sessions += usize::from(matches!(event, ImportEvent::Session { .. }));
                sessions < 2
            },
        );
        assert_eq!((sessions, summary.stopped, summary.refused), (2, true, 0));
    }
}
