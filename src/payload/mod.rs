//! Payloads: the prompts and responses of a turn in the shapes providers write (OpenAI
//! Chat and Responses, Anthropic, Gemini, LangChain, Harmony, GLM and PyALM,
//! AgentOS, OpenTelemetry GenAI), read for their text, their tool
//! calls and their tool results. Knows JSON only.

mod agentos;
mod anthropic;
mod call;
mod fields;
mod gemini;
mod glm;
mod harmony;
mod langchain;
mod messages;
mod openai;
mod otel;
mod responses;
mod text;
mod tools;

pub use call::{ToolCall, ToolResultFound};
pub use messages::{Message, Part, Speaker, answer_messages, new_prompt_messages, prompt_messages};
pub use otel::{
    CallFacts, SpanFacts, ToolSpan, any_value, attributes, call_facts, count_of, hex_id,
    kept_traces, tool_spans,
};
pub use text::{PayloadKind, payload_text};
pub use tools::{find_tool_calls, find_tool_results};
