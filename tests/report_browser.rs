//! The report opened in a real browser: Debian's Chromium, headless, driven over the
//! Chrome DevTools Protocol. The page must load with no console message of level error
//! or warning, no exception, nothing fetched but the page itself (its resource timings,
//! and the protocol's request events where they arrive), every chart drawn at a
//! non-zero size, and a screenshot is kept (`target/test-artifacts/report.png`). Pages
//! of activity that spans one hour, one day, a month and two years draw at least one
//! bar of positive size in every chart, with the same silence in the console
//! (`target/test-artifacts/report-SPAN.png`).
//!
//! Chromium is found at `IHIGRAPH_CHROMIUM` or `/usr/bin/chromium` (`.ci/bootstrap`
//! installs it). Without it the test fails, unless `IHIGRAPH_SKIP_BROWSER=1` says to
//! skip it, and then it says so.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

mod common;

use common::ihigraph;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Network, Page};
use headless_chrome::{Browser, LaunchOptions, Tab};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Run before the page: keeps what would show in the console.
const WATCH: &str = r"
window.__ihigraphProblems = [];
for (const level of ['error', 'warn']) {
  const original = console[level];
  console[level] = (...args) => {
    window.__ihigraphProblems.push('console.' + level + ': ' + args.join(' '));
    original.apply(console, args);
  };
}
window.addEventListener('error', (event) => {
  const target = event.target && event.target.tagName ? ' loading ' + event.target.tagName : '';
  window.__ihigraphProblems.push('error' + target + ': ' + (event.message || ''));
}, true);
window.addEventListener('unhandledrejection', (event) => {
  window.__ihigraphProblems.push('unhandled rejection: ' + event.reason);
});
document.addEventListener('securitypolicyviolation', (event) => {
  window.__ihigraphProblems.push('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI);
});
";

fn chromium() -> Option<PathBuf> {
    if std::env::var_os("IHIGRAPH_SKIP_BROWSER").is_some_and(|value| !value.is_empty()) {
        eprintln!("SKIPPED: the report's browser test (IHIGRAPH_SKIP_BROWSER is set)");
        return None;
    }
    let path = std::env::var_os("IHIGRAPH_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    assert!(
        path.exists(),
        "no Chromium at {} (install Debian's chromium, as .ci/bootstrap does, set IHIGRAPH_CHROMIUM, or set IHIGRAPH_SKIP_BROWSER=1 to skip this test)",
        path.display()
    );
    Some(path)
}

#[test]
fn the_report_renders_in_chromium_without_errors_or_requests() {
    let Some(path) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = report_page(dir.path());
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    let (problems, requests) = listen(&tab);
    let url = open(&tab, &page);

    let sizes: Vec<(String, f64, f64)> = json(
        &tab,
        "Array.from(document.querySelectorAll('svg')).map(svg => { const box = svg.getBoundingClientRect(); return [svg.getAttribute('aria-labelledby'), box.width, box.height]; })",
    );
    assert_eq!(sizes.len(), 6, "{sizes:?}");
    for (chart, width, height) in &sizes {
        assert!(
            *width > 300.0 && *height > 100.0,
            "{chart}: {width} x {height}"
        );
    }
    assert_eq!(json::<String>(&tab, "document.title"), "ihigraph report");

    // Nothing fetched: the page's resource timings list every image, style sheet, font
    // and script it loaded, and the navigation entry shows the API answers.
    let (navigation, resources): (Vec<String>, Vec<String>) = json(
        &tab,
        "[performance.getEntriesByType('navigation').map(e => e.name), performance.getEntriesByType('resource').map(e => e.name)]",
    );
    assert_eq!(navigation, vec![url.clone()]);
    assert!(resources.is_empty(), "the page fetched {resources:?}");
    let requests = requests.lock().unwrap().clone();
    assert!(
        requests.iter().all(|request| *request == url),
        "the page made requests besides its own: {requests:?}"
    );

    every_chart_draws_bars(&tab, "the corpus");
    silent(&tab, &problems, "the corpus");
    screenshot(&tab, "report.png");
    // And the page's Content Security Policy stops a fetch, which the watch hears.
    tab.evaluate(
        "const img = document.createElement('img'); img.src = 'https://example.invalid/x.png'; document.body.append(img); 1",
        false,
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let watched: Vec<String> = json(&tab, "window.__ihigraphProblems");
    assert!(
        watched
            .iter()
            .any(|problem| problem.starts_with("CSP violation: img-src https://example.invalid")),
        "{watched:?}"
    );
}

#[test]
fn time_charts_draw_bars_in_chromium_for_every_span() {
    let Some(path) = chromium() else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    for (span, unit, periods, sessions) in common::activity_spans() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        common::ingest_documents(&store, &sessions);
        let page = dir.path().join("report.html");
        ihigraph(&store)
            .arg("report")
            .arg("--out")
            .arg(&page)
            .assert()
            .success();
        let tab = browser.new_tab().unwrap();
        let (problems, _) = listen(&tab);
        open(&tab, &page);
        let charts = every_chart_draws_bars(&tab, span);
        assert_eq!(charts, 6, "{span}: every chart has data");
        let title: String = json(
            &tab,
            "document.querySelector('#chart-sessions-title').textContent",
        );
        assert_eq!(title, format!("Sessions per {unit}"), "{span}");
        // The axis has a place for every period, the quiet ones too.
        let description: String = json(
            &tab,
            "document.querySelector('#chart-sessions-desc').textContent",
        );
        assert!(
            description.contains(&format!("the {periods} periods of one {unit}")),
            "{span}: {description}"
        );
        silent(&tab, &problems, span);
        screenshot(&tab, &format!("report-{}.png", span.replace(' ', "-")));
        tab.close(true).unwrap();
    }
}

/// Opens a page in the tab and waits until it has loaded; its URL.
fn open(tab: &Tab, page: &Path) -> String {
    let url = format!("file://{}", page.display());
    tab.navigate_to(&url).unwrap();
    // Loaded when the document says so (Chromium 156 no longer sends the frame events
    // headless_chrome's wait_until_navigated waits for on file: pages).
    let loaded = (0..300).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        tab.evaluate("document.readyState === 'complete' && location.href", false)
            .ok()
            .and_then(|result| result.value)
            .is_some_and(|value| value.as_str() == Some(url.as_str()))
    });
    assert!(loaded, "{url} did not load in 30 s");
    // Give late loads, if any, the time to show.
    std::thread::sleep(Duration::from_millis(500));
    url
}

