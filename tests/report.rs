//! The report: every number in the page is the one its canned query gives on the same
//! store; the page is well-formed and self-contained; empty stores, one session and
//! sessions without tools give sensible pages; the options narrow it.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::ihigraph;
use predicates::str::contains;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// A store with the bundled examples, 30 generated sessions and two memory items.
fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    common::ingest_examples_and_corpus(&store, &[], 30, 5);
    for (turn, text) in [
        ("1", "CI reads config/ci.exs"),
        ("3", "the fix was an import"),
    ] {
        ihigraph(&store)
            .args([
                "remember",
                "--session",
                "abc",
                "--turn",
                turn,
                "--kind",
                "fact",
                text,
            ])
            .assert()
            .success();
    }
    dir
}

/// The page `report` writes with these arguments.
fn page(store: &Path, arguments: &[&str]) -> String {
    let out = store.with_extension("html");
    ihigraph(store)
        .arg("report")
        .arg("--out")
        .arg(&out)
        .args(arguments)
        .assert()
        .success()
        .stderr(contains("wrote"));
    std::fs::read_to_string(out).unwrap()
}

/// A canned query's answer as CSV rows (the header left out).
fn rows(store: &Path, query: &str, parameters: &[&str]) -> Vec<Vec<String>> {
    let mut command = ihigraph(store);
    command.args(["query", query, "--format", "csv"]);
    for parameter in parameters {
        command.args(["--param", parameter]);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{query}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let mut reader = text.lines().skip(1);
    let mut rows = Vec::new();
    for line in reader.by_ref() {
        rows.push(split_csv(line));
    }
    rows
}

/// One CSV line's fields (the queries' fields hold no line breaks here).
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// The page parsed as XML: it must be well-formed.
fn parse(page: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(
        page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|error| panic!("the page is not well-formed: {error}"))
}

fn by_id<'a>(document: &'a roxmltree::Document<'a>, id: &str) -> Option<roxmltree::Node<'a, 'a>> {
    document
        .descendants()
        .find(|node| node.attribute("id") == Some(id))
}

fn text_of(node: roxmltree::Node<'_, '_>) -> String {
    node.descendants()
        .filter(roxmltree::Node::is_text)
        .filter_map(|node| node.text())
        .collect()
}

/// A table's body rows, cell texts.
fn table(document: &roxmltree::Document<'_>, id: &str) -> Vec<Vec<String>> {
    let table = by_id(document, id).unwrap_or_else(|| panic!("no table {id}"));
    table
        .descendants()
        .filter(|node| node.has_tag_name("tbody"))
        .flat_map(|body| body.children().filter(|node| node.has_tag_name("tr")))
        .map(|row| {
            row.children()
                .filter(|cell| cell.has_tag_name("td"))
                .map(text_of)
                .collect()
        })
        .collect()
}

/// The sums of `report-activity`'s rows (session, day, role, turns, toolCalls,
/// failedToolCalls, firstTurn, lastTurn).
struct Sums {
    /// Sessions, turns, tool calls, failed tool calls.
    totals: [u64; 4],
    /// Per day: sessions, turns, tool calls, failed tool calls.
    days: BTreeMap<String, (std::collections::BTreeSet<String>, [u64; 3])>,
    /// Per day: H-User, A-User and BKN turns.
    roles: BTreeMap<String, [u64; 3]>,
    /// Per session: turns, tool calls, failed tool calls.
    sessions: BTreeMap<String, [u64; 3]>,
}

