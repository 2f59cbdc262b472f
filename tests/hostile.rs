//! The server tried as a hostile client would: on loopback, against a real `ihigraph
//! serve` (and `ihigraph mcp` over stdio), every probe bounded in time and count. Each
//! family of attack has its module under `tests/hostile/`; each test checks that the server
//! stays up, answers the attack with the right status, keeps an ordinary query within a few
//! times its quiet latency, and keeps its memory bounded.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

mod common;
#[path = "hostile/http.rs"]
mod http;
#[path = "hostile/query.rs"]
mod query;
#[path = "hostile/secrets.rs"]
mod secrets;
