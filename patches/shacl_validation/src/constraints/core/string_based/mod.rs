pub(crate) mod language_in;
pub(crate) mod max_length;
pub(crate) mod min_length;
pub(crate) mod pattern;
pub(crate) mod unique_lang;
