//! A real `ihigraph serve` on a free loopback port, and a plain HTTP client for it: what
//! the tests of the server (`serve`, `hostile`) share.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const TOKEN: &str = "test-token-7f3a";

/// A running `ihigraph serve`, stopped when dropped; its log lines are kept.
pub struct Server {
    pub child: Child,
    pub base: String,
    pub log: Arc<Mutex<Vec<String>>>,
    pub _dir: Option<tempfile::TempDir>,
}

impl Server {
    /// Starts a server on a new store with the token set and these extra arguments.
    pub fn start(arguments: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Self::on(&dir.path().join("store"), Some(TOKEN), arguments);
        server._dir = Some(dir);
        server
    }

    pub fn on(store: &Path, token: Option<&str>, arguments: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ihigraph"));
        command
            .arg("--store")
            .arg(store)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(arguments)
            .env_remove("IHIGRAPH_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(token) = token {
            command.env("IHIGRAPH_TOKEN", token);
        }
        Self::spawn(command)
    }

    /// Starts `ihigraph ... serve` as `command` says (its standard error is taken), and
    /// waits for it to say where it serves.
    pub fn spawn(mut command: Command) -> Self {
        command.stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (sender, receiver) = std::sync::mpsc::channel();
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let line = line.unwrap_or_default();
                if let Some(at) = line.find(" at http://") {
                    let address = line[at + 4..].split_whitespace().next().unwrap_or("");
                    let _ = sender.send(address.trim_end_matches('/').to_owned());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let base = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server did not start: {:?}", log.lock().unwrap()));
        Self {
            child,
            base,
            log,
            _dir: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The `/proc` stat line of each of the server's threads that run a client's query now.
    pub fn query_thread_stats(&self) -> Vec<String> {
        let tasks = format!("/proc/{}/task", self.child.id());
        std::fs::read_dir(tasks).map_or_else(
            |_| Vec::new(),
            |tasks| {
                tasks
                    .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("stat")).ok())
                    .filter(|stat| stat.contains("(ihigraph-query)"))
                    .collect()
            },
        )
    }

    /// How many of the server's threads run a client's query now.
    pub fn query_threads(&self) -> usize {
        self.query_thread_stats().len()
    }

    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.body))
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

pub fn call(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Reply {
    let mut request = ureq::http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = match body {
        Some(body) => agent().run(request.body(body).unwrap()),
        None => agent().run(request.body(()).unwrap()),
    }
    .unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body = response.into_body().read_to_string().unwrap();
    Reply {
        status,
        content_type,
        body,
    }
}

pub fn get(url: &str) -> Reply {
    call("GET", url, &[], None)
}

pub const BEARER: (&str, &str) = ("Authorization", "Bearer test-token-7f3a");
