//! The searchable texts of a session graph, read from its quads: each prompt text, answer
//! text, tool call (its name and arguments) and tool result, with the turn it belongs
//! to; and the memory items of the memory graph. Read from the quads rather than the
//! document so that what the store holds, written by ihigraph or by a SPARQL update, is
//! what is indexed.

use crate::rdf::vocab::{ch, ihi, prov};
use oxigraph::model::{NamedNodeRef, NamedOrBlankNode, Quad, Term};
use oxsdatatypes::{DateTime, Double};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;
use std::str::FromStr;

/// What a searchable text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SearchKind {
    /// A prompt's text.
    Prompt,
    /// An answer's text.
    Answer,
    /// A tool call: the tool's name and its arguments.
    Call,
    /// A tool result's data.
    Result,
    /// A memory item's text.
    Memory,
}

impl SearchKind {
    /// Every kind.
    pub const ALL: [SearchKind; 5] = [
        SearchKind::Prompt,
        SearchKind::Answer,
        SearchKind::Call,
        SearchKind::Result,
        SearchKind::Memory,
    ];

    /// The kind's name (`prompt`, `answer`, `call`, `result`, `memory`).
    pub fn name(self) -> &'static str {
        match self {
            SearchKind::Prompt => "prompt",
            SearchKind::Answer => "answer",
            SearchKind::Call => "call",
            SearchKind::Result => "result",
            SearchKind::Memory => "memory",
        }
    }
}

impl FromStr for SearchKind {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| {
                format!("unknown kind {name:?}: expected prompt, answer, call, result or memory")
            })
    }
}

/// One searchable text and where it belongs.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchText {
    /// The session's `SessionID` (empty for a memory item).
    pub session_id: String,
    /// A memory item's IRI (none for a session's text).
    pub item: Option<String>,
    /// The turn's IRI (for a memory item, the first turn it was made from).
    pub turn: Option<String>,
    /// The turn's `TurnIndex`.
    pub turn_index: Option<u64>,
    /// The turn's role (`H-User`, `A-User`, `BKN`).
    pub role: Option<String>,
    /// When: the turn's time (a memory item's creation), as written.
    pub time: Option<String>,
    /// Milliseconds since 1970 of `time`, for ranges.
    pub millis: Option<i64>,
    /// What the text is.
    pub kind: SearchKind,
    /// The text.
    pub text: String,
}

/// The facts of one subject that the texts need, by predicate, borrowed from the quads.
type Facts<'a> = FxHashMap<&'a str, Vec<&'a Term>>;

/// Each subject's [`Facts`], by the subject's IRI.
type Subjects<'a> = FxHashMap<&'a str, Facts<'a>>;

/// The predicates the texts are read from: the rest of a session (its payloads, most of
/// its bytes) is not looked at.
const READ: [NamedNodeRef<'static>; 15] = [
    ch::TURN_INDEX,
    ch::HAS_PROMPT,
    ch::HAS_ANSWER,
    ch::INVOLVES_TOOL_INVOCATION,
    ch::TIMESTAMP,
    ihi::ROLE_PROPERTY,
    ch::PROMPT_TEXT,
    ch::ANSWER_TEXT,
    ch::TOOL_NAME,
    ch::INVOCATION_PARAMETERS,
    ch::RESULT_DATA,
    ihi::MEMORY_TEXT,
    ihi::ITEM_VALUE,
    prov::GENERATED_AT_TIME,
    prov::WAS_DERIVED_FROM,
];

/// The searchable texts of a session's quads, in turn order: what the index holds of it.
pub fn session_texts(session_id: &str, quads: &[Quad]) -> Vec<SearchText> {
    texts_of(session_id, quads.iter())
}

/// The searchable texts of the given turns (IRIs) of a session's quads, in turn order:
/// what the index is to hold of them.
pub fn turn_texts(session_id: &str, quads: &[Quad], turns: &[String]) -> Vec<SearchText> {
    let turns: FxHashSet<&str> = turns.iter().map(String::as_str).collect();
    texts_of(
        session_id,
        quads.iter().filter(|quad| match &quad.subject {
            NamedOrBlankNode::NamedNode(subject) => {
                turn_of_subject(subject.as_str(), &turns).is_some()
            }
            NamedOrBlankNode::BlankNode(_) => false,
        }),
    )
}

