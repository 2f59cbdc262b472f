//! Full-text search from ihigraph's index against SQLite FTS5, on the same generated
//! corpus: what a chat-history store built on SQLite would use.
//!
//! - Ingest: the corpus written through the store's session writer (batches of 500,
//!   each mapped from its document, as `ingest` writes them) into a store with its index
//!   and into a bare store without one (the same backend, [`HistoryStore::with_backend`]),
//!   in turn, `--rounds` times (default 2): the fastest of each, and the median of the
//!   rounds' ratios (each round's pair on standard error): on a shared machine a round's
//!   pair runs under much the same load, the fastest of each side may not.
//! - Index build: `reindex` (the whole index again, from the store) against loading the
//!   same texts into an FTS5 table (`porter unicode61 remove_diacritics 2`) in one
//!   transaction; the size of each on disk.
//! - Queries (ten hits with a snippet each, best first): single words, three-word phrases,
//!   and a word filtered to one session and to prompts; p50 and p99 over 300 of each,
//!   after a warm-up pass.
//! - Relevance: queries written from one known turn each (five consecutive words of one
//!   of its texts that no other text has), as a phrase and as loose words: the share
//!   whose turn is in the top five.
//!
//! ```text
//! cargo run --release --example search_vs_fts5 -- [--sessions N] [--seed S] [--rounds R] [--keep DIR]
//! ```
//!
//! With `--keep DIR`, the store and the FTS5 table are built in `DIR` and kept; a later run
//! with the same `DIR` only queries them (building the FTS5 table if it is missing).
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

mod common;

/// The allocator the `ihigraph` binary runs with (see its `main.rs`): an ingest is measured
/// as `ihigraph ingest` runs it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ihigraph::check::{CheckOptions, check_document};
use ihigraph::generate::{GenerateOptions, generate};
use ihigraph::rdf::{SessionGraph, map_history};
use ihigraph::store::{Embedded, SearchKind, SearchText, session_texts};
use ihigraph::{HistoryStore, SearchRequest};
use rusqlite::{Connection, params};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BATCH: usize = 500;
const QUERIES: usize = 300;

fn main() -> Result<(), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().collect();
    let option = |name: &str, default: u64| -> Result<u64, Box<dyn Error>> {
        match arguments.iter().position(|a| a == name) {
            Some(at) => Ok(arguments.get(at + 1).ok_or("a value is missing")?.parse()?),
            None => Ok(default),
        }
    };
    let options = GenerateOptions {
        sessions: usize::try_from(option("--sessions", 1_000)?)?,
        seed: option("--seed", 1)?,
        ..GenerateOptions::default()
    };
    let rounds = option("--rounds", 2)?.max(1);
    let kept = arguments
        .iter()
        .position(|a| a == "--keep")
        .map(|at| {
            arguments
                .get(at + 1)
                .map(PathBuf::from)
                .ok_or("--keep needs a directory")
        })
        .transpose()?;
    let directory = tempfile::tempdir()?;
    let base = kept.clone().unwrap_or_else(|| directory.path().to_owned());
    let indexed_dir = base.join("indexed");
    let sqlite_path = base.join("fts.sqlite");
    if kept.is_some() && indexed_dir.exists() {
        return query_kept(&base);
    }
    std::fs::create_dir_all(&base)?;

    // Each round ingests into a fresh bare store, then into a fresh store with its index;
    // the fastest round of each is kept, as a machine shared with other work slows some.
    let (without, with, mut ratios) = ingest_rounds(&base, &indexed_dir, &options, rounds)?;
    ratios.sort_by(f64::total_cmp);
    println!(
        "ingest with the index against without, round by round: median {:+.1} %, from {:+.1} to {:+.1} %",
        (ratios[ratios.len() / 2] - 1.0) * 100.0,
        (ratios[0] - 1.0) * 100.0,
        (ratios[ratios.len() - 1] - 1.0) * 100.0
    );
    let store = HistoryStore::open(&indexed_dir, &Default::default())?;
    println!(
        "ingest of {} sessions, fastest of {rounds} rounds: {:.1} s without the index, {:.1} s with it ({:+.1} %)",
        options.sessions,
        without.as_secs_f64(),
        with.as_secs_f64(),
        (with.as_secs_f64() / without.as_secs_f64() - 1.0) * 100.0
    );

    let texts = corpus_texts(&store)?;
    let started = Instant::now();
    store.reindex()?;
    println!(
        "index build: ihigraph {:.1} s, {} texts, {:.1} MB",
        started.elapsed().as_secs_f64(),
        texts.len(),
        megabytes(&indexed_dir.join("search"))
    );
    if sqlite_path.exists() {
        std::fs::remove_file(&sqlite_path)?;
    }
    let sqlite = Connection::open(&sqlite_path)?;
    let started = Instant::now();
    fill_fts(&sqlite, &texts)?;
    println!(
        "index build: FTS5 {:.1} s, {:.1} MB",
        started.elapsed().as_secs_f64(),
        megabytes(&sqlite_path)
    );

    compare_queries(&store, &sqlite, &texts)?;
    relevance(&store, &sqlite, &texts)
}

