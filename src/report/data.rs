//! What the report shows, read from the canned queries' rows: every number of the page
//! is a value of one of them or a sum of its rows (`report-activity` gives one row per
//! session, day and role; the histograms count rows into bins).

use super::{ReportError, ReportOptions};
use crate::query::{
    Arguments, CannedQuery, RECENT_TURNS, REPORT_ACTIVITY, REPORT_FAILING_ARGUMENTS, REPORT_MEMORY,
    REPORT_TOOLS, REPORT_TURN_TIMES,
};
use crate::store::{HistoryStore, StoreError};
use oxigraph::model::{NamedNode, Term};
use oxigraph::sparql::{QueryResults, QuerySolution};
use oxsdatatypes::DateTime;
use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

/// How many sessions the report shows with their recent turns.
pub const WORST_SESSIONS: usize = 10;
/// How many recent turns it shows of each.
pub const RECENT: u64 = 3;

/// The totals at the top of the page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Sessions (with a turn in the time, when one is given).
    pub sessions: u64,
    /// Turns.
    pub turns: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Tool calls whose result reports an error.
    pub failed_tool_calls: u64,
    /// Memory items made from the sessions.
    pub memory_items: u64,
}

/// One day of activity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    /// `YYYY-MM-DD`, UTC.
    pub day: String,
    /// Sessions with a turn that day.
    pub sessions: u64,
    /// Turns.
    pub turns: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Failed tool calls.
    pub failed_tool_calls: u64,
}

/// A session's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStats {
    /// Its `SessionID`.
    pub session: String,
    /// Turns.
    pub turns: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Failed tool calls.
    pub failed_tool_calls: u64,
    /// Its first turn's time, if absolute.
    pub first_turn: Option<String>,
    /// Its last turn's time, if absolute.
    pub last_turn: Option<String>,
}

/// A tool's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolStats {
    /// The tool's name.
    pub tool: String,
    /// Calls.
    pub calls: u64,
    /// Calls whose result reports an error.
    pub failed_calls: u64,
    /// Sessions using it.
    pub sessions: u64,
}

/// Arguments whose calls fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailingArguments {
    /// The tool.
    pub tool: String,
    /// The arguments, as JSON text.
    pub arguments: String,
    /// Failed calls with them.
    pub failures: u64,
    /// All calls with them.
    pub calls: u64,
    /// Sessions with such a failure.
    pub sessions: u64,
}

/// One of a session's recent turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentTurn {
    /// Its index.
    pub index: u64,
    /// A-User, H-User or BKN.
    pub role: String,
    /// Its time, if absolute.
    pub time: Option<String>,
    /// The prompt's text, if any.
    pub prompt: Option<String>,
    /// The answer's text, if any.
    pub answer: Option<String>,
}

/// Everything the page shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportData {
    /// The totals.
    pub totals: Totals,
    /// Activity by day, oldest first.
    pub days: Vec<Day>,
    /// Turns by day and role: (day, role, turns).
    pub roles: Vec<(String, String, u64)>,
    /// Every session's figures, most failed calls first.
    pub sessions: Vec<SessionStats>,
    /// Every tool's figures, most used first.
    pub tools: Vec<ToolStats>,
    /// The time between consecutive turns of a session, in seconds.
    pub gaps: Vec<f64>,
    /// The arguments that fail most often.
    pub failing_arguments: Vec<FailingArguments>,
    /// The sessions with the most failed calls, with their recent turns.
    pub worst: Vec<(SessionStats, Vec<RecentTurn>)>,
}

/// A query's rows, or why there are none.
type Answer = Result<Vec<QuerySolution>, ReportError>;

/// Runs a canned query with its arguments over the report's sessions, giving its rows.
type Runner<'a> = dyn Fn(&CannedQuery, Arguments) -> Answer + Sync + 'a;