fn sums(activity: &[Vec<String>]) -> Sums {
    let number = |text: &String| text.parse::<u64>().unwrap();
    let mut sums = Sums {
        totals: [0; 4],
        days: BTreeMap::new(),
        roles: BTreeMap::new(),
        sessions: BTreeMap::new(),
    };
    for row in activity {
        let counts = [number(&row[3]), number(&row[4]), number(&row[5])];
        let session = sums.sessions.entry(row[0].clone()).or_default();
        let day = sums.days.entry(row[1].clone()).or_default();
        day.0.insert(row[0].clone());
        for at in 0..3 {
            session[at] += counts[at];
            day.1[at] += counts[at];
            sums.totals[at + 1] += counts[at];
        }
        let role = ["H-User", "A-User", "BKN"]
            .iter()
            .position(|r| *r == row[2])
            .unwrap();
        sums.roles.entry(row[1].clone()).or_default()[role] += counts[0];
    }
    sums.totals[0] = sums.sessions.len() as u64;
    sums
}

/// One number a SPARQL query gives.
fn count(store: &Path, sparql: &str) -> u64 {
    let output = ihigraph(store)
        .args(["sparql", "--format", "csv", sparql])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines().nth(1).unwrap().trim().parse().unwrap()
}

#[test]
fn every_total_and_table_is_the_one_its_query_gives() {
    let dir = store();
    let store = dir.path().join("store");
    let page = page(&store, &[]);
    let document = parse(&page);

    let sums = sums(&rows(&store, "report-activity", &[]));
    let memory = &rows(&store, "report-memory", &[])[0];
    let totals = sums.totals.map(|total| total.to_string());
    for (id, value) in [
        ("total-sessions", &totals[0]),
        ("total-turns", &totals[1]),
        ("total-tool-calls", &totals[2]),
        ("total-failed-tool-calls", &totals[3]),
        ("total-memory-items", &memory[0]),
    ] {
        assert_eq!(text_of(by_id(&document, id).unwrap()), *value, "{id}");
    }
    assert_eq!(memory[0], "2");
    // The hash-joined report-activity counts what plain patterns count.
    let plain = |pattern: &str, what: &str| {
        count(
            &store,
            &format!(
                "PREFIX ch: <https://jido.ai/ontology/conversation-history#> \
                 PREFIX ihi: <https://w3id.org/ihigraph/ontology#> \
                 SELECT (COUNT(DISTINCT {what}) AS ?n) WHERE {{ GRAPH ?graph {{ {pattern} }} }}"
            ),
        )
    };
    assert_eq!(
        sums.totals,
        [
            plain("?turn ihi:role ?role", "?graph"),
            plain("?turn ihi:role ?role", "?turn"),
            plain("?turn ch:involvesToolInvocation ?call", "?call"),
            plain(
                "?turn ch:involvesToolInvocation ?call . ?call ch:hasResult ?r . ?r ihi:isError true",
                "?call"
            ),
        ]
    );
    assert_eq!(sums.totals[0], 34);
    assert!(sums.totals[3] > 0, "the corpus has failures");

    let days: Vec<Vec<String>> = sums
        .days
        .iter()
        .map(|(day, (sessions, counts))| {
            let mut row = vec![day.clone(), sessions.len().to_string()];
            row.extend(counts.iter().map(ToString::to_string));
            row
        })
        .collect();
    assert_eq!(table(&document, "table-activity"), days);

    // report-tools over the store is tool-stats without a session.
    let tool_stats = rows(&store, "tool-stats", &[]);
    assert_eq!(rows(&store, "report-tools", &[]), tool_stats);
    let tools: Vec<Vec<String>> = tool_stats
        .into_iter()
        .map(|row| {
            let (calls, failed): (f64, f64) = (row[1].parse().unwrap(), row[2].parse().unwrap());
            vec![
                row[0].clone(),
                row[1].clone(),
                row[2].clone(),
                format!("{:.1}%", failed * 100.0 / calls),
                row[4].clone(),
            ]
        })
        .collect();
    assert_eq!(table(&document, "table-tools"), tools);

    let roles: Vec<Vec<String>> = sums
        .roles
        .iter()
        .map(|(day, turns)| {
            let mut row = vec![day.clone()];
            row.extend(turns.iter().map(ToString::to_string));
            row
        })
        .collect();
    assert_eq!(table(&document, "table-roles"), roles);
}