/// The queries of a store (and FTS5 table) built by an earlier run with `--keep`; its
/// index settled on open if that run was cut short, and the FTS5 table built first if
/// it is missing (aside, then moved in place: a run cut short leaves no half a table).
fn query_kept(base: &Path) -> Result<(), Box<dyn Error>> {
    println!("the corpus kept in {}", base.display());
    let store = HistoryStore::open(&base.join("indexed"), &Default::default())?;
    let texts = corpus_texts(&store)?;
    let sqlite_path = base.join("fts.sqlite");
    if !sqlite_path.exists() {
        let part = base.join("fts.sqlite.part");
        if part.exists() {
            std::fs::remove_file(&part)?;
        }
        fill_fts(&Connection::open(&part)?, &texts)?;
        std::fs::rename(&part, &sqlite_path)?;
    }
    let sqlite = Connection::open(&sqlite_path)?;
    compare_queries(&store, &sqlite, &texts)?;
    relevance(&store, &sqlite, &texts)
}

/// Writes the corpus through the store's session writer, as `ingest` does; the time.
/// `rounds` ingests into a fresh bare store and a fresh store with its index, in turn:
/// the fastest of each side, and each round's ratio.
fn ingest_rounds(
    base: &Path,
    indexed_dir: &Path,
    options: &GenerateOptions,
    rounds: u64,
) -> Result<(Duration, Duration, Vec<f64>), Box<dyn Error>> {
    let (mut without, mut with) = (Duration::MAX, Duration::MAX);
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let bare_dir = base.join(format!("bare-{round}"));
        let bare = HistoryStore::with_backend(Embedded::open(&bare_dir)?, &Default::default())?;
        let bare_time = ingest(bare, options)?;
        std::fs::remove_dir_all(&bare_dir)?;
        if indexed_dir.exists() {
            std::fs::remove_dir_all(indexed_dir)?;
        }
        let store = HistoryStore::open(indexed_dir, &Default::default())?;
        let indexed_time = ingest(store, options)?;
        let ratio = indexed_time.as_secs_f64() / bare_time.as_secs_f64();
        eprintln!(
            "round {}: {:.1} s without the index, {:.1} s with it ({:+.1} %)",
            round + 1,
            bare_time.as_secs_f64(),
            indexed_time.as_secs_f64(),
            (ratio - 1.0) * 100.0
        );
        ratios.push(ratio);
        without = without.min(bare_time);
        with = with.min(indexed_time);
    }
    Ok((without, with, ratios))
}

/// The time until the store is closed: what `ihigraph ingest` takes, the index's merges
/// begun by the last commits included (closing waits for them).
fn ingest(store: HistoryStore, options: &GenerateOptions) -> Result<Duration, Box<dyn Error>> {
    let started = Instant::now();
    let mut writer = store.session_writer();
    let mut batch: Vec<SessionGraph> = Vec::with_capacity(BATCH);
    for document in generate(*options) {
        let history = check_document(&document, CheckOptions::default())
            .history
            .ok_or("a generated document does not check")?;
        batch.push(map_history(&history, store.scheme()));
        if batch.len() == BATCH {
            writer.write(std::mem::take(&mut batch))?;
            writer.commit()?;
        }
    }
    writer.write(batch)?;
    writer.commit()?;
    // The index follows the last commit on a thread of its own, and its merges on
    // tantivy's: counted until the store is closed.
    drop(writer);
    store.close()?;
    Ok(started.elapsed())
}

/// Every searchable text of the stored sessions, as the index holds them.
fn corpus_texts(store: &HistoryStore) -> Result<Vec<SearchText>, Box<dyn Error>> {
    let mut texts = Vec::new();
    for (id, graph) in store.sessions()? {
        texts.extend(session_texts(&id, &store.session_quads(graph.as_ref())?));
    }
    Ok(texts)
}

fn fill_fts(sqlite: &Connection, texts: &[SearchText]) -> Result<(), Box<dyn Error>> {
    sqlite.execute_batch(
        "CREATE VIRTUAL TABLE texts USING fts5(text, session UNINDEXED, turn UNINDEXED,
             kind UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2');
         BEGIN;",
    )?;
    {
        let mut insert = sqlite
            .prepare("INSERT INTO texts (text, session, turn, kind) VALUES (?1, ?2, ?3, ?4)")?;
        for text in texts {
            insert.execute(params![
                text.text,
                text.session_id,
                text.turn_index.map(|index| index as i64),
                text.kind.name()
            ])?;
        }
    }
    sqlite.execute_batch("COMMIT;")?;
    Ok(())
}