/// Runs the report's queries.
pub fn read(store: &HistoryStore, options: &ReportOptions) -> Result<ReportData, ReportError> {
    let graphs = graphs(store, options)?;
    let run = |query: &CannedQuery, arguments: Arguments| -> Answer {
        let results = match &graphs {
            Some(graphs) => store.run_in(query, &arguments, graphs)?,
            None => store.run(query, &arguments)?,
        };
        let QueryResults::Solutions(solutions) = results else {
            return Ok(Vec::new());
        };
        Ok(solutions
            .collect::<Result<Vec<_>, _>>()
            .map_err(StoreError::QueryEvaluation)?)
    };
    // The queries are independent: they run side by side, one thread per core (more
    // would hold more answers in memory at once and end no sooner), the longest first.
    let queries = [
        &REPORT_ACTIVITY,
        &REPORT_TURN_TIMES,
        &REPORT_TOOLS,
        &REPORT_FAILING_ARGUMENTS,
        &REPORT_MEMORY,
    ];
    let mut answers = store
        .side_by_side(&queries, |_, query| run(query, window(options)))
        .into_iter();
    let mut next = || answers.next().unwrap_or_else(|| Ok(Vec::new()));
    let activity: Vec<Activity> = next()?.iter().map(Activity::of_row).collect();
    let mut data = ReportData {
        gaps: gaps(&next()?),
        tools: next()?.iter().map(ToolStats::of_row).collect(),
        failing_arguments: next()?.iter().map(FailingArguments::of_row).collect(),
        ..ReportData::default()
    };
    let memory = next()?;
    data.days = days(&activity);
    data.roles = roles(&activity);
    data.sessions = sessions(&activity);
    data.totals = totals(&data.sessions, &memory);
    data.worst = worst(&data.sessions, &run)?;
    Ok(data)
}

/// A row of `report-activity`: one session's turns of one day and role.
struct Activity {
    session: String,
    day: Option<String>,
    role: String,
    turns: u64,
    tool_calls: u64,
    failed_tool_calls: u64,
    first_turn: Option<(DateTime, String)>,
    last_turn: Option<(DateTime, String)>,
}

impl Activity {
    fn of_row(row: &QuerySolution) -> Self {
        let time = |variable| {
            let lexical = text(row, variable)?;
            Some((DateTime::from_str(&lexical).ok()?, lexical))
        };
        Self {
            session: text(row, "session").unwrap_or_default(),
            day: text(row, "day"),
            role: text(row, "role").unwrap_or_default(),
            turns: number(row, "turns"),
            tool_calls: number(row, "toolCalls"),
            failed_tool_calls: number(row, "failedToolCalls"),
            first_turn: time("firstTurn"),
            last_turn: time("lastTurn"),
        }
    }
}

/// The totals: the sums of the sessions' figures (themselves sums of `report-activity`),
/// and the `report-memory` row.
fn totals(sessions: &[SessionStats], memory: &[QuerySolution]) -> Totals {
    Totals {
        sessions: sessions.len() as u64,
        turns: sessions.iter().map(|stats| stats.turns).sum(),
        tool_calls: sessions.iter().map(|stats| stats.tool_calls).sum(),
        failed_tool_calls: sessions.iter().map(|stats| stats.failed_tool_calls).sum(),
        memory_items: memory.first().map_or(0, |row| number(row, "items")),
    }
}

/// Activity by day, oldest first (turns without an absolute time have no day).
fn days(activity: &[Activity]) -> Vec<Day> {
    let mut days: BTreeMap<&str, (BTreeSet<&str>, Day)> = BTreeMap::new();
    for row in activity {
        let Some(day) = &row.day else { continue };
        let (sessions, sums) = days.entry(day).or_insert_with(|| {
            let sums = Day {
                day: day.clone(),
                sessions: 0,
                turns: 0,
                tool_calls: 0,
                failed_tool_calls: 0,
            };
            (BTreeSet::new(), sums)
        });
        sessions.insert(&row.session);
        sums.turns += row.turns;
        sums.tool_calls += row.tool_calls;
        sums.failed_tool_calls += row.failed_tool_calls;
    }
    days.into_values()
        .map(|(sessions, day)| Day {
            sessions: sessions.len() as u64,
            ..day
        })
        .collect()
}

/// Turns by day and role.
fn roles(activity: &[Activity]) -> Vec<(String, String, u64)> {
    let mut roles: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for row in activity {
        if let Some(day) = &row.day {
            *roles.entry((day, &row.role)).or_default() += row.turns;
        }
    }
    roles
        .into_iter()
        .map(|((day, role), turns)| (day.to_owned(), role.to_owned(), turns))
        .collect()
}

/// Every session's figures, most failed calls first, then most calls, then by id.
fn sessions(activity: &[Activity]) -> Vec<SessionStats> {
    type Time<'a> = Option<&'a (DateTime, String)>;
    let mut sessions: BTreeMap<&str, (SessionStats, Time<'_>, Time<'_>)> = BTreeMap::new();
    for row in activity {
        let (stats, first, last) = sessions.entry(&row.session).or_insert_with(|| {
            let stats = SessionStats {
                session: row.session.clone(),
                turns: 0,
                tool_calls: 0,
                failed_tool_calls: 0,
                first_turn: None,
                last_turn: None,
            };
            (stats, None, None)
        });
        stats.turns += row.turns;
        stats.tool_calls += row.tool_calls;
        stats.failed_tool_calls += row.failed_tool_calls;
        if let Some(time) = &row.first_turn
            && first.is_none_or(|(first, _)| time.0 < *first)
        {
            *first = Some(time);
        }
        if let Some(time) = &row.last_turn
            && last.is_none_or(|(last, _)| time.0 > *last)
        {
            *last = Some(time);
        }
    }
    let mut sessions: Vec<SessionStats> = sessions
        .into_values()
        .map(|(stats, first, last)| SessionStats {
            first_turn: first.map(|(_, lexical)| lexical.clone()),
            last_turn: last.map(|(_, lexical)| lexical.clone()),
            ..stats
        })
        .collect();
    sessions.sort_by(|a, b| {
        (b.failed_tool_calls, b.tool_calls)
            .cmp(&(a.failed_tool_calls, a.tool_calls))
            .then_with(|| a.session.cmp(&b.session))
    });
    sessions
}