fn texts_of<'a>(session_id: &str, quads: impl Iterator<Item = &'a Quad>) -> Vec<SearchText> {
    let subjects = by_subject(quads);
    let mut turn_of: FxHashMap<&str, &str> = FxHashMap::default();
    for (turn, facts) in &subjects {
        if !facts.contains_key(ch::TURN_INDEX.as_str()) {
            continue;
        }
        for predicate in [ch::HAS_PROMPT, ch::HAS_ANSWER, ch::INVOLVES_TOOL_INVOCATION] {
            for part in nodes(facts, predicate) {
                turn_of.insert(part, turn);
            }
        }
    }
    let mut texts = Vec::new();
    for (subject, facts) in &subjects {
        let Some((kind, text)) = subject_text(facts) else {
            continue;
        };
        let turn = turn_of
            .get(subject)
            .copied()
            .or_else(|| result_turn(subject, &subjects));
        let turn_facts = turn.and_then(|turn| subjects.get(turn));
        let time = turn_facts.and_then(|facts| literal(facts, ch::TIMESTAMP));
        texts.push(SearchText {
            session_id: session_id.to_owned(),
            item: None,
            turn: turn.map(str::to_owned),
            turn_index: turn_facts
                .and_then(|facts| literal(facts, ch::TURN_INDEX))
                .and_then(|index| index.parse().ok()),
            role: turn_facts
                .and_then(|facts| nodes(facts, ihi::ROLE_PROPERTY).next())
                .and_then(|role| role.rsplit('#').next())
                .map(str::to_owned),
            millis: time.and_then(epoch_millis),
            time: time.map(str::to_owned),
            kind,
            text,
        });
    }
    texts.sort_by_key(|text| (text.turn_index, text.kind));
    texts
}

/// The turns (IRIs) whose texts change when a session's quads go from `old` to `new`
/// (`changed`: the quads in one and not the other): each changed quad's subject is a
/// turn or a part named below it (`…/turn/N/prompt`, `…/turn/N/tool-result/K`, as the
/// mapper names them). `None` when a changed quad that texts are read from belongs to
/// no turn: the whole session is to be indexed again.
pub fn changed_turns<'a>(
    old: impl Iterator<Item = &'a Quad>,
    new: impl Iterator<Item = &'a Quad>,
    changed: impl Iterator<Item = &'a Quad>,
) -> Option<Vec<String>> {
    let turns: FxHashSet<&str> = old
        .chain(new)
        .filter(|quad| quad.predicate == ch::TURN_INDEX)
        .filter_map(|quad| match &quad.subject {
            NamedOrBlankNode::NamedNode(turn) => Some(turn.as_str()),
            NamedOrBlankNode::BlankNode(_) => None,
        })
        .collect();
    let mut touched = BTreeSet::new();
    for quad in changed {
        let turn = match &quad.subject {
            NamedOrBlankNode::NamedNode(subject) => turn_of_subject(subject.as_str(), &turns),
            NamedOrBlankNode::BlankNode(_) => None,
        };
        match turn {
            Some(turn) => {
                touched.insert(turn);
            }
            None if READ.contains(&quad.predicate.as_ref()) => return None,
            // A fact of the session itself (its turn count, its end): no text reads it.
            None => {}
        }
    }
    Some(touched.into_iter().map(str::to_owned).collect())
}

/// The turn a subject is, or is named below.
fn turn_of_subject<'a>(subject: &'a str, turns: &FxHashSet<&str>) -> Option<&'a str> {
    if turns.contains(subject) {
        return Some(subject);
    }
    subject
        .rmatch_indices('/')
        .map(|(at, _)| &subject[..at])
        .find(|prefix| turns.contains(prefix))
}

/// The memory items of the memory graph's quads: `remember`'s by their text, keyed items
/// (LangGraph's store) by their value's JSON text, as LangGraph's own index embeds a
/// value whole.
pub fn memory_texts(quads: &[Quad]) -> Vec<SearchText> {
    let mut texts = Vec::new();
    for (item, facts) in &by_subject(quads.iter()) {
        let Some(text) =
            literal(facts, ihi::MEMORY_TEXT).or_else(|| literal(facts, ihi::ITEM_VALUE))
        else {
            continue;
        };
        let time = literal(facts, prov::GENERATED_AT_TIME);
        let mut turns: Vec<&str> = nodes(facts, prov::WAS_DERIVED_FROM).collect();
        turns.sort_unstable();
        texts.push(SearchText {
            session_id: String::new(),
            item: Some((*item).to_owned()),
            turn: turns.first().map(|turn| (*turn).to_owned()),
            turn_index: None,
            role: None,
            millis: time.and_then(epoch_millis),
            time: time.map(str::to_owned),
            kind: SearchKind::Memory,
            text: text.to_owned(),
        });
    }
    texts.sort_by(|a, b| (&a.text, &a.item).cmp(&(&b.text, &b.item)));
    texts
}

fn by_subject<'a>(quads: impl Iterator<Item = &'a Quad>) -> Subjects<'a> {
    let mut subjects: Subjects<'_> = FxHashMap::default();
    for quad in quads {
        if let NamedOrBlankNode::NamedNode(subject) = &quad.subject
            && READ.contains(&quad.predicate.as_ref())
        {
            subjects
                .entry(subject.as_str())
                .or_default()
                .entry(quad.predicate.as_str())
                .or_default()
                .push(&quad.object);
        }
    }
    subjects
}

