//! The `ihigraph` command. Exit codes: 0 success, 1 input refused (a document failed its
//! checks, a query is invalid, a session is unknown), 2 usage error (bad arguments, a
//! setting that conflicts with the store's), 3 failure of the store or the system, 130
//! interrupted (Ctrl-C) after the session being written.

#![allow(clippy::print_stdout, clippy::print_stderr)] // The binary is where printing belongs.

mod cli;
mod commands;
mod files;
mod output;
mod status;

use clap::Parser;
use status::Status;
use std::process::ExitCode;

/// mimalloc, built with `override`: C's and C++'s `malloc` and `free` are mimalloc's
/// too (RocksDB's, and the error strings Oxigraph frees through Rust's allocator), so
/// that every part of the process allocates from one allocator. glibc's malloc took a
/// third of the time of a context (`perf`); with mimalloc a context takes a quarter
/// less.
///
/// Wrapped in [`Budgeted`](ihigraph::serve::Budgeted), which charges what a client's query
/// allocates to the server's query memory budget, so that a runaway query is stopped
/// before it takes the machine's memory.
#[global_allocator]
static GLOBAL: ihigraph::serve::Budgeted<mimalloc::MiMalloc> =
    ihigraph::serve::Budgeted(mimalloc::MiMalloc);

fn main() -> ExitCode {
    run().into()
}

fn run() -> Status {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // Printing help or a usage error can only fail on a closed stream.
            let _ = error.print();
            return if error.use_stderr() {
                Status::Usage
            } else {
                Status::Success
            };
        }
    };
    match commands::run(cli) {
        Ok(status) => status,
        Err(error) if status::is_broken_pipe(&error) => Status::Success,
        Err(error) => {
            let cause: &(dyn std::error::Error + 'static) = error.as_ref();
            eprintln!("ihigraph: error: {}", ihigraph::store::error_chain(cause));
            status::of(&error)
        }
    }
}
