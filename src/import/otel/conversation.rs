//! From spans to sessions: which conversation a span belongs to, its model calls as
//! turns (each call's new input found by comparing it with the conversation so far),
//! tool runs and everything else kept verbatim in the turn they fall in.

use super::forms::{CallMessages, call_messages};
use super::read::{Log, Read, Span};
use crate::import::session::{SessionDraft, TurnDraft};
use crate::import::time::Stamp;
use crate::model::JsonObject;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};

/// The attributes that name a conversation, in the order they are trusted.
const CONVERSATION_KEYS: &[&str] = &[
    "gen_ai.conversation.id",
    "session.id",
    "langfuse.session.id",
];

/// The sessions the spans and log records of `read` make, ordered by their first
/// span.
pub(super) fn sessions(read: Read) -> Vec<SessionDraft> {
    let spans = unique_spans(read.spans);
    let mut logs = unique_logs(read.logs);
    // The events of a call are its messages in the order emitted: read them by time, so
    // that records that came in any order and in any batches (as a live receiver gets
    // them) make the same messages as a file written in order.
    logs.sort_by_key(|log| log.time);
    let keys = session_keys(&spans);
    let mut grouped: BTreeMap<String, (Vec<Span>, Vec<Log>)> = BTreeMap::new();
    let span_session: HashMap<(String, String), String> = spans
        .iter()
        .zip(&keys)
        .map(|(span, key)| ((span.trace_id.clone(), span.span_id.clone()), key.clone()))
        .collect();
    let trace_session: HashMap<&str, &str> = spans
        .iter()
        .zip(&keys)
        .map(|(span, key)| (span.trace_id.as_str(), key.as_str()))
        .collect();
    let mut placed_logs = Vec::new();
    for log in logs {
        let key = match (&log.trace_id, &log.span_id) {
            (Some(trace), Some(span)) => span_session
                .get(&(trace.clone(), span.clone()))
                .cloned()
                .or_else(|| trace_session.get(trace.as_str()).map(|k| (*k).to_owned())),
            (Some(trace), None) => trace_session.get(trace.as_str()).map(|k| (*k).to_owned()),
            _ => None,
        }
        .or_else(|| log.trace_id.as_deref().map(trace_key));
        placed_logs.push((key, log));
    }
    for (span, key) in spans.into_iter().zip(keys) {
        grouped.entry(key).or_default().0.push(span);
    }
    let nearest = grouped.keys().next().cloned();
    for (key, log) in placed_logs {
        // A log record that names no trace goes with the first session, else one of
        // its own: kept either way.
        let key = key
            .or_else(|| nearest.clone())
            .unwrap_or_else(|| "untraced-logs".to_owned());
        grouped.entry(key).or_default().1.push(log);
    }
    let mut drafts = drafted(grouped);
    drafts.sort_by_key(|(first, _)| *first);
    drafts.into_iter().map(|(_, draft)| draft).collect()
}

