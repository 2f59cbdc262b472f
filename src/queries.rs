//! Canned SPARQL queries, embedded from `queries/*.rq`.
//!
//! Each reads the session graphs with `GRAPH ?graph { ... }`, so it needs no union
//! default graph and runs unchanged on other SPARQL 1.1 servers. Parameters are bound
//! as RDF terms, never pasted into the query text.

/// A canned query: its name and SPARQL text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CannedQuery {
    /// The name, as in `queries/NAME.rq`.
    pub name: &'static str,
    /// The SPARQL text, header comment included.
    pub sparql: &'static str,
}

/// `recent-turns`: the newest turns of a session (`?session`), newest first.
pub const RECENT_TURNS: CannedQuery = CannedQuery {
    name: "recent-turns",
    sparql: include_str!("../queries/recent-turns.rq"),
};

/// `tool-usage`: the tool invocations of a session (`?session`), newest first.
pub const TOOL_USAGE: CannedQuery = CannedQuery {
    name: "tool-usage",
    sparql: include_str!("../queries/tool-usage.rq"),
};

/// Every canned query.
pub const CANNED_QUERIES: &[CannedQuery] = &[RECENT_TURNS, TOOL_USAGE];
