//! Any bytes as one HTTP/1.1 connection to the server: request lines, headers, SPARQL and
//! JSON bodies, several requests in a row (see `http_harness.rs`).
#![no_main]

#[path = "http_harness.rs"]
mod http_harness;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    http_harness::serve(data);
});
