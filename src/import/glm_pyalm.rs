//! GLM chat histories and PyALM conversation trackers, in YAML (as PyYAML writes them) or
//! JSON, in the four layouts PyALM wrote over time:
//!
//! - the GLM spec: a `history` list of one-key maps `{user: {...}}`, `{assistant: {...}}`,
//!   `{user_interaction: {...}}`, beside `meta`, `settings` and `system`;
//! - trackers v1 to v3: a `tracker` list of entries with a `role` (`USER`/`ASSISTANT` as
//!   a tagged enum in v1 and v2, plain `user`/`assistant` in v3), beside `system_message`
//!   and `user_info`, `data` or `metadata`.
//!
//! Each assistant entry is one model call and one turn: PyALM runs the code an answer
//! holds, stores `code` and `return_value` on that same entry, and calls the model again,
//! whose answer is the next assistant entry (a turn with an empty prompt, `A-User`). The
//! prompt is `{"messages": [...]}`, the entries written since the previous assistant
//! entry (user messages and `user_interaction`s, which are not model calls), and the
//! first prompt also keeps the file's other members (`system_message`, `system`,
//! `settings`, `meta`, `user_info`, `data`, `metadata`). The response is the assistant
//! entry as written. The files hold no session id; their times (`metadata.timestamp`,
//! `meta.chat_started`) are naive local times, read in the zone the user gives.

use super::session::{SessionDraft, TurnDraft};
use super::time::{Stamp, TimeProblem, parse_iso};
use super::turns::awaiting_note;
use super::{ImportError, ImportOptions, Importer, Record, Sessions, Syntax};
use crate::model::JsonObject;
use serde_json::{Map, Value};

/// The GLM / PyALM importer.
pub struct GlmPyalm;

/// What a file must hold, said when it does not.
const FILE_SHAPE: &str = "a PyALM tracker (a `tracker` list of entries with `role`) or a GLM chat history (a `history` list of one-key maps)";

/// The keys of a GLM spec entry.
const ENTRY_KINDS: [&str; 3] = ["user", "assistant", "user_interaction"];

/// Members beside `tracker` that every tracker layout writes.
const TRACKER_MEMBERS: [&str; 4] = ["system_message", "user_info", "metadata", "data"];

impl Importer for GlmPyalm {
    fn name(&self) -> &'static str {
        "glm-pyalm"
    }

    fn description(&self) -> &'static str {
        "GLM chat histories and PyALM conversation trackers (YAML or JSON)"
    }

    fn syntax(&self) -> Syntax {
        Syntax::Yaml
    }

    fn detect(&self, first: &Record) -> bool {
        let Some(object) = first.value.as_object() else {
            return false;
        };
        if let Some(entries) = object.get("tracker").and_then(Value::as_array) {
            return TRACKER_MEMBERS.iter().any(|key| object.contains_key(*key))
                && !entries.is_empty()
                && entries
                    .iter()
                    .all(|entry| entry.get("role").is_some_and(Value::is_string));
        }
        object
            .get("history")
            .and_then(Value::as_array)
            .is_some_and(|entries| {
                !entries.is_empty()
                    && entries.iter().all(|entry| {
                        entry.as_object().is_some_and(|map| {
                            map.len() == 1
                                && map.keys().all(|key| ENTRY_KINDS.contains(&key.as_str()))
                        })
                    })
            })
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        for record in records {
            let record = record?;
            let mut draft = session(&record, sessions.options())?;
            draft.line = record.line;
            sessions.add(draft)?;
        }
        Ok(())
    }
}

/// The two families of layouts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Trackers v1 to v3: entries with a `role`.
    Tracker,
    /// The GLM spec: one-key maps.
    History,
}

/// What an entry is, for the turn rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Assistant,
    Interaction,
}

