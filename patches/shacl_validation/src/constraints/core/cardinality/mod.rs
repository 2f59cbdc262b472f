pub(crate) mod max_count;
pub(crate) mod min_count;
