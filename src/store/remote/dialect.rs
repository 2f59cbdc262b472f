//! What the remote backend knows of particular servers, told apart by their `Server`
//! header. Everything else is plain SPARQL 1.1 Protocol, Update and Graph Store Protocol.

/// The kind of server behind an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// Oxigraph's server: each request is one transaction; the default graph is its own
    /// graph, and `union-default-graph` asks for the union of the named graphs.
    Oxigraph,
    /// Virtuoso: the default graph is the union of all graphs (its system graphs too);
    /// answers are cut at `ResultSetMaxRows`; updates are not atomic across operations;
    /// `INSERT DATA` needs `DEFINE sql:big-data-const 1` to keep decimals and to be fast;
    /// request bodies stop at 10 MB.
    Virtuoso {
        /// Its `ResultSetMaxRows`, when it could be read.
        max_rows: Option<u64>,
    },
    /// Any other SPARQL 1.1 server: no knowledge beyond the standards.
    Generic,
}

impl Dialect {
    /// The dialect of a server that calls itself `server` (its `Server` header).
    pub(super) fn of_server(server: &str) -> Self {
        if server.starts_with("Virtuoso") {
            Self::Virtuoso { max_rows: None }
        } else if server.starts_with("Oxigraph") {
            Self::Oxigraph
        } else {
            Self::Generic
        }
    }

    /// The server's name for people.
    pub fn name(self) -> &'static str {
        match self {
            Self::Oxigraph => "Oxigraph",
            Self::Virtuoso { .. } => "Virtuoso",
            Self::Generic => "a SPARQL 1.1 server",
        }
    }

    /// The form field that makes the default graph the union of the named graphs.
    pub(super) fn union_field(self) -> Option<(&'static str, &'static str)> {
        match self {
            Self::Oxigraph => Some(("union-default-graph", "")),
            _ => None,
        }
    }

    /// What ihigraph's own updates start with.
    pub(super) fn update_preamble(self) -> &'static str {
        match self {
            Self::Virtuoso { .. } => "DEFINE sql:big-data-const 1\n",
            _ => "",
        }
    }

    /// The most triples one `INSERT DATA` operation may hold.
    pub(super) fn triples_per_operation(self) -> usize {
        match self {
            Self::Virtuoso { .. } => 4_000,
            _ => usize::MAX,
        }
    }

    /// The largest request body ihigraph sends: Virtuoso refuses more than 10 MB.
    pub(super) fn max_body(self) -> usize {
        match self {
            Self::Virtuoso { .. } => 8 << 20,
            _ => 64 << 20,
        }
    }

    /// Whether it gives back exactly the quads ihigraph writes, once literals are read in
    /// canonical form (which the mapping writes them in): Oxigraph's server is the
    /// embedded store's engine; Virtuoso keeps terms as given (the remote tests compare
    /// every session's fingerprint with the embedded store's). A session's fingerprint
    /// is then taken over what was written, and `verify` finds any difference the server
    /// makes; on another server it is taken over what the server gives back.
    pub(super) fn verbatim(self) -> bool {
        matches!(self, Self::Oxigraph | Self::Virtuoso { .. })
    }

    /// Whether one update request is applied whole or not at all.
    pub fn atomic_requests(self) -> bool {
        matches!(self, Self::Oxigraph)
    }

    /// The row cap the server is known to apply.
    pub(super) fn max_rows(self) -> Option<u64> {
        match self {
            Self::Virtuoso { max_rows } => max_rows,
            _ => None,
        }
    }

    /// A query whose one row is the server's row cap and the most rows it sorts for an
    /// answer's `LIMIT` and `OFFSET`, where they can be asked.
    pub(super) fn row_limits_query(self) -> Option<&'static str> {
        match self {
            Self::Virtuoso { .. } => Some(
                "SELECT (bif:cfg_item_value(bif:virtuoso_ini_path(), 'SPARQL', 'ResultSetMaxRows') AS ?n) \
                 (bif:cfg_item_value(bif:virtuoso_ini_path(), 'Parameters', 'MaxSortedTopRows') AS ?sorted) {}",
            ),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_told_apart_by_their_header() {
        assert_eq!(Dialect::of_server("Oxigraph/0.5.13"), Dialect::Oxigraph);
        assert_eq!(
            Dialect::of_server("Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu"),
            Dialect::Virtuoso { max_rows: None }
        );
        assert_eq!(Dialect::of_server("Apache Jena Fuseki"), Dialect::Generic);
        assert_eq!(Dialect::of_server(""), Dialect::Generic);
    }
}