/// The kind and text of a subject that has one.
fn subject_text(facts: &Facts<'_>) -> Option<(SearchKind, String)> {
    if let Some(text) = literal(facts, ch::PROMPT_TEXT) {
        return Some((SearchKind::Prompt, text.to_owned()));
    }
    if let Some(text) = literal(facts, ch::ANSWER_TEXT) {
        return Some((SearchKind::Answer, text.to_owned()));
    }
    if let Some(name) = literal(facts, ch::TOOL_NAME) {
        let arguments = literal(facts, ch::INVOCATION_PARAMETERS).unwrap_or("");
        return Some((
            SearchKind::Call,
            format!("{name} {arguments}").trim_end().to_owned(),
        ));
    }
    literal(facts, ch::RESULT_DATA).map(|data| (SearchKind::Result, data.to_owned()))
}

/// The turn of a tool result: the mapper names a result below the turn that carries it
/// (`…/turn/N/tool-result/K`), the one link from a result to its turn when no call of
/// this session answers to it.
fn result_turn<'a>(result: &str, subjects: &Subjects<'a>) -> Option<&'a str> {
    let (turn, _) = result.rsplit_once("/tool-result/")?;
    subjects.get_key_value(turn).map(|(turn, _)| *turn)
}

fn literal<'a>(facts: &Facts<'a>, predicate: NamedNodeRef<'_>) -> Option<&'a str> {
    facts
        .get(predicate.as_str())?
        .iter()
        .find_map(|term| match term {
            Term::Literal(literal) => Some(literal.value()),
            _ => None,
        })
}

fn nodes<'a, 'b>(
    facts: &'b Facts<'a>,
    predicate: NamedNodeRef<'_>,
) -> impl Iterator<Item = &'a str> + 'b {
    facts
        .get(predicate.as_str())
        .into_iter()
        .flatten()
        .filter_map(|term| match term {
            Term::NamedNode(node) => Some(node.as_str()),
            _ => None,
        })
}

/// Milliseconds since 1970 of an `xsd:dateTime` (one without a time zone read as UTC).
pub fn epoch_millis(time: &str) -> Option<i64> {
    let time = DateTime::from_str(time).ok()?;
    let time = if time.timezone_offset().is_none() {
        DateTime::from_str(&format!("{time}Z")).ok()?
    } else {
        time
    };
    let epoch = DateTime::from_str("1970-01-01T00:00:00Z").ok()?;
    let seconds = f64::from(Double::from(time.checked_sub(epoch)?.as_seconds()));
    // Within a few hundred million years of 1970, milliseconds fit an i64 exactly.
    (seconds.abs() < 1e13).then(|| (seconds * 1000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_millis_reads_date_times() {
        assert_eq!(epoch_millis("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(
            epoch_millis("2026-01-01T00:00:00Z"),
            Some(1_767_225_600_000)
        );
        assert_eq!(
            epoch_millis("2026-01-01T01:00:00+01:00"),
            Some(1_767_225_600_000)
        );
        assert_eq!(epoch_millis("2026-01-01T00:00:00"), Some(1_767_225_600_000));
        assert_eq!(epoch_millis("yesterday"), None);
    }

    #[test]
    fn changed_quads_name_their_turns() {
        use oxigraph::model::{GraphName, Literal, NamedNode};
        let node = |iri: &str| NamedNode::new_unchecked(format!("https://example.org/c/{iri}"));
        let quad = |subject: &str, predicate: NamedNodeRef<'_>, object: Term| {
            Quad::new(node(subject), predicate, object, GraphName::DefaultGraph)
        };
        let text = |value: &str| Term::from(Literal::new_simple_literal(value));
        let turns = [
            quad("turn/1", ch::TURN_INDEX, text("1")),
            quad("turn/10", ch::TURN_INDEX, text("10")),
        ];
        let answer = quad("turn/10/answer", ch::ANSWER_TEXT, text("hi"));
        let result = quad("turn/1/tool-result/2", ch::RESULT_DATA, text("4"));
        let count = quad("session", ch::TURN_INDEX, text("11"));
        let changed = [answer.clone(), result.clone()];
        assert_eq!(
            changed_turns(turns.iter(), [].iter(), changed.iter()),
            Some(vec![
                node("turn/1").into_string(),
                node("turn/10").into_string()
            ])
        );
        // A fact of the session that no text reads: no turn changed.
        let facts = [quad("session", ihi::UPDATED_AT, text("now"))];
        assert_eq!(
            changed_turns(turns.iter(), [].iter(), facts.iter()),
            Some(Vec::new())
        );
        // A text read from outside every turn: the whole session again.
        let loose = [quad("elsewhere", ch::PROMPT_TEXT, text("?"))];
        assert_eq!(changed_turns(turns.iter(), [].iter(), loose.iter()), None);
        // The texts of turn 1 alone: not turn 10's, though its IRI begins the same.
        let quads = [turns[0].clone(), turns[1].clone(), answer, result, count];
        let texts = turn_texts("s", &quads, &[node("turn/1").into_string()]);
        assert_eq!(
            texts
                .iter()
                .map(|text| text.text.as_str())
                .collect::<Vec<_>>(),
            ["4"]
        );
    }

    #[test]
    fn kinds_read_back_by_name() {
        for kind in SearchKind::ALL {
            assert_eq!(kind.name().parse::<SearchKind>(), Ok(kind));
        }
        assert!("prompts".parse::<SearchKind>().is_err());
    }
}
