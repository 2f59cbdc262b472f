//! Mapping a checked Interaction History onto the conversation-history ontology: one
//! named graph per session, deterministic IRIs, no blank nodes.
//!
//! Besides the facts, the mapper writes the entailments queries rely on, since Oxigraph
//! applies no OWL reasoning: both `ch:hasTurn` and its inverse `ch:partOfConversation`,
//! and every superclass type (`jido:MemoryItem`, the PROV classes).

use super::IriScheme;
use super::vocab::{ch, ihi, jido, prov, rdf, role_individual};
use crate::model::{
    DataExchangeMetadata, InteractionHistory, JsonDecimal, JsonObject, ProcessInstance, Role,
    SimpleTime, TimeUnit, Turn, absolute_date_time, segment_start,
};
use crate::payload::{
    PayloadKind, SpanFacts, call_facts, find_tool_calls, find_tool_results, kept_traces,
    payload_text, tool_spans,
};
use oxrdf::vocab::xsd;
use oxrdf::{GraphName, Literal, NamedNode, NamedNodeRef, Quad, Term};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Something the mapper noticed but kept going past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingWarning {
    /// JSON Pointer of the place in the document.
    pub pointer: String,
    /// What was noticed.
    pub message: String,
}

impl fmt::Display for MappingWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning[mapping]: {}", self.pointer, self.message)
    }
}

/// The quads of one session, all in its named graph.
#[derive(Debug, Clone)]
pub struct SessionGraph {
    /// The session's `SessionID`.
    pub session_id: String,
    /// The named graph holding the session.
    pub graph: NamedNode,
    /// Every quad of the session, each once.
    pub quads: Vec<Quad>,
    /// Number of turns mapped.
    pub turn_count: usize,
    /// What the mapper noticed (tool results without a call, times out of range).
    pub warnings: Vec<MappingWarning>,
    /// The fingerprint of `quads`, once taken ([`SessionGraph::take_fingerprint`]:
    /// ingest takes it on its prepare thread, beside the writer); the store takes it
    /// itself when it is not.
    pub fingerprint: Option<super::Fingerprint>,
    /// The digest of the session's newest turns, derived from `quads` (none when they
    /// cannot be mirrored exactly): not one of its quads. A store whose every write goes
    /// through ihigraph keeps it in the session's derived graph
    /// ([`IriScheme::derived_graph`](super::IriScheme::derived_graph)).
    pub recent_turns: Option<super::RecentTurns>,
}

impl SessionGraph {
    /// Takes the fingerprint of the session's quads (see [`fingerprint`](super::fingerprint)).
    pub fn take_fingerprint(&mut self) -> Result<&super::Fingerprint, super::FingerprintError> {
        let print = super::fingerprint(self.quads.iter().map(Quad::as_ref))?;
        Ok(self.fingerprint.insert(print))
    }
}

/// Maps a checked history to the quads of its session graph.
///
/// ```
/// # let document = include_str!("../../examples/histories/trip-planning.json");
/// use ihigraph::check::{check_document, CheckOptions};
/// use ihigraph::rdf::{map_history, IriScheme};
/// let value: serde_json::Value = serde_json::from_str(document)?;
/// let history = check_document(&value, CheckOptions::default()).history.expect("valid");
/// let graph = map_history(&history, &IriScheme::default());
/// assert!(graph.quads.iter().all(|q| q.graph_name == graph.graph.clone().into()));
/// # Ok::<_, serde_json::Error>(())
/// ```
pub fn map_history(history: &InteractionHistory, scheme: &IriScheme) -> SessionGraph {
    let session_id = &history.session_id;
    let graph = scheme.session_graph(session_id);
    let mut mapper = Mapper {
        scheme,
        out: QuadSink {
            graph: GraphName::NamedNode(graph.clone()),
            non_xml: Vec::new(),
            quads: Vec::with_capacity(64 + 48 * history.turns.len()),
        },
        conversation: scheme.conversation(session_id),
        work_session: scheme.work_session(session_id),
        warnings: Vec::new(),
        invocations_by_call_id: HashMap::new(),
        unanswered_by_name: HashMap::new(),
        results_seen: HashSet::new(),
        tools_declared: HashSet::new(),
    };
    mapper.session(history);
    for (position, turn) in history.turns.iter().enumerate() {
        mapper.turn(turn, position);
    }
    // Derived from the quads, and kept outside them: see `SessionGraph::recent_turns`.
    let recent_turns = super::RecentTurns::of_quads(&mapper.out.quads);
    let mut warnings = mapper.warnings;
    warnings.extend(
        mapper
            .out
            .non_xml
            .into_iter()
            .map(|message| MappingWarning {
                pointer: String::new(),
                message,
            }),
    );
    SessionGraph {
        session_id: session_id.clone(),
        graph,
        quads: mapper.out.quads,
        turn_count: history.turns.len(),
        warnings,
        fingerprint: None,
        recent_turns,
    }
}