/// One session: the file (or one JSON Lines line).
fn session(record: &Record, options: &ImportOptions) -> Result<SessionDraft, ImportError> {
    let object = record
        .value
        .as_object()
        .ok_or_else(|| record.error("", FILE_SHAPE))?;
    let (key, layout) = if object.contains_key("tracker") {
        ("tracker", Layout::Tracker)
    } else if object.contains_key("history") {
        ("history", Layout::History)
    } else {
        return Err(record.error("", FILE_SHAPE));
    };
    let entries = object.get(key).and_then(Value::as_array).ok_or_else(|| {
        record.error(
            &format!("/{key}"),
            format!("`{key}` to be a list of entries"),
        )
    })?;
    let mut times = Times::new(options);
    let mut gathered = Gathered::default();
    for (index, entry) in entries.iter().enumerate() {
        let pointer = format!("/{key}/{index}");
        let (kind, body) = match layout {
            Layout::Tracker => tracker_entry(record, entry, &pointer)?,
            Layout::History => history_entry(record, entry, &pointer, &mut gathered)?,
        };
        let time = times.entry_time(body);
        gathered.add(kind, entry, time);
    }
    let rest: JsonObject = object
        .iter()
        .filter(|(name, _)| *name != key)
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let start = object
        .get("meta")
        .and_then(|meta| meta.get("chat_started"))
        .and_then(|started| times.read(started));
    let mut draft = gathered.finish(rest);
    draft.start = start;
    draft.notes.extend(times.notes());
    Ok(draft)
}

/// A tracker entry: its kind, after checking its role and the members it must type.
fn tracker_entry<'a>(
    record: &Record,
    entry: &'a Value,
    pointer: &str,
) -> Result<(Kind, &'a JsonObject), ImportError> {
    let object = entry.as_object().ok_or_else(|| {
        record.error(
            pointer,
            "a tracker entry: a mapping with `role` and `content`",
        )
    })?;
    let role = object
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| record.error(pointer, "a string `role`, user or assistant"))?;
    let kind = match role.to_ascii_lowercase().as_str() {
        "user" => Kind::User,
        "assistant" => Kind::Assistant,
        _ => {
            return Err(record.error(
                &format!("{pointer}/role"),
                format!("a role user or assistant (any capitalisation); found {role:?}"),
            ));
        }
    };
    if let Some(calls) = object.get("function_calls")
        && !calls.is_null()
        && !calls.is_object()
    {
        return Err(record.error(
            &format!("{pointer}/function_calls"),
            "`function_calls` to be a mapping {original_call, return} (one call per tracker entry)",
        ));
    }
    if let Some(code) = object.get("code")
        && !code.is_null()
        && !code.is_string()
    {
        return Err(record.error(
            &format!("{pointer}/code"),
            "`code` to be a string (the Python source the model wrote)",
        ));
    }
    Ok((kind, object))
}

/// A GLM spec entry: a one-key map whose key says what it is.
fn history_entry<'a>(
    record: &Record,
    entry: &'a Value,
    pointer: &str,
    gathered: &mut Gathered,
) -> Result<(Kind, &'a JsonObject), ImportError> {
    const SHAPE: &str =
        "a one-key map {user: {...}}, {assistant: {...}} or {user_interaction: {...}}";
    let object = entry
        .as_object()
        .ok_or_else(|| record.error(pointer, SHAPE))?;
    let mut members = object.iter();
    let (Some((key, body)), None) = (members.next(), members.next()) else {
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        return Err(record.error(pointer, format!("{SHAPE}; found keys {keys:?}")));
    };
    let kind = match key.as_str() {
        "user" => Kind::User,
        "assistant" => Kind::Assistant,
        "user_interaction" => Kind::Interaction,
        other => {
            return Err(record.error(pointer, format!("{SHAPE}; found {other:?}")));
        }
    };
    let body = body.as_object().ok_or_else(|| {
        record.error(
            &format!("{pointer}/{key}"),
            format!("a mapping under `{key}` (content, meta, ...)"),
        )
    })?;
    gathered.spec_calls += spec_calls(record, body, &format!("{pointer}/{key}"))?;
    Ok((kind, body))
}

/// Checks a GLM spec entry's `function_calls` list; its number of calls.
fn spec_calls(record: &Record, body: &JsonObject, pointer: &str) -> Result<usize, ImportError> {
    let calls = match body.get("function_calls") {
        None | Some(Value::Null) => return Ok(0),
        Some(Value::Array(calls)) => calls,
        Some(_) => {
            return Err(record.error(
                &format!("{pointer}/function_calls"),
                "`function_calls` to be a list of {name, parameters}",
            ));
        }
    };
    for (index, call) in calls.iter().enumerate() {
        if !call.get("name").is_some_and(Value::is_string) {
            return Err(record.error(
                &format!("{pointer}/function_calls/{index}"),
                "a function call {name, parameters} with a string `name`",
            ));
        }
    }
    Ok(calls.len())
}

