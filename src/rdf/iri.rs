//! The IRI scheme: how every node ihigraph writes is named.
//!
//! IRIs are deterministic (the same document always gives the same quads) and built
//! under a configurable base, with identifiers percent-encoded so that any `SessionID`
//! or tool name gives a valid IRI. There are no blank nodes.

use oxrdf::NamedNode;
use std::fmt::Write as _;

/// The default base of every node IRI.
pub const DEFAULT_BASE: &str = "https://w3id.org/ihigraph/id/";

/// The default work-session IRI template, as in Jido's long-term memory.
pub const DEFAULT_SESSION_TEMPLATE: &str = "https://jido.ai/ontology#session_{SessionID}";

/// The path segment below the base that names the derived graphs.
const DERIVED: &str = "derived";

/// The placeholder of a session IRI template.
pub const SESSION_PLACEHOLDER: &str = "{SessionID}";

/// A base or template that cannot name nodes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IriSchemeError {
    /// The base is not an absolute IRI ending in `/` or `#`.
    #[error("IRI base {base:?} must be an absolute IRI ending in '/' or '#'")]
    Base {
        /// The base given.
        base: String,
    },
    /// The template lacks the placeholder or does not give an absolute IRI.
    #[error(
        "session IRI template {template:?} must contain {SESSION_PLACEHOLDER} and give an absolute IRI"
    )]
    Template {
        /// The template given.
        template: String,
    },
}

/// How node IRIs are built: a base for ihigraph's own nodes and a template for the
/// `jido:WorkSession` of each session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IriScheme {
    base: String,
    session_template: String,
}

impl Default for IriScheme {
    fn default() -> Self {
        Self {
            base: DEFAULT_BASE.to_owned(),
            session_template: DEFAULT_SESSION_TEMPLATE.to_owned(),
        }
    }
}

impl IriScheme {
    /// A scheme with the given base and work-session template, both checked.
    ///
    /// ```
    /// use ihigraph::rdf::IriScheme;
    /// let scheme = IriScheme::new("https://example.org/h/", "https://example.org/ws/{SessionID}")?;
    /// assert_eq!(scheme.conversation("a b").as_str(), "https://example.org/h/conversation/a%20b");
    /// assert_eq!(scheme.work_session("a b").as_str(), "https://example.org/ws/a%20b");
    /// # Ok::<_, ihigraph::rdf::IriSchemeError>(())
    /// ```
    pub fn new(base: &str, session_template: &str) -> Result<Self, IriSchemeError> {
        if !(base.ends_with('/') || base.ends_with('#')) || NamedNode::new(base).is_err() {
            return Err(IriSchemeError::Base {
                base: base.to_owned(),
            });
        }
        let probe = session_template.replace(SESSION_PLACEHOLDER, "probe");
        if !session_template.contains(SESSION_PLACEHOLDER) || NamedNode::new(probe).is_err() {
            return Err(IriSchemeError::Template {
                template: session_template.to_owned(),
            });
        }
        Ok(Self {
            base: base.to_owned(),
            session_template: session_template.to_owned(),
        })
    }

    /// The IRI base.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The work-session IRI template.
    pub fn session_template(&self) -> &str {
        &self.session_template
    }

    /// The named graph that holds everything about a session.
    pub fn session_graph(&self, session_id: &str) -> NamedNode {
        self.node(&["graph", &encode_segment(session_id)])
    }

    /// The `ch:Conversation` of a session.
    pub fn conversation(&self, session_id: &str) -> NamedNode {
        self.node(&["conversation", &encode_segment(session_id)])
    }

    /// The `jido:WorkSession` of a session, from the template.
    pub fn work_session(&self, session_id: &str) -> NamedNode {
        NamedNode::new_unchecked(
            self.session_template
                .replace(SESSION_PLACEHOLDER, &encode_segment(session_id)),
        )
    }

    /// The named graph of the memory items made from turns (`remember`): one for the
    /// store, outside every session graph, since an item may come from several sessions.
    pub fn memory_graph(&self) -> NamedNode {
        self.node(&["memory"])
    }

    /// The named graph of the sessions' fingerprint records: the store's bookkeeping,
    /// outside every session graph and so outside every fingerprint.
    pub fn fingerprints_graph(&self) -> NamedNode {
        self.node(&["fingerprints"])
    }

    /// The named graph of what ihigraph derives from a session (the digest of its newest
    /// turns): beside the session's graph, never in it, so that the session's graph holds
    /// the session and nothing else. Its name is the session graph's with `derived/` in
    /// place of `graph/`, a namespace no session graph is named in.
    ///
    /// ```
    /// let scheme = ihigraph::rdf::IriScheme::default();
    /// assert_eq!(scheme.derived_graph("a b").as_str(), "https://w3id.org/ihigraph/id/derived/a%20b");
    /// assert_eq!(scheme.derived_graph_of(&scheme.session_graph("a b")), Some(scheme.derived_graph("a b")));
    /// ```
    pub fn derived_graph(&self, session_id: &str) -> NamedNode {
        self.node(&[DERIVED, &encode_segment(session_id)])
    }

