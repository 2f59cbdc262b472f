//! OpenAI fine-tuning JSONL (chat format): one conversation per line, `{messages, tools?,
//! functions?, parallel_tool_calls?}`, every line its own session. Turns and pairing are
//! those of Chat Completions, within the line only; the line's `tools` and `functions`
//! stay on its first prompt, and assistant `weight`s stay on their messages. A last
//! assistant call without a result is the training target, not an error.

use super::openai_chat::{conversation, is_chat_messages};
use super::session::other_members;
use super::{ImportError, Importer, Record, Sessions};
use serde_json::Value;

/// The OpenAI fine-tuning JSONL importer.
pub struct OpenAiFinetune;

/// The members a fine-tuning line may hold.
const MEMBERS: [&str; 4] = ["messages", "tools", "functions", "parallel_tool_calls"];

impl Importer for OpenAiFinetune {
    fn name(&self) -> &'static str {
        "openai-finetune"
    }

    fn description(&self) -> &'static str {
        "OpenAI fine-tuning JSONL, chat format (one conversation per line)"
    }

    fn detect(&self, first: &Record) -> bool {
        first.line.is_some()
            && first.value.as_object().is_some_and(|object| {
                object.keys().all(|key| MEMBERS.contains(&key.as_str()))
                    && object
                        .get("messages")
                        .and_then(Value::as_array)
                        .is_some_and(|messages| is_chat_messages(messages))
            })
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        for record in records {
            let record = record?;
            let object = record
                .value
                .as_object()
                .ok_or_else(|| record.error("", "a fine-tuning line: an object with `messages`"))?;
            let messages = object
                .get("messages")
                .and_then(Value::as_array)
                .ok_or_else(|| record.error("/messages", "a `messages` array"))?;
            let rest = other_members(object, "messages");
            let mut draft = conversation(&record, messages, "/messages", &rest)?;
            // Each line is a session: ids and pairing never cross lines.
            draft.line = Some(record.line.unwrap_or(1));
            sessions.add(draft)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::OpenAiFinetune;
    use crate::import::ImportOptions;
    use crate::import::testing::{convert_text, counts, detect_text};

    const DRONE: &str = include_str!("../../tests/fixtures/import/openai-finetune/drone.jsonl");

    #[test]
    fn every_line_is_a_session_and_ids_never_pair_across_lines() {
        let sessions = convert_text(
            &OpenAiFinetune,
            "drone.jsonl",
            DRONE,
            &ImportOptions::default().session_id("drone"),
        )
        .expect("converts");
        let ids: Vec<_> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["drone#1", "drone#2", "drone#4"]);
        let all: Vec<_> = sessions.iter().map(counts).collect();
        // Line 1: the call is the training target, unanswered.
        assert_eq!((all[0].turns, all[0].calls, all[0].paired), (1, 1, 0));
        // Line 2: the placeholder id `call_id` answers the call of its own line.
        assert_eq!(
            (all[1].turns, all[1].calls, all[1].results, all[1].paired),
            (3, 2, 1, 1)
        );
        assert_eq!(all[1].roles, ["H-User", "A-User", "H-User"]);
        assert_eq!(
            sessions[2].document()["Turns"][0]["BKNResponse"]["content"],
            "Salut ! 😀"
        );
        // The double-encoded arguments are kept as written.
        assert_eq!(
            sessions[0].document()["Turns"][0]["BKNResponse"]["tool_calls"][0]["function"]["arguments"],
            "\"{}\""
        );
        assert_eq!(
            sessions[0].document()["Turns"][0]["PRCPrompt"]["parallel_tool_calls"],
            false
        );
    }

    #[test]
    fn auto_tells_fine_tuning_lines_from_chat() {
        assert_eq!(
            detect_text("d.jsonl", DRONE).expect("detected"),
            "openai-finetune"
        );
    }
}
