//! A search: its text (words, all required; `"a phrase"`; `prefix*`; `OR`; `-word` to
//! leave out), read by tantivy's query parser over every language's field, so that each
//! field meets the words analyzed its own way; the filters (session, role, kind, time);
//! the hits with the snippet of their text that shows why they matched.

use super::analysis::{TextLanguage, analyzed, word_pairs};
use super::documents::{SearchKind, epoch_millis};
use super::{MARKER_KIND, SearchIndex, language_slot, whole_value};
use crate::store::StoreError;
use std::ops::Bound;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery};
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{Searcher, TantivyDocument, Term};

/// A clause of a boolean query.
type Clause = (Occur, Box<dyn Query>);

/// The most hits one search gives.
pub(super) const MAX_HITS: usize = 1000;

/// How long a snippet is at most, in characters.
const SNIPPET_CHARS: usize = 160;

/// A search of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The words to find (see the module's text for the syntax).
    pub query: String,
    /// Only this session's texts.
    pub session: Option<String>,
    /// Only turns of this role (`H-User`, `A-User`, `BKN`).
    pub role: Option<String>,
    /// Only texts at or after this `xsd:dateTime`.
    pub since: Option<String>,
    /// Only texts before this `xsd:dateTime`.
    pub until: Option<String>,
    /// Only these kinds (all, when empty).
    pub kinds: Vec<SearchKind>,
    /// The most hits to give (at most 1,000).
    pub limit: usize,
}

impl SearchRequest {
    /// A search for `query`, without filters, for the ten best hits.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            session: None,
            role: None,
            since: None,
            until: None,
            kinds: Vec::new(),
            limit: 10,
        }
    }
}

/// Part of a hit's text, with the ranges (byte offsets into `fragment`) of the words that
/// matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The text around the best match.
    pub fragment: String,
    /// The matched words, as byte ranges of `fragment`.
    pub highlights: Vec<(usize, usize)>,
}

impl Snippet {
    /// The fragment with each matched word between `open` and `close`.
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.fragment.len() + 8);
        let mut at = 0;
        for &(from, to) in &self.highlights {
            if from < at || to > self.fragment.len() {
                continue;
            }
            out.push_str(&self.fragment[at..from]);
            out.push_str(open);
            out.push_str(&self.fragment[from..to]);
            out.push_str(close);
            at = to;
        }
        out.push_str(&self.fragment[at..]);
        out
    }
}

/// One text that matched, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// BM25 score.
    pub score: f32,
    /// The session's `SessionID` (empty for a memory item).
    pub session_id: String,
    /// The memory item's IRI (none for a session's text).
    pub item: Option<String>,
    /// The turn's IRI: joins the hit with the graph.
    pub turn: Option<String>,
    /// The turn's `TurnIndex`.
    pub turn_index: Option<u64>,
    /// The turn's role.
    pub role: Option<String>,
    /// The turn's time (a memory item's creation).
    pub time: Option<String>,
    /// What matched.
    pub kind: SearchKind,
    /// The language the text was analyzed in (`en`, `fr`, `de`, `es`, `cjk`, `other`).
    pub language: String,
    /// Where it matched.
    pub snippet: Snippet,
}

