//! ihigraph's own long answers from a server that caps them (Virtuoso's
//! `ResultSetMaxRows`): asked once, and when the answer is cut, asked again in pages of
//! fewer rows than the cap, in the [`PageOrder`] the caller gives. Every read of
//! ihigraph's own that may be long goes this way: a graph's triples, the graphs, the
//! sessions, the quads `select_quads` reads, the canned queries. Only a user's query
//! meets the cap, and is refused.

use super::Remote;
use super::answer::Rows;
use super::endpoint::Endpoint;
use super::error::RemoteError;
use crate::query::{keyed_page, ordered_page};
use crate::store::PageOrder;
use oxigraph::model::{Term, Variable};
use spargebra::Query;

/// Rows read per page at most, whatever the cap (an answer's size in memory stays
/// bounded by it).
const PAGE: u64 = 5_000;

impl Remote {
    /// The whole answer of one of ihigraph's own SELECT queries.
    pub(super) fn select_paged(
        &self,
        query: &Query,
        order: &PageOrder,
    ) -> Result<Rows, RemoteError> {
        let first = self.select(&query.to_string(), false)?;
        let Some(cap) = first.cut_at else {
            return Ok(first);
        };
        let mut whole = Rows {
            variables: first.variables,
            rows: Vec::new(),
            cut_at: None,
        };
        let mut pages = Pages {
            // Fewer rows than the cap: a full page cannot be taken for a cut one.
            page: usize::try_from(cap.saturating_sub(1).clamp(1, PAGE)).unwrap_or(1),
            max_sorted_rows: self.max_sorted_rows,
            url: &self.query,
            fetch: |page: &Query| self.select(&page.to_string(), false)?.whole(&self.query),
        };
        match order {
            PageOrder::ByKey(key) => pages.keyed(query, key, &mut whole)?,
            PageOrder::AsWritten => pages.ordered(query, &mut whole)?,
        }
        Ok(whole)
    }
}

/// The pages of one answer: how many rows each holds, how many rows the server sorts
/// for one (Virtuoso's `MaxSortedTopRows`: a page's `OFFSET` and `LIMIT` together),
/// and how a page is fetched (refused when the server cuts it all the same).
struct Pages<'a, F> {
    page: usize,
    max_sorted_rows: Option<u64>,
    url: &'a Endpoint,
    fetch: F,
}