/// The words of a text, as both engines split it at the least.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3 && word.chars().all(char::is_alphanumeric))
        .collect()
}

/// Texts spread over the corpus with at least `least` words.
fn sampled(texts: &[SearchText], least: usize, count: usize) -> Vec<&SearchText> {
    let usable: Vec<&SearchText> = texts
        .iter()
        .filter(|text| words(&text.text).len() >= least)
        .collect();
    common::spread(&usable, count)
        .into_iter()
        .copied()
        .collect()
}

/// One query in each engine's syntax, and a filter to a session and to prompts.
struct Probe {
    ihigraph: SearchRequest,
    fts: String,
    session: Option<String>,
}

fn probes(texts: &[SearchText]) -> Vec<(&'static str, Vec<Probe>)> {
    let single = sampled(texts, 1, QUERIES)
        .into_iter()
        .map(|text| {
            let word = words(&text.text)[0].to_lowercase();
            Probe {
                ihigraph: SearchRequest::new(&word),
                fts: format!("\"{word}\""),
                session: None,
            }
        })
        .collect();
    let phrases = sampled(texts, 3, QUERIES)
        .into_iter()
        .map(|text| {
            let phrase = words(&text.text)[..3].join(" ").to_lowercase();
            Probe {
                ihigraph: SearchRequest::new(format!("\"{phrase}\"")),
                fts: format!("\"{phrase}\""),
                session: None,
            }
        })
        .collect();
    let filtered = sampled(texts, 1, QUERIES)
        .into_iter()
        .map(|text| {
            let word = words(&text.text)[0].to_lowercase();
            Probe {
                ihigraph: SearchRequest {
                    session: Some(text.session_id.clone()),
                    kinds: vec![SearchKind::Prompt],
                    ..SearchRequest::new(&word)
                },
                fts: format!("\"{word}\""),
                session: Some(text.session_id.clone()),
            }
        })
        .collect();
    vec![
        ("single word", single),
        ("phrase of three", phrases),
        ("word, one session's prompts", filtered),
    ]
}

fn compare_queries(
    store: &HistoryStore,
    sqlite: &Connection,
    texts: &[SearchText],
) -> Result<(), Box<dyn Error>> {
    let mut all = sqlite.prepare(
        "SELECT session, turn, snippet(texts, 0, '**', '**', '…', 16) FROM texts
         WHERE texts MATCH ?1 ORDER BY rank LIMIT 10",
    )?;
    let mut narrowed = sqlite.prepare(
        "SELECT session, turn, snippet(texts, 0, '**', '**', '…', 16) FROM texts
         WHERE texts MATCH ?1 AND session = ?2 AND kind = 'prompt' ORDER BY rank LIMIT 10",
    )?;
    for (name, probes) in probes(texts) {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for pass in 0..2 {
            for probe in &probes {
                let started = Instant::now();
                store.search(&probe.ihigraph)?;
                let ours_took = started.elapsed();
                let started = Instant::now();
                let rows: Vec<(String, Option<i64>, String)> = match &probe.session {
                    None => all
                        .query_map(params![probe.fts], |row| {
                            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                        })?
                        .collect::<Result<_, _>>()?,
                    Some(session) => narrowed
                        .query_map(params![probe.fts, session], |row| {
                            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                        })?
                        .collect::<Result<_, _>>()?,
                };
                let theirs_took = started.elapsed();
                std::hint::black_box(rows);
                if pass == 1 {
                    ours.push(ours_took);
                    theirs.push(theirs_took);
                }
            }
        }
        println!(
            "{name}: ihigraph p50 {:.3} ms p99 {:.3} ms | FTS5 p50 {:.3} ms p99 {:.3} ms",
            ms(common::quantile(&mut ours, 0.5)),
            ms(common::quantile(&mut ours, 0.99)),
            ms(common::quantile(&mut theirs, 0.5)),
            ms(common::quantile(&mut theirs, 0.99)),
        );
    }
    Ok(())
}

/// The words of a text in order, as both engines cut it: runs of letters and digits.
fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|token| !token.is_empty())
        .collect()
}

/// A word of Latin letters (the script every engine here cuts the same way).
fn latin_word(token: &str) -> bool {
    token
        .chars()
        .all(|c| c.is_alphabetic() && u32::from(c) < 0x0250)
}

