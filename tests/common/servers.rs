//! Real SPARQL servers for the remote backend's tests: the stock Oxigraph server (PyPI's
//! `oxigraph`) and Virtuoso 7 (Debian's `virtuoso-opensource`), each started on
//! loopback ports of its own with a throw-away data directory, and stopped when dropped.
//! A missing server fails the test that asks for it, unless `IHIGRAPH_SKIP_SERVERS=1`.
#![allow(clippy::print_stderr)] // Where skips are reported.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerKind {
    Oxigraph,
    Virtuoso,
}

/// Virtuoso's settings that the tests vary.
#[derive(Debug, Clone, Copy)]
pub struct VirtuosoOptions {
    /// `ResultSetMaxRows`.
    pub max_rows: u32,
    /// Whether the anonymous SPARQL user may update.
    pub anon_update: bool,
    /// `MaxSortedTopRows`.
    pub max_sorted_rows: u32,
}

impl Default for VirtuosoOptions {
    fn default() -> Self {
        Self {
            max_rows: 10_000,
            anon_update: true,
            max_sorted_rows: 10_000,
        }
    }
}

/// A running server and its endpoints.
pub struct Server {
    pub kind: ServerKind,
    pub query: String,
    pub update: String,
    pub graph_store: String,
    /// Virtuoso's Digest-protected query and update endpoint.
    pub auth_query: Option<String>,
    /// Virtuoso's SQL user with SPARQL_UPDATE, and its password.
    pub user: Option<(String, String)>,
    program: Vec<String>,
    dir: tempfile::TempDir,
    child: Option<Child>,
    ready: String,
}

const USER: &str = "ihigraph";
const PASSWORD: &str = "ihigraph-test-pw";

