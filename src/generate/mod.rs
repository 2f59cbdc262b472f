//! Synthetic interaction histories for benchmarks and load tests: realistic in shape
//! and size, seeded so that the same options always give the same corpus.
//!
//! Each session speaks one provider dialect the mapper knows (Anthropic Messages,
//! OpenAI Chat, OpenAI Responses, Gemini, AgentOS), has 5 to 100 turns, texts from tens
//! to thousands of characters (with accented, Cyrillic, CJK and emoji words among the
//! English ones), tool calls in about a quarter of the responses with their results in
//! the next turn's prompt, user states and control instructions on some turns. A
//! turn's prompt carries the system prompt, the previous exchange and the new message,
//! not the whole conversation, so that a corpus grows linearly with its turns.

use serde_json::{Map, Value, json};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenerateOptions {
    /// How many sessions.
    pub sessions: usize,
    /// The seed: the same options give the same corpus, byte for byte.
    pub seed: u64,
    /// The fewest turns of a session.
    pub min_turns: usize,
    /// The most turns of a session.
    pub max_turns: usize,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        Self {
            sessions: 100,
            seed: 1,
            min_turns: 5,
            max_turns: 100,
        }
    }
}

/// The sessions of a synthetic corpus, one PGM-IHI document each, in order.
///
/// ```
/// use ihigraph::check::{CheckOptions, check_document};
/// use ihigraph::generate::{GenerateOptions, generate};
/// let options = GenerateOptions { sessions: 3, ..Default::default() };
/// let documents: Vec<_> = generate(options).collect();
/// assert_eq!(documents.len(), 3);
/// assert!(documents.iter().all(|d| check_document(d, CheckOptions::default()).history.is_some()));
/// assert_eq!(documents, generate(options).collect::<Vec<_>>());
/// ```
pub fn generate(options: GenerateOptions) -> impl Iterator<Item = Value> {
    let mut rng = fastrand::Rng::with_seed(options.seed);
    let (low, high) = (
        options.min_turns.max(1),
        options.max_turns.max(options.min_turns.max(1)),
    );
    (0..options.sessions).map(move |index| {
        let turns = rng.usize(low..=high);
        let mut session = SessionWriter {
            rng: rng.fork(),
            id: format!("gen-{}-{index:06}", options.seed),
            dialect: DIALECTS[index % DIALECTS.len()],
            clock: START_MILLIS + index as u64 * 97_000,
            pending: Vec::new(),
            calls: 0,
        };
        session.document(turns)
    })
}

/// 2026-01-01T00:00:00Z.
const START_MILLIS: u64 = 1_767_225_600_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Anthropic,
    OpenAiChat,
    OpenAiResponses,
    Gemini,
    AgentOs,
}

const DIALECTS: [Dialect; 5] = [
    Dialect::Anthropic,
    Dialect::OpenAiChat,
    Dialect::OpenAiResponses,
    Dialect::Gemini,
    Dialect::AgentOs,
];

const MODELS: [&str; 5] = [
    "claude-sonnet-4",
    "gpt-4.1",
    "gpt-5-mini",
    "gemini-2.5-pro",
    "agentos-planner-2",
];

const WORDS: &[&str] = &[
    "the",
    "agent",
    "reads",
    "configuration",
    "file",
    "and",
    "then",
    "tests",
    "a",
    "query",
    "against",
    "store",
    "session",
    "history",
    "memory",
    "of",
    "tool",
    "call",
    "result",
    "error",
    "retry",
    "because",
    "network",
    "timeout",
    "deploy",
    "pipeline",
    "branch",
    "merge",
    "review",
    "function",
    "returns",
    "value",
    "schema",
    "field",
    "missing",
    "user",
    "asks",
    "about",
    "plan",
    "trip",
    "budget",
    "hotel",
    "flight",
    "café",
    "naïve",
    "résumé",
    "Zürich",
    "Kraków",
    "привет",
    "данные",
    "東京",
    "会議",
    "데이터",
    "🚀",
    "✅",
    "to",
    "in",
    "with",
    "for",
    "is",
    "not",
    "we",
    "should",
    "check",
    "log",
    "metrics",
    "latency",
    "p99",
    "cache",
    "index",
    "graph",
    "node",
];

const TOOLS: &[(&str, &[&str])] = &[
    ("ReadFile", &["path"]),
    ("WriteFile", &["path", "content"]),
    ("RunShell", &["command"]),
    ("SearchWeb", &["query"]),
    ("QueryDatabase", &["sql"]),
    ("GetWeather", &["city", "date"]),
    ("SendEmail", &["to", "subject", "body"]),
    ("CreateTicket", &["title", "priority"]),
    ("ListDirectory", &["path"]),
    ("FetchUrl", &["url"]),
    ("Calculator", &["expression"]),
    ("RecallMemory", &["topic"]),
];

