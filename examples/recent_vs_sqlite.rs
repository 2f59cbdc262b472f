//! "The last N messages" from ihigraph against the store a user would otherwise pick: a
//! chat history in SQLite, one row per message indexed by session, as LangChain's
//! `SQLChatMessageHistory` keeps it (`message_store(id, session_id, message)`, the
//! message as JSON text), in a file. Both hold the same corpus: SQLite gets each turn's
//! prompt and answer payloads, as JSON, in order; ihigraph's store is the one given.
//!
//! For the same sessions spread over the store: `recent-turns` with `n` = N (N turns,
//! each with its prompt and answer text) against SQLite's newest 2N messages (the same
//! turns' prompt and answer), read with a prepared statement and decoded from JSON.
//! Five passes after a warm-up pass; p50, p99 and max of each.
//!
//! ```text
//! cargo run --release --example recent_vs_sqlite -- STORE_DIR CORPUS.jsonl [--sample N] [--turns N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

mod common;

use ihigraph::query::{Arguments, RECENT_TURNS};
use rusqlite::{Connection, params};
use serde_json::Value;
use std::error::Error;
use std::io::BufRead;
use std::time::{Duration, Instant};

const PASSES: usize = 5;

/// Reads one session's newest messages or turns, giving how many rows it read.
type Read<'a> = dyn FnMut(&str) -> Result<usize, Box<dyn Error>> + 'a;

fn main() -> Result<(), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().collect();
    let corpus = arguments
        .get(2)
        .ok_or("usage: recent_vs_sqlite STORE_DIR CORPUS.jsonl [--sample N] [--turns N]")?;
    let turns: usize = match arguments.iter().position(|a| a == "--turns") {
        Some(at) => arguments.get(at + 1).ok_or("--turns needs N")?.parse()?,
        None => 10,
    };
    let (store, chosen) = common::store_with_sample("recent_vs_sqlite")?;

    let started = Instant::now();
    // On disk, as a chat history is kept (the OS caches its pages, as it does RocksDB's).
    let directory = tempfile::tempdir()?;
    let sqlite = Connection::open(directory.path().join("history.sqlite"))?;
    let messages = fill(&sqlite, corpus)?;
    println!(
        "SQLite: {messages} messages loaded in {:.1} s (a file, indexed by session)",
        started.elapsed().as_secs_f64()
    );

    let mut statement = sqlite.prepare(
        "SELECT message FROM message_store WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2",
    )?;
    let mut newest = |session: &str| -> Result<usize, Box<dyn Error>> {
        let mut rows = statement.query(params![session, 2 * turns])?;
        let mut decoded = 0;
        while let Some(row) = rows.next()? {
            let text: String = row.get(0)?;
            let message: Value = serde_json::from_str(&text)?;
            decoded += usize::from(message.is_object());
        }
        Ok(decoded)
    };
    let recent = |session: &str| -> Result<usize, Box<dyn Error>> {
        let arguments = Arguments::new()
            .text("session", session)
            .count("n", turns as u64);
        common::count_rows(&store, &RECENT_TURNS, &arguments)
    };
    measure(
        &format!("SQLite, newest {} messages", 2 * turns),
        &chosen,
        &mut newest,
    )?;
    measure(&format!("ihigraph recent-turns n={turns}"), &chosen, &mut {
        recent
    })?;
    Ok(())
}

/// Loads the corpus into `message_store`: per turn, its prompt then its answer payload.
fn fill(sqlite: &Connection, corpus: &str) -> Result<usize, Box<dyn Error>> {
    sqlite.execute_batch(
        "CREATE TABLE message_store (id INTEGER PRIMARY KEY AUTOINCREMENT, \
         session_id TEXT NOT NULL, message TEXT NOT NULL); \
         CREATE INDEX message_store_session ON message_store (session_id);",
    )?;
    let transaction = sqlite.unchecked_transaction()?;
    let mut messages = 0;
    {
        let mut insert = transaction
            .prepare("INSERT INTO message_store (session_id, message) VALUES (?1, ?2)")?;
        for line in std::io::BufReader::new(std::fs::File::open(corpus)?).lines() {
            let document: Value = serde_json::from_str(&line?)?;
            let session = document["SessionID"].as_str().ok_or("a SessionID")?;
            for turn in document["Turns"].as_array().ok_or("Turns")? {
                for payload in [&turn["PRCPrompt"], &turn["BKNResponse"]] {
                    insert.execute(params![session, payload.to_string()])?;
                    messages += 1;
                }
            }
        }
    }
    transaction.commit()?;
    Ok(messages)
}

/// Times `read` over the sessions, after a warm-up pass, and prints its quantiles.
fn measure(name: &str, sessions: &[String], read: &mut Read<'_>) -> Result<(), Box<dyn Error>> {
    for session in sessions {
        read(session)?;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(sessions.len() * PASSES);
    let mut rows = 0;
    for _ in 0..PASSES {
        rows = 0;
        for session in sessions {
            let started = Instant::now();
            rows += read(session)?;
            times.push(started.elapsed());
        }
    }
    let millis = |d: Duration| d.as_secs_f64() * 1_000.0;
    println!(
        "{name:<34} p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  ({rows} rows a pass)",
        millis(common::quantile(&mut times, 0.5)),
        millis(common::quantile(&mut times, 0.99)),
        millis(common::quantile(&mut times, 1.0)),
    );
    Ok(())
}