/// The turns being gathered by the turn rule: every assistant entry closes one.
#[derive(Default)]
struct Gathered {
    turns: Vec<TurnDraft>,
    pending: Vec<Value>,
    human: bool,
    prompt_time: Option<Stamp>,
    interactions: usize,
    spec_calls: usize,
}

impl Gathered {
    fn add(&mut self, kind: Kind, entry: &Value, time: Option<Stamp>) {
        match kind {
            Kind::Assistant => {
                self.close_turn(entry.as_object().cloned().unwrap_or_default(), time);
            }
            Kind::User | Kind::Interaction => {
                self.pending.push(entry.clone());
                self.human |= kind == Kind::User;
                self.interactions += usize::from(kind == Kind::Interaction);
                if time.is_some() {
                    self.prompt_time = time;
                }
            }
        }
    }

    /// Closes the turn of the entries since the last assistant entry, with `response`
    /// (`{}` for entries that await it).
    fn close_turn(&mut self, response: JsonObject, response_time: Option<Stamp>) {
        let mut prompt = Map::new();
        prompt.insert(
            "messages".to_owned(),
            Value::Array(std::mem::take(&mut self.pending)),
        );
        self.turns.push(TurnDraft {
            prompt,
            response,
            human: std::mem::take(&mut self.human),
            time: self.prompt_time.take(),
            response_time,
            ..TurnDraft::default()
        });
    }

    /// The session, the file's other members `rest` on the first prompt.
    fn finish(mut self, rest: JsonObject) -> SessionDraft {
        let trailing = self.pending.len();
        if trailing > 0 {
            self.close_turn(Map::new(), None);
        }
        let mut draft = SessionDraft {
            turns: self.turns,
            ..SessionDraft::default()
        };
        if let Some(first) = draft.turns.first_mut() {
            let mut prompt = rest;
            prompt.append(&mut first.prompt);
            first.prompt = prompt;
        }
        if self.interactions > 0 {
            draft.notes.push(format!(
                "{} user_interaction entr{} kept in the prompt of the next model call: user actions, not model calls",
                self.interactions,
                if self.interactions == 1 { "y" } else { "ies" }
            ));
        }
        if self.spec_calls > 0 {
            draft.notes.push(format!(
                "{} function call(s) in GLM `function_calls` lists: the layout records no results, so they cannot be paired",
                self.spec_calls
            ));
        }
        if trailing > 0 {
            draft.notes.push(awaiting_note(
                trailing,
                "entry(ies) after the last assistant entry",
            ));
        }
        draft
    }
}

/// Reads the naive local times of a file, remembering what could not be read.
struct Times<'a> {
    options: &'a ImportOptions,
    naive: bool,
    invalid: bool,
}

impl<'a> Times<'a> {
    fn new(options: &'a ImportOptions) -> Self {
        Self {
            options,
            naive: false,
            invalid: false,
        }
    }

    /// An entry's time: RIXA's `metadata.timestamp` (or `meta.timestamp`).
    fn entry_time(&mut self, body: &JsonObject) -> Option<Stamp> {
        let stamp = ["metadata", "meta"]
            .iter()
            .find_map(|key| body.get(*key)?.get("timestamp"))?;
        self.read(stamp)
    }