impl ToolStats {
    /// A row of `report-tools`.
    fn of_row(row: &QuerySolution) -> Self {
        Self {
            tool: text(row, "tool").unwrap_or_default(),
            calls: number(row, "calls"),
            failed_calls: number(row, "failedCalls"),
            sessions: number(row, "sessions"),
        }
    }
}

impl FailingArguments {
    /// A row of `report-failing-arguments`.
    fn of_row(row: &QuerySolution) -> Self {
        Self {
            tool: text(row, "tool").unwrap_or_default(),
            arguments: text(row, "arguments").unwrap_or_default(),
            failures: number(row, "failures"),
            calls: number(row, "calls"),
            sessions: number(row, "sessions"),
        }
    }
}

/// The sessions with the most failed tool calls, with their recent turns.
fn worst(
    sessions: &[SessionStats],
    run: &Runner<'_>,
) -> Result<Vec<(SessionStats, Vec<RecentTurn>)>, ReportError> {
    let mut worst = Vec::new();
    for stats in sessions
        .iter()
        .filter(|stats| stats.failed_tool_calls > 0)
        .take(WORST_SESSIONS)
    {
        let arguments = Arguments::new()
            .text("session", &stats.session)
            .count("n", RECENT);
        let turns = run(&RECENT_TURNS, arguments)?
            .iter()
            .map(|row| RecentTurn {
                index: number(row, "turnIndex"),
                role: text(row, "role").unwrap_or_default(),
                time: text(row, "time"),
                prompt: text(row, "promptText"),
                answer: text(row, "answerText"),
            })
            .collect();
        worst.push((stats.clone(), turns));
    }
    Ok(worst)
}

/// The session graphs the report is narrowed to (and the memory graph), if it is.
fn graphs(
    store: &HistoryStore,
    options: &ReportOptions,
) -> Result<Option<Vec<NamedNode>>, ReportError> {
    if options.sessions.is_empty() {
        return Ok(None);
    }
    let stored: std::collections::HashSet<String> =
        store.sessions()?.into_iter().map(|(id, _)| id).collect();
    let mut graphs = Vec::new();
    for id in &options.sessions {
        if !stored.contains(id) {
            return Err(StoreError::UnknownSession {
                session_id: id.clone(),
            }
            .into());
        }
        graphs.push(store.scheme().session_graph(id));
    }
    graphs.push(store.scheme().memory_graph());
    Ok(Some(graphs))
}

fn window(options: &ReportOptions) -> Arguments {
    let mut arguments = Arguments::new();
    if let Some(since) = options.since {
        arguments = arguments.date_time("since", since);
    }
    if let Some(until) = options.until {
        arguments = arguments.date_time("until", until);
    }
    arguments
}

/// The seconds between consecutive turns of each session, from rows by session and
/// turn index.
fn gaps(rows: &[QuerySolution]) -> Vec<f64> {
    let mut gaps = Vec::new();
    let mut previous: Option<(String, u64, DateTime)> = None;
    for row in rows {
        let (Some(session), Some(time)) = (text(row, "session"), text(row, "time")) else {
            continue;
        };
        let Ok(time) = DateTime::from_str(&time) else {
            continue;
        };
        let index = number(row, "turnIndex");
        if let Some((last_session, last_index, last_time)) = &previous
            && *last_session == session
            && index == last_index + 1
            && let Some(seconds) = time
                .checked_sub(*last_time)
                .and_then(|gap| gap.as_seconds().to_string().parse::<f64>().ok())
        {
            gaps.push(seconds);
        }
        previous = Some((session, index, time));
    }
    gaps
}

fn text(row: &QuerySolution, variable: &str) -> Option<String> {
    match row.get(variable)? {
        Term::Literal(literal) => Some(literal.value().to_owned()),
        Term::NamedNode(node) => Some(node.as_str().to_owned()),
        _ => None,
    }
}

fn number(row: &QuerySolution, variable: &str) -> u64 {
    text(row, variable)
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}