#[test]
fn every_binned_and_listed_number_is_the_one_its_query_gives() {
    let dir = store();
    let store = dir.path().join("store");
    let page = page(&store, &[]);
    let document = parse(&page);
    // Turns per session: every session of report-activity in one bin.
    let sessions = sums(&rows(&store, "report-activity", &[])).sessions;
    let binned: u64 = table(&document, "table-turns-per-session")
        .iter()
        .map(|row| row[1].parse::<u64>().unwrap())
        .sum();
    assert_eq!(binned, sessions.len() as u64);
    // Time between turns: one per pair of consecutive turns of report-turn-times.
    let times = rows(&store, "report-turn-times", &[]);
    let pairs = times
        .windows(2)
        .filter(|pair| {
            pair[0][0] == pair[1][0]
                && pair[1][1].parse::<u64>().unwrap() == pair[0][1].parse::<u64>().unwrap() + 1
        })
        .count() as u64;
    let gaps: u64 = table(&document, "table-gaps")
        .iter()
        .map(|row| row[1].parse::<u64>().unwrap())
        .sum();
    assert_eq!(gaps, pairs);
    assert!(pairs > 100);

    let arguments: Vec<Vec<String>> = table(&document, "table-failing-arguments");
    let expected = rows(&store, "report-failing-arguments", &[]);
    assert_eq!(arguments.len(), expected.len());
    for (shown, row) in arguments.iter().zip(&expected) {
        assert_eq!(
            (&shown[0], &shown[2], &shown[3], &shown[4]),
            (&row[0], &row[2], &row[3], &row[4])
        );
        let cut = shown[1].trim_end_matches('…');
        assert!(row[1].starts_with(cut), "{} / {}", shown[1], row[1]);
    }

    // The sessions with the most failures, in the query's order, with their turns.
    let worst: Vec<String> = document
        .descendants()
        .filter(|node| node.has_tag_name("h3"))
        .map(text_of)
        .collect();
    let mut failing: Vec<(&String, &[u64; 3])> = sessions
        .iter()
        .filter(|(_, counts)| counts[2] > 0)
        .collect();
    failing.sort_by(|a, b| (b.1[2], b.1[1]).cmp(&(a.1[2], a.1[1])).then(a.0.cmp(b.0)));
    let expected: Vec<String> = failing
        .iter()
        .take(10)
        .map(|(session, _)| (*session).clone())
        .collect();
    assert_eq!(worst, expected);
}

