pub(crate) mod closed;
pub(crate) mod has_value;
pub(crate) mod r#in;
