//! The full-text index beside the store: one tantivy document per searchable text
//! (prompt, answer, tool call, tool result, memory item: [`SearchText`]), with its
//! session, turn, role, time and kind, ranked by BM25, with phrases and prefixes, each
//! text analyzed in its own language ([`analysis`]).
//!
//! The store keeps it in step ([`HistoryStore`](super::HistoryStore) writes it after
//! every write of its own, in `store/indexing.rs`), and the index records, per session,
//! the fingerprint digest the store had recorded for the session it indexed: on open,
//! a session whose record differs, is missing or is extra is indexed again, so a crash
//! between the store's commit and the index's is repaired by the next open. It lives in
//! `STORE_DIR/search/` (in RAM for a store in memory); a store on a server has none.

mod analysis;
mod documents;
mod query;
mod service;

pub use analysis::{CjkBigrams, TextLanguage, detect_language};
pub(super) use documents::memory_texts;
pub use documents::{SearchKind, SearchText, session_texts};
pub(super) use documents::{changed_turns, turn_texts};
pub use query::{SearchHit, SearchRequest, Snippet};
pub use service::{HitColumn, SEARCH_SERVICE, SearchService, TEXT_NAMESPACE};

use super::StoreError;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use tantivy::collector::DocSetCollector;
use tantivy::directory::MmapDirectory;
use tantivy::indexer::LogMergePolicy;
use tantivy::query::{BooleanQuery, Occur, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
    Value,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// The kind of the one document per indexed session (or memory graph) that records
/// which store fingerprint it was indexed at; never a search hit (it has no text).
const MARKER_KIND: &str = "indexed";

/// How much memory tantivy's writer may buffer before it writes a segment, shared by its
/// indexing threads (one a core, up to eight): on two cores, a segment of about 100,000
/// texts of the generated corpus for each 100 MB. Taken only as texts come (tantivy's
/// arena grows by pages), and given back at every commit; the larger the share, the
/// fewer segments an ingest leaves to merge and to search.
const WRITER_MEMORY: usize = 200_000_000;

/// The size (in documents) under which segments count as one level of tantivy's log
/// merge policy, which merges eight segments of a level into one: the segments written
/// each time an indexing thread fills its share of [`WRITER_MEMORY`] and the small ones
/// each commit leaves are merged together, instead of lying beside each other (tantivy's
/// own default, 10,000, parts them into levels of fewer than eight). Every search visits
/// every segment.
const FIRST_LEVEL_DOCUMENTS: u32 = 400_000;

/// A session (or the memory graph) as the index is to hold it: all its texts, and the
/// fingerprint digest the store recorded for what they were read from.
#[derive(Debug, Clone)]
pub struct IndexedSession {
    /// The session's graph (or the memory graph): every document of it is replaced.
    pub owner: String,
    /// The digest of the store's fingerprint record when indexed (empty: none).
    pub digest: String,
    /// The searchable texts.
    pub texts: Vec<SearchText>,
    /// Only these turns' texts are replaced (by their IRIs; the rest of the session's
    /// documents stay as indexed): what an append changed. `None`: the whole session.
    pub turns: Option<Vec<String>>,
}

/// The fields of the index's schema.
#[derive(Debug, Clone, Copy)]
struct Fields {
    owner: Field,
    session: Field,
    item: Field,
    turn: Field,
    turn_index: Field,
    role: Field,
    kind: Field,
    time: Field,
    millis: Field,
    language: Field,
    digest: Field,
    text: Field,
    /// One indexed field per language, in the order of [`TextLanguage::ALL`].
    by_language: [Field; 6],
    /// The [`WordPairs`](analysis::WordPairs) of each language's field, without
    /// positions: what phrases are looked up by first.
    pairs_by_language: [Field; 6],
}

/// The documents whose `field` holds the term `value`, taken as it is (not analyzed): a
/// whole value (session, kind, owner, turn) or a word pair already cut.
fn whole_value(field: Field, value: &str) -> Box<dyn tantivy::query::Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    ))
}

