pub mod engine;
pub mod native;
#[cfg(feature = "sparql")]
pub mod sparql;

pub use engine::*;