/// Whether XML 1.0 allows the character (its `Char` production).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

struct QuadSink {
    graph: GraphName,
    /// What [`QuadSink::string`] noticed: texts holding characters XML forbids.
    non_xml: Vec<String>,
    quads: Vec<Quad>,
}

impl QuadSink {
    fn add(&mut self, subject: &NamedNode, predicate: NamedNodeRef<'_>, object: impl Into<Term>) {
        self.quads.push(Quad::new(
            subject.clone(),
            predicate,
            object.into(),
            self.graph.clone(),
        ));
    }

    fn types(&mut self, subject: &NamedNode, classes: &[NamedNodeRef<'_>]) {
        for class in classes {
            self.add(subject, rdf::TYPE, *class);
        }
    }

    /// A text, as written. A character XML 1.0 forbids (a control character other than
    /// tab, line feed and carriage return, or U+FFFE/U+FFFF) is kept too, and noted: the
    /// stored text stays exact, and the warning says which tools will refuse it.
    fn string(&mut self, subject: &NamedNode, predicate: NamedNodeRef<'_>, value: &str) {
        if let Some(forbidden) = value.chars().find(|c| !is_xml_char(*c)) {
            self.non_xml.push(format!(
                "{subject} {predicate} holds U+{:04X}, a character XML 1.0 forbids: stored as written, but RDF/XML and OWL tools refuse such a literal (the verbatim JSON escapes it)",
                u32::from(forbidden)
            ));
        }
        self.add(subject, predicate, Literal::new_simple_literal(value));
    }

    fn typed(
        &mut self,
        subject: &NamedNode,
        predicate: NamedNodeRef<'_>,
        value: String,
        datatype: NamedNodeRef<'_>,
    ) {
        self.add(
            subject,
            predicate,
            Literal::new_typed_literal(value, datatype),
        );
    }

    /// The payload verbatim, as an `xsd:string` literal holding its JSON text (numbers
    /// to the last digit, members in document order). Not `rdf:JSON`: OWL 2 has no such
    /// datatype, and OWL tools refuse it (see docs/ontology.md).
    fn raw_json(&mut self, subject: &NamedNode, value: &impl Serialize) {
        let mut text = serde_json::to_string(value).expect("a JSON value always serializes");
        // serde_json escapes the control characters (U+0007 as \u0007) but writes the
        // noncharacters U+FFFE and U+FFFF as they are, which XML 1.0 (so xsd:string,
        // RDF/XML, OWL tools) forbids too. JSON outside strings is ASCII, so this escapes
        // only inside strings: the same JSON value, in a literal OWL tools accept.
        if text.contains(['\u{FFFE}', '\u{FFFF}']) {
            text = text
                .replace('\u{FFFE}', "\\ufffe")
                .replace('\u{FFFF}', "\\uffff");
        }
        self.add(subject, ihi::RAW_JSON, Literal::new_simple_literal(text));
    }

    /// An exact decimal, if the number is of sane length.
    fn decimal(
        &mut self,
        subject: &NamedNode,
        predicate: NamedNodeRef<'_>,
        number: &serde_json::Number,
    ) {
        if let Some(text) = JsonDecimal::parse(number.as_str()).and_then(|d| d.to_decimal_text()) {
            self.typed(subject, predicate, text, xsd::DECIMAL);
        }
    }

    fn integer(
        &mut self,
        subject: &NamedNode,
        predicate: NamedNodeRef<'_>,
        number: &serde_json::Number,
    ) {
        if let Some(text) = JsonDecimal::parse(number.as_str()).and_then(|d| d.to_integer_text()) {
            self.typed(subject, predicate, text, xsd::INTEGER);
        }
    }

    /// An integer, plus its text as written (an `xsd:string` literal under `raw`) when
    /// that is not the canonical form the store would give back.
    fn exact_integer(
        &mut self,
        subject: &NamedNode,
        predicate: NamedNodeRef<'_>,
        raw: NamedNodeRef<'_>,
        number: &serde_json::Number,
    ) {
        self.integer(subject, predicate, number);
        let canonical = JsonDecimal::parse(number.as_str()).and_then(|d| d.to_integer_text());
        if canonical.as_deref() != Some(number.as_str()) {
            self.string(subject, raw, number.as_str());
        }
    }

    fn date_time(&mut self, subject: &NamedNode, predicate: NamedNodeRef<'_>, instant: &str) {
        self.typed(subject, predicate, instant.to_owned(), xsd::DATE_TIME);
    }

    /// A span's times, latency, status and ids; with `trace` its trace too (a turn
    /// names the traces it keeps apart).
    fn span(&mut self, subject: &NamedNode, span: &SpanFacts, trace: bool) {
        let instant = |nanos: u64| {
            jiff::Timestamp::from_nanosecond(i128::from(nanos))
                .ok()
                .map(|t| t.to_string())
        };
        if let Some(start) = span.start_ns.and_then(instant) {
            self.date_time(subject, ihi::SPAN_START_TIME, &start);
        }
        if let Some(end) = span.end_ns.and_then(instant) {
            self.date_time(subject, ihi::SPAN_END_TIME, &end);
        }
        if let (Some(start), Some(end)) = (span.start_ns, span.end_ns)
            && end >= start
        {
            let nanos = end - start;
            let millis = format!("{}.{:06}", nanos / 1_000_000, nanos % 1_000_000);
            let millis = millis
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_owned();
            self.typed(subject, ihi::LATENCY_MS, millis, xsd::DECIMAL);
        }
        if let Some(status) = span.status {
            self.string(subject, ihi::SPAN_STATUS, status);
        }
        if let Some(message) = &span.status_message {
            self.string(subject, ihi::STATUS_MESSAGE, message);
        }
        if let Some(id) = &span.span_id {
            self.string(subject, ihi::SPAN_ID, id);
        }
        if trace && let Some(id) = &span.trace_id {
            self.string(subject, ihi::TRACE_ID, id);
        }
    }
}

struct Mapper<'a> {
    scheme: &'a IriScheme,
    out: QuadSink,
    conversation: NamedNode,
    work_session: NamedNode,
    warnings: Vec<MappingWarning>,
    /// The latest invocation of each call id, for pairing results.
    invocations_by_call_id: HashMap<String, NamedNode>,
    /// Invocations without a call id and without a result yet, by tool name, in order:
    /// Gemini results without an id pair on name and order.
    unanswered_by_name: HashMap<String, Vec<NamedNode>>,
    /// Results already recorded: a prompt often repeats the whole message history, and
    /// each result is recorded once, where it first appears.
    results_seen: HashSet<(Option<String>, Option<String>, String)>,
    /// Tools already declared (type and label), so that a tool called twice is
    /// declared once.
    tools_declared: HashSet<String>,
}