    fn read(&mut self, value: &Value) -> Option<Stamp> {
        match parse_iso(value.as_str()?, self.options) {
            Ok(stamp) => Some(stamp),
            Err(TimeProblem::NaiveWithoutZone) => {
                self.naive = true;
                None
            }
            Err(TimeProblem::Invalid) => {
                self.invalid = true;
                None
            }
        }
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.naive {
            notes.push("naive local times ignored: give --timezone".to_owned());
        }
        if self.invalid {
            notes.push("times that are not ISO 8601 ignored (kept in the payloads)".to_owned());
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::GlmPyalm;
    use crate::import::testing::{Counts, convert_text, counts, detect_text, strings as roles};
    use crate::import::{Converted, ImportOptions};
    use serde_json::{Value, json};

    const V3: &str = include_str!("../../tests/fixtures/import/glm-pyalm/tracker-v3-code.yaml");
    const V2: &str = include_str!("../../tests/fixtures/import/glm-pyalm/tracker-v2-code.yaml");
    const V1: &str = include_str!("../../tests/fixtures/import/glm-pyalm/tracker-v1-tagged.yaml");
    const SPEC_JSON: &str = include_str!("../../tests/fixtures/import/glm-pyalm/glm-spec.json");
    const SPEC_YAML: &str = include_str!("../../tests/fixtures/import/glm-pyalm/glm-spec.yaml");
    const INTERACTION: &str =
        include_str!("../../tests/fixtures/import/glm-pyalm/glm-user-interaction.yaml");

    fn convert(name: &str, text: &str, options: &ImportOptions) -> Converted {
        let mut sessions = convert_text(&GlmPyalm, name, text, options).expect("converts");
        assert_eq!(sessions.len(), 1);
        sessions.remove(0)
    }

    fn one(name: &str, text: &str) -> (Counts, Value, Vec<String>) {
        let converted = convert(name, text, &ImportOptions::default().session_id("s"));
        (counts(&converted), converted.document(), converted.notes)
    }

    fn time(turn: &Value) -> (u64, i64) {
        let data = &turn["Timestamp"]["SimpleTimeData"][0];
        (
            data["FlagsByte"].as_u64().expect("flags"),
            data["StartTime"].as_i64().expect("start"),
        )
    }

    #[test]
    fn a_v3_tracker_gives_each_assistant_entry_a_turn_with_its_code_and_result() {
        let (counts, document, notes) = one("v3.yaml", V3);
        assert_eq!(
            counts,
            Counts {
                turns: 4,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 1,
                tools: vec!["get_weather".into(), "plot_histogram".into()],
                roles: roles(&["H-User", "A-User", "H-User", "A-User"]),
            }
        );
        let turns = &document["Turns"];
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(
            first["system_message"],
            "You are an interactive data assistant. You can run Python code on the user's dataset by enclosing it in $$$CODE_START and $$$CODE_END; the return value is shown to you afterwards. Answer in the user's language."
        );
        assert_eq!(first["metadata"]["model_name"], "llama-3.1-70b");
        assert_eq!(first["data"], json!({}));
        assert_eq!(
            first["messages"][0]["content"],
            "Wie wird das Wetter morgen in Zürich? Und in 東京?"
        );
        // The call and its result sit on the entry that ran the code.
        let call = &turns[0]["BKNResponse"];
        assert_eq!(
            call["code"],
            "get_weather(city=\"Zürich\", days_from_now=1)"
        );
        assert_eq!(call["return_value"], "DEG CEL: 7.5, HUM %: 91.0");
        assert_eq!(call["index"], 1);
        // The model is called again after the code ran: an empty prompt.
        assert_eq!(turns[1]["PRCPrompt"], json!({"messages": []}));
        assert_eq!(turns[1]["BKNResponse"]["citations"][0]["source"], "meteo");
        // A single-quoted multi-line scalar: the blank line is a line break.
        assert_eq!(
            turns[2]["PRCPrompt"]["messages"][0]["content"],
            "Now show me the age distribution\nas a histogram, please."
        );
        assert_eq!(turns[2]["BKNResponse"]["metadata"]["has_code_error"], true);
        assert_eq!(
            turns[3]["BKNResponse"]["content"],
            "Die Spalte `age` fehlt im Datensatz 📊 – bitte prüfe den Spaltennamen."
        );
        assert!(turns[0].get("UserEntityState").is_none());
        // Naive local times without a zone are left out, and said once.
        assert_eq!(
            notes
                .iter()
                .filter(|n| *n == "naive local times ignored: give --timezone")
                .count(),
            1,
            "{notes:?}"
        );
        assert_eq!(time(&turns[1]).0, 0);
    }

    #[test]
    fn naive_times_are_read_in_the_zone_given() {
        let options = ImportOptions::default()
            .session_id("s")
            .timezone("Europe/Zurich")
            .expect("zone");
        let converted = convert("v3.yaml", V3, &options);
        let turns = &converted.document()["Turns"];
        // RIXA stamps the final answer of a reply: the response's creation time.
        assert_eq!(time(&turns[0]).0, 0);
        assert_eq!(time(&turns[1]), (3, 1_738_760_595_123));
        assert_eq!(time(&turns[3]), (3, 1_738_760_642_500));
        assert_eq!(
            converted.document()["SessionStartTime"]["SimpleTimeData"][0]["StartTime"],
            1_738_760_595_123_i64
        );
        assert!(!converted.notes.iter().any(|n| n.contains("naive")));
        let spec = convert("spec.json", SPEC_JSON, &options);
        // chat_started 09:30 in Zurich in October (CEST) is 07:30 UTC.
        assert_eq!(
            spec.document()["SessionStartTime"]["SimpleTimeData"][0]["StartTime"],
            1_697_095_800_000_i64
        );
    }

    #[test]
    fn a_v1_tracker_reads_tagged_roles_and_function_call_mappings() {
        let (counts, document, _) = one("v1.yaml", V1);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: vec!["get_weather".into()],
                roles: roles(&["H-User", "H-User", "A-User"]),
            }
        );
        let turns = &document["Turns"];
        assert_eq!(turns[0]["PRCPrompt"]["messages"][0]["role"], "USER");
        assert_eq!(turns[0]["PRCPrompt"]["user_info"]["name"], "Jürgen");
        assert_eq!(
            turns[1]["BKNResponse"]["function_calls"]["original_call"],
            "get_weather(location=\"sydney\", days_from_now=1)"
        );
        assert_eq!(turns[2]["BKNResponse"]["feedback"], "thumbs_up");
    }