impl<F: FnMut(&Query) -> Result<Rows, RemoteError>> Pages<'_, F> {
    /// The answer in pages by `OFFSET` under the query's own order, made total.
    fn ordered(&mut self, query: &Query, whole: &mut Rows) -> Result<(), RemoteError> {
        let mut offset = 0;
        while let Some(paged) = ordered_page(query, offset, self.page) {
            self.within_sorted_rows(offset.saturating_add(self.page))?;
            let rows = (self.fetch)(&paged)?;
            let read = rows.rows.len();
            whole.rows.extend(rows.rows);
            if read < self.page {
                break;
            }
            offset += read;
        }
        Ok(())
    }

    /// The answer in pages by the text of `key`, each from where the last one ended,
    /// skipping the rows of its last key read already.
    fn keyed(
        &mut self,
        query: &Query,
        key: &Variable,
        whole: &mut Rows,
    ) -> Result<(), RemoteError> {
        let Some(position) = whole.variables.iter().position(|v| v == key) else {
            return Err(self.bad_answer("an answer without its key column"));
        };
        let mut from: Option<String> = None;
        let mut skip = 0;
        loop {
            let Some(paged) = keyed_page(query, key, from.as_deref(), skip, self.page) else {
                // A query with a LIMIT of its own: paged under its order.
                return self.ordered(query, whole);
            };
            self.within_sorted_rows(skip.saturating_add(self.page))?;
            let rows = (self.fetch)(&paged)?;
            let mut keys = Vec::with_capacity(rows.rows.len());
            for row in &rows.rows {
                keys.push(match row.get(position) {
                    Some(Some(Term::NamedNode(node))) => node.as_str().to_owned(),
                    Some(Some(Term::Literal(literal))) => literal.value().to_owned(),
                    _ => return Err(self.bad_answer("a row whose key is not an IRI or a literal")),
                });
            }
            whole.rows.extend(rows.rows);
            let Some(last) = keys.last() else {
                return Ok(());
            };
            if from.as_ref().is_some_and(|from| keys[0] < *from) {
                // It did not filter as asked: paging on would never end.
                return Err(self.bad_answer("a page before the key it was asked to start at"));
            }
            let ending = keys.iter().rev().take_while(|key| *key == last).count();
            if ending == keys.len() && from.as_ref() == Some(last) {
                // One key fills the page, as it did the last: its next rows follow.
                skip += ending;
            } else {
                skip = ending;
                from = Some(last.clone());
            }
            if keys.len() < self.page {
                return Ok(());
            }
        }
    }

    /// Whether the server sorts the `top` rows a page needs.
    fn within_sorted_rows(&self, top: usize) -> Result<(), RemoteError> {
        match self.max_sorted_rows {
            Some(most) if top as u64 > most => Err(RemoteError::Truncated {
                url: self.url.clone(),
                reason: format!(
                    "ihigraph reads it in pages of {} rows under ORDER BY, and the server sorts at most {most} rows for one (MaxSortedTopRows {most}): raise MaxSortedTopRows, or ResultSetMaxRows for longer pages",
                    self.page
                ),
            }),
            _ => Ok(()),
        }
    }

    fn bad_answer(&self, reason: &str) -> RemoteError {
        RemoteError::BadAnswer {
            url: self.url.clone(),
            reason: reason.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOptions, check_document};
    use crate::generate::{GenerateOptions, generate};
    use crate::query::{Arguments, CANNED_QUERIES, CannedQuery};
    use crate::rdf::map_history;
    use crate::store::HistoryStore;
    use oxigraph::sparql::QueryResults;
    use spargebra::SparqlParser;
    use std::collections::HashMap;

    /// An embedded store of generated sessions, standing for a server's data.
    fn store() -> HistoryStore {
        let store = HistoryStore::in_memory(&Default::default()).expect("a store in memory");
        let options = GenerateOptions {
            sessions: 3,
            seed: 3,
            min_turns: 2,
            max_turns: 5,
        };
        let sessions = generate(options)
            .map(|document| {
                let checked = check_document(&document, CheckOptions::default());
                let history = checked.history.expect("generated sessions are valid");
                map_history(&history, store.scheme())
            })
            .collect();
        store.write_sessions(sessions).expect("written");
        store
    }

    /// The rows of a query, asked of the store once.
    fn rows(store: &HistoryStore, query: &Query) -> Rows {
        let Ok(QueryResults::Solutions(solutions)) = store.backend.query(query.clone(), false)
        else {
            panic!("{query} gives rows")
        };
        let variables = solutions.variables().to_vec();
        let rows = solutions
            .map(|solution| {
                let solution = solution.expect("evaluated");
                variables.iter().map(|v| solution.get(v).cloned()).collect()
            })
            .collect();
        Rows {
            variables,
            rows,
            cut_at: None,
        }
    }

    /// The answer read from the store in pages of `page` rows.
    fn paged(
        store: &HistoryStore,
        query: &Query,
        order: &PageOrder,
        page: usize,
        max_sorted_rows: Option<u64>,
    ) -> Result<Vec<Vec<Option<Term>>>, RemoteError> {
        let mut whole = rows(store, query);
        whole.rows.clear();
        let url = Endpoint::parse("http://test/sparql").unwrap();
        let mut pages = Pages {
            page,
            max_sorted_rows,
            url: &url,
            fetch: |query: &Query| {
                let rows = rows(store, query);
                assert!(
                    rows.rows.len() <= page,
                    "a page of {} rows",
                    rows.rows.len()
                );
                Ok(rows)
            },
        };
        match order {
            PageOrder::ByKey(key) => pages.keyed(query, key, &mut whole)?,
            PageOrder::AsWritten => pages.ordered(query, &mut whole)?,
        }
        Ok(whole.rows)
    }

    fn parse(text: &str) -> Query {
        SparqlParser::new().parse_query(text).expect("a query")
    }

    fn sorted(rows: Vec<Vec<Option<Term>>>) -> Vec<String> {
        let mut lines: Vec<String> = rows.into_iter().map(|row| format!("{row:?}")).collect();
        lines.sort();
        lines
    }

    #[test]
    fn keyed_pages_give_every_row_once_across_keys_that_fill_pages() {
        let store = store();
        // Keys are IRIs or literals: the ontologies' blank nodes are left out.
        let query = parse(
            "SELECT ?s ?p ?t ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER (!isBlank(?s) && !isBlank(?o)) BIND (STR(?o) AS ?t) }",
        );
        let whole = rows(&store, &query).rows;
        assert!(whole.len() > 300, "{}", whole.len());
        let by_subject = PageOrder::ByKey(Variable::new_unchecked("s"));
        for page in [5, 40] {
            let read = paged(&store, &query, &by_subject, page, None).expect("paged");
            assert_eq!(sorted(read), sorted(whole.clone()), "pages of {page}");
        }
        let graphs = parse("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }");
        let by_graph = PageOrder::ByKey(Variable::new_unchecked("g"));
        let read = paged(&store, &graphs, &by_graph, 2, None).expect("paged");
        assert_eq!(sorted(read), sorted(rows(&store, &graphs).rows));
    }

    // Blank nodes (the ontologies' only) are left out, and objects read as text: SPARQL
    // orders neither blank nodes nor literals of different types, Oxigraph ties them,
    // and ihigraph's own graphs hold no blank nodes.
    #[test]
    fn ordered_pages_keep_the_querys_order() {
        let store = store();
        for (text, page) in [
            // Ties in the query's own order, broken by the projected variables.
            (
                "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY DESC(?n)",
                2,
            ),
            (
                "SELECT DISTINCT ?p WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?p",
                7,
            ),
        ] {
            let query = parse(text);
            let total = ordered_page(&query, 0, usize::MAX).expect("a page");
            let whole = rows(&store, &total).rows;
            let read = paged(&store, &query, &PageOrder::AsWritten, page, None).expect("paged");
            assert_eq!(read, whole, "{text}");
            assert_eq!(sorted(read), sorted(rows(&store, &query).rows), "{text}");
        }
    }

    #[test]
    fn every_canned_query_paged_gives_its_whole_answer_in_its_order() {
        let store = store();
        for canned in CANNED_QUERIES {
            let query = canned
                .bind(&canned_arguments(canned), store.scheme())
                .expect("bound");
            let total = ordered_page(&query, 0, usize::MAX).expect("a page");
            let whole = rows(&store, &total).rows;
            let read = paged(&store, &query, &PageOrder::AsWritten, 9, None).expect("paged");
            assert_eq!(read, whole, "{}", canned.name);
            assert_eq!(
                sorted(read),
                sorted(rows(&store, &query).rows),
                "{}",
                canned.name
            );
        }
    }

    /// Arguments for a canned query's required parameters.
    fn canned_arguments(canned: &CannedQuery) -> Arguments {
        let mut arguments = Arguments::new();
        for parameter in canned.parameters.iter().filter(|p| p.required) {
            arguments = match parameter.name {
                "session" => arguments.text("session", "gen-3-000001"),
                name => arguments.text(name, "e"),
            };
        }
        arguments
    }

    #[test]
    fn paging_past_the_rows_a_server_sorts_is_refused_with_its_setting() {
        let store = store();
        let query = parse(
            "SELECT ?s ?t WHERE { GRAPH ?g { ?s ?p ?o } FILTER (!isBlank(?s) && !isBlank(?o)) BIND (STR(?o) AS ?t) } ORDER BY ?t",
        );
        let whole = rows(&store, &query).rows;
        let mut per_subject: HashMap<String, usize> = HashMap::new();
        for row in &whole {
            *per_subject.entry(format!("{:?}", row[0])).or_default() += 1;
        }
        let most = per_subject.values().max().copied().unwrap_or(0) + 5;
        assert!(whole.len() > 3 * most, "{} rows", whole.len());
        let refused = paged(&store, &query, &PageOrder::AsWritten, 5, Some(most as u64));
        let Err(RemoteError::Truncated { reason, .. }) = refused else {
            panic!("{refused:?}")
        };
        assert!(
            reason.contains(&format!("MaxSortedTopRows {most}")),
            "{reason}"
        );
        // Keyed pages skip only rows of one key: they go on to the end.
        let by_subject = PageOrder::ByKey(Variable::new_unchecked("s"));
        let read = paged(&store, &query, &by_subject, 5, Some(most as u64)).expect("paged");
        assert_eq!(sorted(read), sorted(whole));
    }
}