/// The full-text index of a store (see the module's text).
pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    /// Taken out by [`close`](Self::close), made again by a write after it.
    writer: Mutex<Option<IndexWriter>>,
    /// Each language's analyzer, in the order of [`TextLanguage::ALL`]: a search's
    /// phrases are cut into their word pairs with it (texts are analyzed by tantivy, with
    /// the analyzers registered under the same names).
    analyzers: [TextAnalyzer; 6],
    fields: Fields,
    location: String,
    /// In RAM, for a store in memory: nothing outlives it.
    volatile: bool,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let owner = builder.add_text_field("owner", STRING | STORED);
    let session = builder.add_text_field("session", STRING | STORED);
    let item = builder.add_text_field("item", STORED);
    // Indexed whole, so that an append replaces the documents of the turns it changed.
    let turn = builder.add_text_field("turn", STRING | STORED);
    let turn_index = builder.add_u64_field("turn_index", STORED);
    let role = builder.add_text_field("role", STRING | STORED);
    let kind = builder.add_text_field("kind", STRING | STORED);
    let time = builder.add_text_field("time", STORED);
    let millis = builder.add_i64_field("millis", INDEXED | STORED);
    let language = builder.add_text_field("language", STRING | STORED);
    let digest = builder.add_text_field("digest", STORED);
    let text = builder.add_text_field("text", STORED);
    let by_language = TextLanguage::ALL.map(|language| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(&language.analyzer_name())
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        builder.add_text_field(
            &format!("text_{}", language.code()),
            TextOptions::default().set_indexing_options(indexing),
        )
    });
    let pairs_by_language = TextLanguage::ALL.map(|language| {
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(&language.pairs_analyzer_name())
            .set_index_option(IndexRecordOption::Basic);
        builder.add_text_field(
            &format!("pairs_{}", language.code()),
            TextOptions::default().set_indexing_options(indexing),
        )
    });
    let fields = Fields {
        owner,
        session,
        item,
        turn,
        turn_index,
        role,
        kind,
        time,
        millis,
        language,
        digest,
        text,
        by_language,
        pairs_by_language,
    };
    (builder.build(), fields)
}

impl SearchIndex {
    /// Opens (creating if needed) the index in `directory`.
    pub fn open(directory: &Path) -> Result<Self, StoreError> {
        let location = directory.display().to_string();
        let failed = |source| StoreError::SearchIndex {
            location: location.clone(),
            source,
        };
        std::fs::create_dir_all(directory).map_err(|error| failed(error.into()))?;
        let (schema, fields) = schema();
        let mmap = MmapDirectory::open(directory).map_err(|error| failed(error.into()))?;
        let index = match Index::open_or_create(mmap, schema.clone()) {
            // Written by an ihigraph whose index held other fields: the index is the
            // store's to make again (the store's next settle indexes every session).
            Err(tantivy::TantivyError::SchemaError(_)) => {
                std::fs::remove_dir_all(directory).map_err(|error| failed(error.into()))?;
                std::fs::create_dir_all(directory).map_err(|error| failed(error.into()))?;
                let mmap = MmapDirectory::open(directory).map_err(|error| failed(error.into()))?;
                Index::create(mmap, schema, Default::default()).map_err(failed)?
            }
            opened => opened.map_err(failed)?,
        };
        Self::with_index(index, fields, location, false)
    }

    /// A new index in RAM, for a store in memory.
    pub fn in_ram() -> Result<Self, StoreError> {
        let (schema, fields) = schema();
        Self::with_index(
            Index::create_in_ram(schema),
            fields,
            "memory".to_owned(),
            true,
        )
    }

    fn with_index(
        index: Index,
        fields: Fields,
        location: String,
        volatile: bool,
    ) -> Result<Self, StoreError> {
        analysis::register_analyzers(&index);
        let failed = |source| StoreError::SearchIndex {
            location: location.clone(),
            source,
        };
        let writer = new_writer(&index).map_err(failed)?;
        // A writer killed between writing a file and committing leaves the file behind,
        // unreferenced; the next writer, replaying the same operations from the last
        // commit, would want that very name again and fail. Remove such files first.
        writer.garbage_collect_files().wait().map_err(failed)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(failed)?;
        Ok(Self {
            index,
            reader,
            writer: Mutex::new(Some(writer)),
            analyzers: TextLanguage::ALL.map(TextLanguage::analyzer),
            fields,
            location,
            volatile,
        })
    }

    /// Where the index lives, for people.
    pub fn location(&self) -> &str {
        &self.location
    }

    fn failed(&self, source: tantivy::TantivyError) -> StoreError {
        StoreError::SearchIndex {
            location: self.location.clone(),
            source,
        }
    }

    /// Replaces every document of the given sessions (or memory graph) by their texts and
    /// marker, and of `removed` by nothing, in one commit.
    pub fn replace(&self, sessions: &[IndexedSession], removed: &[&str]) -> Result<(), StoreError> {
        if sessions.is_empty() && removed.is_empty() {
            return Ok(());
        }
        self.with_writer(|writer| {
            self.stage(writer, sessions, removed)?;
            self.commit(writer)
        })
    }

    /// Gives the index the documents of `sessions` (as [`replace`](Self::replace) does),
    /// without a commit: they are searchable once [`commit_staged`](Self::commit_staged)
    /// (or any other write's commit) has run. A writer that stages sessions before the
    /// store commits them lets the index work beside the store's own: should the store's
    /// commit fail, the staged sessions are taken out again by their owners (and any that
    /// a commit made visible before are taken out on the next open, as the store does not
    /// hold them).
    pub fn stage_uncommitted(&self, sessions: &[IndexedSession]) -> Result<(), StoreError> {
        self.with_writer(|writer| self.stage(writer, sessions, &[]))
    }

