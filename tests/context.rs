//! Context for the next model call, checked on every session of the test corpus (the
//! generated corpus, the bundled examples, every importer fixture) in every format at
//! many budgets: the request validates against the provider's published request schema
//! (`tests/fixtures/context/schemas/`), every call goes with its result by the
//! provider's rules, no text differs from a stored text, the budget holds, and the turns
//! taken are the newest ones.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{examples_dir, fixture_path, ihigraph};
use ihigraph::HistoryStore;
use ihigraph::check::{CheckOptions, check_document};
use ihigraph::context::{
    Context, ContextError, ContextFormat, ContextOptions, SystemPrompt, Tokenizer, assemble,
    session_context,
};
use ihigraph::generate::{GenerateOptions, generate};
use ihigraph::import::{Choice, ImportEvent, ImportOptions, import_paths, importer};
use ihigraph::model::InteractionHistory;
use ihigraph::rdf::map_history;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// Every history of the test corpus, named.
static CORPUS: LazyLock<Vec<(String, InteractionHistory)>> = LazyLock::new(corpus);

fn corpus() -> Vec<(String, InteractionHistory)> {
    let mut all = Vec::new();
    let options = GenerateOptions {
        sessions: 24,
        seed: 7,
        min_turns: 1,
        max_turns: 24,
    };
    for document in generate(options) {
        let history = check_document(&document, CheckOptions::default())
            .history
            .unwrap();
        all.push((format!("generated {}", history.session_id), history));
    }
    for entry in std::fs::read_dir(examples_dir()).unwrap() {
        let path = entry.unwrap().path();
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let history = check_document(&document, CheckOptions::default())
            .history
            .unwrap();
        all.push((path.display().to_string(), history));
    }
    for (name, path) in common::import_fixtures(true) {
        let choice = Choice::Format(importer(&name).unwrap());
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("broken-")
        {
            continue;
        }
        let options = ImportOptions::default().session_id("fixture");
        import_paths(
            std::slice::from_ref(&path),
            choice,
            &options,
            &mut |event| {
                if let ImportEvent::Session { converted, .. } = event {
                    all.push((
                        format!("{} {}", path.display(), converted.session_id),
                        converted.history,
                    ));
                }
                true
            },
        );
    }
    assert!(all.len() > 60, "corpus too small: {}", all.len());
    all
}

/// Every string stored in a history's payloads: no text of a context may be another.
fn stored_strings(history: &InteractionHistory) -> HashSet<String> {
    fn walk(value: &Value, into: &mut HashSet<String>) {
        match value {
            Value::String(text) => {
                into.insert(text.clone());
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, into)),
            Value::Object(members) => members.values().for_each(|item| walk(item, into)),
            _ => {}
        }
    }
    let mut strings = HashSet::new();
    for turn in &history.turns {
        walk(&Value::Object(turn.prompt.clone()), &mut strings);
        walk(&Value::Object(turn.response.clone()), &mut strings);
    }
    strings
}

static SCHEMAS: LazyLock<HashMap<ContextFormat, jsonschema::Validator>> = LazyLock::new(|| {
    ContextFormat::ALL
        .into_iter()
        .map(|format| {
            let path = fixture_path(&format!("context/schemas/{}.json", format.name()));
            let schema: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (format, jsonschema::validator_for(&schema).unwrap())
        })
        .collect()
});

/// The request as a client sends it: the context, the next user message, the model (and
/// Anthropic's `max_tokens`).
fn as_sent(context: &Context) -> Value {
    let mut request = context.request.clone();
    let (list, next) = match context.format {
        ContextFormat::OpenAiChat => ("messages", json!({"role": "user", "content": "Next?"})),
        ContextFormat::OpenAiResponses => ("input", json!({"role": "user", "content": "Next?"})),
        ContextFormat::Anthropic => ("messages", json!({"role": "user", "content": "Next?"})),
        ContextFormat::Gemini => (
            "contents",
            json!({"role": "user", "parts": [{"text": "Next?"}]}),
        ),
    };
    request[list].as_array_mut().unwrap().push(next);
    request["model"] = json!("a-model");
    if context.format == ContextFormat::Anthropic {
        request["max_tokens"] = json!(1024);
    }
    if context.format == ContextFormat::Gemini {
        request.as_object_mut().unwrap().remove("model");
    }
    request
}