    /// The derived graph of a graph this scheme names a session graph; `None` for any
    /// other graph.
    pub fn derived_graph_of(&self, graph: &NamedNode) -> Option<NamedNode> {
        let segment = graph
            .as_str()
            .strip_prefix(self.base.as_str())?
            .strip_prefix("graph/")?;
        // An encoded id is one segment: a longer path is not a session graph of the scheme.
        (!segment.contains(['/', '#', '?'])).then(|| self.node(&[DERIVED, segment]))
    }

    /// Whether a graph is a derived graph of this scheme (see
    /// [`derived_graph`](Self::derived_graph)).
    pub fn is_derived_graph(&self, graph: &str) -> bool {
        graph.starts_with(&self.derived_prefix())
    }

    /// The IRI every derived graph's name begins with.
    pub fn derived_prefix(&self) -> String {
        format!("{}{DERIVED}/", self.base)
    }

    /// A memory item, by its id.
    pub fn memory_item(&self, id: &str) -> NamedNode {
        self.node(&["memory", &encode_segment(id)])
    }

    /// A tool, shared by every call of it in every session.
    pub fn tool(&self, tool_name: &str) -> NamedNode {
        self.node(&["tool", &encode_segment(tool_name)])
    }

    /// A node below another ihigraph node: `parent/segment/...`, segments used as given
    /// (callers pass fixed words and numbers, never input).
    pub fn child(parent: &NamedNode, segments: &[&str]) -> NamedNode {
        let mut iri = parent.as_str().to_owned();
        for segment in segments {
            iri.push('/');
            iri.push_str(segment);
        }
        NamedNode::new_unchecked(iri)
    }

    fn node(&self, segments: &[&str]) -> NamedNode {
        let mut iri = self.base.clone();
        iri.push_str(&segments.join("/"));
        NamedNode::new_unchecked(iri)
    }
}

/// Percent-encodes an identifier as one IRI path segment: every byte except RFC 3986
/// unreserved characters is encoded, and the dot segments `.` and `..` (which IRI
/// resolution would collapse) are encoded too. Distinct identifiers give distinct
/// segments.
///
/// ```
/// assert_eq!(ihigraph::rdf::encode_segment("sess/1 #é"), "sess%2F1%20%23%C3%A9");
/// assert_eq!(ihigraph::rdf::encode_segment(".."), "%2E%2E");
/// ```
pub fn encode_segment(identifier: &str) -> String {
    if identifier == "." || identifier == ".." {
        return identifier.replace('.', "%2E");
    }
    let mut encoded = String::with_capacity(identifier.len());
    for byte in identifier.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            write!(encoded, "%{byte:02X}").expect("writing to a String cannot fail");
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    #[test_case("abc"; "plain")]
    #[test_case("a\"b>c}d\ne#f"; "syntax characters")]
    #[test_case(""; "empty")]
    #[test_case("."; "dot")]
    #[test_case("セッション 1"; "unicode")]
    #[test_case("%41"; "percent sign")]
    fn any_identifier_gives_a_valid_iri(id: &str) {
        let scheme = IriScheme::default();
        for iri in [
            scheme.session_graph(id),
            scheme.conversation(id),
            scheme.work_session(id),
            scheme.tool(id),
            scheme.derived_graph(id),
        ] {
            assert!(NamedNode::new(iri.as_str()).is_ok(), "{iri}");
        }
        // Every session graph has its derived graph, which no session graph is.
        let derived = scheme.derived_graph(id);
        assert_eq!(
            scheme.derived_graph_of(&scheme.session_graph(id)),
            Some(derived.clone())
        );
        assert!(scheme.is_derived_graph(derived.as_str()));
        assert!(!scheme.is_derived_graph(scheme.session_graph(id).as_str()));
        assert_eq!(scheme.derived_graph_of(&derived), None);
    }

    #[test]
    fn graphs_not_named_by_the_scheme_have_no_derived_graph() {
        let scheme = IriScheme::default();
        for graph in [
            "urn:elsewhere",
            "https://w3id.org/ihigraph/id/graph/a/b",
            "https://w3id.org/ihigraph/id/memory",
            "https://example.org/graph/abc",
        ] {
            assert_eq!(
                scheme.derived_graph_of(&NamedNode::new_unchecked(graph)),
                None,
                "{graph}"
            );
        }
    }

    #[test]
    fn distinct_identifiers_give_distinct_iris() {
        let scheme = IriScheme::default();
        assert_ne!(scheme.conversation("%41"), scheme.conversation("A"));
        assert_ne!(scheme.conversation("a/b"), scheme.conversation("a%2Fb"));
    }

    #[test]
    fn default_work_session_matches_jido() {
        assert_eq!(
            IriScheme::default().work_session("abc").as_str(),
            "https://jido.ai/ontology#session_abc"
        );
    }

    #[test_case("relative/"; "relative")]
    #[test_case("https://example.org/x"; "no trailing separator")]
    #[test_case("https://exa mple.org/"; "space")]
    fn bad_bases_are_refused(base: &str) {
        assert!(matches!(
            IriScheme::new(base, DEFAULT_SESSION_TEMPLATE),
            Err(IriSchemeError::Base { .. })
        ));
    }

    #[test_case("https://example.org/session"; "no placeholder")]
    #[test_case("session_{SessionID}"; "relative")]
    fn bad_templates_are_refused(template: &str) {
        assert!(matches!(
            IriScheme::new(DEFAULT_BASE, template),
            Err(IriSchemeError::Template { .. })
        ));
    }
}