    #[test]
    fn a_v2_tracker_keeps_data_and_user_info_on_the_first_prompt() {
        let (counts, document, _) = one("v2.yaml", V2);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: vec!["count_rows".into()],
                roles: roles(&["H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        assert_eq!(turns[0]["PRCPrompt"]["data"]["dataset"], "census_2020.csv");
        assert_eq!(turns[0]["PRCPrompt"]["user_info"], json!({}));
        assert_eq!(turns[0]["BKNResponse"]["return_value"], "20471");
        assert_eq!(turns[0]["BKNResponse"]["meta"]["completion_time"], 0.84);
        assert_eq!(
            turns[2]["PRCPrompt"]["messages"][0]["content"],
            "Great, thanks — merci, ça suffit."
        );
        assert!(turns[1]["PRCPrompt"].get("data").is_none());
    }

    #[test]
    fn the_glm_spec_layout_in_json_and_yaml_gives_the_same_turns() {
        let (counts, json_document, notes) = one("spec.json", SPEC_JSON);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 2,
                results: 0,
                paired: 0,
                errors: 0,
                tools: vec!["filter_data".into(), "shap_plot".into()],
                roles: roles(&["H-User", "H-User"]),
            }
        );
        let (yaml_counts, yaml_document, yaml_notes) = one("spec.yaml", SPEC_YAML);
        assert_eq!(yaml_counts, counts);
        assert_eq!(yaml_document["Turns"], json_document["Turns"]);
        assert_eq!(yaml_notes, notes);
        let turns = &json_document["Turns"];
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(first["meta"]["used_model"], "gpt-3.5-turbo-0613");
        assert_eq!(first["system"]["available_user_info"]["name"], "Jörg");
        assert_eq!(first["settings"]["chat_format"], "chatml");
        assert_eq!(
            turns[0]["BKNResponse"]["assistant"]["function_calls"][1]["name"],
            "shap_plot"
        );
        // The user_interaction stays in the next prompt, before the user's message.
        let second = turns[1]["PRCPrompt"]["messages"]
            .as_array()
            .expect("messages");
        assert_eq!(second.len(), 2);
        assert_eq!(
            second[0]["user_interaction"]["content"],
            "clicked: Plot vergrößern"
        );
        assert_eq!(
            second[1]["user"]["content"],
            "Danke! Was bedeutet der rote Balken? 🤔"
        );
        assert_eq!(
            turns[1]["BKNResponse"]["assistant"]["feedback"]["rating"],
            5
        );
        for expected in [
            "1 user_interaction entry kept",
            "2 function call(s) in GLM `function_calls` lists",
            "naive local times ignored: give --timezone",
        ] {
            assert!(
                notes.iter().any(|n| n.starts_with(expected)),
                "{expected}: {notes:?}"
            );
        }
    }