fn validates(context: &Context) -> Result<(), String> {
    let request = as_sent(context);
    let errors: Vec<String> = SCHEMAS[&context.format]
        .iter_errors(&request)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// The texts of a request: what a model reads as the conversation's words.
fn texts(context: &Context) -> Vec<String> {
    let request = &context.request;
    let mut found = Vec::new();
    let mut push = |value: &Value| {
        if let Some(text) = value.as_str() {
            found.push(text.to_owned());
        }
    };
    match context.format {
        ContextFormat::OpenAiChat | ContextFormat::OpenAiResponses => {
            let list = if context.format == ContextFormat::OpenAiChat {
                "messages"
            } else {
                "input"
            };
            for message in request[list].as_array().unwrap() {
                if message["role"] == "tool" || message.get("type").is_some() {
                    continue;
                }
                match &message["content"] {
                    Value::Array(parts) => parts.iter().for_each(|p| push(&p["text"])),
                    content => push(content),
                }
            }
        }
        ContextFormat::Anthropic => {
            match &request["system"] {
                Value::Array(blocks) => blocks.iter().for_each(|b| push(&b["text"])),
                system => push(system),
            }
            for message in request["messages"].as_array().unwrap() {
                match &message["content"] {
                    Value::Array(blocks) => blocks.iter().for_each(|b| push(&b["text"])),
                    content => push(content),
                }
            }
        }
        ContextFormat::Gemini => {
            let system = request["systemInstruction"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for part in system.iter().chain(
                request["contents"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|c| c["parts"].as_array().unwrap()),
            ) {
                push(&part["text"]);
            }
        }
    }
    found
}

/// Checks the provider's pairing rules: every call answered once, right where the
/// provider wants it, and no result without its call.
fn paired(context: &Context) -> Result<(), String> {
    match context.format {
        ContextFormat::OpenAiChat => paired_chat(context.request["messages"].as_array().unwrap()),
        ContextFormat::OpenAiResponses => {
            paired_responses(context.request["input"].as_array().unwrap())
        }
        ContextFormat::Anthropic => paired_alternating(
            context.request["messages"].as_array().unwrap(),
            ("assistant", "content"),
            |b| (b["type"] == "tool_use").then(|| b["id"].as_str().unwrap().to_owned()),
            |b| (b["type"] == "tool_result").then(|| b["tool_use_id"].as_str().unwrap().to_owned()),
        ),
        ContextFormat::Gemini => paired_alternating(
            &gemini_turns(context.request["contents"].as_array().unwrap())?,
            ("model", "parts"),
            |p| {
                p.get("functionCall")
                    .map(|c| format!("{}/{}", c["id"], c["name"]))
            },
            |p| {
                p.get("functionResponse")
                    .map(|r| format!("{}/{}", r["id"], r["name"]))
            },
        ),
    }
}

/// Gemini's contents read as turns: a content holds function responses only or none,
/// and a user content of function responses followed by one without any is one turn of
/// the user's (Gemini refuses a content that mixes them).
fn gemini_turns(contents: &[Value]) -> Result<Vec<Value>, String> {
    let responses = |content: &Value| {
        let parts = content["parts"].as_array().unwrap();
        let found = parts
            .iter()
            .filter(|part| part.get("functionResponse").is_some())
            .count();
        (found, parts.len())
    };
    let mut turns: Vec<Value> = Vec::new();
    for (at, content) in contents.iter().enumerate() {
        let (found, parts) = responses(content);
        if found > 0 && found < parts {
            return Err(format!(
                "content {at}: function responses mixed with other parts"
            ));
        }
        if let Some(last) = turns.last_mut()
            && last["role"] == "user"
            && content["role"] == "user"
            && found == 0
            && responses(last).0 == responses(last).1
        {
            let words = content["parts"].as_array().unwrap().clone();
            last["parts"].as_array_mut().unwrap().extend(words);
            continue;
        }
        turns.push(content.clone());
    }
    Ok(turns)
}

fn paired_chat(messages: &[Value]) -> Result<(), String> {
    let mut waiting: Vec<String> = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().unwrap().to_owned();
            let Some(found) = waiting.iter().position(|w| *w == id) else {
                return Err(format!(
                    "message {at}: a result for {id}, which waits for none"
                ));
            };
            waiting.remove(found);
            continue;
        }
        if !waiting.is_empty() {
            return Err(format!(
                "message {at}: calls {waiting:?} not answered before it"
            ));
        }
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
            waiting = calls
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned())
                .collect();
            if message["role"] != "assistant" {
                return Err(format!("message {at}: calls outside an assistant message"));
            }
        }
    }
    if waiting.is_empty() {
        Ok(())
    } else {
        Err(format!("calls {waiting:?} never answered"))
    }
}

fn paired_responses(items: &[Value]) -> Result<(), String> {
    let mut waiting: Vec<String> = Vec::new();
    for (at, item) in items.iter().enumerate() {
        match item["type"].as_str() {
            Some("function_call") => waiting.push(item["call_id"].as_str().unwrap().to_owned()),
            Some("function_call_output") => {
                let id = item["call_id"].as_str().unwrap();
                let Some(found) = waiting.iter().position(|w| w == id) else {
                    return Err(format!(
                        "item {at}: an output for {id}, which waits for none"
                    ));
                };
                waiting.remove(found);
            }
            _ => {}
        }
    }
    if waiting.is_empty() {
        Ok(())
    } else {
        Err(format!("calls {waiting:?} never answered"))
    }
}

