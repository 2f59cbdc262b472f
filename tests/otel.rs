//! OpenTelemetry in: the `otel` importer on what real instrumentation stacks emitted
//! (`tests/fixtures/import/otel/real-*`, recorded by `tests/otel/emitters/`) and on the other
//! forms of the conventions (`tests/fixtures/import/otel/`), the facts the graph gains
//! (models, tokens, latency, status), files joined, and spans received live in any order
//! and any number of times.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::fixture_path;
use ihigraph::HistoryStore;
use ihigraph::import::{
    Choice, ImportEvent, ImportOptions, Record, convert_records, import_bytes, import_paths,
    importer,
};
use ihigraph::ingest::{LiveSessions, receive, receive_live};
use ihigraph::payload::{Part, Speaker, answer_messages, prompt_messages};
use ihigraph::rdf::map_history;
use serde_json::{Value, json};
use sha2::Digest;
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

/// The live receiver gives the importer the batch and the spans it kept as values
/// (`convert_records`): the sessions must be those the same lines give when read from
/// bytes, for every fixture of the real emitters and of the other forms.
#[test]
fn records_given_as_values_convert_as_their_lines_do() {
    let otel = importer("otel").unwrap();
    let options = ImportOptions::default();
    let mut files: Vec<PathBuf> = real_fixtures()
        .iter()
        .flat_map(|dir| jsonl_files(dir))
        .collect();
    files.extend(jsonl_files(&fixture_path("import/otel")));
    assert!(files.len() >= 6, "{files:?}");
    let (mut converted, mut refused) = (0, 0);
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let mut from_bytes = Ok(Vec::new());
        import_bytes(
            "batch",
            bytes.clone(),
            Choice::Format(otel),
            &options,
            &mut |event| {
                match event {
                    ImportEvent::Session { converted, .. } => {
                        if let Ok(sessions) = &mut from_bytes {
                            sessions.push(*converted);
                        }
                    }
                    ImportEvent::Refused { error, .. } => from_bytes = Err(error.to_string()),
                    _ => {}
                }
                true
            },
        );
        let records = std::str::from_utf8(&bytes)
            .unwrap()
            .lines()
            .enumerate()
            .map(|(index, line)| Record {
                value: serde_json::from_str(line).unwrap(),
                line: Some(index as u64 + 1),
            })
            .collect();
        let digest = hex::encode(sha2::Sha256::digest(&bytes));
        let from_values =
            convert_records(otel, "batch", digest, records, &options).map_err(|e| e.to_string());
        match (&from_values, &from_bytes) {
            (Ok(sessions), Ok(_)) if !sessions.is_empty() => converted += 1,
            (Err(_), Err(_)) => refused += 1,
            _ => {}
        }
        assert_eq!(from_values, from_bytes, "{}", file.display());
    }
    // Both kinds were seen: files whose sessions match, and a broken one refused alike.
    assert!(converted >= 5 && refused >= 1, "{converted} {refused}");
}

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
fn a_receiver_forgets_what_it_kept_when_another_writes() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let mut live = LiveSessions::new(ihigraph::ingest::DEFAULT_LIVE_BYTES);
    let options = ImportOptions::default();
    let hi = json!({"role": "user", "parts": [{"type": "text", "content": "hi"}]});
    let hello = json!({"role": "assistant", "parts": [{"type": "text", "content": "hello"}]});
    let call = |span: &str, start: u64, input: &Value| {
        let mut attributes = chat(input, &json!([hello]));
        attributes["gen_ai.conversation.id"] = json!("conv-9");
        batch(&[(TRACE, span, None, start, start + 1, attributes)])
    };
    receive_live(
        &store,
        &call("e000000000000001", 1, &json!([hi])),
        &options,
        &mut live,
    )
    .unwrap();
    receive_live(
        &store,
        &call("e000000000000002", 3, &json!([hi, hello, hi])),
        &options,
        &mut live,
    )
    .unwrap();
    assert_eq!(live.len(), 1, "the session is kept");
    assert_eq!(store.history("conv-9").unwrap().turns.len(), 2);
    // Another writer deletes the session: the receiver must not write a difference
    // against what it kept, but make the session from what the store holds (nothing).
    store.delete_session("conv-9").unwrap();
    receive_live(
        &store,
        &call("e000000000000003", 5, &json!([hi, hello, hi, hello, hi])),
        &options,
        &mut live,
    )
    .unwrap();
    let history = store.history("conv-9").unwrap();
    assert_eq!(history.turns.len(), 1, "only the spans received since");
    let report = ihigraph::integrity::verify(&store, &[], &|_, _| {}).unwrap();
    assert!(
        report.holds(),
        "{:?}",
        report.failures().collect::<Vec<_>>()
    );
    // Sent again with nothing written in between: the kept session says unchanged.
    let again = receive_live(
        &store,
        &call("e000000000000003", 5, &json!([hi, hello, hi, hello, hi])),
        &options,
        &mut live,
    )
    .unwrap();
    assert_eq!(again.unchanged, ["conv-9"]);
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