impl SearchIndex {
    /// The texts that match `request`, best first.
    pub fn search(&self, request: &SearchRequest) -> Result<Vec<SearchHit>, StoreError> {
        let query = self.build_query(request)?;
        let searcher = self.reader.searcher();
        let limit = request.limit.clamp(1, MAX_HITS);
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(|error| self.failed(error))?;
        let mut snippets: Vec<Option<SnippetGenerator>> =
            TextLanguage::ALL.iter().map(|_| None).collect();
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let document: TantivyDocument =
                searcher.doc(address).map_err(|error| self.failed(error))?;
            hits.push(self.hit(&searcher, &*query, &mut snippets, score, &document)?);
        }
        Ok(hits)
    }

    fn hit(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        snippets: &mut [Option<SnippetGenerator>],
        score: f32,
        document: &TantivyDocument,
    ) -> Result<SearchHit, StoreError> {
        let fields = &self.fields;
        let text = |field| {
            document
                .get_first(field)
                .and_then(|value| value.as_str())
                .map(str::to_owned)
        };
        let language = text(fields.language).unwrap_or_default();
        let slot = TextLanguage::ALL
            .iter()
            .find(|known| known.code() == language)
            .map_or(TextLanguage::ALL.len() - 1, |known| language_slot(*known));
        let generator = match &mut snippets[slot] {
            Some(generator) => generator,
            empty => {
                let mut generator =
                    SnippetGenerator::create(searcher, query, fields.by_language[slot])
                        .map_err(|error| self.failed(error))?;
                generator.set_max_num_chars(SNIPPET_CHARS);
                empty.insert(generator)
            }
        };
        let body = text(fields.text).unwrap_or_default();
        let snippet = generator.snippet(&body);
        let snippet = if snippet.is_empty() {
            // A prefix or a pair of CJK characters the generator does not show: the
            // text's beginning, so a hit always shows something.
            Snippet {
                fragment: body.chars().take(SNIPPET_CHARS).collect(),
                highlights: Vec::new(),
            }
        } else {
            Snippet {
                fragment: snippet.fragment().to_owned(),
                highlights: snippet
                    .highlighted()
                    .iter()
                    .map(|range| (range.start, range.end))
                    .collect(),
            }
        };
        Ok(SearchHit {
            score,
            session_id: text(fields.session).unwrap_or_default(),
            item: text(fields.item),
            turn: text(fields.turn),
            turn_index: document
                .get_first(fields.turn_index)
                .and_then(|value| value.as_u64()),
            role: text(fields.role),
            time: text(fields.time),
            kind: text(fields.kind)
                .and_then(|kind| kind.parse().ok())
                .unwrap_or(SearchKind::Prompt),
            language,
            snippet,
        })
    }

    /// The query of a request: its words over every language's field, and its filters.
    fn build_query(&self, request: &SearchRequest) -> Result<Box<dyn Query>, StoreError> {
        let invalid = |message: String| StoreError::SearchQuery {
            query: request.query.clone(),
            message,
        };
        if request.query.trim().is_empty() {
            return Err(invalid("nothing to search for".to_owned()));
        }
        let languages = self.words_by_language(&request.query, &invalid)?;
        let unfiltered = request.session.is_none()
            && request.role.is_none()
            && request.kinds.is_empty()
            && request.since.is_none()
            && request.until.is_none();
        if unfiltered && only_text(&request.query) {
            // The languages' union alone: tantivy skips, block by block, the texts that
            // cannot reach the best hits (block-max WAND) only for a union of terms at the
            // top of the query. The markers need no excluding: they have no text.
            return Ok(Box::new(BooleanQuery::new(languages)));
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(languages)))];
        // Filters score nothing: the rank is the words' alone, whatever narrows it.
        let term = |field, value: &str| -> Box<dyn Query> {
            Box::new(ConstScoreQuery::new(whole_value(field, value), 0.0))
        };
        if let Some(session) = &request.session {
            clauses.push((Occur::Must, term(self.fields.session, session)));
        }
        if let Some(role) = &request.role {
            clauses.push((Occur::Must, term(self.fields.role, role)));
        }
        if !request.kinds.is_empty() {
            let kinds = request
                .kinds
                .iter()
                .map(|kind| (Occur::Should, term(self.fields.kind, kind.name())))
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(kinds))));
        }
        clauses.push((Occur::MustNot, term(self.fields.kind, MARKER_KIND)));
        if request.since.is_some() || request.until.is_some() {
            let bound = |time: &Option<String>, name: &str| -> Result<Option<i64>, StoreError> {
                time.as_deref()
                    .map(|time| {
                        epoch_millis(time).ok_or_else(|| {
                            invalid(format!(
                                "{name} {time:?} is not a date and time (xsd:dateTime, as 2026-01-31T09:00:00Z)"
                            ))
                        })
                    })
                    .transpose()
            };
            let since = bound(&request.since, "since")?;
            let until = bound(&request.until, "until")?;
            let millis = |value: i64| Term::from_field_i64(self.fields.millis, value);
            let range = RangeQuery::new(
                since.map_or(Bound::Unbounded, |at| Bound::Included(millis(at))),
                until.map_or(Bound::Unbounded, |at| Bound::Excluded(millis(at))),
            );
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(range), 0.0)),
            ));
        }
        Ok(Box::new(BooleanQuery::new(clauses)))
    }
}

