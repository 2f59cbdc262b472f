pub(crate) mod and;
pub(crate) mod not;
pub(crate) mod or;
pub(crate) mod xone;
