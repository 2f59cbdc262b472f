//! The report: every number in the page is the one its canned query gives on the same
//! store; the page is well-formed and self-contained; empty stores, one session and
//! sessions without tools give sensible pages; the options narrow it; the time charts
//! take the unit their span asks for and draw a bar for every period with turns; every
//! session counts, those without turns too.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::ihigraph;
use predicates::str::contains;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
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

/// The sums of `report-activity`'s rows (session, period, role, turns, toolCalls,
/// failedToolCalls, firstTurn, lastTurn).
struct Sums {
    /// Sessions, turns, tool calls, failed tool calls.
    totals: [u64; 4],
    /// Per period, by the page's label of it: sessions, turns, tool calls, failed tool
    /// calls.
    days: BTreeMap<String, (BTreeSet<String>, [u64; 3])>,
    /// Per period: H-User, A-User and BKN turns.
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
        for at in 0..3 {
            session[at] += counts[at];
            sums.totals[at + 1] += counts[at];
        }
        if row[1].is_empty() {
            // A session without turns, or turns without an absolute time.
            continue;
        }
        let period = period_label(&row[1]);
        let day = sums.days.entry(period.clone()).or_default();
        day.0.insert(row[0].clone());
        for (sum, count) in day.1.iter_mut().zip(counts) {
            *sum += count;
        }
        let role = ["H-User", "A-User", "BKN"]
            .iter()
            .position(|r| *r == row[2])
            .unwrap();
        sums.roles.entry(period).or_default()[role] += counts[0];
    }
    sums.totals[0] = sums.sessions.len() as u64;
    sums
}

/// A `report-activity` period as the page labels it: `2026-01-02T10` is the hour
/// `2026-01-02 10:00`.
fn period_label(period: &str) -> String {
    match period.len() {
        13 => format!("{}:00", period.replace('T', " ")),
        _ => period.replace('T', " "),
    }
}