#[test]
fn the_page_is_self_contained_and_accessible() {
    let dir = store();
    let page = page(&dir.path().join("store"), &[]);
    let document = parse(&page);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"), "no script");
    for node in document.descendants() {
        for attribute in ["src", "href", "xlink:href"] {
            assert!(
                node.attribute(attribute).is_none(),
                "{attribute} on <{}>",
                node.tag_name().name()
            );
        }
    }
    assert!(!page.contains("url("), "no CSS fetches");
    assert!(page.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    let charts: Vec<_> = document
        .descendants()
        .filter(|node| node.has_tag_name("svg"))
        .collect();
    assert_eq!(
        charts.len(),
        6,
        "sessions, turns, turns per session, tools, roles, gaps"
    );
    for chart in charts {
        assert_eq!(chart.attribute("role"), Some("img"));
        let labels = chart.attribute("aria-labelledby").unwrap();
        for id in labels.split(' ') {
            assert!(!text_of(by_id(&document, id).unwrap()).is_empty(), "{id}");
        }
        let text = text_of(chart);
        assert!(
            text.contains("day") || text.contains("turns") || text.contains("tool"),
            "axis labels: {text}"
        );
    }
    // Each section names the queries behind it.
    for query in [
        "report-activity",
        "report-tools",
        "report-turn-times",
        "report-failing-arguments",
        "recent-turns",
    ] {
        assert!(page.contains(&format!("<code>{query}</code>")), "{query}");
    }
}

/// A history whose turns call no tool.
fn without_tools() -> Value {
    let mut document = common::example("code-review-abc.json");
    document["SessionID"] = json!("no-tools");
    for (at, turn) in document["Turns"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        turn["PRCPrompt"] =
            json!({"messages": [{"role": "user", "content": format!("question {at}")}]});
        turn["BKNResponse"] =
            json!({"content": [{"type": "text", "text": format!("answer {at}")}]});
    }
    document
}

#[test]
fn empty_stores_single_sessions_and_sessions_without_tools_give_sensible_pages() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let empty = page(&store, &[]);
    parse(&empty);
    assert!(empty.contains("<dd id=\"total-sessions\">0</dd>"));
    assert!(empty.contains("No turns with an absolute time in this report."));
    assert!(empty.contains("No tool calls in this report."));
    assert!(!empty.contains("<svg"), "no empty axes");

    ihigraph(&store)
        .args(["ingest", "-"])
        .write_stdin(without_tools().to_string())
        .assert()
        .success();
    let one = page(&store, &[]);
    let document = parse(&one);
    assert_eq!(text_of(by_id(&document, "total-sessions").unwrap()), "1");
    assert!(one.contains("No tool calls in this report."));
    assert!(one.contains("No tool call failed in this report."));
    assert_eq!(one.matches("<svg").count(), 5, "all but the tools chart");
}

#[test]
fn options_narrow_the_report_and_bad_ones_are_refused() {
    let dir = store();
    let store = dir.path().join("store");
    let abc = page(&store, &["--session", "abc"]);
    let document = parse(&abc);
    assert_eq!(text_of(by_id(&document, "total-sessions").unwrap()), "1");
    assert_eq!(text_of(by_id(&document, "total-turns").unwrap()), "4");
    assert_eq!(
        text_of(by_id(&document, "total-memory-items").unwrap()),
        "2"
    );
    let two = parse(&page(&store, &["--session", "abc", "trip-kyoto-2026"]))
        .descendants()
        .find(|n| n.attribute("id") == Some("total-sessions"))
        .map(text_of);
    assert_eq!(two.as_deref(), Some("2"));

    let later = page(&store, &["--since", "2100-01-01"]);
    assert!(
        later.contains("<dd id=\"total-sessions\">0</dd>"),
        "nothing after 2100"
    );
    let window = page(&store, &["--since", "2026-01-02", "--until", "2026-01-03"]);
    let document = parse(&window);
    let days = table(&document, "table-activity");
    assert_eq!(
        days.iter().map(|row| row[0].as_str()).collect::<Vec<_>>(),
        vec!["2026-01-02"]
    );
    let activity = rows(
        &store,
        "report-activity",
        &["since=2026-01-02", "until=2026-01-03"],
    );
    assert!(activity.iter().all(|row| row[1] == "2026-01-02"));
    let turns: u64 = activity
        .iter()
        .map(|row| row[3].parse::<u64>().unwrap())
        .sum();
    assert_eq!(days[0][2], turns.to_string());

    ihigraph(&store)
        .args(["report", "--since", "yesterday"])
        .assert()
        .code(2)
        .stderr(contains("--since yesterday: expected an RFC 3339 time"));
    ihigraph(&store)
        .args(["report", "--session", "nobody", "--out", "-"])
        .assert()
        .code(1)
        .stderr(contains("nobody"));
    let out = dir.path().join("no-such-dir").join("r.html");
    ihigraph(&store)
        .arg("report")
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .stderr(contains("no-such-dir"));
    // Standard output takes the page too.
    ihigraph(&store)
        .args(["report", "--out", "-", "--session", "abc"])
        .assert()
        .success()
        .stdout(contains("<dd id=\"total-sessions\">1</dd>"));
}
