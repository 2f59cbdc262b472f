//! The ontologies, embedded so that the binary prints them and tests check against them.

/// `ontology/conversation-history.ttl`: the `ch:` ontology of the jidoka design.
pub const CONVERSATION_HISTORY_TTL: &str = include_str!("../ontology/conversation-history.ttl");

/// `ontology/ihigraph.ttl`: the `ihi:` extension, aligned with PROV-O and Jido core.
pub const IHIGRAPH_TTL: &str = include_str!("../ontology/ihigraph.ttl");
