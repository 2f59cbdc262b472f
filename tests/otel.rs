//! OpenTelemetry in: the `otel` importer on what real instrumentation stacks emitted
//! (`tests/fixtures/import/otel/real-*`, recorded by `tests/otel/emitters/`) and on the other
//! forms of the conventions (`tests/fixtures/import/otel/`), the facts the graph gains
//! (models, tokens, latency, status), files joined, and spans received live in any order
//! and any number of times.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::fixture_path;
use ihigraph::HistoryStore;
use ihigraph::import::{Choice, ImportEvent, ImportOptions, import_paths, importer};
use ihigraph::ingest::receive;
use ihigraph::payload::{Part, Speaker, answer_messages, prompt_messages};
use ihigraph::rdf::map_history;
use serde_json::{Value, json};
use std::path::PathBuf;

/// Converts `paths` with the otel importer and writes the sessions; their ids.
fn ingest(store: &HistoryStore, paths: &[PathBuf]) -> Vec<String> {
    let mut ids = Vec::new();
    let otel = Choice::Format(importer("otel").unwrap());
    import_paths(paths, otel, &ImportOptions::default(), &mut |event| {
        match event {
            ImportEvent::Session { converted, .. } => {
                store
                    .write_session(&map_history(&converted.history, store.scheme()))
                    .unwrap();
                ids.push(converted.session_id.clone());
            }
            ImportEvent::Refused { file, error } => panic!("{file}: {error}"),
            _ => {}
        }
        true
    });
    ids
}

/// A session's messages as the expected files of the real emitters write them:
/// `{role, text, tool_calls: [{id, name, arguments}], tool_call_id}`, a tool result
/// being a `tool` message of its own.
fn messages(store: &HistoryStore, session: &str) -> Vec<Value> {
    let history = store.history(session).unwrap();
    let mut out = Vec::new();
    for turn in &history.turns {
        let read = prompt_messages(&turn.prompt)
            .into_iter()
            .chain(answer_messages(&turn.response));
        for message in read {
            let role = match message.speaker {
                Speaker::System => "system",
                Speaker::User => "user",
                Speaker::Assistant => "assistant",
                Speaker::Tool => "tool",
            };
            let (mut texts, mut calls) = (Vec::new(), Vec::new());
            for part in message.parts {
                match part {
                    Part::Text(text) => texts.push(text),
                    Part::Call(call) => calls.push(json!({
                        "id": call.call_id,
                        "name": call.name,
                        "arguments": call.arguments.as_deref().map(|a| serde_json::from_str::<Value>(a).unwrap_or(Value::String(a.to_owned()))),
                    })),
                    Part::Result(result) => out.push(json!({
                        "role": "tool", "text": result.data, "tool_calls": [],
                        "tool_call_id": result.call_id,
                    })),
                    Part::Other { .. } => {}
                }
            }
            if texts.is_empty() && calls.is_empty() {
                continue;
            }
            out.push(json!({
                "role": role,
                "text": if texts.is_empty() { Value::Null } else { Value::String(texts.join("\n")) },
                "tool_calls": calls,
                "tool_call_id": null,
            }));
        }
    }
    out
}

fn real_fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixture_path("import/otel"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("expected.json").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 2, "the real emitters' fixtures are missing");
    dirs
}

fn jsonl_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_message_and_call_of_each_real_emitter_is_in_the_graph() {
    for dir in real_fixtures() {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let ids = ingest(&store, &jsonl_files(&dir));
        let session = expected["session"]["id"].as_str().unwrap();
        assert_eq!(
            ids,
            [session],
            "{}: one session, the conversation",
            dir.display()
        );
        let found = messages(&store, session);
        let wanted = expected["messages"].as_array().unwrap();
        let present = wanted.iter().filter(|m| found.contains(m)).count();
        let calls = |list: &[Value]| -> Vec<Value> {
            list.iter()
                .flat_map(|m| m["tool_calls"].as_array().unwrap().clone())
                .collect()
        };
        let (wanted_calls, found_calls) = (calls(wanted), calls(&found));
        let calls_present = wanted_calls
            .iter()
            .filter(|c| found_calls.contains(c))
            .count();
        println!(
            "{}: {present} of {} messages, {calls_present} of {} tool calls",
            dir.file_name().unwrap().to_string_lossy(),
            wanted.len(),
            wanted_calls.len()
        );
        assert_eq!(&found, wanted, "{}: the messages, in order", dir.display());
    }
}

