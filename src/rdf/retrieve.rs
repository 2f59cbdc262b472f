//! Retrieval: the PGM-IHI document of a session, rebuilt from its graph alone (its
//! triples, read from the store in one call).
//!
//! The mapping keeps every member of the document in the graph: the session's
//! strings and numbers as literals (a number written in a non-canonical form, such as
//! `2.0`, also verbatim, since stores canonicalise numeric literals), and every payload
//! and Simple Time verbatim as a literal holding its JSON text. Reading them back gives the same
//! document, JSON-equal to the one ingested, numbers to the last digit.

use super::IriScheme;
use super::vocab::{ch, ihi, role_of_individual};
use crate::model::{InteractionHistory, Turn};
use oxrdf::{Graph, NamedNode, NamedNodeRef, NamedOrBlankNodeRef, Term, TermRef};
use serde::de::DeserializeOwned;
use serde_json::Number;

/// Why a session could not be rebuilt.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RetrieveError {
    /// The graph lacks something every session graph has (it was not written by
    /// ihigraph, or was changed since).
    #[error("session graph {graph}: {node} has no {property}")]
    Missing {
        /// The graph.
        graph: String,
        /// The node.
        node: String,
        /// The property it lacks.
        property: String,
    },
    /// A value in the graph is not what ihigraph writes there.
    #[error("session graph {graph}: {node} {property}: {message}")]
    Invalid {
        /// The graph.
        graph: String,
        /// The node.
        node: String,
        /// The property.
        property: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads one session graph.
struct GraphReader<'a> {
    triples: &'a Graph,
    graph: &'a NamedNode,
}

