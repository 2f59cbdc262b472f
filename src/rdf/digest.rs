//! The digest of a session's newest turns: what the canned query `recent-turns` gives for
//! them, as one JSON literal (`ihi:recentTurns` of the conversation), so that "the last N
//! turns" is one lookup instead of several per turn. It is derived data: kept beside the
//! session's graph, in its derived graph, never in it.
//!
//! It is taken from the session's quads as the query reads them, and given back as the
//! query's rows; a session whose quads it cannot mirror exactly (a turn with two times,
//! an index beyond 64 bits) gets none, and the query runs instead.
//!
//! A turn's row is one [`RecentTurn`], read and written by serde with its members named:
//! a new column is one more member (with a default, or a digest without it is not read,
//! and the query runs).

use super::IriScheme;
use super::vocab::{ch, ihi};
use oxigraph::model::vocab::xsd;
use oxigraph::model::{Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use oxsdatatypes::DateTime;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::str::FromStr;

/// How many of a session's newest turns the digest holds: `recent-turns`' default `n`.
pub const DIGEST_TURNS: usize = 10;

/// One turn of the digest: what `recent-turns` gives for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecentTurn {
    /// `ch:turnIndex`.
    pub turn_index: i64,
    /// The local name of its `ihi:role` (`A-User`, `H-User`, `BKN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Its earliest `ch:timestamp`, in the form the store gives it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// The text of its prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
    /// The text of its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_text: Option<String>,
    /// Whether it awaits its response (`ihi:awaitsResponse`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaiting: bool,
}

impl RecentTurn {
    /// The row `recent-turns` gives: `turnIndex`, `role`, `time`, `promptText`,
    /// `answerText`, `awaiting`.
    pub fn row(&self) -> Vec<Option<Term>> {
        let simple = |text: &Option<String>| {
            text.as_ref()
                .map(|text| Literal::new_simple_literal(text).into())
        };
        vec![
            Some(Literal::from(self.turn_index).into()),
            simple(&self.role),
            self.time
                .as_ref()
                .map(|time| Literal::new_typed_literal(time, xsd::DATE_TIME).into()),
            simple(&self.prompt_text),
            simple(&self.answer_text),
            Some(Literal::new_simple_literal(if self.awaiting { "true" } else { "false" }).into()),
        ]
    }
}

/// A session's newest turns, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecentTurns {
    /// How many turns the session has (with a turn index).
    pub turn_count: usize,
    /// The newest of them, at most [`DIGEST_TURNS`], in the query's order: by turn index,
    /// newest first, then by the turn's IRI.
    pub turns: Vec<RecentTurn>,
}

impl RecentTurns {
    /// The rows of `recent-turns` with `n`, when the digest holds them all.
    pub fn rows(&self, n: usize) -> Option<Vec<Vec<Option<Term>>>> {
        let holds_all = self.turns.len() == self.turn_count;
        (n <= self.turns.len() || holds_all)
            .then(|| self.turns.iter().take(n).map(RecentTurn::row).collect())
    }

    /// Reads a digest's JSON text; `None` when it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }

    /// The digest of a session graph's quads (those of its one graph), when they can be
    /// mirrored exactly.
    pub fn of_quads(quads: &[Quad]) -> Option<Self> {
        let mut turns: HashMap<&NamedNode, TurnFacts<'_>> = HashMap::new();
        let mut prompt_texts: HashMap<&NamedNode, Vec<&Literal>> = HashMap::new();
        let mut answer_texts: HashMap<&NamedNode, Vec<&Literal>> = HashMap::new();
        let mut has_session_id = false;
        for quad in quads {
            let NamedOrBlankNode::NamedNode(subject) = &quad.subject else {
                continue;
            };
            let predicate = quad.predicate.as_ref();
            if predicate == ihi::SESSION_ID {
                has_session_id = true;
            } else if predicate == ch::TURN_INDEX {
                turns.entry(subject).or_default().indexes.push(&quad.object);
            } else if predicate == ihi::ROLE_PROPERTY {
                turns.entry(subject).or_default().roles.push(&quad.object);
            } else if predicate == ihi::AWAITS_RESPONSE {
                turns.entry(subject).or_default().awaiting = true;
            } else if predicate == ch::TIMESTAMP {
                turns.entry(subject).or_default().times.push(&quad.object);
            } else if predicate == ch::HAS_PROMPT || predicate == ch::HAS_ANSWER {
                let Term::NamedNode(payload) = &quad.object else {
                    return None;
                };
                let facts = turns.entry(subject).or_default();
                if predicate == ch::HAS_PROMPT {
                    facts.prompts.push(payload);
                } else {
                    facts.answers.push(payload);
                }
            } else if predicate == ch::PROMPT_TEXT || predicate == ch::ANSWER_TEXT {
                let Term::Literal(text) = &quad.object else {
                    return None;
                };
                let texts = if predicate == ch::PROMPT_TEXT {
                    &mut prompt_texts
                } else {
                    &mut answer_texts
                };
                texts.entry(subject).or_default().push(text);
            }
        }
        if !has_session_id {
            return None;
        }
        let mut indexed: Vec<(i64, &NamedNode, &TurnFacts<'_>)> = Vec::new();
        for (turn, facts) in &turns {
            match facts.indexes.as_slice() {
                [] => {}
                [Term::Literal(index)] if index.datatype() == xsd::INTEGER => {
                    indexed.push((i64::from_str(index.value()).ok()?, turn, facts));
                }
                _ => return None,
            }
        }
        indexed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.as_str().cmp(b.1.as_str())));
        let newest = indexed
            .iter()
            .take(DIGEST_TURNS)
            .map(|(index, _, facts)| facts.turn(*index, &prompt_texts, &answer_texts))
            .collect::<Option<Vec<_>>>()?;
        Some(Self {
            turn_count: indexed.len(),
            turns: newest,
        })
    }

    /// The digest as the literal its derived graph keeps.
    pub fn literal(&self) -> Literal {
        Literal::new_simple_literal(
            serde_json::to_string(self).expect("a digest of strings and integers serializes"),
        )
    }

    /// The quad that keeps the digest of `session_id`'s newest turns: `ihi:recentTurns`
    /// of its conversation, in its derived graph.
    pub fn quad(&self, scheme: &IriScheme, session_id: &str) -> Quad {
        Quad::new(
            scheme.conversation(session_id),
            ihi::RECENT_TURNS,
            self.literal(),
            scheme.derived_graph(session_id),
        )
    }
}

/// What the session's quads say of one turn.
#[derive(Default)]
struct TurnFacts<'a> {
    indexes: Vec<&'a Term>,
    roles: Vec<&'a Term>,
    times: Vec<&'a Term>,
    prompts: Vec<&'a NamedNode>,
    answers: Vec<&'a NamedNode>,
    awaiting: bool,
}

impl TurnFacts<'_> {
    /// The turn's row, when each column has at most one value (each has one at most
    /// in what the mapper writes; more would be several rows).
    fn turn(
        &self,
        turn_index: i64,
        prompt_texts: &HashMap<&NamedNode, Vec<&Literal>>,
        answer_texts: &HashMap<&NamedNode, Vec<&Literal>>,
    ) -> Option<RecentTurn> {
        let role = match self.roles.as_slice() {
            [] => None,
            // STRAFTER(STR(?roleNode), "#")
            [Term::NamedNode(role)] => Some(
                role.as_str()
                    .split_once('#')
                    .map_or("", |(_, name)| name)
                    .to_owned(),
            ),
            _ => return None,
        };
        let time = match self.times.as_slice() {
            [] => None,
            [Term::Literal(time)] if time.datatype() == xsd::DATE_TIME => {
                // The store keeps a valid xsd:dateTime as a value and gives back its
                // canonical form.
                Some(
                    DateTime::from_str(time.value())
                        .map_or_else(|_| time.value().to_owned(), |value| value.to_string()),
                )
            }
            _ => return None,
        };
        Some(RecentTurn {
            turn_index,
            role,
            time,
            prompt_text: text_of(&self.prompts, prompt_texts)?,
            answer_text: text_of(&self.answers, answer_texts)?,
            awaiting: self.awaiting,
        })
    }
}

/// The one text of a turn's one payload: `Some(None)` when it has none, `None` when the
/// payloads and texts are not one and at most one simple literal.
fn text_of(
    payloads: &[&NamedNode],
    texts: &HashMap<&NamedNode, Vec<&Literal>>,
) -> Option<Option<String>> {
    let all: Vec<&Literal> = payloads
        .iter()
        .flat_map(|payload| texts.get(payload).into_iter().flatten().copied())
        .collect();
    match all.as_slice() {
        [] => Some(None),
        [text] if text.datatype() == xsd::STRING && text.language().is_none() => {
            Some(Some(text.value().to_owned()))
        }
        _ => None,
    }
}