#[test]
fn files_of_traces_and_logs_apart_are_joined() {
    let dir = fixture_path("import/otel/real-openai-v2-legacy");
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let ids = ingest(&store, &jsonl_files(&dir));
    assert_eq!(ids, ["openai-weather-1"]);
    let history = store.history("openai-weather-1").unwrap();
    assert!(
        history
            .turns
            .iter()
            .all(|t| t.response.get("captured").is_none()),
        "the content in the log records reached every call"
    );
    // Alone, the traces file has no content: said, and the calls are still turns.
    let alone = HistoryStore::in_memory(&Default::default()).unwrap();
    ingest(&alone, &[dir.join("traces.jsonl")]);
    let history = alone.history("openai-weather-1").unwrap();
    assert_eq!(history.turns.len(), 4);
    assert_eq!(
        history.turns[0].response["captured"],
        json!({"input": false, "output": false})
    );
}

fn select(store: &HistoryStore, sparql: &str) -> Vec<Vec<String>> {
    let oxigraph::sparql::QueryResults::Solutions(solutions) = store.query(sparql).unwrap() else {
        panic!("not a SELECT");
    };
    let variables: Vec<_> = solutions.variables().to_vec();
    solutions
        .map(|s| {
            let s = s.unwrap();
            variables
                .iter()
                .map(|v| {
                    s.get(v).map_or(String::new(), |t| match t {
                        oxigraph::model::Term::Literal(l) => l.value().to_owned(),
                        other => other.to_string(),
                    })
                })
                .collect()
        })
        .collect()
}

const PREFIXES: &str = "PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
PREFIX ch: <https://jido.ai/ontology/conversation-history#>\n";

#[test]
fn each_turn_gains_what_its_span_reports() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    ingest(&store, &[fixture_path("import/otel/genai-current.jsonl")]);
    let rows = select(
        &store,
        &format!(
            "{PREFIXES}SELECT ?i ?provider ?request ?response ?in ?out ?reason ?latency ?start ?end ?span ?op WHERE {{ GRAPH ?g {{
             ?t ch:turnIndex ?i ; ihi:provider ?provider ; ihi:requestModel ?request ; ihi:responseModel ?response ;
                ihi:inputTokens ?in ; ihi:outputTokens ?out ; ihi:finishReason ?reason ; ihi:latencyMs ?latency ;
                ihi:spanStartTime ?start ; ihi:spanEndTime ?end ; ihi:spanId ?span ; ihi:operationName ?op }} }} ORDER BY ?i"
        ),
    );
    let expected: Vec<Vec<&str>> = vec![
        vec![
            "0",
            "openai",
            "gpt-4o",
            "gpt-4o-2024-08-06",
            "97",
            "18",
            "tool_call",
            "1000",
            "2025-11-15T09:46:40.1Z",
            "2025-11-15T09:46:41.1Z",
            "c1c1c1c1c1c1c1c1",
            "chat",
        ],
        vec![
            "1",
            "openai",
            "gpt-4o",
            "gpt-4o-2024-08-06",
            "130",
            "12",
            "stop",
            "1500",
            "2025-11-15T09:46:42Z",
            "2025-11-15T09:46:43.5Z",
            "c2c2c2c2c2c2c2c2",
            "chat",
        ],
        vec![
            "2",
            "openai",
            "gpt-4o",
            "gpt-4o-2024-08-06",
            "150",
            "7",
            "stop",
            "2000",
            "2025-11-15T09:46:46Z",
            "2025-11-15T09:46:48Z",
            "c3c3c3c3c3c3c3c3",
            "chat",
        ],
    ];
    assert_eq!(rows, expected);
    let kept = serde_json::to_string(&store.history("conv-weather-1").unwrap()).unwrap();
    assert!(
        kept.contains(r#"{"key":"app.custom","value":{"stringValue":"kept verbatim"}}"#),
        "an unknown attribute is kept as it came"
    );
    let tools = select(
        &store,
        &format!(
            "{PREFIXES}SELECT ?name ?latency ?status ?span ?trace ?result WHERE {{ GRAPH ?g {{
             ?c ch:toolName ?name ; ihi:latencyMs ?latency ; ihi:spanStatus ?status ; ihi:spanId ?span ; ihi:traceId ?trace ;
                ch:hasResult/ch:resultData ?result }} }}"
        ),
    );
    assert_eq!(
        tools,
        [[
            "get_weather",
            "700",
            "OK",
            "b2b2b2b2b2b2b2b2",
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "rainy, 12 °C"
        ]]
    );
}