/// The unit of the page's time charts, and the `width` that asks `report-activity` for
/// periods of it (weeks, made of days, are left to the tests that expect them).
fn unit_of(document: &roxmltree::Document<'_>) -> (String, &'static str) {
    let unit = by_id(document, "activity")
        .and_then(|section| section.attribute("data-unit"))
        .unwrap()
        .to_owned();
    let width = match unit.as_str() {
        "minute" => "width=16",
        "hour" => "width=13",
        "day" => "width=10",
        "month" => "width=7",
        "year" => "width=4",
        other => panic!("no width for {other}"),
    };
    (unit, width)
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

    let (unit, width) = unit_of(&document);
    assert_eq!(unit, "day", "the examples and the corpus span four days");
    let sums = sums(&rows(&store, "report-activity", &[width]));
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
        "report-span",
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
    // One day's window: its periods are the day's hours (or minutes).
    let window = page(&store, &["--since", "2026-01-02", "--until", "2026-01-03"]);
    let document = parse(&window);
    let (unit, width) = unit_of(&document);
    assert!(unit == "hour" || unit == "minute", "{unit}");
    let periods = table(&document, "table-activity");
    assert!(
        periods.iter().all(|row| row[0].starts_with("2026-01-02 ")),
        "{periods:?}"
    );
    let activity = rows(
        &store,
        "report-activity",
        &["since=2026-01-02", "until=2026-01-03", width],
    );
    assert!(activity.iter().all(|row| row[1].starts_with("2026-01-02T")));
    let turns: u64 = activity
        .iter()
        .map(|row| row[3].parse::<u64>().unwrap())
        .sum();
    let shown: u64 = periods
        .iter()
        .map(|row| row[2].parse::<u64>().unwrap())
        .sum();
    assert_eq!(shown, turns);

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

/// The series colours of the report's charts (blue, orange, grey, red), as plotters
/// writes them.
const SERIES_FILLS: [&str; 4] = ["#1F6FB4", "#E68A00", "#6B6B6B", "#C01C28"];

/// The bars of a chart: the width and height of each rectangle filled with a series
/// colour (its legend's swatches too, when it has one).
fn bars(document: &roxmltree::Document<'_>, chart: &str) -> Vec<(f64, f64)> {
    let labels = format!("{chart}-title {chart}-desc");
    let svg = document
        .descendants()
        .find(|node| node.has_tag_name("svg") && node.attribute("aria-labelledby") == Some(&labels))
        .unwrap_or_else(|| panic!("no chart {chart}"));
    svg.descendants()
        .filter(|node| node.has_tag_name("rect"))
        .filter(|rect| {
            rect.attribute("fill")
                .is_some_and(|fill| SERIES_FILLS.iter().any(|s| s.eq_ignore_ascii_case(fill)))
        })
        .map(|rect| {
            let size = |name| rect.attribute(name).unwrap().parse::<f64>().unwrap();
            (size("width"), size("height"))
        })
        .collect()
}

/// Every rectangle of the page has a width and a height of zero or more: a negative one
/// is an error in the browser's console, and no bar.
fn no_negative_rectangles(document: &roxmltree::Document<'_>) {
    for rect in document
        .descendants()
        .filter(|node| node.has_tag_name("rect"))
    {
        for name in ["width", "height"] {
            let value: f64 = rect.attribute(name).unwrap_or("0").parse().unwrap();
            assert!(value >= 0.0, "a rect with {name} {value}");
        }
    }
}

#[test]
fn a_first_days_only_session_draws_its_bars() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let times = [
        "2026-03-10T09:00:00Z",
        "2026-03-10T09:00:12Z",
        "2026-03-10T09:00:31Z",
        "2026-03-10T09:00:50Z",
    ];
    common::ingest_documents(&store, &[common::history_at("first", &times)]);
    let page = page(&store, &[]);
    let document = parse(&page);
    no_negative_rectangles(&document);
    assert_eq!(unit_of(&document).0, "minute");
    assert_eq!(
        text_of(by_id(&document, "chart-sessions-title").unwrap()),
        "Sessions per minute"
    );
    assert_eq!(
        table(&document, "table-activity"),
        vec![vec!["2026-03-10 09:00", "1", "4", "3", "1"]]
    );
    for chart in ["chart-sessions", "chart-turns", "chart-turns-per-session"] {
        let drawn = bars(&document, chart);
        assert_eq!(drawn.len(), 1, "{chart}: {drawn:?}");
        assert!(
            drawn[0].0 >= 40.0 && drawn[0].1 > 100.0,
            "{chart}: {drawn:?}"
        );
    }
    // The roles chart's three legend swatches, and two bars (H-User, A-User) stacked.
    let roles = bars(&document, "chart-roles");
    assert_eq!(roles.len(), 5, "{roles:?}");
    assert!(
        roles
            .iter()
            .all(|(width, height)| *width > 0.0 && *height > 0.0)
    );
}

#[test]
fn time_charts_take_the_unit_their_span_asks_for() {
    for (span, unit, periods, sessions) in common::activity_spans() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        common::ingest_documents(&store, &sessions);
        let page = page(&store, &[]);
        let document = parse(&page);
        no_negative_rectangles(&document);
        let (shown, width) = unit_of(&document);
        assert_eq!(shown, unit, "{span}");
        for (chart, what) in [("chart-sessions", "Sessions"), ("chart-turns", "Turns")] {
            let title = text_of(by_id(&document, &format!("{chart}-title")).unwrap());
            assert_eq!(title, format!("{what} per {unit}"), "{span}");
        }
        // The numbers are report-activity's in periods of that unit.
        let sums = sums(&rows(&store, "report-activity", &[width]));
        let expected: Vec<Vec<String>> = sums
            .days
            .iter()
            .map(|(period, (sessions, counts))| {
                let mut row = vec![period.clone(), sessions.len().to_string()];
                row.extend(counts.iter().map(ToString::to_string));
                row
            })
            .collect();
        let activity = table(&document, "table-activity");
        assert_eq!(activity, expected, "{span}");
        // A bar for each period with turns, none for the quiet ones between, each of
        // them wide enough to see, on an axis of every period of the span.
        for chart in ["chart-sessions", "chart-turns"] {
            let drawn = bars(&document, chart);
            assert_eq!(drawn.len(), activity.len(), "{span} {chart}");
            assert!(
                drawn
                    .iter()
                    .all(|(width, height)| *width >= 4.0 && *height > 0.0),
                "{span} {chart}: {drawn:?}"
            );
        }
        let description = text_of(by_id(&document, "chart-sessions-desc").unwrap());
        assert!(
            description.contains(&format!("the {periods} periods of one {unit} from")),
            "{span}: {description}"
        );
    }
}

