//! The ihigraph library as a Python module, `ihigraph._ihigraph`: `Store` (the store and
//! what the commands do with it), `validate` and `convert` (documents without a store),
//! `Diagnostic`, and the exceptions. The pure-Python package around it (python/ihigraph/)
//! adds the memory interfaces of LangChain, LangGraph and LlamaIndex.

mod chat;
mod documents;
mod errors;
mod store;
mod terms;
mod values;

use pyo3::prelude::*;

/// The module's Rust allocator: mimalloc, as the `ihigraph` binary runs with (glibc's
/// `malloc` and `free` took a third of a `context` call's time through Python: see
/// docs/performance.md, "Through Python"). Without mimalloc's `override`, which the
/// binary builds with: in a module the interpreter and every other extension own the C
/// library's `malloc`, so RocksDB's C++ keeps it. No block crosses between the two: the
/// one that did, the error strings RocksDB `malloc`s, Oxigraph now copies and gives back
/// to `rocksdb_free` (patches/oxigraph, fifth change), where it freed them through Rust's
/// allocator (a crash under mimalloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _ihigraph(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<store::PyStore>()?;
    module.add_class::<store::IngestReport>()?;
    module.add_class::<documents::PyDiagnostic>()?;
    module.add_function(wrap_pyfunction!(documents::validate, module)?)?;
    module.add_function(wrap_pyfunction!(documents::convert, module)?)?;
    module.add("IhigraphError", py.get_type::<errors::IhigraphError>())?;
    module.add("ValidationError", py.get_type::<errors::ValidationError>())?;
    module.add("ConversionError", py.get_type::<errors::ConversionError>())?;
    module.add("StoreError", py.get_type::<errors::StoreError>())?;
    module.add("NotFoundError", py.get_type::<errors::NotFoundError>())?;
    module.add("QueryError", py.get_type::<errors::QueryError>())?;
    Ok(())
}