/// The labelled set: queries written from one known turn each, as a person recalls a
/// turn by a phrase of it: for each sampled text, the first five consecutive words of
/// Latin letters (from a place that moves with the query) that no other text of the
/// corpus has. A text with
/// no such phrase (its words are all in some other text: a tool call's arguments sent
/// again, say) names no turn in particular and is not labelled.
fn labelled_queries(texts: &[SearchText]) -> (Vec<(&SearchText, Vec<String>)>, usize) {
    use std::collections::hash_map::DefaultHasher;
    use std::collections::{HashMap, HashSet};
    use std::hash::{Hash, Hasher};
    let phrase_key = |phrase: &[&str]| {
        let mut hasher = DefaultHasher::new();
        for word in phrase {
            word.to_lowercase().hash(&mut hasher);
        }
        hasher.finish()
    };
    // In how many texts each phrase of five consecutive words is.
    let mut texts_with: HashMap<u64, u32> = HashMap::new();
    for text in texts {
        let tokens = tokens(&text.text);
        let phrases: HashSet<u64> = tokens.windows(5).map(phrase_key).collect();
        for phrase in phrases {
            *texts_with.entry(phrase).or_default() += 1;
        }
    }
    let sample = sampled(texts, 8, QUERIES);
    let mut labelled = Vec::new();
    for (at, text) in sample.iter().enumerate() {
        let tokens = tokens(&text.text);
        let windows = tokens.len().saturating_sub(4);
        let unique = (0..windows)
            .map(|offset| (at + offset) % windows)
            .find(|&start| {
                let phrase = &tokens[start..start + 5];
                phrase.iter().all(|token| latin_word(token)) && texts_with[&phrase_key(phrase)] == 1
            });
        if let Some(start) = unique {
            let phrase = tokens[start..start + 5]
                .iter()
                .map(|word| word.to_lowercase())
                .collect();
            labelled.push((*text, phrase));
        }
    }
    let skipped = sample.len() - labelled.len();
    (labelled, skipped)
}

/// The labelled queries, as phrases and as loose words (all required, any order): is
/// the known turn in the top five of each engine?
fn relevance(
    store: &HistoryStore,
    sqlite: &Connection,
    texts: &[SearchText],
) -> Result<(), Box<dyn Error>> {
    let mut top = sqlite
        .prepare("SELECT session, turn FROM texts WHERE texts MATCH ?1 ORDER BY rank LIMIT 5")?;
    let (labelled, skipped) = labelled_queries(texts);
    for (form, quoted) in [("phrase", true), ("loose words", false)] {
        let (mut ours, mut theirs) = (0, 0);
        for (text, phrase) in &labelled {
            let words = phrase.join(" ");
            let ihigraph_query = if quoted {
                format!("\"{words}\"")
            } else {
                words.clone()
            };
            let hits = store.search(&SearchRequest {
                limit: 5,
                ..SearchRequest::new(ihigraph_query)
            })?;
            let found = hits
                .iter()
                .any(|hit| hit.session_id == text.session_id && hit.turn_index == text.turn_index);
            if !found && std::env::var_os("SHOW_MISSES").is_some() {
                eprintln!(
                    "miss ({form}): {words:?} from {} turn {:?} {:?}: {:?}\n  hits: {:?}",
                    text.session_id,
                    text.turn_index,
                    text.kind,
                    text.text,
                    hits.iter()
                        .map(|hit| (&hit.session_id, hit.turn_index, hit.kind, hit.score))
                        .collect::<Vec<_>>()
                );
            }
            ours += usize::from(found);
            // FTS5: a phrase in quotes; loose words each quoted, joined by AND.
            let fts = if quoted {
                format!("\"{words}\"")
            } else {
                phrase
                    .iter()
                    .map(|word| format!("\"{word}\""))
                    .collect::<Vec<_>>()
                    .join(" AND ")
            };
            let rows: Vec<(String, Option<i64>)> = top
                .query_map(params![fts], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            theirs += usize::from(rows.iter().any(|(session, turn)| {
                *session == text.session_id && turn.map(|t| t as u64) == text.turn_index
            }));
        }
        let share = |found: usize| found as f64 * 100.0 / labelled.len() as f64;
        println!(
            "relevance, {} labelled queries ({skipped} sampled texts had no phrase of their own), as {form}: the known turn in the top 5: ihigraph {:.1} %, FTS5 {:.1} %",
            labelled.len(),
            share(ours),
            share(theirs)
        );
    }
    Ok(())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn megabytes(path: &Path) -> f64 {
    fn size(path: &Path) -> u64 {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => std::fs::read_dir(path).map_or(0, |entries| {
                entries.flatten().map(|entry| size(&entry.path())).sum()
            }),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        }
    }
    size(path) as f64 / 1e6
}