/// A tool call waiting for its result in the next turn.
struct PendingCall {
    id: String,
    name: &'static str,
    arguments: Value,
}

impl PendingCall {
    /// Whether the call fails: about one in twenty, decided by its id alone (so that no
    /// random number is drawn for it and the rest of a seed's corpus stays as it was).
    /// Where a provider's shape says so (Anthropic's `is_error`, Gemini's `error`
    /// response, AgentOS's `isError`), its result reports the failure; OpenAI's shapes
    /// have no such flag.
    fn fails(&self) -> bool {
        let hash = self
            .id
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            });
        hash % 20 == 0
    }

    /// Gemini's `functionResponse` part for this call's output: an `error` when it fails.
    fn function_response(&self, output: &str) -> Value {
        let response = if self.fails() {
            json!({"error": output})
        } else {
            json!({"output": output})
        };
        json!({"functionResponse": {"id": self.id, "name": self.name, "response": response}})
    }
}

struct SessionWriter {
    rng: fastrand::Rng,
    id: String,
    dialect: Dialect,
    clock: u64,
    pending: Vec<PendingCall>,
    calls: usize,
}

impl SessionWriter {
    fn document(&mut self, turns: usize) -> Value {
        let start = self.time("start");
        let turns: Vec<Value> = (0..turns).map(|index| self.turn(index)).collect();
        let mut document = json!({
            "Header": "PGM-IHI-V1.0",
            "MInstanceID": format!("m-instance/worker-{}", self.rng.u8(..8)),
            "UEnvironmentID": format!("u-env/{}", self.pick(&["ide", "chat", "cli", "voice"])),
            "SessionID": self.id,
            "SessionStartTime": start,
            "TurnCount": turns.len(),
            "Turns": turns,
            "DataXMData": {
                "Header": "PTF-DEM-V1.0",
                "DataID": format!("ihi-{}", self.id),
                "DataType": "PGM-IHI-V1.0",
                "Source": [{"AIMID": "PGM-AUS-generated"}],
                "Confidence": 1,
            },
        });
        if self.rng.u8(..4) == 0 {
            document["DescrMetadata"] = Value::String(self.text(20, 200));
        }
        document
    }

    /// A Simple Time of one instant, the session's clock now.
    fn time(&mut self, label: &str) -> Value {
        json!({
            "Header": "OSD-STM-V1.5",
            "SimpleTimeID": format!("{}-{label}", self.id),
            "SimpleTimeData": [{
                "FlagsByte": 3,
                "StartTime": self.clock,
                "EndTime": self.clock,
                "AccuracyMode": "single",
                "AccuracyPlusMinus": 1,
            }],
        })
    }

    fn turn(&mut self, index: usize) -> Value {
        self.clock += self.rng.u64(400..90_000);
        let results = std::mem::take(&mut self.pending);
        let role = if !results.is_empty() {
            "A-User"
        } else {
            match self.rng.u8(..20) {
                0 => "BKN",
                1..=5 => "A-User",
                _ => "H-User",
            }
        };
        let message = if results.is_empty() {
            self.text(20, 600)
        } else {
            String::new()
        };
        let results: Vec<(PendingCall, String)> = results
            .into_iter()
            .map(|call| {
                let output = self.text(50, 3_000);
                (call, output)
            })
            .collect();
        let answer = self.text(40, 4_000);
        let calls: Vec<PendingCall> = if self.rng.u8(..4) == 0 {
            (0..self.rng.usize(1..=2)).map(|_| self.call()).collect()
        } else {
            Vec::new()
        };
        let mut turn = json!({
            "TurnIndex": index,
            "Timestamp": self.time(&format!("turn-{index}")),
            "Role": role,
            "PRCPrompt": self.prompt(&message, &results),
            "BKNResponse": self.response(&answer, &calls),
        });
        if role == "H-User" && self.rng.u8(..3) == 0 {
            turn["UserEntityState"] = json!({
                "Focus": self.pick(&["debugging", "planning", "reading", "writing"]),
                "Frustration": f64::from(self.rng.u8(..=100)) / 100.0,
                "Language": self.pick(&["en", "fr", "de", "ja"]),
            });
        }
        if self.rng.u8(..5) < 2 {
            turn["AUCInstruction"] = json!({
                "Instruction": self.pick(&["RespondToUser", "UseTool", "Summarise", "AskClarification"]),
            });
        }
        self.pending = calls;
        turn
    }

