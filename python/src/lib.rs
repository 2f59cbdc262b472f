//! The ihigraph library as a Python module, `ihigraph._ihigraph`: `Store` (the store and
//! what the commands do with it), `validate` and `convert` (documents without a store),
//! `Diagnostic`, and the exceptions. The pure-Python package around it (python/ihigraph/)
//! adds the memory interfaces of LangChain, LangGraph and LlamaIndex.

mod allocator;
mod chat;
mod documents;
mod errors;
mod store;
mod terms;
mod values;

use pyo3::prelude::*;

/// mimalloc, as the `ihigraph` binary runs with: see [`allocator`].
#[global_allocator]
static GLOBAL: allocator::Mixed = allocator::Mixed;

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
