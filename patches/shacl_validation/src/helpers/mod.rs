pub(crate) mod constraint;
pub(crate) mod helper_error;
pub(crate) mod sparql;
pub(crate) mod srdf;