/// Every span and log record of the otel fixtures (but the broken ones), each as an
/// export request of its own under its resource and scope. Log records that name no
/// trace are left out: live, such a record goes with a session of the batch it came in,
/// and in a file with the file's first session, so no receiver could match both.
fn export_items() -> Vec<Value> {
    let mut files: Vec<PathBuf> = jsonl_files(&fixture_path("import/otel"));
    files.push(fixture_path("import/otel/openllmetry-indexed.json"));
    for dir in real_fixtures() {
        files.extend(jsonl_files(&dir));
    }
    let mut items = Vec::new();
    for file in files.iter().filter(|f| {
        !f.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("broken-")
    }) {
        let text = std::fs::read_to_string(file).unwrap();
        let values: Vec<Value> = if file.extension().is_some_and(|e| e == "json") {
            vec![serde_json::from_str(&text).unwrap()]
        } else {
            text.lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| serde_json::from_str(line).unwrap())
                .collect()
        };
        for value in values {
            let lists = [
                ("resourceSpans", "scopeSpans", "spans"),
                ("resourceLogs", "scopeLogs", "logRecords"),
            ];
            for (resources, scopes, list) in lists {
                for resource in value[resources].as_array().into_iter().flatten() {
                    for scope in resource[scopes].as_array().into_iter().flatten() {
                        for item in scope[list].as_array().into_iter().flatten() {
                            let untraced = list == "logRecords"
                                && item["traceId"].as_str().is_none_or(str::is_empty);
                            if untraced {
                                continue;
                            }
                            let mut scope = scope.clone();
                            scope[list] = json!([item]);
                            let mut resource = resource.clone();
                            resource[scopes] = json!([scope]);
                            items.push(json!({ resources: [resource] }));
                        }
                    }
                }
            }
        }
    }
    assert!(items.len() > 40, "{} spans and records", items.len());
    items
}

/// Export requests made of `items`: their resources one after the other.
fn export_request(items: &[&Value]) -> Value {
    let mut request = json!({"resourceSpans": [], "resourceLogs": []});
    for item in items {
        for key in ["resourceSpans", "resourceLogs"] {
            if let Some(resources) = item[key].as_array() {
                request[key]
                    .as_array_mut()
                    .unwrap()
                    .extend(resources.clone());
            }
        }
    }
    request
}

/// What `ingest --from otel` makes of `items` written into one file: each session's
/// history, by id.
fn ingested_at_once(
    items: &[Value],
) -> std::collections::BTreeMap<String, ihigraph::model::InteractionHistory> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.jsonl");
    let lines: Vec<String> = items.iter().map(Value::to_string).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut sessions = std::collections::BTreeMap::new();
    let otel = Choice::Format(importer("otel").unwrap());
    import_paths(&[path], otel, &ImportOptions::default(), &mut |event| {
        match event {
            ImportEvent::Session { converted, .. } => {
                sessions.insert(converted.session_id.clone(), converted.history.clone());
            }
            ImportEvent::Refused { file, error } => panic!("{file}: {error}"),
            _ => {}
        }
        true
    });
    sessions
}

/// A small deterministic generator (xorshift64*): the proptest case gives the seed.
struct Shuffle(u64);

impl Shuffle {
    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % bound.max(1)
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(8))]

    /// The sessions spans received live make, in any batches, in any order, some sent
    /// again, are the sessions `ingest --from otel` makes of the same spans in one file:
    /// the same ids, turn for turn the same, and every fingerprint record true; whether
    /// the receiver keeps nothing, keeps a little (sessions let go and read back), or
    /// keeps everything it wrote, and with a write of another in between.
    #[test]
    fn spans_received_in_any_batches_make_what_one_file_makes(
        seed in 1..u64::MAX,
        room in proptest::sample::select(vec![0, 20_000, 64 << 20]),
    ) {
        let items = export_items();
        let expected = ingested_at_once(&items);
        let mut shuffle = Shuffle(seed);
        let mut order: Vec<&Value> = items.iter().collect();
        for at in (1..order.len()).rev() {
            order.swap(at, shuffle.below(at + 1));
        }
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let mut live = LiveSessions::new(room);
        let options = ImportOptions::default();
        let mut sent: Vec<Value> = Vec::new();
        let mut rest = &order[..];
        while !rest.is_empty() {
            let (now, later) = rest.split_at((1 + shuffle.below(8)).min(rest.len()));
            rest = later;
            let request = export_request(now);
            receive_live(&store, &request, &options, &mut live).unwrap();
            sent.push(request);
            match shuffle.below(8) {
                0 | 1 => {
                    let again = &sent[shuffle.below(sent.len())];
                    receive_live(&store, again, &options, &mut live).unwrap();
                }
                // Another writer: what the receiver kept is no longer to be trusted.
                2 => store.update("INSERT DATA { GRAPH <urn:x:other> { <urn:x:a> <urn:x:b> 1 } }").unwrap(),
                _ => {}
            }
        }
        let stored: Vec<String> = store.sessions().unwrap().into_iter().map(|(id, _)| id).collect();
        let mut made: Vec<String> = expected.keys().cloned().collect();
        made.sort();
        let mut stored_sorted = stored.clone();
        stored_sorted.sort();
        proptest::prop_assert_eq!(stored_sorted, made);
        for (id, history) in &expected {
            let got = store.history(id).unwrap();
            proptest::prop_assert_eq!(&got.turns, &history.turns, "session {}", id);
            proptest::prop_assert_eq!(&got.session_start_time, &history.session_start_time);
        }
        let report = ihigraph::integrity::verify(&store, &[], &|_, _| {}).unwrap();
        proptest::prop_assert!(report.holds(), "{:?}", report.failures().collect::<Vec<_>>());
    }
}