impl SearchIndex {
    /// The search's words over each language's field, read alone (a text is in one
    /// field), so that a phrase's pairs lead its positions in the same field: one
    /// `Should` clause a language.
    fn words_by_language(
        &self,
        query: &str,
        invalid: &dyn Fn(String) -> StoreError,
    ) -> Result<Vec<Clause>, StoreError> {
        let mut pairs = self.phrase_pairs(query);
        let mut languages: Vec<Clause> = Vec::new();
        for language in TextLanguage::ALL {
            let slot = language_slot(language);
            let mut parser =
                QueryParser::for_index(&self.index, vec![self.fields.by_language[slot]]);
            parser.set_conjunction_by_default();
            parser.allow_regexes();
            let text = prefixes_as_regexes(query, &[language.code()]);
            let words = parser
                .parse_query(&text)
                .map_err(|error| invalid(error.to_string()))?;
            let words = match pairs.as_mut().and_then(|pairs| pairs[slot].take()) {
                Some(pairs) => Box::new(BooleanQuery::new(vec![
                    (Occur::Must, words),
                    (Occur::Must, pairs),
                ])),
                None => words,
            };
            languages.push((Occur::Should, words));
        }
        Ok(languages)
    }

    /// What the search's phrases ask of each language's
    /// [`WordPairs`](super::analysis::WordPairs) field, in the order of
    /// [`TextLanguage::ALL`]: every pair of neighbouring words of each phrase, scoring
    /// nothing. The texts that have them are few, and only theirs are then read for the
    /// positions of the phrase's words. None where that would not be implied by the
    /// search itself: a search with `OR`, `NOT`, brackets or a field of its own, a phrase
    /// left out (`-"..."`), one with a prefix, one of a single word.
    fn phrase_pairs(&self, query: &str) -> Option<Vec<Option<Box<dyn Query>>>> {
        let operators = ['(', ')', '[', ']', '{', '}', '^', '~', ':', '\\'];
        if query.contains(operators)
            || query
                .split_whitespace()
                .any(|word| matches!(word, "OR" | "NOT" | "IN" | "||"))
        {
            return None;
        }
        let phrases = required_phrases(query);
        let mut by_language = Vec::with_capacity(TextLanguage::ALL.len());
        for language in TextLanguage::ALL {
            let field = self.fields.pairs_by_language[language_slot(language)];
            let mut analyzer = self.analyzers[language_slot(language)].clone();
            let mut terms: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            for phrase in &phrases {
                let pairs = word_pairs(&analyzed(&mut analyzer, phrase));
                if pairs.is_empty() {
                    return None;
                }
                for pair in pairs {
                    terms.push((Occur::Must, whole_value(field, &pair.text)));
                }
            }
            if terms.is_empty() {
                return None;
            }
            let pairs: Box<dyn Query> = Box::new(ConstScoreQuery::new(
                Box::new(BooleanQuery::new(terms)),
                0.0,
            ));
            by_language.push(Some(pairs));
        }
        Some(by_language)
    }
}

