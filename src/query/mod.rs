//! Queries: the canned SPARQL queries of `queries/*.rq` with their typed parameters and
//! how arguments are bound into them, and the SPARQL result formats. Queries are
//! definitions and pure functions of text and terms; the store runs them, so this layer
//! sits below [`store`](crate::store).

mod canned;
mod nesting;
mod paging;
mod parameters;
mod patterns;
mod results;

pub use canned::*;
pub use nesting::{MAX_NESTING, TooDeep, check_nesting};
pub(crate) use paging::{keyed_page, ordered_page};
pub use parameters::{
    Argument, Arguments, Parameter, ParameterError, ParameterKind, parse_date_time,
};
pub(crate) use patterns::{set_dataset, set_named_graphs, sub_patterns};
pub use results::{
    GraphFormat, ResultsError, ResultsFormat, ResultsShape, write_results, write_results_shaped,
};