    #[test]
    fn a_user_interaction_alone_prompts_the_model_again() {
        let (counts, document, notes) = one("ui.yaml", INTERACTION);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 0,
                paired: 0,
                errors: 0,
                tools: vec!["open_dashboard".into()],
                roles: roles(&["H-User", "A-User", "A-User"]),
            }
        );
        let turns = &document["Turns"];
        assert_eq!(
            turns[1]["PRCPrompt"]["messages"],
            json!([{"user_interaction": {"content": "clicked bar: Kyōto branch", "meta": {"element": "bar-7"}}}])
        );
        assert_eq!(
            turns[0]["PRCPrompt"]["system"]["content"],
            "You are a sales dashboard assistant.\n"
        );
        assert_eq!(
            turns[0]["PRCPrompt"]["settings"]["settings"]["function_calls"]["enabled"],
            true
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("1 entry(ies) after the last assistant entry")),
            "{notes:?}"
        );
    }

    #[test]
    fn no_session_id_in_the_file_derives_one() {
        let converted = convert("v3.yaml", V3, &ImportOptions::default());
        assert!(converted.session_id.starts_with("v3-"));
        assert!(converted.notes.iter().any(|n| n.contains("derived")));
    }

    #[test]
    fn auto_recognises_each_layout() {
        for (name, text) in [
            ("a.yaml", V3),
            ("b.yaml", V2),
            ("c.yaml", V1),
            ("d.json", SPEC_JSON),
            ("e.yaml", SPEC_YAML),
            ("f.yaml", INTERACTION),
        ] {
            assert_eq!(detect_text(name, text).expect(name), "glm-pyalm", "{name}");
        }
    }

    /// Each text is refused at the place given, with a message holding the words given.
    fn refused(cases: &[(&str, &str, &str)]) {
        for (text, place, message) in cases {
            let error = convert_text(&GlmPyalm, "bad.json", text, &ImportOptions::default())
                .expect_err(text);
            assert!(error.place.ends_with(place), "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
    }

    const BROKEN: &[(&str, &str, &str)] = &[
        (
            r#"{"system_message": "x"}"#,
            "(document)",
            "a `tracker` list",
        ),
        (r#"{"tracker": "x"}"#, "/tracker", "a list of entries"),
        (
            r#"{"history": {"user": {}}}"#,
            "/history",
            "a list of entries",
        ),
        (
            r#"{"tracker": ["hello"]}"#,
            "/tracker/0",
            "a mapping with `role`",
        ),
        (
            r#"{"tracker": [{"content": "x"}]}"#,
            "/tracker/0",
            "a string `role`",
        ),
        (
            r#"{"tracker": [{"role": "system", "content": "x"}]}"#,
            "/tracker/0/role",
            "found \"system\"",
        ),
        (
            r#"{"tracker": [{"role": "user", "content": "x"}, {"role": "assistant", "function_calls": [{"original_call": "f()"}]}]}"#,
            "/tracker/1/function_calls",
            "a mapping {original_call, return}",
        ),
        (
            r#"{"tracker": [{"role": "user", "content": "x"}, {"role": "assistant", "code": 42}]}"#,
            "/tracker/1/code",
            "a string",
        ),
        (r#"{"history": ["hi"]}"#, "/history/0", "a one-key map"),
        (
            r#"{"history": [{"user": {"content": "x"}, "assistant": {"content": "y"}}]}"#,
            "/history/0",
            "found keys [\"user\", \"assistant\"]",
        ),
        (
            r#"{"history": [{"system": {"content": "x"}}]}"#,
            "/history/0",
            "found \"system\"",
        ),
        (
            r#"{"history": [{"user": "x"}]}"#,
            "/history/0/user",
            "a mapping under `user`",
        ),
        (
            r#"{"history": [{"user": {"content": "x"}}, {"assistant": {"function_calls": {"name": "f"}}}]}"#,
            "/history/1/assistant/function_calls",
            "a list of {name, parameters}",
        ),
        (
            r#"{"history": [{"user": {"content": "x"}}, {"assistant": {"function_calls": [{"parameters": {}}]}}]}"#,
            "/history/1/assistant/function_calls/0",
            "a string `name`",
        ),
        (r#"{"tracker": []}"#, "(document)", "at least one message"),
        (
            r#"[{"role": "user", "content": "x"}]"#,
            "(document)",
            "a PyALM tracker",
        ),
    ];

    #[test]
    fn broken_structure_is_refused_with_its_place() {
        refused(BROKEN);
        let tagged = "tracker:\n- role: !ConversationRole 'USER'\n  content: x\n- role: !ConversationRole 'SYSTEM'\n  content: y\n";
        let error = convert_text(&GlmPyalm, "bad.yaml", tagged, &ImportOptions::default())
            .expect_err("unknown tagged role");
        assert_eq!(error.place, "/tracker/1/role", "{error}");
        assert!(error.message.contains("found \"SYSTEM\""), "{error}");
    }
}