impl Mapper<'_> {
    fn warn(&mut self, pointer: String, message: String) {
        self.warnings.push(MappingWarning { pointer, message });
    }

    /// A memory item: its `jido:MemoryItem` type and the work session it was asserted in.
    fn memory_item(&mut self, node: &NamedNode) {
        self.out.add(node, rdf::TYPE, jido::MEMORY_ITEM);
        self.out
            .add(node, jido::ASSERTED_IN, self.work_session.clone());
    }

    fn session(&mut self, history: &InteractionHistory) {
        let conversation = self.conversation.clone();
        let out = &mut self.out;
        out.types(&conversation, &[ch::CONVERSATION]);
        out.add(
            &conversation,
            ch::ASSOCIATED_WITH_SESSION,
            self.work_session.clone(),
        );
        out.types(&self.work_session, &[jido::WORK_SESSION]);
        out.string(&conversation, ihi::SESSION_ID, &history.session_id);
        out.string(&conversation, ihi::HEADER, &history.header);
        out.string(&conversation, ihi::M_INSTANCE_ID, &history.m_instance_id);
        out.string(
            &conversation,
            ihi::U_ENVIRONMENT_ID,
            &history.u_environment_id,
        );
        out.exact_integer(
            &conversation,
            ihi::TURN_COUNT,
            ihi::RAW_TURN_COUNT,
            &history.turn_count,
        );
        if let Some(description) = &history.descriptive_metadata {
            out.string(&conversation, ihi::DESCRIPTIVE_METADATA, description);
        }
        self.memory_item(&conversation);
        let start = IriScheme::child(&conversation, &["start-time"]);
        self.out
            .add(&conversation, ihi::SESSION_START_TIME, start.clone());
        if let Some(instant) =
            self.simple_time(&start, &history.session_start_time, "/SessionStartTime")
        {
            self.out.date_time(&conversation, ch::TIMESTAMP, &instant);
        }
        let metadata = IriScheme::child(&conversation, &["data-exchange-metadata"]);
        self.out.add(
            &conversation,
            ihi::HAS_DATA_EXCHANGE_METADATA,
            metadata.clone(),
        );
        self.data_exchange_metadata(&metadata, &history.data_exchange_metadata);
        self.branch_link(&history.data_exchange_metadata);
    }

    /// The link of a branch to the conversation and turn it forked from, as its DEM's
    /// branch annotation says (with the PROV properties they refine: nothing here
    /// reasons). The parent is named by the IRIs its own graph uses, whether or not it is
    /// stored.
    fn branch_link(&mut self, metadata: &DataExchangeMetadata) {
        let link = match metadata.branch_of() {
            Ok(Some(link)) => link,
            Ok(None) => return,
            Err(error) => {
                self.warn(
                    error.pointer,
                    format!("{}: the branch link is left out", error.message),
                );
                return;
            }
        };
        let conversation = self.conversation.clone();
        let parent = self.scheme.conversation(&link.session_id);
        let out = &mut self.out;
        out.types(&conversation, &[prov::ENTITY]);
        out.add(&conversation, ihi::BRANCH_OF, parent.clone());
        out.add(&conversation, prov::WAS_DERIVED_FROM, parent.clone());
        out.string(&conversation, ihi::BRANCH_OF_SESSION_ID, &link.session_id);
        if let Some(index) = link.after_turn {
            let index = index.to_string();
            let turn = IriScheme::child(&parent, &["turn", &index]);
            out.add(&conversation, ihi::FORKED_AFTER_TURN, turn.clone());
            out.add(&conversation, prov::WAS_INFLUENCED_BY, turn);
            out.typed(
                &conversation,
                ihi::FORKED_AFTER_TURN_INDEX,
                index,
                xsd::INTEGER,
            );
        }
    }

    fn data_exchange_metadata(&mut self, node: &NamedNode, metadata: &DataExchangeMetadata) {
        let out = &mut self.out;
        out.types(node, &[ihi::DATA_EXCHANGE_METADATA, prov::ENTITY]);
        out.raw_json(node, metadata);
        out.string(node, ihi::HEADER, &metadata.header);
        out.string(node, ihi::DATA_ID, &metadata.data_id);
        for (property, value) in [
            (ihi::M_INSTANCE_ID, &metadata.m_instance_id),
            (ihi::DATA_EXCHANGE_METADATA_ID, &metadata.metadata_id),
            (ihi::DATA_TYPE, &metadata.data_type),
            (ihi::DESCRIPTIVE_METADATA, &metadata.descriptive_metadata),
        ] {
            if let Some(value) = value {
                out.string(node, property, value);
            }
        }
        for source in &metadata.source {
            match source {
                ProcessInstance::AimId(id) => out.string(node, ihi::SOURCE_AIM_ID, id),
                ProcessInstance::ImplementerAimId(id) => {
                    out.string(node, ihi::SOURCE_IMPLEMENTER_AIM_ID, id);
                }
            }
        }
        if let Some(confidence) = &metadata.confidence {
            out.decimal(node, ihi::CONFIDENCE, confidence);
        }
        if let Some(time) = &metadata.metadata_time {
            let time_node = IriScheme::child(node, &["time"]);
            self.out
                .add(node, ihi::DATA_EXCHANGE_METADATA_TIME, time_node.clone());
            self.simple_time(&time_node, time, "/DataXMData/DataExchangeMetadataTime");
        }
    }

    /// Writes a Simple Time and returns the instant of its first segment's start, when
    /// that is absolute and representable.
    fn simple_time(
        &mut self,
        node: &NamedNode,
        time: &SimpleTime,
        pointer: &str,
    ) -> Option<String> {
        let out = &mut self.out;
        out.types(node, &[ihi::SIMPLE_TIME]);
        out.raw_json(node, time);
        out.string(node, ihi::SIMPLE_TIME_ID, &time.simple_time_id);
        for (index, segment) in time.segments.iter().enumerate() {
            let segment_node = IriScheme::child(node, &["segment", &index.to_string()]);
            let out = &mut self.out;
            out.add(node, ihi::HAS_TIME_SEGMENT, segment_node.clone());
            out.types(&segment_node, &[ihi::TIME_SEGMENT]);
            out.typed(
                &segment_node,
                ihi::SEGMENT_INDEX,
                index.to_string(),
                xsd::INTEGER,
            );
            out.integer(&segment_node, ihi::FLAGS_BYTE, &segment.flags_byte);
            out.decimal(&segment_node, ihi::START_OFFSET, &segment.start_time);
            out.decimal(&segment_node, ihi::END_OFFSET, &segment.end_time);
            if let Some(mode) = segment.accuracy_mode {
                out.string(&segment_node, ihi::ACCURACY_MODE, mode.as_str());
            }
            for (property, value) in [
                (ihi::ACCURACY_PLUS_MINUS, &segment.accuracy_plus_minus),
                (
                    ihi::ACCURACY_START_PLUS_MINUS,
                    &segment.accuracy_start_plus_minus,
                ),
                (
                    ihi::ACCURACY_END_PLUS_MINUS,
                    &segment.accuracy_end_plus_minus,
                ),
            ] {
                if let Some(value) = value {
                    out.decimal(&segment_node, property, value);
                }
            }
            let Some(flags) = segment.flags() else {
                continue;
            };
            out.add(
                &segment_node,
                ihi::IS_ABSOLUTE_TIME,
                Literal::from(flags.absolute),
            );
            out.add(
                &segment_node,
                ihi::TIME_UNIT_PROPERTY,
                time_unit_individual(flags.unit),
            );
            if flags.absolute {
                for (property, value, member) in [
                    (ihi::START_TIME, &segment.start_time, "StartTime"),
                    (ihi::END_TIME, &segment.end_time, "EndTime"),
                ] {
                    match absolute_date_time(value, flags) {
                        Some(instant) => self.out.date_time(&segment_node, property, &instant),
                        None => self.warn(
                            format!("{pointer}/SimpleTimeData/{index}/{member}"),
                            format!(
                                "absolute time {} is outside the years 0001 to 9999: kept as offset only",
                                value.as_str()
                            ),
                        ),
                    }
                }
            }
        }
        time.segments.first().and_then(segment_start)
    }

    /// The user's state and the control instruction behind a turn, when it has them.
    fn user_state_and_instruction(&mut self, node: &NamedNode, turn: &Turn) {
        if let Some(state) = &turn.user_entity_state {
            let state_node = IriScheme::child(node, &["user-entity-state"]);
            let out = &mut self.out;
            out.add(node, ihi::HAS_USER_ENTITY_STATE, state_node.clone());
            out.add(node, prov::USED, state_node.clone());
            out.types(&state_node, &[ihi::USER_ENTITY_STATE, prov::ENTITY]);
            out.raw_json(&state_node, state);
        }
        if let Some(instruction) = &turn.instruction {
            let instruction_node = IriScheme::child(node, &["auc-instruction"]);
            let out = &mut self.out;
            out.add(
                node,
                ihi::TRIGGERED_BY_INSTRUCTION,
                instruction_node.clone(),
            );
            out.types(&instruction_node, &[ihi::AUC_INSTRUCTION, prov::ENTITY]);
            out.raw_json(&instruction_node, instruction);
            if let Some(name) = instruction_name(instruction) {
                out.string(&instruction_node, ihi::INSTRUCTION_NAME, name);
            }
        }
    }

    fn turn(&mut self, turn: &Turn, position: usize) {
        let pointer = format!("/Turns/{position}");
        let node = IriScheme::child(&self.conversation, &["turn", &position.to_string()]);
        let conversation = self.conversation.clone();
        let out = &mut self.out;
        out.types(&node, &[ch::CONVERSATION_TURN, prov::ACTIVITY]);
        if turn.response.is_empty() {
            out.add(&node, ihi::AWAITS_RESPONSE, Literal::from(true));
        }
        self.memory_item(&node);
        let out = &mut self.out;
        out.add(&conversation, ch::HAS_TURN, node.clone());
        out.add(&node, ch::PART_OF_CONVERSATION, conversation);
        out.exact_integer(&node, ch::TURN_INDEX, ihi::RAW_TURN_INDEX, &turn.turn_index);
        out.add(&node, ihi::ROLE_PROPERTY, role_individual(turn.role));
        out.add(
            &node,
            jido::HAS_SOURCE_TYPE,
            match turn.role {
                Role::HUser => jido::USER_SOURCE,
                Role::AUser | Role::Bkn => jido::AGENT_SOURCE,
            },
        );
        let timestamp = IriScheme::child(&node, &["timestamp"]);
        out.add(&node, ihi::TURN_TIMESTAMP, timestamp.clone());
        let instant =
            self.simple_time(&timestamp, &turn.timestamp, &format!("{pointer}/Timestamp"));
        if let Some(instant) = &instant {
            self.out.date_time(&node, ch::TIMESTAMP, instant);
            self.out.date_time(&node, prov::STARTED_AT_TIME, instant);
        }

        let prompt = IriScheme::child(&node, &["prompt"]);
        self.payload(
            &node,
            &prompt,
            &turn.prompt,
            PayloadKind::Prompt,
            instant.as_deref(),
        );
        let answer = IriScheme::child(&node, &["answer"]);
        self.payload(
            &node,
            &answer,
            &turn.response,
            PayloadKind::Answer,
            instant.as_deref(),
        );

        self.user_state_and_instruction(&node, turn);
        // Results in the prompt answer calls of earlier turns, so they are linked before
        // this turn's calls are known (a call id may be used again, as placeholder ids
        // are); results in the response answer this turn's calls.
        let mut results_in_turn = 0;
        self.tool_results(
            &node,
            &turn.prompt,
            &format!("{pointer}/PRCPrompt"),
            instant.as_deref(),
            &mut results_in_turn,
        );
        self.telemetry(&node, turn);
        self.tool_invocations(&node, turn, instant.as_deref());
        self.tool_results(
            &node,
            &turn.response,
            &format!("{pointer}/BKNResponse"),
            instant.as_deref(),
            &mut results_in_turn,
        );
    }

    fn payload(
        &mut self,
        turn: &NamedNode,
        node: &NamedNode,
        payload: &JsonObject,
        kind: PayloadKind,
        instant: Option<&str>,
    ) {
        let out = &mut self.out;
        match kind {
            PayloadKind::Prompt => {
                out.add(turn, ch::HAS_PROMPT, node.clone());
                out.add(turn, prov::USED, node.clone());
                out.types(node, &[ch::PROMPT, prov::ENTITY]);
            }
            PayloadKind::Answer => {
                out.add(turn, ch::HAS_ANSWER, node.clone());
                out.add(node, prov::WAS_GENERATED_BY, turn.clone());
                out.types(node, &[ch::ANSWER, prov::ENTITY]);
            }
        }
        out.raw_json(node, payload);
        if let Some(text) = payload_text(payload, kind) {
            let property = match kind {
                PayloadKind::Prompt => ch::PROMPT_TEXT,
                PayloadKind::Answer => ch::ANSWER_TEXT,
            };
            out.string(node, property, &text);
        }
        if let Some(instant) = instant {
            out.date_time(node, ch::TIMESTAMP, instant);
        }
    }

    /// What the spans a turn keeps report of its model call (responses the `otel`
    /// importer wrote): provider, models, tokens, finish reasons, the span's times,
    /// status and ids, and every trace the turn keeps spans of.
    fn telemetry(&mut self, node: &NamedNode, turn: &Turn) {
        let out = &mut self.out;
        for trace in kept_traces(&turn.response) {
            out.string(node, ihi::TRACE_ID, &trace);
        }
        let Some(facts) = call_facts(&turn.response) else {
            return;
        };
        for (predicate, value) in [
            (ihi::PROVIDER, &facts.provider),
            (ihi::REQUEST_MODEL, &facts.request_model),
            (ihi::RESPONSE_MODEL, &facts.response_model),
            (ihi::OPERATION_NAME, &facts.operation),
        ] {
            if let Some(value) = value {
                out.string(node, predicate, value);
            }
        }
        for (predicate, count) in [
            (ihi::INPUT_TOKENS, facts.input_tokens),
            (ihi::OUTPUT_TOKENS, facts.output_tokens),
        ] {
            if let Some(count) = count {
                out.typed(node, predicate, count.to_string(), xsd::INTEGER);
            }
        }
        for reason in &facts.finish_reasons {
            out.string(node, ihi::FINISH_REASON, reason);
        }
        out.span(node, &facts.span, false);
    }

    fn tool_invocations(&mut self, turn_node: &NamedNode, turn: &Turn, instant: Option<&str>) {
        let mut runs: Vec<Option<SpanFacts>> = Vec::new();
        let mut spans = tool_spans(&turn.response);
        for call in find_tool_calls(&turn.response) {
            // A run answers the call with its id, else the first call of its tool
            // that no run answers yet.
            let by_id = call.call_id.as_ref().and_then(|id| {
                spans
                    .iter()
                    .position(|run| run.call_id.as_ref() == Some(id))
            });
            let found = by_id.or_else(|| {
                spans
                    .iter()
                    .position(|run| run.call_id.is_none() && run.name == call.name)
            });
            runs.push(found.map(|at| spans.remove(at).span));
        }
        for (ordinal, call) in find_tool_calls(&turn.response).into_iter().enumerate() {
            let node = IriScheme::child(turn_node, &["tool-invocation", &ordinal.to_string()]);
            let tool = self.scheme.tool(&call.name);
            let out = &mut self.out;
            out.add(turn_node, ch::INVOLVES_TOOL_INVOCATION, node.clone());
            out.types(&node, &[ch::TOOL_INVOCATION, prov::ACTIVITY]);
            out.string(&node, ch::TOOL_NAME, &call.name);
            out.add(&node, ch::USES_TOOL, tool.clone());
            if self.tools_declared.insert(call.name.clone()) {
                out.types(&tool, &[ihi::TOOL]);
                out.string(&tool, rdf::LABEL, &call.name);
            }
            if let Some(arguments) = &call.arguments {
                out.string(&node, ch::INVOCATION_PARAMETERS, arguments);
            }
            if let Some(Some(run)) = runs.get(ordinal) {
                out.span(&node, run, true);
            }
            if let Some(instant) = instant {
                out.date_time(&node, ch::TIMESTAMP, instant);
            }
            match &call.call_id {
                Some(call_id) => {
                    out.string(&node, ihi::CALL_ID, call_id);
                    // The latest call with an id is the one its results answer.
                    self.invocations_by_call_id
                        .insert(call_id.clone(), node.clone());
                }
                None => self
                    .unanswered_by_name
                    .entry(call.name.clone())
                    .or_default()
                    .push(node.clone()),
            }
            self.memory_item(&node);
        }
    }

    fn tool_results(
        &mut self,
        turn_node: &NamedNode,
        payload: &JsonObject,
        pointer: &str,
        instant: Option<&str>,
        results_in_turn: &mut usize,
    ) {
        for result in find_tool_results(payload) {
            let key = match &result.call_id {
                // With an id, the result answers the latest call with that id: a history
                // repeated in a later prompt repeats the result of the same call (seen:
                // left out), while an id used again by a newer call is answered anew,
                // even with the same data (benchmark logs reuse ids; a `think` tool
                // answers "" every time).
                Some(call_id) => (
                    Some(self.invocations_by_call_id.get(call_id).map_or_else(
                        || format!("id:{call_id}"),
                        |invocation| invocation.as_str().to_owned(),
                    )),
                    None,
                    result.data.clone(),
                ),
                None => (None, result.name.clone(), result.data.clone()),
            };
            if !self.results_seen.insert(key) {
                continue;
            }
            let ordinal = *results_in_turn;
            *results_in_turn += 1;
            let node = IriScheme::child(turn_node, &["tool-result", &ordinal.to_string()]);
            let invocation = match &result.call_id {
                Some(call_id) => self.invocations_by_call_id.get(call_id).cloned(),
                None => result.name.as_ref().and_then(|name| {
                    let queue = self.unanswered_by_name.get_mut(name)?;
                    (!queue.is_empty()).then(|| queue.remove(0))
                }),
            };
            let out = &mut self.out;
            out.types(&node, &[ch::TOOL_RESULT, prov::ENTITY]);
            out.string(&node, ch::RESULT_DATA, &result.data);
            out.add(&node, jido::HAS_SOURCE_TYPE, jido::TOOL_SOURCE);
            if let Some(call_id) = &result.call_id {
                out.string(&node, ihi::CALL_ID, call_id);
            }
            if let Some(is_error) = result.is_error {
                out.add(&node, ihi::IS_ERROR, Literal::from(is_error));
            }
            if let Some(instant) = instant {
                out.date_time(&node, ch::TIMESTAMP, instant);
            }
            match invocation {
                Some(invocation) => {
                    out.add(&invocation, ch::HAS_RESULT, node.clone());
                    out.add(&node, prov::WAS_GENERATED_BY, invocation);
                }
                None => {
                    let call = match (&result.call_id, &result.name) {
                        (Some(id), _) => format!("call id {id:?}"),
                        (None, Some(name)) => format!("an unanswered call of {name:?}"),
                        (None, None) => "a call".to_owned(),
                    };
                    self.warn(
                        pointer.to_owned(),
                        format!("tool result for {call} has no matching invocation in this session; kept unlinked"),
                    );
                }
            }
            self.memory_item(&node);
        }
    }
}

fn time_unit_individual(unit: TimeUnit) -> NamedNodeRef<'static> {
    match unit {
        TimeUnit::Second => ihi::SECOND,
        TimeUnit::Millisecond => ihi::MILLISECOND,
        TimeUnit::Microsecond => ihi::MICROSECOND,
        TimeUnit::Nanosecond => ihi::NANOSECOND,
    }
}

/// The name of an AUC instruction: the first string member among `Instruction`,
/// `instruction`, `Name`, `name`, `Type`, `type`, `Command`, `command`.
fn instruction_name(instruction: &JsonObject) -> Option<&str> {
    [
        "Instruction",
        "instruction",
        "Name",
        "name",
        "Type",
        "type",
        "Command",
        "command",
    ]
    .iter()
    .find_map(|key| instruction.get(*key).and_then(serde_json::Value::as_str))
}