/// Anthropic and Gemini: the roles alternate from the user; the calls of a model's
/// message are answered, all of them and first, by the next message; results appear
/// nowhere else.
fn paired_alternating(
    messages: &[Value],
    (model, list): (&str, &str),
    call: fn(&Value) -> Option<String>,
    result: fn(&Value) -> Option<String>,
) -> Result<(), String> {
    let mut waiting: Vec<String> = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap();
        let expected = if at % 2 == 0 { "user" } else { model };
        if role != expected {
            return Err(format!("message {at}: role {role}, expected {expected}"));
        }
        let items: Vec<Value> = match &message[list] {
            Value::Array(items) => items.clone(),
            _ => Vec::new(),
        };
        let answered: Vec<String> = items.iter().filter_map(result).collect();
        let mut sorted_answered = answered.clone();
        sorted_answered.sort();
        let mut sorted_waiting = waiting.clone();
        sorted_waiting.sort();
        if sorted_answered != sorted_waiting {
            return Err(format!(
                "message {at}: answers {answered:?}, calls waiting {waiting:?}"
            ));
        }
        if items
            .iter()
            .skip(answered.len())
            .any(|item| result(item).is_some())
        {
            return Err(format!("message {at}: results after other content"));
        }
        waiting = items.iter().filter_map(call).collect();
    }
    if waiting.is_empty() {
        Ok(())
    } else {
        Err(format!("calls {waiting:?} never answered"))
    }
}

/// Everything a context must be, for one session, format and budget.
fn check(name: &str, history: &InteractionHistory, options: &ContextOptions) -> Result<(), String> {
    let context = match assemble(history, options) {
        Ok(context) => context,
        Err(ContextError::BudgetTooSmall { needed, budget, .. }) => {
            return if needed > budget {
                Ok(())
            } else {
                Err(format!("{name}: refused a budget that fits"))
            };
        }
        Err(error) => return Err(format!("{name}: {error}")),
    };
    let place = format!("{name} ({}, budget {})", options.format, options.budget);
    if context.tokens > options.budget {
        return Err(format!("{place}: {} tokens", context.tokens));
    }
    validates(&context).map_err(|e| format!("{place}: schema: {e}\n{:#}", context.request))?;
    paired(&context).map_err(|e| format!("{place}: pairing: {e}\n{:#}", context.request))?;
    let stored = stored_strings(history);
    if let Some(text) = texts(&context)
        .into_iter()
        .find(|text| !stored.contains(text))
    {
        return Err(format!("{place}: text not stored as is: {text:?}"));
    }
    let mut indexes: Vec<String> = history
        .turns
        .iter()
        .map(|t| t.turn_index.to_string())
        .collect();
    indexes.sort_by_key(|index| index.parse::<u64>().unwrap_or(u64::MAX));
    if let Some(until) = options.until {
        indexes.retain(|index| index.parse::<u64>().is_ok_and(|i| i <= until));
    }
    if !indexes.ends_with(&context.turns) {
        return Err(format!(
            "{place}: turns {:?} are not the newest of {indexes:?}",
            context.turns
        ));
    }
    Ok(())
}