/// Each conversation's draft, with its first span's start, in the conversations' order.
/// The conversations are shared out over the cores, each drafted alone: a live receiver
/// makes every session a batch adds to again, from all its spans (200 sessions a batch
/// under `examples/otlp_load.rs`).
fn drafted(grouped: BTreeMap<String, (Vec<Span>, Vec<Log>)>) -> Vec<(Option<u64>, SessionDraft)> {
    let draft = |(key, (spans, logs)): (String, (Vec<Span>, Vec<Log>))| {
        let first = spans.iter().filter_map(|s| s.start).min();
        (first, session(key, spans, &logs))
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let hands = cores.min(grouped.len());
    if hands < 2 {
        return grouped.into_iter().map(draft).collect();
    }
    // Dealt in turn, so that each hand holds sessions of every size the batch has.
    let mut dealt: Vec<Vec<_>> = (0..hands).map(|_| Vec::new()).collect();
    for (at, group) in grouped.into_iter().enumerate() {
        dealt[at % hands].push((at, group));
    }
    let mut drafts: Vec<(usize, (Option<u64>, SessionDraft))> = std::thread::scope(|scope| {
        let threads: Vec<_> = dealt
            .into_iter()
            .map(|hand| {
                scope.spawn(move || {
                    hand.into_iter()
                        .map(|(at, group)| (at, draft(group)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    drafts.sort_unstable_by_key(|(at, _)| *at);
    drafts.into_iter().map(|(_, draft)| draft).collect()
}

/// One span per id: a batch sent again (an exporter's retry) repeats its spans, and
/// the last copy read is kept.
fn unique_spans(spans: Vec<Span>) -> Vec<Span> {
    let mut by_id: BTreeMap<(String, String), Span> = BTreeMap::new();
    for span in spans {
        by_id.insert((span.trace_id.clone(), span.span_id.clone()), span);
    }
    by_id.into_values().collect()
}

/// Log records without repeats: a record sent twice is the same JSON twice.
fn unique_logs(logs: Vec<Log>) -> Vec<Log> {
    let mut seen = std::collections::HashSet::new();
    logs.into_iter()
        .filter(|log| {
            seen.insert((
                log.raw.to_string(),
                serde_json::to_string(&log.resource).unwrap_or_default(),
            ))
        })
        .collect()
}

/// The conversation each span belongs to: its own conversation attribute, else the one
/// its trace names (a conversation attribute is often set on the agent's root span
/// only), else its trace: `trace-<trace id>`.
fn session_keys(spans: &[Span]) -> Vec<String> {
    let own = own_conversation;
    let mut by_trace: HashMap<&str, (Option<u64>, String)> = HashMap::new();
    for span in spans {
        if let Some(id) = own(span) {
            let entry = by_trace
                .entry(span.trace_id.as_str())
                .or_insert((span.start, id.clone()));
            if span.start < entry.0 {
                *entry = (span.start, id);
            }
        }
    }
    spans
        .iter()
        .map(|span| {
            own(span)
                .or_else(|| {
                    by_trace
                        .get(span.trace_id.as_str())
                        .map(|(_, id)| id.clone())
                })
                .unwrap_or_else(|| trace_key(&span.trace_id))
        })
        .collect()
}

/// The conversation a span names itself.
pub(super) fn own_conversation(span: &Span) -> Option<String> {
    CONVERSATION_KEYS
        .iter()
        .find_map(|key| span.text(key))
        .filter(|id| !id.trim().is_empty())
        .map(str::to_owned)
}

/// The session of a trace that names no conversation.
pub(super) fn trace_key(trace: &str) -> String {
    format!("trace-{trace}")
}

/// What a span is to a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ModelCall,
    Tool,
    Other,
}

fn kind(span: &Span) -> Kind {
    match span.text("gen_ai.operation.name") {
        Some("chat" | "generate_content" | "text_completion" | "completion" | "responses") => {
            return Kind::ModelCall;
        }
        Some("execute_tool") => return Kind::Tool,
        Some(_) => return Kind::Other,
        None => {}
    }
    match span.text("openinference.span.kind") {
        Some("LLM") => return Kind::ModelCall,
        Some("TOOL") => return Kind::Tool,
        Some(_) => return Kind::Other,
        None => {}
    }
    let indexed = span.attributes.keys().any(|key| {
        key.starts_with("gen_ai.prompt.")
            || key.starts_with("gen_ai.completion.")
            || key.starts_with("llm.input_messages.")
    });
    let tool = span.attributes.contains_key("gen_ai.tool.name")
        || span.attributes.contains_key("tool.name");
    // Before `gen_ai.operation.name` (2024), a model call was told by its model and
    // its content events.
    let older = !tool
        && (span.attributes.contains_key("gen_ai.request.model")
            || span.events.iter().any(|(name, _)| {
                name.starts_with("gen_ai.content.")
                    || (name.starts_with("gen_ai.") && name.ends_with(".message"))
            }));
    if indexed || older || span.attributes.contains_key("gen_ai.input.messages") {
        Kind::ModelCall
    } else if tool {
        Kind::Tool
    } else {
        Kind::Other
    }
}

/// A tool run's span read for its call: id, name, arguments and result, in the
/// attribute forms of the conventions, Pydantic AI and OpenInference.
fn tool_call_of(span: &Span) -> (Value, Option<Value>) {
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| span.attributes.get(*key))
            .cloned()
    };
    let id = text(&["gen_ai.tool.call.id", "tool_call.id"]);
    let name =
        text(&["gen_ai.tool.name", "tool.name"]).unwrap_or_else(|| Value::from(span.name.clone()));
    let mut call = json!({"type": "tool_call", "id": id, "name": name});
    if let Some(arguments) = text(&[
        "gen_ai.tool.call.arguments",
        "tool_arguments",
        "input.value",
    ]) {
        call["arguments"] = arguments;
    }
    let result = text(&["gen_ai.tool.call.result", "tool_response", "output.value"])
        .map(|response| json!({"type": "tool_call_response", "id": id, "response": response}));
    (call, result)
}

/// One conversation's spans and records as a session.
fn session(key: String, spans: Vec<Span>, logs: &[Log]) -> SessionDraft {
    let (mut calls, mut tools, mut others) = (Vec::new(), Vec::new(), Vec::new());
    for span in spans {
        match kind(&span) {
            Kind::ModelCall => calls.push(span),
            Kind::Tool => tools.push(span),
            Kind::Other => others.push(span),
        }
    }
    let order = |span: &Span| (span.start, span.end, span.span_id.clone());
    calls.sort_by_key(order);
    tools.sort_by_key(order);
    others.sort_by_key(order);
    let mut logs_by_span: HashMap<(String, String), Vec<&Log>> = HashMap::new();
    for log in logs {
        if let (Some(trace), Some(span)) = (&log.trace_id, &log.span_id) {
            logs_by_span
                .entry((trace.clone(), span.clone()))
                .or_default()
                .push(log);
        }
    }
    let messages: Vec<CallMessages> = calls
        .iter()
        .map(|call| {
            let key = (call.trace_id.clone(), call.span_id.clone());
            call_messages(call, logs_by_span.get(&key).map_or(&[][..], Vec::as_slice))
        })
        .collect();
    let placement = Placement::new(&calls, &messages);
    let tool_turns: Vec<usize> = tools.iter().map(|tool| placement.tool(tool)).collect();
    let mut ran: Vec<Vec<&Span>> = vec![Vec::new(); calls.len()];
    for (tool, turn) in tools.iter().zip(&tool_turns) {
        if let Some(runs) = ran.get_mut(*turn) {
            runs.push(tool);
        }
    }
    let mut builder = TurnsBuilder::default();
    for (index, call) in calls.iter().enumerate() {
        builder.call(call, &messages[index], &ran[index]);
    }
    let mut notes = builder.notes(calls.len());
    let mut turns = builder.finish(calls.is_empty(), &tools);
    let kept = Kept {
        calls: &calls,
        tools: &tools,
        tool_turns: &tool_turns,
        others: &others,
        logs,
    };
    for (turn, otlp) in turns.iter_mut().zip(kept.by_turn(&placement)) {
        turn.response.insert("otlp".to_owned(), otlp);
    }
    if calls.is_empty() {
        notes
            .push("no model call span: the session keeps its tool runs and other spans".to_owned());
    }
    SessionDraft {
        turns,
        session_id: Some(key),
        notes,
        ..SessionDraft::default()
    }
}

/// Everything of a conversation, to be kept verbatim in the turn it falls in.
struct Kept<'a> {
    calls: &'a [Span],
    tools: &'a [Span],
    tool_turns: &'a [usize],
    others: &'a [Span],
    logs: &'a [Log],
}

impl Kept<'_> {
    /// Each turn's spans and records as OTLP JSON: its call, the tool runs it asked
    /// for, the other spans and the records by time (or by the span they name).
    fn by_turn(&self, placement: &Placement) -> Vec<Value> {
        let (calls, tools, tool_turns, others, logs) = (
            self.calls,
            self.tools,
            self.tool_turns,
            self.others,
            self.logs,
        );
        let last = calls.len().max(1) - 1;
        let mut kept: Vec<(Vec<&Span>, Vec<&Log>)> = vec![(Vec::new(), Vec::new()); last + 1];
        for (index, call) in calls.iter().enumerate() {
            kept[index].0.push(call);
        }
        for (tool, turn) in tools.iter().zip(tool_turns) {
            kept[(*turn).min(last)].0.push(tool);
        }
        for span in others {
            kept[placement.by_time(span.start).min(last)].0.push(span);
        }
        for log in logs {
            let turn = log
                .trace_id
                .as_ref()
                .zip(log.span_id.as_ref())
                .and_then(|(trace, span)| placement.turn_of_span(trace, span))
                .unwrap_or_else(|| placement.by_time(log.time));
            kept[turn.min(last)].1.push(log);
        }
        kept.iter().map(|(spans, logs)| otlp(spans, logs)).collect()
    }
}

/// Which turn a span or record falls in.
struct Placement {
    /// Each call's start, in turn order.
    starts: Vec<Option<u64>>,
    /// Turn of each call span, by (trace, span).
    by_span: HashMap<(String, String), usize>,
    /// The turn whose output asked for each tool call id (the first, if reused).
    by_call_id: HashMap<String, usize>,
}

impl Placement {
    fn new(calls: &[Span], messages: &[CallMessages]) -> Self {
        let mut by_call_id = HashMap::new();
        for (turn, found) in messages.iter().enumerate() {
            let parts = found
                .output
                .iter()
                .flatten()
                .filter_map(|message| message.get("parts")?.as_array())
                .flatten();
            for part in parts {
                if part.get("type").and_then(Value::as_str) == Some("tool_call")
                    && let Some(id) = part.get("id").and_then(Value::as_str)
                {
                    by_call_id.entry(id.to_owned()).or_insert(turn);
                }
            }
        }
        Self {
            by_call_id,
            starts: calls.iter().map(|call| call.start).collect(),
            by_span: calls
                .iter()
                .enumerate()
                .map(|(turn, call)| ((call.trace_id.clone(), call.span_id.clone()), turn))
                .collect(),
        }
    }

    /// The last turn whose call started at or before `time`; the first turn for what
    /// came before any call or has no time.
    fn by_time(&self, time: Option<u64>) -> usize {
        let Some(time) = time else { return 0 };
        self.starts
            .iter()
            .rposition(|start| start.is_some_and(|start| start <= time))
            .unwrap_or(0)
    }

    fn turn_of_span(&self, trace: &str, span: &str) -> Option<usize> {
        self.by_span
            .get(&(trace.to_owned(), span.to_owned()))
            .copied()
    }

    /// The turn whose answer asked for this tool run: by call id when an output names
    /// it, else the last call started before the run.
    fn tool(&self, tool: &Span) -> usize {
        tool.text("gen_ai.tool.call.id")
            .or_else(|| tool.text("tool_call.id"))
            .and_then(|id| self.by_call_id.get(id).copied())
            .unwrap_or_else(|| self.by_time(tool.start))
    }
}

/// The turns, call by call, with the conversation so far to tell each call's new input
/// from what it repeats.
#[derive(Default)]
struct TurnsBuilder {
    turns: Vec<TurnDraft>,
    /// The conversation so far: every input and output message, in order; `true` for
    /// a message made from tool spans (output not captured), which matches whatever
    /// assistant message a later input repeats in its place.
    history: Vec<(Value, bool)>,
    /// Tool results of the previous turn's runs, for an input not captured.
    pending_results: Vec<Value>,
    system: Option<Value>,
    input_missing: usize,
    output_missing: usize,
    rewritten: usize,
}

impl TurnsBuilder {
    fn call(&mut self, call: &Span, messages: &CallMessages, ran: &[&Span]) {
        let mut prompt = JsonObject::new();
        let new_input = match &messages.input {
            Some(input) => {
                let repeated = self.repeated(input);
                if repeated < self.history.len() {
                    self.rewritten += 1;
                    self.history.truncate(repeated);
                }
                if repeated > 0 {
                    prompt.insert("repeats".to_owned(), Value::from(repeated));
                }
                let new = input[repeated..].to_vec();
                self.history.extend(new.iter().map(|m| (m.clone(), false)));
                new
            }
            None => {
                self.input_missing += 1;
                let results = std::mem::take(&mut self.pending_results);
                let new = if results.is_empty() {
                    Vec::new()
                } else {
                    vec![json!({"role": "tool", "parts": results})]
                };
                self.history.extend(new.iter().map(|m| (m.clone(), true)));
                new
            }
        };
        self.pending_results.clear();
        let human = new_input.iter().any(is_human);
        prompt.insert("messages".to_owned(), Value::Array(new_input));
        if messages.system.is_some() && messages.system != self.system {
            self.system.clone_from(&messages.system);
            prompt.insert(
                "system_instructions".to_owned(),
                messages.system.clone().unwrap_or_default(),
            );
        }
        let (runs, results): (Vec<Value>, Vec<Option<Value>>) =
            ran.iter().map(|tool| tool_call_of(tool)).unzip();
        self.pending_results = results.into_iter().flatten().collect();
        let mut response = JsonObject::new();
        let output = match &messages.output {
            Some(output) => {
                self.history
                    .extend(output.iter().map(|m| (m.clone(), false)));
                output.clone()
            }
            None => {
                self.output_missing += 1;
                let made: Vec<Value> = if runs.is_empty() {
                    Vec::new()
                } else {
                    vec![json!({"role": "assistant", "parts": runs})]
                };
                self.history.extend(made.iter().map(|m| (m.clone(), true)));
                made
            }
        };
        response.insert("messages".to_owned(), Value::Array(output));
        response.insert("spanId".to_owned(), Value::from(call.span_id.clone()));
        let captured: Map<String, Value> = [
            ("input", messages.input.is_some()),
            ("output", messages.output.is_some()),
        ]
        .into_iter()
        .filter(|(_, captured)| !captured)
        .map(|(what, _)| (what.to_owned(), Value::Bool(false)))
        .collect();
        if !captured.is_empty() {
            response.insert("captured".to_owned(), Value::Object(captured));
        }
        self.turns.push(TurnDraft {
            prompt,
            response,
            human,
            time: call.start.map(millis),
            response_time: call.end.map(millis),
            ..TurnDraft::default()
        });
    }

    /// How many messages at the start of `input` repeat the conversation so far.
    fn repeated(&self, input: &[Value]) -> usize {
        input
            .iter()
            .zip(&self.history)
            .take_while(|(given, (known, made))| {
                if *made {
                    given.get("role") == known.get("role")
                } else {
                    same_message(given, known)
                }
            })
            .count()
    }

    /// The turns; a conversation without a model call gets one turn holding its tool
    /// runs as calls (and their results), so that nothing of it is lost.
    fn finish(self, no_call: bool, tools: &[Span]) -> Vec<TurnDraft> {
        if !no_call {
            return self.turns;
        }
        let (runs, results): (Vec<Value>, Vec<Option<Value>>) =
            tools.iter().map(tool_call_of).unzip();
        let results: Vec<Value> = results.into_iter().flatten().collect();
        let mut messages = Vec::new();
        if !runs.is_empty() {
            messages.push(json!({"role": "assistant", "parts": runs}));
        }
        if !results.is_empty() {
            messages.push(json!({"role": "tool", "parts": results}));
        }
        let first = tools.iter().filter_map(|t| t.start).min();
        let last = tools.iter().filter_map(|t| t.end).max();
        let mut response = JsonObject::new();
        response.insert("messages".to_owned(), Value::Array(messages));
        vec![TurnDraft {
            prompt: JsonObject::from_iter([("messages".to_owned(), json!([]))]),
            response,
            human: false,
            time: first.map(millis),
            response_time: last.map(millis),
            ..TurnDraft::default()
        }]
    }

    fn notes(&self, calls: usize) -> Vec<String> {
        let mut notes = Vec::new();
        if self.input_missing > 0 || self.output_missing > 0 {
            notes.push(format!(
                "{} of {calls} model calls carry no captured input and {} no captured output: message content is opt-in in OpenTelemetry instrumentations (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); models, tokens, tool names and times are kept",
                self.input_missing, self.output_missing
            ));
        }
        if self.rewritten > 0 {
            notes.push(format!(
                "{} model calls sent an input that does not repeat the conversation so far (history cut or rewritten by the agent): their prompts keep what differs",
                self.rewritten
            ));
        }
        notes
    }
}

/// Whether a message is a person's: a user message that is not only tool results
/// (Pydantic AI sends those as user messages).
fn is_human(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("user")
        && message
            .get("parts")
            .and_then(Value::as_array)
            .is_none_or(|parts| {
                parts.iter().any(|part| {
                    part.get("type").and_then(Value::as_str) != Some("tool_call_response")
                })
            })
}

/// Two messages are the same when their role and parts are: an output message carries
/// its `finish_reason`, the input that repeats it later does not.
fn same_message(a: &Value, b: &Value) -> bool {
    a.get("role") == b.get("role") && a.get("parts") == b.get("parts")
}

#[allow(clippy::cast_possible_wrap)] // Nanoseconds since 1970 fit i64 milliseconds.
fn millis(nanos: u64) -> Stamp {
    Stamp::Millis((nanos / 1_000_000) as i64)
}

/// Spans and log records as OTLP JSON, grouped under their resources and scopes as
/// they came.
fn otlp(spans: &[&Span], logs: &[&Log]) -> Value {
    let mut otlp = Map::new();
    if !spans.is_empty() {
        let items = spans.iter().map(|s| (&s.resource, &s.scope, &s.raw));
        otlp.insert(
            "resourceSpans".to_owned(),
            grouped(items, "scopeSpans", "spans"),
        );
    }
    if !logs.is_empty() {
        let items = logs.iter().map(|l| (&l.resource, &l.scope, &l.raw));
        otlp.insert(
            "resourceLogs".to_owned(),
            grouped(items, "scopeLogs", "logRecords"),
        );
    }
    Value::Object(otlp)
}

/// The scopes of one resource, each with its items.
type Scopes<'a> = Vec<(&'a Map<String, Value>, Vec<Value>)>;

fn grouped<'a>(
    items: impl Iterator<Item = (&'a Map<String, Value>, &'a Map<String, Value>, &'a Value)>,
    scopes_key: &str,
    items_key: &str,
) -> Value {
    let mut resources: Vec<(&Map<String, Value>, Scopes<'_>)> = Vec::new();
    for (resource, scope, raw) in items {
        let position = resources
            .iter()
            .position(|(r, _)| *r == resource)
            .unwrap_or_else(|| {
                resources.push((resource, Vec::new()));
                resources.len() - 1
            });
        let scopes = &mut resources[position].1;
        let at = scopes
            .iter()
            .position(|(s, _)| *s == scope)
            .unwrap_or_else(|| {
                scopes.push((scope, Vec::new()));
                scopes.len() - 1
            });
        scopes[at].1.push(raw.clone());
    }
    Value::Array(
        resources
            .into_iter()
            .map(|(resource, scopes)| {
                let mut entry = resource.clone();
                let scopes = scopes
                    .into_iter()
                    .map(|(scope, items)| {
                        let mut scope = scope.clone();
                        scope.insert(items_key.to_owned(), Value::Array(items));
                        Value::Object(scope)
                    })
                    .collect();
                entry.insert(scopes_key.to_owned(), Value::Array(scopes));
                Value::Object(entry)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::Record;

    /// A chat span of conversation `conversation`, in trace `trace`, asking `question`.
    fn chat_span(trace: usize, span: usize, conversation: usize, question: &str) -> Value {
        let text = |key: &str, value: &str| json!({"key": key, "value": {"stringValue": value}});
        let start = 1_700_000_000_000_000_000_u64 + (trace * 1_000 + span) as u64 * 1_000_000;
        json!({
            "traceId": format!("{trace:032x}"),
            "spanId": format!("{:016x}", trace * 1_000 + span),
            "name": "chat test-model",
            "startTimeUnixNano": start.to_string(),
            "endTimeUnixNano": (start + 500_000).to_string(),
            "attributes": [
                text("gen_ai.operation.name", "chat"),
                text("gen_ai.conversation.id", &format!("conversation-{conversation}")),
                text("gen_ai.request.model", "test-model"),
                text("gen_ai.input.messages", &json!([
                    {"role": "user", "parts": [{"type": "text", "content": question}]}
                ]).to_string()),
                text("gen_ai.output.messages", &json!([
                    {"role": "assistant", "parts": [{"type": "text", "content": format!("{question}: done")}],
                     "finish_reason": "stop"}
                ]).to_string()),
            ],
        })
    }

    #[test]
    fn conversations_drafted_side_by_side_come_as_drafted_one_by_one() {
        // More conversations than cores, of different sizes, their spans interleaved.
        let spans: Vec<Value> = (0..40)
            .map(|n| chat_span(n % 13 + 1, n, n % 13, &format!("question {n}")))
            .collect();
        let mut read = Read::default();
        read.record(&Record {
            value: json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}),
            line: None,
        })
        .unwrap();
        let keys = session_keys(&read.spans);
        let mut grouped: BTreeMap<String, (Vec<Span>, Vec<Log>)> = BTreeMap::new();
        for (span, key) in read.spans.iter().cloned().zip(keys) {
            grouped.entry(key).or_default().0.push(span);
        }
        let one_by_one: Vec<(Option<u64>, SessionDraft)> = grouped
            .clone()
            .into_iter()
            .map(|(key, (spans, logs))| {
                let first = spans.iter().filter_map(|s| s.start).min();
                (first, session(key, spans, &logs))
            })
            .collect();
        assert_eq!(one_by_one.len(), 13);
        assert_eq!(drafted(grouped), one_by_one);
        // And through the whole conversion: every conversation, each question a turn.
        let drafts = sessions(read);
        assert_eq!(drafts.len(), 13);
        assert_eq!(drafts.iter().map(|d| d.turns.len()).sum::<usize>(), 40);
    }
}
