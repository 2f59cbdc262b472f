//! Token counts with OpenAI's BPE tokenizers, whose ranks are compiled into the binary.
//!
//! A message costs what OpenAI's cookbook counts for chat messages: 3 tokens of framing,
//! the tokens of every string value in it (role, text, call ids, tool names, arguments,
//! results, part types; keys are not counted), and 1 more when it has a `name`. A
//! request adds 3 for the reply's priming. Anthropic and Gemini publish no tokenizer
//! that runs offline: for them the count is an estimate, and a budget should leave
//! headroom.

use bpe_openai::Tokenizer as Bpe;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::str::FromStr;

/// Tokens of framing per message.
pub const TOKENS_PER_MESSAGE: usize = 3;
/// Tokens of the reply's priming, once per request.
pub const REPLY_PRIMING: usize = 3;

/// A tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tokenizer {
    /// `o200k_base`: GPT-4o, GPT-4.1, GPT-5 and the o-series.
    O200kBase,
    /// `cl100k_base`: GPT-4 and GPT-3.5 Turbo.
    Cl100kBase,
}

impl Tokenizer {
    /// Every tokenizer.
    pub const ALL: [Self; 2] = [Self::O200kBase, Self::Cl100kBase];

    /// Its name, as tiktoken spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::O200kBase => "o200k_base",
            Self::Cl100kBase => "cl100k_base",
        }
    }

    fn bpe(self) -> &'static Bpe {
        match self {
            Self::O200kBase => bpe_openai::o200k_base(),
            Self::Cl100kBase => bpe_openai::cl100k_base(),
        }
    }

    /// The tokens of a text, special tokens counted as text.
    ///
    /// ```
    /// use ihigraph::context::Tokenizer;
    /// assert_eq!(Tokenizer::O200kBase.count("Hello, world!"), 4);
    /// ```
    pub fn count(self, text: &str) -> usize {
        self.bpe().count(text)
    }

    /// [`count`](Self::count), if at most `limit`: the text's pieces (as the tokenizer's
    /// pattern splits it) are counted one by one until their sum passes the limit.
    fn count_within(self, text: &str, limit: usize) -> Option<usize> {
        let bpe = self.bpe();
        let mut count = 0;
        for piece in bpe.split(text) {
            count += bpe.bpe.count(piece.as_bytes());
            if count > limit {
                return None;
            }
        }
        Some(count)
    }

    /// What a message (or a system prompt) costs, by the rule above.
    pub fn message_cost(self, message: &Value) -> usize {
        Counter::new(self).message_cost(message)
    }
}

/// A tokenizer that remembers what it counted: a context counts each text while it
/// chooses turns and again in the request it gives, and role and type strings in every
/// message.
#[derive(Debug)]
pub(super) struct Counter {
    tokenizer: Tokenizer,
    counted: HashMap<u64, usize>,
}

impl Counter {
    pub(super) fn new(tokenizer: Tokenizer) -> Self {
        Self {
            tokenizer,
            counted: HashMap::new(),
        }
    }

    pub(super) fn tokenizer(&self) -> Tokenizer {
        self.tokenizer
    }

    /// [`Tokenizer::message_cost`], each distinct string tokenized once.
    pub(super) fn message_cost(&mut self, message: &Value) -> usize {
        // No count passes usize::MAX: this is the whole count.
        self.cost_within([message], usize::MAX)
            .unwrap_or(usize::MAX)
    }