#[test]
fn the_forms_of_other_emitters_and_years() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    // OpenLLMetry's indexed attributes, base64 ids, session.id on the resource.
    assert_eq!(
        ingest(
            &store,
            &[fixture_path("import/otel/openllmetry-indexed.json")]
        ),
        ["support-7731"]
    );
    let rows = select(
        &store,
        &format!(
            "{PREFIXES}SELECT ?i ?provider ?in ?out ?status ?text WHERE {{ GRAPH ?g {{ ?c ihi:sessionId \"support-7731\" . ?t ch:partOfConversation ?c ; ch:turnIndex ?i ; ihi:provider ?provider ; ihi:inputTokens ?in ; ihi:outputTokens ?out ; ihi:spanStatus ?status . OPTIONAL {{ ?t ch:hasAnswer/ch:answerText ?text }} }} }} ORDER BY ?i"
        ),
    );
    assert_eq!(
        rows,
        [
            ["0", "Anthropic", "310", "41", "OK", ""],
            [
                "1",
                "Anthropic",
                "402",
                "27",
                "OK",
                "You were billed twice for invoice 88; the duplicate was refunded on 3 May."
            ],
        ]
    );
    let tool = select(
        &store,
        &format!(
            "{PREFIXES}SELECT ?status ?message ?result WHERE {{ GRAPH ?g {{ ?c ch:toolName \"lookup_invoice\" ; ihi:spanStatus ?status ; ihi:statusMessage ?message ; ch:hasResult/ch:resultData ?result }} }}"
        ),
    );
    assert_eq!(
        tool,
        [[
            "ERROR",
            "slow upstream",
            "Invoice 88 was issued twice; the second was refunded on 3 May."
        ]]
    );
    // The 2024 content events; two traces of one Langfuse session; a log record with
    // no trace kept with it.
    assert_eq!(
        ingest(
            &store,
            &[fixture_path("import/otel/semconv-2024-events.jsonl")]
        ),
        ["lf-session-9"]
    );
    let history = store.history("lf-session-9").unwrap();
    assert_eq!(history.turns.len(), 2);
    assert_eq!(
        history.turns[1].prompt["messages"],
        json!([{"role": "user", "parts": [{"type": "text", "content": "Et à Lima ?"}]}])
    );
    assert_eq!(history.turns[1].prompt["repeats"], 2);
    let kept = serde_json::to_string(&history).unwrap();
    assert!(
        kept.contains("user asked for the time"),
        "the untraced log record is kept"
    );
}

#[test]
fn without_content_the_calls_come_from_the_tool_spans_and_the_gap_is_said() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    ingest(
        &store,
        &[fixture_path("import/otel/content-not-captured.jsonl")],
    );
    let history = store.history("planner-run-3").unwrap();
    assert_eq!(history.turns.len(), 2);
    assert_eq!(
        history.turns[0].response["captured"],
        json!({"input": false, "output": false})
    );
    let rows = select(
        &store,
        &format!(
            "{PREFIXES}SELECT ?name ?id ?status ?latency WHERE {{ GRAPH ?g {{ ?c ch:toolName ?name ; ihi:callId ?id ; ihi:spanStatus ?status ; ihi:latencyMs ?latency }} }} ORDER BY ?name"
        ),
    );
    assert_eq!(
        rows,
        [
            ["search_flights", "fc_1", "OK", "2500"],
            ["search_hotels", "fc_2", "ERROR", "900"]
        ]
    );
}

/// A span of a test batch: trace, span, parent, start and end (seconds), attributes.
type TestSpan<'a> = (&'a str, &'a str, Option<&'a str>, u64, u64, Value);

/// An OTLP JSON export request of `spans` (each `(trace, span, parent, start s, end s,
/// attributes)`).
fn batch(spans: &[TestSpan<'_>]) -> Value {
    let spans: Vec<Value> = spans
        .iter()
        .map(|(trace, span, parent, start, end, attributes)| {
            let attributes: Vec<Value> = attributes
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| json!({"key": k, "value": {"stringValue": v}}))
                .collect();
            json!({"traceId": trace, "spanId": span, "parentSpanId": parent.unwrap_or(""),
                   "name": "span", "startTimeUnixNano": (1_700_000_000 + start).to_string() + "000000000",
                   "endTimeUnixNano": (1_700_000_000 + end).to_string() + "000000000",
                   "attributes": attributes})
        })
        .collect();
    json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]})
}

fn chat(input: &Value, output: &Value) -> Value {
    json!({"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
           "gen_ai.input.messages": input.to_string(), "gen_ai.output.messages": output.to_string()})
}

const TRACE: &str = "11111111111111111111111111111111";
const TRACE_2: &str = "22222222222222222222222222222222";