impl GraphReader<'_> {
    fn values(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<Vec<Term>, RetrieveError> {
        Ok(self
            .triples
            .objects_for_subject_predicate(subject, property)
            .map(TermRef::into_owned)
            .collect())
    }

    fn optional(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<Option<Term>, RetrieveError> {
        Ok(self.values(subject, property)?.into_iter().next())
    }

    fn required(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<Term, RetrieveError> {
        self.optional(subject, property)?
            .ok_or_else(|| RetrieveError::Missing {
                graph: self.graph.as_str().to_owned(),
                node: subject.as_str().to_owned(),
                property: property.as_str().to_owned(),
            })
    }

    fn invalid(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
        message: impl Into<String>,
    ) -> RetrieveError {
        RetrieveError::Invalid {
            graph: self.graph.as_str().to_owned(),
            node: subject.as_str().to_owned(),
            property: property.as_str().to_owned(),
            message: message.into(),
        }
    }

    fn text(
        &self,
        term: Term,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<String, RetrieveError> {
        match term {
            Term::Literal(literal) => Ok(literal.value().to_owned()),
            other => Err(self.invalid(
                subject,
                property,
                format!("expected a literal, found {other}"),
            )),
        }
    }

    fn node(
        &self,
        term: Term,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<NamedNode, RetrieveError> {
        match term {
            Term::NamedNode(node) => Ok(node),
            other => {
                Err(self.invalid(subject, property, format!("expected an IRI, found {other}")))
            }
        }
    }

    fn string(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<String, RetrieveError> {
        let term = self.required(subject, property)?;
        self.text(term, subject, property)
    }

    fn optional_string(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<Option<String>, RetrieveError> {
        self.optional(subject, property)?
            .map(|term| self.text(term, subject, property))
            .transpose()
    }

    fn linked(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
    ) -> Result<NamedNode, RetrieveError> {
        let term = self.required(subject, property)?;
        self.node(term, subject, property)
    }

    /// The verbatim JSON of a node, as the type it was.
    fn raw<T: DeserializeOwned>(&self, node: &NamedNode) -> Result<T, RetrieveError> {
        let text = self.string(node, ihi::RAW_JSON)?;
        serde_json::from_str(&text)
            .map_err(|error| self.invalid(node, ihi::RAW_JSON, error.to_string()))
    }

    /// A number as written: the raw text when there is one, else the literal.
    fn number(
        &self,
        subject: &NamedNode,
        property: NamedNodeRef<'_>,
        raw: NamedNodeRef<'_>,
    ) -> Result<Number, RetrieveError> {
        let (text, from) = match self.optional_string(subject, raw)? {
            Some(text) => (text, raw),
            None => (self.string(subject, property)?, property),
        };
        text.parse()
            .map_err(|_| self.invalid(subject, from, format!("{text:?} is not a JSON number")))
    }
}

/// The PGM-IHI document of the session whose graph `graph` holds `triples`, rebuilt
/// from those triples alone.
pub fn rebuild_history(
    triples: &Graph,
    graph: &NamedNode,
    scheme: &IriScheme,
) -> Result<InteractionHistory, RetrieveError> {
    let reader = GraphReader { triples, graph };
    let conversation_term = triples
        .triples_for_predicate(ihi::SESSION_ID)
        .next()
        .map(|triple| triple.subject)
        .ok_or_else(|| RetrieveError::Missing {
            graph: graph.as_str().to_owned(),
            node: "the conversation".to_owned(),
            property: ihi::SESSION_ID.as_str().to_owned(),
        })?;
    let NamedOrBlankNodeRef::NamedNode(conversation) = conversation_term else {
        return Err(RetrieveError::Invalid {
            graph: graph.as_str().to_owned(),
            node: conversation_term.to_string(),
            property: ihi::SESSION_ID.as_str().to_owned(),
            message: "the conversation is a blank node".to_owned(),
        });
    };
    let conversation = conversation.into_owned();
    let session_id = reader.string(&conversation, ihi::SESSION_ID)?;
    let start = reader.linked(&conversation, ihi::SESSION_START_TIME)?;
    let metadata = reader.linked(&conversation, ihi::HAS_DATA_EXCHANGE_METADATA)?;

    let mut turns = Vec::new();
    for term in reader.values(&conversation, ch::HAS_TURN)? {
        let node = reader.node(term, &conversation, ch::HAS_TURN)?;
        let position = node
            .as_str()
            .strip_prefix(scheme.conversation(&session_id).as_str())
            .and_then(|rest| rest.strip_prefix("/turn/"))
            .and_then(|position| position.parse::<usize>().ok())
            .ok_or_else(|| {
                reader.invalid(
                    &conversation,
                    ch::HAS_TURN,
                    format!("{node} is not a turn IRI of this session"),
                )
            })?;
        turns.push((position, rebuild_turn(&reader, &node)?));
    }
    turns.sort_by_key(|(position, _)| *position);
    if turns
        .iter()
        .enumerate()
        .any(|(expected, (position, _))| expected != *position)
    {
        return Err(reader.invalid(
            &conversation,
            ch::HAS_TURN,
            "turn positions do not run 0..n-1",
        ));
    }

    Ok(InteractionHistory {
        header: reader.string(&conversation, ihi::HEADER)?,
        m_instance_id: reader.string(&conversation, ihi::M_INSTANCE_ID)?,
        u_environment_id: reader.string(&conversation, ihi::U_ENVIRONMENT_ID)?,
        session_id,
        session_start_time: reader.raw(&start)?,
        turn_count: reader.number(&conversation, ihi::TURN_COUNT, ihi::RAW_TURN_COUNT)?,
        turns: turns.into_iter().map(|(_, turn)| turn).collect(),
        data_exchange_metadata: reader.raw(&metadata)?,
        descriptive_metadata: reader.optional_string(&conversation, ihi::DESCRIPTIVE_METADATA)?,
    })
}

fn rebuild_turn(reader: &GraphReader<'_>, node: &NamedNode) -> Result<Turn, RetrieveError> {
    let role = reader.linked(node, ihi::ROLE_PROPERTY)?;
    let role = role_of_individual(role.as_ref()).ok_or_else(|| {
        reader.invalid(
            node,
            ihi::ROLE_PROPERTY,
            format!("{role} is not a PGM-IHI role"),
        )
    })?;
    let optional_raw = |property: NamedNodeRef<'_>| -> Result<_, RetrieveError> {
        reader
            .optional(node, property)?
            .map(|term| reader.raw(&reader.node(term, node, property)?))
            .transpose()
    };
    Ok(Turn {
        turn_index: reader.number(node, ch::TURN_INDEX, ihi::RAW_TURN_INDEX)?,
        timestamp: reader.raw(&reader.linked(node, ihi::TURN_TIMESTAMP)?)?,
        role,
        prompt: reader.raw(&reader.linked(node, ch::HAS_PROMPT)?)?,
        response: reader.raw(&reader.linked(node, ch::HAS_ANSWER)?)?,
        user_entity_state: optional_raw(ihi::HAS_USER_ENTITY_STATE)?,
        instruction: optional_raw(ihi::TRIGGERED_BY_INSTRUCTION)?,
    })
}