/// Each chart's rectangles as the browser lays them out: (chart, [(fill, width, height,
/// width attribute, height attribute)]).
type Rectangles = Vec<(String, Vec<(String, f64, f64, String, String)>)>;

/// The report's series colours (blue, orange, grey, red), as plotters writes them.
const SERIES_FILLS: [&str; 4] = ["#1F6FB4", "#E68A00", "#6B6B6B", "#C01C28"];

/// Every chart in the page has at least one bar the browser draws at a positive width
/// and height, beyond its legend's swatches, and no rectangle has a negative size (the
/// browser's console reports those as errors, and draws nothing); how many charts.
fn every_chart_draws_bars(tab: &Tab, what: &str) -> usize {
    let charts: Rectangles = json(
        tab,
        "Array.from(document.querySelectorAll('svg')).map(svg => [svg.getAttribute('aria-labelledby').split(' ')[0].replace(/-title$/, ''), Array.from(svg.querySelectorAll('rect')).map(rect => { const box = rect.getBBox(); return [(rect.getAttribute('fill') || '').toUpperCase(), box.width, box.height, rect.getAttribute('width') || '0', rect.getAttribute('height') || '0']; })])",
    );
    for (chart, rectangles) in &charts {
        for (_, _, _, width, height) in rectangles {
            let (width, height): (f64, f64) = (width.parse().unwrap(), height.parse().unwrap());
            assert!(
                width >= 0.0 && height >= 0.0,
                "{what} {chart}: a rect of {width} x {height}"
            );
        }
        let drawn = rectangles
            .iter()
            .filter(|(fill, width, height, _, _)| {
                SERIES_FILLS.contains(&fill.as_str()) && *width > 0.0 && *height > 0.0
            })
            .count();
        let swatches = match chart.as_str() {
            "chart-roles" => 3,
            "chart-tools" => 2,
            _ => 0,
        };
        assert!(
            drawn > swatches,
            "{what} {chart}: {drawn} coloured rectangles, {swatches} of them the legend's"
        );
    }
    charts.len()
}

