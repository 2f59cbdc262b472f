//! From a document read to the quads of its session: parse errors, schema and semantic
//! checks, and mapping, with every diagnostic kept in document order.

use crate::check::{CheckOptions, Diagnostic, Place, Rule, Severity, check_document};
use crate::model::InteractionHistory;
use crate::rdf::{IriScheme, SessionGraph, map_history};
use crate::read::{Origin, ReadError};
use serde_json::Value;

/// A document prepared for the store: its session graph when it is accepted, and what
/// there is to say about it.
#[derive(Debug)]
pub struct PreparedDocument {
    /// Where the document comes from.
    pub origin: Origin,
    /// The session graph, when the document has no errors.
    pub session: Option<SessionGraph>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl PreparedDocument {
    /// Whether the document is refused.
    pub fn is_refused(&self) -> bool {
        self.session.is_none()
    }
}

/// Checks and maps one document read from the inputs.
pub fn prepare_document(
    origin: Origin,
    value: Result<Value, ReadError>,
    options: CheckOptions,
    scheme: &IriScheme,
) -> PreparedDocument {
    let value = match value {
        Ok(value) => value,
        Err(error) => {
            return PreparedDocument {
                origin,
                session: None,
                diagnostics: vec![Diagnostic::from(&error)],
            };
        }
    };
    let checked = check_document(&value, options);
    let mut diagnostics: Vec<Diagnostic> = checked.problems.iter().map(Diagnostic::from).collect();
    let session = checked
        .history
        .map(|history| map_checked(&history, scheme, &mut diagnostics));
    PreparedDocument {
        origin,
        session,
        diagnostics,
    }
}

/// Maps a history that passed its checks already (an importer checked it).
pub fn prepare_history(
    origin: Origin,
    history: &InteractionHistory,
    scheme: &IriScheme,
) -> PreparedDocument {
    let mut diagnostics = Vec::new();
    let session = Some(map_checked(history, scheme, &mut diagnostics));
    PreparedDocument {
        origin,
        session,
        diagnostics,
    }
}

/// The session graph of a checked history, its mapping warnings added to `diagnostics`
/// (its fingerprint is left to the writer, or to the ingest pipeline's preparing
/// thread: `validate` has no use for it).
fn map_checked(
    history: &InteractionHistory,
    scheme: &IriScheme,
    diagnostics: &mut Vec<Diagnostic>,
) -> SessionGraph {
    let session = map_history(history, scheme);
    diagnostics.extend(session.warnings.iter().map(|warning| Diagnostic {
        severity: Severity::Warning,
        place: Place::Pointer(warning.pointer.clone()),
        rule: Rule::Mapping,
        message: warning.message.clone(),
    }));
    session
}

/// Why the triples given as a session's whole graph cannot be written as that session.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphRefused {
    /// The triples are not a session graph ihigraph can read back.
    #[error("the triples are not a session graph")]
    NotASession(#[source] crate::rdf::RetrieveError),
    /// The session the triples describe has another graph.
    #[error("the triples describe session {session_id:?}, whose graph is {expected}, not {given}")]
    OtherGraph {
        /// The session described.
        session_id: String,
        /// Its graph, by the IRI scheme.
        expected: String,
        /// The graph they were given for.
        given: String,
    },
    /// The session rebuilt from the triples maps to other triples: writing it would
    /// lose or add some.
    #[error(
        "{left_out} of the triples given are not what the session they describe maps to (such as {example}), and {added} would be added: only a graph ihigraph writes for a session is taken whole"
    )]
    NotLossless {
        /// Given triples the session's mapping does not hold.
        left_out: usize,
        /// The mapping's triples not given.
        added: usize,
        /// One triple left out (or added), in N-Triples.
        example: String,
    },
    /// The rebuilt history could not be taken to JSON to be checked.
    #[error("the rebuilt session could not be written as JSON")]
    Json(#[source] serde_json::Error),
}

