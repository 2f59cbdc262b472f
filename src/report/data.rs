//! What the report shows, read from the canned queries' rows: every number of the page
//! is a value of one of them or a sum of its rows (`report-activity` gives one row per
//! session, period and role; the histograms count rows into bins).

use super::period::{Civil, TimeUnit};
use super::{ReportError, ReportOptions};
use crate::query::{
    Arguments, CannedQuery, RECENT_TURNS, REPORT_ACTIVITY, REPORT_FAILING_ARGUMENTS, REPORT_MEMORY,
    REPORT_SPAN, REPORT_TOOLS, REPORT_TURN_TIMES, TOKEN_USAGE, TOOL_LATENCY, TOOLS_BY_SESSION,
    UNANSWERED_TURNS,
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
    /// Sessions: every one, those without turns too; only those with a turn in the
    /// time, when one is given.
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

/// One period of activity (a minute, hour, day, week, month or run of years).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    /// Its label in full, UTC (`2026-01-02 10:00` for an hour: [`TimeUnit::label`]).
    pub label: String,
    /// Its label on a chart's axis, short (`10:00`).
    pub axis_label: String,
    /// Sessions with a turn in it.
    pub sessions: u64,
    /// Turns.
    pub turns: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Failed tool calls.
    pub failed_tool_calls: u64,
    /// Turns by role (`A-User`, `H-User`, `BKN`).
    pub roles: BTreeMap<String, u64>,
}

/// Activity over time, in periods of one unit chosen from its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    /// The periods' unit: the finest in which the turns' span takes at most
    /// [`MAX_PERIODS`](super::MAX_PERIODS) periods.
    pub unit: TimeUnit,
    /// Every period from the first turn's to the last's, the empty ones too, oldest
    /// first; none when no turn has an absolute time.
    pub periods: Vec<Period>,
    /// The day (`YYYY-MM-DD`) every period is in, when they are minutes or hours of
    /// one day: their axis labels leave it out.
    pub day: Option<String>,
}

impl Default for Timeline {
    fn default() -> Self {
        Self {
            unit: TimeUnit::Day,
            periods: Vec::new(),
            day: None,
        }
    }
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
    /// Whether it awaits its response (the history's input after its last response).
    pub awaiting: bool,
}

/// Everything the page shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportData {
    /// The totals.
    pub totals: Totals,
    /// Activity over time.
    pub timeline: Timeline,
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
    /// Tokens and latency by model (sessions with telemetry only).
    pub models: Vec<ModelUsage>,
    /// Latency by tool (runs with a span only).
    pub tool_latency: Vec<ToolLatency>,
    /// What reasoning says of the agents (M-Instances), most tools first: `None` on a
    /// store that does not reason.
    pub agents: Option<Vec<AgentTools>>,
    /// The turns that got no answer (`unanswered-turns`): `None` on a store that does
    /// not reason.
    pub unanswered: Option<u64>,
}

/// An agent (an M-Instance) and the tools its sessions used, as reasoning entails
/// them (`tools-by-session`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentTools {
    /// The agent's `MInstanceID`.
    pub agent: String,
    /// Its sessions that used a tool.
    pub sessions: u64,
    /// The tools they used, by name.
    pub tools: BTreeSet<String>,
}

/// A model's calls, tokens and latency, as OpenTelemetry spans report them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelUsage {
    /// The provider, when the spans name it.
    pub provider: Option<String>,
    /// The model that answered, else the one asked for.
    pub model: String,
    /// Model calls.
    pub calls: u64,
    /// Sessions calling it.
    pub sessions: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Mean latency of the calls, in milliseconds.
    pub mean_latency_ms: Option<f64>,
    /// The longest call, in milliseconds.
    pub max_latency_ms: Option<f64>,
}

/// A tool's runs and their latency, as OpenTelemetry spans report them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolLatency {
    /// The tool.
    pub tool: String,
    /// Runs with a span.
    pub runs: u64,
    /// Runs whose span failed.
    pub failed_runs: u64,
    /// Mean latency, in milliseconds.
    pub mean_latency_ms: Option<f64>,
    /// The longest run, in milliseconds.
    pub max_latency_ms: Option<f64>,
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
    // The span first: the time charts' unit says how finely report-activity cuts time,
    // so that its rows are no more than the charts need.
    let unit = unit_of_span(&run(&REPORT_SPAN, window(options))?);
    // The queries are independent: they run side by side, one thread per core (more
    // would hold more answers in memory at once and end no sooner), the longest first.
    let queries = [
        (
            &REPORT_ACTIVITY,
            window(options).count("width", unit.width()),
        ),
        (&REPORT_TURN_TIMES, window(options)),
        (&REPORT_TOOLS, window(options)),
        (&REPORT_FAILING_ARGUMENTS, window(options)),
        (&REPORT_MEMORY, window(options)),
        (&TOKEN_USAGE, window(options)),
        (&TOOL_LATENCY, window(options)),
    ];
    let mut answers = store
        .side_by_side(&queries, |_, (query, arguments)| {
            run(query, arguments.clone())
        })
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
    data.models = next()?.iter().map(ModelUsage::of_row).collect();
    data.tool_latency = next()?.iter().map(ToolLatency::of_row).collect();
    data.timeline = timeline(&activity, unit);
    data.sessions = sessions(&activity);
    data.totals = totals(&data.sessions, &memory);
    data.worst = worst(&data.sessions, &run)?;
    if store.reasons() {
        data.agents = Some(agent_tools(&run(&TOOLS_BY_SESSION, window(options))?));
        data.unanswered = Some(run(&UNANSWERED_TURNS, window(options))?.len() as u64);
    }
    Ok(data)
}