#[test]
fn spans_received_in_any_order_and_any_number_of_times_make_one_session() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let options = ImportOptions::default();
    let hi = json!({"role": "user", "parts": [{"type": "text", "content": "hi"}]});
    let hello = json!({"role": "assistant", "parts": [{"type": "text", "content": "hello"}]});
    let more = json!({"role": "user", "parts": [{"type": "text", "content": "more"}]});
    let done = json!({"role": "assistant", "parts": [{"type": "text", "content": "done"}]});
    // The second call arrives first, without the root span that names the conversation:
    // a session of its trace.
    let second = batch(&[(
        TRACE,
        "b000000000000002",
        Some("a000000000000001"),
        3,
        4,
        chat(&json!([hi, hello, more]), &json!([done])),
    )]);
    let received = receive(&store, &second, &options).unwrap();
    assert_eq!(received.written, [format!("trace-{TRACE}")]);
    // The root span names the conversation: the trace's session moves into it.
    let root = batch(&[(
        TRACE,
        "a000000000000001",
        None,
        0,
        5,
        json!({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conv-1"}),
    )]);
    let received = receive(&store, &root, &options).unwrap();
    assert_eq!(received.written, ["conv-1"]);
    assert_eq!(received.absorbed, [format!("trace-{TRACE}")]);
    // The first call completes the session: two turns, each with its own new input.
    let first = batch(&[(
        TRACE,
        "b000000000000001",
        Some("a000000000000001"),
        1,
        2,
        chat(&json!([hi]), &json!([hello])),
    )]);
    receive(&store, &first, &options).unwrap();
    let history = store.history("conv-1").unwrap();
    assert_eq!(history.turns.len(), 2);
    assert_eq!(history.turns[0].prompt["messages"], json!([hi]));
    assert_eq!(history.turns[1].prompt["messages"], json!([more]));
    assert_eq!(history.turns[1].prompt["repeats"], 2);
    // Sent again: nothing changes.
    for again in [&first, &second, &root] {
        let received = receive(&store, again, &options).unwrap();
        assert_eq!(received.unchanged, ["conv-1"]);
        assert!(received.written.is_empty());
    }
    // A later trace of the same conversation adds to it.
    let third = batch(&[(TRACE_2, "c000000000000001", None, 9, 10, {
        let mut attributes = chat(&json!([hi, hello, more, done, more]), &json!([done]));
        attributes["gen_ai.conversation.id"] = json!("conv-1");
        attributes
    })]);
    receive(&store, &third, &options).unwrap();
    assert_eq!(store.history("conv-1").unwrap().turns.len(), 3);
    assert_eq!(store.sessions().unwrap().len(), 1);
}

#[test]
fn spans_may_not_add_to_a_session_made_otherwise_and_bad_batches_change_nothing() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let document = common::example("trip-planning.json");
    common::ingest(&store, &document);
    let id = document["SessionID"].as_str().unwrap();
    let before = store.history(id).unwrap();
    let hi = json!([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]);
    let mut attributes = chat(&hi, &hi);
    attributes["gen_ai.conversation.id"] = json!(id);
    let intruding = batch(&[
        (TRACE, "d000000000000001", None, 1, 2, attributes),
        (TRACE_2, "d000000000000002", None, 1, 2, chat(&hi, &hi)),
    ]);
    let received = receive(&store, &intruding, &ImportOptions::default()).unwrap();
    let rejected = received.rejected.unwrap();
    assert_eq!((rejected.spans, rejected.logs), (1, 0));
    assert!(rejected.message.contains(id), "{}", rejected.message);
    assert_eq!(
        received.written,
        [format!("trace-{TRACE_2}")],
        "the rest is written"
    );
    assert_eq!(
        store.history(id).unwrap(),
        before,
        "the session is untouched"
    );
    for bad in [
        json!({"resourceSpans": {}}),
        json!([1, 2]),
        json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": TRACE, "spanId": "xyz"}]}]}]}),
    ] {
        let error = receive(&store, &bad, &ImportOptions::default()).unwrap_err();
        assert!(
            matches!(error, ihigraph::ingest::ReceiveError::Refused(_)),
            "{error}"
        );
    }
    assert_eq!(store.sessions().unwrap().len(), 2);
}

/// The real emitters, live: each instrumented agent of `tests/otel/emitters/` run with
/// only the standard variables pointing at a real `ihigraph serve`, and every message and
/// tool call it reports found in the graph (`tests/otel/test_emitters.py`); also with
/// gzip, and each fixture's JSON Lines sent as OTLP JSON requests.
#[test]
fn real_emitters_export_to_a_live_server() {
    if common::python::skipped("the real OpenTelemetry emitters") {
        return;
    }
    let venv = common::python::venv("otel-venv", "tests/otel/requirements.txt");
    let output = std::process::Command::new(venv.join("bin/python"))
        .current_dir(common::python::root())
        .args([
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-s",
            "-q",
            "tests/otel/test_emitters.py",
        ])
        .env("IHIGRAPH_BIN", env!("CARGO_BIN_EXE_ihigraph"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "pytest failed:\n{text}");
    for line in text
        .lines()
        .filter(|line| line.contains("messages and calls found"))
    {
        println!("{line}");
        assert!(line.contains("(100%)"), "{line}");
    }
    assert!(text.lines().any(|line| line.contains(" passed")), "{text}");
}