    /// Commits what was staged.
    pub fn commit_staged(&self) -> Result<(), StoreError> {
        self.with_writer(|writer| self.commit(writer))
    }

    /// The deletions and additions that replace `sessions` and drop `removed`.
    fn stage(
        &self,
        writer: &IndexWriter,
        sessions: &[IndexedSession],
        removed: &[&str],
    ) -> Result<(), StoreError> {
        for owner in removed.iter().copied().chain(
            sessions
                .iter()
                .filter(|session| session.turns.is_none())
                .map(|session| session.owner.as_str()),
        ) {
            writer.delete_term(Term::from_field_text(self.fields.owner, owner));
        }
        for session in sessions {
            if let Some(turns) = &session.turns {
                self.delete_turns(writer, &session.owner, turns)?;
            }
        }
        for session in sessions {
            for text in &session.texts {
                writer
                    .add_document(self.document(&session.owner, text))
                    .map_err(|error| self.failed(error))?;
            }
            let mut marker = TantivyDocument::default();
            marker.add_text(self.fields.owner, &session.owner);
            marker.add_text(self.fields.kind, MARKER_KIND);
            marker.add_text(self.fields.digest, &session.digest);
            writer
                .add_document(marker)
                .map_err(|error| self.failed(error))?;
        }
        Ok(())
    }

    /// Deletes the documents of the given turns of `owner`, and its marker.
    fn delete_turns(
        &self,
        writer: &IndexWriter,
        owner: &str,
        turns: &[String],
    ) -> Result<(), StoreError> {
        let mut which: Vec<(Occur, Box<dyn tantivy::query::Query>)> = turns
            .iter()
            .map(|turn| (Occur::Should, whole_value(self.fields.turn, turn)))
            .collect();
        which.push((Occur::Should, whole_value(self.fields.kind, MARKER_KIND)));
        let query = BooleanQuery::new(vec![
            (Occur::Must, whole_value(self.fields.owner, owner)),
            (Occur::Must, Box::new(BooleanQuery::new(which))),
        ]);
        writer
            .delete_query(Box::new(query))
            .map_err(|error| self.failed(error))?;
        Ok(())
    }

    /// Takes out the markers of the given owners (of every owner, for `None`), in one
    /// commit: until they are indexed again, the index says it does not hold them.
    pub fn forget_markers(&self, owners: Option<&[&str]>) -> Result<(), StoreError> {
        let marker = || whole_value(self.fields.kind, MARKER_KIND);
        self.with_writer(|writer| {
            match owners {
                None => {
                    writer
                        .delete_query(marker())
                        .map_err(|error| self.failed(error))?;
                }
                Some(owners) => {
                    for owner in owners {
                        let query = BooleanQuery::new(vec![
                            (Occur::Must, marker()),
                            (Occur::Must, whole_value(self.fields.owner, owner)),
                        ]);
                        writer
                            .delete_query(Box::new(query))
                            .map_err(|error| self.failed(error))?;
                    }
                }
            }
            self.commit(writer)
        })
    }

    /// Empties the index, in one commit.
    pub fn clear(&self) -> Result<(), StoreError> {
        self.with_writer(|writer| {
            writer
                .delete_all_documents()
                .map_err(|error| self.failed(error))?;
            self.commit(writer)
        })
    }

    /// Waits for the merges of segments that the last commits began (on tantivy's own
    /// threads), as Lucene's `IndexWriter.close` does, and lets the writer go: a process
    /// that ends after a write leaves the index merged, not with a merge cut short that the
    /// next writer begins again (while the segments it would have merged pile up, each one
    /// more for every search to visit). Uncommitted documents are dropped, as by any end of
    /// the writer. A write after this makes a writer again. An index in RAM ends with its
    /// store: nothing to wait for.
    ///
    /// # Errors
    ///
    /// A merge failed: the index stays as its last commit left it (the merge's inputs).
    pub fn close(&self) -> Result<(), StoreError> {
        let writer = self.lock_writer().take();
        match writer {
            Some(writer) if !self.volatile => writer
                .wait_merging_threads()
                .map_err(|error| self.failed(error)),
            _ => Ok(()),
        }
    }

    fn commit(&self, writer: &mut IndexWriter) -> Result<(), StoreError> {
        writer.commit().map_err(|error| self.failed(error))?;
        self.reader.reload().map_err(|error| self.failed(error))
    }