    fn call(&mut self) -> PendingCall {
        let (name, parameters) = TOOLS[self.rng.usize(..TOOLS.len())];
        let arguments: Map<String, Value> = parameters
            .iter()
            .map(|parameter| ((*parameter).to_owned(), Value::String(self.text(5, 120))))
            .collect();
        self.calls += 1;
        PendingCall {
            id: format!("call_{}_{:04}", self.id, self.calls),
            name,
            arguments: Value::Object(arguments),
        }
    }

    fn model(&self) -> &'static str {
        MODELS[DIALECTS
            .iter()
            .position(|dialect| *dialect == self.dialect)
            .unwrap_or(0)]
    }

    fn prompt(&mut self, message: &str, results: &[(PendingCall, String)]) -> Value {
        let model = self.model();
        let system = "You are a helpful agent with tools. Answer briefly and cite what you used.";
        match self.dialect {
            Dialect::Anthropic => {
                let mut messages = Vec::new();
                if results.is_empty() {
                    messages.push(json!({"role": "user", "content": message}));
                } else {
                    let uses: Vec<Value> = results
                        .iter()
                        .map(|(call, _)| json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}))
                        .collect();
                    messages.push(json!({"role": "assistant", "content": uses}));
                    let outputs: Vec<Value> = results
                        .iter()
                        .map(|(call, output)| json!({"type": "tool_result", "tool_use_id": call.id, "content": output, "is_error": call.fails()}))
                        .collect();
                    messages.push(json!({"role": "user", "content": outputs}));
                }
                json!({"model": model, "system": system, "max_tokens": 4096, "messages": messages})
            }
            Dialect::OpenAiChat => {
                let mut messages = vec![json!({"role": "system", "content": system})];
                if results.is_empty() {
                    messages.push(json!({"role": "user", "content": message}));
                } else {
                    let calls: Vec<Value> = results
                        .iter()
                        .map(|(call, _)| json!({"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments.to_string()}}))
                        .collect();
                    messages
                        .push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
                    for (call, output) in results {
                        messages.push(
                            json!({"role": "tool", "tool_call_id": call.id, "content": output}),
                        );
                    }
                }
                json!({"model": model, "temperature": 0.2, "messages": messages})
            }
            Dialect::OpenAiResponses => {
                let input: Vec<Value> = if results.is_empty() {
                    vec![json!({"role": "user", "content": message})]
                } else {
                    results
                        .iter()
                        .map(|(call, output)| json!({"type": "function_call_output", "call_id": call.id, "output": output}))
                        .collect()
                };
                json!({"model": model, "instructions": system, "input": input})
            }
            Dialect::Gemini => {
                let contents: Vec<Value> = if results.is_empty() {
                    vec![json!({"role": "user", "parts": [{"text": message}]})]
                } else {
                    let parts: Vec<Value> = results
                        .iter()
                        .map(|(call, output)| call.function_response(output))
                        .collect();
                    vec![json!({"role": "function", "parts": parts})]
                };
                json!({"model": model, "systemInstruction": {"parts": [{"text": system}]}, "contents": contents})
            }
            Dialect::AgentOs => {
                let mut messages = vec![json!({"role": "system", "content": system})];
                if results.is_empty() {
                    messages.push(json!({"role": "user", "content": message}));
                }
                let mut prompt = json!({"model": model, "messages": messages});
                if !results.is_empty() {
                    let outputs: Vec<Value> = results
                        .iter()
                        .map(|(call, output)| json!({"toolCallId": call.id, "toolName": call.name, "output": output, "isError": call.fails()}))
                        .collect();
                    prompt["toolResults"] = Value::Array(outputs);
                }
                prompt
            }
        }
    }

    fn response(&mut self, answer: &str, calls: &[PendingCall]) -> Value {
        let model = self.model();
        let (input_tokens, output_tokens) = (self.rng.u32(50..8_000), answer.len() / 4 + 1);
        let id = format!("resp_{}_{}", self.id, self.clock);
        match self.dialect {
            Dialect::Anthropic => {
                let mut content = vec![json!({"type": "text", "text": answer})];
                content.extend(calls.iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
                }));
                json!({
                    "id": id, "type": "message", "role": "assistant", "model": model, "content": content,
                    "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
                    "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
                })
            }
            Dialect::OpenAiChat => {
                let mut message = json!({"role": "assistant", "content": answer});
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|call| json!({"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments.to_string()}}))
                        .collect();
                }
                json!({
                    "id": id, "object": "chat.completion", "created": self.clock / 1000, "model": model,
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}],
                    "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens},
                })
            }
            Dialect::OpenAiResponses => {
                let mut output = vec![json!({"type": "message", "role": "assistant",
                                             "content": [{"type": "output_text", "text": answer}]})];
                output.extend(calls.iter().map(|call| {
                    json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments.to_string()})
                }));
                json!({"id": id, "object": "response", "model": model, "output": output,
                       "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}})
            }
            Dialect::Gemini => {
                let mut parts = vec![json!({"text": answer})];
                parts.extend(calls.iter().map(|call| {
                    json!({"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}})
                }));
                json!({
                    "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                    "usageMetadata": {"promptTokenCount": input_tokens, "candidatesTokenCount": output_tokens},
                    "modelVersion": model,
                })
            }
            Dialect::AgentOs => {
                let mut response = json!({"id": id, "model": model, "content": answer});
                if !calls.is_empty() {
                    response["toolCalls"] = calls
                        .iter()
                        .map(|call| json!({"id": call.id, "name": call.name, "arguments": call.arguments}))
                        .collect();
                }
                response
            }
        }
    }

    fn pick(&mut self, items: &[&'static str]) -> &'static str {
        items[self.rng.usize(..items.len())]
    }

    /// Words up to a length drawn log-uniformly between `shortest` and `longest`
    /// characters: most texts short, some long, as in real conversations.
    fn text(&mut self, shortest: usize, longest: usize) -> String {
        let (low, high) = ((shortest as f64).ln(), (longest as f64).ln());
        let target = (low + self.rng.f64() * (high - low)).exp() as usize;
        let mut text = String::with_capacity(target + 16);
        let mut sentence_start = true;
        while text.chars().count() < target {
            let word = WORDS[self.rng.usize(..WORDS.len())];
            if !text.is_empty() {
                text.push(' ');
            }
            if sentence_start {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    text.extend(first.to_uppercase());
                    text.push_str(chars.as_str());
                }
            } else {
                text.push_str(word);
            }
            sentence_start = self.rng.u8(..12) == 0;
            if sentence_start {
                text.push(if self.rng.bool() { '.' } else { '?' });
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOptions, check_document};
    use crate::rdf::IriScheme;
    use crate::rdf::map_history;

    fn corpus(sessions: usize, seed: u64) -> Vec<Value> {
        generate(GenerateOptions {
            sessions,
            seed,
            ..Default::default()
        })
        .collect()
    }

    #[test]
    fn same_seed_same_corpus_other_seed_other_corpus() {
        assert_eq!(corpus(20, 7), corpus(20, 7));
        assert_ne!(corpus(20, 7), corpus(20, 8));
    }

    #[test]
    fn sessions_are_valid_and_within_the_turn_range() {
        for document in corpus(50, 3) {
            let checked = check_document(&document, CheckOptions::default());
            assert!(checked.problems.is_empty(), "{:?}", checked.problems);
            let turns = checked.history.expect("valid").turns.len();
            assert!((5..=100).contains(&turns), "{turns} turns");
        }
    }

    #[test]
    fn about_a_quarter_of_responses_call_tools_and_every_call_gets_its_result() {
        let scheme = IriScheme::default();
        let (mut turns, mut calling, mut calls, mut linked) = (0u32, 0u32, 0, 0);
        for document in corpus(60, 11) {
            let history = check_document(&document, CheckOptions::default())
                .history
                .expect("valid");
            for turn in &history.turns {
                let found = crate::payload::find_tool_calls(&turn.response).len();
                turns += 1;
                calling += u32::from(found > 0);
            }
            let graph = map_history(&history, &scheme);
            assert!(graph.warnings.is_empty(), "{:?}", graph.warnings);
            let predicate = |name| {
                graph
                    .quads
                    .iter()
                    .filter(|quad| quad.predicate == name)
                    .count()
            };
            calls += predicate(crate::rdf::vocab::ch::INVOLVES_TOOL_INVOCATION);
            linked += predicate(crate::rdf::vocab::ch::HAS_RESULT);
            // The last turn's calls have no next turn to answer them.
            let last = history.turns.last().expect("turns");
            linked += crate::payload::find_tool_calls(&last.response).len();
        }
        let share = f64::from(calling) / f64::from(turns);
        assert!(
            (0.2..0.3).contains(&share),
            "{share} of responses call tools"
        );
        assert_eq!(calls, linked, "every call answered in the next turn");
    }
}