/// Whether every hit of `query` must hold some of its words in a language's field: no
/// word left out (`-`, `NOT`, which tantivy's parser reads against every document when
/// nothing else is asked), no field of its own (`kind:...`), no operator but `OR` and
/// quotes.
fn only_text(query: &str) -> bool {
    let operators = [
        '-', '+', ':', '*', '(', ')', '[', ']', '{', '}', '^', '~', '\\', '!', '/',
    ];
    !query.contains(operators)
        && !query
            .split_whitespace()
            .any(|word| matches!(word, "NOT" | "IN" | "&&" | "||"))
}

/// The quoted phrases of a search that every hit must contain (not after `-`), without
/// a prefix (`*`).
fn required_phrases(query: &str) -> Vec<&str> {
    let mut phrases = Vec::new();
    let mut rest = query;
    while let Some(open) = rest.find('"') {
        let left_out = rest[..open].ends_with('-');
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else {
            break;
        };
        let phrase = &after[..close];
        if !left_out && !phrase.contains('*') {
            phrases.push(phrase);
        }
        rest = &after[close + 1..];
    }
    phrases
}

/// The search text with each bare `word*` (outside quotes) made a regular expression of
/// the word's lower-case letters over every language's field: tantivy's parser reads a
/// prefix only at the end of a phrase, and a regular expression only on a named field.
fn prefixes_as_regexes(query: &str, languages: &[&str]) -> String {
    let mut out = String::with_capacity(query.len());
    let mut in_quotes = false;
    for (index, piece) in query.split(' ').enumerate() {
        if index > 0 {
            out.push(' ');
        }
        let quotes = piece.matches('"').count();
        let (sign, word) = match piece.strip_prefix(['-', '+']) {
            Some(rest) => (&piece[..1], rest),
            None => ("", piece),
        };
        let stem = word.strip_suffix('*').unwrap_or("");
        let bare = !in_quotes
            && quotes == 0
            && !stem.is_empty()
            && stem.chars().all(|c| c.is_alphanumeric() || c == '_');
        if bare {
            let lower = stem.to_lowercase();
            let alternatives: Vec<String> = languages
                .iter()
                .map(|code| format!("text_{code}:/{lower}.*/"))
                .collect();
            out.push_str(sign);
            out.push('(');
            out.push_str(&alternatives.join(" OR "));
            out.push(')');
        } else {
            out.push_str(piece);
        }
        if quotes % 2 == 1 {
            in_quotes = !in_quotes;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_prefixes_become_regexes_and_the_rest_stays() {
        assert_eq!(
            prefixes_as_regexes("deplo* \"in the db*\" -tim*", &["en", "fr"]),
            "(text_en:/deplo.*/ OR text_fr:/deplo.*/) \"in the db*\" -(text_en:/tim.*/ OR text_fr:/tim.*/)"
        );
        assert_eq!(prefixes_as_regexes("a.b* x", &["en"]), "a.b* x");
    }

    #[test]
    fn only_phrases_every_hit_contains_are_looked_up_by_their_pairs() {
        assert_eq!(
            required_phrases("\"timed out\" retry -\"not this\" \"deplo*\" \"open"),
            ["timed out"]
        );
        let index = SearchIndex::in_ram().unwrap();
        assert!(
            index
                .phrase_pairs("\"connection timed out\" retry")
                .is_some()
        );
        for query in [
            "\"connection timed out\" OR retry",
            "(\"connection timed\") retry",
            "text_en:\"connection timed\"",
            "-\"connection timed\"",
            "\"connection\" retry",
            "connection timed",
        ] {
            assert!(index.phrase_pairs(query).is_none(), "{query}");
        }
    }

    #[test]
    fn a_snippet_marks_its_highlights() {
        let snippet = Snippet {
            fragment: "the deploy failed".to_owned(),
            highlights: vec![(4, 10)],
        };
        assert_eq!(snippet.marked("[", "]"), "the [deploy] failed");
    }
}