    fn lock_writer(&self) -> std::sync::MutexGuard<'_, Option<IndexWriter>> {
        // A panic while the writer was held leaves nothing half-done that matters: the
        // uncommitted documents are dropped by the next commit's caller or repaired on open.
        self.writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `write` with the writer, held for its whole run (made again after a
    /// [`close`](Self::close)).
    fn with_writer<T>(
        &self,
        write: impl FnOnce(&mut IndexWriter) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut held = self.lock_writer();
        let writer = match &mut *held {
            Some(writer) => writer,
            empty => empty.insert(new_writer(&self.index).map_err(|error| self.failed(error))?),
        };
        write(writer)
    }

    fn document(&self, owner: &str, text: &SearchText) -> TantivyDocument {
        let fields = &self.fields;
        let language = detect_language(&text.text);
        let mut document = TantivyDocument::default();
        document.add_text(fields.owner, owner);
        document.add_text(fields.session, &text.session_id);
        if let Some(item) = &text.item {
            document.add_text(fields.item, item);
        }
        if let Some(turn) = &text.turn {
            document.add_text(fields.turn, turn);
        }
        if let Some(index) = text.turn_index {
            document.add_u64(fields.turn_index, index);
        }
        if let Some(role) = &text.role {
            document.add_text(fields.role, role);
        }
        document.add_text(fields.kind, text.kind.name());
        if let Some(time) = &text.time {
            document.add_text(fields.time, time);
        }
        if let Some(millis) = text.millis {
            document.add_i64(fields.millis, millis);
        }
        document.add_text(fields.language, language.code());
        document.add_text(fields.text, &text.text);
        // Given as text, each field analyzed by its own analyzer on tantivy's indexing
        // threads: tokens given ready-made (`PreTokenizedString`) are written to JSON and
        // read back inside tantivy, which cost more than the stemmer run twice.
        let slot = language_slot(language);
        document.add_text(fields.by_language[slot], &text.text);
        document.add_text(fields.pairs_by_language[slot], &text.text);
        document
    }

    /// The sessions (and memory graph) the index holds, each with the digest it was
    /// indexed at.
    pub fn indexed(&self) -> Result<HashMap<String, String>, StoreError> {
        let searcher = self.reader.searcher();
        let markers = whole_value(self.fields.kind, MARKER_KIND);
        let addresses = searcher
            .search(&*markers, &DocSetCollector)
            .map_err(|error| self.failed(error))?;
        let mut indexed = HashMap::new();
        for address in addresses {
            let document: TantivyDocument =
                searcher.doc(address).map_err(|error| self.failed(error))?;
            let text = |field| {
                document
                    .get_first(field)
                    .and_then(|value| value.as_str())
                    .unwrap_or_default()
                    .to_owned()
            };
            indexed.insert(text(self.fields.owner), text(self.fields.digest));
        }
        Ok(indexed)
    }

    /// How many searchable texts the index holds.
    pub fn text_count(&self) -> u64 {
        let searcher = self.reader.searcher();
        let markers = self.indexed().map_or(0, |indexed| indexed.len() as u64);
        searcher.num_docs().saturating_sub(markers)
    }
}

/// A writer of `index`, with the merge policy of [`FIRST_LEVEL_DOCUMENTS`].
fn new_writer(index: &Index) -> tantivy::Result<IndexWriter> {
    let writer = index.writer(WRITER_MEMORY)?;
    let mut policy = LogMergePolicy::default();
    policy.set_min_layer_size(FIRST_LEVEL_DOCUMENTS);
    writer.set_merge_policy(Box::new(policy));
    Ok(writer)
}

fn language_slot(language: TextLanguage) -> usize {
    TextLanguage::ALL
        .iter()
        .position(|known| *known == language)
        .unwrap_or(TextLanguage::ALL.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::index::SegmentId;
    use tantivy::indexer::MergePolicy;

    /// The segments the merge policy would merge, by their sizes.
    fn merges(policy: &dyn MergePolicy, sizes: &[u32]) -> Vec<usize> {
        let index = Index::create_in_ram(schema().0);
        let metas: Vec<_> = sizes
            .iter()
            .map(|&size| index.new_segment_meta(SegmentId::generate_random(), size))
            .collect();
        policy
            .compute_merge_candidates(&metas)
            .iter()
            .map(|candidate| candidate.0.len())
            .collect()
    }

    #[test]
    fn what_a_writer_flushes_and_the_slivers_of_its_commits_are_merged_together() {
        // Five segments of a full share of the writer's memory, three left by commits.
        let sizes = [100_000, 100_000, 100_000, 100_000, 100_000, 400, 900, 3_000];
        let index = Index::create_in_ram(schema().0);
        let writer = new_writer(&index).unwrap();
        assert_eq!(merges(&*writer.get_merge_policy(), &sizes), [8]);
        // tantivy's default puts them in two levels, neither of eight.
        assert!(merges(&LogMergePolicy::default(), &sizes).is_empty());
        // A segment merged of eight stays a level above them.
        let merged = [
            800_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000,
        ];
        assert!(merges(&*writer.get_merge_policy(), &merged).is_empty());
    }
}
