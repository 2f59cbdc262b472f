pub(crate) mod disjoint;
pub(crate) mod equals;
pub(crate) mod less_than;
pub(crate) mod less_than_or_equals;