/// The rows of `tools-by-session` gathered by agent, most tools first.
fn agent_tools(rows: &[QuerySolution]) -> Vec<AgentTools> {
    let mut agents: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for row in rows {
        let (Some(agent), Some(session), Some(tool)) =
            (text(row, "agent"), text(row, "session"), text(row, "tool"))
        else {
            continue;
        };
        let (sessions, tools) = agents.entry(agent).or_default();
        sessions.insert(session);
        tools.insert(tool);
    }
    let mut agents: Vec<AgentTools> = agents
        .into_iter()
        .map(|(agent, (sessions, tools))| AgentTools {
            agent,
            sessions: sessions.len() as u64,
            tools,
        })
        .collect();
    agents.sort_by(|a, b| {
        b.tools
            .len()
            .cmp(&a.tools.len())
            .then_with(|| a.agent.cmp(&b.agent))
    });
    agents
}

/// The time charts' unit from the `report-span` row; minutes when no turn has an
/// absolute time (there are no time charts then) or one is beyond the year 9999 (the
/// timeline then takes the unit its periods need).
fn unit_of_span(rows: &[QuerySolution]) -> TimeUnit {
    let time = |variable| {
        let lexical = text(rows.first()?, variable)?;
        Civil::of(DateTime::from_str(&lexical).ok()?)
    };
    match (time("firstTurn"), time("lastTurn")) {
        (Some(first), Some(last)) => TimeUnit::for_span(first, last, TimeUnit::Minute),
        _ => TimeUnit::Minute,
    }
}

/// A row of `report-activity`: one session's turns of one period and role, or a
/// session without turns.
struct Activity {
    session: String,
    period: Option<String>,
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
            period: text(row, "period"),
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

/// Activity in periods of `asked`, or of a coarser unit if the store changed after
/// `report-span` and its periods no longer fit (turns without an absolute time are in
/// none).
fn timeline(activity: &[Activity], asked: TimeUnit) -> Timeline {
    let rows: Vec<(Civil, &Activity)> = activity
        .iter()
        .filter_map(|row| Some((Civil::of_prefix(row.period.as_deref()?)?, row)))
        .collect();
    let times = rows.iter().map(|(time, _)| *time);
    let (Some(first), Some(last)) = (times.clone().min(), times.max()) else {
        return Timeline {
            unit: asked,
            ..Timeline::default()
        };
    };
    let unit = TimeUnit::for_span(first, last, asked);
    let (from, to) = (unit.index(first), unit.index(last));
    let day = unit
        .day_of(from)
        .filter(|day| unit != TimeUnit::Day && unit.day_of(to) == Some(*day));
    let mut periods: Vec<(BTreeSet<&str>, Period)> = (from..=to)
        .map(|index| {
            let period = Period {
                label: unit.label(index),
                axis_label: unit.axis_label(index, day.is_none()),
                sessions: 0,
                turns: 0,
                tool_calls: 0,
                failed_tool_calls: 0,
                roles: BTreeMap::new(),
            };
            (BTreeSet::new(), period)
        })
        .collect();
    for (time, row) in rows {
        let at = usize::try_from(unit.index(time) - from).ok();
        let Some((sessions, sums)) = at.and_then(|at| periods.get_mut(at)) else {
            continue;
        };
        sessions.insert(&row.session);
        sums.turns += row.turns;
        sums.tool_calls += row.tool_calls;
        sums.failed_tool_calls += row.failed_tool_calls;
        *sums.roles.entry(row.role.clone()).or_default() += row.turns;
    }
    Timeline {
        unit,
        periods: periods
            .into_iter()
            .map(|(sessions, period)| Period {
                sessions: sessions.len() as u64,
                ..period
            })
            .collect(),
        day: day.map(super::period::date),
    }
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

impl ModelUsage {
    /// A row of `token-usage`.
    fn of_row(row: &QuerySolution) -> Self {
        Self {
            provider: text(row, "provider"),
            model: text(row, "model").unwrap_or_default(),
            calls: number(row, "calls"),
            sessions: number(row, "sessions"),
            input_tokens: number(row, "inputTokens"),
            output_tokens: number(row, "outputTokens"),
            mean_latency_ms: real(row, "meanLatencyMs"),
            max_latency_ms: real(row, "maxLatencyMs"),
        }
    }
}

impl ToolLatency {
    /// A row of `tool-latency`.
    fn of_row(row: &QuerySolution) -> Self {
        Self {
            tool: text(row, "tool").unwrap_or_default(),
            runs: number(row, "runs"),
            failed_runs: number(row, "failedRuns"),
            mean_latency_ms: real(row, "meanLatencyMs"),
            max_latency_ms: real(row, "maxLatencyMs"),
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
                awaiting: text(row, "awaiting").as_deref() == Some("true"),
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

fn real(row: &QuerySolution, variable: &str) -> Option<f64> {
    text(row, variable).and_then(|value| value.parse().ok())
}

fn number(row: &QuerySolution, variable: &str) -> u64 {
    text(row, variable)
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}
