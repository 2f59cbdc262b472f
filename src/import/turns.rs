//! The turn rule over a stream of messages: inputs since the last response form a
//! prompt, the model output that follows forms the response, and each response closes a
//! turn. Input after the last response forms a last turn that awaits its response: its
//! prompt holds that input and its response is empty (`{}`), so nothing of a history is
//! lost. Importers of message lists feed it their messages in order.

use super::time::Stamp;
use serde_json::Value;

/// One model call: the input items sent since the previous response and the output
/// items of the response, in the source's own shape.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exchange {
    /// Input items since the previous response (the system prompt on the first).
    pub prompt: Vec<Value>,
    /// Output items of the response.
    pub response: Vec<Value>,
    /// Whether the prompt carries a new human message.
    pub human: bool,
    /// The latest time among the prompt's items.
    pub prompt_time: Option<Stamp>,
    /// The earliest time among the response's items.
    pub response_time: Option<Stamp>,
}

/// Groups messages into exchanges by the turn rule.
#[derive(Debug, Default)]
pub struct Splitter {
    done: Vec<Exchange>,
    current: Exchange,
}

impl Splitter {
    /// An input item (system, human, tool result...): it starts a new prompt when a
    /// response was being gathered.
    pub fn input(&mut self, item: Value, human: bool, time: Option<Stamp>) {
        if !self.current.response.is_empty() {
            self.close();
        }
        self.current.prompt.push(item);
        self.current.human |= human;
        if time.is_some() {
            self.current.prompt_time = time;
        }
    }

    /// An output item of the model: it joins the response being gathered.
    pub fn output(&mut self, item: Value, time: Option<Stamp>) {
        self.current.response.push(item);
        if self.current.response_time.is_none() {
            self.current.response_time = time;
        }
    }

    /// Whether a response is being gathered.
    pub fn in_response(&self) -> bool {
        !self.current.response.is_empty()
    }

    /// Ends the response being gathered, if any: the next output starts a new turn even
    /// without input in between (formats where each assistant message is one call).
    pub fn close(&mut self) {
        if !self.current.response.is_empty() {
            self.done.push(std::mem::take(&mut self.current));
        }
    }

    /// The exchanges; input after the last response forms a last one that awaits its
    /// response ([`Exchange::awaits_response`]).
    pub fn finish(mut self) -> Vec<Exchange> {
        self.close();
        if !self.current.prompt.is_empty() {
            self.done.push(self.current);
        }
        self.done
    }
}

impl Exchange {
    /// Whether the model has not answered this exchange yet: input after the last
    /// response. Its turn's `BKNResponse` is `{}`.
    pub fn awaits_response(&self) -> bool {
        self.response.is_empty()
    }
}

/// The note an importer gives when the last turn awaits its response: `items` input
/// items after the last response, named as the format names them ("message(s) after the
/// last assistant message").
pub fn awaiting_note(items: usize, after: &str) -> String {
    format!("{items} {after} form the last turn, which awaits its response (`BKNResponse` is {{}})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_gather_until_a_response_and_responses_until_input() {
        let mut splitter = Splitter::default();
        splitter.input(json!("system"), false, None);
        splitter.input(json!("hello"), true, Some(Stamp::Millis(5)));
        splitter.output(json!("call"), Some(Stamp::Millis(7)));
        splitter.output(json!("more"), Some(Stamp::Millis(9)));
        splitter.input(json!("result"), false, None);
        splitter.output(json!("answer"), None);
        splitter.close();
        splitter.output(json!("again"), None);
        splitter.input(json!("trailing"), true, None);
        let exchanges = splitter.finish();
        assert_eq!(exchanges.len(), 4);
        assert_eq!(exchanges[0].prompt, [json!("system"), json!("hello")]);
        assert_eq!(exchanges[0].response, [json!("call"), json!("more")]);
        assert!(exchanges[0].human);
        assert_eq!(exchanges[0].prompt_time, Some(Stamp::Millis(5)));
        assert_eq!(exchanges[0].response_time, Some(Stamp::Millis(7)));
        assert!(!exchanges[1].human);
        assert!(exchanges.iter().take(3).all(|e| !e.awaits_response()));
        assert!(exchanges[2].prompt.is_empty());
        assert!(!exchanges[2].awaits_response());
        assert_eq!(exchanges[3].prompt, [json!("trailing")]);
        assert!(exchanges[3].awaits_response());
        assert!(exchanges[3].human);
    }
}