    /// What messages cost together, if that is at most `limit`; `None` as soon as the
    /// count passes it (the rest is not counted).
    pub(super) fn cost_within<'v>(
        &mut self,
        messages: impl IntoIterator<Item = &'v Value>,
        limit: usize,
    ) -> Option<usize> {
        let mut spent = 0;
        for message in messages {
            let named = message.get("name").is_some_and(Value::is_string);
            spent += TOKENS_PER_MESSAGE + usize::from(named);
            if spent > limit {
                return None;
            }
            spent += self.strings_cost_within(message, limit - spent)?;
        }
        Some(spent)
    }

    fn strings_cost_within(&mut self, value: &Value, limit: usize) -> Option<usize> {
        let mut within = |values: &mut dyn Iterator<Item = &Value>| {
            let mut spent = 0;
            for value in values {
                spent += self.strings_cost_within(value, limit - spent)?;
            }
            Some(spent)
        };
        match value {
            Value::String(text) => self.count_within(text, limit),
            Value::Array(items) => within(&mut items.iter()),
            Value::Object(members) => within(&mut members.values()),
            Value::Number(number) => self.count_within(&number.to_string(), limit),
            Value::Bool(_) | Value::Null => Some(0),
        }
    }

    /// [`Tokenizer::count`], each distinct text counted once, if at most `limit` (what
    /// is counted past it is not kept).
    fn count_within(&mut self, text: &str, limit: usize) -> Option<usize> {
        let key = key(text);
        if let Some(&count) = self.counted.get(&key) {
            return (count <= limit).then_some(count);
        }
        let count = self.tokenizer.count_within(text, limit)?;
        self.counted.insert(key, count);
        Some(count)
    }
}

/// What a counter remembers a text by.
fn key(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tokenizer name that is not one of [`Tokenizer::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tokenizer `{0}` (expected o200k_base or cl100k_base)")]
pub struct UnknownTokenizer(pub String);

impl FromStr for Tokenizer {
    type Err = UnknownTokenizer;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|tokenizer| tokenizer.name() == name)
            .ok_or_else(|| UnknownTokenizer(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_match_tiktoken() {
        // OpenAI's own tiktoken 0.9.0 (Python, PyPI), given the same rank files:
        // len(Encoding(**openai_public.o200k_base()).encode_ordinary(text)).
        let text = "Plan a two-day trip to 京都 in spring.";
        assert_eq!(Tokenizer::O200kBase.count(text), 10);
        assert_eq!(Tokenizer::Cl100kBase.count(text), 12);
        assert_eq!(Tokenizer::O200kBase.count("<|endoftext|>"), 7);
    }

    #[test]
    fn a_message_costs_its_framing_its_strings_and_its_name() {
        let tokenizer = Tokenizer::O200kBase;
        let plain = json!({"role": "user", "content": "Hello, world!"});
        assert_eq!(tokenizer.message_cost(&plain), 3 + 1 + 4);
        let named = json!({"role": "user", "name": "ana", "content": "Hello, world!"});
        assert_eq!(tokenizer.message_cost(&named), 3 + 1 + 1 + 1 + 4);
    }

    #[test]
    fn counts_within_a_limit_are_counts_up_to_it() {
        for tokenizer in Tokenizer::ALL {
            for text in ["", "Hello, world!", "  spaced   out \n\n text 12345 京都"] {
                let count = tokenizer.count(text);
                for limit in 0..count + 3 {
                    let within = tokenizer.count_within(text, limit);
                    assert_eq!(
                        within,
                        (count <= limit).then_some(count),
                        "{text:?} {limit}"
                    );
                }
            }
        }
        let mut counter = Counter::new(Tokenizer::O200kBase);
        let messages = [
            json!({"role": "user", "content": "Hello, world!"}),
            json!({"role": "assistant", "name": "a", "content": "Hi."}),
        ];
        let cost: usize = messages.iter().map(|m| counter.message_cost(m)).sum();
        let mut fresh = Counter::new(Tokenizer::O200kBase);
        assert_eq!(fresh.cost_within(&messages, cost), Some(cost));
        assert_eq!(fresh.cost_within(&messages, cost - 1), None);
        assert_eq!(counter.cost_within(&messages, cost - 1), None);
    }

    #[test]
    fn names_parse() {
        assert_eq!("cl100k_base".parse(), Ok(Tokenizer::Cl100kBase));
        assert!("gpt2".parse::<Tokenizer>().is_err());
    }
}