/// Checks and maps the session whose whole graph `graph` is `triples`, as given to the
/// Graph Store Protocol: the history is rebuilt from the triples alone
/// ([`rebuild_history`](crate::rdf::rebuild_history)), checked as any document, and
/// mapped again; it is taken only when its mapping is exactly the triples given, so that
/// what is written is what was sent and holds a session. A refused document comes back
/// with its diagnostics, as [`prepare_document`] gives them.
pub fn prepare_graph(
    triples: &oxigraph::model::Graph,
    graph: &oxigraph::model::NamedNode,
    options: CheckOptions,
    scheme: &IriScheme,
) -> Result<PreparedDocument, GraphRefused> {
    let history =
        crate::rdf::rebuild_history(triples, graph, scheme).map_err(GraphRefused::NotASession)?;
    let value = serde_json::to_value(&history).map_err(GraphRefused::Json)?;
    let origin = Origin {
        name: graph.as_str().to_owned(),
        line: None,
    };
    let prepared = prepare_document(origin, Ok(value), options, scheme);
    let Some(session) = &prepared.session else {
        return Ok(prepared);
    };
    if session.graph != *graph {
        return Err(GraphRefused::OtherGraph {
            session_id: session.session_id.clone(),
            expected: session.graph.as_str().to_owned(),
            given: graph.as_str().to_owned(),
        });
    }
    let mapped: std::collections::HashSet<oxigraph::model::TripleRef<'_>> = session
        .quads
        .iter()
        .map(|quad| oxigraph::model::TripleRef::from(quad.as_ref()))
        .collect();
    let left_out: Vec<_> = triples
        .iter()
        .filter(|triple| !mapped.contains(triple))
        .collect();
    let added = mapped
        .iter()
        .filter(|triple| !triples.contains(**triple))
        .count();
    if left_out.is_empty() && added == 0 {
        return Ok(prepared);
    }
    let example = left_out.first().map_or_else(
        || {
            mapped
                .iter()
                .find(|triple| !triples.contains(**triple))
                .map_or_else(String::new, |triple| format!("{triple} ."))
        },
        |triple| format!("{triple} ."),
    );
    Err(GraphRefused::NotLossless {
        left_out: left_out.len(),
        added,
        example,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{Graph, NamedNode, Triple};

    fn session_triples(scheme: &IriScheme) -> (NamedNode, Graph, String) {
        let document = crate::generate::generate(crate::generate::GenerateOptions {
            sessions: 1,
            seed: 3,
            min_turns: 2,
            max_turns: 4,
        })
        .next()
        .expect("one document");
        let prepared = prepare_document(
            Origin {
                name: "test".to_owned(),
                line: None,
            },
            Ok(document),
            CheckOptions::default(),
            scheme,
        );
        let session = prepared.session.expect("a generated document is accepted");
        let graph: Graph = session
            .quads
            .iter()
            .map(|quad| Triple::from(quad.clone()))
            .collect();
        (session.graph, graph, session.session_id)
    }

    #[test]
    fn a_session_graph_given_whole_is_taken_only_as_ihigraph_writes_it() {
        let scheme = IriScheme::default();
        let (name, triples, id) = session_triples(&scheme);
        let prepared =
            prepare_graph(&triples, &name, CheckOptions::default(), &scheme).expect("taken");
        assert_eq!(prepared.session.expect("accepted").session_id, id);

        let mut more = triples.clone();
        more.insert(&Triple::new(
            NamedNode::new_unchecked("http://example.org/s"),
            NamedNode::new_unchecked("http://example.org/p"),
            NamedNode::new_unchecked("http://example.org/o"),
        ));
        let refused = prepare_graph(&more, &name, CheckOptions::default(), &scheme).unwrap_err();
        assert!(
            matches!(refused, GraphRefused::NotLossless { left_out: 1, added: 0, ref example } if example.contains("example.org/s")),
            "{refused}"
        );
        let elsewhere = scheme.session_graph("another");
        assert!(matches!(
            prepare_graph(&triples, &elsewhere, CheckOptions::default(), &scheme),
            Err(GraphRefused::OtherGraph { .. })
        ));
        assert!(matches!(
            prepare_graph(&Graph::new(), &name, CheckOptions::default(), &scheme),
            Err(GraphRefused::NotASession(_))
        ));
    }
}