#[test]
fn every_session_counts_those_without_turns_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let mut sessions: Vec<Value> = (0..6)
        .map(|at| {
            let times = [
                format!("2026-03-1{at}T09:00:00Z"),
                format!("2026-03-1{at}T09:05:00Z"),
            ];
            common::history_at(&format!("with-{at}"), &[&times[0], &times[1]])
        })
        .collect();
    sessions.push(common::history_at("without", &[]));
    common::ingest_documents(&store, &sessions);

    let info = ihigraph(&store).arg("info").output().unwrap();
    assert!(String::from_utf8_lossy(&info.stdout).contains("sessions:     7"));
    let listed = ihigraph(&store)
        .args(["sessions", "--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 8);

    let document_text = page(&store, &[]);
    let document = parse(&document_text);
    assert_eq!(text_of(by_id(&document, "total-sessions").unwrap()), "7");
    assert_eq!(text_of(by_id(&document, "total-turns").unwrap()), "12");
    assert_eq!(
        table(&document, "table-turns-per-session"),
        vec![vec!["0", "1"], vec!["1", "0"], vec!["2", "6"]]
    );
    // report-activity gives the session without turns a row of its own.
    let activity = rows(&store, "report-activity", &[]);
    assert_eq!(
        activity.iter().find(|row| row[0] == "without"),
        Some(
            &["without", "", "", "0", "0", "0", "", ""]
                .map(str::to_owned)
                .to_vec()
        )
    );
    // Narrowed to it, the report counts it alone; in a time window, only sessions with
    // a turn in it count.
    let alone = parse(&page(&store, &["--session", "without"]))
        .descendants()
        .find(|node| node.attribute("id") == Some("total-sessions"))
        .map(text_of);
    assert_eq!(alone.as_deref(), Some("1"));
    let window = page(&store, &["--since", "2026-03-10", "--until", "2026-03-12"]);
    assert!(window.contains("<dd id=\"total-sessions\">2</dd>"));
}

#[test]
fn the_telemetry_section_gives_what_its_queries_give() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .args(["ingest", "--from", "otel"])
        .arg(common::fixture_path(
            "import/otel/real-pydantic-ai/traces.jsonl",
        ))
        .arg(common::fixture_path(
            "import/otel/content-not-captured.jsonl",
        ))
        .arg(common::fixture_path("import/otel/genai-current.jsonl"))
        .assert()
        .success();
    let text = page(&store, &[]);
    let document = parse(&text);
    let models = table(&document, "table-models");
    let ms = |cell: &str| {
        if cell.is_empty() {
            String::new()
        } else {
            format!("{:.1}", cell.parse::<f64>().unwrap())
        }
    };
    // A query's rows as the page shows them: the columns at `shown`, then those at
    // `millis` (latencies) with one decimal.
    let as_shown = |query: &str, shown: &[usize], millis: &[usize]| -> Vec<Vec<String>> {
        rows(&store, query, &[])
            .into_iter()
            .map(|row| {
                shown
                    .iter()
                    .map(|at| row[*at].clone())
                    .chain(millis.iter().map(|at| ms(&row[*at])))
                    .collect()
            })
            .collect()
    };
    let expected = as_shown("token-usage", &[0, 1, 2, 3, 4, 5], &[6, 7]);
    assert_eq!(models, expected);
    assert_eq!(models.len(), 3, "three models: {models:?}");
    assert_eq!(
        models[0][1..6],
        ["gemini-2.5-flash", "2", "1", "380", "95"].map(String::from),
        "most tokens first"
    );
    assert!(
        models
            .iter()
            .any(|m| m[1] == "gpt-4o-2024-08-06" && m[4..6] == ["377".to_owned(), "37".to_owned()])
    );
    let tools = table(&document, "table-tool-latency");
    let expected = as_shown("tool-latency", &[0, 1, 2], &[4, 5]);
    assert_eq!(tools, expected);
    assert!(
        tools.iter().any(|t| t[0] == "search_hotels" && t[2] == "1"),
        "{tools:?}"
    );
    // A store without telemetry says so.
    let plain = tempfile::tempdir().unwrap();
    let plain_store = plain.path().join("store");
    common::ingest_examples_and_corpus(&plain_store, &[], 3, 1);
    assert!(
        page(&plain_store, &[]).contains("No session in this report holds OpenTelemetry spans")
    );
}

