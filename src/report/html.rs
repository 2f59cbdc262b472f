//! The page: well-formed (it parses as XML too), self-contained (a Content Security
//! Policy that allows nothing to be fetched, inline CSS, inline SVG), one section per
//! question, each naming the queries its numbers come from and giving a table beside
//! its chart.

use super::charts::{BLUE, BarChart, GREY, ORANGE, RED, Series, bar_chart};
use super::data::{Period, ReportData, SessionStats, Timeline};
use super::period::TimeUnit;
use super::text::{cut, escape};
use super::{ReportError, ReportOptions};
use crate::query::CannedQuery;
use oxsdatatypes::DateTime;
use plotters::style::RGBColor;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the page is made of.
pub struct Page<'a> {
    pub data: &'a ReportData,
    pub location: &'a str,
    pub options: &'a ReportOptions,
    pub generated_at: DateTime,
}

/// How long a prompt or answer may be in the page before it is cut.
const TEXT_CHARS: usize = 280;

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; line-height: 1.45; }
header, main { max-width: 1040px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 0 0 8px; }
section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 16px 20px; margin: 16px 0; }
.meta { color: #555; margin: 0; }
.totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin: 0; }
.totals div { border: 1px solid #e3e3e3; border-radius: 6px; padding: 8px 12px; }
.totals dt { color: #555; font-size: 0.9rem; }
.totals dd { margin: 0; font-size: 1.6rem; font-weight: 600; }
svg.chart { width: 100%; height: auto; display: block; }
figure { margin: 8px 0; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 4px 10px; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.query { color: #555; font-size: 0.85rem; margin: 8px 0 0; }
code, pre { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; }
pre { background: #f4f4f4; padding: 8px; overflow-x: auto; font-size: 0.8rem; }
.empty { color: #555; font-style: italic; }
.session { border-top: 1px solid #e5e5e5; padding-top: 8px; margin-top: 8px; }
.text { max-width: 420px; overflow-wrap: anywhere; }
";

/// The page.
pub fn page(page: &Page<'_>) -> Result<String, ReportError> {
    let data = page.data;
    let mut html = String::with_capacity(64 * 1024);
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n");
    html.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\" />\n");
    html.push_str("<title>ihigraph report</title>\n<style>");
    html.push_str(STYLE);
    html.push_str("</style>\n</head>\n<body>\n");
    header(&mut html, page);
    html.push_str("<main>\n");
    totals(&mut html, data);
    activity(&mut html, data)?;
    turns_per_session(&mut html, data)?;
    tools(&mut html, data)?;
    telemetry(&mut html, data)?;
    agents(&mut html, data)?;
    roles(&mut html, data)?;
    gaps(&mut html, data)?;
    worst_sessions(&mut html, data);
    failing_arguments(&mut html, data);
    html.push_str("</main>\n</body>\n</html>\n");
    Ok(html)
}

fn header(html: &mut String, page: &Page<'_>) {
    let options = page.options;
    let window = match (options.since, options.until) {
        (None, None) => "all time".to_owned(),
        (Some(since), None) => format!("from {since}"),
        (None, Some(until)) => format!("before {until}"),
        (Some(since), Some(until)) => format!("from {since} to before {until}"),
    };
    let sessions = if options.sessions.is_empty() {
        "every session".to_owned()
    } else {
        format!("sessions {}", options.sessions.join(", "))
    };
    let _ = write!(
        html,
        "<header>\n<h1>Agent sessions report</h1>\n<p class=\"meta\">Store <code>{}</code>; {}; {}. Made by ihigraph at {} (UTC).</p>\n<p class=\"meta\">Every number below comes from a canned SPARQL query named beside it (<code>ihigraph queries NAME</code> prints it, <code>ihigraph query NAME</code> runs it).</p>\n</header>\n",
        escape(page.location),
        escape(&window),
        escape(&sessions),
        page.generated_at
    );
}

fn totals(html: &mut String, data: &ReportData) {
    let totals = &data.totals;
    html.push_str("<section id=\"totals\">\n<h2>Totals</h2>\n<dl class=\"totals\">\n");
    for (id, name, value) in [
        ("sessions", "Sessions", totals.sessions),
        ("turns", "Turns", totals.turns),
        ("tool-calls", "Tool calls", totals.tool_calls),
        (
            "failed-tool-calls",
            "Failed tool calls",
            totals.failed_tool_calls,
        ),
        ("memory-items", "Memory items", totals.memory_items),
    ] {
        let _ = writeln!(
            html,
            "<div><dt>{name}</dt><dd id=\"total-{id}\">{value}</dd></div>"
        );
    }
    html.push_str("</dl>\n");
    query_note(
        html,
        &[&crate::query::REPORT_ACTIVITY, &crate::query::REPORT_MEMORY],
    );
    html.push_str("</section>\n");
}

fn activity(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    let timeline = &data.timeline;
    let unit = timeline.unit.name();
    let _ = writeln!(
        html,
        "<section id=\"activity\" data-unit=\"{}\">\n<h2>Sessions and turns over time</h2>",
        escape(&unit)
    );
    if timeline.periods.is_empty() {
        empty(html, "No turns with an absolute time in this report.");
    } else {
        let span = span_description(timeline);
        let values = |value: fn(&Period) -> u64| -> Vec<f64> {
            timeline.periods.iter().map(|p| value(p) as f64).collect()
        };
        time_chart(
            html,
            timeline,
            &TimeChart {
                id: "chart-sessions",
                title: &format!("Sessions per {unit}"),
                description: &format!("Sessions with a turn in each of {span}"),
                y_label: "sessions",
                series: vec![one_series("sessions", values(|p| p.sessions), BLUE)],
            },
        )?;
        time_chart(
            html,
            timeline,
            &TimeChart {
                id: "chart-turns",
                title: &format!("Turns per {unit}"),
                description: &format!("Turns taken in each of {span}"),
                y_label: "turns",
                series: vec![one_series("turns", values(|p| p.turns), ORANGE)],
            },
        )?;
        let rows: Vec<Vec<String>> = with_turns(timeline)
            .map(|period| {
                vec![
                    period.label.clone(),
                    period.sessions.to_string(),
                    period.turns.to_string(),
                    period.tool_calls.to_string(),
                    period.failed_tool_calls.to_string(),
                ]
            })
            .collect();
        let first = format!("{unit} (UTC)");
        table(
            html,
            "table-activity",
            &format!("Activity by {unit}"),
            &[
                &first,
                "sessions",
                "turns",
                "tool calls",
                "failed tool calls",
            ],
            &rows,
        );
    }
    query_note(
        html,
        &[&crate::query::REPORT_SPAN, &crate::query::REPORT_ACTIVITY],
    );
    html.push_str("</section>\n");
    Ok(())
}

fn one_series(name: &str, values: Vec<f64>, color: RGBColor) -> Series {
    Series {
        name: name.to_owned(),
        values,
        color,
    }
}

/// A chart over the timeline's periods.
struct TimeChart<'a> {
    id: &'a str,
    title: &'a str,
    /// What the bars show, without the end that names the table.
    description: &'a str,
    y_label: &'a str,
    series: Vec<Series>,
}

/// A chart with one bar (or stack) per period of the timeline, quiet periods too.
fn time_chart(
    html: &mut String,
    timeline: &Timeline,
    time_chart: &TimeChart<'_>,
) -> Result<(), ReportError> {
    let labels: Vec<String> = timeline
        .periods
        .iter()
        .map(|period| period.axis_label.clone())
        .collect();
    chart(
        html,
        &BarChart {
            id: time_chart.id,
            title: time_chart.title,
            description: &format!(
                "{}; the table below gives every {} with turns.",
                time_chart.description,
                timeline.unit.name()
            ),
            x_label: &axis_description(timeline),
            y_label: time_chart.y_label,
            categories: &labels,
            series: time_chart.series.clone(),
        },
    )
}

/// The periods with turns, for the tables (the charts show the quiet ones too).
fn with_turns(timeline: &Timeline) -> impl Iterator<Item = &Period> {
    timeline.periods.iter().filter(|period| period.turns > 0)
}

/// The time axis's description: its unit, and the day when every period is on one.
fn axis_description(timeline: &Timeline) -> String {
    let unit = match timeline.unit {
        TimeUnit::Week => "ISO week".to_owned(),
        unit => unit.name(),
    };
    match &timeline.day {
        Some(day) => format!("{unit} (UTC) of {day}"),
        None => format!("{unit} (UTC)"),
    }
}

/// What a time chart's bars cover, for its description.
fn span_description(timeline: &Timeline) -> String {
    let unit = timeline.unit.name();
    match (timeline.periods.as_slice(), timeline.periods.last()) {
        ([only], _) => format!("the {unit} {} (UTC)", only.label),
        ([first, ..], Some(last)) => format!(
            "the {} periods of one {unit} from {} to {} (UTC)",
            timeline.periods.len(),
            first.label,
            last.label
        ),
        _ => String::new(),
    }
}

fn turns_per_session(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    html.push_str("<section id=\"turns-per-session\">\n<h2>Turns per session</h2>\n");
    let counts: Vec<u64> = data.sessions.iter().map(|session| session.turns).collect();
    if counts.is_empty() {
        empty(html, "No sessions in this report.");
    } else {
        let bins = bins(&counts);
        let labels: Vec<String> = bins.iter().map(|(label, _)| label.clone()).collect();
        chart(
            html,
            &BarChart {
                id: "chart-turns-per-session",
                title: "Sessions by number of turns",
                description: &format!(
                    "How many of the {} sessions have each number of turns; the table below gives every bin.",
                    counts.len()
                ),
                x_label: "turns in the session",
                y_label: "sessions",
                categories: &labels,
                series: vec![Series {
                    name: "sessions".to_owned(),
                    values: bins.iter().map(|(_, count)| *count as f64).collect(),
                    color: BLUE,
                }],
            },
        )?;
        let rows: Vec<Vec<String>> = bins
            .iter()
            .map(|(label, count)| vec![label.clone(), count.to_string()])
            .collect();
        table(
            html,
            "table-turns-per-session",
            "Sessions by number of turns",
            &["turns", "sessions"],
            &rows,
        );
    }
    query_note(html, &[&crate::query::REPORT_ACTIVITY]);
    html.push_str("</section>\n");
    Ok(())
}

fn tools(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    html.push_str("<section id=\"tools\">\n<h2>Tool calls and failures</h2>\n");
    if data.tools.is_empty() {
        empty(html, "No tool calls in this report.");
    } else {
        let shown: Vec<_> = data.tools.iter().take(12).collect();
        let names: Vec<String> = shown.iter().map(|tool| tool.tool.clone()).collect();
        chart(
            html,
            &BarChart {
                id: "chart-tools",
                title: "Calls per tool, failed calls in red",
                description: &format!(
                    "Calls of the {} most used tools, split into calls that succeeded and calls whose result reports an error; the table below gives every tool with its failure rate.",
                    shown.len()
                ),
                x_label: "tool",
                y_label: "calls",
                categories: &names,
                series: vec![
                    Series {
                        name: "succeeded or without result".to_owned(),
                        values: shown
                            .iter()
                            .map(|t| (t.calls - t.failed_calls.min(t.calls)) as f64)
                            .collect(),
                        color: BLUE,
                    },
                    Series {
                        name: "failed".to_owned(),
                        values: shown.iter().map(|t| t.failed_calls as f64).collect(),
                        color: RED,
                    },
                ],
            },
        )?;
        let rows: Vec<Vec<String>> = data
            .tools
            .iter()
            .map(|tool| {
                vec![
                    tool.tool.clone(),
                    tool.calls.to_string(),
                    tool.failed_calls.to_string(),
                    percent(tool.failed_calls, tool.calls),
                    tool.sessions.to_string(),
                ]
            })
            .collect();
        table(
            html,
            "table-tools",
            "Tools",
            &["tool", "calls", "failed calls", "failure rate", "sessions"],
            &rows,
        );
    }
    query_note(html, &[&crate::query::REPORT_TOOLS]);
    html.push_str("</section>\n");
    Ok(())
}

/// Tokens and latency by model and by tool, from the OpenTelemetry spans the sessions
/// were made from.
fn telemetry(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    html.push_str("<section id=\"telemetry\">\n<h2>Models and tools: tokens and latency</h2>\n");
    if data.models.is_empty() && data.tool_latency.is_empty() {
        empty(
            html,
            "No session in this report holds OpenTelemetry spans (ingest --from otel, or serve's /v1/traces).",
        );
    } else {
        let shown: Vec<_> = data.models.iter().take(12).collect();
        if !shown.is_empty() {
            let names: Vec<String> = shown.iter().map(|m| m.model.clone()).collect();
            chart(
                html,
                &BarChart {
                    id: "chart-tokens",
                    title: "Tokens per model, input and output",
                    description: &format!(
                        "Input and output tokens of the {} models used most, as the spans of their calls report them; the table below gives every model with its calls and latency.",
                        shown.len()
                    ),
                    x_label: "model",
                    y_label: "tokens",
                    categories: &names,
                    series: vec![
                        Series {
                            name: "input".to_owned(),
                            values: shown.iter().map(|m| m.input_tokens as f64).collect(),
                            color: BLUE,
                        },
                        Series {
                            name: "output".to_owned(),
                            values: shown.iter().map(|m| m.output_tokens as f64).collect(),
                            color: RED,
                        },
                    ],
                },
            )?;
        }
        telemetry_tables(html, data);
    }
    query_note(
        html,
        &[&crate::query::TOKEN_USAGE, &crate::query::TOOL_LATENCY],
    );
    html.push_str("</section>\n");
    Ok(())
}

/// The tables of the telemetry section: models, then tool runs.
fn telemetry_tables(html: &mut String, data: &ReportData) {
    let ms = |value: Option<f64>| value.map_or_else(String::new, |v| format!("{v:.1}"));
    let rows: Vec<Vec<String>> = data
        .models
        .iter()
        .map(|m| {
            vec![
                m.provider.clone().unwrap_or_default(),
                m.model.clone(),
                m.calls.to_string(),
                m.sessions.to_string(),
                m.input_tokens.to_string(),
                m.output_tokens.to_string(),
                ms(m.mean_latency_ms),
                ms(m.max_latency_ms),
            ]
        })
        .collect();
    let headers = [
        "provider",
        "model",
        "calls",
        "sessions",
        "input tokens",
        "output tokens",
        "mean latency (ms)",
        "max latency (ms)",
    ];
    table(html, "table-models", "Models", &headers, &rows);
    let rows: Vec<Vec<String>> = data
        .tool_latency
        .iter()
        .map(|t| {
            vec![
                t.tool.clone(),
                t.runs.to_string(),
                t.failed_runs.to_string(),
                ms(t.mean_latency_ms),
                ms(t.max_latency_ms),
            ]
        })
        .collect();
    let headers = [
        "tool",
        "runs",
        "failed runs",
        "mean latency (ms)",
        "max latency (ms)",
    ];
    table(html, "table-tool-latency", "Tool runs", &headers, &rows);
}

/// The roles in the order of the page's colours.
const ROLES: [&str; 3] = ["H-User", "A-User", "BKN"];

fn roles(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    html.push_str("<section id=\"roles\">\n<h2>Who prompts: roles over time</h2>\n");
    let timeline = &data.timeline;
    if timeline.periods.is_empty() {
        empty(html, "No turns with an absolute time in this report.");
    } else {
        let unit = timeline.unit.name();
        let turns = |period: &Period, role: &str| period.roles.get(role).copied().unwrap_or(0);
        let series = ROLES
            .iter()
            .zip([BLUE, ORANGE, GREY])
            .map(|(role, color)| Series {
                name: format!("{role} turns"),
                values: timeline
                    .periods
                    .iter()
                    .map(|period| turns(period, role) as f64)
                    .collect(),
                color,
            })
            .collect();
        time_chart(
            html,
            timeline,
            &TimeChart {
                id: "chart-roles",
                title: &format!("Turns per {unit} by role (H-User human, A-User agent, BKN model)"),
                description: &format!(
                    "Turns taken in each of {} by humans (H-User), agents (A-User) and the model (BKN), stacked",
                    span_description(timeline)
                ),
                y_label: "turns",
                series,
            },
        )?;
        let rows: Vec<Vec<String>> = with_turns(timeline)
            .map(|period| {
                let mut row = vec![period.label.clone()];
                row.extend(ROLES.iter().map(|role| turns(period, role).to_string()));
                row
            })
            .collect();
        let first = format!("{unit} (UTC)");
        table(
            html,
            "table-roles",
            &format!("Turns by {unit} and role"),
            &[&first, "H-User", "A-User", "BKN"],
            &rows,
        );
    }
    query_note(html, &[&crate::query::REPORT_ACTIVITY]);
    html.push_str("</section>\n");
    Ok(())
}

/// The agents (M-Instances) and the tools their sessions used, and the turns that got no
/// answer: what reasoning entails (`ihigraph reasoning on`), over the report's sessions
/// and its time window.
fn agents(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    html.push_str("<section id=\"agents\">\n<h2>Agents and the tools they used (reasoning)</h2>\n");
    let (Some(agents), Some(unanswered)) = (&data.agents, data.unanswered) else {
        empty(
            html,
            "This store does not reason: `ihigraph reasoning on` adds what the ontologies entail (the tools each session used, the turns without an answer), and this section.",
        );
        html.push_str("</section>\n");
        return Ok(());
    };
    let _ = writeln!(
        html,
        "<p>Over the report's sessions and time window. Turns that got no answer: <strong id=\"total-unanswered\">{unanswered}</strong>.</p>"
    );
    if agents.is_empty() {
        empty(html, "No session in this report used a tool.");
    } else {
        let shown: Vec<_> = agents.iter().take(12).collect();
        let names: Vec<String> = shown.iter().map(|a| a.agent.clone()).collect();
        chart(
            html,
            &BarChart {
                id: "chart-agents",
                title: "Tools used per agent",
                description: &format!(
                    "The distinct tools the sessions of each of the {} agents (M-Instances) with the most tools used, as the property chain ihi:usedTool entails them; the table below names them.",
                    shown.len()
                ),
                x_label: "agent (M-Instance)",
                y_label: "tools",
                categories: &names,
                series: vec![Series {
                    name: "distinct tools".to_owned(),
                    values: shown.iter().map(|a| a.tools.len() as f64).collect(),
                    color: BLUE,
                }],
            },
        )?;
        let rows: Vec<Vec<String>> = agents
            .iter()
            .map(|agent| {
                vec![
                    agent.agent.clone(),
                    agent.sessions.to_string(),
                    agent.tools.len().to_string(),
                    agent.tools.iter().cloned().collect::<Vec<_>>().join(", "),
                ]
            })
            .collect();
        table(
            html,
            "table-agents",
            "Agents and their tools",
            &["agent", "sessions using tools", "tools", "which"],
            &rows,
        );
    }
    query_note(
        html,
        &[
            &crate::query::TOOLS_BY_SESSION,
            &crate::query::UNANSWERED_TURNS,
        ],
    );
    html.push_str("</section>\n");
    Ok(())
}

/// The bins of the time between turns: an upper bound in seconds and a label.
const GAP_BINS: [(f64, &str); 8] = [
    (0.0, "earlier than the turn before"),
    (1.0, "under 1 s"),
    (10.0, "1–10 s"),
    (60.0, "10 s–1 min"),
    (600.0, "1–10 min"),
    (3_600.0, "10 min–1 h"),
    (86_400.0, "1 h–1 day"),
    (f64::INFINITY, "a day or more"),
];

fn gaps(html: &mut String, data: &ReportData) -> Result<(), ReportError> {
    html.push_str("<section id=\"gaps\">\n<h2>Time between turns</h2>\n");
    if data.gaps.is_empty() {
        empty(
            html,
            "No session in this report has two consecutive turns with absolute times.",
        );
    } else {
        let mut counts = [0_u64; GAP_BINS.len()];
        for gap in &data.gaps {
            let at = GAP_BINS
                .iter()
                .position(|(bound, _)| *gap < *bound)
                .unwrap_or(GAP_BINS.len() - 1);
            counts[at] += 1;
        }
        // The first bin only when some turn is out of order.
        let from = usize::from(counts[0] == 0);
        let labels: Vec<String> = GAP_BINS[from..]
            .iter()
            .map(|(_, label)| (*label).to_owned())
            .collect();
        chart(
            html,
            &BarChart {
                id: "chart-gaps",
                title: "Time from one turn to the next",
                description: &format!(
                    "How many of the {} pairs of consecutive turns are each length of time apart; the table below gives every bin.",
                    data.gaps.len()
                ),
                x_label: "time from the turn before (s = seconds)",
                y_label: "pairs of turns",
                categories: &labels,
                series: vec![Series {
                    name: "pairs of turns".to_owned(),
                    values: counts[from..].iter().map(|count| *count as f64).collect(),
                    color: BLUE,
                }],
            },
        )?;
        let rows: Vec<Vec<String>> = labels
            .iter()
            .zip(&counts[from..])
            .map(|(label, count)| vec![label.clone(), count.to_string()])
            .collect();
        table(
            html,
            "table-gaps",
            "Time between turns",
            &["time from the turn before", "pairs of turns"],
            &rows,
        );
    }
    query_note(html, &[&crate::query::REPORT_TURN_TIMES]);
    html.push_str("</section>\n");
    Ok(())
}

fn worst_sessions(html: &mut String, data: &ReportData) {
    html.push_str(
        "<section id=\"worst-sessions\">\n<h2>Sessions with the most failed tool calls</h2>\n",
    );
    if data.worst.is_empty() {
        empty(html, "No tool call failed in this report.");
    }
    for (stats, turns) in &data.worst {
        session_block(html, stats, turns);
    }
    query_note(
        html,
        &[&crate::query::REPORT_ACTIVITY, &crate::query::RECENT_TURNS],
    );
    html.push_str("</section>\n");
}

fn session_block(html: &mut String, stats: &SessionStats, turns: &[super::data::RecentTurn]) {
    let _ = write!(
        html,
        "<div class=\"session\">\n<h3>{}</h3>\n<p>{} failed of {} tool calls in {} turns; {} to {}.</p>\n",
        escape(&stats.session),
        stats.failed_tool_calls,
        stats.tool_calls,
        stats.turns,
        escape(stats.first_turn.as_deref().unwrap_or("?")),
        escape(stats.last_turn.as_deref().unwrap_or("?")),
    );
    let rows: Vec<Vec<String>> = turns
        .iter()
        .map(|turn| {
            vec![
                turn.index.to_string(),
                turn.role.clone(),
                turn.time.clone().unwrap_or_default(),
                cut(turn.prompt.as_deref().unwrap_or(""), TEXT_CHARS),
                if turn.awaiting {
                    "(awaits its response)".to_owned()
                } else {
                    cut(turn.answer.as_deref().unwrap_or(""), TEXT_CHARS)
                },
            ]
        })
        .collect();
    let caption = format!("The {} most recent turns of {}", turns.len(), stats.session);
    plain_table(
        html,
        None,
        &caption,
        &["turn", "role", "time", "prompt", "answer"],
        &rows,
    );
    html.push_str("</div>\n");
}

fn failing_arguments(html: &mut String, data: &ReportData) {
    html.push_str(
        "<section id=\"failing-arguments\">\n<h2>Tool-call arguments that fail most often</h2>\n",
    );
    if data.failing_arguments.is_empty() {
        empty(html, "No tool call failed in this report.");
    } else {
        let rows: Vec<Vec<String>> = data
            .failing_arguments
            .iter()
            .map(|row| {
                vec![
                    row.tool.clone(),
                    cut(&row.arguments, TEXT_CHARS),
                    row.failures.to_string(),
                    row.calls.to_string(),
                    row.sessions.to_string(),
                ]
            })
            .collect();
        plain_table(
            html,
            Some("table-failing-arguments"),
            "Arguments whose calls fail most often",
            &["tool", "arguments", "failures", "calls", "sessions"],
            &rows,
        );
    }
    query_note(html, &[&crate::query::REPORT_FAILING_ARGUMENTS]);
    html.push_str("</section>\n");
}

/// A chart in a figure.
fn chart(html: &mut String, chart: &BarChart<'_>) -> Result<(), ReportError> {
    let svg = bar_chart(chart).map_err(|message| ReportError::Chart {
        chart: chart.title.to_owned(),
        message,
    })?;
    let _ = write!(html, "<figure>\n{svg}\n</figure>\n");
    Ok(())
}

/// A table behind a disclosure, as the chart's text alternative.
fn table(html: &mut String, id: &str, caption: &str, headers: &[&str], rows: &[Vec<String>]) {
    let _ = write!(
        html,
        "<details>\n<summary>{} as a table</summary>\n",
        escape(caption)
    );
    plain_table(html, Some(id), caption, headers, rows);
    html.push_str("</details>\n");
}

fn plain_table(
    html: &mut String,
    id: Option<&str>,
    caption: &str,
    headers: &[&str],
    rows: &[Vec<String>],
) {
    match id {
        Some(id) => {
            let _ = write!(html, "<table id=\"{id}\">");
        }
        None => html.push_str("<table>"),
    }
    let _ = write!(html, "<caption>{}</caption>\n<thead><tr>", escape(caption));
    for header in headers {
        let _ = write!(html, "<th scope=\"col\">{}</th>", escape(header));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        html.push_str("<tr>");
        for cell in row {
            let class = if !cell.is_empty()
                && cell
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '%')
            {
                " class=\"n\""
            } else {
                ""
            };
            let _ = write!(html, "<td{class}>{}</td>", escape(cell));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n");
}

/// Which queries a section's numbers come from, each with its SPARQL.
fn query_note(html: &mut String, queries: &[&CannedQuery]) {
    html.push_str("<p class=\"query\">From ");
    for (at, query) in queries.iter().enumerate() {
        if at > 0 {
            html.push_str(" and ");
        }
        let _ = write!(html, "<code>{}</code>", query.name);
    }
    html.push_str(".</p>\n");
    for query in queries {
        let _ = writeln!(
            html,
            "<details><summary>SPARQL of <code>{}</code></summary><pre>{}</pre></details>",
            query.name,
            escape(query.sparql)
        );
    }
}

fn empty(html: &mut String, what: &str) {
    let _ = writeln!(html, "<p class=\"empty\">{}</p>", escape(what));
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".to_owned();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// Turns per session in bins of a round width, at most about 20 of them; the first
/// starts at 1 turn unless some session has none.
fn bins(counts: &[u64]) -> Vec<(String, u64)> {
    let max = counts.iter().copied().max().unwrap_or(0);
    let least = counts.iter().copied().min().unwrap_or(0).min(1);
    let width = [1_u64, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000]
        .into_iter()
        .find(|width| max / width < 20)
        .unwrap_or(max / 20 + 1);
    let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
    for count in counts {
        *bins.entry(count / width).or_default() += 1;
    }
    let last = max / width;
    (0..=last)
        .filter(|bin| width > 1 || *bin > 0 || bins.contains_key(bin))
        .map(|bin| {
            let low = bin * width;
            let label = if width == 1 {
                low.to_string()
            } else {
                format!("{}–{}", low.max(least), low + width - 1)
            };
            (label, bins.get(&bin).copied().unwrap_or(0))
        })
        .collect()
}