fn skipping() -> bool {
    std::env::var("IHIGRAPH_SKIP_SERVERS").is_ok_and(|value| value == "1")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

fn found(program: &str, install: &str) {
    let ok = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    assert!(
        ok,
        "{program} is not installed: {install} (or set IHIGRAPH_SKIP_SERVERS=1 to skip the server tests)"
    );
}

/// A fresh Oxigraph server, or None when `IHIGRAPH_SKIP_SERVERS=1`.
pub fn oxigraph() -> Option<Server> {
    if skipping() {
        eprintln!("skipped: IHIGRAPH_SKIP_SERVERS=1, no Oxigraph server started");
        return None;
    }
    found("oxigraph", "pip install oxigraph==0.5.13");
    let dir = tempfile::tempdir().unwrap();
    let base = format!("http://127.0.0.1:{}", free_port());
    let location = dir.path().join("store");
    let program = vec![
        "oxigraph".to_owned(),
        "serve".to_owned(),
        "--location".to_owned(),
        location.display().to_string(),
        "--bind".to_owned(),
        base.trim_start_matches("http://").to_owned(),
    ];
    let mut server = Server {
        kind: ServerKind::Oxigraph,
        query: format!("{base}/query"),
        update: format!("{base}/update"),
        graph_store: format!("{base}/store"),
        auth_query: None,
        user: None,
        program,
        dir,
        child: None,
        ready: format!("{base}/query?query=ASK%7B%7D"),
    };
    server.start(Duration::from_secs(60));
    Some(server)
}

/// A fresh Virtuoso, or None when `IHIGRAPH_SKIP_SERVERS=1`.
pub fn virtuoso(options: VirtuosoOptions) -> Option<Server> {
    if skipping() {
        eprintln!("skipped: IHIGRAPH_SKIP_SERVERS=1, no Virtuoso started");
        return None;
    }
    found("virtuoso-t", "apt-get install virtuoso-opensource");
    let dir = tempfile::tempdir().unwrap();
    let (http, sql) = (free_port(), free_port());
    let d = dir.path().display();
    std::fs::create_dir_all(dir.path().join("www")).unwrap();
    let ini = format!(
        "[Database]\nDatabaseFile = {d}/virtuoso.db\nErrorLogFile = {d}/virtuoso.log\nLockFile = {d}/virtuoso.lck\n\
         TransactionFile = {d}/virtuoso.trx\nxa_persistent_file = {d}/virtuoso.pxa\nErrorLogLevel = 7\nFileExtend = 200\n\
         MaxCheckpointRemap = 2000\nStriping = 0\nTempStorage = TempDatabase\n\n\
         [TempDatabase]\nDatabaseFile = {d}/virtuoso-temp.db\nTransactionFile = {d}/virtuoso-temp.trx\n\
         MaxCheckpointRemap = 2000\nStriping = 0\n\n\
         [Parameters]\nServerPort = 127.0.0.1:{sql}\nDisableUnixSocket = 1\nDisableTcpSocket = 0\n\
         MaxClientConnections = 10\nCheckpointInterval = 60\nCaseMode = 2\nDirsAllowed = ., {d}\n\
         NumberOfBuffers = 10000\nMaxDirtyBuffers = 7500\nMaxSortedTopRows = {}\n\n\
         [HTTPServer]\nServerPort = 127.0.0.1:{http}\nServerRoot = {d}/www\nMaxClientConnections = 10\n\
         ServerThreads = 10\nEnabledDavVSP = 0\nCharset = UTF-8\nEnabledGzipContent = 1\n\n\
         [SPARQL]\nResultSetMaxRows = {}\nMaxQueryCostEstimationTime = 400\nMaxQueryExecutionTime = 60\n",
        options.max_sorted_rows, options.max_rows
    );
    let ini_path = dir.path().join("virtuoso.ini");
    std::fs::write(&ini_path, ini).unwrap();
    let base = format!("http://127.0.0.1:{http}");
    let mut server = Server {
        kind: ServerKind::Virtuoso,
        query: format!("{base}/sparql"),
        update: format!("{base}/sparql"),
        graph_store: format!("{base}/sparql-graph-crud"),
        auth_query: Some(format!("{base}/sparql-auth")),
        user: Some((USER.to_owned(), PASSWORD.to_owned())),
        program: vec![
            "virtuoso-t".to_owned(),
            "+foreground".to_owned(),
            "+configfile".to_owned(),
            ini_path.display().to_string(),
        ],
        dir,
        child: None,
        ready: format!("{base}/sparql?query=ASK%7B%7D"),
    };
    server.start(Duration::from_secs(120));
    let isql = |statement: &str, tolerated: &[&str]| isql(sql, statement, tolerated);
    isql(
        &format!("DB.DBA.USER_CREATE ('{USER}', '{PASSWORD}');"),
        &[],
    );
    isql(&format!("GRANT SPARQL_UPDATE TO \"{USER}\";"), &["U0013"]);
    if options.anon_update {
        isql("GRANT SPARQL_UPDATE TO \"SPARQL\";", &["U0013"]);
    } else {
        isql("REVOKE SPARQL_UPDATE FROM \"SPARQL\";", &["U0014"]);
    }
    Some(server)
}

/// Runs one SQL statement as dba; isql exits 0 even on errors, so its output is read.
fn isql(port: u16, statement: &str, tolerated: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let output = Command::new("isql-vt")
            .arg(format!("127.0.0.1:{port}"))
            .args(["dba", "dba", "VERBOSE=OFF", "BANNER=OFF", "PROMPT=OFF"])
            .arg(format!("exec={statement}"))
            .output()
            .expect("isql-vt runs (apt-get install virtuoso-opensource)");
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        if !text.contains("*** Error") || tolerated.iter().any(|code| text.contains(code)) {
            return;
        }
        assert!(
            Instant::now() < deadline && text.contains("connect"),
            "isql {statement}: {text}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

impl Server {
    fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    fn start(&mut self, limit: Duration) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log())
            .unwrap();
        let child = Command::new(&self.program[0])
            .args(&self.program[1..])
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program[0]));
        self.child = Some(child);
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(2)))
            .http_status_as_error(false)
            .build()
            .into();
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(response) = agent.get(&self.ready).call()
                && response.status() == 200
            {
                return;
            }
            assert!(
                self.is_running(),
                "{} exited during start-up; its log:\n{}",
                self.program[0],
                self.log_tail()
            );
            assert!(
                Instant::now() < deadline,
                "{} did not answer within {limit:?}; its log:\n{}",
                self.program[0],
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Whether the server process runs.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|child| child.try_wait().ok().flatten().is_none())
    }

    /// The end of the server's log.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// SIGKILL, as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM, then SIGKILL after 30 s.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(30);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on its port and data, after `kill` or `stop`.
    pub fn restart(&mut self) {
        self.stop();
        let _ = std::fs::remove_file(self.dir.path().join("virtuoso.lck"));
        self.start(Duration::from_secs(120));
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