/// The agents table as `tools-by-session` gives it with `parameters`: per agent, its
/// sessions, its tools and their names.
fn agents_queried(store: &Path, parameters: &[&str]) -> BTreeMap<String, (String, String, String)> {
    let mut agents: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for row in rows(store, "tools-by-session", parameters) {
        let (sessions, tools) = agents.entry(row[1].clone()).or_default();
        sessions.insert(row[0].clone());
        tools.insert(row[2].clone());
    }
    agents
        .into_iter()
        .map(|(agent, (sessions, tools))| {
            let names = tools.iter().cloned().collect::<Vec<_>>().join(", ");
            (
                agent,
                (sessions.len().to_string(), tools.len().to_string(), names),
            )
        })
        .collect()
}

/// The agents table and the count of turns without an answer, as a report page shows them.
fn agents_shown(page: &str) -> (BTreeMap<String, (String, String, String)>, String) {
    let document = parse(page);
    let shown = table(&document, "table-agents")
        .into_iter()
        .map(|row| {
            (
                row[0].clone(),
                (row[1].clone(), row[2].clone(), row[3].clone()),
            )
        })
        .collect();
    (
        shown,
        text_of(by_id(&document, "total-unanswered").unwrap()),
    )
}

#[test]
fn the_agents_section_gives_what_reasoning_entails() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    common::ingest_examples_and_corpus(&store, &[], 6, 2);
    // Without reasoning, the section says how to get it.
    assert!(page(&store, &[]).contains("This store does not reason"));
    ihigraph(&store)
        .args(["reasoning", "on"])
        .assert()
        .success();
    // Each agent's sessions and tools, as tools-by-session gives them.
    let whole = agents_queried(&store, &[]);
    assert!(whole.len() > 2, "{whole:?}");
    let unanswered = rows(&store, "unanswered-turns", &[]).len().to_string();
    assert_eq!(
        agents_shown(&page(&store, &[])),
        (whole.clone(), unanswered.clone())
    );
    // In a time window, what the turns of the window did, as the other sections.
    let (since, until) = ("2026-01-01T00:20:00Z", "2026-01-01T00:40:00Z");
    let window = [format!("since={since}"), format!("until={until}")];
    let window: Vec<&str> = window.iter().map(String::as_str).collect();
    let windowed = agents_queried(&store, &window);
    let windowed_unanswered = rows(&store, "unanswered-turns", &window).len().to_string();
    assert_ne!(
        (&windowed, &windowed_unanswered),
        (&whole, &unanswered),
        "the window leaves something out"
    );
    assert_eq!(
        agents_shown(&page(&store, &["--since", since, "--until", until])),
        (windowed, windowed_unanswered)
    );
}
