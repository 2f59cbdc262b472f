//! The reference for `benches/ingest.sh`: loads an N-Quads file into a fresh on-disk
//! Oxigraph store with Oxigraph's own bulk loader, as `oxigraph load` does, and reports
//! quads and seconds.
//!
//! ```text
//! cargo run --release --example bulk_load -- STORE_DIR FILE.nq [--parallel]
//! ```
//!
//! `--parallel` uses `parallel_load_from_file` (the file split in chunks parsed on
//! every core) instead of one parser feeding the loader.
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

use oxigraph::io::RdfFormat;
use oxigraph::store::Store;
use std::error::Error;
use std::fs::File;
use std::io::BufReader;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let (Some(store_dir), Some(file)) = (arguments.first(), arguments.get(1)) else {
        return Err("usage: bulk_load STORE_DIR FILE.nq [--parallel]".into());
    };
    let parallel = arguments.iter().any(|argument| argument == "--parallel");
    let started = Instant::now();
    let store = Store::open(store_dir)?;
    let mut loader = store.bulk_loader();
    if parallel {
        loader.parallel_load_from_file(RdfFormat::NQuads, file)?;
    } else {
        loader.load_from_reader(RdfFormat::NQuads, BufReader::new(File::open(file)?))?;
    }
    loader.commit()?;
    store.flush()?;
    let seconds = started.elapsed().as_secs_f64();
    let quads = store.len()?;
    println!(
        "bulk-loaded {quads} quads in {seconds:.1} s ({:.0} quads/s)",
        quads as f64 / seconds
    );
    Ok(())
}