/// Nothing in the console: no error or warning heard over the protocol or by the
/// watch in the page, which does hear a message of our own.
fn silent(tab: &Tab, problems: &Heard, what: &str) {
    let problems = problems.lock().unwrap().clone();
    assert!(
        problems.is_empty(),
        "{what}: the browser reported: {problems:#?}"
    );
    tab.evaluate("console.error('ihigraph probe')", false)
        .unwrap();
    let watched: Vec<String> = json(tab, "window.__ihigraphProblems");
    assert_eq!(
        watched,
        vec!["console.error: ihigraph probe".to_owned()],
        "{what}: the page reported more than the probe"
    );
    tab.evaluate("window.__ihigraphProblems = []; 1", false)
        .unwrap();
}

/// A screenshot of the whole page, kept in `target/test-artifacts`.
fn screenshot(tab: &Tab, name: &str) {
    let artifacts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    assert!(png.len() > 10_000);
    std::fs::write(artifacts.join(name), &png).unwrap();
}

/// A report of the examples and a generated corpus, written into `dir`.
fn report_page(dir: &Path) -> PathBuf {
    let store = dir.join("store");
    common::ingest_examples_and_corpus(&store, &[], 40, 2);
    let page = dir.join("report.html");
    ihigraph(&store)
        .arg("report")
        .arg("--out")
        .arg(&page)
        .assert()
        .success();

    page
}

/// Chromium, headless, with a profile of its own and nothing in the background.
fn launch(path: PathBuf, profile: &Path) -> Browser {
    let arguments: Vec<&OsStr> = [
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--disable-dev-shm-usage",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    Browser::new(
        LaunchOptions::default_builder()
            .path(Some(path))
            .headless(true)
            .sandbox(false)
            .window_size(Some((1280, 900)))
            .user_data_dir(Some(profile.to_owned()))
            .args(arguments)
            .idle_browser_timeout(Duration::from_secs(120))
            .build()
            .unwrap(),
    )
    .unwrap()
}

/// What a listener heard, shared with it.
type Heard = Arc<Mutex<Vec<String>>>;

/// What the browser reports over the protocol (console errors and warnings, exceptions,
/// requests), and the watch installed in every page before its own content.
fn listen(tab: &Tab) -> (Heard, Heard) {
    let problems: Heard = Arc::default();
    let requests: Heard = Arc::default();
    {
        let (problems, requests) = (Arc::clone(&problems), Arc::clone(&requests));
        tab.add_event_listener(Arc::new(move |event: &Event| match event {
            Event::RuntimeConsoleAPICalled(called) => {
                let level = format!("{:?}", called.params.Type);
                if level.contains("Error") || level.contains("Warning") || level.contains("Assert")
                {
                    problems
                        .lock()
                        .unwrap()
                        .push(format!("console {level}: {:?}", called.params.args));
                }
            }
            Event::RuntimeExceptionThrown(thrown) => {
                problems.lock().unwrap().push(format!(
                    "exception: {:?}",
                    thrown.params.exception_details.text
                ));
            }
            Event::LogEntryAdded(added) => {
                let level = format!("{:?}", added.params.entry.level);
                if level.contains("Error") || level.contains("Warning") {
                    problems
                        .lock()
                        .unwrap()
                        .push(format!("log {level}: {}", added.params.entry.text));
                }
            }
            Event::NetworkRequestWillBeSent(sent) => {
                requests
                    .lock()
                    .unwrap()
                    .push(sent.params.request.url.clone());
            }
            _ => {}
        }))
        .unwrap();
    }
    tab.enable_log().unwrap();
    tab.enable_runtime().unwrap();
    tab.call_method(Network::Enable {
        max_total_buffer_size: None,
        max_resource_buffer_size: None,
        max_post_data_size: None,
        report_direct_socket_traffic: None,
        enable_durable_messages: None,
    })
    .unwrap();
    // Not every protocol event reaches headless_chrome from this Chromium (it drops
    // those it cannot read: no console event arrives), so the page is also watched from
    // inside: a script the browser runs before the page's own (not subject to its CSP)
    // keeps every console error or warning, uncaught error, failed load and CSP
    // violation.
    tab.call_method(Page::AddScriptToEvaluateOnNewDocument {
        source: WATCH.to_owned(),
        world_name: None,
        include_command_line_api: None,
        run_immediately: None,
    })
    .unwrap();
    (problems, requests)
}

/// The value of a JavaScript expression, read as JSON.
fn json<T: serde::de::DeserializeOwned>(tab: &Tab, expression: &str) -> T {
    let text = tab
        .evaluate(&format!("JSON.stringify({expression})"), false)
        .unwrap()
        .value
        .unwrap();
    serde_json::from_str(text.as_str().unwrap()).unwrap()
}
