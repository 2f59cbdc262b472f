//! The turn rule over a stream of messages: inputs since the last response form a
//! prompt, the model output that follows forms the response, and each response closes a
//! turn. Importers of message lists feed it their messages in order.

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

    /// The exchanges, and the input items after the last response (they form no turn).
    pub fn finish(mut self) -> (Vec<Exchange>, Vec<Value>) {
        self.close();
        (self.done, self.current.prompt)
    }
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
        let (exchanges, trailing) = splitter.finish();
        assert_eq!(exchanges.len(), 3);
        assert_eq!(exchanges[0].prompt, [json!("system"), json!("hello")]);
        assert_eq!(exchanges[0].response, [json!("call"), json!("more")]);
        assert!(exchanges[0].human);
        assert_eq!(exchanges[0].prompt_time, Some(Stamp::Millis(5)));
        assert_eq!(exchanges[0].response_time, Some(Stamp::Millis(7)));
        assert!(!exchanges[1].human);
        assert!(exchanges[2].prompt.is_empty());
        assert_eq!(trailing, [json!("trailing")]);
    }
}
