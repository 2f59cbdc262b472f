pub(crate) mod max_exclusive;
pub(crate) mod max_inclusive;
pub(crate) mod min_exclusive;
pub(crate) mod min_inclusive;