#[test]
fn every_session_in_every_format_at_many_budgets() {
    let mut failures = Vec::new();
    let mut whole = 0;
    for (name, history) in CORPUS.iter() {
        for format in ContextFormat::ALL {
            for budget in [40, 120, 300, 800, 2000, 8000, 1_000_000] {
                for system in [SystemPrompt::Keep, SystemPrompt::Drop] {
                    let options = ContextOptions {
                        system,
                        ..ContextOptions::new(budget, format)
                    };
                    if let Err(failure) = check(name, history, &options) {
                        failures.push(failure);
                    }
                }
            }
            let everything = assemble(history, &ContextOptions::new(1_000_000, format)).unwrap();
            whole += usize::from(everything.turns.len() == history.turns.len());
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n\n")
    );
    // A large budget takes every turn of every session.
    assert_eq!(whole, CORPUS.len() * ContextFormat::ALL.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any session, format, budget, tokenizer and cut: valid, paired, exact, newest.
    #[test]
    fn pairing_holds_at_any_budget(
        session in 0..1000usize,
        format in 0..4usize,
        budget in 1..30_000usize,
        cl100k in any::<bool>(),
        until in proptest::option::of(0..30u64),
    ) {
        let (name, history) = &CORPUS[session % CORPUS.len()];
        let options = ContextOptions {
            tokenizer: Some(if cl100k { Tokenizer::Cl100kBase } else { Tokenizer::O200kBase }),
            until,
            ..ContextOptions::new(budget, ContextFormat::ALL[format])
        };
        if let Err(failure) = check(name, history, &options) {
            prop_assert!(false, "{}", failure);
        }
    }
}

fn history(document: &Value) -> InteractionHistory {
    let checked = check_document(document, CheckOptions::default());
    checked
        .history
        .unwrap_or_else(|| panic!("{:?}", checked.problems))
}

fn simple_time(id: &str, millis: usize) -> Value {
    json!({"Header": "OSD-STM-V1.5", "SimpleTimeID": id, "SimpleTimeData": [
        {"FlagsByte": 3, "StartTime": millis, "EndTime": millis, "AccuracyMode": "single", "AccuracyPlusMinus": 1}]})
}

/// A session of the given turns (their role and payloads), session id `s`.
fn session(turns: &[Value]) -> Value {
    let turns: Vec<Value> = turns
        .iter()
        .enumerate()
        .map(|(index, turn)| {
            let mut turn = turn.clone();
            turn["TurnIndex"] = json!(index);
            turn["Timestamp"] = simple_time(&format!("t{index}"), 1_767_254_400_000 + index * 1000);
            turn
        })
        .collect();
    json!({
        "Header": "PGM-IHI-V1.0", "MInstanceID": "m", "UEnvironmentID": "u", "SessionID": "s",
        "SessionStartTime": simple_time("start", 1_767_254_400_000), "TurnCount": turns.len(), "Turns": turns,
        "DataXMData": {"Header": "PTF-DEM-V1.0", "DataID": "d", "DataType": "PGM-IHI-V1.0", "Source": [{"AIMID": "a"}]}
    })
}

/// An OpenAI Chat session: a question, a call, its result and the answer, then a
/// second question with an image.
fn chat_session() -> Value {
    session(&[
        json!({"Role": "H-User",
            "PRCPrompt": {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Zürich?"}]},
            "BKNResponse": {"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call.1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Zürich\"}"}}]}}]}}),
        json!({"Role": "A-User",
            "PRCPrompt": {"messages": [{"role": "tool", "tool_call_id": "call.1", "content": "12 °C, rain"}]},
            "BKNResponse": {"choices": [{"message": {"role": "assistant", "content": "12 °C and rain."}}]}}),
        json!({"Role": "H-User",
            "PRCPrompt": {"messages": [{"role": "user", "content": [{"type": "text", "text": "And this?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]}]},
            "BKNResponse": {"choices": [{"message": {"role": "assistant", "content": "A map."}}]}}),
    ])
}

#[test]
fn a_chat_session_in_anthropic_shape() {
    let context = assemble(
        &history(&chat_session()),
        &ContextOptions::new(8000, ContextFormat::Anthropic),
    )
    .unwrap();
    assert_eq!(
        context.request,
        json!({"system": "Be brief.", "messages": [
            {"role": "user", "content": "Weather in Zürich?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "weather", "input": {"city": "Zürich"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "12 °C, rain"}]},
            {"role": "assistant", "content": "12 °C and rain."},
            {"role": "user", "content": "And this?"},
            {"role": "assistant", "content": "A map."}
        ]})
    );
    assert_eq!(context.turns, ["0", "1", "2"]);
    assert_eq!(context.omitted.len(), 1);
    assert_eq!(context.omitted[0].turn, "2");
    assert_eq!(
        context.omitted[0].pointer,
        "/Turns/2/PRCPrompt/messages/0/content/1"
    );
    assert!(
        context.omitted[0].what.contains("image_url"),
        "{}",
        context.omitted[0].what
    );
}

#[test]
fn a_chat_session_in_gemini_and_responses_shapes() {
    let history = history(&chat_session());
    let gemini = assemble(&history, &ContextOptions::new(8000, ContextFormat::Gemini)).unwrap();
    assert_eq!(
        gemini.request,
        json!({"systemInstruction": {"parts": [{"text": "Be brief."}]}, "contents": [
            {"role": "user", "parts": [{"text": "Weather in Zürich?"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "call.1", "name": "weather", "args": {"city": "Zürich"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "call.1", "name": "weather", "response": {"output": "12 °C, rain"}}}]},
            {"role": "model", "parts": [{"text": "12 °C and rain."}]},
            {"role": "user", "parts": [{"text": "And this?"}]},
            {"role": "model", "parts": [{"text": "A map."}]}
        ]})
    );
    let responses = assemble(
        &history,
        &ContextOptions::new(8000, ContextFormat::OpenAiResponses),
    )
    .unwrap();
    assert_eq!(
        responses.request["input"].as_array().unwrap()[1..4],
        [
            json!({"role": "user", "content": "Weather in Zürich?"}),
            json!({"type": "function_call", "call_id": "call.1", "name": "weather", "arguments": "{\"city\":\"Zürich\"}"}),
            json!({"type": "function_call_output", "call_id": "call.1", "output": "12 °C, rain"}),
        ]
    );
}

#[test]
fn a_call_goes_with_its_result_or_not_at_all() {
    let history = history(&chat_session());
    let tokenizer = Tokenizer::O200kBase;
    // Just enough for the system prompt and the last turn: the call of turn 0 and its
    // result in turn 1 are one unit, and do not fit.
    let full = assemble(
        &history,
        &ContextOptions::new(100_000, ContextFormat::OpenAiChat),
    )
    .unwrap();
    let messages = full.request["messages"].as_array().unwrap();
    let last_two: usize = messages[5..]
        .iter()
        .map(|m| tokenizer.message_cost(m))
        .sum();
    let budget = tokenizer.message_cost(&messages[0]) + last_two + 3;
    let cut = assemble(
        &history,
        &ContextOptions::new(budget, ContextFormat::OpenAiChat),
    )
    .unwrap();
    assert_eq!(cut.turns, ["2"]);
    assert_eq!(cut.tokens, budget);
    // One token less: not even the newest turn fits.
    let error = assemble(
        &history,
        &ContextOptions::new(budget - 1, ContextFormat::OpenAiChat),
    )
    .unwrap_err();
    assert!(
        error.to_string().contains(&format!(
            "the newest turn (2) with the system prompt needs {budget} tokens"
        )),
        "{error}"
    );
    // With the result's turn, the call's turn comes too.
    let middle: usize = messages[1..5]
        .iter()
        .map(|m| tokenizer.message_cost(m))
        .sum();
    let more = assemble(
        &history,
        &ContextOptions::new(budget + middle, ContextFormat::OpenAiChat),
    )
    .unwrap();
    assert_eq!(more.turns, ["0", "1", "2"]);
    let almost = assemble(
        &history,
        &ContextOptions::new(budget + middle - 1, ContextFormat::OpenAiChat),
    )
    .unwrap();
    assert_eq!(almost.turns, ["2"]);
}

#[test]
fn the_system_prompt_is_counted_and_can_be_dropped() {
    let history = history(&chat_session());
    let error = assemble(&history, &ContextOptions::new(5, ContextFormat::OpenAiChat)).unwrap_err();
    assert!(
        error.to_string().contains("the system prompt needs"),
        "{error}"
    );
    let dropped = ContextOptions {
        system: SystemPrompt::Drop,
        ..ContextOptions::new(100_000, ContextFormat::OpenAiChat)
    };
    let context = assemble(&history, &dropped).unwrap();
    assert_eq!(context.request["messages"][0]["role"], "user");
    let anthropic = ContextOptions {
        format: ContextFormat::Anthropic,
        ..dropped
    };
    assert!(
        assemble(&history, &anthropic)
            .unwrap()
            .request
            .get("system")
            .is_none()
    );
}

#[test]
fn calls_without_results_and_results_without_calls_are_left_out_and_named() {
    let document = session(&[json!({"Role": "H-User",
            "PRCPrompt": {"messages": [{"role": "user", "content": "Go."}, {"role": "tool", "tool_call_id": "ghost", "content": "?"}]},
            "BKNResponse": {"choices": [{"message": {"role": "assistant", "content": "Looking.", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]}})]);
    let context = assemble(
        &history(&document),
        &ContextOptions::new(8000, ContextFormat::OpenAiChat),
    )
    .unwrap();
    assert_eq!(
        context.request,
        json!({"messages": [{"role": "user", "content": "Go."}, {"role": "assistant", "content": "Looking."}]})
    );
    let notes: Vec<&str> = context.omitted.iter().map(|o| o.what.as_str()).collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`ghost`") && n.contains("its call is not in the history"))
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("call `c1` of `f`") && n.contains("no result"))
    );
}

#[test]
fn replayed_requests_add_only_what_is_new() {
    // Each prompt is the whole request as sent: the history is not repeated.
    let document = session(&[
        json!({"Role": "H-User",
            "PRCPrompt": {"system": "S", "messages": [{"role": "user", "content": "one"}]},
            "BKNResponse": {"role": "assistant", "content": [{"type": "text", "text": "1"}]}}),
        json!({"Role": "H-User",
            "PRCPrompt": {"system": "S", "messages": [{"role": "user", "content": "one"}, {"role": "assistant", "content": "1"}, {"role": "user", "content": "two"}]},
            "BKNResponse": {"role": "assistant", "content": [{"type": "text", "text": "2"}]}}),
    ]);
    let context = assemble(
        &history(&document),
        &ContextOptions::new(8000, ContextFormat::OpenAiChat),
    )
    .unwrap();
    assert_eq!(
        context.request,
        json!({"messages": [
            {"role": "system", "content": "S"},
            {"role": "user", "content": "one"}, {"role": "assistant", "content": "1"},
            {"role": "user", "content": "two"}, {"role": "assistant", "content": "2"}
        ]})
    );
    let until = ContextOptions {
        until: Some(0),
        ..ContextOptions::new(8000, ContextFormat::OpenAiChat)
    };
    assert_eq!(assemble(&history(&document), &until).unwrap().turns, ["0"]);
}

/// A store holding the chat session (ingested through the command line).
fn stored_chat_session() -> tempfile::TempDir {
    let store = tempfile::tempdir().unwrap();
    ihigraph(store.path())
        .args(["ingest", "-"])
        .write_stdin(chat_session().to_string())
        .assert()
        .success();
    store
}

#[test]
fn the_cli_prints_the_request_and_says_what_it_left_out() {
    let store = stored_chat_session();
    let output = ihigraph(store.path())
        .args(["context", "s", "--budget", "8000", "--format", "gemini"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let request: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        request["contents"][0]["parts"][0]["text"],
        "Weather in Zürich?"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("left out: turn 2 (/Turns/2/PRCPrompt/messages/0/content/1)"),
        "{stderr}"
    );
    assert!(stderr.contains("turns 0 to 2 (3 of 3)"), "{stderr}");
    assert!(stderr.contains("tokens (o200k_base)"), "{stderr}");
    let small = ihigraph(store.path())
        .args(["context", "s", "--budget", "10"])
        .output()
        .unwrap();
    assert_eq!(small.status.code(), Some(2));
    assert!(small.stdout.is_empty());
    assert!(String::from_utf8_lossy(&small.stderr).contains("the system prompt needs"));
    let unknown = ihigraph(store.path())
        .args(["context", "nope", "--budget", "10"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(1));
}

#[test]
fn a_payload_changed_behind_ihigraphs_back_is_a_clear_error() {
    let store = stored_chat_session();
    let update = "PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
        DELETE { GRAPH ?g { ?p ihi:rawJson ?json } } INSERT { GRAPH ?g { ?p ihi:rawJson \"not json\" } }
        WHERE { GRAPH ?g { ?p ihi:rawJson ?json } FILTER (STRENDS(STR(?p), \"/turn/1/prompt\")) }";
    ihigraph(store.path())
        .args(["sparql", "--update", update])
        .assert()
        .success();
    let output = ihigraph(store.path())
        .args(["context", "s", "--budget", "8000"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("turn 1 of session \"s\""), "{stderr}");
    assert!(stderr.contains("not written by ihigraph"), "{stderr}");
}

/// A long OpenAI Chat session whose answers call `lookup` with the same id, answered in
/// the next turn (every fourth answer calls nothing), after a first answer with a second
/// call of that id that is never answered; an image in an early turn; and texts long
/// enough to spend a budget.
fn reused_ids_session(turns: usize) -> Value {
    let call = |id: &str, turn: usize| json!({"id": id, "type": "function", "function": {"name": "lookup", "arguments": format!("{{\"page\":{turn}}}")}});
    let turns: Vec<Value> = (0..turns)
        .map(|turn| {
            let mut messages = Vec::new();
            if turn == 0 {
                messages.push(json!({"role": "system", "content": "Answer from the pages."}));
            } else if turn % 4 != 0 {
                messages.push(json!({"role": "tool", "tool_call_id": "call_0", "content": format!("page {} says {}", turn - 1, "words ".repeat(turn * 7))}));
            }
            let mut content = vec![json!({"type": "text", "text": format!("Question {turn}: {}", "why ".repeat(turn % 5 + 3))})];
            if turn == 2 {
                content.push(json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}));
            }
            messages.push(json!({"role": "user", "content": content}));
            let mut calls = vec![call("call_0", turn)];
            if turn == 0 {
                calls.insert(0, call("call_0", 99));
            }
            if turn % 4 == 3 {
                calls.clear();
            }
            chat_turn(&messages, &format!("Looking up page {turn}."), &json!(calls))
        })
        .collect();
    session(&turns)
}

/// An OpenAI Chat turn: its new messages, and an answer with its text and calls.
fn chat_turn(messages: &[Value], answer: &str, calls: &Value) -> Value {
    json!({"Role": "H-User",
        "PRCPrompt": {"messages": messages},
        "BKNResponse": {"choices": [{"message": {"role": "assistant", "content": answer, "tool_calls": calls}}]}})
}

/// An OpenAI Chat session whose first answer calls `lookup` with id `x` and never gets
/// its result; the answer before the last calls it again with the same id, and the last
/// turn holds that result (for the newest call: the first is stale).
fn stale_call_session(turns: usize) -> Value {
    let turns: Vec<Value> = (0..turns)
        .map(|turn| {
            let mut messages = vec![json!({"role": "user", "content": format!("Turn {turn}: {}", "go on ".repeat(turn + 2))})];
            if turn + 1 == turns {
                messages.insert(0, json!({"role": "tool", "tool_call_id": "x", "content": "found it"}));
            }
            let calls = if turn == 0 || turn + 2 == turns {
                json!([{"id": "x", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}])
            } else {
                json!([])
            };
            chat_turn(&messages, &format!("Answer {turn}."), &calls)
        })
        .collect();
    session(&turns)
}

/// A long Gemini session whose results name their function but carry no id.
fn named_results_session(turns: usize) -> Value {
    let turns: Vec<Value> = (0..turns)
        .map(|turn| {
            let mut contents = Vec::new();
            if turn > 0 {
                contents.push(json!({"role": "user", "parts": [{"functionResponse": {"name": "clock", "response": {"time": format!("{turn}:00")}}}]}));
            }
            contents.push(json!({"role": "user", "parts": [{"text": format!("What time is it now, turn {turn}? {}", "please ".repeat(turn % 4))}]}));
            json!({"Role": "H-User",
                "PRCPrompt": {"contents": contents},
                "BKNResponse": {"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me look."}, {"functionCall": {"name": "clock", "args": {}}}]}}]}})
        })
        .collect();
    session(&turns)
}

/// A session whose turn indexes break the rule (accepted with --lenient): `order` gives
/// each turn's `TurnIndex`.
fn lenient_history(order: &[usize]) -> InteractionHistory {
    let mut document = chat_session();
    let turns = document["Turns"].as_array_mut().unwrap();
    turns.truncate(order.len());
    for (turn, index) in turns.iter_mut().zip(order) {
        turn["TurnIndex"] = json!(index);
    }
    document["TurnCount"] = json!(order.len());
    let checked = check_document(&document, CheckOptions { lenient: true });
    checked
        .history
        .unwrap_or_else(|| panic!("{:?}", checked.problems))
}

/// What `context` reads from the store (the newest turns first, then older ones as
/// needed) gives, for every session, format, budget and cut, the context its document
/// gives: the same request, count, turns and omissions, with the places in the
/// document.
#[test]
fn stored_sessions_give_the_contexts_of_their_documents() {
    let mut histories: Vec<(String, InteractionHistory)> = CORPUS.clone();
    for (name, document) in [
        ("reused ids", reused_ids_session(40)),
        ("stale call", stale_call_session(30)),
        ("named results", named_results_session(30)),
    ] {
        histories.push((name.to_owned(), history(&document)));
    }
    for (source, document) in results_and_text_sessions() {
        histories.push((format!("{source} results and words"), history(&document)));
    }
    for order in [[1, 0, 2], [0, 0, 1], [2, 1, 0]] {
        histories.push((format!("lenient {order:?}"), lenient_history(&order)));
    }
    let mut compared = 0;
    for (name, history) in &histories {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        store
            .write_session(&map_history(history, store.scheme()))
            .unwrap();
        for format in ContextFormat::ALL {
            for budget in [40, 120, 300, 800, 2000, 8000, 1_000_000] {
                for until in [None, Some(1), Some(20)] {
                    let options = ContextOptions {
                        until,
                        ..ContextOptions::new(budget, format)
                    };
                    let stored = session_context(&store, &history.session_id, &options)
                        .map_err(|error| error.to_string());
                    let document = assemble(history, &options).map_err(|error| error.to_string());
                    assert_eq!(
                        stored, document,
                        "{name} in {format} at {budget} tokens, until {until:?}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 2000, "{compared}");
}

/// The embedded tokenizers count as tiktoken (tiktoken-rs, OpenAI's tiktoken in Rust)
/// does, on every text of the test corpus and on texts whose white space and scripts the
/// tokenizers' patterns treat apart.
#[test]
fn token_counts_are_tiktokens() {
    let mut texts: Vec<String> = CORPUS
        .iter()
        .flat_map(|(_, history)| stored_strings(history))
        .collect();
    texts.extend(
        [
            "  \n\n  x",
            "a  ",
            "   ",
            "\t\t\n",
            "Hello,   world!  \n",
            "日本語のテキスト  です",
            "x\u{301}y",
            "<|endoftext|>",
            "  \r\n  b",
            "😀😀 😀",
            "don't I'LL",
            "123456789",
            "a/b\n/c",
            "",
        ]
        .map(str::to_owned),
    );
    for (ours, theirs) in [
        (Tokenizer::O200kBase, tiktoken_rs::o200k_base_singleton()),
        (Tokenizer::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
    ] {
        for text in &texts {
            assert_eq!(
                ours.count(text),
                theirs.count_ordinary(text),
                "{ours} on {text:?}"
            );
        }
    }
    assert!(texts.len() > 1000, "{}", texts.len());
}

/// The words the user adds beside the results in the sessions below.
const OWN_WORDS: &str = "Only direct trains, please.";

/// Two-turn sessions in each source shape whose second prompt carries the result of the
/// first answer's call and then words of the user's own (Anthropic's user message with a
/// `tool_result` block and a text block, OpenAI Chat's tool message and user message,
/// OpenAI Responses' `function_call_output` and user message, Gemini's user content with
/// a `functionResponse` part and a text part).
fn results_and_text_sessions() -> Vec<(&'static str, Value)> {
    let question = "Trains from Bern to Lugano tomorrow?";
    let answer = "The 07:04 is direct.";
    let turn = |role: &str, prompt: Value, response: Value| json!({"Role": role, "PRCPrompt": prompt, "BKNResponse": response});
    let anthropic = session(&[
        turn(
            "H-User",
            json!({"system": "Plan trips.", "messages": [{"role": "user", "content": question}]}),
            json!({"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_01", "name": "trains", "input": {"from": "Bern", "to": "Lugano"}}]}),
        ),
        turn(
            "H-User",
            json!({"messages": [{"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "06:34 (1 change), 07:04 (direct)"},
                {"type": "text", "text": OWN_WORDS}]}]}),
            json!({"type": "message", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": answer}]}),
        ),
    ]);
    let chat = session(&[
        turn(
            "H-User",
            json!({"messages": [{"role": "system", "content": "Plan trips."}, {"role": "user", "content": question}]}),
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_7", "type": "function", "function": {"name": "trains", "arguments": "{\"from\":\"Bern\",\"to\":\"Lugano\"}"}}]}}]}),
        ),
        turn(
            "H-User",
            json!({"messages": [
                {"role": "tool", "tool_call_id": "call_7", "content": "06:34 (1 change), 07:04 (direct)"},
                {"role": "user", "content": OWN_WORDS}]}),
            json!({"choices": [{"message": {"role": "assistant", "content": answer}}]}),
        ),
    ]);
    let responses = session(&[
        turn(
            "H-User",
            json!({"instructions": "Plan trips.", "input": [{"role": "user", "content": question}]}),
            json!({"object": "response", "output": [
                {"type": "function_call", "call_id": "fc_7", "name": "trains", "arguments": "{\"from\":\"Bern\",\"to\":\"Lugano\"}"}]}),
        ),
        turn(
            "H-User",
            json!({"input": [
                {"type": "function_call_output", "call_id": "fc_7", "output": "06:34 (1 change), 07:04 (direct)"},
                {"role": "user", "content": [{"type": "input_text", "text": OWN_WORDS}]}]}),
            json!({"object": "response", "output": [
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}]}),
        ),
    ]);
    let gemini = session(&[
        turn(
            "H-User",
            json!({"systemInstruction": {"parts": [{"text": "Plan trips."}]}, "contents": [{"role": "user", "parts": [{"text": question}]}]}),
            json!({"role": "model", "parts": [{"functionCall": {"name": "trains", "args": {"from": "Bern", "to": "Lugano"}}}]}),
        ),
        turn(
            "H-User",
            json!({"contents": [{"role": "user", "parts": [
                {"functionResponse": {"name": "trains", "response": {"output": "06:34 (1 change), 07:04 (direct)"}}},
                {"text": OWN_WORDS}]}]}),
            json!({"role": "model", "parts": [{"text": answer}]}),
        ),
    ]);
    vec![
        ("anthropic", anthropic),
        ("openai-chat", chat),
        ("openai-responses", responses),
        ("gemini", gemini),
    ]
}

/// Where the user's own words sit in a context of the sessions above: right after the
/// result, in the format's shape; `None` when they are missing or misplaced.
fn own_words_after_the_result(context: &Context) -> Option<()> {
    let request = &context.request;
    let list = |name: &str| request[name].as_array().cloned().unwrap_or_default();
    match context.format {
        ContextFormat::OpenAiChat => {
            let messages = list("messages");
            let at = messages.iter().position(|m| m["role"] == "tool")?;
            (messages.get(at + 1)? == &json!({"role": "user", "content": OWN_WORDS})).then_some(())
        }
        ContextFormat::OpenAiResponses => {
            let items = list("input");
            let at = items
                .iter()
                .position(|item| item["type"] == "function_call_output")?;
            (items.get(at + 1)? == &json!({"role": "user", "content": OWN_WORDS})).then_some(())
        }
        // One user message: the result first, as Anthropic requires, then the words.
        ContextFormat::Anthropic => list("messages").iter().find_map(|message| {
            let blocks = message["content"].as_array()?;
            (message["role"] == "user"
                && blocks.len() == 2
                && blocks[0]["type"] == "tool_result"
                && blocks[1] == json!({"type": "text", "text": OWN_WORDS}))
            .then_some(())
        }),
        // Gemini takes a function response content with function responses only: the
        // words follow in a user content of their own.
        ContextFormat::Gemini => {
            let contents = list("contents");
            let at = contents.iter().position(|content| {
                content["parts"]
                    .as_array()
                    .is_some_and(|parts| parts.iter().all(|p| p.get("functionResponse").is_some()))
            })?;
            (contents[at]["role"] == "user"
                && contents.get(at + 1)?
                    == &json!({"role": "user", "parts": [{"text": OWN_WORDS}]}))
                .then_some(())
        }
    }
}

#[test]
fn a_prompts_own_words_follow_its_results_in_every_format() {
    for (source, document) in results_and_text_sessions() {
        let stored = history(&document);
        let mut bare = document.clone();
        strip_own_words(&mut bare);
        let bare = history(&bare);
        for format in ContextFormat::ALL {
            let context = assemble(&stored, &ContextOptions::new(8000, format)).unwrap();
            let place = format!("{source} session in {format}");
            validates(&context).unwrap_or_else(|e| panic!("{place}: {e}\n{:#}", context.request));
            paired(&context).unwrap_or_else(|e| panic!("{place}: {e}\n{:#}", context.request));
            assert!(
                own_words_after_the_result(&context).is_some(),
                "{place}: the words are not right after the result\n{:#}",
                context.request
            );
            assert_eq!(
                texts(&context).iter().filter(|t| *t == OWN_WORDS).count(),
                1,
                "{place}"
            );
            assert_eq!(context.turns, ["0", "1"], "{place}");
            assert!(context.omitted.is_empty(), "{place}: {:?}", context.omitted);
            // The words are counted: without them the context is cheaper by their cost.
            let without = assemble(&bare, &ContextOptions::new(8000, format)).unwrap();
            assert!(without.tokens < context.tokens, "{place}");
            // And every budget keeps the format's rules.
            for budget in [40, 120, 300, 800] {
                for system in [SystemPrompt::Keep, SystemPrompt::Drop] {
                    let options = ContextOptions {
                        system,
                        ..ContextOptions::new(budget, format)
                    };
                    check(&place, &stored, &options).unwrap();
                }
            }
        }
    }
}

/// The session without the user's own words beside the result.
fn strip_own_words(document: &mut Value) {
    fn walk(value: &mut Value) {
        match value {
            Value::Array(items) => {
                items.retain(|item| {
                    item.get("text") != Some(&json!(OWN_WORDS))
                        && item.get("content") != Some(&json!(OWN_WORDS))
                        && item["content"][0].get("text") != Some(&json!(OWN_WORDS))
                });
                items.iter_mut().for_each(walk);
            }
            Value::Object(members) => members.values_mut().for_each(walk),
            _ => {}
        }
    }
    walk(document);
}
